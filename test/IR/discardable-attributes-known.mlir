// Every `"pa.NAME"` string literal of the sources that is no op name is
// one of the table's (include/pa/IR/DiscardableAttributes.h) and written
// there only: code that puts a `pa.` attribute the table does not know on
// an op, or spells a known name a second time, fails here (and the
// verifier would refuse the attribute: discardable-attributes-invalid.mlir).
// Op names come from the ODS definitions; a literal ending in `.` (a
// prefix, "pa.tile.") is no name.
//
// RUN: pa-opt --pa-list-discardable-attributes > %t.table
// RUN: grep -ohE '^def Pa_[A-Za-z]+ : Pa_(Tile)?Op<"[a-z_]+"' %pa_src_root/include/pa/IR/PaOps.td %pa_src_root/include/pa/IR/PaTileOps.td | sed -e 's/^def [A-Za-z_]* : //' > %t.ops
// RUN: cd %pa_src_root && grep -rnoE '"pa\.[a-z0-9_.]*[a-z0-9_]"' lib include tools --include='*.h' --include='*.cpp' --include='*.c' --include='*.td' > %t.literals
// RUN: awk -f %S/Inputs/pa-attribute-literals.awk %t.table %t.ops %t.literals | FileCheck %s

// CHECK-NOT: error:
// CHECK:     checked 19
// CHECK-NOT: error:
