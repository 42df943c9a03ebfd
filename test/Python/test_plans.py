"""Plans (pa_mlir.plan / Plan.run) and the one tensor path of both GPU
drivers, on any machine: fake_torch tensors over the recording drivers
(libpa-fake-cuda.so, libpa-fake-hip.so), whose device memory is host
memory. What is checked: the launches (kernels, stream, the addresses and
pool size each run patches in), that a run allocates, copies and waits for
nothing, the workspace layout, debug-mode poison, ROCm tensors on target
"hip", fp8 dtypes inferred from float8 tensors, and the refusals. Numerics
on a real GPU: test_cuda_gpu.py.
"""

import json
import os
import textwrap

import pytest

from test_cuda import FAKE_CUDA, FAKE_RUN, run_python

FAKE_HIP = os.environ.get("PA_FAKE_HIP_LIB")

# A fake torch whose allocations are counted.
COUNTING_TORCH = textwrap.dedent("""
    import fake_torch
    sys.modules["torch"] = fake_torch
    torch = fake_torch
    allocations = [0]
    def counted(make):
        def allocate(*args, **kwargs):
            allocations[0] += 1
            return make(*args, **kwargs)
        return allocate
    torch.empty, torch.full = counted(torch.empty), counted(torch.full)

    def tensors_of(case):
        return {name: torch.tensor_of(array) for name, array in case.items()}

    # errors[label]: the message of the ValueError call() raised, or None.
    errors = {}
    def refuse(label, call):
        try:
            call()
            errors[label] = None
        except ValueError as error:
            errors[label] = str(error)
""")


def plan_of_three_sequences(seed):
    """Script lines: a random fp8 case of three sequences (Hq 8, Hkv 2,
    D 64, page 16, per-tensor scales) drawn with `seed`, its tensors `t`,
    the keyword arguments `sequences` and a `plan` of them."""
    return textwrap.dedent("""
        rng = np.random.default_rng(%d)
        case, options = make_case(rng, hq=8, hkv=2, d=64, p=16,
                                  query_length=1, kv_dtype="e4m3fn",
                                  v_layout="plain", lengths=[40, 3, 17],
                                  scales="per_tensor")
        t = tensors_of(case)
        sequences = dict(num_query_heads=8, num_kv_heads=2, head_dim=64,
                         page_size=16, kv_dtype="e4m3fn", scale="per_tensor")
        plan = pa_mlir.plan(t["block_tables"], t["context_lengths"],
                            debug=False, **sequences)
    """) % seed


def one_row_case(seed, hkv, kv_dtype, lengths):
    """Script lines: a random case of query length 1 (Hq 8, D 64, page 16,
    per-tensor scales, plain V) drawn with `seed`, its tensors `t`, the
    bf16 query `q` and a float32 scale tensor `scale` [1]."""
    return textwrap.dedent("""
        rng = np.random.default_rng(%d)
        case, options = make_case(rng, hq=8, hkv=%d, d=64, p=16,
                                  query_length=1, kv_dtype=%r,
                                  v_layout="plain", lengths=%r,
                                  scales="per_tensor")
        t = tensors_of(case)
        q = torch.tensor_of(pa_mlir.float32_to_bits(case["query"], "bf16"))
        scale = torch.tensor_of(np.array([0.5], np.float32))
    """) % (seed, hkv, kv_dtype, lengths)


@pytest.mark.skipif(not FAKE_CUDA, reason="PA_FAKE_CUDA_LIB is not set "
                                          "(CTest sets it)")
def test_a_plan_serves_every_layer_without_allocating():
    done = run_python(FAKE_RUN + COUNTING_TORCH + textwrap.dedent("""
        rng = np.random.default_rng(8)
        layers = []
        for pages_extra in (0, 5):
            case, options = make_case(rng, hq=8, hkv=2, d=64, p=16,
                                      query_length=1, kv_dtype="e4m3fn",
                                      v_layout="plain", lengths=[40, 3, 17],
                                      scales="per_tensor")
            layers.append(case)
        # The second layer's pool is larger: the plan patches N.
        big = layers[1]
        grow = np.zeros((5,) + big["key_cache"].shape[1:], np.uint8)
        big["key_cache"] = np.concatenate([big["key_cache"], grow])
        big["value_cache"] = np.concatenate(
            [big["value_cache"], np.zeros((5,) + big["value_cache"].shape[1:],
                                          np.uint8)])
        first = tensors_of(layers[0])
        sequences = dict(num_query_heads=8, num_kv_heads=2, head_dim=64,
                         page_size=16, kv_dtype="e4m3fn", scale="per_tensor",
                         budget=6)
        config = pa_mlir.DecodeConfig(chip="sm_90a", **sequences)
        size = pa_mlir.workspace_bytes(3, config)
        workspace = torch.empty((size,), torch.uint8, "cuda:0")
        plan = pa_mlir.plan(first["block_tables"], first["context_lengths"],
                            workspace=workspace, debug=False, **sequences)
        # The same arguments again: the same plan (a lookup); other
        # sequence tensors: another.
        again = pa_mlir.plan(first["block_tables"], first["context_lengths"],
                             workspace=workspace, debug=False, **sequences)
        other_tables = torch.tensor_of(layers[0]["block_tables"].copy())
        other = pa_mlir.plan(other_tables, first["context_lengths"],
                             workspace=workspace, debug=False, **sequences)
        reused = [again is plan, other is plan]
        scales = [torch.tensor_of(np.array([0.5], np.float32)),
                  torch.tensor_of(np.array([2.0], np.float32))]
        outs = [torch.full((3, 8, 64), 0.0, torch.bfloat16, "cuda:0")
                for _ in layers]
        queries = [torch.tensor_of(pa_mlir.float32_to_bits(c["query"],
                                                           "bf16"))
                   for c in layers]
        caches = [(torch.tensor_of(c["key_cache"]),
                   torch.tensor_of(c["value_cache"])) for c in layers]
        fake.fakeCudaReset()
        allocations[0] = 0
        returned = []
        for layer in range(2):
            returned.append(plan.run(queries[layer], *caches[layer],
                                     k_scale=scales[0], v_scale=scales[1],
                                     out=outs[layer]))
        made = allocations[0]
        run = record()
        a = cuda_artifact()
        decodes = [l for l in run["launches"] if l["name"] == "pa_decode"]
        reduces = [l for l in run["launches"] if l["name"] == "pa_reduce"]

        # The next step: plan() of the same tensors launches the plan
        # kernel alone (on the workspace the runs read), nothing else.
        fake.fakeCudaReset()
        allocations[0] = 0
        stepped = pa_mlir.plan(first["block_tables"],
                               first["context_lengths"],
                               workspace=workspace, debug=False, **sequences)
        replanned = record()
        replans = [dict(name=l["name"], stream=l["stream"],
                        work_info=param(l, a, "work_info.aligned_ptr"))
                   for l in replanned["launches"]]
        replan_made = allocations[0]

        debug = pa_mlir.plan(first["block_tables"], first["context_lengths"],
                             debug=True, **sequences)
        debug_out = torch.full((3, 8, 64), 0.0, torch.bfloat16, "cuda:0")
        debug.run(queries[0], *caches[0], k_scale=scales[0],
                  v_scale=scales[1], out=debug_out)
        record()

        q, (k, v) = queries[0], caches[0]
        refuse("small workspace", lambda: pa_mlir.plan(
            first["block_tables"], first["context_lengths"],
            workspace=torch.empty((size - 1,), torch.uint8, "cuda:0"),
            **sequences))
        refuse("float32 query", lambda: plan.run(
            first["query"], k, v, k_scale=scales[0], v_scale=scales[1]))
        refuse("query shape", lambda: plan.run(
            q[:2], k, v, k_scale=scales[0], v_scale=scales[1]))
        refuse("no scales", lambda: plan.run(q, k, v))
        refuse("value pool", lambda: plan.run(
            q, k, caches[1][1], k_scale=scales[0], v_scale=scales[1]))
        refuse("empty mask", lambda: plan._device_program.enqueue_prepared(
            plan._prepared, 0, kernels=0))
        refuse("unknown kernel", lambda:
               plan._device_program.enqueue_prepared(
                   plan._prepared, 0, kernels=8))
        refuse("hip on cuda", lambda: pa_mlir.plan(
            first["block_tables"], first["context_lengths"], target="hip",
            **sequences))
        refuse("numpy", lambda: pa_mlir.plan(
            layers[0]["block_tables"], layers[0]["context_lengths"],
            **sequences))
        refuse("fnuz for float8", lambda: pa_mlir.plan(
            first["block_tables"], first["context_lengths"],
            **dict(sequences, kv_dtype=torch.float32)))
        print(json.dumps(dict(
            made=made, counters=run["counters"], reused=reused,
            stepped=stepped is plan, replans=replans, replan_made=replan_made,
            replan_counters=replanned["counters"],
            names=[l["name"] for l in run["launches"]],
            streams=sorted({l["stream"] for l in run["launches"]}),
            queries=[param(l, a, "query.aligned_ptr") for l in decodes],
            expected_queries=[t.data_ptr() for t in queries],
            pools=[param(l, a, "key_cache.size[0]") for l in decodes],
            expected_pools=[c[0].shape[0] for c in caches],
            outputs=[param(l, a, "output.aligned_ptr") for l in reduces],
            expected_outputs=[t.data_ptr() for t in outs],
            same_out=[r is o for r, o in zip(returned, outs)],
            work_info=param(decodes[0], a, "work_info.aligned_ptr"),
            tmp_out=param(decodes[0], a, "tmp_out.aligned_ptr"),
            workspace=[workspace.data_ptr(), size],
            untouched=bool((outs[0].array == 0).all()),
            debug_poison=bool((debug_out.array == 0x7FC0).all()),
            debug_plan=bool((debug.buffers["work_info"].array
                             == -0x21524111).all()),
            errors=errors)))
    """), FAKE_CUDA, PA_CUDA_LIBRARY=FAKE_CUDA)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["made"] == 0, "a run with out= allocates nothing"
    assert out["reused"] == [True, False]
    loads, unloads, allocations, frees, live, to_device, to_host, syncs = (
        out["counters"])
    assert (allocations, to_device, to_host, syncs) == (0, 0, 0, 0)
    # A reused plan's runs launch decode + reduce only; the plan kernel
    # runs once per step, in plan().
    assert out["names"] == ["pa_decode", "pa_reduce"] * 2
    assert out["stepped"]
    assert out["replans"] == [dict(name="pa_plan", stream=0x7700,
                                   work_info=out["workspace"][0])]
    assert out["replan_made"] == 0
    counters = out["replan_counters"]
    assert [counters[i] for i in (2, 5, 6, 7)] == [0, 0, 0, 0], (
        "allocations, copies, syncs")
    assert out["streams"] == [0x7700]
    assert out["queries"] == out["expected_queries"]
    assert out["pools"] == out["expected_pools"]
    assert out["expected_pools"][1] == out["expected_pools"][0] + 5
    assert out["outputs"] == out["expected_outputs"]
    assert out["same_out"] == [True, True]
    start, size = out["workspace"]
    assert out["work_info"] == start
    assert start < out["tmp_out"] < start + size
    assert out["untouched"], "no poison fill outside debug mode"
    assert out["debug_poison"] and out["debug_plan"]
    errors = out["errors"]
    assert errors["small workspace"].startswith(
        f"workspace has {size - 1} bytes; this plan needs {size}")
    assert errors["float32 query"] == (
        "query must have dtype torch.bfloat16, got torch.float32")
    assert errors["query shape"].startswith(
        "query must have shape [B*Q, Hq, D] = (3, 8, 64), got (2, 8, 64)")
    assert errors["no scales"].startswith("this plan reads k_scale")
    assert errors["value pool"].startswith("value_cache must have shape")
    for label, mask in (("empty mask", 0), ("unknown kernel", 8)):
        assert errors[label] == (
            f"the kernel mask {mask} selects no kernel or one the program "
            f"does not have (it has 3: bits 0..2)")
    assert errors["hip on cuda"] == (
        "target 'hip' cannot take these tensors: this is a CUDA build of "
        "torch, whose GPU tensors need target='cuda'")
    assert errors["numpy"].startswith("pa_mlir.plan() takes torch GPU")
    assert errors["fnuz for float8"].startswith("kv_dtype must be e4m3fn")


