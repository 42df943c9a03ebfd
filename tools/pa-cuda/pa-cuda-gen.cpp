//===- pa-cuda-gen.cpp - PTX programs and cases for the CUDA runner -------===//
//
//   pa-cuda-gen OUTDIR [--matrix] [--bench] [--programs N] [--only LABEL]
//               [--budget N] [--max-partitions N] [--key-ahead N]
//               [--key-ahead-in-registers] [--key-ahead-bulk] [--l2-prefetch]
//               [--l2-prefetch-min-tiles N] [--value-stage N]
//               [--value-ahead N] [--sms N] [--cubin]
//
// Compiles, on a machine without a GPU, everything pa-cuda-run needs on the
// GPU machine (which has no MLIR): for each static configuration a
// directory with the PTX module and its metadata sidecar
// (nvidiaBackend().compile for sm_90a), program.txt (label, plan budget, max
// partitions, combined cache) and the cases to run as oracle CaseConfig JSON
// (shape, features, context lengths, seeds), so that the runner regenerates
// every input bit for bit.
//
//   OUTDIR/matrix/pNNN/   the numerics matrix (the host matrix's programs
//                         with NVIDIA's fp8 e4m3fn) and graph replay
//   OUTDIR/bench/bNN/     the benchmark shapes (D = 256, Hq = 16, Hkv = 2),
//                         at the plan limits of the tuning table
//                         (tuning/plans.json), if it has the program, or
//                         --budget N / --max-partitions N (a candidate of
//                         bench/pa-tune.sh)
//   --key-ahead N         pa-to-nvvm{key-ahead=N} for every program
//   --key-ahead-in-registers  pa-to-nvvm{key-ahead-in-registers} for every
//                         program (key-ahead's chunks in registers)
//   --key-ahead-bulk      pa-to-nvvm{key-ahead-bulk} for every program
//                         (key-ahead's blocks by bulk copies)
//   --l2-prefetch         pa-to-nvvm{l2-prefetch} for every program
//                         (V and the next tile's K pages into L2 ahead)
//   --l2-prefetch-min-tiles N  pa-to-nvvm{l2-prefetch-min-tiles=N} for
//                         every program (only partitions of N tiles or
//                         more prefetch)
//   --value-stage N       pa-to-nvvm{value-stage=N} for every program
//   --value-ahead N       pa-to-nvvm{value-ahead=N} for every program
//                         (without these: each program's tuning-table
//                         entry gives them, else the defaults, as compile
//                         takes them)
//   --sms N               the benchmark programs for a chip of N of the
//                         132 SMs (an H200 proxy: pa-cuda-run --reserve-sms
//                         132-N on an H100): every program's plan limits
//                         (the table's, the defaults or --budget's and
//                         --max-partitions') scaled by N / 132 (the
//                         default max partitions to N), and the batches
//                         above 8 of its shapes alike (as many workgroups
//                         per SM)
//   --cubin               also kernels.cubin, assembled by ptxas here (an
//                         error without ptxas), which pa-cuda-run loads
//                         instead of the PTX: no JIT on the GPU machine
//                         (the driver's JIT of the whole matrix took over
//                         5 minutes of a fresh machine's 10-minute call)
//
//===----------------------------------------------------------------------===//
#include "CountOption.h"
#include "OracleComparison.h"
#include "ProgramMatrix.h"

#include "pa/API/Compile.h"
#include "pa/API/DecodeConfig.h"
#include "pa/IR/Chip.h"
#include "pa/Oracle/CaseGen.h"
#include "pa/Oracle/Planner.h"
#include "pa/Oracle/ReplayScript.h"
#include "pa/Target/NVIDIA/PTX.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <random>

using namespace pa;
using oracle::ScalarType;

