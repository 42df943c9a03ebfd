//===- pa-isa-run.cpp - run one kernel of a code object on the executor ---===//
//
//   pa-isa-run FILE.hsaco --list
//   pa-isa-run FILE.hsaco --kernel NAME [--grid X,Y,Z] [--block X,Y,Z]
//       [--buffer NAME:BYTES[:zero|iota|ones]]...   device buffers
//       [--arg ptr:NAME|u32:V|u64:V|f32:V]...       the kernarg segment, in
//                                                   order, naturally aligned
//       [--dump NAME:u32|f32]...                    buffer contents after
//       [--no-checks] [--lenient-buffers] [--stats]
//
// Exits 1 with the executor's message on any error (an unimplemented
// instruction, an out-of-range access, a wait-count hazard, an LDS race,
// ...). --no-checks turns off the wait-count, register and LDS checks.
//
//===----------------------------------------------------------------------===//
#include "pa/ISAEmulator/ISAEmulator.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

bool parseTriple(const char *text, std::array<uint32_t, 3> &out) {
  out = {1, 1, 1};
  unsigned v[3] = {1, 1, 1};
  int n = std::sscanf(text, "%u,%u,%u", &v[0], &v[1], &v[2]);
  if (n < 1)
    return false;
  out = {v[0], v[1], v[2]};
  return true;
}

