module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
module {
func.func @f(%a: memref<?xi32>) {
  return
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
