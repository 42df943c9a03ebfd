//===- PaDialect.td - the pa dialect and its attribute class -*- tablegen -*-===//
//
// The dialect alone, so that a file defining attributes of its own
// (PaLayoutAttrs.td) can include it without the attributes of PaBase.td:
// mlir-tblgen emits every attribute of the records it reads.
//
//===----------------------------------------------------------------------===//

#ifndef PA_IR_PADIALECT_TD
#define PA_IR_PADIALECT_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/DialectBase.td"

def Pa_Dialect : Dialect {
  let name = "pa";
  let cppNamespace = "::mlir::pa";
  let summary = "Paged-attention decode for AMD Instinct (and NVIDIA) GPUs";
  let description = [{
    The `pa` dialect describes paged-attention **decode** as three ops on
    memrefs, in destination style:

    - `pa.plan` turns context lengths into a work plan (`work_info`) and the
      reducer's index (`reduce_info`). It runs on the device so a captured
      HIP/CUDA graph can be replayed with new lengths.
    - `pa.decode` computes, per work-plan slot and KV head, the partial
      results of attention over a range of 256-token KV tiles: row maxima
      (`max_logits`), exponential sums (`exp_sums`) and normalized partial
      outputs (`tmp_out`).
    - `pa.reduce` merges the partitions of each sequence (and the optional
      attention sinks) into the output.

    The KV cache is paged: token `t` of sequence `b` lives in page
    `block_tables[b][t / P]` at slot `t % P`. Three layouts
    (`#pa.kv_layout`): "packed" keys (`[N, Hkv, D/x, P, x]`, x values of
    one token contiguous) with plain (`[N, Hkv, D, P]`) or
    packed-transposed (`[N, Hkv, P/x, D, x]`) values (vLLM v0, aiter); `nhd`
    (`[N, P, Hkv, D]`, vLLM v1, FlashInfer, SGLang) and `hnd`
    (`[N, Hkv, P, D]`, FlashInfer), for keys and values alike.
    Head counts, head dim, page size and query length are static; batch,
    page pool and plan capacity are dynamic. The ops also take ranked
    tensors (destination-passing style) for tensor-level frontends;
    `one-shot-bufferize` turns them into the memref form.

    The exact function, including masking, sliding windows, multi-token
    queries, scales, sinks and the numerical tolerance, is defined in
    `shared/spec/paged-attention-decode.md`; the project's float64 oracle is
    its executable form.
  }];
  let useDefaultAttributePrinterParser = 1;
  // The `pa.`-prefixed attributes on other dialects' ops: those of
  // DiscardableAttributes.h, each checked; any other `pa.` name is refused.
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The module attribute naming the chip the module is compiled for
    /// (declared in DiscardableAttributes.h).
    static constexpr ::llvm::StringLiteral kTargetAttrName =
        ::mlir::pa::kTargetAttrName;
  }];
}

class Pa_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Pa_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // PA_IR_PADIALECT_TD
