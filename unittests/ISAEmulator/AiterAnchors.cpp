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
// the kernarg segment follows the code objects. Their caches and per-token
// scales are the spec's packed K, transposed V and [N, Hkv, P].
//
// Pass criterion: every output element within 4x the spec's fp8 tolerance
// of the exact function and at most 5% of them beyond 1x. aiter's fp8
// numerics (query and probabilities quantized for the products) are not
// held to our spec: measured, the worst element is 1.1x-3.0x the spec's
// tolerance and 0.05%-2.8% of the elements are beyond 1x; an executor bug
// shows as errors of orders of magnitude (a wrong scale layout gave 6000x,
// a wrong buffer range check NaN). Their caches and per-token
// scales are the spec's packed K, transposed V and [N, Hkv, P].
//
//   PAISAAiter [--anchors DIR] [--counts]
//   PAISAAiter --compare   dynamic counts and issue-model estimates of
//                          aiter's kernels and pa-mlir's code objects on the
//                          same work (docs/performance.md's table)
//
// Exits 77 (CTest: skipped) with a message when the anchors are absent.
//
//===----------------------------------------------------------------------===//
#include "../Numerics/MatrixDriver.h"

#include "pa/API/EmulatedProgram.h"
#include "pa/API/ISAExecutedProgram.h"
#include "pa/ISAEmulator/ISAEmulator.h"
#include "pa/ISAEmulator/IssueModel.h"
#include "pa/Oracle/CaseGen.h"
#include "pa/Oracle/Codecs.h"
#include "pa/Oracle/Reference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace pa;