namespace {

constexpr llvm::StringLiteral kChip = mlir::pa::kDefaultNVIDIAChip;

/// One static configuration (the numerics matrix's program description) and
/// the cases to run on it.
struct Program {
  numerics::ProgramSpec spec;
  std::vector<oracle::CaseConfig> cases;
  /// Benchmark (batch, context length) pairs; empty for matrix programs.
  std::vector<std::pair<int64_t, int64_t>> benchShapes;
};

/// Batches of 200 and 1100 sequences (lengths 0 to 700 and 0 to 300): the
/// NVIDIA plan kernel's scans across its 4 warps (up to 2 and 9 sequences
/// per thread) and its work-row search past the sequences it copies to
/// shared memory (kSharedSequences, PlanKernel.cpp). The other matrices'
/// batches (at most 8 sequences) stay inside one warp's; their plans are
/// sequential.
numerics::ProgramSpec planBatchProgram(std::mt19937_64 &random) {
  numerics::ProgramSpec p;
  p.label = "plan-batch";
  p.shape.headDim = 64;
  p.shape.numQueryHeads = 4;
  for (auto [batch, longest] : {std::pair{200, 700}, std::pair{1100, 300}}) {
    std::vector<int32_t> set;
    for (int i = 0; i < batch; ++i)
      set.push_back(int32_t(random() % (longest + 1)));
    p.extraLengths.push_back(set);
  }
  return p;
}

/// The numerics matrix for sm_90a: the host and AMD matrices' programs
/// (numerics::programMatrix: the sweep over head dims, page sizes, V
/// layouts, scales, MTP lengths, GQA groups, KV heads, query dtypes,
/// windows, sinks and budgets, the special programs, non-finite inputs,
/// model features and normal-distributed precision cases; then the nhd /
/// hnd layouts and the head dims) with fp8 KV as e4m3fn, and their cases
/// (numerics::lengthSets, numerics::caseConfigFor) from one fixed seed.
/// Last, planBatchProgram.
std::vector<Program> matrixPrograms() {
  std::vector<numerics::ProgramSpec> specs = numerics::programMatrix();
  for (std::vector<numerics::ProgramSpec> more :
       {numerics::layoutPrograms(), numerics::headDimPrograms()})
    specs.insert(specs.end(), more.begin(), more.end());
  std::mt19937_64 lengths(7);
  specs.push_back(planBatchProgram(lengths));
  std::vector<Program> programs;
  for (size_t i = 0; i < specs.size(); ++i) {
    Program p;
    numerics::ProgramSpec &spec = p.spec;
    spec = numerics::forChip(specs[i], kChip.str());
    std::vector<std::vector<int32_t>> sets = numerics::lengthSets(spec, lengths);
    for (size_t set = 0; set < sets.size(); ++set)
      p.cases.push_back(
          numerics::caseConfigFor(spec, i, set, sets[set], lengths));
    programs.push_back(std::move(p));
  }
  return programs;
}

/// The program of the graph-replay check (the host GraphReplayTest's).
Program graphReplayProgram() {
  Program p;
  p.spec.label = "graph-replay";
  p.spec.shape = oracle::replayProgramShape();
  p.spec.sinks = true;
  oracle::CaseConfig config;
  static_cast<oracle::DecodeShape &>(config) = p.spec.shape;
  config.sinks = true;
  p.cases.push_back(config); // the runner sets lengths and seeds
  return p;
}

/// --sms N: the benchmark programs for N SMs (0: the chip's).
int64_t proxySms = 0;

/// `count` (of the whole chip: a plan budget, a batch) scaled from the
/// chip's SMs to --sms's, rounded, at least 1.
int64_t scaledToProxySms(int64_t count) {
  const int64_t units = mlir::pa::lookupChip(kChip)->computeUnits;
  return std::max<int64_t>(1, (count * proxySms + units / 2) / units);
}

/// The benchmark: D = 256, Hq = 16, Hkv = 2, Q in {1, 4}, P in {16, 64},
/// W in {0, 4096}, fp8 e4m3fn (per-tensor scales) and bf16 KV in the packed
/// layout with transposed V; beside them, Q = 1 without a window, the nhd
/// layout (vLLM v1's, FlashInfer's) at P = 16 and at P = 1 (SGLang's token
/// pool). All at the plan limits of the tuning table (tuning/plans.json) or
/// the chip's defaults; `budget` / `maxPartitions` (--budget,
/// --max-partitions: a tuning candidate) take precedence.
std::vector<Program> benchPrograms(std::optional<int64_t> budget,
                                   std::optional<int64_t> maxPartitions) {
  std::vector<Program> programs;
  auto add = [&](ScalarType kv, oracle::CacheLayout layout, int64_t q,
                 int64_t page, int64_t window) {
    Program p;
    oracle::DecodeShape &s = p.spec.shape;
    s.kvType = kv;
    s.headDim = 256;
    s.numQueryHeads = 16;
    s.numKvHeads = 2;
    s.queryLen = q;
    s.pageSize = page;
    s.window = window;
    s.cacheLayout = layout;
    if (layout == oracle::CacheLayout::Packed)
      s.vLayout = oracle::VLayout::Transposed;
    s.scaleMode = kv == ScalarType::BF16 ? oracle::ScaleMode::None
                                         : oracle::ScaleMode::PerTensor;
    // bench/cuda_table.py parses these: KV type, layout (not for packed),
    // Q, P, W.
    p.spec.label = llvm::formatv(
        "{0}{1}-q{2}-p{3}-w{4}", kv == ScalarType::BF16 ? "bf16" : "fp8",
        layout == oracle::CacheLayout::Packed
            ? std::string()
            : "-" + std::string(oracle::cacheLayoutName(layout)),
        q, page, window);
    p.benchShapes = {{32, 8192}, {8, 131072}, {128, 2048}};
    // --sms: as many workgroups per SM as on the whole chip where the
    // batch sets the waves (one partition per sequence and head).
    if (proxySms > 0)
      for (auto &[batch, length] : p.benchShapes)
        if (batch > 8)
          batch = scaledToProxySms(batch);
    p.spec.budget = budget;
    p.spec.maxPartitions = maxPartitions;
    oracle::CaseConfig config;
    static_cast<oracle::DecodeShape &>(config) = s;
    p.cases.push_back(config);
    programs.push_back(p);
  };
  for (ScalarType kv : {ScalarType::F8E4M3FN, ScalarType::BF16})
    for (int64_t q : {1, 4})
      for (int64_t page : {16, 64})
        for (int64_t window : {0, 4096})
          add(kv, oracle::CacheLayout::Packed, q, page, window);
  for (ScalarType kv : {ScalarType::F8E4M3FN, ScalarType::BF16})
    for (int64_t page : {16, 1})
      add(kv, oracle::CacheLayout::Nhd, 1, page, 0);
  return programs;
}

bool writeFile(const llvm::Twine &path, llvm::StringRef contents) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path.str(), ec);
  if (ec) {
    llvm::errs() << "pa-cuda-gen: cannot write " << path << ": "
                 << ec.message() << "\n";
    return false;
  }
  os << contents;
  return true;
}

