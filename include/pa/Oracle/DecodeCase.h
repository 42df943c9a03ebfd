//===- DecodeCase.h - One paged-attention decode problem --------*- C++ -*-===//
//
// The operands of the spec's decode, as raw buffers that can be handed to a
// compiled kernel unchanged, plus the one place that knows the cache layouts:
//   packed K          [N, Hkv, D/x, P, x]
//   plain V           [N, Hkv, D, P]
//   transposed V      [N, Hkv, P/x, D, x]
//   nhd K and V       [N, P, Hkv, D]
//   hnd K and V       [N, Hkv, P, D]
//   per-token scales  [N, Hkv, P]
// with x = 16 bytes / element size (16 for fp8, 8 for bf16).
//
//===----------------------------------------------------------------------===//
#ifndef PA_ORACLE_DECODECASE_H
#define PA_ORACLE_DECODECASE_H

#include "pa/Oracle/Codecs.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pa::oracle {

enum class VLayout { Plain, Transposed };
// Packed: K packed, V by VLayout; Nhd / Hnd: K and V alike.
enum class CacheLayout { Packed, Nhd, Hnd };
enum class ScaleMode { None, PerTensor, PerToken };

const char *vLayoutName(VLayout layout);       // "plain", "transposed"
bool parseVLayout(const std::string &name, VLayout &layout);
const char *cacheLayoutName(CacheLayout layout); // "packed", "nhd", "hnd"
bool parseCacheLayout(const std::string &name, CacheLayout &layout);
const char *scaleModeName(ScaleMode mode);     // "none", "per_tensor", "per_token"
bool parseScaleMode(const std::string &name, ScaleMode &mode);

// x: elements in one 16-byte vector of the packed layouts.
int packWidth(ScalarType kvType);

struct CacheGeometry {
  int64_t numPages = 0;
  int64_t numKvHeads = 0;
  int64_t headDim = 0;
  int64_t pageSize = 0;
  int64_t packWidth = 0;
  int64_t elementCount() const {
    return numPages * numKvHeads * headDim * pageSize;
  }
};

// Element (not byte) offsets of cache element (page, kvHead, slot, d).
int64_t packedKeyIndex(const CacheGeometry &g, int64_t page, int64_t kvHead,
                       int64_t slot, int64_t d);
int64_t valueIndex(const CacheGeometry &g, VLayout layout, int64_t page,
                   int64_t kvHead, int64_t slot, int64_t d);
// nhd [N, P, Hkv, D] and hnd [N, Hkv, P, D] (K and V alike).
int64_t unpackedIndex(const CacheGeometry &g, CacheLayout layout, int64_t page,
                      int64_t kvHead, int64_t slot, int64_t d);
int64_t perTokenScaleIndex(const CacheGeometry &g, int64_t page,
                           int64_t kvHead, int64_t slot);

// Little-endian element access in a byte buffer of `byteSize`-byte elements.
uint32_t readElementBits(const std::vector<uint8_t> &bytes, int byteSize,
                         int64_t index);
void writeElementBits(std::vector<uint8_t> &bytes, int byteSize,
                      int64_t index, uint32_t bits);

// Shape, dtypes and semantics of a decode problem: everything but its data.
// Shared by DecodeCase and the generator's CaseConfig.
struct DecodeShape {
  int64_t batch = 1;         // B
  int64_t queryLen = 1;      // Q, MTP positions per sequence
  int64_t numQueryHeads = 8; // Hq
  int64_t numKvHeads = 1;    // Hkv; G = Hq / Hkv
  int64_t headDim = 128;     // D
  int64_t pageSize = 16;     // P
  ScalarType kvType = ScalarType::F8E4M3FN; // fp8 flavour or bf16
  ScalarType queryType = ScalarType::BF16;  // bf16 or f16
  VLayout vLayout = VLayout::Plain;          // Packed cacheLayout only
  CacheLayout cacheLayout = CacheLayout::Packed;
  ScaleMode scaleMode = ScaleMode::PerTensor; // applies to K and V alike
  int64_t window = 0;                         // <= 0: no window
  std::optional<double> softmaxScale;         // default D^-0.5
  double logitsSoftCap = 0.0; // > 0: scores become cap * tanh(s / cap)
  bool lse = false; // the program also returns the rows' log-sum-exp
  // ALiBi: score of token t for query head h at MTP position q gains
  // alibiSlopes[h] * (t - (C - Q + q)) after the soft-cap.
  bool alibi = false;
};

