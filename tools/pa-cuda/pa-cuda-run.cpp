//===- pa-cuda-run.cpp - compiled decode on an NVIDIA GPU vs the oracle ---===//
//
//   pa-cuda-run check DIR [--programs N] [--verbose]
//   pa-cuda-run bench DIR [--reps N] [--reserve-sms N]
//   pa-cuda-run tune DIR [--reps N] [--reserve-sms N]
//                                      (DIR/cNN: candidates, pa-tune.sh)
//
// Runs what pa-cuda-gen wrote into DIR, with nothing but the CUDA driver
// (loaded at run time), the float64 oracle and the PARuntime launcher: no
// MLIR. `check` runs every case of DIR/matrix on the GPU (inputs regenerated
// from their seeds, outputs and partials poisoned with NaN first) and
// compares the plan exactly and the partials and output at the spec's
// tolerance with the oracle; then the graph-replay check of DIR/graph. It
// prints one line per program and "N passed, M failed". `bench` times the
// programs of DIR/bench (graph replays, CUDA events, median: a BENCH line
// per shape for the step, plan + decode + reduce, and a LAYER line for
// decode + reduce alone, a layer of a step that plans once) and the
// device-to-device copy ceiling; `tune` times the candidates DIR/cNN (one
// pa-cuda-gen --bench each, at different plan limits) on the same inputs
// (bench/pa-tune.sh turns its TUNE lines into a tuning table). A program
// directory's kernels.cubin (pa-cuda-gen --cubin) is loaded in place of its
// kernels.ptx when present. --reserve-sms N times on all SMs but N
// (SmReservation), the shares still of the whole chip's copy ceiling.
//
//===----------------------------------------------------------------------===//
#include "CountOption.h"

#include "pa-c/Runtime.h"
#include "pa/Oracle/CaseGen.h"
#include "pa/Oracle/Planner.h"
#include "pa/Oracle/ProgramConfig.h"
#include "pa/Oracle/Reference.h"
#include "pa/Oracle/ReplayScript.h"
#include "pa/Oracle/Tally.h"
#include "pa/Oracle/Visibility.h"
#include "pa/Runtime/CudaLauncher.h"
#include "pa/Runtime/DecodeOperands.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

using namespace pa;
using namespace pa::runtime;
using namespace pa::runtime::cuda;

namespace {

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

bool readFile(const std::string &path, std::string &contents) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream text;
  text << in.rdbuf();
  contents = text.str();
  return true;
}