int usage() {
  std::fprintf(stderr,
               "usage: pa-isa-run FILE.hsaco (--list | --kernel NAME "
               "[--grid X,Y,Z] [--block X,Y,Z] [--buffer NAME:BYTES[:zero|"
               "iota|ones]]... [--arg ptr:NAME|u32:V|u64:V|f32:V]... "
               "[--dump NAME:u32|f32]... [--no-checks] [--lenient-buffers] "
               "[--stats])\n");
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3)
    return usage();
  std::string bytes;
  if (!pa::isa::readCodeObjectFile(argv[1], bytes)) {
    std::fprintf(stderr, "error: cannot read %s\n", argv[1]);
    return 1;
  }
  std::string error;
  auto object = pa::isa::CodeObject::load(bytes, error);
  if (!object) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 1;
  }
  std::string kernelName;
  pa::isa::LaunchConfig config;
  pa::isa::Memory memory;
  std::map<std::string, std::pair<uint64_t, uint64_t>> buffers;
  std::vector<std::pair<std::string, std::string>> dumps;
  bool list = false, printStats = false;
  auto append = [&](const void *p, size_t n) {
    while (config.kernarg.size() % n)
      config.kernarg.push_back(0);
    const uint8_t *b = static_cast<const uint8_t *>(p);
    config.kernarg.insert(config.kernarg.end(), b, b + n);
  };
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char * {
      return i + 1 < argc ? argv[++i] : nullptr;
    };
    if (a == "--list") {
      list = true;
    } else if (a == "--kernel") {
      const char *v = value();
      if (!v)
        return usage();
      kernelName = v;
    } else if (a == "--grid" || a == "--block") {
      const char *v = value();
      if (!v || !parseTriple(v, a == "--grid" ? config.grid : config.block))
        return usage();
    } else if (a == "--buffer") {
      const char *v = value();
      if (!v)
        return usage();
      std::string spec = v;
      size_t c1 = spec.find(':');
      if (c1 == std::string::npos)
        return usage();
      std::string name = spec.substr(0, c1);
      size_t c2 = spec.find(':', c1 + 1);
      uint64_t size = std::strtoull(spec.substr(c1 + 1, c2 - c1 - 1).c_str(),
                                    nullptr, 0);
      std::string fill = c2 == std::string::npos ? "zero" : spec.substr(c2 + 1);
      uint64_t address = memory.allocate(size);
      uint8_t *p = memory.find(address, size);
      for (uint64_t k = 0; k + 4 <= size; k += 4) {
        uint32_t word = fill == "iota" ? uint32_t(k / 4)
                        : fill == "ones" ? 0x3f800000u
                                         : 0u;
        std::memcpy(p + k, &word, 4);
      }
      buffers[name] = {address, size};
    } else if (a == "--arg") {
      const char *v = value();
      if (!v)
        return usage();
      std::string spec = v;
      std::string kind = spec.substr(0, spec.find(':'));
      std::string text = spec.substr(spec.find(':') + 1);
      if (kind == "ptr") {
        auto it = buffers.find(text);
        if (it == buffers.end()) {
          std::fprintf(stderr, "error: no buffer '%s'\n", text.c_str());
          return 1;
        }
        append(&it->second.first, 8);
      } else if (kind == "u32") {
        uint32_t x = uint32_t(std::strtoul(text.c_str(), nullptr, 0));
        append(&x, 4);
      } else if (kind == "u64") {
        uint64_t x = std::strtoull(text.c_str(), nullptr, 0);
        append(&x, 8);
      } else if (kind == "f32") {
        float x = std::strtof(text.c_str(), nullptr);
        append(&x, 4);
      } else {
        return usage();
      }
    } else if (a == "--dump") {
      const char *v = value();
      if (!v)
        return usage();
      std::string spec = v;
      size_t c = spec.find(':');
      dumps.push_back({spec.substr(0, c),
                       c == std::string::npos ? "u32" : spec.substr(c + 1)});
    } else if (a == "--no-checks") {
      config.checkHazards = false;
      config.checkLds = false;
    } else if (a == "--lenient-buffers") {
      config.strictBufferBounds = false;
    } else if (a == "--stats") {
      printStats = true;
    } else {
      return usage();
    }
  }
  if (list) {
    for (const auto &k : object->kernels())
      std::printf("%s %s: %zu instructions, LDS %u B, kernarg %u B\n",
                  object->chip().c_str(), k->name.c_str(), k->code.size(),
                  k->descriptor.groupSegmentBytes,
                  k->descriptor.kernargBytes);
    return 0;
  }
  const pa::isa::Kernel *kernel = object->kernel(kernelName);
  if (!kernel) {
    std::fprintf(stderr, "error: no kernel '%s' in %s\n", kernelName.c_str(),
                 argv[1]);
    return 1;
  }
  while (config.kernarg.size() < kernel->descriptor.kernargBytes)
    config.kernarg.push_back(0);
  pa::isa::Stats stats;
  if (!pa::isa::launch(*kernel, memory, config, stats, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 1;
  }
  for (const auto &[name, format] : dumps) {
    auto it = buffers.find(name);
    if (it == buffers.end()) {
      std::fprintf(stderr, "error: no buffer '%s'\n", name.c_str());
      return 1;
    }
    const uint8_t *p = memory.find(it->second.first, it->second.second);
    std::printf("%s:", name.c_str());
    for (uint64_t k = 0; k + 4 <= it->second.second; k += 4) {
      uint32_t w;
      std::memcpy(&w, p + k, 4);
      float f;
      std::memcpy(&f, &w, 4);
      if (format == "f32")
        std::printf(" %g", f);
      else
        std::printf(" %u", w);
    }
    std::printf("\n");
  }
  if (printStats)
    std::printf("stats: %llu wave instructions (salu %llu, smem %llu, valu "
                "%llu, mfma %llu, lds %llu, vmem load %llu, vmem store %llu, "
                "branch %llu, waitcnt %llu, barrier %llu)\n",
                (unsigned long long)stats.waveInstructions,
                (unsigned long long)stats.salu, (unsigned long long)stats.smem,
                (unsigned long long)stats.valu, (unsigned long long)stats.mfma,
                (unsigned long long)stats.lds,
                (unsigned long long)stats.vmemLoad,
                (unsigned long long)stats.vmemStore,
                (unsigned long long)stats.branch,
                (unsigned long long)stats.waitcnt,
                (unsigned long long)stats.barrier);
  return 0;
}