/// pa-to-nvvm's options of every program (--key-ahead, --value-stage,
/// --value-ahead, --key-ahead-in-registers, --key-ahead-bulk,
/// --l2-prefetch, --l2-prefetch-min-tiles); absent: the
/// tuning table's for the program, as compileDecode takes them
/// (withTunedKernelOptions).
mlir::pa::CompileOptions kernelOptions;
/// --cubin: every program's cubin too (ptxas).
bool emitCubins = false;

/// Compiles `p` for sm_90a into `dir` and writes its description and cases.
bool emitProgram(const Program &p, const std::string &dir, double &seconds) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    llvm::errs() << "pa-cuda-gen: cannot create " << dir << ": "
                 << ec.message() << "\n";
    return false;
  }
  const numerics::ProgramSpec &spec = p.spec;
  mlir::pa::DecodeConfig config = numerics::programConfigFor(
      spec.shape, spec.sinks, kChip.str(), spec.budget, spec.maxPartitions);
  // --sms (benchmark programs): the limits this program has on the whole
  // chip (the table's, --budget's, --max-partitions'), scaled to N SMs.
  const bool proxied = proxySms > 0 && !p.benchShapes.empty();
  if (proxied) {
    config.budget = scaledToProxySms(config.effectiveBudget());
    config.maxPartitions = scaledToProxySms(config.effectiveMaxPartitions());
  }
  auto start = std::chrono::steady_clock::now();
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  std::string error;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::pa::buildDecodeModule(context, config, error);
  std::optional<mlir::pa::KernelImage> compiled;
  mlir::pa::NVIDIACompileOptions options;
  options.chip = kChip.str();
  options.warp = mlir::pa::nvidiaWarpOptions(
      mlir::pa::withTunedKernelOptions(kernelOptions, config));
  options.emitCubin = emitCubins;
  if (module) {
    compiled = mlir::pa::nvidiaBackend().compile(*module, options, error);
  }
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          start)
                .count();
  if (!compiled) {
    llvm::errs() << "pa-cuda-gen: " << spec.label << ": " << error << "\n";
    return false;
  }
  std::string description;
  llvm::raw_string_ostream os(description);
  os << "label=" << spec.label << "\n"
     << "budget=" << config.effectiveBudget() << "\n"
     << "max_partitions=" << config.effectiveMaxPartitions() << "\n"
     << "compute_units="
     << (proxied ? proxySms : mlir::pa::lookupChip(kChip)->computeUnits) << "\n"
     << "key_ahead=" << options.warp.keyAheadBlocks << "\n"
     << "value_stage=" << options.warp.valueStageBlocks << "\n"
     << "value_ahead=" << options.warp.valueAheadBlocks << "\n"
     << "key_ahead_in_registers=" << options.warp.keyAheadInRegisters << "\n"
     << "key_ahead_bulk=" << options.warp.keyAheadBulk << "\n"
     << "l2_prefetch=" << options.warp.l2Prefetch << "\n"
     << "l2_prefetch_min_tiles=" << options.warp.l2PrefetchMinTiles << "\n";
  // bench/pa_tune.py makes no table of such programs: their limits are
  // the smaller chip's.
  if (proxied)
    os << "proxy_sms=" << proxySms << "\n";
  if (spec.combinedCache != numerics::CombinedCache::None)
    os << "combined_cache=" << numerics::combinedCacheName(spec.combinedCache)
       << "\n";
  for (auto [batch, length] : p.benchShapes)
    os << "bench_shape=" << batch << "," << length << "\n";
  // What a tuning table keys this program by (bench/pa_tune.py).
  mlir::pa::TuningKey key = config.tuningKey();
  os << "tuning_key="
     << llvm::formatv("{0}", llvm::json::Value(llvm::json::Object{
                                 {"target", key.target},
                                 {"layout", key.layout},
                                 {"head_dim", key.headDim},
                                 {"rows", key.rows},
                                 {"page_size", key.pageSize},
                                 {"kv_dtype", key.kvType},
                                 {"window", key.window}}))
     << "\n";
  // pa-cuda-run loads a cubin in place of the PTX: without --cubin, one
  // left by an earlier run into `dir` goes.
  std::string cubin = dir + "/kernels.cubin";
  if (!emitCubins)
    if (std::error_code ec = llvm::sys::fs::remove(cubin)) {
      llvm::errs() << "pa-cuda-gen: cannot remove " << cubin << ": "
                   << ec.message() << "\n";
      return false;
    }
  if (!writeFile(dir + "/kernels.ptx", compiled->assembly) ||
      (emitCubins && !writeFile(cubin, compiled->binary)) ||
      !writeFile(dir + "/kernels.ptx.json", compiled->metadataJson) ||
      !writeFile(dir + "/program.txt", description))
    return false;
  for (size_t i = 0; i < p.cases.size(); ++i)
    if (!writeFile(llvm::formatv("{0}/case-{1}.json", dir, i),
                   oracle::toJson(p.cases[i])))
      return false;
  return true;
}