@pytest.mark.skipif(not FAKE_CUDA, reason="PA_FAKE_CUDA_LIB is not set "
                                          "(CTest sets it)")
def test_a_fused_qkv_query_is_read_in_place():
    """A query that is a view of a fused qkv tensor (qkv[:, :Hq, :]) is
    passed without a copy: its address and row stride reach the decode
    kernel's query descriptor (run and decode() alike); a packed query in
    the next run gets its own row stride back; a query whose elements are
    not adjacent is refused."""
    done = run_python(FAKE_RUN + COUNTING_TORCH + plan_of_three_sequences(9)
                      + textwrap.dedent("""
        bits = pa_mlir.float32_to_bits(case["query"], "bf16")
        qkv = np.zeros((3, 8 + 2 * 2, 64), np.uint16)
        qkv[:, :8, :] = bits
        fused = torch.tensor_of(qkv)
        view = fused[:, :8, :]
        packed = torch.tensor_of(bits)
        scale = torch.tensor_of(np.array([0.5], np.float32))
        out = torch.full((3, 8, 64), 0.0, torch.bfloat16, "cuda:0")
        k, v = t["key_cache"], t["value_cache"]
        a = None
        seen = []
        for query in (view, packed):
            fake.fakeCudaReset()
            allocations[0] = 0
            plan.run(query, k, v, k_scale=scale, v_scale=scale, out=out)
            a = a or cuda_artifact()
            [decode] = [l for l in record()["launches"]
                        if l["name"] == "pa_decode"]
            seen.append(dict(
                address=param(decode, a, "query.aligned_ptr"),
                expected=query.data_ptr(),
                strides=[param(decode, a, f"query.stride[{i}]")
                         for i in range(3)],
                made=allocations[0]))
        fake.fakeCudaReset()
        pa_mlir.decode(view, k, v, t["block_tables"], t["context_lengths"],
                       query_length=1, kv_dtype="e4m3fn", k_scale=scale,
                       v_scale=scale,
                       target="cuda", out=out)
        decodes = [l for l in record()["launches"] if l["name"] == "pa_decode"]
        through_decode = [param(decodes[0], a, "query.aligned_ptr"),
                          param(decodes[0], a, "query.stride[0]")]
        wide = torch.tensor_of(np.zeros((3, 8, 128), np.uint16))
        errors = {}
        try:
            plan.run(wide[:, :, ::2], k, v, k_scale=scale, v_scale=scale,
                     out=out)
        except ValueError as error:
            errors["gapped elements"] = str(error)
        print(json.dumps(dict(seen=seen, view=view.data_ptr(),
                              fused=fused.data_ptr(),
                              through_decode=through_decode,
                              errors=errors)))
    """), FAKE_CUDA, PA_CUDA_LIBRARY=FAKE_CUDA)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    strided, packed = out["seen"]
    assert out["view"] == out["fused"], "the view starts the fused tensor"
    assert strided["address"] == strided["expected"] == out["view"]
    assert strided["strides"] == [12 * 64, 64, 1]
    assert strided["made"] == 0, "no copy, no allocation"
    assert packed["address"] == packed["expected"]
    assert packed["strides"] == [8 * 64, 64, 1]
    assert out["through_decode"] == [out["view"], 12 * 64]
    assert out["errors"]["gapped elements"] == (
        "query must have its heads D = 64 elements apart and its elements "
        "adjacent (strides (row stride, 64, 1): packed, or the query rows of "
        "a fused qkv tensor), got strides (1024, 128, 2); pass "
        "query.contiguous()")


@pytest.mark.skipif(not FAKE_CUDA, reason="PA_FAKE_CUDA_LIB is not set "
                                          "(CTest sets it)")
