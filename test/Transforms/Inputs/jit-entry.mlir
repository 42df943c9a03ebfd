// Appended to a module (host-pipeline.mlir) so that mlir-runner has an entry
// point: running it JIT-compiles the whole module, as the ExecutionEngine of
// the host runtime does.
func.func @jit_compiled() {
  vector.print str "JIT-compiled\n"
  return
}
