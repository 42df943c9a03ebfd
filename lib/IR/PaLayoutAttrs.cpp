//===- PaLayoutAttrs.cpp - #pa.mfma_layout --------------------------------===//
//
// The syntax of the MFMA shapes and the checks of the lane mapping: alone
// (MFMALayoutAttr::verify), on a decode kernel against its chip
// (verifyMFMALayoutOn, from the dialect's attribute verifier), and against
// the kernel's pa.tile.qk (verifyEnclosingMFMALayout, from qk's verifier,
// so that it reads only an op that has passed its own checks).
//
//===----------------------------------------------------------------------===//
#include "pa/IR/PaLayoutAttrs.h"
#include "pa/IR/MFMAGeometry.h"
#include "pa/IR/PaOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::pa;

using mfma::kLaneGroups;
using mfma::kLoadBytes;
/// Every instruction of the mapping is 16 x 16 (M x N); only K varies.
static constexpr int64_t kShapeMN = mfma::kBlock;

ParseResult mlir::pa::parseMFMAShape(AsmParser &parser, int64_t &k) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t, 3> dims;
  if (parser.parseDimensionList(dims, /*allowDynamic=*/false,
                                /*withTrailingX=*/false))
    return failure();
  if (dims.size() != 3 || dims[0] != kShapeMN || dims[1] != kShapeMN)
    return parser.emitError(loc, "expected an MFMA shape 16x16xK");
  k = dims[2];
  return success();
}

void mlir::pa::printMFMAShape(AsmPrinter &printer, int64_t k) {
  printer << kShapeMN << 'x' << kShapeMN << 'x' << k;
}

LogicalResult
MFMALayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t qkK, int64_t pvK, int64_t mTiles,
                       int64_t waveTokens, int64_t qkChunks) {
  if (pvK != 16 && pvK != 32)
    return emitError() << "pv must be 16x16x16 (bf16) or 16x16x32 (fp8), got "
                          "16x16x"
                       << pvK;
  bool fp8 = pvK == 32;
  if (fp8 ? qkK != 32 && qkK != 128 : qkK != 16)
    return emitError() << "qk must be "
                       << (fp8 ? "16x16x32 or 16x16x128 with fp8 operands "
                                 "(pv = 16x16x32)"
                               : "16x16x16 with bf16 operands (pv = 16x16x16)")
                       << ", got 16x16x" << qkK;
  if (mTiles != 1 && mTiles != 2)
    return emitError() << "m_tiles must be 1 or 2 (row groups of 16 or 32 "
                          "rows), got "
                       << mTiles;
  if (waveTokens != mfma::kQuarterTokens)
    return emitError() << "wave_tokens must be " << mfma::kQuarterTokens
                       << " (4 waves share a 256-token tile), got "
                       << waveTokens;
  if (qkChunks < 1)
    return emitError() << "qk_chunks must be at least 1, got " << qkChunks;
  return success();
}

LogicalResult mlir::pa::verifyMFMALayoutOn(Operation *kernel,
                                           MFMALayoutAttr layout) {
  auto fail = [&]() {
    return kernel->emitError() << "'" << kMFMALayoutAttrName << "' ";
  };
  // Without a pa.target yet (pa-set-target adds it) only the chip's rules
  // wait: the verifier runs again on the module that has one.
  std::optional<ChipInfo> chip = findTargetChip(kernel);
  if (chip && chip->vendor != Vendor::AMD)
    return fail() << "is a lane mapping of AMD chips; the module's target is "
                  << chip->name;
  if (chip && layout.getQkK() == 128 && !chip->hasF8F6F4Mfma)
    return fail() << "qk = 16x16x128 needs v_mfma_f32_16x16x128_f8f6f4, "
                     "which "
                  << chip->name << " does not have";

  bool hasLoadQuery = false, hasQK = false;
  kernel->walk([&](Operation *op) {
    hasLoadQuery |= isa<TileLoadQueryOp>(op);
    hasQK |= isa<TileQKOp>(op);
  });
  if (!hasLoadQuery || !hasQK)
    return fail() << "belongs on a decode kernel (one with "
                     "pa.tile.load_query and pa.tile.qk)";
  return success();
}

LogicalResult mlir::pa::verifyEnclosingMFMALayout(TileQKOp qk) {
  MFMALayoutAttr layout;
  for (Operation *scope = qk->getParentOp(); scope && !layout;
       scope = scope->getParentOp())
    layout = scope->getAttrOfType<MFMALayoutAttr>(kMFMALayoutAttrName);
  if (!layout)
    return success();
  auto fail = [&]() {
    return qk.emitOpError()
           << "does not fit the kernel's '" << kMFMALayoutAttrName << "': ";
  };
  // qk's own verifier passed: the query tile is a static [M, D] f32 memref.
  MemRefType tileType = qk.getQueryTile().getType();
  int64_t rows = tileType.getDimSize(0), headDim = tileType.getDimSize(1);
  if (layout.getMTiles() * kShapeMN != rows)
    return fail() << "it has " << layout.getMTiles()
                  << " M-tile(s) of 16 rows, the row group has " << rows
                  << " rows";
  ComputeType compute = qk.getCompute();
  bool fp8 = compute == ComputeType::fp8;
  if ((layout.getPvK() == 32) != fp8)
    return fail() << "it has pv = 16x16x" << layout.getPvK()
                  << ", the kernel computes in "
                  << stringifyComputeType(compute) << " (pv = 16x16x"
                  << (fp8 ? 32 : 16) << ")";
  if (layout.getQkK() == 128 && headDim % 128 != 0)
    return fail() << "qk = 16x16x128 needs a head dim that is a multiple of "
                     "128, got "
                  << headDim;
  // Caches of other element types are pa-to-mfma's to refuse.
  Type kvType = qk.getKeyCache().getType().getElementType();
  if (!isa<FloatType>(kvType) || (kvType.getIntOrFloatBitWidth() != 8 &&
                                  kvType.getIntOrFloatBitWidth() != 16))
    return success();
  int64_t pack = kLoadBytes / (kvType.getIntOrFloatBitWidth() / 8);
  int64_t chunks = llvm::divideCeil(headDim, kLaneGroups * pack);
  if (layout.getQkChunks() != chunks)
    return fail() << "it has qk_chunks = " << layout.getQkChunks()
                  << ", the head dim " << headDim << " of " << kvType
                  << " takes " << chunks << " (16-byte loads of 4 lane groups)";
  return success();
}