def test_a_one_row_query_gets_one_row_stride_on_both_checks():
    """A query of one row (B*Q = 1) that is a slice of a fused qkv tensor
    reaches the decode kernel with the same strides whether run() passes
    it on its fast check or on the one-by-one checks (forced here by a
    query whose shape is a list, which only the fast check compares as
    is): one rule, the row-major row stride Hq * D for a single row."""
    done = run_python(FAKE_RUN + COUNTING_TORCH
                      + one_row_case(41, 2, "e4m3fn", [40])
                      + textwrap.dedent("""
        qkv = np.zeros((1, 8 + 2 * 2, 64), np.uint16)
        qkv[:, :8, :] = q.array
        view = torch.tensor_of(qkv)[:, :8, :]
        class ListShaped(torch.Tensor):
            @property
            def shape(self):
                return list(self.array.shape)
        slow_view = ListShaped(view.array, view.dtype, "cuda:0")
        out = torch.full((1, 8, 64), 0.0, torch.bfloat16, "cuda:0")
        plan = pa_mlir.plan(t["block_tables"], t["context_lengths"],
                            num_query_heads=8, num_kv_heads=2, head_dim=64,
                            page_size=16, kv_dtype="e4m3fn",
                            scale="per_tensor", debug=False)
        slow = []
        one_by_one = type(plan)._checked_one_by_one
        def counted(self, *args):
            slow.append(1)
            return one_by_one(self, *args)
        type(plan)._checked_one_by_one = counted
        a = None
        seen = []
        for query in (view, slow_view):
            before = len(slow)
            fake.fakeCudaReset()
            plan.run(query, t["key_cache"], t["value_cache"], k_scale=scale,
                     v_scale=scale, out=out)
            a = a or cuda_artifact()
            [decode] = [l for l in record()["launches"]
                        if l["name"] == "pa_decode"]
            seen.append(dict(
                slow=len(slow) - before,
                address=param(decode, a, "query.aligned_ptr")
                == query.data_ptr(),
                strides=[param(decode, a, f"query.stride[{i}]")
                         for i in range(3)]))
        print(json.dumps(dict(seen=seen, torch_strides=view.stride())))
    """), FAKE_CUDA, PA_CUDA_LIBRARY=FAKE_CUDA)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    fast, slow = out["seen"]
    assert out["torch_strides"] == [12 * 64, 64, 1]
    assert (fast["slow"], slow["slow"]) == (0, 1), out
    assert fast["address"] and slow["address"]
    assert fast["strides"] == slow["strides"] == [8 * 64, 64, 1], out


@pytest.mark.skipif(not FAKE_CUDA, reason="PA_FAKE_CUDA_LIB is not set "
                                          "(CTest sets it)")
def test_every_check_holds_after_fast_runs_and_new_sequences_plan_cheaply():
    """Run() checks all arguments at once and, only when that fails, one
    by one: after runs that passed, each argument changed in one way
    (device, dtype, shape, contiguity, kind, presence) is still refused
    with its message, and the next good run launches with the right
    addresses. A plan of new sequence tensors of the same shapes is the
    first plan's twin: it shares its layout and launch but launches on its
    own operand array (the plan kernel and the runs read its context
    lengths, interleaved runs each their own), leaving the first plan's
    alone; new sequence tensors on another device or the CPU are refused
    (the twins' key has no device); a plan that owns its workspace gives
    its twin another. Sequence tensors at the same address and shape but
    of another dtype or strides are checked anew (they were a cache hit
    when the key was address and shape)."""
    done = run_python(FAKE_RUN + COUNTING_TORCH + plan_of_three_sequences(12)
                      + textwrap.dedent("""
        q = torch.tensor_of(pa_mlir.float32_to_bits(case["query"], "bf16"))
        k, v = t["key_cache"], t["value_cache"]
        scale = torch.tensor_of(np.array([0.5], np.float32))
        out = torch.full((3, 8, 64), 0.0, torch.bfloat16, "cuda:0")
        good = dict(k_scale=scale, v_scale=scale, out=out)
        for _ in range(3):
            plan.run(q, k, v, **good)

        def moved(tensor, where):
            return torch.Tensor(tensor.array, tensor.dtype, where)

        gapped = torch.tensor_of(np.zeros((3, 8, 128), np.uint16))[:, :, ::2]
        refuse("query device", lambda: plan.run(moved(q, "cuda:1"), k, v,
                                                **good))
        refuse("key dtype", lambda: plan.run(
            q, torch.Tensor(k.array, torch.int16), v, **good))
        refuse("value shape", lambda: plan.run(q, k, v[:-1], **good))
        refuse("out contiguity", lambda: plan.run(
            q, k, v, **dict(good, out=gapped)))
        refuse("scale device", lambda: plan.run(
            q, k, v, **dict(good, k_scale=moved(scale, "cpu"))))
        refuse("scale kind", lambda: plan.run(
            q, k, v, **dict(good, v_scale=np.float32([0.5]))))
        refuse("no scales", lambda: plan.run(q, k, v, out=out))
        refuse("sinks", lambda: plan.run(q, k, v, sinks=scale, **good))
        refuse("query as key", lambda: plan.run(q, q, v, **good))
        # The shapes of the pool a run saw are cached by N: a key of
        # another pool than the value's is still refused, both grown run.
        grown_k = torch.tensor_of(np.concatenate(
            [k.array, np.zeros((1,) + k.shape[1:], np.uint8)]))
        grown_v = torch.tensor_of(np.concatenate(
            [v.array, np.zeros((1,) + v.shape[1:], np.uint8)]))
        refuse("key pool", lambda: plan.run(q, grown_k, v, **good))
        refuse("value pool", lambda: plan.run(q, k, grown_v, **good))
        refuse("scale shape", lambda: plan.run(q, k, v, **dict(
            good, k_scale=torch.tensor_of(np.float32([0.5, 0.5])))))
        fake.fakeCudaReset()
        plan.run(q, grown_k, grown_v, **good)
        [decode] = [l for l in record()["launches"]
                    if l["name"] == "pa_decode"]
        grown = param(decode, cuda_artifact(), "key_cache.size[0]")
        fake.fakeCudaReset()
        plan.run(q, k, v, **good)
        a = cuda_artifact()
        [decode] = [l for l in record()["launches"]
                    if l["name"] == "pa_decode"]
        after = [param(decode, a, f"{name}.aligned_ptr")
                 for name in ("query", "key_cache", "value_cache")]

        # New sequence tensors (a serving engine's fresh seq_lens).
        tables = torch.tensor_of(case["block_tables"].copy())
        lengths = torch.tensor_of(case["context_lengths"].copy())
        fake.fakeCudaReset()
        fresh = pa_mlir.plan(tables, lengths, debug=False, **sequences)
        [fresh_plan] = record()["launches"]
        plan.replan()
        [first_plan] = record()["launches"]
        # The two plans' runs, interleaved, each over its own operands
        # through the one launch they share.
        interleaved = []
        for which in (fresh, plan, fresh):
            which.run(q, k, v, **good)
            [decode] = [l for l in record()["launches"]
                        if l["name"] == "pa_decode"]
            interleaved.append(param(decode, a, "context_lengths.aligned_ptr"))
        # Sequence tensors of the plan's shapes on another device or the
        # CPU: the twin's key does not say the device, so it is checked.
        def elsewhere(tensor, where):  # new memory, as a real move
            return moved(torch.tensor_of(tensor.array.copy()), where)
        refuse("lengths device", lambda: pa_mlir.plan(
            tables, elsewhere(lengths, "cuda:1"), debug=False, **sequences))
        refuse("tables on the cpu", lambda: pa_mlir.plan(
            elsewhere(tables, "cpu"), lengths, debug=False, **sequences))
        # A Planner binds plan()'s keywords: the same plans, the same
        # checks.
        planner = pa_mlir.Planner(debug=False, **sequences)
        bound = [planner.plan(tables, lengths) is fresh,
                 planner.plan(t["block_tables"], t["context_lengths"])
                 is plan]
        refuse("planner tables on the cpu", lambda: planner.plan(
            elsewhere(tables, "cpu"), lengths))
        twin_by_planner = planner.plan(
            torch.tensor_of(case["block_tables"].copy()), lengths)
        bound.append(twin_by_planner._launch is plan._launch
                     and twin_by_planner is not fresh)
        # Plans with a workspace of their own: a twin gets another one.
        owned = [pa_mlir.plan(torch.tensor_of(case["block_tables"].copy()),
                              lengths, **sequences) for _ in range(2)]
        owned_workspaces = [o.workspace.data_ptr() for o in owned]
        owned_cells = [o._cells[o._layout.operands.address_slot("work_info")]
                       for o in owned]
        bits = t["block_tables"]
        same_place = torch.Tensor(np.lib.stride_tricks.as_strided(
            bits.array, bits.shape, (4, 4 * bits.shape[0])), torch.int32)
        refuse("tables as float32", lambda: pa_mlir.plan(
            bits.view(torch.float32), t["context_lengths"], debug=False,
            **sequences))
        refuse("strided tables", lambda: pa_mlir.plan(
            same_place, t["context_lengths"], debug=False, **sequences))
        print(json.dumps(dict(
            errors=errors, after=after, grown=grown, pages=k.shape[0],
            bound=bound,
            expected=[x.data_ptr() for x in (q, k, v)],
            distinct=fresh is not plan,
            shared_layout=fresh._layout is plan._layout,
            shared_launch=fresh._launch is plan._launch,
            own_array=ctypes.addressof(fresh._cells)
                != ctypes.addressof(plan._cells),
            interleaved=interleaved,
            owned_workspaces=owned_workspaces, owned_cells=owned_cells,
            owned_twins=owned[1]._launch is owned[0]._launch,
            lengths=[param(fresh_plan, a, "context_lengths.aligned_ptr"),
                     param(first_plan, a, "context_lengths.aligned_ptr")],
            expected_lengths=[lengths.data_ptr(),
                              t["context_lengths"].data_ptr()],
            same_place=same_place.data_ptr() == bits.data_ptr())))
    """), FAKE_CUDA, PA_CUDA_LIBRARY=FAKE_CUDA)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    errors = out["errors"]
    assert errors["query device"] == (
        "query is on cuda:1, but the current CUDA device is cuda:0; every "
        "tensor must be on the current device (torch.cuda.set_device)")
    assert errors["key dtype"] == (
        "key_cache must have dtype torch.uint8 or torch.int8, got "
        "torch.int16")
    assert errors["value shape"].startswith(
        "value_cache must have shape [N, Hkv, D, P]")
    assert errors["out contiguity"].startswith("out is not contiguous")
    assert errors["scale device"].startswith(
        "k_scale is a torch tensor on cpu")
    assert errors["scale kind"] == (
        "v_scale must be a GPU tensor, got ndarray")
    assert errors["no scales"].startswith("this plan reads k_scale")
    assert errors["sinks"].startswith("this plan has no sinks")
    assert errors["query as key"].startswith("key_cache must have dtype")
    assert errors["key pool"].startswith(
        "value_cache must have shape [N, Hkv, D, P]")
    assert errors["value pool"].startswith(
        "value_cache must have shape [N, Hkv, D, P]")
    assert errors["scale shape"].startswith("k_scale must have shape [1]")
    assert out["grown"] == out["pages"] + 1
    assert out["bound"] == [True, True, True]
    assert errors["planner tables on the cpu"].startswith(
        "block_tables is a torch tensor on cpu")
    assert out["after"] == out["expected"]
    assert out["distinct"] and out["shared_layout"] and out["own_array"]
    assert out["shared_launch"], "a plan of new sequences twins the first"
    assert out["lengths"] == out["expected_lengths"]
    fresh_lengths, first_lengths = out["expected_lengths"]
    assert out["interleaved"] == [fresh_lengths, first_lengths,
                                  fresh_lengths]
    assert errors["lengths device"].startswith(
        "context_lengths is on cuda:1, but the current CUDA device is "
        "cuda:0")
    assert errors["tables on the cpu"].startswith(
        "block_tables is a torch tensor on cpu")
    assert out["owned_twins"]
    first_own, second_own = out["owned_workspaces"]
    assert first_own != second_own, "a twin's own workspace is its own"
    assert out["owned_cells"] == out["owned_workspaces"]
    assert out["same_place"]
    assert errors["tables as float32"] == (
        "block_tables must have dtype torch.int32, got torch.float32")
    assert errors["strided tables"].startswith(
        "block_tables is not contiguous")


