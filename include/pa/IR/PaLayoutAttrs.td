//===- PaLayoutAttrs.td - lane mappings of the GPU backends -*- tablegen -*-===//
//
// Attributes an analysis pass attaches to the tiled IR for a backend to
// follow. Kept out of PaBase.td so that only the files that use them
// include their declarations (pa/IR/PaLayoutAttrs.h); PaAttrDefs.td joins
// them with the others for the dialect's attribute parser and printer.
//
//===----------------------------------------------------------------------===//

#ifndef PA_IR_PALAYOUTATTRS_TD
#define PA_IR_PALAYOUTATTRS_TD

include "pa/IR/PaDialect.td"

def Pa_MFMALayoutAttr : Pa_Attr<"MFMALayout", "mfma_layout"> {
  let summary = "where a decode kernel's matrices live on AMD wave64 lanes";
  let description = [{
    The lane mapping `pa-to-mfma` gives a decode kernel (a `gpu.func` with
    `pa.tile.*` ops), as chosen by `pa-mfma-layout` and attached to the
    kernel as `pa.mfma_layout`:

    ```mlir
    #pa.mfma_layout<qk = 16x16x128, pv = 16x16x32, m_tiles = 2,
                    wave_tokens = 64, qk_chunks = 2>
    ```

    - `qk`, `pv`: the MFMA shape (M x N x K, f32 accumulators) of the
      score product S^T = K Q^T and of the output product O^T += V^T P^T.
      fp8 operands: `16x16x32` (`v_mfma_f32_16x16x32_fp8_fp8`), for QK also
      `16x16x128` (`v_mfma_f32_16x16x128_f8f6f4`, gfx950, head dims that
      are multiples of 128); bf16 operands: `16x16x16`
      (`v_mfma_f32_16x16x16_bf16`) for both.
    - `m_tiles`: 16-row M-tiles of the row group (its rows / 16: 1 or 2).
    - `wave_tokens`: tokens of each 256-token tile a wave owns: wave `w`
      takes tokens `[64 w, 64 w + 64)`, lane group `j` of it 16 consecutive
      ones; 4 waves of 64 lanes (the only mapping: 64).
    - `qk_chunks`: 16-byte K loads per lane and token, 4 lane groups wide,
      covering the head dim D (`ceil(D / (4 x))`, x cache values per 16
      bytes); the last one is partial where it does not divide D.

    What the lowering decides for registers and LDS (the edge-tile branch,
    the merge's head-dim chunks, the products' residuals) is not part of
    the mapping.

    The verifier checks the shapes against each other; on a kernel, also
    against the module's chip (`pa.target`) and the kernel's tile ops.
  }];
  let parameters = (ins "int64_t":$qkK, "int64_t":$pvK, "int64_t":$mTiles,
                        "int64_t":$waveTokens, "int64_t":$qkChunks);
  let assemblyFormat = [{
    `<` `qk` `=` custom<MFMAShape>($qkK) `,` `pv` `=` custom<MFMAShape>($pvK)
    `,` `m_tiles` `=` $mTiles `,` `wave_tokens` `=` $waveTokens
    `,` `qk_chunks` `=` $qkChunks `>`
  }];
  let genVerifyDecl = 1;
}

#endif // PA_IR_PALAYOUTATTRS_TD
