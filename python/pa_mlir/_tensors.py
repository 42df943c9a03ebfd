"""decode() and plans on PyTorch GPU tensors (targets "cuda" and "hip"),
without copies: one tensor path for both drivers.

torch is never imported here: a caller passing tensors has imported it, so
it is looked up in sys.modules. ROCm builds of torch report their tensors
as CUDA tensors (torch.version.hip is set): such tensors belong to target
"hip", those of CUDA builds to target "cuda". The kernels are launched on
torch.cuda.current_stream() with the tensors' addresses: asynchronous,
nothing copied or read back, so a call may be captured in a CUDA (HIP)
graph after a first call outside the capture has loaded the program. The
index inputs (lengths, page ids) are not read on the host, and so not
checked: they are the caller's device data.

A Plan (pa_mlir.plan) fixes what stays the same over the layers of a
decode step: the program, the block tables and context lengths, and the
workspace of the split-K partials. Its replan() launches the plan kernel
(pa_mlir.plan() does, once per step); its run() checks the per-layer
tensors and patches their addresses into an operand block built once,
then launches decode and reduce only: no allocation (with out= given), no
ctypes structures built, no dict or JSON work per call. What a plan derives
from shapes and dtypes alone (operand table, workspace layout, the
operand block it copies) is a PlanLayout shared by every plan of the
same program, batch and block-table width. A plan of new sequence tensors
of a known shape is a twin of an earlier plan (Plan.twin): a copy of its
block with the new addresses, enqueued through the earlier plan's launch
(the runtime's enqueue over a copy of the bound operands), so nothing is
derived, checked or bound again. Poison fills of the outputs and the
workspace happen only in debug mode (PA_MLIR_DEBUG=1, or debug=True): the
partials before every run, the plan's work lists before every replan.
"""

import ctypes
import functools
import os
import sys

from . import _ffi, _operands, _runtime_capi

# Poison of the int32 plan buffers (as decode.py's numpy path).
PLAN_POISON = -0x21524111  # 0xDEADBEEF

# Operands a plan owns (its workspace), in the order they are laid out.
WORKSPACE = ("work_info", "reduce_info", "exp_sums", "max_logits", "tmp_out")
# The workspace operands the plan kernel writes.
_PLAN_LISTS = ("work_info", "reduce_info")
_ALIGNMENT = 256

# kv_dtype of torch's float8 types (the caches' elements, not raw bits).
FLOAT8_KV_DTYPES = {"float8_e4m3fn": "e4m3fn", "float8_e4m3fnuz": "e4m3fnuz"}

_ARRAYS = ("query", "key_cache", "value_cache", "block_tables",
           "context_lengths")
# The optional float32 operands of Plan.run, in its argument order: (name,
# what a run passing it to a plan without it is told). A plan with one
# reads (lse: writes) it at its operand-table shape on every run.
OPTIONAL_OPERANDS = (
    ("sinks", "this plan has no sinks (planned with sinks=False)"),
    ("alibi_slopes", "this plan has no ALiBi (planned with alibi=False)"),
    ("lse", "this plan writes no lse (planned with return_lse=False)"))
# What a run launches: decode + reduce, or (replan=True) all three.
_LAYER_KERNELS = _runtime_capi.KERNEL_DECODE | _runtime_capi.KERNEL_REDUCE
_ALL_KERNELS = _runtime_capi.KERNELS_ALL


def debug_default():
    """Whether plans poison their outputs before every run unless told
    (the environment variable PA_MLIR_DEBUG=1)."""
    return os.environ.get("PA_MLIR_DEBUG", "") not in ("", "0")


def torch_module():
    return sys.modules.get("torch")


def current_device():
    """torch's current GPU index when torch is imported and sees a GPU,
    else None."""
    torch = torch_module()
    if torch is None or not torch.cuda.is_available():
        return None
    return torch.cuda.current_device()


# id(torch) -> the function giving torch's current GPU index, once torch
# has answered through torch.cuda.current_device() (which initializes
# CUDA): then its raw accessor, without the initialization check.
_current_device_functions = {}


def current_device_of(torch):
    """A function of no arguments giving torch's current GPU index (for a
    caller holding GPU tensors, so CUDA is there)."""
    found = _current_device_functions.get(id(torch))
    if found is not None:
        return found
    torch.cuda.current_device()
    raw = getattr(getattr(torch, "_C", None), "_cuda_getDevice", None)
    found = raw or torch.cuda.current_device
    _current_device_functions[id(torch)] = found
    return found


def is_tensor(value):
    torch = torch_module()
    return torch is not None and isinstance(value, torch.Tensor)


def is_rocm(torch):
    """True for a ROCm build of torch (its "cuda" tensors are AMD's)."""
    return bool(getattr(getattr(torch, "version", None), "hip", None))


def tensor_target(torch):
    """The target of torch's GPU tensors: "hip" on ROCm, else "cuda"."""
    return "hip" if is_rocm(torch) else "cuda"


def check_target(torch, target):
    """ValueError when `target` cannot take this torch's GPU tensors."""
    expected = tensor_target(torch)
    if target != expected:
        build = "ROCm" if expected == "hip" else "CUDA"
        raise ValueError(
            f"target {target!r} cannot take these tensors: this is a {build} "
            f"build of torch, whose GPU tensors need target={expected!r}")


