//===- AiterAnchors.cpp - aiter's hand-written decode on the executor -----===//
//
// AMD's hand-written paged-attention code objects (aiter, outside the repo
// in ../shared/anchors/aiter-pa; never part of the product) run on the
// instruction-level executor with the oracle's inputs and compared with the
// float64 oracle: a foreign kernel the executor runs correctly is an
// independent check of its semantics. D 128, GQA 8, page 16, fp8 KV with
// per-token scales (the chip's fp8 flavour), bf16 query:
//   pa_bf16_pertokenFp8_gqa8_2tg_4w          query length 1
//   pa_bf16_pertokenFp8_gqa8_1tg_4w_mtp_msk1 query lengths up to 4 (causal)
// Their kernel arguments are aiter's launcher's (csrc/py_itfs_cu/asm_pa.cu:
// 16-byte slots O, Q, K, V, block tables, context lengths, K scales, V
// scales, log2(e)/sqrt(D), block-table stride, KV heads, query / block /
// KV-head strides in bytes, GQA, query-start offsets); grid (Hkv, B), 256
// work items. The anchors' snapshot reads GQA from slot 15 (0xf0) and the
// query starts from slot 16 (0x100) and nothing from slot 14 (their
// s_load offsets), one slot later than the launcher source read here:
// the kernarg segment follows the code objects. Its caches are the spec's packed K and transposed V; its
// per-token scales are [Hkv, N * P] (ours [N, Hkv, P]).
//
//   PAISAAiter [--anchors DIR] [--counts]
//
// Exits 77 (CTest: skipped) with a message when the anchors are absent.
//
//===----------------------------------------------------------------------===//
#include "pa/ISAEmulator/ISAEmulator.h"
#include "pa/Oracle/CaseGen.h"
#include "pa/Oracle/Codecs.h"
#include "pa/Oracle/Reference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace pa;

namespace {

bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return true;
}

struct KernelCase {
  const char *file;
  int64_t queryLen;
};

/// The oracle's cases fill every cache slot no sequence wrote with garbage
/// (NaN and infinite values and scales included) that a kernel must never
/// let through; aiter's kernels compute whole pages and mask the scores of
/// tokens past the context afterwards, which a NaN survives, as on the
/// hardware (they are written for caches of finite values). Those slots get
/// finite values here: 0 in the caches, 1 as the scale. Nothing a query row
/// sees changes.
void makeUnwrittenSlotsFinite(oracle::DecodeCase &c) {
  oracle::CacheGeometry g = oracle::cacheGeometry(c);
  std::vector<bool> written(size_t(c.numPages * c.pageSize), false);
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t t = 0; t < c.contextLengths[size_t(b)]; ++t) {
      int64_t page =
          c.blockTables[size_t(b * c.maxPagesPerSequence + t / c.pageSize)];
      written[size_t(page * c.pageSize + t % c.pageSize)] = true;
    }
  int bytes = oracle::scalarByteSize(c.kvType);
  for (int64_t page = 0; page < c.numPages; ++page)
    for (int64_t slot = 0; slot < c.pageSize; ++slot) {
      if (written[size_t(page * c.pageSize + slot)])
        continue;
      for (int64_t h = 0; h < c.numKvHeads; ++h) {
        for (int64_t d = 0; d < c.headDim; ++d) {
          oracle::writeElementBits(
              c.keyCache, bytes, oracle::packedKeyIndex(g, page, h, slot, d),
              0);
          oracle::writeElementBits(
              c.valueCache, bytes,
              oracle::valueIndex(g, c.vLayout, page, h, slot, d), 0);
        }
        size_t scale = size_t(oracle::perTokenScaleIndex(g, page, h, slot));
        c.keyScales[scale] = 1.0f;
        c.valueScales[scale] = 1.0f;
      }
    }
}

