//===- PaAttrDefs.td - every attribute of the pa dialect ----*- tablegen -*-===//
//
// The records of PaAttrs.cpp.inc: the dialect's generated attribute parser
// and printer dispatch over every attribute, those of PaBase.td (declared
// in PaAttrs.h.inc, through PaDialect.h) and of PaLayoutAttrs.td (declared
// in PaLayoutAttrs.h.inc, through PaLayoutAttrs.h).
//
//===----------------------------------------------------------------------===//

include "pa/IR/PaOps.td"
include "pa/IR/PaLayoutAttrs.td"