def _is_number(value):
    """A Python or numpy scalar (a per-tensor scale)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, float)) or (
        type(value).__module__ == "numpy" and getattr(value, "ndim", 1) == 0)


def dtype_name(dtype):
    return str(dtype).rpartition(".")[2]


def kv_dtype_of(cache, given):
    """The kv_dtype of a cache tensor: `given`, inferred from torch's
    float8 and bfloat16 types when None; ValueError when they disagree (an
    fnuz cache read as e4m3fn gives wrong numbers silently) or nothing
    says (raw uint8 bits)."""
    inferred = FLOAT8_KV_DTYPES.get(dtype_name(cache.dtype))
    if inferred is None and dtype_name(cache.dtype) == "bfloat16":
        inferred = "bf16"
    if given is None:
        if inferred is None:
            raise ValueError(
                f"kv_dtype is needed for caches of {cache.dtype} (raw bits): "
                f"give kv_dtype= or pass torch.float8_e4m3fn / "
                f"float8_e4m3fnuz / bfloat16 caches")
        return inferred
    if inferred is not None and inferred != given:
        raise ValueError(f"kv_dtype={given!r} disagrees with the caches' "
                         f"dtype {cache.dtype} (kv_dtype {inferred!r})")
    return given


def kv_torch_dtypes(torch, kv_dtype):
    """torch dtypes a cache of `kv_dtype` may have: the raw bits, or
    torch's own type of that kind."""
    names = (("bfloat16", "int16", "uint16") if kv_dtype == "bf16" else
             ("uint8", "int8") + tuple(
                 name for name, kind in FLOAT8_KV_DTYPES.items()
                 if kind == kv_dtype))
    return tuple(getattr(torch, name) for name in names
                 if hasattr(torch, name))


def query_torch_dtype(torch, query_dtype):
    return torch.bfloat16 if query_dtype == "bf16" else torch.float16


def stream_function(torch):
    """A function of a device index giving the raw handle of torch's
    current stream on it (torch's own accessor when it has one)."""
    raw = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream",
                  None)
    if raw is not None:
        return raw
    return lambda device: torch.cuda.current_stream(device).cuda_stream


def tensor_call(arrays, out):
    """A TensorCall when the array arguments are torch tensors, None when
    none is; ValueError for a mixture, CPU tensors, tensors on another
    device than the current one, or non-contiguous tensors."""
    tensors = [name for name, value in arrays.items() if is_tensor(value)]
    if out is not None and is_tensor(out):
        tensors.append("out")
    if not tensors:
        if out is not None:
            raise ValueError("out= takes a GPU tensor (with GPU tensor "
                             "arguments and target='cuda' or 'hip'); the "
                             "numpy path returns a new array")
        return None
    others = [name for name, value in arrays.items()
              if value is not None and not is_tensor(value)
              and not (name in ("k_scale", "v_scale") and _is_number(value))]
    if out is not None and not is_tensor(out):
        others.append("out")
    if others:
        raise ValueError(
            f"decode() got torch tensors ({', '.join(tensors)}) and other "
            f"arrays ({', '.join(others)}): pass every array as a GPU "
            f"tensor (target='cuda' or 'hip') or every one as a numpy array")
    torch = torch_module()
    if not torch.cuda.is_available():
        raise ValueError("decode() takes torch tensors on a GPU, but torch "
                         "sees no CUDA (or ROCm) device")
    current = torch.cuda.current_device()
    named = dict(arrays, out=out)
    for name in tensors:
        # The query and the caches may be views (Plan.run checks their
        # strides: the query's rows, nhd / hnd pages at any stride).
        check_device(named[name], name, current,
                     contiguous=name not in ("query", "key_cache",
                                             "value_cache"))
    return TensorCall(torch, current)


def check_device(tensor, name, current, contiguous=True):
    """ValueError unless `tensor` is a GPU tensor on device `current`,
    contiguous unless told otherwise (the query: a view of a fused qkv
    tensor is read at its strides, Plan.run checks them)."""
    if not tensor.is_cuda:
        raise ValueError(
            f"{name} is a torch tensor on {tensor.device}; decode() takes "
            f"GPU tensors (target='cuda' or 'hip') or numpy arrays "
            f"({name}.numpy())")
    if tensor.get_device() != current:  # no torch.device object made
        raise ValueError(
            f"{name} is on {tensor.device}, but the current CUDA device "
            f"is cuda:{current}; every tensor must be on the current "
            f"device (torch.cuda.set_device)")
    if contiguous and not tensor.is_contiguous():
        raise ValueError(
            f"{name} is not contiguous (shape {tuple(tensor.shape)}, "
            f"strides {tensor.stride()}); pass {name}.contiguous()")


def _typed(name, value, dtypes):
    """ValueError unless `value` is a tensor of one of `dtypes`."""
    if not is_tensor(value):
        raise ValueError(f"{name} must be a GPU tensor, got "
                         f"{type(value).__name__}")
    if value.dtype not in dtypes:
        raise ValueError(f"{name} must have dtype "
                         f"{' or '.join(str(d) for d in dtypes)}, got "
                         f"{value.dtype}")


def _tensor(name, value, ndims, dtypes):
    _typed(name, value, dtypes)
    if value.dim() not in ndims:
        expected = " or ".join(str(n) for n in ndims)
        raise ValueError(f"{name} must be {expected}-D, got shape "
                         f"{tuple(value.shape)}")
    return value