/// Runs `kernel` on case `c`; the output (bf16 bits) in `output`.
bool runAiter(const isa::Kernel &kernel, const oracle::DecodeCase &c,
              std::vector<uint16_t> &output, isa::Stats &stats,
              std::string &error) {
  isa::Memory memory;
  auto upload = [&](const void *data, size_t bytes) {
    uint64_t address = memory.allocate(bytes);
    if (bytes)
      std::memcpy(memory.find(address, bytes), data, bytes);
    return address;
  };
  const int64_t B = c.batch, Q = c.queryLen, Hq = c.numQueryHeads,
                Hkv = c.numKvHeads, D = c.headDim, P = c.pageSize,
                N = c.numPages;
  std::vector<uint16_t> query(c.query.size());
  for (size_t i = 0; i < query.size(); ++i)
    query[i] = uint16_t(
        oracle::encodeScalar(oracle::ScalarType::BF16, c.query[i],
                             oracle::Overflow::Saturate));
  // Per-token scales [N, Hkv, P] -> aiter's [Hkv, N * P].
  std::vector<float> kScale(size_t(N * Hkv * P)), vScale(kScale.size());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t h = 0; h < Hkv; ++h)
      for (int64_t t = 0; t < P; ++t) {
        size_t ours = size_t((n * Hkv + h) * P + t);
        size_t theirs = size_t(h * N * P + n * P + t);
        kScale[theirs] = c.keyScales[ours];
        vScale[theirs] = c.valueScales[ours];
      }
  std::vector<int32_t> queryStarts(size_t(B + 1));
  for (int64_t b = 0; b <= B; ++b)
    queryStarts[size_t(b)] = int32_t(b * Q);
  size_t outputBytes = size_t(B * Q * Hq * D * 2);
  uint64_t out = memory.allocate(outputBytes);
  std::memset(memory.find(out, outputBytes), 0xff, outputBytes); // NaN
  uint64_t q = upload(query.data(), query.size() * 2);
  uint64_t k = upload(c.keyCache.data(), c.keyCache.size());
  uint64_t v = upload(c.valueCache.data(), c.valueCache.size());
  uint64_t bt = upload(c.blockTables.data(), c.blockTables.size() * 4);
  uint64_t cl = upload(c.contextLengths.data(), c.contextLengths.size() * 4);
  uint64_t ks = upload(kScale.data(), kScale.size() * 4);
  uint64_t vs = upload(vScale.data(), vScale.size() * 4);
  uint64_t qtp = upload(queryStarts.data(), queryStarts.size() * 4);

  isa::LaunchConfig config;
  config.kernarg.assign(17 * 16, 0);
  auto put = [&](size_t slot, const void *value, size_t bytes) {
    std::memcpy(config.kernarg.data() + 16 * slot, value, bytes);
  };
  uint64_t pointers[] = {out, q, k, v, bt, cl, ks, vs};
  for (size_t i = 0; i < 8; ++i)
    put(i, &pointers[i], 8);
  float scale = float(std::log2(std::exp(1.0)) / std::sqrt(double(D)));
  uint32_t scalars[] = {
      uint32_t(c.maxPagesPerSequence), // block-table stride (entries)
      uint32_t(Hkv),
      uint32_t(Hq * D * 2),       // query row stride, bytes
      uint32_t(Hkv * D * P),      // page stride, bytes (fp8)
      uint32_t(D * P),            // KV-head stride, bytes
  };
  put(8, &scale, 4);
  for (size_t i = 0; i < 5; ++i)
    put(9 + i, &scalars[i], 4);
  uint32_t gqa = uint32_t(Hq / Hkv);
  put(15, &gqa, 4);
  put(16, &qtp, 8);
  config.grid = {uint32_t(Hkv), uint32_t(B), 1};
  config.block = {256, 1, 1};
  // Their context-length and scale reads run past the buffers' ranges on
  // purpose (lanes beyond the data): the hardware's 0 for such loads.
  config.strictBufferBounds = false;
  // Reported, not fatal: the MTP kernel reads LDS results behind an
  // s_waitcnt vmcnt(0) + s_barrier without lgkmcnt (it relies on the LDS
  // latency being shorter than the MFMAs before the read).
  config.hazardsFatal = false;
  if (!isa::launch(kernel, memory, config, stats, error))
    return false;
  output.resize(outputBytes / 2);
  std::memcpy(output.data(), memory.find(out, outputBytes), outputBytes);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  std::string anchors = PA_AITER_ANCHOR_DIR;
  bool counts = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--anchors") && i + 1 < argc)
      anchors = argv[++i];
    else if (!std::strcmp(argv[i], "--counts"))
      counts = true;
    else {
      std::printf("usage: PAISAAiter [--anchors DIR] [--counts]\n");
      return 2;
    }
  }
  std::string probe;
  if (!readFile(anchors + "/gfx942/pa_bf16_pertokenFp8_gqa8_2tg_4w.co",
                probe)) {
    std::printf("skipped: aiter's code objects are not in %s (the anchors "
                "live outside the repository, in ../shared/anchors)\n",
                anchors.c_str());
    return 77;
  }
  const KernelCase kernels[] = {
      {"pa_bf16_pertokenFp8_gqa8_2tg_4w", 1},
      {"pa_bf16_pertokenFp8_gqa8_1tg_4w_mtp_msk1", 1},
      {"pa_bf16_pertokenFp8_gqa8_1tg_4w_mtp_msk1", 2},
      {"pa_bf16_pertokenFp8_gqa8_1tg_4w_mtp_msk1", 4},
  };
  // Context lengths: partial and full pages, a long sequence.
  const std::vector<std::vector<int32_t>> lengthSets = {
      {1, 16, 37}, {300, 5, 1029}};
  int failures = 0, passed = 0;
  for (const char *chip : {"gfx942", "gfx950"}) {
    oracle::ScalarType fp8 = std::string(chip) == "gfx942"
                                 ? oracle::ScalarType::F8E4M3FNUZ
                                 : oracle::ScalarType::F8E4M3FN;
    for (const KernelCase &kc : kernels) {
      std::string bytes, error;
      std::string path = anchors + "/" + chip + "/" + kc.file + ".co";
      if (!readFile(path, bytes)) {
        std::printf("FAIL %s: cannot read\n", path.c_str());
        ++failures;
        continue;
      }
      auto object = isa::CodeObject::load(bytes, error);
      if (!object || object->kernels().size() != 1) {
        std::printf("FAIL %s: %s\n", path.c_str(),
                    object ? "not one kernel" : error.c_str());
        ++failures;
        continue;
      }
      const isa::Kernel &kernel = *object->kernels()[0];
      for (size_t set = 0; set < lengthSets.size(); ++set) {
        oracle::CaseConfig config;
        config.batch = int64_t(lengthSets[set].size());
        config.queryLen = kc.queryLen;
        config.numKvHeads = 2;
        config.numQueryHeads = 16;
        config.headDim = 128;
        config.pageSize = 16;
        config.kvType = fp8;
        config.queryType = oracle::ScalarType::BF16;
        config.vLayout = oracle::VLayout::Transposed;
        config.scaleMode = oracle::ScaleMode::PerToken;
        config.contextLengths = lengthSets[set];
        for (int32_t &length : config.contextLengths)
          length = std::max<int32_t>(length, int32_t(kc.queryLen));
        config.seed = 4242 + set;
        oracle::DecodeCase c;
        if (!oracle::generateCase(config, c, error)) {
          std::printf("FAIL case generation: %s\n", error.c_str());
          ++failures;
          continue;
        }
        makeUnwrittenSlotsFinite(c);
        std::vector<uint16_t> output;
        isa::Stats stats;
        std::string name = std::string(chip) + " " + kc.file + " Q=" +
                           std::to_string(kc.queryLen) + " set " +
                           std::to_string(set);
        if (!runAiter(kernel, c, output, stats, error)) {
          std::printf("FAIL %s: %s\n", name.c_str(), error.c_str());
          ++failures;
          continue;
        }
        std::vector<double> reference;
        if (!oracle::referenceDecodeDirect(c, reference, error)) {
          std::printf("FAIL %s: oracle: %s\n", name.c_str(), error.c_str());
          ++failures;
          continue;
        }
        size_t nans = 0;
        for (uint16_t bits : output)
          nans += (bits & 0x7fff) > 0x7f80;
        if (nans)
          std::printf("    %zu of %zu output elements NaN (first at %zu)\n", nans,
                      output.size(),
                      size_t(std::find_if(output.begin(), output.end(),
                                          [](uint16_t b) {
                                            return (b & 0x7fff) > 0x7f80;
                                          }) -
                             output.begin()));
        oracle::Deviation worst;
        double tolerance = oracle::specTolerance(fp8);
        bool ok = true;
        for (size_t i = 0; i < reference.size(); ++i) {
          double got = oracle::decodeScalar(oracle::ScalarType::BF16,
                                            output[i]);
          ok &= worst.note(got, reference[i], tolerance,
                           oracle::outputRoundingSlack(
                               oracle::ScalarType::BF16, reference[i]));
        }
        std::printf("%s %s: worst %.3g of tolerance (got %g, ref %g); %llu "
                    "wave instructions, %.2fs\n",
                    ok ? "ok  " : "FAIL", name.c_str(), worst.ratio, worst.got,
                    worst.ref, (unsigned long long)stats.waveInstructions,
                    stats.seconds);
        if (stats.hazards)
          std::printf("    %llu wait-count hazards, the first: %s\n",
                      (unsigned long long)stats.hazards,
                      stats.firstHazard.c_str());
        if (counts)
          std::printf("    salu %llu smem %llu valu %llu mfma %llu (passes "
                      "%llu) lds %llu vmem-load %llu vmem-store %llu branch "
                      "%llu waitcnt %llu barrier %llu; bytes loaded %llu "
                      "stored %llu lds %llu; %llu workgroups\n",
                      (unsigned long long)stats.salu,
                      (unsigned long long)stats.smem,
                      (unsigned long long)stats.valu,
                      (unsigned long long)stats.mfma,
                      (unsigned long long)stats.mfmaPasses,
                      (unsigned long long)stats.lds,
                      (unsigned long long)stats.vmemLoad,
                      (unsigned long long)stats.vmemStore,
                      (unsigned long long)stats.branch,
                      (unsigned long long)stats.waitcnt,
                      (unsigned long long)stats.barrier,
                      (unsigned long long)stats.vmemBytesLoaded,
                      (unsigned long long)stats.vmemBytesStored,
                      (unsigned long long)stats.ldsBytes,
                      (unsigned long long)stats.workgroups);
        ok ? ++passed : ++failures;
      }
    }
  }
  std::printf("%d passed, %d failed\n", passed, failures);
  return failures ? 1 : 0;
}
