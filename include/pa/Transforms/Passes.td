//===- Passes.td - pa lowering passes ----------------------*- tablegen -*-===//
//
// The target-independent pipeline: pa ops -> workgroup programs (the tiled
// IR) -> host execution. Backends (pa-to-mfma, pa-to-nvvm) consume the same
// tiled IR.
//
//===----------------------------------------------------------------------===//

#ifndef PA_TRANSFORMS_PASSES_TD
#define PA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PaSetTarget : Pass<"pa-set-target", "ModuleOp"> {
  let summary = "state the chip the module is compiled for (pa.target)";
  let description = [{
    Sets the module's `pa.target` attribute (`#pa.target<"gfx942">`), which
    every chip-dependent pass reads. `chip` names the chip; a module that
    already states another chip is an error (a module compiled for one chip
    is not silently retargeted). Without `chip`, the module's own target
    stays, or `default-chip` is set when it states none (the pipelines pass
    their `chip` option and the project's default chip this way).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"",
           "chip the module is compiled for: gfx942, gfx950, sm_90a">,
    Option<"defaultChip", "default-chip", "std::string", /*default=*/"",
           "chip set when neither `chip` nor the module names one">
  ];
  let dependentDialects = ["::mlir::pa::PaDialect"];
}

def PaRequestCInterface : Pass<"pa-request-c-interface", "ModuleOp"> {
  let summary = "mark public func.func definitions llvm.emit_c_interface";
  let description = [{
    Marks every public `func.func` definition `llvm.emit_c_interface`, so
    that an ExecutionEngine can call the entry points as
    `_mlir_ciface_<name>` with memref descriptors. Runs before the kernels
    become (private) host functions, so only the functions the user wrote
    are marked.
  }];
}

def PaTile : Pass<"pa-tile", "ModuleOp"> {
  let summary = "lower pa.decode to a workgroup program over 256-token KV tiles";
  let description = [{
    Replaces each `pa.decode` with a `gpu.launch_func` of a kernel in the
    module's `gpu.module @pa_kernels`. One workgroup per (work-plan slot, KV
    head, row group of up to 32 query rows = two 16-row M-tiles): it reads
    its `work_info` slot, exits when the slot is empty, and loops over its
    256-token tiles with the `pa.tile.*` ops (page ids, QK, masked online
    softmax in the exp2 domain, PV), then writes the partial results.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect"];
}

def PaLowerPlan : Pass<"pa-lower-plan", "ModuleOp"> {
  let summary = "lower pa.plan to a device kernel that computes the work plan";
  let description = [{
    Replaces each `pa.plan` with a `gpu.launch_func` of a one-workgroup
    kernel that computes `work_info` and `reduce_info` from the context
    lengths exactly as the host planner does (the spec's capacity, window
    tile skipping and prefix-sum apportioning). Missing `budget` and
    `max_partitions` default to twice and once the compute-unit count of the
    module's target chip (`pa.target`).
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect"];
}

def PaLowerReduce : Pass<"pa-lower-reduce", "ModuleOp"> {
  let summary = "lower pa.reduce to a kernel merging the split-K partitions";
  let description = [{
    Replaces each `pa.reduce` with a `gpu.launch_func` of a kernel with one
    workgroup per (sequence, KV head): it merges 1..max_partitions partial
    results of every row with the optional sink and writes the output rows
    in the output element type.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect"];
}

def PaStagePageIds : Pass<"pa-stage-page-ids", "::mlir::gpu::GPUModuleOp"> {
  let summary = "stage a workgroup's page ids in workgroup memory";
  let description = [{
    Rewrites the `pa.tile.page_ids` reads of a decode kernel: at kernel
    entry the page ids of the workgroup's visible tile range (for windows,
    only the union of tiles its rows can see) are copied from the block
    table into workgroup memory, at most `max-staged` ids and at most the
    staging bound of the module's `pa.target` chip when it states one
    (gfx942: 2048, an eighth of its LDS); each tile then
    reads its ids with vector-width loads. Tiles beyond the staged bound read
    the block table directly (scalar fallback); both give identical ids.
  }];
  let options = [
    Option<"maxStaged", "max-staged", "int64_t", /*default=*/"4096",
           "most page ids staged in workgroup memory">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect"];
}

def PaLowerTileToLoops : Pass<"pa-lower-tile-to-loops", "::mlir::gpu::GPUModuleOp"> {
  let summary = "lower pa.tile.* ops to sequential loops (the host executor)";
  let description = [{
    Expands every `pa.tile.*` op into `scf.for` loops over its tile with
    scalar `memref` loads and stores. This is the reference lowering of the
    tiled IR that the host executor runs; GPU backends lower the same ops to
    lanes instead.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect"];
}

def PaWorkgroupToLane0 : Pass<"pa-workgroup-to-lane0", "::mlir::gpu::GPUModuleOp"> {
  let summary = "run each kernel's workgroup program on lane 0 of the workgroup";
  let description = [{
    Wraps the body of every kernel `gpu.func` in
    `scf.if (gpu.thread_id x == 0)`: the sequential workgroup program of the
    tiled IR (after pa-lower-tile-to-loops) then runs on one lane of a real
    GPU workgroup and the other lanes exit. No barrier is needed because a
    single lane reads and writes the workgroup memory (a body containing
    gpu.barrier, or more than one block, is rejected). Kernels that already
    use thread ids (lane-distributed by a backend) are left alone.

    This is the correctness-only baseline of the AMD path
    (pa-lower-to-rocdl): it produces valid, slow code objects. pa-to-mfma
    replaces it for the decode kernel by distributing the pa.tile ops over
    wave64 lanes with MFMA.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect"];
}

def PaGpuToHost : Pass<"pa-gpu-to-host", "ModuleOp"> {
  let summary = "run gpu.launch_func on the CPU: every workgroup in a loop";
  let description = [{
    Turns each kernel of `gpu.module @pa_kernels` into a `func.func` that
    takes the workgroup id as arguments (workgroup memory becomes stack
    buffers) and each `gpu.launch_func` into loops over the grid calling it.
    Workgroup programs of the tiled IR have no threads, so this is exact.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

def PaExpandFloatCasts : Pass<"pa-expand-float-casts"> {
  let summary = "expand bf16/f16/fp8 extf and truncf into integer bit operations";
  let description = [{
    Rewrites `arith.extf` from and `arith.truncf` to `bf16`, `f16`,
    `f8E4M3FN` and `f8E4M3FNUZ` (scalars and vectors) into integer
    arithmetic on their bit patterns (round to nearest even, saturating for
    fp8 like the hardware conversions), so that targets without native
    conversions (the host CPU through LLVM, NVVM for fp8) need no runtime
    library calls.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // PA_TRANSFORMS_PASSES_TD