class TensorCall:
    """The tensor half of one decode() call."""

    def __init__(self, torch, device):
        self.torch = torch
        self.device = device

    def kv_dtype(self, key_cache, kv_dtype):
        return kv_dtype_of(key_cache, kv_dtype) if is_tensor(key_cache) \
            else kv_dtype

    def inputs(self, query, key_cache, value_cache, block_tables,
               context_lengths, k_scale, v_scale, sinks, kv_dtype,
               query_dtype, v_layout, out):
        """The checked tensors: (query in the query dtype, key_cache,
        value_cache, block_tables, context_lengths, scale mode, k_scale,
        v_scale, sinks, out). float32 queries are rounded to the query dtype
        on the device (round to nearest even), as numpy ones are."""
        t = self.torch
        qdtype = query_torch_dtype(t, query_dtype)
        query = _tensor("query", query, (3,), (t.float32, qdtype))
        if query.dtype == t.float32:
            query = query.to(qdtype)
        kv = kv_torch_dtypes(t, kv_dtype)
        key_cache = _tensor("key_cache", key_cache, (4, 5), kv)
        value_cache = _tensor("value_cache", value_cache,
                              (4 if v_layout == "plain" else 5,), kv)
        kv_dtype_of(value_cache, kv_dtype)
        block_tables = _tensor("block_tables", block_tables, (2,),
                               (t.int32,))
        context_lengths = _tensor("context_lengths", context_lengths, (1,),
                                  (t.int32,))
        scale, k_scale, v_scale = self._scales(k_scale, v_scale)
        if sinks is not None:
            sinks = _tensor("sinks", sinks, (1,), (t.float32,))
        if out is not None:
            out = _tensor("out", out, (3,), (qdtype,))
        return (query, key_cache, value_cache, block_tables, context_lengths,
                scale, k_scale, v_scale, sinks, out)

    def _scales(self, k_scale, v_scale):
        t = self.torch
        if k_scale is None and v_scale is None:
            return "none", None, None
        if k_scale is None or v_scale is None:
            raise ValueError("k_scale and v_scale must be given together")

        def kind(scale):
            if _is_number(scale) or (is_tensor(scale) and scale.numel() == 1
                                     and scale.dim() <= 1):
                return "per_tensor"
            return "per_token"

        mode = kind(k_scale)
        if kind(v_scale) != mode:
            raise ValueError(
                "k_scale and v_scale must both be per-tensor (a float or a "
                "float32 tensor [1]) or both per-token (float32 [N, Hkv, P])")

        def device_scale(name, scale):
            if _is_number(scale):
                # A fill kernel, not a host copy: capturable.
                return t.full((1,), float(scale), dtype=t.float32,
                              device=f"cuda:{self.device}")
            scale = _tensor(name, scale, (0, 1, 3), (t.float32,))
            return scale.reshape(1) if mode == "per_tensor" else scale

        return (mode, device_scale("k_scale", k_scale),
                device_scale("v_scale", v_scale))


