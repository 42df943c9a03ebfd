// Not valid MLIR: pa-compile must report the parse error, not crash.
func.func @broken(%x: memref<?xf32>) {
  pa.plan context_lengths(%x
}
