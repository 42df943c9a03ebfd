"""decode() on PyTorch CUDA tensors (target="cuda"), without copies.

torch is never imported here: a caller passing tensors has imported it, so
it is looked up in sys.modules. When every array argument is a CUDA tensor
on the current device, decode() checks them like numpy arrays (dtypes,
ranks, shapes, contiguity), allocates the outputs and partials on that
device, and the program's kernels are launched on
torch.cuda.current_stream() with the tensors' addresses: asynchronous,
nothing copied or read back, so the call may be captured in a CUDA graph
(torch.cuda.graph) after a first call outside the capture has loaded the
program. The index inputs (lengths, page ids) are not read on the host,
and so not checked: they are the caller's device data.
"""

import sys

# Poison of the int32 plan buffers (as decode.py's numpy path).
PLAN_POISON = -0x21524111  # 0xDEADBEEF

_ARRAYS = ("query", "key_cache", "value_cache", "block_tables",
           "context_lengths")
_OPTIONAL = ("k_scale", "v_scale", "sinks")


def _torch():
    return sys.modules.get("torch")


def is_tensor(value):
    torch = _torch()
    return torch is not None and isinstance(value, torch.Tensor)


def _is_number(value):
    """A Python or numpy scalar (a per-tensor scale)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, float)) or (
        type(value).__module__ == "numpy" and getattr(value, "ndim", 1) == 0)


def tensor_call(arrays, out):
    """A TensorCall when the array arguments are torch tensors, None when
    none is; ValueError for a mixture, CPU tensors, tensors on another
    device than the current one, or non-contiguous tensors."""
    tensors = [name for name, value in arrays.items() if is_tensor(value)]
    if out is not None and is_tensor(out):
        tensors.append("out")
    if not tensors:
        if out is not None:
            raise ValueError("out= takes a CUDA tensor (with CUDA tensor "
                             "arguments and target='cuda'); the numpy path "
                             "returns a new array")
        return None
    others = [name for name, value in arrays.items()
              if value is not None and not is_tensor(value)
              and not (name in ("k_scale", "v_scale") and _is_number(value))]
    if out is not None and not is_tensor(out):
        others.append("out")
    if others:
        raise ValueError(
            f"decode() got torch tensors ({', '.join(tensors)}) and other "
            f"arrays ({', '.join(others)}): pass every array as a CUDA "
            f"tensor (target='cuda') or every one as a numpy array")
    torch = _torch()
    if not torch.cuda.is_available():
        raise ValueError("decode() takes torch tensors on a CUDA device, but "
                         "torch sees no CUDA device")
    current = torch.cuda.current_device()
    named = dict(arrays, out=out)
    for name in tensors:
        tensor = named[name]
        if not tensor.is_cuda:
            raise ValueError(
                f"{name} is a torch tensor on {tensor.device}; decode() takes "
                f"CUDA tensors (target='cuda') or numpy arrays "
                f"({name}.numpy())")
        if tensor.device.index != current:
            raise ValueError(
                f"{name} is on {tensor.device}, but the current CUDA device "
                f"is cuda:{current}; every tensor must be on the current "
                f"device (torch.cuda.set_device)")
        if not tensor.is_contiguous():
            raise ValueError(
                f"{name} is not contiguous (shape {tuple(tensor.shape)}, "
                f"strides {tensor.stride()}); pass {name}.contiguous()")
    return TensorCall(torch, current)


class TensorCall:
    """The tensor half of one decode() call."""

    def __init__(self, torch, device):
        self.torch = torch
        self.device = device

    def _tensor(self, name, value, ndims, dtypes):
        if not is_tensor(value):
            raise ValueError(f"{name} must be a CUDA tensor, got "
                             f"{type(value).__name__}")
        if value.dtype not in dtypes:
            raise ValueError(f"{name} must have dtype "
                             f"{' or '.join(str(d) for d in dtypes)}, got "
                             f"{value.dtype}")
        if value.dim() not in ndims:
            expected = " or ".join(str(n) for n in ndims)
            raise ValueError(f"{name} must be {expected}-D, got shape "
                             f"{tuple(value.shape)}")
        return value

    def query_dtype(self, query_dtype):
        t = self.torch
        return t.bfloat16 if query_dtype == "bf16" else t.float16

    def inputs(self, query, key_cache, value_cache, block_tables,
               context_lengths, k_scale, v_scale, sinks, kv_dtype,
               query_dtype, v_layout, out):
        """The checked tensors: (query in the query dtype, key_cache,
        value_cache, block_tables, context_lengths, scale mode, k_scale,
        v_scale, sinks, out). float32 queries are rounded to the query dtype
        on the device (round to nearest even), as numpy ones are."""
        t = self.torch
        qdtype = self.query_dtype(query_dtype)
        query = self._tensor("query", query, (3,), (t.float32, qdtype))
        if query.dtype == t.float32:
            query = query.to(qdtype)
        # The raw bits of the KV type, or torch's own type of that width.
        names = (("bfloat16", "int16", "uint16") if kv_dtype == "bf16" else
                 ("uint8", "int8", "float8_e4m3fn", "float8_e4m3fnuz"))
        kv = tuple(getattr(t, name) for name in names if hasattr(t, name))
        key_cache = self._tensor("key_cache", key_cache, (4, 5), kv)
        value_cache = self._tensor("value_cache", value_cache,
                                   (4 if v_layout == "plain" else 5,), kv)
        block_tables = self._tensor("block_tables", block_tables, (2,),
                                    (t.int32,))
        context_lengths = self._tensor("context_lengths", context_lengths,
                                       (1,), (t.int32,))
        scale, k_scale, v_scale = self._scales(k_scale, v_scale)
        if sinks is not None:
            sinks = self._tensor("sinks", sinks, (1,), (t.float32,))
        if out is not None:
            out = self._tensor("out", out, (3,), (qdtype,))
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
            scale = self._tensor(name, scale, (0, 1, 3), (t.float32,))
            return scale.reshape(1) if mode == "per_tensor" else scale

        return (mode, device_scale("k_scale", k_scale),
                device_scale("v_scale", v_scale))

    def run(self, program, table, named, query_dtype, out):
        """Allocates the poisoned outputs and partials, enqueues `program` on
        the current stream over `named` inputs and them; returns
        {name: tensor} of every operand."""
        t = self.torch
        device = f"cuda:{self.device}"
        outputs = {}
        for op in table:
            if op.read_only:
                continue
            if op.name == "output":
                if out is not None:
                    out.fill_(float("nan"))
                    outputs["output"] = out
                else:
                    outputs["output"] = t.full(
                        op.shape, float("nan"),
                        dtype=self.query_dtype(query_dtype), device=device)
            elif op.name in ("work_info", "reduce_info"):
                outputs[op.name] = t.full(op.shape, PLAN_POISON,
                                          dtype=t.int32, device=device)
            else:
                outputs[op.name] = t.full(op.shape, float("nan"),
                                          dtype=t.float32, device=device)
        tensors = dict(named, **outputs)
        stream = t.cuda.current_stream(self.device).cuda_stream
        program.enqueue([(op.name, tensors[op.name].data_ptr(), op.shape)
                         for op in table], stream, self.device)
        return tensors

