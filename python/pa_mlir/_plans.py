"""pa_mlir.plan: one plan per decode step, one run() per layer (the
convention of FlashInfer's plan/run), on PyTorch GPU tensors.

    plan = pa_mlir.plan(block_tables, context_lengths, num_query_heads=16,
                        num_kv_heads=2, head_dim=256, page_size=16,
                        kv_dtype=torch.float8_e4m3fn, scale="per_tensor")
    for layer in layers:
        plan.run(q[layer], k_cache[layer], v_cache[layer], k_scale=ks,
                 v_scale=vs, out=o[layer])

The plan compiles (or finds in the caches) the program, loads it on the
current device and lays the split-K partials out in a workspace (the
caller's `workspace=`, a uint8 GPU tensor of workspace_bytes(), or its
own), then launches the plan kernel, which reads the block tables and
context lengths on the device into the workspace's work lists; each run
launches decode and reduce over those lists. A serving engine writes the
next step's sequences into the same tensors and calls plan() again (a
lookup and the plan kernel; in a captured graph, the graph holds the
plan() call and the runs).
"""

import collections
import threading

from . import _tensors, targets as _targets
from ._operands import operand_table
from .compiler import compile as _compile
from .config import DecodeConfig


def _torch_for(block_tables, context_lengths):
    torch = _tensors.torch_module()
    if torch is None or not (isinstance(block_tables, torch.Tensor)
                             and isinstance(context_lengths, torch.Tensor)):
        raise ValueError("pa_mlir.plan() takes torch GPU tensors (numpy "
                         "arrays: pa_mlir.decode)")
    return torch


def _kv_dtype_name(kv_dtype):
    """A kv_dtype string of a string or a torch dtype."""
    if isinstance(kv_dtype, str) or kv_dtype is None:
        return kv_dtype
    name = _tensors.dtype_name(kv_dtype)
    if name in _tensors.FLOAT8_KV_DTYPES:
        return _tensors.FLOAT8_KV_DTYPES[name]
    if name == "bfloat16":
        return "bf16"
    raise ValueError(f"kv_dtype must be e4m3fn, e4m3fnuz, bf16 or a torch "
                     f"float8/bfloat16 dtype, got {kv_dtype!r}")


def default_chip(torch, target, device):
    """sm_90a for CUDA; the GPU's own gfx name on ROCm."""
    if target != "hip":
        return "sm_90a"
    name = getattr(torch.cuda.get_device_properties(device), "gcnArchName",
                   "")
    chip = name.split(":")[0]
    if not chip:
        raise ValueError("cannot tell the AMD chip of this GPU: give chip=")
    return chip


def decode_config(torch, target, device, *, num_query_heads, num_kv_heads,
                  head_dim, page_size, kv_dtype, query_dtype="bf16",
                  query_length=1, scale="none", sliding_window=0,
                  softmax_scale=None, sinks=False, key_layout="packed",
                  v_layout="plain", chip=None, budget=None,
                  max_partitions=None, alibi=False, return_lse=False,
                  kv_layout="packed", logits_soft_cap=0.0):
    """The DecodeConfig of plan()'s keywords."""
    if chip is None:
        chip = default_chip(torch, target, device)
    return DecodeConfig(
        num_query_heads=num_query_heads, num_kv_heads=num_kv_heads,
        head_dim=head_dim, page_size=page_size, query_length=query_length,
        kv_dtype=_kv_dtype_name(kv_dtype), query_dtype=query_dtype,
        key_layout=key_layout, v_layout=v_layout, scale=scale,
        sliding_window=sliding_window, softmax_scale=softmax_scale,
        sinks=sinks, chip=chip, budget=budget, max_partitions=max_partitions,
        alibi=alibi, return_lse=return_lse, kv_layout=kv_layout,
        logits_soft_cap=logits_soft_cap)


# (target, device, plan() keywords) -> the program: a plan of new sequence
# tensors neither validates a DecodeConfig nor hashes one again.
_programs = {}


def _program_of_keywords(torch, target, device, keywords, items):
    """The program of plan()'s keywords; `items`: tuple(keywords.items())
    (a caller's keywords come in one order: another order is another
    entry, not another program)."""
    key = (target, device, items)
    found = _programs.get(key)
    if found is None:
        config = decode_config(torch, target, device, **keywords)
        found = _programs[key] = _targets.program(target, config.to_c())
    return found