@pytest.mark.skipif(not FAKE_HIP, reason="PA_FAKE_HIP_LIB is not set (CTest "
                                         "sets it)")
def test_rocm_tensors_run_on_target_hip_zero_copy():
    done = run_python(COUNTING_TORCH_PRELUDE + COUNTING_TORCH + textwrap.dedent("""
        # A ROCm build of torch: its GPU tensors are "cuda" tensors.
        torch.version.hip = "6.2.41133"
        class properties:
            gcnArchName = "gfx942:sramecc+:xnack-"
        torch.cuda.get_device_properties = staticmethod(
            lambda device=None: properties)
        torch.float8_e4m3fnuz = torch.dtype("float8_e4m3fnuz", np.uint8)
        torch.float8_e4m3fn = torch.dtype("float8_e4m3fn", np.uint8)

        rng = np.random.default_rng(9)
        case, options = make_case(rng, hq=8, hkv=1, d=64, p=16,
                                  query_length=1, kv_dtype="e4m3fnuz",
                                  v_layout="plain", lengths=[20, 70],
                                  scales="per_tensor")
        options.pop("kv_dtype")
        tensors = tensors_of(case)
        for name in ("key_cache", "value_cache"):
            tensors[name] = torch.Tensor(case[name], torch.float8_e4m3fnuz)
        out = torch.full(case["query"].shape, 0.0, torch.bfloat16, "cuda:0")
        fake.fakeHipReset()
        got = pa_mlir.decode(**tensors, **options, target="hip",
                             chip="gfx942", out=out)
        launches = hip_launches()
        counts = hip_counts()
        [key] = [k for k in pa_mlir.targets._programs if k[0] == "hip"]
        program = pa_mlir.targets._programs[key]
        inferred = program.config.kv_dtype
        artifact = pa_mlir.compile(program.config)
        decode = [l for l in launches if l["name"] == "pa_decode"][0]
        reduce = [l for l in launches if l["name"] == "pa_reduce"][0]

        # A plan: target and chip from the torch build and the GPU.
        plan = pa_mlir.plan(tensors["block_tables"],
                            tensors["context_lengths"], num_query_heads=8,
                            num_kv_heads=1, head_dim=64, page_size=16,
                            kv_dtype=torch.float8_e4m3fnuz,
                            scale="per_tensor")
        fake.fakeHipReset()
        scale = torch.tensor_of(np.array([1.5], np.float32))
        plan.run(torch.tensor_of(pa_mlir.float32_to_bits(case["query"],
                                                         "bf16")),
                 tensors["key_cache"], tensors["value_cache"], k_scale=scale,
                 v_scale=scale, out=out)
        planned = dict(target=plan.target, chip=plan.config.chip,
                       launches=[l["name"] for l in hip_launches()],
                       counts=hip_counts())

        errors = {}
        def refuse(label, **change):
            try:
                pa_mlir.decode(**dict(tensors, **change.pop("arrays", {})),
                               **dict(options, **change))
            except ValueError as error:
                errors[label] = str(error)
        refuse("cuda on rocm", target="cuda")
        refuse("disagreeing kv_dtype", target="hip", chip="gfx942",
               kv_dtype="e4m3fn")
        refuse("raw bits need kv_dtype", target="hip", chip="gfx942",
               arrays=dict(key_cache=torch.tensor_of(case["key_cache"]),
                           value_cache=torch.tensor_of(case["value_cache"])))
        refuse("host", target="host")
        print(json.dumps(dict(
            launches=[[l["name"], l["stream"]] for l in launches],
            counts=counts, same_out=got is out,
            out_is_poison=bool((out.array == 0x7FC0).all()),
            inferred=inferred,
            key=param(decode, artifact, "key_cache.aligned_ptr")
                == tensors["key_cache"].data_ptr(),
            output=param(reduce, artifact, "output.aligned_ptr")
                == out.data_ptr(),
            planned=planned, errors=errors)))
    """), FAKE_HIP, PA_HIP_LIBRARY=FAKE_HIP)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["launches"] == [["pa_plan", 0x7700], ["pa_decode", 0x7700],
                               ["pa_reduce", 0x7700]], (
        "on torch.cuda.current_stream()")
    loads, unloads, copies, synchronizations = out["counts"]
    assert (copies, synchronizations) == (0, 0), "zero-copy, no wait"
    assert out["same_out"] and out["output"] and out["key"]
    assert out["out_is_poison"], "debug mode (the tests') poisons out"
    assert out["inferred"] == "e4m3fnuz"
    # A plan's run on HIP, too, launches decode + reduce only.
    assert out["planned"] == dict(target="hip", chip="gfx942",
                                  launches=["pa_decode", "pa_reduce"],
                                  counts=[0, 0, 0, 0])
    errors = out["errors"]
    assert errors["cuda on rocm"] == (
        "target 'cuda' cannot take these tensors: this is a ROCm build of "
        "torch, whose GPU tensors need target='hip'")
    assert errors["disagreeing kv_dtype"] == (
        "kv_dtype='e4m3fn' disagrees with the caches' dtype "
        "torch.float8_e4m3fnuz (kv_dtype 'e4m3fnuz')")
    assert errors["raw bits need kv_dtype"].startswith(
        "kv_dtype is needed for caches of torch.uint8")
    assert errors["host"] == ("target 'host' takes numpy arrays; ROCm "
                              "tensors need target='hip'")