namespace {

struct KernelCase {
  const char *file;
  int64_t queryLen;
};

// The configuration aiter's two kernels and ours share: D 128, GQA 8 (16
// query heads over 2 KV heads), fp8 KV with per-token scales, page 16,
// transposed V, bf16 query.
oracle::CaseConfig sharedConfiguration(oracle::ScalarType fp8, int64_t batch,
                                       int64_t queryLen) {
  oracle::CaseConfig config;
  config.batch = batch;
  config.queryLen = queryLen;
  config.numKvHeads = 2;
  config.numQueryHeads = 16;
  config.headDim = 128;
  config.pageSize = 16;
  config.kvType = fp8;
  config.queryType = oracle::ScalarType::BF16;
  config.vLayout = oracle::VLayout::Transposed;
  config.scaleMode = oracle::ScaleMode::PerToken;
  return config;
}

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
                Hkv = c.numKvHeads, D = c.headDim, P = c.pageSize;
  std::vector<uint16_t> query(c.query.size());
  for (size_t i = 0; i < query.size(); ++i)
    query[i] = uint16_t(
        oracle::encodeScalar(oracle::ScalarType::BF16, c.query[i],
                             oracle::Overflow::Saturate));
  // Per-token scales: the anchors' snapshot reads them as [N, Hkv, P],
  // our layout (with aiter's newer test's [Hkv, N * P] the outputs are off
  // by the unwritten slots' scales: checked).
  const std::vector<float> &kScale = c.keyScales, &vScale = c.valueScales;
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

/// One row of the side-by-side table: a launch's counts per 256-token tile
/// of one (sequence, KV head) and its issue-model device time per tile
/// (estimate with fullDevice: independent of the small grid of the case).
void printRow(const char *chip, int64_t q, const std::string &who,
              const isa::Stats &s, double tiles, double seconds,
              const char *bound) {
  auto per = [&](uint64_t v) { return double(v) / tiles; };
  std::printf("| %s | %lld | %s | %.0f | %.0f | %.0f | %.1f (%.0f passes) | "
              "%.1f | %.1f | %.0f | %.1f | %.1f | %.2f (%s) |\n",
              chip, (long long)q, who.c_str(), per(s.waveInstructions),
              per(s.salu + s.smem + s.branch), per(s.valu), per(s.mfma),
              per(s.mfmaPasses), per(s.lds), per(s.vmemLoad),
              per(s.vmemBytesLoaded), per(s.waitcnt), per(s.barrier),
              seconds * 1e9 / tiles, bound);
}

/// aiter's kernel and pa-mlir's program on one case per chip and query
/// length: B 2, Hkv 2, GQA 8, D 128, P 16, 2048 tokens per sequence, fp8
/// per-token KV, transposed V.
int compare(const std::string &anchors) {
  std::printf("| chip | Q | kernel | wave instr | scalar | VALU | MFMA | LDS "
              "instr | VMEM loads | bytes loaded | waitcnt | barriers | "
              "device ns per tile (bound) |\n|---|---|---|---|---|---|---|---|---|---"
              "|---|---|---|\n");
  int failures = 0;
  for (const char *chip : {"gfx942", "gfx950"}) {
    oracle::ScalarType fp8 = std::string(chip) == "gfx942"
                                 ? oracle::ScalarType::F8E4M3FNUZ
                                 : oracle::ScalarType::F8E4M3FN;
    isa::ChipModel model = isa::chipModel(chip);
    for (int64_t q : {int64_t(1), int64_t(4)}) {
      oracle::CaseConfig config = sharedConfiguration(fp8, 2, q);
      config.contextLengths.assign(2, 2048);
      config.seed = 7;
      oracle::DecodeCase c;
      std::string error;
      if (!oracle::generateCase(config, c, error)) {
        std::printf("case generation: %s\n", error.c_str());
        return 1;
      }
      makeUnwrittenSlotsFinite(c);
      double tiles = double(c.batch * c.numKvHeads * 2048 / 256);
      // aiter.
      std::string file = std::string(anchors) + "/" + chip + "/" +
                         (q == 1 ? "pa_bf16_pertokenFp8_gqa8_2tg_4w"
                                 : "pa_bf16_pertokenFp8_gqa8_1tg_4w_mtp_msk1") +
                         ".co";
      std::string bytes;
      std::unique_ptr<isa::CodeObject> object;
      if (isa::readCodeObjectFile(file, bytes))
        object = isa::CodeObject::load(bytes, error);
      std::vector<uint16_t> output;
      isa::Stats aiterStats;
      if (!object || !runAiter(*object->kernels()[0], c, output, aiterStats,
                               error)) {
        std::printf("aiter %s Q=%lld: %s\n", chip, (long long)q,
                    error.c_str());
        ++failures;
      } else {
        isa::Estimate e = isa::estimate(aiterStats, model, true);
        printRow(chip, q, "aiter", aiterStats, tiles, e.seconds, e.bound);
      }
      // pa-mlir: plan, decode and reduce compiled for the same work.
      mlir::pa::DecodeConfig ours = numerics::programConfigFor(
          c, false, chip, std::nullopt, std::nullopt);
      auto program = mlir::pa::ISAExecutedProgram::compile(ours, error);
      if (mlir::failed(program)) {
        std::printf("pa-mlir %s Q=%lld: %s\n", chip, (long long)q,
                    error.c_str());
        ++failures;
        continue;
      }
      std::map<std::string, isa::Stats> perKernel;
      numerics::ComparisonOptions comparison = numerics::comparisonFor(
          ours, fp8, mlir::pa::kDefaultFp8Residual);
      numerics::CaseResult result = numerics::runAndCompare(
          ours,
          [&](const mlir::pa::HostBuffers &buffers, std::string &message) {
            return (*program)->run(buffers, message, &perKernel);
          },
          c, nullptr, comparison);
      if (!result.passed) {
        std::printf("pa-mlir %s Q=%lld: %s\n", chip, (long long)q,
                    result.failure.c_str());
        ++failures;
      }
      // The same case on the MLIR-level emulator: the two executors must
      // agree (a disagreement is a bug in one of them).
      auto emulated = mlir::pa::EmulatedProgram::compile(ours, error);
      if (mlir::succeeded(emulated)) {
        numerics::CaseResult mlirResult = numerics::runAndCompare(
            ours,
            [&](const mlir::pa::HostBuffers &buffers, std::string &message) {
              return (*emulated)->run(buffers, message);
            },
            c, nullptr, comparison);
        std::printf("pa-mlir %s Q=%lld: executor output %.3g / partials "
                    "%.3g of tolerance, MLIR-level emulator %.3g / %.3g%s\n",
                    chip, (long long)q, result.output.ratio,
                    result.partials.ratio, mlirResult.output.ratio,
                    mlirResult.partials.ratio,
                    mlirResult.passed ? "" : (" (" + mlirResult.failure + ")")
                                                 .c_str());
      }
      isa::Stats total;
      double totalSeconds = 0;
      for (const char *kernel : {"pa_plan", "pa_decode", "pa_reduce"}) {
        auto it = perKernel.find(kernel);
        if (it == perKernel.end())
          continue;
        isa::Estimate e = isa::estimate(it->second, model, true);
        printRow(chip, q, std::string("pa-mlir ") + kernel, it->second, tiles,
                 e.seconds, e.bound);
        total += it->second;
        totalSeconds += e.seconds;
      }
      printRow(chip, q, "pa-mlir total", total, tiles, totalSeconds, "sum");
    }
  }
  return failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  std::string anchors = PA_AITER_ANCHOR_DIR;
  bool counts = false, compareMode = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--anchors") && i + 1 < argc)
      anchors = argv[++i];
    else if (!std::strcmp(argv[i], "--counts"))
      counts = true;
    else if (!std::strcmp(argv[i], "--compare"))
      compareMode = true;
    else {
      std::printf("usage: PAISAAiter [--anchors DIR] [--counts] "
                  "[--compare]\n");
      return 2;
    }
  }
  std::string probe;
  if (!isa::readCodeObjectFile(anchors + "/gfx942/pa_bf16_pertokenFp8_gqa8_2tg_4w.co",
                probe)) {
    std::printf("skipped: aiter's code objects are not in %s (the anchors "
                "live outside the repository, in ../shared/anchors)\n",
                anchors.c_str());
    return 77;
  }
  if (compareMode)
    return compare(anchors);
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
      if (!isa::readCodeObjectFile(path, bytes)) {
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
        oracle::CaseConfig config = sharedConfiguration(
            fp8, int64_t(lengthSets[set].size()), kc.queryLen);
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
        size_t outside = 0;
        for (size_t i = 0; i < reference.size(); ++i) {
          double got = oracle::decodeScalar(oracle::ScalarType::BF16,
                                            output[i]);
          outside += !worst.note(got, reference[i], tolerance,
                                 oracle::outputRoundingSlack(
                                     oracle::ScalarType::BF16, reference[i]));
        }
        bool ok = worst.ratio <= 4.0 && outside * 20 <= reference.size();
        if (outside)
          std::printf("    %zu of %zu elements beyond the spec's tolerance\n",
                      outside, reference.size());
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
