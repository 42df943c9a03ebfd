//===- ProgramConfig.h - the program configuration of a case shape -*- C++ -*-===//
//
// The harnesses that run compiled programs on oracle cases (the numerics
// matrices on the CPU, pa-cuda-run on NVIDIA GPUs) need the configuration
// of the program that computes a DecodeShape. This is their one translation
// from the oracle's types: into the C API's PaDecodeConfig (pa-c/Decode.h,
// a plain struct), which the compiler's API reads (fromCConfig) and the
// runtime's operand table takes directly. The oracle itself never uses it.
//
//===----------------------------------------------------------------------===//
#ifndef PA_ORACLE_PROGRAMCONFIG_H
#define PA_ORACLE_PROGRAMCONFIG_H

#include "pa-c/Decode.h"
#include "pa/Oracle/DecodeCase.h"

namespace pa::oracle {

/// The configuration of a program for cases of `shape` (with `sinks` when
/// its cases carry them): every field `shape` decides; the chip (NULL: the
/// default), budget and partition bound (0: defaults) are the caller's.
PaDecodeConfig programConfigOf(const DecodeShape &shape, bool sinks);

} // namespace pa::oracle

#endif // PA_ORACLE_PROGRAMCONFIG_H