# The recording HIP driver's launches and counters (as FAKE_RUN's record()
# for CUDA), with a param() reading AMD kernel arguments.
COUNTING_TORCH_PRELUDE = textwrap.dedent("""
    import ctypes, json, sys
    import numpy as np
    import pa_mlir
    from test_decode import make_case

    fake = ctypes.CDLL(sys.argv[1])
    fake.fakeHipLaunch.restype = ctypes.c_char_p

    def hip_launches():
        grid, block = (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)()
        stream = ctypes.c_void_p()
        params, size = ctypes.POINTER(ctypes.c_ubyte)(), ctypes.c_size_t()
        launches = []
        for i in range(fake.fakeHipLaunchCount()):
            name = fake.fakeHipLaunch(i, grid, block, ctypes.byref(stream),
                                      ctypes.byref(params),
                                      ctypes.byref(size))
            launches.append(dict(name=name.decode(), stream=stream.value,
                                 raw=ctypes.string_at(params, size.value)))
        return launches

    def hip_counts():
        counts = [ctypes.c_int() for _ in range(4)]
        fake.fakeHipCounters(*[ctypes.byref(c) for c in counts])
        return [c.value for c in counts]

    def param(launch, artifact, meaning):
        kernel = [k for k in artifact.metadata["kernels"]
                  if k["name"] == launch["name"]][0]
        arg = [a for a in kernel["args"] if a.get("meaning") == meaning][0]
        return int.from_bytes(launch["raw"][arg["offset"]:
                                            arg["offset"] + 8], "little")
""")


# A ROCm build of fake torch (gfx942) with torch.library's stand-in, for
# the custom op and the drop-in entry points (pa_mlir.torch_ops).
ROCM_TORCH = textwrap.dedent("""
    torch.version.hip = "6.2.41133"
    class properties:
        gcnArchName = "gfx942:sramecc+:xnack-"
    torch.cuda.get_device_properties = staticmethod(
        lambda device=None: properties)
""")


@pytest.mark.skipif(not FAKE_HIP, reason="PA_FAKE_HIP_LIB is not set (CTest "
                                         "sets it)")
def test_alibi_slopes_and_lse_as_tensors_on_rocm():
    """ALiBi slopes given as a float32 GPU tensor [Hq] and the log-sum-exp
    returned as one ([B*Q, Hq]), through plan()/run(), decode(), the
    custom op and vLLM's signature: their addresses reach the decode
    kernel (slopes) and the reduce kernel (lse); a wrong or missing
    tensor is refused with its message."""
    done = run_python(COUNTING_TORCH_PRELUDE + COUNTING_TORCH + ROCM_TORCH
                      + one_row_case(21, 1, "e4m3fnuz", [20, 70])
                      + textwrap.dedent("""
        k, v = t["key_cache"], t["value_cache"]
        slopes = torch.tensor_of(np.exp2(-np.arange(1, 9)).astype(np.float32))
        out = torch.full((2, 8, 64), 0.0, torch.bfloat16, "cuda:0")
        keywords = dict(num_query_heads=8, num_kv_heads=1, head_dim=64,
                        page_size=16, kv_dtype="e4m3fnuz",
                        scale="per_tensor")
        plan = pa_mlir.plan(t["block_tables"], t["context_lengths"],
                            alibi=True, return_lse=True, **keywords)
        artifact = pa_mlir.compile(plan.config)

        def addresses(artifact=artifact):
            launches = hip_launches()
            fake.fakeHipReset()
            seen = {}
            for l in launches:
                if l["name"] == "pa_decode":
                    seen["slopes"] = param(l, artifact,
                                           "alibi_slopes.aligned_ptr")
                if l["name"] == "pa_reduce" and artifact.config.return_lse:
                    seen["lse"] = param(l, artifact, "lse.aligned_ptr")
            return seen

        fake.fakeHipReset()
        allocations[0] = 0
        got_out, lse = plan.run(q, k, v, k_scale=scale, v_scale=scale,
                                out=out, alibi_slopes=slopes)
        results = dict(planned=dict(
            addresses(), lse_shape=list(lse.shape), lse_dtype=str(lse.dtype),
            same_out=got_out is out, allocated=allocations[0]))
        given = torch.full((2, 8), 0.0, torch.float32, "cuda:0")
        returned = plan.run(q, k, v, k_scale=scale, v_scale=scale, out=out,
                            alibi_slopes=slopes, lse=given)
        results["given"] = dict(addresses(), same=returned[1] is given)

        decoded, decoded_lse = pa_mlir.decode(
            q, k, v, t["block_tables"], t["context_lengths"],
            query_length=1, kv_dtype="e4m3fnuz", k_scale=scale,
            v_scale=scale, target="hip", chip="gfx942", out=out,
            alibi_slopes=slopes, return_lse=True)
        results["decode"] = dict(addresses(), expected=decoded_lse.data_ptr(),
                                 same_out=decoded is out)

        import pa_mlir.torch_ops as ops
        op_lse = torch.full((2, 8), 0.0, torch.float32, "cuda:0")
        workspace = torch.empty((plan.workspace_bytes,), torch.uint8,
                                "cuda:0")
        torch.ops.pa_mlir.paged_decode(
            out, q, k, v, t["block_tables"], t["context_lengths"], workspace,
            scale, scale, None, "e4m3fnuz", 1, 0, None, "plain", "", 0, 0,
            slopes, op_lse)
        results["op"] = dict(addresses(), expected=op_lse.data_ptr())
        ops.vllm_paged_attention(out, None, None, None, q, k, v, 1,
                                 64 ** -0.5, t["block_tables"],
                                 t["context_lengths"], None, 16, 70, slopes,
                                 "fp8", scale, scale)
        results["vllm"] = addresses(pa_mlir.compile(pa_mlir.DecodeConfig(
            softmax_scale=64 ** -0.5, alibi=True, chip="gfx942",
            **keywords)))

        good = dict(k_scale=scale, v_scale=scale, out=out)
        refuse("no slopes", lambda: plan.run(q, k, v, **good))
        refuse("int slopes", lambda: plan.run(
            q, k, v, alibi_slopes=torch.tensor_of(np.ones(8, np.int32)),
            **good))
        refuse("slopes shape", lambda: plan.run(
            q, k, v, alibi_slopes=torch.tensor_of(np.ones(9, np.float32)),
            **good))
        refuse("lse shape", lambda: plan.run(
            q, k, v, alibi_slopes=slopes, lse=torch.full(
                (2, 9), 0.0, torch.float32, "cuda:0"), **good))
        plain = pa_mlir.plan(t["block_tables"], t["context_lengths"],
                             **keywords)
        refuse("slopes for a plain plan", lambda: plain.run(
            q, k, v, alibi_slopes=slopes, **good))
        refuse("lse for a plain plan", lambda: plain.run(
            q, k, v, lse=given, **good))
        refuse("numpy slopes", lambda: pa_mlir.decode(
            q, k, v, t["block_tables"], t["context_lengths"],
            query_length=1, kv_dtype="e4m3fnuz", k_scale=scale,
            v_scale=scale, target="hip", chip="gfx942",
            alibi_slopes=np.ones(8, np.float32)))
        results.update(errors=errors, slopes=slopes.data_ptr(),
                       lse=lse.data_ptr(), given_lse=given.data_ptr())
        print(json.dumps(results))
    """), FAKE_HIP, PA_HIP_LIBRARY=FAKE_HIP, PA_MLIR_DEBUG="0")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    slopes = out["slopes"]
    planned = out["planned"]
    assert planned["slopes"] == slopes and planned["lse"] == out["lse"]
    assert planned["lse_shape"] == [2, 8]
    assert planned["lse_dtype"] == "torch.float32"
    assert planned["same_out"]
    assert planned["allocated"] == 1, "the lse alone (out= given)"
    assert out["given"] == dict(slopes=slopes, lse=out["given_lse"],
                                same=True)
    assert out["decode"]["same_out"]
    for through in ("decode", "op"):
        assert out[through]["slopes"] == slopes, through
        assert out[through]["lse"] == out[through]["expected"], through
    assert out["vllm"] == dict(slopes=slopes)
    errors = out["errors"]
    assert errors["no slopes"] == "this plan reads alibi_slopes [Hq]"
    assert errors["int slopes"] == (
        "alibi_slopes must have dtype torch.float32, got torch.int32")
    assert errors["slopes shape"] == (
        "alibi_slopes must have shape [Hq] = (8,), got (9,)")
    assert errors["lse shape"] == (
        "lse must have shape [B*Q, Hq] = (2, 8), got (2, 9)")
    assert errors["slopes for a plain plan"] == (
        "this plan has no ALiBi (planned with alibi=False)")
    assert errors["lse for a plain plan"] == (
        "this plan writes no lse (planned with return_lse=False)")
    assert errors["numpy slopes"].startswith(
        "decode() got torch tensors (query, key_cache")
    assert "other arrays (alibi_slopes)" in errors["numpy slopes"]