struct DecodeCase : DecodeShape {
  int64_t numPages = 0;            // N, pages in the pool
  int64_t maxPagesPerSequence = 0; // block table row length

  std::vector<float> query;        // [B*Q, Hq, D], representable in queryType
  std::vector<uint8_t> keyCache;   // packed K, raw element bits
  std::vector<uint8_t> valueCache; // V in vLayout, raw element bits
  std::vector<int32_t> blockTables;    // [B, maxPagesPerSequence]
  std::vector<int32_t> contextLengths; // [B]
  std::vector<float> keyScales;   // None: empty; PerTensor: [1]; PerToken: [N, Hkv, P]
  std::vector<float> valueScales; // same shape as keyScales
  std::vector<float> sinks;       // empty: no sinks; else [Hq] logits
  std::vector<float> alibiSlopes; // [Hq] with alibi, else empty
  // fp8 compute, as the spec allows it: the products see every query row
  // (position, query head) scaled so that its largest magnitude is this fp8
  // type's largest finite value, rounded to it (RNE) and scaled back.
  // Unset: the exact query.
  std::optional<ScalarType> queryQuantizedPerRow;
};

CacheGeometry cacheGeometry(const DecodeCase &c);
double effectiveSoftmaxScale(const DecodeCase &c);
int64_t groupSize(const DecodeCase &c);    // G
int64_t rowsPerKvHead(const DecodeCase &c); // R = Q * G, row r = q * G + g
// Query and output share the [B*Q, Hq, D] layout.
int64_t queryOutputIndex(const DecodeCase &c, int64_t sequence, int64_t q,
                         int64_t queryHead, int64_t d);

// Where token t of a sequence lives: block_tables[b][t / P], slot t % P.
struct TokenLocation {
  int64_t page = 0;
  int64_t slot = 0;
};
TokenLocation locateToken(const DecodeCase &c, int64_t sequence,
                          int64_t token);

enum class CacheOperand { Key, Value };
// Element offset of (token at `location`, kvHead, d) in the operand's cache,
// in its layout (c.cacheLayout; packed K, or V in c.vLayout, for Packed).
int64_t cacheElementIndex(const DecodeCase &c, CacheOperand operand,
                          TokenLocation location, int64_t kvHead, int64_t d);
// The scale of that token: per-tensor, per-token at [page, h, slot], or 1.
double cacheScale(const DecodeCase &c, CacheOperand operand,
                  TokenLocation location, int64_t kvHead);
// Cache element times its scale: the only place the oracle dequantizes.
double dequantizedElement(const DecodeCase &c, CacheOperand operand,
                          TokenLocation location, int64_t kvHead, int64_t d);

// Elements of the query and of the output ([B*Q, Hq, D]).
int64_t queryElementCount(const DecodeCase &c);
// Elements of each of keyScales / valueScales for c.scaleMode (0, 1, N*Hkv*P).
int64_t scaleElementCount(const DecodeCase &c);

// Round every query value to c.queryType (RNE), as the kernel will see it.
void roundQueryToDtype(DecodeCase &c);
// The query as c.queryType bits, [B*Q, Hq, D], for handing to a kernel.
std::vector<uint16_t> encodeQuery(const DecodeCase &c);

// Dimensions, dtypes, layout divisibility, window and softmax scale: what
// must hold before buffers can be sized or indexed. False with a message.
bool validateShape(const DecodeCase &c, std::string &error);
// validateShape, buffer sizes, the page ids each sequence uses, and that the
// query is representable in its dtype. False with a message.
bool validateCase(const DecodeCase &c, std::string &error);

} // namespace pa::oracle

#endif // PA_ORACLE_DECODECASE_H