bool emitAll(const std::vector<Program> &programs, const std::string &dir,
             const char *prefix, size_t limit, const std::string &only,
             size_t &emittedCount) {
  bool ok = true;
  for (size_t i = 0; i < programs.size() && i < limit; ++i) {
    if (!only.empty() && programs[i].spec.label.find(only) == std::string::npos)
      continue;
    ++emittedCount;
    double seconds = 0;
    std::string path = llvm::formatv("{0}/{1}{2:d3}", dir, prefix, i);
    bool emitted = emitProgram(programs[i], path, seconds);
    ok &= emitted;
    llvm::outs() << llvm::formatv(
        "{0} {1} {2} ({3} cases) {4:F2}s\n", emitted ? "ok  " : "FAIL", path,
        programs[i].spec.label, programs[i].cases.size(), seconds);
    llvm::outs().flush();
  }
  return ok;
}

int usage(llvm::raw_ostream &os, int status) {
  os << "usage: pa-cuda-gen OUTDIR [--matrix] [--bench] [--programs N] "
        "[--only LABEL] [--budget N] [--max-partitions N] "
        "[--key-ahead N] [--key-ahead-in-registers] [--key-ahead-bulk] "
        "[--l2-prefetch] [--l2-prefetch-min-tiles N] "
        "[--value-stage N] "
        "[--value-ahead N] [--sms N] [--cubin]\n";
  return status;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 2 && (!std::strcmp(argv[1], "--help") ||
                    !std::strcmp(argv[1], "-h")))
    return usage(llvm::outs(), 0);
  if (argc < 2)
    return usage(llvm::errs(), 2);
  std::string out = argv[1];
  if (out.empty() || out[0] == '-') {
    llvm::errs() << "pa-cuda-gen: the first argument is the output directory, "
                    "not '" << out << "'\n";
    return usage(llvm::errs(), 2);
  }
  bool matrix = false, bench = false;
  size_t limit = SIZE_MAX;
  std::string only; // programs whose label contains this
  // Of the benchmark programs (a tuning candidate).
  std::optional<int64_t> budget, maxPartitions;
  for (int i = 2; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--matrix") {
      matrix = true;
    } else if (arg == "--bench") {
      bench = true;
    } else if (arg == "--cubin") {
      emitCubins = true;
    } else if (arg == "--key-ahead-in-registers") {
      kernelOptions.keyAheadInRegisters = true;
    } else if (arg == "--key-ahead-bulk") {
      kernelOptions.keyAheadBulk = true;
    } else if (arg == "--l2-prefetch") {
      kernelOptions.l2Prefetch = true;
    } else if (arg == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else if ((arg == "--key-ahead" || arg == "--value-stage" ||
                arg == "--value-ahead" || arg == "--l2-prefetch-min-tiles") &&
               i + 1 < argc) {
      int64_t blocks = -1;
      if (llvm::StringRef(argv[i + 1]).getAsInteger(10, blocks) || blocks < 0) {
        llvm::errs() << "pa-cuda-gen: " << arg
                     << " takes a whole number >= 0, got '" << argv[i + 1]
                     << "'\n";
        return 1;
      }
      (arg == "--key-ahead"     ? kernelOptions.keyAhead
       : arg == "--value-stage" ? kernelOptions.valueStage
       : arg == "--value-ahead" ? kernelOptions.valueAhead
                                : kernelOptions.l2PrefetchMinTiles) = blocks;
      ++i;
    } else if (arg == "--programs" || arg == "--budget" ||
               arg == "--max-partitions" || arg == "--sms") {
      std::optional<int64_t> value =
          i + 1 < argc ? positiveCount(argv[i + 1]) : std::nullopt;
      if (!value) {
        llvm::errs() << "pa-cuda-gen: " << arg
                     << " takes a whole number >= 1\n";
        return usage(llvm::errs(), 2);
      }
      ++i;
      if (arg == "--programs")
        limit = size_t(*value);
      else if (arg == "--budget")
        budget = value;
      else if (arg == "--sms")
        proxySms = *value;
      else
        maxPartitions = value;
    } else {
      llvm::errs() << "pa-cuda-gen: unknown option '" << arg << "'\n";
      return usage(llvm::errs(), 2);
    }
  }
  if (!matrix && !bench)
    matrix = bench = true;
  bool ok = true;
  size_t emitted = 0;
  if (matrix) {
    ok &= emitAll(matrixPrograms(), out + "/matrix", "p", limit, only, emitted);
    ok &= emitAll({graphReplayProgram()}, out + "/graph", "g", 1, only,
                  emitted);
  }
  if (bench)
    ok &= emitAll(benchPrograms(budget, maxPartitions), out + "/bench", "b",
                  limit, only, emitted);
  if (emitted == 0) {
    llvm::errs() << "pa-cuda-gen: no program selected"
                 << (only.empty() ? "" : " (--only '" + only + "' matches no label)")
                 << "\n";
    return 1;
  }
  return ok ? 0 : 1;
}