@pytest.mark.skipif(not FAKE_HIP, reason="PA_FAKE_HIP_LIB is not set (CTest "
                                         "sets it)")
def test_kv_layout_through_the_custom_op_and_vllms_signature():
    """kv_layout="nhd" / "hnd" through the custom op and vLLM's signature
    (pa_mlir.torch_ops, ROCm fake torch): K and V as the halves of one
    combined [N, 2, ...] cache reach the decode kernel at their own
    addresses with their page stride of two pages (read in place, no
    copy); nhd caches given as packed ones, and an unknown layout, are
    refused naming what they need. Numerics with a real torch:
    test_cuda_gpu.py."""
    done = run_python(COUNTING_TORCH_PRELUDE + COUNTING_TORCH + ROCM_TORCH
                      + one_row_case(41, 2, "e4m3fnuz", [20, 70])
                      + textwrap.dedent("""
        from test_decode import to_layout
        import pa_mlir.torch_ops as ops
        out = torch.full((2, 8, 64), 0.0, torch.bfloat16, "cuda:0")
        results = {}
        fields = ("key_cache.aligned_ptr", "key_cache.stride[0]",
                  "value_cache.aligned_ptr", "value_cache.stride[0]")
        for kv_layout in ("nhd", "hnd"):
            key, value = to_layout(case["key_cache"], case["value_cache"],
                                   kv_layout)
            combined = torch.tensor_of(np.stack([key, value], axis=1))
            k, v = combined[:, 0], combined[:, 1]
            config = pa_mlir.DecodeConfig(
                num_query_heads=8, num_kv_heads=2, head_dim=64,
                page_size=16, kv_dtype="e4m3fnuz", scale="per_tensor",
                kv_layout=kv_layout, chip="gfx942")
            artifact = pa_mlir.compile(config)
            workspace = torch.empty((pa_mlir.workspace_bytes(2, config),),
                                    torch.uint8, "cuda:0")
            fake.fakeHipReset()
            torch.ops.pa_mlir.paged_decode(
                out, q, k, v, t["block_tables"], t["context_lengths"],
                workspace, scale, scale, None, "e4m3fnuz", 1, 0, None,
                "plain", "", 0, 0, None, None, kv_layout)
            [op] = [l for l in hip_launches() if l["name"] == "pa_decode"]
            fake.fakeHipReset()
            ops.vllm_paged_attention(out, None, None, None, q, k, v, 2,
                                     64 ** -0.5, t["block_tables"],
                                     t["context_lengths"], None, 16, 70,
                                     None, "fp8", scale, scale,
                                     kv_layout=kv_layout)
            [vllm] = [l for l in hip_launches() if l["name"] == "pa_decode"]
            page = int(key[0].size)
            results[kv_layout] = dict(
                op=[param(op, artifact, f) for f in fields],
                vllm=[param(vllm, artifact, f) for f in fields],
                expected=[k.data_ptr(), 2 * page, v.data_ptr(), 2 * page],
                halves=[k.data_ptr() - combined.data_ptr(), page])
            refuse(kv_layout + " as packed", lambda: ops.vllm_paged_attention(
                out, None, None, None, q, k, v, 2, 64 ** -0.5,
                t["block_tables"], t["context_lengths"], None, 16, 70, None,
                "fp8", scale, scale))
        refuse("unknown", lambda: ops.vllm_paged_attention(
            out, None, None, None, q, k, v, 2, 64 ** -0.5,
            t["block_tables"], t["context_lengths"], None, 16, 70, None,
            "fp8", scale, scale, kv_layout="nhd2"))
        results["errors"] = errors
        print(json.dumps(results))
    """), FAKE_HIP, PA_HIP_LIBRARY=FAKE_HIP, PA_MLIR_DEBUG="0")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    for kv_layout in ("nhd", "hnd"):
        seen = out[kv_layout]
        assert seen["halves"] == [0, 16 * 2 * 64], seen  # K at the start
        assert seen["op"] == seen["expected"], (kv_layout, seen)
        assert seen["vllm"] == seen["expected"], (kv_layout, seen)
        assert out["errors"][kv_layout + " as packed"].startswith(
            "key_cache must be [N, Hkv, D/x, block_size, x] with block_size "
            "16, got (")
    assert out["errors"]["unknown"] == (
        "kv_layout must be one of packed, nhd, hnd, got 'nhd2'")


@pytest.mark.skipif(not FAKE_CUDA, reason="PA_FAKE_CUDA_LIB is not set "
                                          "(CTest sets it)")
