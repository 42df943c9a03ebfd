//===- MFMAOptions.h - options of the MFMA lowering -------------*- C++ -*-===//
//
// Shared by pa-to-mfma, the pa-lower-to-rocdl pipeline, the compile API and
// pa-compile, so that the option has one spelling everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef PA_CONVERSION_MFMAOPTIONS_H
#define PA_CONVERSION_MFMAOPTIONS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <optional>

namespace mlir::pa {

/// Which operands of the fp8 MFMA products (fp8 compute) also contribute
/// their fp8 residual (value - fp8(value), itself in fp8) through a second
/// MFMA: about 2^-8 instead of 2^-4 relative quantization error for that
/// operand, one more MFMA per step of its product.
enum class Fp8Residual {
  /// One MFMA per step: Q and P quantized to fp8 once (the design's
  /// minimum; P's 2^-4 relative error fails the spec's tolerance on short
  /// rows).
  none,
  /// P's residual in the PV product: the outputs of uniform(-0.5, 0.5)
  /// inputs stay within the tolerance, but the query's per-row fp8
  /// quantization moves the scores by ~2^-5 relative, which peaked
  /// softmaxes (normal inputs, long rows) turn into output errors of
  /// several times the tolerance.
  probabilities,
  /// Also the query's residual in the QK product (the default): the
  /// products see ~8 significant bits of Q and P, and every input
  /// distribution of the numerics matrix passes.
  queryAndProbabilities,
};

/// What pa-to-mfma, the pipeline, the compile API and pa-compile use
/// unless told otherwise.
inline constexpr Fp8Residual kDefaultFp8Residual =
    Fp8Residual::queryAndProbabilities;

/// "none", "p", "query-and-p".
llvm::StringRef stringifyFp8Residual(Fp8Residual residual);
std::optional<Fp8Residual> parseFp8Residual(llvm::StringRef text);
/// The values of an `fp8-residual` command-line or pass option.
llvm::cl::ValuesClass fp8ResidualValues();

} // namespace mlir::pa

#endif // PA_CONVERSION_MFMAOPTIONS_H
