//===- TiledDecode.h - the tiled decode kernel both GPU backends take -*- C++ -*-===//
//
// The contract between pa-tile (+ pa-stage-page-ids) and the GPU backends
// (pa-to-mfma, pa-to-nvvm): the structure of a decode workgroup program
// that both lower, checked in one place. docs/pipeline.md ("The tiled IR
// contract") states the rules.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TRANSFORMS_TILEDDECODE_H
#define PA_TRANSFORMS_TILEDDECODE_H

#include "pa/IR/PaOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::pa {

/// The tile ops of one decode kernel, in the structure pa-tile makes.
struct TiledDecode {
  TileLoadQueryOp loadQuery;
  TileInitSoftmaxOp initSoftmax;
  scf::ForOp tileLoop;
  TileQKOp qk;
  TileAlibiOp alibi; // null without ALiBi
  TileSoftmaxOp softmax;
  TilePVOp pv;
  TileStorePartialsOp storePartials;
};

/// Receives the first rule `kernel` breaks: the op it concerns and what
/// the rule says (starting with the pass name given to matchTiledDecode).
using ContractViolation =
    function_ref<void(Operation *at, const llvm::Twine &message)>;

/// Matches the tile ops of `kernel` against the contract:
///   - exactly one load_query, init_softmax, qk, softmax, pv and
///     store_partials, at most one alibi;
///   - qk, [alibi,] softmax, pv directly in one scf.for (the tile loop), in
///     that order, on one tile (one tile start; qk and pv on the same page
///     ids); the tile loop carries no values;
///   - load_query, init_softmax, the tile loop and store_partials in one
///     block, in that order;
///   - the ops share their tile buffers (query tile, scores, row max, row
///     sum, accumulator), each a workgroup attribution of the kernel used
///     by the tile ops only;
///   - alibi on the qk's scores and KV head, the softmax's rows and tile.
/// On the first rule broken, calls `violation` and fails. `pass` names the
/// backend in the messages.
FailureOr<TiledDecode> matchTiledDecode(gpu::GPUFuncOp kernel,
                                        llvm::StringRef pass,
                                        ContractViolation violation);

/// The tile loop body's ops that qk's page ids and tile start depend on, in
/// order (a backend that reads another tile's K copies them for it), or
/// none where one of them may write memory (a copy would write twice).
std::optional<SmallVector<Operation *>> tileKeyPlaceOps(const TiledDecode &d);

/// Whether every user of `buffer` is one of the decode kernel's tile ops
/// (those a backend replaces: a buffer only they use is theirs to replace).
bool usedByTileOpsOnly(Value buffer);

/// Whether `kernel` holds a pa.tile op (of any kind): a decode kernel, or
/// one a backend has not finished lowering.
bool hasTileOps(gpu::GPUFuncOp kernel);

} // namespace mlir::pa

#endif // PA_TRANSFORMS_TILEDDECODE_H