def test_nhd_and_hnd_plans_read_a_combined_cache_in_place():
    """plan(kv_layout="nhd" / "hnd") on tensors: K and V as cache[0] and
    cache[1] of one combined [2, N, ...] cache reach the decode kernel at
    their own addresses (no copy: the combined tensor's address and one
    half further), with their 4-D sizes; so do K and V of an [N, 2, ...]
    cache (one page apart), with their page stride of two pages in the
    kernel arguments (the programs read it at run time); a cache whose
    dims within a page are not row-major is refused by name; a
    soft-capped plan compiles the cap (issue 17 on the plan path). A
    failed launch of a run or a replan raises the runtime's message."""
    done = run_python(FAKE_RUN + COUNTING_TORCH
                      + one_row_case(31, 2, "e4m3fn", [40, 3])
                      + textwrap.dedent("""
        from test_decode import to_layout
        out = torch.full((2, 8, 64), 0.0, torch.bfloat16, "cuda:0")
        seen = {}
        for kv_layout in ("nhd", "hnd"):
            key, value = to_layout(case["key_cache"], case["value_cache"],
                                   kv_layout)
            combined = torch.tensor_of(np.stack([key, value]))
            k, v = combined[0], combined[1]
            plan = pa_mlir.plan(t["block_tables"], t["context_lengths"],
                                num_query_heads=8, num_kv_heads=2,
                                head_dim=64, page_size=16, kv_dtype="e4m3fn",
                                scale="per_tensor", kv_layout=kv_layout,
                                logits_soft_cap=30.0, debug=False)
            artifact = pa_mlir.compile(plan.config)
            fake.fakeCudaReset()
            plan.run(q, k, v, k_scale=scale, v_scale=scale, out=out)
            [decode] = [l for l in record()["launches"]
                        if l["name"] == "pa_decode"]
            page_stride = [param(decode, artifact, f"{n}.stride[0]")
                           for n in ("key_cache", "value_cache")]
            interleaved = torch.tensor_of(np.stack([key, value], axis=1))
            fake.fakeCudaReset()
            plan.run(q, interleaved[:, 0], interleaved[:, 1], k_scale=scale,
                     v_scale=scale, out=out)
            [halves] = [l for l in record()["launches"]
                        if l["name"] == "pa_decode"]
            # Pages transposed within (the last two dims swapped).
            refuse(kv_layout, lambda: plan.run(
                q, torch.tensor_of(np.ascontiguousarray(
                    key.swapaxes(2, 3)).swapaxes(2, 3)), v,
                k_scale=scale, v_scale=scale, out=out))
            seen[kv_layout] = dict(
                key=param(decode, artifact, "key_cache.aligned_ptr"),
                value=param(decode, artifact, "value_cache.aligned_ptr"),
                expected=[combined.data_ptr(),
                          combined.data_ptr() + key.nbytes],
                page_stride=page_stride,
                halves=[param(halves, artifact, f"{n}.{field}")
                        for n in ("key_cache", "value_cache")
                        for field in ("aligned_ptr", "stride[0]")],
                halves_expected=[interleaved.data_ptr(), 2 * key[0].size,
                                 interleaved.data_ptr() + key[0].nbytes,
                                 2 * key[0].size],
                page=key[0].size,
                sizes=[param(decode, artifact, f"key_cache.size[{i}]")
                       for i in range(4)],
                shape=list(key.shape),
                cap=plan.config.logits_soft_cap,
                layout=plan.config.kv_layout)
        # A failed launch's message comes back through the plan's own
        # error string (in its operand block), for a run and a replan.
        for label, call in (("failed run", lambda: plan.run(
                q, k, v, k_scale=scale, v_scale=scale, out=out)),
                            ("failed replan", plan.replan)):
            fake.fakeCudaFailAfter(b"cuLaunchKernel", 0, 1)
            refuse(label, call)
        print(json.dumps(dict(seen=seen, errors=errors)))
    """), FAKE_CUDA, PA_CUDA_LIBRARY=FAKE_CUDA)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    for kv_layout in ("nhd", "hnd"):
        seen = out["seen"][kv_layout]
        assert [seen["key"], seen["value"]] == seen["expected"], kv_layout
        assert seen["page_stride"] == [seen["page"]] * 2, seen
        assert seen["halves"] == seen["halves_expected"], seen
        assert seen["sizes"] == seen["shape"]
        assert seen["cap"] == 30.0 and seen["layout"] == kv_layout
        assert out["errors"][kv_layout].startswith(
            "key_cache has strides"), out["errors"][kv_layout]
        assert "any page stride (dim 0), the dims within a page row-major" \
            in out["errors"][kv_layout], out["errors"][kv_layout]
    for label, kernel in (("failed run", "pa_decode"),
                          ("failed replan", "pa_plan")):
        error = out["errors"][label]
        assert error and "cuLaunchKernel" in error and kernel in error, error


@pytest.mark.skipif(not FAKE_HIP, reason="PA_FAKE_HIP_LIB is not set (CTest "
                                         "sets it)")
def test_vllm_and_aiter_signatures_run_in_place_and_refuse_the_rest():
    """vLLM's paged_attention and aiter's pa_fwd signatures on ROCm
    tensors (fake HIP, gfx942): a call launches decode and reduce on the
    caller's query, caches and output in place (their addresses reach the
    kernels, nothing copied or waited for), and every argument pa-mlir does
    not support is refused naming it, with nothing launched."""
    done = run_python(COUNTING_TORCH_PRELUDE + COUNTING_TORCH + ROCM_TORCH
                      + one_row_case(31, 1, "e4m3fnuz", [20, 70])
                      + textwrap.dedent("""
        import pa_mlir.torch_ops as ops
        k, v = t["key_cache"], t["value_cache"]
        tables, lengths = t["block_tables"], t["context_lengths"]
        out = torch.full((2, 8, 64), 0.0, torch.bfloat16, "cuda:0")
        # aiter's V is pa-mlir's transposed layout [N, Hkv, P/x, D, x].
        aiter_case, _ = make_case(rng, hq=8, hkv=1, d=64, p=16,
                                  query_length=1, kv_dtype="e4m3fnuz",
                                  v_layout="transposed", lengths=[20, 70],
                                  scales="per_tensor")
        av = torch.tensor_of(aiter_case["value_cache"])
        ak = torch.tensor_of(aiter_case["key_cache"])
        at = torch.tensor_of(aiter_case["block_tables"])
        al = torch.tensor_of(aiter_case["context_lengths"])

        def seen(config):
            artifact = pa_mlir.compile(config)
            launches = hip_launches()
            counts = hip_counts()
            fake.fakeHipReset()
            decode = [l for l in launches if l["name"] == "pa_decode"][0]
            reduce = [l for l in launches if l["name"] == "pa_reduce"][0]
            return dict(
                names=[l["name"] for l in launches], copies=counts[2:],
                query=param(decode, artifact, "query.aligned_ptr"),
                key=param(decode, artifact, "key_cache.aligned_ptr"),
                value=param(decode, artifact, "value_cache.aligned_ptr"),
                output=param(reduce, artifact, "output.aligned_ptr"))

        keywords = dict(num_query_heads=8, num_kv_heads=1, head_dim=64,
                        page_size=16, kv_dtype="e4m3fnuz",
                        scale="per_tensor", chip="gfx942")
        fake.fakeHipReset()
        vllm_out = ops.vllm_paged_attention(
            out, None, None, None, q, k, v, 1, 64 ** -0.5, tables, lengths,
            None, 16, 70, None, "fp8", scale, scale)
        results = dict(vllm=seen(pa_mlir.DecodeConfig(
            softmax_scale=64 ** -0.5, **keywords)),
            vllm_same_out=vllm_out is out)
        aiter_out = ops.aiter_pa_fwd(q, ak, av, at, al, at.stride(0), 1,
                                     scale, scale, out)
        results["aiter"] = seen(pa_mlir.DecodeConfig(v_layout="transposed",
                                                     **keywords))
        results["aiter_same_out"] = aiter_out is out
        results["expected"] = dict(
            query=q.data_ptr(), output=out.data_ptr(), vllm_key=k.data_ptr(),
            vllm_value=v.data_ptr(), aiter_key=ak.data_ptr(),
            aiter_value=av.data_ptr())

        def vllm(**change):
            arguments = dict(
                out=out, exp_sums=None, max_logits=None, tmp_out=None,
                query=q, key_cache=k, value_cache=v, num_kv_heads=1,
                scale=64 ** -0.5, block_tables=tables, seq_lens=lengths,
                query_start_loc=None, block_size=16, max_seq_len=70,
                alibi_slopes=None, kv_cache_dtype="fp8", k_scale=scale,
                v_scale=scale)
            arguments.update(change)
            return lambda: ops.vllm_paged_attention(**arguments)

        def aiter(**change):
            arguments = dict(Q=q, K=ak, V=av, block_tables=at,
                             context_lens=al,
                             block_tables_stride0=at.stride(0), max_qlen=1,
                             K_QScale=scale, V_QScale=scale, out_=out)
            arguments.update(change)
            return lambda: ops.aiter_pa_fwd(**arguments)

        refuse("vllm ragged", vllm(query_start_loc=lengths))
        refuse("vllm fp8 output", vllm(fp8_out_scale=scale))
        refuse("vllm kv dtype", vllm(kv_cache_dtype="int8"))
        refuse("vllm block size", vllm(block_size=32))
        refuse("vllm kv heads", vllm(num_kv_heads=2))
        refuse("vllm nhd cache", vllm(key_cache=v))
        refuse("vllm scale of two", vllm(
            k_scale=torch.tensor_of(np.float32([0.5, 0.5]))))
        refuse("aiter ragged", aiter(qo_indptr=lengths))
        refuse("aiter kernel name", aiter(kernelName="pa_a8w8"))
        refuse("aiter table stride", aiter(block_tables_stride0=99))
        refuse("aiter one scale", aiter(V_QScale=None))
        results.update(errors=errors,
                       refused_launches=[l["name"] for l in hip_launches()])
        print(json.dumps(results))
    """), FAKE_HIP, PA_HIP_LIBRARY=FAKE_HIP, PA_MLIR_DEBUG="0")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    expected = out["expected"]
    for call in ("vllm", "aiter"):
        got = out[call]
        assert got["names"] == ["pa_plan", "pa_decode", "pa_reduce"], call
        assert got["copies"] == [0, 0], f"{call}: no copy, no wait"
        assert got["query"] == expected["query"], call
        assert got["output"] == expected["output"], call
        assert got["key"] == expected[f"{call}_key"], call
        assert got["value"] == expected[f"{call}_value"], call
        assert out[f"{call}_same_out"], call
    errors = out["errors"]
    assert errors["vllm ragged"].startswith(
        "query_start_loc is not supported by pa-mlir: ragged query lengths")
    assert errors["vllm fp8 output"] == (
        "fp8_out_scale is not supported by pa-mlir: the output is bf16/f16")
    assert errors["vllm kv dtype"] == (
        "kv_cache_dtype 'int8' is not supported (auto, bf16, fp8, fp8_e4m3)")
    assert errors["vllm block size"].startswith(
        "key_cache must be [N, Hkv, D/x, block_size, x] with block_size 32")
    assert errors["vllm kv heads"] == (
        "num_kv_heads 2 disagrees with key_cache's 1")
    assert errors["vllm nhd cache"].startswith(
        "key_cache must be [N, Hkv, D/x, block_size, x]")
    assert errors["vllm scale of two"] == (
        "k_scale must be a float32 tensor of one element (per-tensor)")
    assert errors["aiter ragged"].startswith(
        "qo_indptr is not supported by pa-mlir: ragged query lengths")
    assert errors["aiter kernel name"] == (
        "kernelName is not supported by pa-mlir: pa-mlir compiles its own "
        "kernels")
    assert errors["aiter table stride"].startswith(
        "block_tables_stride0 99 is not the table's row stride")
    assert errors["aiter one scale"] == (
        "K_QScale and V_QScale must be given together")
    assert out["refused_launches"] == [], "nothing launched when refused"