std::vector<std::string> listDirectory(const std::string &path,
                                       const std::string &prefix) {
  std::vector<std::string> names;
  if (DIR *dir = opendir(path.c_str())) {
    while (dirent *entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (name.rfind(prefix, 0) == 0)
        names.push_back(name);
    }
    closedir(dir);
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// One directory pa-cuda-gen wrote: the module and what to run on it.
struct ProgramDir {
  /// kernels.cubin where pa-cuda-gen --cubin wrote one (the driver reads it
  /// by its ELF header, no JIT), else kernels.ptx.
  std::string path, label, image, sidecar;
  /// "interleaved" ([N, 2, ...]) or "halves" ([2, N, ...]): K and V of
  /// every case in one combined cache (DeviceOperands::combine); empty:
  /// two buffers.
  std::string combinedCache;
  int64_t budget = 0, maxPartitions = 0, computeUnits = 0;
  std::vector<std::pair<int64_t, int64_t>> benchShapes;
  std::vector<oracle::CaseConfig> cases;
};

bool readProgramDir(const std::string &path, ProgramDir &p,
                    std::string &error) {
  p.path = path;
  std::string description;
  std::string imageFile = path + "/kernels.cubin";
  if (!std::ifstream(imageFile).good())
    imageFile = path + "/kernels.ptx";
  if (!readFile(imageFile, p.image) ||
      !readFile(path + "/kernels.ptx.json", p.sidecar) ||
      !readFile(path + "/program.txt", description)) {
    error = "cannot read the program in " + path;
    return false;
  }
  std::istringstream lines(description);
  for (std::string line; std::getline(lines, line);) {
    size_t eq = line.find('=');
    if (eq == std::string::npos)
      continue;
    std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "label")
      p.label = value;
    else if (key == "budget")
      p.budget = std::stoll(value);
    else if (key == "max_partitions")
      p.maxPartitions = std::stoll(value);
    else if (key == "combined_cache")
      p.combinedCache = value;
    else if (key == "compute_units")
      p.computeUnits = std::stoll(value);
    else if (key == "bench_shape")
      p.benchShapes.emplace_back(std::stoll(value),
                                 std::stoll(value.substr(value.find(',') + 1)));
  }
  for (const std::string &name : listDirectory(path, "case-")) {
    std::string text;
    oracle::CaseConfig config;
    if (!readFile(path + "/" + name, text) ||
        !oracle::fromJson(text, config, error)) {
      error = path + "/" + name + ": " + error;
      return false;
    }
    p.cases.push_back(config);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Device memory
//===----------------------------------------------------------------------===//

#define CHECK_CU(api, call)                                                    \
  do {                                                                         \
    CUresult result_ = (api).call;                                             \
    if (result_ != CUDA_SUCCESS) {                                             \
      error = describe(api, result_, #call);                                   \
      return false;                                                            \
    }                                                                          \
  } while (0)

/// The buffers of one decode run, by operand name, and their views.
class DeviceOperands {
public:
  explicit DeviceOperands(const DriverApi &api) : api(api) {}
  ~DeviceOperands() {
    for (auto &[name, buffer] : buffers)
      if (!borrowed.count(name))
        api.cuMemFree(buffer.first);
  }

  /// With `inputs`, the input operands are `inputs`' buffers (of the same
  /// sizes; not freed here): the tuning candidates of one configuration,
  /// whose plan limits change only the written operands' sizes, run on one
  /// input set.
  bool allocate(const PaDecodeConfig &config, const DecodeDims &dims,
                std::string &error, const DeviceOperands *inputs = nullptr) {
    for (const DecodeOperand &operand : decodeOperands(config, dims)) {
      // At least one byte: empty operands still get a valid address.
      size_t bytes = size_t(std::max<int64_t>(operand.bytes(), 16));
      CUdeviceptr pointer = 0;
      if (!operand.input)
        written.push_back(operand.name);
      if (inputs && operand.input) {
        if (!inputs->has(operand.name) ||
            inputs->bytes(operand.name) != bytes) {
          error = "operand '" + std::string(operand.name) +
                  "' differs between candidates";
          return false;
        }
        pointer = inputs->pointer(operand.name);
        borrowed.insert(operand.name);
      } else {
        CHECK_CU(api, cuMemAlloc(&pointer, bytes));
      }
      buffers[operand.name] = {pointer, bytes};
      views[operand.name] = rowMajorView(pointer, operand.sizes);
    }
    return true;
  }

  /// K and V as the halves of one combined cache: "interleaved" (each
  /// page's K then its V, [N, 2, ...]: page strides of two pages) or
  /// "halves" (all K pages, then all V pages, [2, N, ...]). One buffer
  /// holds both (key_cache's); uploadCase places the pages. False with
  /// `error` for another mode.
  bool combine(const std::string &mode, std::string &error) {
    if (mode != "interleaved" && mode != "halves") {
      error = "unknown combined cache '" + mode + "'";
      return false;
    }
    MemRefView &key = views.at("key_cache"), &value = views.at("value_cache");
    const size_t half = bytes("key_cache");
    pageBytes = key.sizes[0] ? half / size_t(key.sizes[0]) : half;
    interleaved = mode == "interleaved";
    CUdeviceptr both = 0;
    CHECK_CU(api, cuMemAlloc(&both, 2 * half));
    for (const char *name : {"key_cache", "value_cache"})
      if (!borrowed.count(name))
        api.cuMemFree(pointer(name));
    buffers["key_cache"] = {both, 2 * half};
    buffers["value_cache"] = {both + (interleaved ? pageBytes : half), half};
    borrowed.insert("value_cache"); // freed with key_cache's
    key.data = both;
    value.data = buffers["value_cache"].first;
    if (interleaved) {
      key.strides[0] *= 2;
      value.strides[0] *= 2;
    }
    return true;
  }
  /// combine()'s [N, 2, ...] cache: pages of `pageBytes` interleaved.
  bool interleaved = false;
  size_t pageBytes = 0;

  CUdeviceptr pointer(const std::string &name) const {
    return buffers.at(name).first;
  }
  size_t bytes(const std::string &name) const {
    return buffers.at(name).second;
  }
  bool has(const std::string &name) const { return buffers.count(name) != 0; }

  /// Copies `bytes` bytes from `data` into the start of operand `name`.
  bool upload(const std::string &name, const void *data, size_t bytes,
              std::string &error) {
    if (bytes == 0)
      return true;
    if (bytes > this->bytes(name)) {
      error = "operand '" + name + "' is too small for its data";
      return false;
    }
    CHECK_CU(api, cuMemcpyHtoD(pointer(name), data, bytes));
    return true;
  }
  template <typename T>
  bool download(const std::string &name, std::vector<T> &out,
                std::string &error) const {
    out.resize(views.at(name).sizes.empty() ? 0 : elementCount(name));
    if (out.empty())
      return true;
    CHECK_CU(api, cuMemcpyDtoH(out.data(), pointer(name), out.size() * sizeof(T)));
    return true;
  }
  size_t elementCount(const std::string &name) const {
    size_t count = 1;
    for (int64_t size : views.at(name).sizes)
      count *= size_t(size);
    return count;
  }

  /// NaN (0xFF bytes: NaN in f32, bf16 and f16; -1 in the plan) in every
  /// output and scratch buffer, so unwritten elements are caught.
  bool poison(CUstream stream, std::string &error) {
    for (const std::string &name : written)
      CHECK_CU(api, cuMemsetD8Async(pointer(name), 0xFF, bytes(name), stream));
    return true;
  }

  OperandViews views;

private:
  const DriverApi &api;
  std::map<std::string, std::pair<CUdeviceptr, size_t>> buffers;
  std::set<std::string> borrowed; // inputs of another DeviceOperands
  std::vector<std::string> written; // the operands a run writes
};

/// The block table re-laid to `width` columns (entries past a row's own
/// columns are 0 and never read): graph replays keep the captured width.
std::vector<int32_t> blockTableOfWidth(const oracle::DecodeCase &c,
                                       int64_t width) {
  std::vector<int32_t> table(size_t(c.batch * width), 0);
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t k = 0; k < std::min(width, c.maxPagesPerSequence); ++k)
      table[size_t(b * width + k)] =
          c.blockTables[size_t(b * c.maxPagesPerSequence + k)];
  return table;
}

/// Uploads every input of `c` (the caches into the first pages of a pool
/// that may be larger, the block table at the views' width).
bool uploadCase(DeviceOperands &d, const oracle::DecodeCase &c,
                std::string &error) {
  std::vector<uint16_t> query = oracle::encodeQuery(c);
  std::vector<int32_t> table =
      blockTableOfWidth(c, d.views.at("block_tables").sizes[1]);
  // An [N, 2, ...] combined cache: each page's K, then its V.
  std::vector<uint8_t> pages;
  if (d.interleaved) {
    pages.resize(2 * c.keyCache.size());
    for (size_t n = 0; n < size_t(c.numPages); ++n) {
      std::copy_n(c.keyCache.begin() + n * d.pageBytes, d.pageBytes,
                  pages.begin() + 2 * n * d.pageBytes);
      std::copy_n(c.valueCache.begin() + n * d.pageBytes, d.pageBytes,
                  pages.begin() + (2 * n + 1) * d.pageBytes);
    }
  }
  bool ok =
      d.upload("query", query.data(), query.size() * 2, error) &&
      (d.interleaved
           ? d.upload("key_cache", pages.data(), pages.size(), error)
           : d.upload("key_cache", c.keyCache.data(), c.keyCache.size(),
                      error) &&
                 d.upload("value_cache", c.valueCache.data(),
                          c.valueCache.size(), error)) &&
      d.upload("block_tables", table.data(), table.size() * 4, error) &&
      d.upload("context_lengths", c.contextLengths.data(),
               c.contextLengths.size() * 4, error);
  if (ok && d.has("k_scale"))
    ok = d.upload("k_scale", c.keyScales.data(), c.keyScales.size() * 4,
                  error) &&
         d.upload("v_scale", c.valueScales.data(), c.valueScales.size() * 4,
                  error);
  if (ok && d.has("sinks"))
    ok = d.upload("sinks", c.sinks.data(), c.sinks.size() * 4, error);
  if (ok && d.has("alibi_slopes"))
    ok = d.upload("alibi_slopes", c.alibiSlopes.data(),
                  c.alibiSlopes.size() * 4, error);
  return ok;
}

//===----------------------------------------------------------------------===//
// Comparison with the oracle
//===----------------------------------------------------------------------===//

using oracle::CaseResult;
using oracle::Deviation;
using oracle::lengthsText;
using oracle::MatrixTally;
using oracle::secondsSince;

struct GpuResults {
  std::vector<int32_t> workInfo, reduceInfo;
  std::vector<float> expSums, maxLogits, tmpOut;
  std::vector<uint16_t> output;
  std::vector<float> lse; // [B*Q, Hq] when the program returns it
};

/// Compares one GPU run with the oracle: the plan bit for bit, the partials
/// of every used slot and the output at the spec's tolerance (a -inf
/// reference matched exactly; every output finite).
CaseResult compareWithOracle(const oracle::DecodeCase &c, const ProgramDir &p,
                             const GpuResults &gpu) {
  CaseResult result;
  auto fail = [&](const std::string &why) {
    if (result.failure.empty())
      result.failure = why;
  };
  oracle::PlanRequest request = oracle::planRequestFor(
      c, p.budget, p.maxPartitions, p.computeUnits);
  oracle::WorkPlan plan;
  oracle::PartialResults partials;
  std::vector<double> reference, lseReference;
  std::string error;
  if (!oracle::computeWorkPlan(request, plan, error) ||
      !oracle::computePartials(c, plan, partials, error) ||
      !oracle::referenceDecodeDirect(c, reference, error,
                                     c.lse ? &lseReference : nullptr)) {
    result.failure = "oracle: " + error;
    return result;
  }
  if (plan.workInfo != gpu.workInfo || plan.reduceInfo != gpu.reduceInfo) {
    for (size_t i = 0; i < plan.workInfo.size() && i < gpu.workInfo.size(); ++i)
      if (plan.workInfo[i] != gpu.workInfo[i]) {
        fail("work_info[" + std::to_string(i / 4) + "][" +
             std::to_string(i % 4) + "] = " + std::to_string(gpu.workInfo[i]) +
             ", oracle " + std::to_string(plan.workInfo[i]));
        break;
      }
    fail("reduce_info differs from the oracle's plan");
    return result;
  }
  const double tolerance = oracle::specTolerance(c.kvType);
  const int64_t d = c.headDim, rows = partials.rows;
  for (size_t i = 0; i < reference.size(); ++i) {
    double got = oracle::decodeScalar(c.queryType, gpu.output[i]);
    if (!result.output.note(
            got, reference[i], tolerance,
            oracle::outputRoundingSlack(c.queryType, reference[i])))
      fail("output[" + std::to_string(i / (c.numQueryHeads * d)) + "][" +
           std::to_string(i / d % c.numQueryHeads) + "][" +
           std::to_string(i % d) + "] = " + std::to_string(got) + ", oracle " +
           std::to_string(reference[i]));
  }
  // The log-sum-exp is the reducer's M and den: held to the partials'
  // tolerance.
  for (size_t i = 0; i < gpu.lse.size(); ++i)
    if (!result.partials.note(gpu.lse[i], lseReference[i], tolerance))
      fail("lse[" + std::to_string(int64_t(i) / c.numQueryHeads) + "][" +
           std::to_string(int64_t(i) % c.numQueryHeads) + "] = " +
           std::to_string(gpu.lse[i]) + ", oracle " +
           std::to_string(lseReference[i]));
  for (int64_t seq = 0; seq < c.batch; ++seq)
    for (int64_t slot = plan.firstSlot(seq),
                 end = slot + plan.partitionCount(seq);
         slot < end; ++slot)
      for (int64_t h = 0; h < c.numKvHeads; ++h)
        for (int64_t r = 0; r < rows; ++r) {
          size_t at = size_t(partials.rowIndex(h, slot, r));
          auto check = [&](const char *name, double got, double ref) {
            if (!result.partials.note(got, ref, tolerance))
              fail(std::string(name) + "[" + std::to_string(h) + "][" +
                   std::to_string(slot) + "][" + std::to_string(r) +
                   "] = " + std::to_string(got) + ", oracle " +
                   std::to_string(ref));
          };
          check("max_logits", gpu.maxLogits[at], partials.maxLogits[at]);
          check("exp_sums", gpu.expSums[at], partials.expSums[at]);
          for (int64_t e = 0; e < d; ++e)
            check("tmp_out", gpu.tmpOut[at * d + e],
                  partials.tmpOut[at * d + e]);
        }
  result.passed = result.failure.empty();
  return result;
}

//===----------------------------------------------------------------------===//
// Running one case
//===----------------------------------------------------------------------===//

class SmReservation;

/// The GPU side, serialized across worker threads.
struct Gpu {
  const DriverApi *api = nullptr;
  CUstream stream = nullptr;
  std::mutex mutex;
  /// bench / tune: what holds --reserve-sms' SMs while replays are timed.
  SmReservation *reservation = nullptr;
};

int64_t capacityOf(const ProgramDir &p, int64_t batch, int64_t kvHeads) {
  return oracle::planCapacity(batch, kvHeads, p.budget, p.maxPartitions);
}

bool downloadResults(const DeviceOperands &d, GpuResults &r,
                     std::string &error) {
  return d.download("work_info", r.workInfo, error) &&
         d.download("reduce_info", r.reduceInfo, error) &&
         d.download("exp_sums", r.expSums, error) &&
         d.download("max_logits", r.maxLogits, error) &&
         d.download("tmp_out", r.tmpOut, error) &&
         d.download("output", r.output, error) &&
         (!d.has("lse") || d.download("lse", r.lse, error));
}

/// Allocates, uploads, poisons, launches plan -> decode -> reduce, waits
/// and downloads.
bool runOnGpu(Gpu &gpu, const CudaProgram &program, const ProgramDir &p,
              const oracle::DecodeCase &c, GpuResults &results,
              std::string &error) {
  std::lock_guard<std::mutex> lock(gpu.mutex);
  const DriverApi &api = *gpu.api;
  DecodeDims dims{c.batch, c.numPages, c.maxPagesPerSequence,
                  capacityOf(p, c.batch, c.numKvHeads)};
  DeviceOperands d(api);
  if (!d.allocate(oracle::programConfigOf(c, !c.sinks.empty()), dims,
                  error) ||
      (!p.combinedCache.empty() && !d.combine(p.combinedCache, error)) ||
      !uploadCase(d, c, error) || !d.poison(gpu.stream, error) ||
      !program.enqueue(gpu.stream, d.views, error))
    return false;
  CHECK_CU(api, cuStreamSynchronize(gpu.stream));
  return downloadResults(d, results, error);
}

/// Every case of one program: case generation and the oracle on worker
/// threads, the GPU runs one at a time.
void checkProgram(Gpu &gpu, const ProgramDir &p, MatrixTally &summary,
                  bool verbose) {
  std::string error;
  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<CudaProgram> program =
      CudaProgram::load(*gpu.api, p.image, p.sidecar, error);
  if (!program) {
    summary.failed += int(p.cases.size());
    std::printf("FAIL %s %s: load: %s\n", p.path.c_str(), p.label.c_str(),
                error.c_str());
    return;
  }
  std::vector<CaseResult> results(p.cases.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    std::string threadError;
    makeContextCurrent(0, threadError);
    for (size_t i; (i = next++) < p.cases.size();) {
      CaseResult &result = results[i];
      oracle::DecodeCase c;
      GpuResults gpuResults;
      std::string caseError;
      if (!oracle::generateCase(p.cases[i], c, caseError)) {
        result.failure = "case generation: " + caseError;
        continue;
      }
      if (!runOnGpu(gpu, *program, p, c, gpuResults, caseError)) {
        result.failure = "GPU run: " + caseError;
        continue;
      }
      result = compareWithOracle(c, p, gpuResults);
    }
  };
  std::vector<std::thread> threads;
  unsigned count = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  for (unsigned t = 0; t < count; ++t)
    threads.emplace_back(worker);
  for (std::thread &thread : threads)
    thread.join();

  int failures = 0;
  double worst = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    std::string name =
        p.label + " lengths=" + lengthsText(p.cases[i].contextLengths);
    worst = std::max({worst, results[i].output.ratio, results[i].partials.ratio});
    if (!summary.record(results[i], name)) {
      ++failures;
    } else if (verbose) {
      std::printf("  %s: output %.3g, partials %.3g of tolerance\n",
                  name.c_str(), results[i].output.ratio,
                  results[i].partials.ratio);
    }
  }
  std::printf("%s %s %s: %zu cases, worst error %.3f of tolerance, %.2fs\n",
              failures ? "FAIL" : "ok  ", p.path.c_str(), p.label.c_str(),
              p.cases.size(), worst, secondsSince(start));
  std::fflush(stdout);
}

//===----------------------------------------------------------------------===//
// Graph replay
//===----------------------------------------------------------------------===//

/// One program captured once (plan -> decode -> reduce in a CUDA graph) and
/// replayed with new inputs in the same buffers: new queries / KV / scales /
/// sinks, all-zero lengths, other lengths, then in-place changes of only
/// the sinks, only the scales, only the query, only the lengths. Each
/// replay is compared with the oracle; replaying the first inputs again
/// must reproduce the first output bit for bit.
void checkGraphReplay(Gpu &gpu, const ProgramDir &p, MatrixTally &summary) {
  std::string error;
  const DriverApi &api = *gpu.api;
  std::unique_ptr<CudaProgram> program =
      CudaProgram::load(api, p.image, p.sidecar, error);
  if (!program) {
    summary.failed += 1;
    std::printf("FAIL graph replay: load: %s\n", error.c_str());
    return;
  }
  oracle::CaseConfig base = p.cases.front();
  auto generated = [&](std::vector<int32_t> lengths, uint64_t seed,
                       bool poisonInvisible) {
    oracle::CaseConfig config = base;
    config.batch = int64_t(lengths.size());
    config.contextLengths = std::move(lengths);
    config.seed = seed;
    config.garbageSeed = seed + 1;
    config.poisonInvisible = poisonInvisible;
    config.spareTableColumns = 0;
    oracle::DecodeCase c;
    std::string why;
    if (!oracle::generateCase(config, c, why))
      std::printf("FAIL graph replay: case generation: %s\n", why.c_str());
    return c;
  };

  // Every replay has 3 sequences; buffers sized for the largest case.
  constexpr int64_t kBatch = 3, kMaxLength = 4099;
  const oracle::DecodeShape &s = base;
  int64_t tableWidth = (kMaxLength + s.pageSize - 1) / s.pageSize;
  DecodeDims dims{kBatch, 3 * tableWidth + 64, tableWidth,
                  capacityOf(p, kBatch, s.numKvHeads)};
  DeviceOperands d(api);
  std::unique_ptr<CudaGraph> graph;
  if (!d.allocate(oracle::programConfigOf(s, base.sinks), dims, error) ||
      !(graph = CudaGraph::capture(
            api, gpu.stream,
            [&](CUstream stream, std::string &e) {
              return program->enqueue(stream, d.views, e);
            },
            error))) {
    summary.failed += 1;
    std::printf("FAIL graph replay: capture: %s\n", error.c_str());
    return;
  }

  int steps = 0, stepFailures = 0;
  auto replay = [&](const char *what, const oracle::DecodeCase &c,
                    std::vector<uint16_t> *output) {
    ++steps;
    GpuResults results;
    std::string why;
    bool ran = c.numPages <= dims.numPages && uploadCase(d, c, why) &&
               d.poison(gpu.stream, why) && graph->launch(gpu.stream, why) &&
               api.cuStreamSynchronize(gpu.stream) == CUDA_SUCCESS &&
               downloadResults(d, results, why);
    CaseResult result;
    if (!ran)
      result.failure = "replay failed: " + (why.empty() ? "pool too small" : why);
    else
      result = compareWithOracle(c, p, results);
    if (!summary.tally(result, std::string("graph replay: ") + what)) {
      ++stepFailures;
      std::printf("FAIL graph replay, %s: %s\n", what, result.failure.c_str());
    }
    if (output)
      *output = results.output;
    return result.passed;
  };

  oracle::ReplayHooks hooks;
  hooks.generate = generated;
  hooks.run = replay;
  hooks.fail = [&](const std::string &why) {
    ++stepFailures;
    summary.failed += 1;
    std::printf("FAIL graph replay: %s\n", why.c_str());
  };
  hooks.fixedBatch = true;
  oracle::replayNewInputs(hooks);
  oracle::replayInPlace(hooks);
  std::printf("%s graph replay: %d replays of one captured graph\n",
              stepFailures ? "FAIL" : "ok  ", steps);
}

//===----------------------------------------------------------------------===//
// Benchmark
//===----------------------------------------------------------------------===//

/// xorshift64*: fast random bits for benchmark data (values, not a test).
struct FastRandom {
  uint64_t state;
  uint64_t next() {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 2685821657736338717ull;
  }
};

/// Random KV elements of magnitude below 2 (no NaN / inf patterns).
void fillKV(std::vector<uint8_t> &bytes, int64_t elementBytes, uint64_t seed) {
  FastRandom random{seed | 1};
  for (size_t i = 0; i < bytes.size(); i += 8) {
    uint64_t bits = random.next();
    if (elementBytes == 1)
      bits &= 0xBFBFBFBFBFBFBFBFull; // e4m3fn: exponent < 8, i.e. |x| < 2
    else
      bits = (bits & 0x807F807F807F807Full) | 0x3F003F003F003F00ull;
    std::memcpy(bytes.data() + i, &bits, std::min<size_t>(8, bytes.size() - i));
  }
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

/// Median time of `reps` launches of `launch(i)` on `stream`, timed with
/// events around each; warm-up launches first.
bool timeLaunches(const DriverApi &api, CUstream stream, int reps,
                  const std::function<bool(int, std::string &)> &launch,
                  double &microseconds, std::string &error) {
  for (int i = 0; i < 5; ++i)
    if (!launch(i, error))
      return false;
  std::vector<CUevent> events(size_t(reps) + 1);
  for (CUevent &event : events)
    CHECK_CU(api, cuEventCreate(&event, 0));
  CHECK_CU(api, cuEventRecord(events[0], stream));
  for (int i = 0; i < reps; ++i) {
    if (!launch(i, error))
      return false;
    CHECK_CU(api, cuEventRecord(events[size_t(i) + 1], stream));
  }
  CHECK_CU(api, cuStreamSynchronize(stream));
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    float ms = 0;
    CHECK_CU(api, cuEventElapsedTime(&ms, events[size_t(i)], events[size_t(i) + 1]));
    times.push_back(ms * 1e3);
  }
  for (CUevent event : events)
    api.cuEventDestroy(event);
  microseconds = median(times);
  return true;
}

/// Device-to-device copy bandwidth (bytes read + written per second).
bool copyCeiling(const DriverApi &api, CUstream stream, double &bytesPerSecond,
                 std::string &error) {
  const size_t bytes = size_t(2) << 30;
  CUdeviceptr source = 0, target = 0;
  CHECK_CU(api, cuMemAlloc(&source, bytes));
  CHECK_CU(api, cuMemAlloc(&target, bytes));
  CHECK_CU(api, cuMemsetD8Async(source, 0x5A, bytes, stream));
  double us = 0;
  bool ok = timeLaunches(
      api, stream, 20,
      [&](int, std::string &e) {
        CUresult r = api.cuMemcpyDtoDAsync(target, source, bytes, stream);
        if (r != CUDA_SUCCESS)
          e = describe(api, r, "cuMemcpyDtoDAsync");
        return r == CUDA_SUCCESS;
      },
      us, error);
  api.cuMemFree(source);
  api.cuMemFree(target);
  bytesPerSecond = 2.0 * double(bytes) / (us * 1e-6);
  return ok;
}

/// One workgroup per SM that holds the SM's shared memory and sleeps until
/// told to stop (or `limit` ns of %globaltimer pass): while it lives no
/// other workgroup fits on those SMs.
constexpr const char *kReserveSmPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.extern .shared .align 16 .b8 pa_reserve_sm_shared[];
.visible .entry pa_reserve_sm(.param .u64 stop, .param .u64 started,
                              .param .u64 limit) {
  .reg .pred %p;
  .reg .b32 %r;
  .reg .b64 %stop, %started, %limit, %t0, %t;
  ld.param.u64 %stop, [stop];
  ld.param.u64 %started, [started];
  ld.param.u64 %limit, [limit];
  cvta.to.global.u64 %stop, %stop;
  cvta.to.global.u64 %started, %started;
  mov.u32 %r, %tid.x;
  setp.eq.u32 %p, %r, 0;
  @%p atom.global.add.u32 %r, [%started], 1;
  mov.u64 %t0, %globaltimer;
wait:
  nanosleep.u32 4000;
  ld.relaxed.gpu.global.u32 %r, [%stop];
  setp.ne.u32 %p, %r, 0;
  @%p bra done;
  mov.u64 %t, %globaltimer;
  sub.u64 %t, %t, %t0;
  setp.lt.u64 %p, %t, %limit;
  @%p bra wait;
done:
  ret;
}
)";

/// --reserve-sms N: keeps N SMs out of the benchmark's reach while it
/// times, so that the others each carry a larger share of the DRAM
/// bandwidth. On an H100 (132 SMs, 3.02 TB/s) with 38 reserved, each of
/// the 94 left has the share an H200's SM has of its 4.27 TB/s: the
/// per-SM demand of the H200 (bytes in flight, issue) on a chip that is
/// at hand (docs/performance.md, thirty-first session). The reserving
/// workgroups live only while replays are timed (hold / release): a
/// cuMemFree or a module load waits for every kernel of the device.
class SmReservation {
public:
  /// Loads the reserving kernel for `count` SMs (0: hold does nothing).
  bool init(const DriverApi &api, int count, std::string &error) {
    this->api = &api;
    this->count = count;
    if (count == 0)
      return true;
    CUdevice device = 0;
    CHECK_CU(api, cuDeviceGet(&device, 0));
    // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: more than half
    // an SM's, so one workgroup per SM.
    CHECK_CU(api, cuDeviceGetAttribute(&sharedPerBlock, 97, device));
    CHECK_CU(api, cuModuleLoadDataEx(&module, kReserveSmPtx, 0, nullptr,
                                     nullptr));
    CHECK_CU(api, cuModuleGetFunction(&function, module, "pa_reserve_sm"));
    CHECK_CU(api,
             cuFuncSetAttribute(function,
                                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                sharedPerBlock));
    CHECK_CU(api, cuMemAlloc(&flags, 8));
    CHECK_CU(api, cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    std::printf("reserving %d SMs while timing (one workgroup of %d bytes of "
                "shared memory each)\n",
                count, sharedPerBlock);
    return true;
  }

  /// Starts the reserving workgroups and waits until all are resident.
  bool hold(std::string &error) {
    if (count == 0)
      return true;
    CHECK_CU(*api, cuMemsetD32Async(flags, 0, 2, stream));
    CUdeviceptr stop = flags, started = flags + 4;
    unsigned long long limit = 600ull * 1000000000ull; // 10 minutes at most
    void *params[] = {&stop, &started, &limit};
    CHECK_CU(*api, cuLaunchKernel(function, unsigned(count), 1, 1, 32, 1, 1,
                                  unsigned(sharedPerBlock), stream, params,
                                  nullptr));
    held = true;
    for (auto begin = std::chrono::steady_clock::now();;) {
      unsigned resident = 0;
      CHECK_CU(*api, cuMemcpyDtoH(&resident, started, 4));
      if (int(resident) == count)
        return true;
      if (secondsSince(begin) > 10) {
        error = "only " + std::to_string(resident) + " of " +
                std::to_string(count) + " SM-reserving workgroups started";
        return false;
      }
    }
  }

  /// Stops the reserving workgroups and waits for them to end.
  bool release(std::string &error) {
    if (!held)
      return true;
    held = false;
    unsigned one = 1;
    CHECK_CU(*api, cuMemcpyHtoD(flags, &one, 4));
    CHECK_CU(*api, cuStreamSynchronize(stream));
    return true;
  }

  ~SmReservation() {
    std::string ignored;
    release(ignored);
    if (stream)
      api->cuStreamDestroy(stream);
    if (flags)
      api->cuMemFree(flags);
    if (module)
      api->cuModuleUnload(module);
  }

private:
  const DriverApi *api = nullptr;
  int count = 0, sharedPerBlock = 0;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  CUstream stream = nullptr;
  CUdeviceptr flags = 0; // [stop, started]
  bool held = false;
};

/// The KV bytes' rate (bytes per second) of `kvBytes` in `us` microseconds.
double kvRate(double kvBytes, double us) { return kvBytes / (us * 1e-6); }

/// A benchmark line: `kind` (BENCH, LAYER), the program and shape, the time
/// and the KV bytes' rate, also as a share of the copy ceiling.
void printRate(const char *kind, const std::string &label, int64_t batch,
               int64_t length, double us, double kvBytes, double ceiling,
               const char *note) {
  double bytesPerSecond = kvRate(kvBytes, us);
  std::printf("%s pa-mlir %-18s B=%-4lld L=%-7lld %10.1f us %7.3f TB/s "
              "%6.1f%% of copy%s\n",
              kind, label.c_str(), (long long)batch, (long long)length, us,
              bytesPerSecond / 1e12, 100.0 * bytesPerSecond / ceiling, note);
  std::fflush(stdout);
}

/// Times benchmark programs at each of the first one's (B, L) shapes: two
/// input sets (KV of several times the L2 each), a graph captured per set
/// and program, the replays alternating between the sets. One program: the
/// benchmark (a BENCH line per shape). Several (`tune`: one configuration
/// compiled with different plan limits, the candidates): all on the same
/// inputs, one after the other, and the first once more at the end (a TUNE
/// line each; the first's two times show the run's noise).
bool benchPrograms(Gpu &gpu, const std::vector<const ProgramDir *> &candidates,
                   int reps, double ceiling, std::string &error) {
  const DriverApi &api = *gpu.api;
  std::vector<std::unique_ptr<CudaProgram>> programs;
  for (const ProgramDir *p : candidates) {
    programs.push_back(CudaProgram::load(api, p->image, p->sidecar, error));
    if (!programs.back())
      return false;
  }
  const ProgramDir &first = *candidates.front();
  const oracle::CaseConfig &shape = first.cases.front();
  PaDecodeConfig config = oracle::programConfigOf(shape, false);
  const int kvBytesPerElement = oracle::scalarByteSize(shape.kvType);
  const bool tuning = candidates.size() > 1;
  // The benchmark's LAYER lines launch the decode and reduce by their
  // places in the program.
  if (!tuning && !checkDecodeSequence(programs[0]->manifest(), error))
    return false;
  using Graphs = std::vector<std::unique_ptr<CudaGraph>>;
  // A graph of `program`'s launches of `kernels` on `operands`, added to
  // `graphs`: the step (every kernel) or the layer (decode and reduce).
  auto capture = [&](const CudaProgram &program, const DeviceOperands &operands,
                     KernelMask kernels, Graphs &graphs) {
    graphs.push_back(CudaGraph::capture(
        api, gpu.stream,
        [&](CUstream stream, std::string &e) {
          return program.enqueue(stream, operands.views, e, kernels);
        },
        error));
    return graphs.back() != nullptr;
  };
  // The median time of `reps` replays alternating between the input sets'
  // graphs.
  auto timeReplays = [&](const Graphs &graphs, double &us) {
    if (!gpu.reservation->hold(error))
      return false;
    bool timed = timeLaunches(
        api, gpu.stream, reps,
        [&](int i, std::string &e) {
          return graphs[size_t(i) % graphs.size()]->launch(gpu.stream, e);
        },
        us, error);
    return gpu.reservation->release(error) && timed;
  };
  for (auto [batch, length] : first.benchShapes) {
    int64_t pagesPerSequence = (length + shape.pageSize - 1) / shape.pageSize;
    auto dimsOf = [&](const ProgramDir &p) {
      return DecodeDims{batch, batch * pagesPerSequence, pagesPerSequence,
                        capacityOf(p, batch, shape.numKvHeads)};
    };
    constexpr int kSets = 2;
    // operands[c][set], graphs[c][set] of candidate c.
    std::vector<std::vector<std::unique_ptr<DeviceOperands>>> operands(
        candidates.size());
    std::vector<Graphs> graphs(candidates.size());
    for (int set = 0; set < kSets; ++set) {
      for (size_t c = 0; c < candidates.size(); ++c) {
        auto d = std::make_unique<DeviceOperands>(api);
        if (!d->allocate(config, dimsOf(*candidates[c]), error,
                         c ? operands[0][size_t(set)].get() : nullptr))
          return false;
        operands[c].push_back(std::move(d));
      }
      DeviceOperands &inputs = *operands[0][size_t(set)];
      std::vector<uint8_t> kv(inputs.bytes("key_cache"));
      fillKV(kv, kvBytesPerElement, 11 + set);
      std::vector<uint8_t> query(inputs.bytes("query"));
      fillKV(query, 2, 21 + set);
      std::vector<int32_t> table(size_t(batch * pagesPerSequence));
      for (size_t i = 0; i < table.size(); ++i)
        table[i] = int32_t(i);
      FastRandom shuffle{uint64_t(31 + set)};
      for (size_t i = table.size(); i-- > 1;)
        std::swap(table[i], table[shuffle.next() % (i + 1)]);
      std::vector<int32_t> lengths(static_cast<size_t>(batch),
                                   static_cast<int32_t>(length));
      float one = 1.0f;
      if (!inputs.upload("key_cache", kv.data(), kv.size(), error) ||
          !inputs.upload("value_cache", kv.data(), kv.size(), error) ||
          !inputs.upload("query", query.data(), query.size(), error) ||
          !inputs.upload("block_tables", table.data(), table.size() * 4,
                         error) ||
          !inputs.upload("context_lengths", lengths.data(),
                         lengths.size() * 4, error))
        return false;
      if (inputs.has("k_scale") &&
          (!inputs.upload("k_scale", &one, 4, error) ||
           !inputs.upload("v_scale", &one, 4, error)))
        return false;
      for (size_t c = 0; c < candidates.size(); ++c)
        if (!capture(*programs[c], *operands[c][size_t(set)], kAllKernels,
                     graphs[c]))
          return false;
    }
    // The KV bytes the spec's function needs: every visible token's K and V.
    int64_t visible =
        oracle::visibleToAnyRow(length, shape.queryLen, shape.window).size();
    double kvBytes = 2.0 * double(batch) * double(shape.numKvHeads) *
                     double(visible) * double(shape.headDim) *
                     double(kvBytesPerElement);
    std::vector<size_t> order(candidates.size());
    for (size_t c = 0; c < order.size(); ++c)
      order[c] = c;
    if (tuning)
      order.push_back(0);
    for (size_t c : order) {
      double us = 0;
      if (!timeReplays(graphs[c], us))
        return false;
      const ProgramDir &p = *candidates[c];
      if (tuning) {
        std::printf("TUNE %s B=%lld L=%lld budget=%lld max_partitions=%lld "
                    "%.2f us %.1f%% of copy\n",
                    p.path.c_str(), (long long)batch, (long long)length,
                    (long long)p.budget, (long long)p.maxPartitions, us,
                    100.0 * kvRate(kvBytes, us) / ceiling);
        std::fflush(stdout);
      } else {
        printRate("BENCH", p.label, batch, length, us, kvBytes, ceiling, "");
      }
    }
    if (tuning)
      continue;
    // A serving step plans once and runs decode + reduce per layer: the
    // layer's time, replaying the work the step's graphs above planned
    // into the same buffers. Step minus layer is what the plan adds to a
    // one-layer step.
    Graphs layerGraphs;
    for (int set = 0; set < kSets; ++set)
      if (!capture(*programs[0], *operands[0][size_t(set)],
                   PA_KERNEL_DECODE | PA_KERNEL_REDUCE, layerGraphs))
        return false;
    double us = 0;
    if (!timeReplays(layerGraphs, us))
      return false;
    printRate("LAYER", first.label, batch, length, us, kvBytes, ceiling,
              " (decode + reduce, planned once per step)");
  }
  return true;
}

std::vector<ProgramDir> readPrograms(const std::string &dir,
                                     const std::string &prefix, size_t limit,
                                     bool &ok) {
  std::vector<ProgramDir> programs;
  for (const std::string &name : listDirectory(dir, prefix)) {
    if (programs.size() >= limit)
      break;
    ProgramDir p;
    std::string error;
    if (!readProgramDir(dir + "/" + name, p, error)) {
      std::printf("FAIL %s\n", error.c_str());
      ok = false;
      continue;
    }
    programs.push_back(std::move(p));
  }
  return programs;
}

int usage(FILE *to = stderr) {
  std::fprintf(to, "usage: pa-cuda-run check DIR [--programs N] "
                   "[--verbose]\n       pa-cuda-run bench DIR [--reps N] "
                   "[--reserve-sms N]\n"
                   "       pa-cuda-run tune DIR [--reps N] [--reserve-sms N]\n");
  return to == stderr ? 2 : 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 2 && (!std::strcmp(argv[1], "--help") ||
                    !std::strcmp(argv[1], "-h")))
    return usage(stdout);
  if (argc < 3)
    return usage();
  std::string mode = argv[1], dir = argv[2];
  if (mode != "check" && mode != "bench" && mode != "tune") {
    std::fprintf(stderr, "pa-cuda-run: unknown command '%s'\n", mode.c_str());
    return usage();
  }
  size_t limit = SIZE_MAX;
  int reps = 50, reserveSms = 0;
  bool verbose = false;
  for (int i = 3; i < argc; ++i) {
    bool counted = !std::strcmp(argv[i], "--programs") ||
                   !std::strcmp(argv[i], "--reps") ||
                   !std::strcmp(argv[i], "--reserve-sms");
    if (counted) {
      std::optional<long long> value =
          i + 1 < argc ? positiveCount(argv[i + 1]) : std::nullopt;
      if (!value) {
        std::fprintf(stderr, "pa-cuda-run: %s takes a whole number >= 1\n",
                     argv[i]);
        return usage();
      }
      if (!std::strcmp(argv[i], "--programs"))
        limit = size_t(*value);
      else if (!std::strcmp(argv[i], "--reserve-sms"))
        reserveSms = int(std::min<long long>(*value, 1 << 16));
      else
        reps = int(std::min<long long>(*value, 1 << 20));
      ++i;
    } else if (!std::strcmp(argv[i], "--verbose")) {
      verbose = true;
    } else {
      std::fprintf(stderr, "pa-cuda-run: unknown option '%s'\n", argv[i]);
      return usage();
    }
  }

  if (reserveSms > 0 && mode == "check") {
    std::fprintf(stderr, "pa-cuda-run: --reserve-sms applies to bench and "
                         "tune, not check\n");
    return usage();
  }

  // What pa-cuda-gen wrote, read before the GPU is opened: a directory
  // without programs (a wrong path, or pa-cuda-gen's --only matching
  // nothing) is an error, never "0 passed, 0 failed".
  bool ok = true;
  std::vector<ProgramDir> programs, graphs;
  std::vector<std::vector<ProgramDir>> byCandidate; // tune: DIR/cNN
  std::string expected;
  if (mode == "check") {
    programs = readPrograms(dir + "/matrix", "p", limit, ok);
    graphs = readPrograms(dir + "/graph", "g", 1, ok);
    expected = dir + "/matrix/pNNN or " + dir + "/graph/gNNN";
  } else if (mode == "bench") {
    programs = readPrograms(dir + "/bench", "b", limit, ok);
    expected = dir + "/bench/bNNN";
  } else {
    for (const std::string &name : listDirectory(dir, "c")) {
      byCandidate.push_back(
          readPrograms(dir + "/" + name + "/bench", "b", limit, ok));
      if (!byCandidate.back().empty())
        programs.push_back(byCandidate.back().front());
    }
    expected = dir + "/cNN/bench/bNNN";
  }
  if (programs.empty() && graphs.empty()) {
    std::printf("FAIL no programs in %s (pa-cuda-gen writes %s)\n",
                dir.c_str(), expected.c_str());
    return 1;
  }

  Gpu gpu;
  std::string error;
  gpu.api = makeContextCurrent(0, error);
  if (!gpu.api) {
    std::printf("no GPU: %s\n", error.c_str());
    return 1;
  }
  if (CUresult r = gpu.api->cuStreamCreate(&gpu.stream, CU_STREAM_NON_BLOCKING);
      r != CUDA_SUCCESS) {
    std::printf("%s\n", describe(*gpu.api, r, "cuStreamCreate").c_str());
    return 1;
  }
  char name[256] = {0};
  CUdevice device = 0;
  gpu.api->cuDeviceGet(&device, 0);
  gpu.api->cuDeviceGetName(name, sizeof name, device);
  int sms = 0;
  gpu.api->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                device);
  std::printf("device: %s, %d SMs\n", name, sms);

  auto start = std::chrono::steady_clock::now();
  if (mode == "check") {
    MatrixTally summary;
    for (const ProgramDir &p : programs)
      checkProgram(gpu, p, summary, verbose);
    for (const ProgramDir &p : graphs)
      checkGraphReplay(gpu, p, summary);
    std::printf("\n%d configurations (%zu programs + graph replay) in %.1fs\n",
                summary.passed + summary.failed, programs.size(),
                secondsSince(start));
    summary.printWorst();
    std::printf("%d passed, %d failed\n", summary.passed, summary.failed);
    return ok && summary.failed == 0 ? 0 : 1;
  }
  double ceiling = 0;
  if (!copyCeiling(*gpu.api, gpu.stream, ceiling, error)) {
    std::printf("copy ceiling: %s\n", error.c_str());
    return 1;
  }
  SmReservation reservation;
  if (reserveSms >= sms) {
    std::printf("FAIL --reserve-sms %d leaves none of the %d SMs\n",
                reserveSms, sms);
    return 1;
  }
  if (!reservation.init(*gpu.api, reserveSms, error)) {
    std::printf("FAIL reserving SMs: %s\n", error.c_str());
    return 1;
  }
  gpu.reservation = &reservation;
  if (mode == "bench") {
    std::printf("BENCH copy ceiling %.3f TB/s (device-to-device, read + "
                "write)\n",
                ceiling / 1e12);
    for (const ProgramDir &p : programs)
      if (!benchPrograms(gpu, {&p}, reps, ceiling, error)) {
        std::printf("FAIL bench %s: %s\n", p.label.c_str(), error.c_str());
        ok = false;
      }
    return ok ? 0 : 1;
  }
  // tune: candidate NN of benchmark program MMM is DIR/cNN/bench/bMMM.
  std::printf("TUNE copy ceiling %.3f TB/s\n", ceiling / 1e12);
  for (size_t i = 0; !byCandidate.empty() && i < byCandidate[0].size(); ++i) {
    std::vector<const ProgramDir *> candidates;
    for (const std::vector<ProgramDir> &candidate : byCandidate)
      if (i < candidate.size() && candidate[i].label == byCandidate[0][i].label)
        candidates.push_back(&candidate[i]);
    if (!benchPrograms(gpu, candidates, reps, ceiling, error)) {
      std::printf("FAIL tune %s: %s\n", byCandidate[0][i].label.c_str(),
                  error.c_str());
      ok = false;
    }
  }
  return ok ? 0 : 1;
}