def plan(block_tables, context_lengths, *, target=None, workspace=None,
         debug=None, **config):
    """A Plan for the sequences of one decode step on the current GPU.

    block_tables int32 [B, max_pages], context_lengths int32 [B]: GPU
    tensors, read by the device in the plan kernel this call launches
    (on every call, also when the plan is found). The keywords are those of
    pa_mlir.DecodeConfig (num_query_heads, num_kv_heads, head_dim,
    page_size, kv_dtype (a string or torch.float8_e4m3fn / float8_e4m3fnuz
    / bfloat16), query_dtype, query_length, scale, sliding_window,
    softmax_scale, sinks, key_layout, v_layout, chip (None: sm_90a on CUDA,
    the GPU's own on ROCm), budget, max_partitions, alibi (runs take
    alibi_slopes), return_lse (runs also write the log-sum-exp),
    kv_layout ("packed", or "nhd" / "hnd": runs take 4-D K and V at any
    page stride, the dims within a page row-major - the halves of a
    combined [2, N, P, Hkv, D] or [N, 2, P, Hkv, D] cache are read in
    place), logits_soft_cap).
    target: None (the torch build's: "hip" on ROCm, else "cuda"). workspace: a contiguous
    uint8 GPU tensor of at least workspace_bytes() bytes for the partials,
    or None (the plan allocates one). debug: poison the output and the
    workspace before every run (None: PA_MLIR_DEBUG). Planner binds these
    keywords once, for a loop that plans every step.
    """
    return _plan(block_tables, context_lengths, target, workspace, debug,
                 config, tuple(config.items()))


class Planner:
    """pa_mlir.plan() with its keywords bound once (a serving loop's
    per-step plan without parsing them again):

        planner = pa_mlir.Planner(num_query_heads=16, ..., workspace=ws)
        plan = planner.plan(block_tables, context_lengths)  # every step

    planner.plan(tables, lengths) is pa_mlir.plan(tables, lengths,
    **keywords): the same checks, caches and plans."""

    def __init__(self, *, target=None, workspace=None, debug=None,
                 **config):
        self._arguments = (target, workspace, debug, dict(config),
                           tuple(config.items()))

    def plan(self, block_tables, context_lengths):
        return _plan(block_tables, context_lengths, *self._arguments)


def _plan(block_tables, context_lengths, target, workspace, debug, config,
          items):
    """plan() of its keywords `config`, `items` = tuple(config.items()) (a
    caller's keywords come in one order: another order is another cache
    entry, not another program)."""
    torch = _torch_for(block_tables, context_lengths)
    device = _tensors.current_device_of(torch)()
    # The same arguments (a serving engine's persistent sequence tensors,
    # step after step) give the same plan: a lookup, not a rebuild. The
    # sequence tensors are known by what the plan's checks and kernels
    # depend on (address, shape, strides, dtype; the address says the
    # device), so a tensor that differs in any of these is checked anew.
    shapes = (target, device, items, _sequences_shapes(block_tables,
                                                       context_lengths),
              None if workspace is None else (workspace.data_ptr(),
                                              workspace.numel()), debug)
    found, family, key = plans.lookup(shapes, None, block_tables,
                                      context_lengths)
    if found is None:
        def build():
            resolved = target or _tensors.tensor_target(torch)
            _tensors.check_target(torch, resolved)
            check_sequences(torch, block_tables, context_lengths, device)
            program = _program_of_keywords(torch, resolved, device, config,
                                           items)
            return _tensors.Plan(torch, resolved, program, program.config,
                                 device, block_tables, context_lengths,
                                 workspace=workspace, debug=debug)
        found = plans.add(shapes, None, family, key, device, block_tables,
                          context_lengths, workspace, build)
    found.replan()
    return found


def _sequences_shapes(block_tables, context_lengths):
    """What a plan's checks of its sequence tensors depend on but their
    addresses and device: shapes, strides (contiguity), dtypes."""
    return (block_tables.shape, block_tables.stride(), block_tables.dtype,
            context_lengths.shape, context_lengths.stride(),
            context_lengths.dtype)


def workspace_bytes(batch, config):
    """The workspace bytes a plan of `config` (a DecodeConfig; for CUDA,
    chip="sm_90a") for `batch` sequences needs; through compile(), so the
    on-disk cache serves it without the compiler."""
    capacity = _compile(config).plan_capacity(batch)
    table = operand_table(config, batch, 0, 1, capacity)
    return _tensors.workspace_layout(table)[1]


class _Family:
    """The plans of one shapes key of a PlanCache (see there): its owner
    and the plan last built for it, which new sequence tensors of the key
    twin."""

    __slots__ = ("owner", "like")

    def __init__(self, owner, like):
        self.owner, self.like = owner, like


