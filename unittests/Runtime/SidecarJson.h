//===- SidecarJson.h - kernel sidecars written out for tests ----*- C++ -*-===//
//
// The runtime's tests give parseManifest sidecars in the shape pa-compile
// writes them (docs/nvidia.md, "The sidecar"): kernels with a grid formula,
// a block size and one 8-byte parameter per memref descriptor field. Each
// test names the kernels, their parameters and the fields it is about; the
// JSON around them, with the parameters' offsets and "param_bytes", is
// written here, once.
//
//===----------------------------------------------------------------------===//
#ifndef PA_UNITTESTS_RUNTIME_SIDECARJSON_H
#define PA_UNITTESTS_RUNTIME_SIDECARJSON_H

#include <cstdint>
#include <string>
#include <vector>

namespace pa::runtime::test {

/// One kernel of a sidecar.
struct SidecarKernel {
  std::string name; // also its symbol
  std::string grid = "x = 1, y = 1, z = 1";
  int64_t blockSize = 64; // in x
  int64_t sharedBytes = 0;
  /// Further members, written as given before "args" ("registers": 40,
  /// "dynamic_strides": {...}); empty: none.
  std::string fields;
  /// The parameters' meanings in order, 8 bytes each from offset 0.
  std::vector<std::string> params;
};

/// The descriptor fields of memref operand `operand` of rank `rank`, as a
/// kernel's parameters: allocated and aligned pointer, offset, sizes,
/// strides.
inline std::vector<std::string> descriptorParams(const std::string &operand,
                                                 int rank) {
  std::vector<std::string> params = {operand + ".allocated_ptr",
                                     operand + ".aligned_ptr",
                                     operand + ".offset"};
  for (const char *field : {"size", "stride"})
    for (int dim = 0; dim < rank; ++dim)
      params.push_back(operand + "." + field + "[" + std::to_string(dim) +
                       "]");
  return params;
}

/// The parameters of several operands' descriptors, in order.
inline std::vector<std::string>
descriptorParams(const std::vector<std::pair<std::string, int>> &operands) {
  std::vector<std::string> params;
  for (const auto &[operand, rank] : operands)
    for (std::string &param : descriptorParams(operand, rank))
      params.push_back(std::move(param));
  return params;
}

/// A sidecar for `target` ("sm_90a": a PTX one) holding `kernels`.
inline std::string sidecarJson(const std::vector<SidecarKernel> &kernels,
                               const std::string &target = "sm_90a") {
  std::string json = "{\"target\": \"" + target +
                     "\", \"ptx_version\": \"8.5\", \"format\": \"ptx\",\n"
                     " \"kernels\": [";
  for (size_t k = 0; k < kernels.size(); ++k) {
    const SidecarKernel &kernel = kernels[k];
    json += std::string(k ? ",\n" : "\n") + "  {\"name\": \"" + kernel.name +
            "\", \"symbol\": \"" + kernel.name + "\", \"grid\": \"" +
            kernel.grid + "\", \"block_size\": [" +
            std::to_string(kernel.blockSize) + ", 1, 1], \"shared_bytes\": " +
            std::to_string(kernel.sharedBytes) + ",\n   ";
    if (!kernel.fields.empty())
      json += kernel.fields + ",\n   ";
    json += "\"args\": [";
    for (size_t i = 0; i < kernel.params.size(); ++i)
      json += std::string(i ? ",\n     " : "\n     ") + "{\"offset\": " +
              std::to_string(8 * i) + ", \"size\": 8, \"meaning\": \"" +
              kernel.params[i] + "\"}";
    json += "],\n   \"param_bytes\": " +
            std::to_string(8 * kernel.params.size()) + "}";
  }
  return json + "]}";
}

} // namespace pa::runtime::test

#endif // PA_UNITTESTS_RUNTIME_SIDECARJSON_H
