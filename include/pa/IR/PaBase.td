//===- PaBase.td - the pa dialect's enums and attributes ----*- tablegen -*-===//
//
// The `pa` dialect: paged-attention decode as three destination-style ops.
// Semantics: shared/spec/paged-attention-decode.md (the contract).
//
//===----------------------------------------------------------------------===//

#ifndef PA_IR_PABASE_TD
#define PA_IR_PABASE_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "pa/IR/PaDialect.td"

// Every pa op: an attribute the op does not define is an error (naming the
// ones it does), unless it is a dialect-prefixed discardable one (`pa.foo`).
// Without it a misspelt or not yet supported attribute (`logits_soft_cap`)
// would be dropped silently by the lowering.
def Pa_KnownAttributesOnly : NativeOpTrait<"KnownAttributesOnly"> {
  let cppNamespace = "::mlir::pa";
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Pa_VLayout : I32EnumAttr<"VLayout", "layout of the value cache", [
    I32EnumAttrCase<"plain", 0>,
    I32EnumAttrCase<"transposed", 1>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::pa";
}

def Pa_CacheLayout : I32EnumAttr<"CacheLayout",
    "order of the K and V cache dims", [
    I32EnumAttrCase<"packed", 0>,
    I32EnumAttrCase<"nhd", 1>,
    I32EnumAttrCase<"hnd", 2>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::pa";
}

def Pa_ScaleMode : I32EnumAttr<"ScaleMode", "KV dequantization scales", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"per_tensor", 1>,
    I32EnumAttrCase<"per_token", 2>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::pa";
}

// "parallel-loops" is printed quoted (`#pa.distribution<"parallel-loops">`):
// the PTX metadata carries the same text.
def Pa_Distribution : I32EnumAttr<"Distribution",
    "how pa-to-nvvm spread a kernel over its threads", [
    I32EnumAttrCase<"thread0", 0>,
    I32EnumAttrCase<"warps", 1>,
    I32EnumAttrCase<"parallel_loops", 2, "parallel-loops">,
    I32EnumAttrCase<"threads", 3>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::pa";
}

def Pa_ComputeType : I32EnumAttr<"ComputeType",
    "element type of the matrix products", [
    I32EnumAttrCase<"fp8", 0>,
    I32EnumAttrCase<"bf16", 1>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::pa";
}

// A signless i64 attribute read back as a signed value (the upstream I64Attr
// returns uint64_t, which turns a window of -1 into 2^64-1).
def Pa_I64Attr : TypedSignlessIntegerAttrBase<I64, "int64_t",
                                              "64-bit signless integer attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

// A f64 attribute read back as a double.
def Pa_F64Attr : FloatAttrBase<F64, "64-bit float attribute"> {
  let returnType = "double";
  let convertFromStorage = "$_self.getValueAsDouble()";
}

def Pa_VLayoutAttr : EnumAttr<Pa_Dialect, Pa_VLayout, "v_layout"> {
  let summary = "layout of the value cache (used by the tiled IR)";
  let assemblyFormat = "`<` $value `>`";
}

def Pa_CacheLayoutAttr : EnumAttr<Pa_Dialect, Pa_CacheLayout, "cache_layout"> {
  let summary = "order of the K and V cache dims (used by the tiled IR)";
  let assemblyFormat = "`<` $value `>`";
}