class PlanCache:
    """Plans by what makes them, for pa_mlir.plan() and for entry points
    that get tensors rather than a plan (the torch custom op, the vLLM and
    aiter signatures): a *shapes* key (configuration, device, the sequence
    tensors' shapes, strides and dtypes, workspace, debug mode), with an
    `owner` (an object whose id() is part of the key, kept alive with it),
    and the sequence tensors' addresses. The plans of one shapes key form a
    family whose last built plan a plan of new sequence tensors of the key
    twins (Plan.twin: those properties decide every check of the
    sequences but their device, which is compared). The shapes key is
    hashed once per call, the plan found by (family, addresses). The
    last `size` plans used and the last `size` families built are kept (a
    family evicted while in use only costs its next new plan a build)."""

    def __init__(self, size=64):
        self._plans = collections.OrderedDict()
        self._families = collections.OrderedDict()
        self.size = size
        self._lock = threading.Lock()

    def lookup(self, shapes, owner, block_tables, context_lengths):
        """(the plan of these sequence tensors under `shapes` with `owner`
        or None, the family of `shapes` or None, the plan's key or None):
        what add() takes when there is no plan. Without the lock: get() and
        move_to_end() are each one atomic call of the C OrderedDict, and a
        store on another thread that evicts the entry in between only makes
        it a miss next time."""
        family = self._families.get(shapes)
        if family is None or family.owner is not owner:
            return None, None, None
        key = (family, block_tables.data_ptr(), context_lengths.data_ptr())
        plans = self._plans
        found = plans.get(key)
        if found is not None:
            try:
                plans.move_to_end(key)
            except KeyError:  # evicted meanwhile by another thread's store
                pass
        return found, family, key

    def add(self, shapes, owner, family, key, device, block_tables,
            context_lengths, workspace, build):
        """A plan of sequence tensors lookup() did not find (`family` and
        `key` as it gave them), stored: the twin of the family's last
        built plan when these are on `device` (all the shapes key does not
        say about them), else build() (the checks, a plan made), which
        later new tensors of the key then twin."""
        if (family is not None and block_tables.get_device() == device
                and context_lengths.get_device() == device):
            made = family.like.twin(block_tables, context_lengths, workspace,
                                    key[1], key[2])
        else:
            made = build()
            with self._lock:
                if family is None:
                    family = _Family(owner, made)
                    families = self._families
                    families[shapes] = family
                    while len(families) > self.size:
                        families.popitem(last=False)
                else:
                    family.like = made
            key = (family, block_tables.data_ptr(),
                   context_lengths.data_ptr())
        with self._lock:
            plans = self._plans
            plans[key] = made
            while len(plans) > self.size:
                plans.popitem(last=False)
        return made

    def clear(self):
        with self._lock:
            self._plans.clear()
            self._families.clear()

    def get(self, torch, target, config, block_tables, context_lengths,
            workspace):
        """The plan of a DecodeConfig on these tensors (the custom op's
        and the drop-in entry points'). The configuration is known by its
        identity (hashing one costs microseconds; the cache keeps it as
        the owner, so the identity stays its own)."""
        device = _tensors.current_device_of(torch)()
        shapes = (target, id(config), device,
                  _sequences_shapes(block_tables, context_lengths),
                  None if workspace is None else (workspace.data_ptr(),
                                                  workspace.numel()))
        found, family, key = self.lookup(shapes, config, block_tables,
                                         context_lengths)
        if found is not None:
            return found

        def build():
            _tensors.check_target(torch, target)
            check_sequences(torch, block_tables, context_lengths, device)
            program = _program_of_config(target, config)
            return _tensors.Plan(torch, target, program, program.config,
                                 device, block_tables, context_lengths,
                                 workspace=workspace)
        return self.add(shapes, config, family, key, device, block_tables,
                        context_lengths, workspace, build)


# (target, DecodeConfig) -> the program: DecodeConfig.to_c() and the
# target's lookup once per configuration, not once per new plan.
_config_programs = {}


def _program_of_config(target, config):
    found = _config_programs.get((target, config))
    if found is None:
        found = _config_programs[(target, config)] = _targets.program(
            target, config.to_c())
    return found


def check_sequences(torch, block_tables, context_lengths, device):
    """ValueError unless block_tables is an int32 [B, max_pages] and
    context_lengths an int32 [B] contiguous GPU tensor on `device`."""
    _tensors._tensor("block_tables", block_tables, (2,), (torch.int32,))
    _tensors._tensor("context_lengths", context_lengths, (1,),
                     (torch.int32,))
    _tensors.check_device(block_tables, "block_tables", device)
    _tensors.check_device(context_lengths, "context_lengths", device)


plans = PlanCache()