@pytest.mark.skipif(not FAKE_HIP, reason="PA_FAKE_HIP_LIB is not set (CTest "
                                         "sets it)")
def test_run_launches_the_layer_kernels_whatever_the_block_kept():
    # The kernel mask in a plan's block is written by every run(): a
    # replan() that raised before restoring it, or a twin copied from a
    # block while a replan() had it at KERNEL_PLAN, still run decode and
    # reduce.
    done = run_python(COUNTING_TORCH_PRELUDE + COUNTING_TORCH + ROCM_TORCH
                      + textwrap.dedent("""
        from pa_mlir import _runtime_capi
        rng = np.random.default_rng(5)
        case, options = make_case(rng, hq=8, hkv=1, d=64, p=16,
                                  query_length=1, kv_dtype="bf16",
                                  v_layout="plain", lengths=[20, 70],
                                  scales="none")
        t = tensors_of(case)
        q = torch.tensor_of(pa_mlir.float32_to_bits(case["query"], "bf16"))
        k = torch.tensor_of(pa_mlir.float32_to_bits(case["key_cache"],
                                                    "bf16"))
        v = torch.tensor_of(pa_mlir.float32_to_bits(case["value_cache"],
                                                    "bf16"))
        out = torch.full(case["query"].shape, 0.0, torch.bfloat16, "cuda:0")
        plan = pa_mlir.plan(t["block_tables"], t["context_lengths"],
                            num_query_heads=8, num_kv_heads=1, head_dim=64,
                            page_size=16, kv_dtype="bf16", target="hip",
                            chip="gfx942")
        stream = plan._stream
        def failing(device):
            plan._stream = stream
            raise RuntimeError("no stream")
        plan._stream = failing
        try:
            plan.replan()
        except RuntimeError:
            pass
        fake.fakeHipReset()
        plan.run(q, k, v, out=out)
        after_failed_replan = [l["name"] for l in hip_launches()]

        # A twin of a block caught inside a replan().
        L = plan._layout
        plan._cells[L.kernels_word] = _runtime_capi.KERNEL_PLAN
        twin = plan.twin(t["block_tables"], t["context_lengths"])
        fake.fakeHipReset()
        twin.run(q, k, v, out=out)
        twin_of_replanning = [l["name"] for l in hip_launches()]
        print(json.dumps(dict(after_failed_replan=after_failed_replan,
                              twin_of_replanning=twin_of_replanning)))
    """), FAKE_HIP, PA_HIP_LIBRARY=FAKE_HIP)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["after_failed_replan"] == ["pa_decode", "pa_reduce"]
    assert out["twin_of_replanning"] == ["pa_decode", "pa_reduce"]


@pytest.mark.skipif(not FAKE_CUDA, reason="PA_FAKE_CUDA_LIB is not set "
                                          "(CTest sets it)")
def test_an_hnd_cache_of_one_kv_head_made_by_transpose_runs():
    """Dims of size 1 may have any stride: an hnd cache with Hkv = 1 made
    by transposing an nhd tensor (its head dim's stride D, not P * D) runs
    and reads the same pages as the contiguous one, on the fast path of a
    run (the one rule of both checks); a cache made by expand() of one
    page (page stride 0) is refused by name on both paths, as the numpy
    path refuses np.broadcast_to, and launches nothing."""
    done = run_python(FAKE_RUN + COUNTING_TORCH
                      + one_row_case(33, 1, "e4m3fn", [40, 3])
                      + textwrap.dedent("""
        from test_decode import to_layout
        out = torch.full((2, 8, 64), 0.0, torch.bfloat16, "cuda:0")
        nhd_key, nhd_value = to_layout(case["key_cache"],
                                       case["value_cache"], "nhd")
        # torch's transpose(1, 2) of a contiguous [N, P, 1, D] tensor:
        # strides (P * D, D, D, 1) (numpy may give the size-1 dim another).
        def transposed(nhd):
            n, p, _, d = nhd.shape
            item = nhd.itemsize
            return torch.tensor_of(np.lib.stride_tricks.as_strided(
                nhd, (n, 1, p, d), (p * d * item, d * item, d * item, item)))
        k, v = transposed(nhd_key), transposed(nhd_value)
        plan = pa_mlir.plan(t["block_tables"], t["context_lengths"],
                            num_query_heads=8, num_kv_heads=1, head_dim=64,
                            page_size=16, kv_dtype="e4m3fn",
                            scale="per_tensor", kv_layout="hnd", debug=False)
        artifact = pa_mlir.compile(plan.config)
        # Counts the runs that fell back to the slow checks.
        slow = []
        one_by_one = type(plan)._checked_one_by_one
        def counted(self, *args):
            slow.append(1)
            return one_by_one(self, *args)
        type(plan)._checked_one_by_one = counted
        fake.fakeCudaReset()
        refuse("transposed", lambda: plan.run(q, k, v, k_scale=scale,
                                              v_scale=scale, out=out))
        launches = record()["launches"]
        decode = [l for l in launches if l["name"] == "pa_decode"]
        slow_runs = len(slow)
        # torch's expand() of one page over the pool: stride 0 in dim 0.
        hnd_key = np.ascontiguousarray(nhd_key.swapaxes(1, 2))
        expanded = torch.tensor_of(np.broadcast_to(hnd_key[:1],
                                                   hnd_key.shape))
        fake.fakeCudaReset()
        refuse("expanded", lambda: plan.run(q, expanded, v, k_scale=scale,
                                            v_scale=scale, out=out))
        expanded_launches = record()["launches"]
        print(json.dumps(dict(
            slow_runs=slow_runs, expanded_stride=expanded.stride(0),
            pages=hnd_key.shape[0],
            expanded_launches=len(expanded_launches),
            errors=errors, strides=list(k.stride()),
            launches=[l["name"] for l in launches],
            key=[param(d, artifact, "key_cache.aligned_ptr")
                 for d in decode] == [k.data_ptr()],
            page_stride=[param(d, artifact, "key_cache.stride[0]")
                         for d in decode],
            page=nhd_key[0].size)))
    """), FAKE_CUDA, PA_CUDA_LIBRARY=FAKE_CUDA)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["strides"][1] != out["strides"][2] * 16, out["strides"]
    assert out["errors"]["transposed"] is None, out["errors"]
    assert out["slow_runs"] == 0, "a size-1 dim's stride left the fast path"
    assert out["launches"] == ["pa_decode", "pa_reduce"]
    assert out["expanded_stride"] == 0
    assert out["pages"] > 1
    assert out["errors"]["expanded"].startswith(
        f"key_cache has page stride 0 over {out['pages']} pages"), out["errors"]
    assert out["expanded_launches"] == 0
    assert out["key"] and out["page_stride"] == [out["page"]]