def Pa_ScaleModeAttr : EnumAttr<Pa_Dialect, Pa_ScaleMode, "scale"> {
  let summary = "how the KV cache is dequantized";
  let description = [{
    `none`: cache values are used as they are (scale 1). `per_tensor`: one
    f32 scale each for K and V (`memref<1xf32>`). `per_token`: one f32 scale
    per cached token and KV head (`memref<NxHkvxPxf32>`, indexed
    `[page, kv_head, slot]`). The dequantized value is `cache value * scale`.

    Example: `#pa.scale<per_token>`
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Pa_ComputeTypeAttr : EnumAttr<Pa_Dialect, Pa_ComputeType, "compute"> {
  let summary = "element type of the QK and PV matrix products";
  let description = [{
    `fp8`: the query is quantized per row and P is quantized for the PV
    product; requires an fp8 KV cache. `bf16`: bf16 products (any KV type).
    The fp8 flavour follows the KV cache (`f8E4M3FNUZ` on gfx942, OCP
    `f8E4M3FN` on gfx950 and sm_90a); chip rules are checked by the lowering.

    Example: `#pa.compute<fp8>`
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Pa_DistributionAttr : EnumAttr<Pa_Dialect, Pa_Distribution,
                                   "distribution"> {
  let summary = "how pa-to-nvvm spread a kernel over its threads";
  let description = [{
    Set as `pa.distribution` on each kernel of the NVIDIA path (a kernel that
    has one is left alone by later passes) and copied into the PTX metadata:

    - `thread0`: the workgroup program runs on thread 0 (the fallback for
      kernels no distribution applies to).
    - `warps`: the decode kernel on warps, rows and tokens spread over lanes.
    - `parallel-loops`: a kernel whose writes all sit in loops that run in
      parallel over the threads (the reducer's rows).
    - `threads`: the plan kernel, one sequence per thread.

    Examples: `#pa.distribution<warps>`, `#pa.distribution<"parallel-loops">`
  }];
  let assemblyFormat = ?;
  let hasCustomAssemblyFormat = 1;
}

def Pa_GridAttr : Pa_Attr<"Grid", "grid"> {
  let summary = "the launch grid of a kernel, per axis";
  let description = [{
    Set as `pa.grid` on each kernel by the pass that creates its launch, for
    the launchers: per axis `x`, `y`, `z` the number of workgroups, as a
    constant (`>= 1`), as the size of a dim of one of the kernel's buffers
    (`work_info dim 0`: named as the pa op's operand), or `dynamic` when it
    is neither (a launcher cannot compute such a grid and rejects the
    kernel). Axis `z` may also be a choice by the workgroups of x and y:
    `z = 4 if x * y le 66 else 1` launches 4 where x * y is at most 66,
    else 1 (the NVIDIA reduce kernel's row slices, worth a launch only where
    workgroups are few). The code-object and PTX metadata carry the grid as
    the text `x = work_info dim 0, y = 2, z = 1`, which the runtime
    evaluates.

    Example:

    ```mlir
    gpu.func @pa_reduce(...) kernel
        attributes {pa.grid = #pa.grid<x = reduce_info dim 0, y = 2, z = 1>}
    gpu.func @pa_reduce(...) kernel attributes {pa.grid =
        #pa.grid<x = reduce_info dim 0, y = 2, z = 4 if x * y le 66 else 1>}
    ```
  }];
  let parameters = (ins ArrayRefParameter<"::mlir::pa::GridExtent",
                            "the extents of axes x, y and z">:$extents);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The grid as the metadata's text: "x = work_info dim 0, y = 2, z = 1".
    std::string getFormula() const;
  }];
}

def Pa_KVLayoutAttr : Pa_Attr<"KVLayout", "kv_layout"> {
  let summary = "page size and layout of a paged KV cache";
  let description = [{
    Describes how the KV cache operands of `pa.decode` are laid out. Token
    `t` of a sequence lives in page `block_tables[b][t / P]` at slot
    `t % P`; `layout` orders the dims around it:

    - `packed` (the default; vLLM v0, aiter): keys `[N, Hkv, D/x, P, x]`
      with `k_pack` x elements of one token contiguous (16 bytes: 16 for
      fp8 caches, 8 for bf16 caches); values by `v_layout`: `plain`
      `[N, Hkv, D, P]` (token axis contiguous) or `transposed`
      `[N, Hkv, P/x, D, x]` (x consecutive tokens of one head element
      contiguous, `P % x == 0`). Page size 16, 64 or 128.
    - `nhd` (vLLM v1, FlashInfer NHD, SGLang): keys and values
      `[N, P, Hkv, D]`.
    - `hnd` (FlashInfer HND): keys and values `[N, Hkv, P, D]`.

    For `nhd` and `hnd` the page size is any power of two from 1 to 1024,
    `k_pack` and `v_layout` are not given, and K and V may be strided views
    of one combined cache (`[2, N, P, Hkv, D]` or `[N, 2, P, Hkv, D]`): any
    strides on the outer dims, the head-dim axis contiguous (stride 1).
    Per-token scales are `[N, Hkv, P]` for every layout.

    Examples:

    ```mlir
    #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = transposed>
    #pa.kv_layout<page_size = 1, layout = nhd>
    ```
  }];
  let parameters = (ins "int64_t":$page_size,
                        DefaultValuedParameter<"int64_t", "0">:$k_pack,
                        DefaultValuedParameter<"::mlir::pa::VLayout",
                            "::mlir::pa::VLayout::plain">:$v_layout,
                        DefaultValuedParameter<"::mlir::pa::CacheLayout",
                            "::mlir::pa::CacheLayout::packed">:$layout);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Pa_TargetAttr : Pa_Attr<"Target", "target"> {
  let summary = "the chip a module's kernels are compiled for";
  let description = [{
    Placed on the top-level module as `pa.target`, it names the chip every
    chip-dependent pass reads its facts from (the table of
    `include/pa/IR/Chip.h`: compute units for the plan defaults, workgroup
    and wave size, workgroup memory, the fp8 flavour of the matrix units,
    the MFMA instructions, the page-id staging bound). A pass that needs a
    chip and finds no `pa.target` on an enclosing module is an error;
    `pa-set-target{chip=...}` (the first step of every pipeline) sets it.
    Only known chips parse: gfx942, gfx950, sm_90a.

    Example:

    ```mlir
    module attributes {pa.target = #pa.target<"gfx942">} { ... }
    ```
  }];
  let parameters = (ins StringRefParameter<"chip name">:$chip);
  let assemblyFormat = "`<` $chip `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The chip's facts (the attribute verifies that the chip is known).
    ::mlir::pa::ChipInfo getInfo() const;
  }];
}

#endif // PA_IR_PABASE_TD
