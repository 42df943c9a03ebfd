//===- HostProgram.h - a compiled decode run on the CPU ---------*- C++ -*-===//
//
// compile() builds the module of a DecodeConfig, lowers it with the
// `pa-lower-to-host` pipeline and JIT-compiles it with MLIR's
// ExecutionEngine; run() calls the program on caller-owned buffers. A
// program is reusable for any batch size, context lengths, page-pool size
// and block-table width (the dynamic dims), and run() may be called again
// with new inputs, like a replayed GPU graph.
//
//===----------------------------------------------------------------------===//
#ifndef PA_API_HOSTPROGRAM_H
#define PA_API_HOSTPROGRAM_H

#include "pa/API/DecodeConfig.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <memory>
#include <string>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace mlir::pa {

/// Caller-owned operands of one run, in the layouts of the spec's table.
/// Element counts follow from the program's DecodeConfig and the dynamic
/// dims below. Inputs are read, outputs written; nothing is retained.
struct HostBuffers {
  int64_t batch = 0;               // B
  int64_t numPages = 0;            // N, pages in the pool
  int64_t maxPagesPerSequence = 0; // block-table row length
  int64_t capacity = 0;            // plan slots: must be planCapacity(B)

  const uint16_t *query = nullptr;   // [B*Q, Hq, D], bits of the query type
  /// Elements from one query row to the next: 0 is Hq * D (packed rows);
  /// more for a view of a fused qkv tensor (rows Hq * D + 2 Hkv * D apart).
  int64_t queryRowStride = 0;
  const void *keyCache = nullptr;    // packed K, raw element bits (u8 / u16)
  const void *valueCache = nullptr;  // V in the configured layout, raw bits
  /// Elements from one page of an nhd / hnd cache to the next: 0 is one
  /// page's elements (a contiguous cache); more for the K or V half of a
  /// combined [N, 2, ...] cache (pages two pages apart). Packed caches are
  /// contiguous (0).
  int64_t keyPageStride = 0;
  int64_t valuePageStride = 0;
  const int32_t *blockTables = nullptr;    // [B, maxPagesPerSequence]
  const int32_t *contextLengths = nullptr; // [B]
  const float *kScale = nullptr; // per_tensor [1], per_token [N, Hkv, P]
  const float *vScale = nullptr; // like kScale; both null for scale none
  const float *sinks = nullptr;  // [Hq] when the config has sinks
  const float *alibiSlopes = nullptr; // [Hq] when the config has ALiBi

  int32_t *workInfo = nullptr;   // [capacity, 4]
  int32_t *reduceInfo = nullptr; // [B, 2]
  float *expSums = nullptr;      // [Hkv, capacity, R]
  float *maxLogits = nullptr;    // [Hkv, capacity, R]
  float *tmpOut = nullptr;       // [Hkv, capacity, R, D]
  uint16_t *output = nullptr;    // [B*Q, Hq, D], bits of the query type
  float *lse = nullptr;          // [B*Q, Hq] when the config returns it
};

/// Empty when `buffers` fit `config` (sizes, missing operands, context
/// lengths, the page ids a run reads); otherwise what is wrong. Every
/// executor of a decode program checks its buffers with this.
std::string checkHostBuffers(const DecodeConfig &config,
                             const HostBuffers &buffers);

/// One memref operand of buildDecodeModule's @pa_decode on caller buffers.
struct DecodeOperand {
  const char *name;
  const void *data;
  llvm::SmallVector<int64_t, 5> sizes;
  int64_t elementBytes;
  bool readOnly; // an input of the decode
  /// Element strides; empty: row-major (a query may have another row
  /// stride, an nhd / hnd cache another page stride).
  llvm::SmallVector<int64_t, 5> strides = {};

  /// The strides: `strides`, or the row-major strides of `sizes`.
  llvm::SmallVector<int64_t, 5> effectiveStrides() const;
  /// Elements from the first to one past the last element (the extent of
  /// the memory it reads); 0 when it has none.
  int64_t spanElements() const;
};

/// The memref operands of @pa_decode for `buffers`, in argument order.
llvm::SmallVector<DecodeOperand, 16> decodeOperands(const DecodeConfig &config,
                                                    const HostBuffers &buffers);

/// Builds the module a HostProgram of `config` lowers, in `context` (null
/// with `error` on failure): buildDecodeModule, or another module with the
/// same `@pa_decode` signature (e.g. a tensor program after
/// one-shot-bufferize).
using DecodeModuleBuilder = llvm::function_ref<OwningOpRef<ModuleOp>(
    MLIRContext &context, const DecodeConfig &config, std::string &error)>;

class HostProgram {
public:
  /// Compiles `config`; on failure returns failure with `error` holding the
  /// verifier's, the pipeline's or the JIT's message. `build` makes the
  /// module; its `@pa_decode` must take the memref types of
  /// decodeOperandTypes(config) (the query and the caches also row-major,
  /// as a tensor program's are), which is checked.
  static FailureOr<std::unique_ptr<HostProgram>>
  compile(const DecodeConfig &config, std::string &error,
          DecodeModuleBuilder build = buildDecodeModule);

  ~HostProgram();
  HostProgram(const HostProgram &) = delete;
  HostProgram &operator=(const HostProgram &) = delete;

  /// Runs plan, decode and reduce on `buffers`. Fails (with `error`) only on
  /// buffers that do not fit the configuration; never aborts.
  LogicalResult run(const HostBuffers &buffers, std::string &error) const;

  const DecodeConfig &config() const { return decodeConfig; }
  /// Plan slots of a run with `batch` sequences (HostBuffers::capacity).
  int64_t planCapacity(int64_t batch) const {
    return decodeConfig.planCapacity(batch);
  }

  /// Operands a module takes row-major where decodeOperandTypes has a
  /// run-time stride: run() then takes those operands packed only.
  struct RowMajorOperands {
    bool query = false;  // packed query rows
    bool caches = false; // contiguous nhd / hnd caches
  };

private:
  HostProgram(DecodeConfig config, std::unique_ptr<ExecutionEngine> engine,
              void (*entry)(void **), RowMajorOperands rowMajor);

  DecodeConfig decodeConfig;
  std::unique_ptr<ExecutionEngine> engine;
  /// The packed wrapper of _mlir_ciface_pa_decode, looked up once.
  void (*entry)(void **);
  RowMajorOperands rowMajor;
};

/// The module of `config` after the host pipeline, as text (for inspection
/// and the C API); failure with `error` like HostProgram::compile.
FailureOr<std::string> lowerDecodeToHostText(const DecodeConfig &config,
                                             std::string &error);

/// Parses `text` (a module using the pa dialect and the upstream dialects of
/// its operands) and runs the verifier; failure with the diagnostics.
LogicalResult verifyModuleText(llvm::StringRef text, std::string &error);

} // namespace mlir::pa

#endif // PA_API_HOSTPROGRAM_H