def workspace_layout(table):
    """[(name, byte offset, shape, element bytes)] of the workspace
    operands of an operand table, each aligned to 256 bytes; and the total
    bytes."""
    layout, offset = [], 0
    for op in table:
        if op.name not in WORKSPACE:
            continue
        count = 1
        for extent in op.shape:
            count *= extent
        layout.append((op.name, offset, op.shape, op.element_bytes))
        offset += -(-count * op.element_bytes // _ALIGNMENT) * _ALIGNMENT
    return layout, max(offset, _ALIGNMENT)


def row_major_strides(shape):
    """The element strides of a contiguous array of `shape`."""
    strides = [1] * len(shape)
    for i in range(len(shape) - 1, 0, -1):
        strides[i - 1] = strides[i] * shape[i]
    return tuple(strides)


def inner_strides_fit(shape, strides, inner):
    """Whether the element `strides` of an array of `shape` have its dims
    after the first at `inner` (their row-major strides), where a dim of
    one element may have any stride (torch gives those various ones): the
    one rule for the query (rows at any stride) and nhd / hnd caches
    (pages at any stride), on a run's fast path and in its message."""
    return strides[1:] == inner or all(
        size == 1 or stride == want
        for size, stride, want in zip(shape[1:], strides[1:], inner))


def query_row_stride(shape, strides):
    """The row stride (elements) the kernels get for a query of `shape`
    [B*Q, Hq, D] at element `strides` (whose heads and elements fit): its
    dim-0 stride, or for a single row, which is read at no stride, the
    row-major Hq * D (torch gives a dim of one element various strides).
    The one rule of a run's fast path and its one-by-one checks."""
    rows, heads, dim = shape
    return strides[0] if rows > 1 else heads * dim


def page_strides_fit(shape, strides, inner):
    """Whether the Python API passes an nhd / hnd cache of `shape` at
    element `strides` to the kernels: inner_strides_fit, and pages at any
    stride but 0 over more than one page (an expand() of one page). The
    numpy path refuses np.broadcast_to alike: it passes page strides in
    PaHostBuffers, where 0 means "contiguous", so a zero page stride cannot
    go through it as given; the C device API (PaDeviceOperand) accepts
    one, and its kernels then read page 0 for every entry."""
    return ((strides[0] != 0 or shape[0] <= 1)
            and inner_strides_fit(shape, strides, inner))


class DeviceOperands:
    """The PaDeviceOperand array of one operand table
    (_runtime_capi.device_operands), made once per PlanLayout, in a
    template block of 64-bit words that starts with a PaLaunchCall (the
    enqueue pa*LaunchCall reads: launch, operands, count, kernels, stream,
    error) and also holds the sizes of the operands whose dim 0 is the
    pool's page count N and the query's strides, the array's pointers to
    them (and the call's to the array) pointing into the block. Every plan
    launches on a block of its own (block(), copy_block()): one copy and
    the rewrite of those few pointers, so a plan of new sequence tensors
    builds no ctypes array per operand. A plan patches its block's words in
    place: the addresses (`block[slot]`, address_slot(name)), N
    (set_pool()), the query's row stride (`block[query_row]`: the kernels
    read the query at these strides, row-major until a run sets the row
    stride of a view), and the call's launch, kernels and stream
    (`launch_word`, `kernels_word`, `stream_word`); the runtime writes a
    failed enqueue's message into the call's error (`error_offset`,
    bytes): each block has its own."""

    def __init__(self, table):
        self.names = [op.name for op in table]
        array, self.count, self._keep = _runtime_capi.device_operands(
            [(op.name, 0, op.shape) for op in table])
        call = _runtime_capi.PaLaunchCall
        header = ctypes.sizeof(call) // 8
        record = _runtime_capi.PaDeviceOperand
        word = ctypes.sizeof(record) // 8

        def field_slot(i, field):
            return header + i * word + getattr(record, field).offset // 8

        # Where in a block each operand's address field is; a run
        # writes data_ptr() there.
        self.slots = {name: field_slot(i, "address")
                      for i, name in enumerate(self.names)}
        self.launch_word = call.launch.offset // 8
        self.kernels_word = call.kernels.offset // 8
        self.stream_word = call.stream.offset // 8
        self.error_offset = call.error.offset
        # The words each plan owns after the array: (the array's pointer
        # slot, the values it points to).
        owned = [(field_slot(i, "sizes"), op.shape)
                 for i, op in enumerate(table) if _operands.pooled(op)]
        # nhd / hnd caches (a 4-D key) are read at their page strides:
        # their row-major strides, dim 0 set by every run.
        self.page_strides = {}
        if "key_cache" in self.slots and len(
                table[self.names.index("key_cache")].shape) == 4:
            for name in ("key_cache", "value_cache"):
                i = self.names.index(name)
                owned.append((field_slot(i, "strides"),
                              row_major_strides(table[i].shape)))
                self.page_strides[name] = len(owned) - 1
        if "query" in self.slots:
            _, heads, dim = table[self.names.index("query")].shape
            owned.append((field_slot(self.names.index("query"), "strides"),
                          (heads * dim, dim, 1)))
        offset = header + ctypes.sizeof(array) // 8
        block = (ctypes.c_uint64 * (offset + sum(
            len(values) for _, values in owned)))()
        ctypes.memmove(ctypes.addressof(block) + 8 * header, array,
                       ctypes.sizeof(array))
        block[call.count.offset // 8] = self.count
        # (pointer slot, byte offset of what it points to): rewritten in
        # every copy to point into the copy's own block.
        self._pointers = [(call.operands.offset // 8, 8 * header)]
        starts = []
        for slot, values in owned:
            self._pointers.append((slot, 8 * offset))
            starts.append(offset)
            block[offset:offset + len(values)] = values
            offset += len(values)
        # Dim 0 of every pooled operand's sizes; the query's row stride
        # (its strides come last); the caches' page strides.
        self.query_row = starts.pop() if "query" in self.slots else None
        self.page_strides = {name: starts[i]
                             for name, i in self.page_strides.items()}
        self._pool_words = [start for start in starts
                            if start not in self.page_strides.values()]
        self._array_offset = 8 * header
        self._pointers = tuple(self._pointers)
        self.template = block

    def block(self):
        """A plan's own copy of the template block (its addresses unset,
        N 0), its pointers pointing into it."""
        block = type(self.template).from_buffer_copy(self.template)
        return self.copy_block(block, block)

    def copy_block(self, block, into=None):
        """A copy of a plan's `block` (or `into`, already a copy), its
        pointers rewritten to point into the copy."""
        if into is None:
            into = type(block).from_buffer_copy(block)
        base = ctypes.addressof(into)
        for slot, offset in self._pointers:
            into[slot] = base + offset
        return into

    def prepared(self, block):
        """(array, count, keep-alive) of the PaDeviceOperand array in
        `block` for the runtime's launches (_runtime_capi.device_operands'
        form)."""
        array = (_runtime_capi.PaDeviceOperand * self.count).from_buffer(
            block, self._array_offset)
        return array, self.count, (self._keep, block)

    def address_slot(self, name):
        """The index in a block of operand `name`'s address (None when the
        table has no such operand). A tensor's data_ptr() is always an
        address, so a run writes it there without a range check."""
        return self.slots.get(name)

    def set_pool(self, block, num_pages):
        """N (the pooled operands' dim 0) into `block`: dim 0 of a checked
        tensor, an int in int64's range."""
        for at in self._pool_words:
            block[at] = num_pages


class PlanLayout:
    """What every plan of one program on one device for B sequences and
    block tables of one width shares, derived once from shapes and dtypes:
    the operand table, the workspace layout, the operand array the plans
    copy, the dtypes and shapes a run checks. pa_mlir.plan() of new
    sequence tensors (a serving engine's fresh seq_lens every step) finds
    it (plan_layout) instead of deriving it again."""

    def __init__(self, torch, program, batch, max_pages):
        c = program.config
        self.capacity = program.plan_capacity(batch)
        table = program.operands(batch, 0, max_pages, self.capacity)
        self.shapes = {op.name: op.shape for op in table}
        self.patterns = {op.name: op.pattern for op in table}
        self.workspace, self.workspace_bytes = workspace_layout(table)
        self.operands = DeviceOperands(table)
        self.tensor_type, self.float32 = torch.Tensor, torch.float32
        self.query_dtype = query_torch_dtype(torch, c.query_dtype)
        self.kv_dtypes = kv_torch_dtypes(torch, c.kv_dtype)
        self.rows_shape = self.shapes["output"]
        # A query's (head, element) strides: D and 1 (rows at any stride).
        self.query_inner = (self.rows_shape[2], 1)
        self.key_tail = self.shapes["key_cache"][1:]
        self.value_tail = self.shapes["value_cache"][1:]
        # nhd / hnd caches: any page stride, the dims within a page
        # row-major (these strides); packed caches: contiguous (None).
        self.page_inner = (row_major_strides(self.key_tail)
                           if len(self.key_tail) == 3 else None)
        self.key_page_slot = self.operands.page_strides.get("key_cache")
        self.value_page_slot = self.operands.page_strides.get("value_cache")
        self.scaled = "k_scale" in self.shapes
        # Per-token scales [N, Hkv, P] follow the pool; per-tensor ones [1].
        self.scale_pooled = self.scaled and _operands.pooled(
            next(op for op in table if op.name == "k_scale"))
        self.scale_tail = (self.shapes["k_scale"][1:] if self.scale_pooled
                           else self.shapes.get("k_scale"))
        self.lse_shape = self.shapes.get("lse")
        # Where a plan's copy of the operand block holds the addresses a
        # plan (the sequences) and a run (the rest) write, the query's
        # row stride and the operand count: the same in every copy.
        slot = self.operands.address_slot
        self.tables_slot = slot("block_tables")
        self.lengths_slot = slot("context_lengths")
        self.query_slot = slot("query")
        self.key_slot = slot("key_cache")
        self.value_slot = slot("value_cache")
        self.output_slot = slot("output")
        self.k_scale_slot = slot("k_scale")
        self.v_scale_slot = slot("v_scale")
        self.query_row_slot = self.operands.query_row
        self.kernels_word = self.operands.kernels_word
        self.stream_word = self.operands.stream_word
        # The shapes of the optional operands (OPTIONAL_OPERANDS' order),
        # None for those the program does not have, and their slots.
        self.optional_shapes = tuple(self.shapes.get(name)
                                     for name, _ in OPTIONAL_OPERANDS)
        self.optional_slots = tuple(self.operands.address_slot(name)
                                    for name, _ in OPTIONAL_OPERANDS)
        # Whether a run takes any of them.
        self.optional = self.optional_shapes != (None, None, None)
        # Per-tensor scales are [1]: one element, so contiguous whatever
        # torch says of its stride (a run checks their shape only).
        self.scale_contiguity = self.scale_pooled
        # pool_shapes[N]: (key, value, scale) shapes a run's tensors of a
        # pool of N pages have (scale: None unscaled), made on first use.
        self.pool_shapes = {}

    def shapes_of_pool(self, num_pages):
        """The (key_cache, value_cache, scale) shapes of a pool of
        `num_pages` pages (cached: a serving loop's caches have a few
        sizes), or None for a non-int."""
        if type(num_pages) is not int:
            return None
        shapes = ((num_pages,) + self.key_tail, (num_pages,) + self.value_tail,
                  ((num_pages,) + self.scale_tail if self.scale_pooled
                   else self.scale_tail))
        if len(self.pool_shapes) >= 64:
            self.pool_shapes.clear()
        self.pool_shapes[num_pages] = shapes
        return shapes


@functools.lru_cache(maxsize=256)
def plan_layout(torch, program, batch, max_pages):
    """The PlanLayout of `program` for `batch` sequences and block tables
    of `max_pages` columns (the most recent 256 kept)."""
    return PlanLayout(torch, program, batch, max_pages)


def workspace_views(torch, workspace, layout):
    """{name: tensor}: the workspace operands of `layout`
    (workspace_layout) as views into the uint8 tensor `workspace`."""
    buffers = {}
    for name, offset, shape, element_bytes in layout:
        count = 1
        for extent in shape:
            count *= extent
        buffers[name] = workspace[offset:offset + count * element_bytes].view(
            _workspace_dtype(torch, name)).view(shape)
    return buffers


def _workspace_dtype(torch, name):
    """The plan's indices are int32, the partial results float32."""
    return torch.int32 if name in _PLAN_LISTS else torch.float32


class Plan:
    """One decode step's plan on GPU tensors: the program, the sequences
    (block tables and context lengths, read by the device in the plan
    kernel replan() launches, so their contents may change between steps
    and graph replays) and the workspace of the plan's work lists and the
    partial results. replan() once per step, run() once per layer.

    Made by pa_mlir.plan(); decode() makes one per call. `layout`: the
    PlanLayout of the program, batch and block-table width (None: looked
    up).
    """

    def __init__(self, torch, target, program, config, device, block_tables,
                 context_lengths, workspace=None, debug=None,
                 separate_buffers=False, layout=None):
        self._torch = torch
        self.target = target
        self.program = program
        self.config = config
        self.device = device
        self.debug = debug_default() if debug is None else bool(debug)
        self.batch = context_lengths.shape[0]
        if block_tables.shape[0] != self.batch:
            raise ValueError(
                f"block_tables has {block_tables.shape[0]} rows but "
                f"context_lengths has {self.batch} sequences")
        if layout is None:
            layout = plan_layout(torch, program, self.batch,
                                 block_tables.shape[1])
        self._layout = L = layout
        self.capacity = L.capacity
        self.workspace_bytes = L.workspace_bytes
        self._shapes, self._patterns = L.shapes, L.patterns
        self._cells = cells = L.operands.block()
        self._num_pages = 0
        slot = L.operands.address_slot
        self._buffers = None
        self.workspace = None
        self._own_workspace = workspace is None and not separate_buffers
        self._separate_buffers = separate_buffers
        if separate_buffers:
            self._buffers = {
                name: torch.empty(shape, dtype=_workspace_dtype(torch, name),
                                  device=f"cuda:{device}")
                for name, _, shape, _ in L.workspace}
            for name, tensor in self._buffers.items():
                cells[slot(name)] = tensor.data_ptr()
        else:
            self._use_workspace(self._checked_workspace(workspace))
        self._device_program = program.device_program(device)
        self._stream = stream_function(torch)
        # One launch of the three kernels, bound to this plan's operands
        # and shared by its twins, each enqueueing over its own copy of
        # them; each enqueue picks some kernels: the plan kernel (once per
        # step: replan()), decode + reduce (per layer: run()), or all
        # three (run(replan=True)).
        self._launch = launch = self._device_program.launcher(
            L.operands.prepared(cells), _runtime_capi.KERNELS_ALL)
        cells[L.operands.launch_word] = launch.handle
        # The call's kernels are a run's (decode + reduce) between calls:
        # replan() and run(replan=True) set theirs and put these back.
        cells[L.kernels_word] = _LAYER_KERNELS
        self._call = launch.call_block
        self._bind(block_tables, context_lengths)

    def _use_workspace(self, workspace):
        """The workspace operands' addresses in `workspace`."""
        self.workspace = workspace
        cells, slot = self._cells, self._layout.operands.address_slot
        base = workspace.data_ptr()
        for name, offset, _, _ in self._layout.workspace:
            cells[slot(name)] = base + offset

    def _bind(self, block_tables, context_lengths):
        """The sequence tensors' addresses into this plan's operands."""
        self.block_tables, self.context_lengths = block_tables, context_lengths
        L, cells = self._layout, self._cells
        cells[L.tables_slot] = block_tables.data_ptr()
        cells[L.lengths_slot] = context_lengths.data_ptr()

    def _raise_enqueue_error(self):
        """The ValueError of the enqueue that just failed (its message in
        the PaLaunchCall at the head of this plan's operand block)."""
        self._device_program.raise_launch_error(_ffi.PaString.from_address(
            ctypes.addressof(self._cells)
            + self._layout.operands.error_offset))

    def _set_pool(self, num_pages):
        """N (the pooled operands' dim 0) into this plan's block."""
        self._layout.operands.set_pool(self._cells, num_pages)
        self._num_pages = num_pages

    @property
    def _prepared(self):
        """(array, count, keep-alive) of this plan's operands
        (_runtime_capi.device_operands' form: enqueue_prepared)."""
        return self._layout.operands.prepared(self._cells)

    def twin(self, block_tables, context_lengths, workspace=None,
             tables_address=None, lengths_address=None):
        """A plan like this one (program, device, layout, debug mode; the
        caller's `workspace`, which must be this plan's, or a workspace of
        its own when this plan has its own) for other sequence tensors of
        the same shapes, strides and dtypes on the plan's device - which
        the caller has checked (pa_mlir.plan() and PlanCache keep a plan
        per such key): nothing derived or checked again, one copy of the
        operand block, and this plan's launch (enqueued over the twin's
        block). The tensors' data_ptr() when the caller has them."""
        if self._separate_buffers:
            raise ValueError("a plan with separate buffers has no twins")
        twin = object.__new__(Plan)
        twin.__dict__ = self.__dict__.copy()  # (faster than update())
        L = self._layout
        twin._cells = cells = L.operands.copy_block(self._cells)
        # N unknown, so the first run sets it: a run of this plan on
        # another thread may be setting it now.
        twin._num_pages = -1
        twin._buffers = None
        if self._own_workspace:
            twin._use_workspace(twin._checked_workspace(None))
        elif workspace is not None:
            twin.workspace = workspace
        twin.block_tables = block_tables
        twin.context_lengths = context_lengths
        cells[L.tables_slot] = (block_tables.data_ptr()
                                if tables_address is None else tables_address)
        cells[L.lengths_slot] = (context_lengths.data_ptr()
                                 if lengths_address is None
                                 else lengths_address)
        return twin

    def _checked_workspace(self, workspace):
        """The caller's `workspace` (a contiguous uint8 GPU tensor of at
        least workspace_bytes on the plan's device), else one of the
        plan's own."""
        t = self._torch
        if workspace is None:
            return t.empty((self.workspace_bytes,), dtype=t.uint8,
                           device=f"cuda:{self.device}")
        _tensor("workspace", workspace, (1,), (t.uint8,))
        check_device(workspace, "workspace", self.device)
        if workspace.numel() < self.workspace_bytes:
            raise ValueError(
                f"workspace has {workspace.numel()} bytes; this plan "
                f"needs {self.workspace_bytes} (batch {self.batch}, "
                f"capacity {self.capacity})")
        return workspace

    @property
    def buffers(self):
        """{name: tensor} of the workspace operands (work_info,
        reduce_info, exp_sums, max_logits, tmp_out): views into the
        workspace (made on first use), or the tensors of a decode() that
        returns its partials."""
        if self._buffers is None:
            self._buffers = workspace_views(self._torch, self.workspace,
                                            self._layout.workspace)
        return self._buffers

    def _poison(self, out, plan_lists, lse=None):
        """NaN into `out`, `lse` and the partials; PLAN_POISON into the
        plan's work lists too when `plan_lists` (they are the plan kernel's
        output, which a run without it reads)."""
        for output in (out, lse):
            if output is not None:
                output.fill_(float("nan"))
        for name, tensor in self.buffers.items():
            if name in _PLAN_LISTS:
                if plan_lists:
                    tensor.fill_(PLAN_POISON)
            else:
                tensor.fill_(float("nan"))

    def replan(self):
        """Enqueues the plan kernel on the current stream: it reads the
        block tables and context lengths (as they are when it runs) into
        the workspace's work lists, which every run() after it reads.
        pa_mlir.plan() calls it; call it again (or pa_mlir.plan() with the
        same arguments) after writing the next step's sequences into the
        same tensors, inside a captured graph too."""
        if self.debug:
            self._poison(None, True)
        L, cells = self._layout, self._cells
        cells[L.kernels_word] = _runtime_capi.KERNEL_PLAN
        cells[L.stream_word] = self._stream(self.device)
        called = self._call(cells)
        if not called:
            self._raise_enqueue_error()

    def _expect(self, name, tensor, dtypes, shape):
        """ValueError unless `tensor` is a contiguous GPU tensor of
        `dtypes` and `shape` on the plan's device."""
        try:
            if (tensor.dtype in dtypes and tensor.shape == shape
                    and tensor.get_device() == self.device
                    and tensor.is_contiguous()
                    and isinstance(tensor, self._torch.Tensor)):
                return
        except AttributeError:
            pass
        self._explain(name, tensor, dtypes, shape)

    def _query_row_stride(self, query):
        """The row stride (elements) of `query`: a GPU tensor of the
        plan's query dtype, shape and device whose heads are D elements
        apart and elements adjacent - packed, or rows of a fused qkv tensor
        (qkv[..., :Hq, :]) - else the ValueError that explains."""
        L = self._layout
        self._explain("query", query, (L.query_dtype,), L.rows_shape,
                      contiguous=False)
        dim = L.rows_shape[2]
        strides = query.stride()
        if inner_strides_fit(L.rows_shape, strides, L.query_inner):
            return query_row_stride(L.rows_shape, strides)
        raise ValueError(
            f"query must have its heads D = {dim} elements apart and its "
            f"elements adjacent (strides (row stride, {dim}, 1): packed, or "
            f"the query rows of a fused qkv tensor), got strides "
            f"{tuple(strides)}; pass query.contiguous()")

    def _check_page_strides(self, name, cache, shape):
        """ValueError unless the nhd / hnd `cache` is a GPU tensor of the
        plan's KV dtypes, `shape` and device whose dims within a page are
        row-major (any page stride: the K or V half of a combined
        [N, 2, ...] cache is read in place)."""
        L = self._layout
        self._explain(name, cache, L.kv_dtypes, shape, contiguous=False)
        strides = cache.stride()
        if strides[0] == 0 and shape[0] > 1:
            raise ValueError(
                f"{name} has page stride 0 over {shape[0]} pages (one page "
                f"expanded): the kernels read N distinct pages: pass "
                f"{name}.contiguous()")
        if not page_strides_fit(shape, strides, L.page_inner):
            raise ValueError(
                f"{name} has strides {tuple(cache.stride())}; the kernels "
                f"read an nhd / hnd cache at any page stride (dim 0), the "
                f"dims within a page row-major (strides (page stride, "
                f"{', '.join(str(x) for x in L.page_inner)})): pass "
                f"{name}.contiguous()")

    def _explain(self, name, tensor, dtypes, shape, contiguous=True):
        """The ValueError of _expect (the slow path)."""
        _typed(name, tensor, dtypes)
        if tuple(tensor.shape) != shape:
            raise ValueError(f"{name} must have shape "
                             f"{self._patterns.get(name, '')} = {shape}, "
                             f"got {tuple(tensor.shape)}")
        check_device(tensor, name, self.device, contiguous)

    def _checked_one_by_one(self, query, key_cache, value_cache, k_scale,
                            v_scale, sinks, alibi_slopes, out, lse):
        """The checks of run() argument by argument, for arguments the
        fast check of run() did not pass: the query's row stride when
        they are all right (a query whose dims of one element have other
        strides), else the ValueError that names the first wrong one."""
        L = self._layout
        row_stride = self._query_row_stride(query)
        _typed("key_cache", key_cache, L.kv_dtypes)
        num_pages = key_cache.shape[0] if key_cache.dim() else 0
        for name, cache, tail in (("key_cache", key_cache, L.key_tail),
                                  ("value_cache", value_cache, L.value_tail)):
            if L.page_inner is None:
                self._expect(name, cache, L.kv_dtypes, (num_pages,) + tail)
            else:
                self._check_page_strides(name, cache, (num_pages,) + tail)
        if L.scaled:
            if k_scale is None or v_scale is None:
                raise ValueError(f"this plan reads k_scale and v_scale "
                                 f"{L.patterns['k_scale']}")
            shape = ((num_pages,) + L.scale_tail if L.scale_pooled
                     else L.scale_tail)
            self._expect("k_scale", k_scale, (L.float32,), shape)
            self._expect("v_scale", v_scale, (L.float32,), shape)
        elif k_scale is not None or v_scale is not None:
            raise ValueError("this plan has no scales (planned with "
                             "scale='none')")
        self._expect("out", out, (L.query_dtype,), L.rows_shape)
        for (name, unexpected), tensor, shape in zip(
                OPTIONAL_OPERANDS, (sinks, alibi_slopes, lse),
                L.optional_shapes):
            if shape is None:
                if tensor is not None:
                    raise ValueError(unexpected)
            elif tensor is None:
                raise ValueError(f"this plan reads {name} "
                                 f"{L.patterns[name]}")
            else:
                self._expect(name, tensor, (L.float32,), shape)
        return row_stride

    def run(self, query, key_cache, value_cache, k_scale=None, v_scale=None,
            sinks=None, out=None, replan=False, alibi_slopes=None, lse=None):
        """Enqueues the decode of `query` over the caches on the current
        stream (the decode and reduce kernels, over the work lists of the
        last replan()); returns `out` (allocated when None), or (out, lse)
        for a plan of return_lse=True. query: [B*Q, Hq, D] of the query
        dtype; the caches and scales as for decode() (per-tensor scales as
        float32 tensors [1]), sinks and alibi_slopes float32 [Hq] (each
        when the plan was made with sinks / alibi), lse the float32
        [B*Q, Hq] the log-sum-exp of every row is written into (allocated
        when None), all on the plan's device. replan: launch the plan
        kernel first (for a caller without a step, as the custom op: plan,
        decode, reduce in one call).

        Every argument is checked on every call (type, dtype, shape,
        device, contiguity; the query's strides, nhd / hnd caches' strides
        within a page): first all at once in one
        expression (the hot path of a serving loop), and only when that
        fails one by one, for the message."""
        L = self._layout
        device = self.device
        Tensor, float32 = L.tensor_type, L.float32
        if out is None:
            out = self._torch.empty(L.rows_shape, dtype=L.query_dtype,
                                    device=f"cuda:{device}")
        if lse is None and L.lse_shape is not None:
            lse = self._torch.empty(L.lse_shape, dtype=float32,
                                    device=f"cuda:{device}")
        try:
            num_pages = key_cache.shape[0]
            pool = L.pool_shapes.get(num_pages) or L.shapes_of_pool(
                num_pages)
            strides = query.stride()
            row_stride = query_row_stride(L.rows_shape, strides)
            valid = (
                isinstance(query, Tensor) and query.dtype == L.query_dtype
                and query.shape == L.rows_shape
                and query.get_device() == device
                and inner_strides_fit(L.rows_shape, strides, L.query_inner)
                and isinstance(key_cache, Tensor)
                and key_cache.dtype in L.kv_dtypes
                and key_cache.shape == pool[0]
                and key_cache.get_device() == device
                and (key_cache.is_contiguous() if L.page_inner is None
                     else page_strides_fit(pool[0], key_cache.stride(),
                                           L.page_inner))
                and isinstance(value_cache, Tensor)
                and value_cache.dtype in L.kv_dtypes
                and value_cache.shape == pool[1]
                and value_cache.get_device() == device
                and (value_cache.is_contiguous() if L.page_inner is None
                     else page_strides_fit(pool[1], value_cache.stride(),
                                           L.page_inner))
                and isinstance(out, Tensor) and out.dtype == L.query_dtype
                and out.shape == L.rows_shape and out.get_device() == device
                and out.is_contiguous())
            if valid and L.scaled:
                scale_shape = pool[2]
                valid = (
                    isinstance(k_scale, Tensor) and k_scale.dtype == float32
                    and k_scale.shape == scale_shape
                    and k_scale.get_device() == device
                    and isinstance(v_scale, Tensor)
                    and v_scale.dtype == float32
                    and v_scale.shape == scale_shape
                    and v_scale.get_device() == device
                    and (not L.scale_contiguity or (
                        k_scale.is_contiguous()
                        and v_scale.is_contiguous())))
            elif k_scale is not None or v_scale is not None:
                valid = False
            # The optional float32 operands: given exactly when the plan
            # has them, each of its shape.
            if not L.optional:
                valid = (valid and sinks is None and alibi_slopes is None
                         and lse is None)
            else:
                for tensor, shape in zip((sinks, alibi_slopes, lse),
                                         L.optional_shapes):
                    if shape is None:
                        valid = valid and tensor is None
                        continue
                    valid = (valid and isinstance(tensor, Tensor)
                             and tensor.dtype == float32
                             and tensor.shape == shape
                             and tensor.get_device() == device
                             and tensor.is_contiguous())
        except (AttributeError, TypeError, IndexError):
            valid = False
        if not valid:
            row_stride = self._checked_one_by_one(
                query, key_cache, value_cache, k_scale, v_scale, sinks,
                alibi_slopes, out, lse)
            num_pages = key_cache.shape[0]
        if num_pages != self._num_pages:
            self._set_pool(num_pages)
        cells = self._cells
        cells[L.query_row_slot] = row_stride
        cells[L.query_slot] = query.data_ptr()
        cells[L.key_slot] = key_cache.data_ptr()
        cells[L.value_slot] = value_cache.data_ptr()
        if L.page_inner is not None:
            cells[L.key_page_slot] = key_cache.stride(0)
            cells[L.value_page_slot] = value_cache.stride(0)
        cells[L.output_slot] = out.data_ptr()
        if L.scaled:
            cells[L.k_scale_slot] = k_scale.data_ptr()
            cells[L.v_scale_slot] = v_scale.data_ptr()
        if L.optional:
            for tensor, slot in zip((sinks, alibi_slopes, lse),
                                    L.optional_slots):
                if tensor is not None:
                    cells[slot] = tensor.data_ptr()
        if self.debug:
            self._poison(out, replan, lse)
        cells[L.stream_word] = self._stream(device)
        # Written by every run, nothing to restore: the word a replan()
        # that raised, or a twin copied during one, left is never read.
        cells[L.kernels_word] = _ALL_KERNELS if replan else _LAYER_KERNELS
        called = self._call(cells)
        if not called:
            self._raise_enqueue_error()
        return out if lse is None else (out, lse)
