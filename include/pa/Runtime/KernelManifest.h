//===- KernelManifest.h - launching compiled kernels from metadata -*- C++ -*-//
//
// The PTX metadata sidecar (OUT.ptx.json, written by pa-compile
// --chip=sm_90a and nvidiaBackend()) as data, and what a launcher derives
// from it without the compiler: the kernel parameters packed from memref
// views of the named pa op operands, and the grid evaluated from the views'
// sizes. Plain C++ (no
// MLIR, no CUDA), so it is unit-tested on any machine.
//
//===----------------------------------------------------------------------===//
#ifndef PA_RUNTIME_KERNELMANIFEST_H
#define PA_RUNTIME_KERNELMANIFEST_H

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pa::runtime {

/// A strided memref in device (or host) memory: what a memref kernel
/// argument's unpacked descriptor carries. `data` is the allocated and the
/// aligned pointer alike.
struct MemRefView {
  uint64_t data = 0;
  int64_t offset = 0; // elements
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides; // elements
};

/// A row-major view of `sizes` at `data`.
MemRefView rowMajorView(uint64_t data, std::vector<int64_t> sizes);

/// Sets `view.strides` to the row-major strides of `view.sizes` (in place:
/// no allocation when the rank is unchanged).
void setRowMajorStrides(MemRefView &view);

/// The operands of one launch by pa op operand name ("query", "work_info").
using OperandViews = std::map<std::string, MemRefView>;

/// A size that several operands of a decode program share, by the symbol
/// the operand table writes it with (decodeOperands: "[Hkv, capacity,
/// Q*G]"): B, B*Q, N, capacity and max_pages. A launch refuses operands
/// that disagree on one (KernelParam::sharedSize).
enum class SharedSize : int8_t {
  None = -1,
  Batch,     // B
  QueryRows, // B*Q
  Pages,     // N
  Capacity,  // capacity: plan slots
  TableWidth // max_pages: block-table columns
};
inline constexpr int kSharedSizes = 5;
/// Each shared size's symbol in the operand table's patterns (and in the
/// launchers' messages), in SharedSize order.
inline constexpr const char *kSharedSizeSymbols[kSharedSizes] = {
    "B", "B*Q", "N", "capacity", "max_pages"};

/// One kernel parameter: `meaning` is "NAME.allocated_ptr",
/// "NAME.aligned_ptr", "NAME.offset", "NAME.size[i]" or "NAME.stride[i]".
struct KernelParam {
  int64_t offset = 0;
  int64_t size = 0;
  std::string meaning;
  /// `meaning` split by parseManifest, once (a launch packs from these:
  /// parsing per launch cost ~200 us for a decode program's 3 kernels).
  enum class Field { Pointer, Offset, Size, Stride };
  std::string operand;
  Field field = Field::Pointer;
  int64_t dim = 0;
  /// A stride the kernel reads at run time (the sidecar's
  /// "dynamic_strides" lists it). The others are compiled in: the value
  /// the operand's type fixes (staticValue), else the row-major stride of
  /// the operand's sizes (an identity layout): a pack refuses a view with
  /// another value there.
  bool dynamicStride = false;
  /// A stride or offset the operand's strided, non-identity layout fixes
  /// (the sidecar's "static_strides" and "static_offsets"), or a size its
  /// type fixes ("static_sizes"): a pack refuses a view with another value
  /// (a stride in a dim of more than one element). Unset: a stride is
  /// row-major, an offset or size unchecked.
  std::optional<int64_t> staticValue;
  /// For "NAME.aligned_ptr" (the sidecar's "alignments"): the bytes the
  /// kernel's widest access at one of the operand's addresses takes and
  /// its element bytes; a pack refuses a view whose first element, or a
  /// stride of a dim of more than one element other than the last, is not
  /// a multiple of them. 0: unchecked (an operand the sidecar does not
  /// list, a sidecar from before the field, the AMD one).
  int64_t alignBytes = 0;
  int64_t elementBytes = 0;
  /// For a "NAME.size[i]" the kernel's type leaves dynamic, in a sidecar
  /// that lists the sizes its types fix ("static_sizes"): the shared size
  /// it stands for (sharedSizeOf). A pack refuses views of one kernel that
  /// disagree on a shared size. None: unchecked (a sidecar from before
  /// "static_sizes", where a fixed size may be listed as dynamic).
  SharedSize sharedSize = SharedSize::None;
};

/// The plan limits a decode program's plan kernel was compiled with (the
/// sidecar's "plan_limits"): its capacity for B sequences is
/// planCapacity(B, kvHeads, budget, maxPartitions) (pa/Support/
/// PlanCapacity.h), and the workspace (work_info, the partials) must have
/// exactly that many slots.
struct PlanLimits {
  int64_t budget = 0, maxPartitions = 0, kvHeads = 0;
};

/// One grid dimension: a constant, or dim `dim` of operand `operand`; on
/// axis z also `constant` where x * y <= `limit`, else `otherwise`
/// ("z = 4 if x * y le 66 else 1").
struct GridExtent {
  int64_t constant = 1;
  std::string operand; // empty: the constant
  int64_t dim = 0;
  int64_t limit = 0; // > 0: the choice
  int64_t otherwise = 1;
};

struct KernelInfo {
  std::string name;
  std::string symbol;
  std::string gridFormula; // "x = work_info dim 0, y = 2, z = 1"
  std::array<GridExtent, 3> grid;
  std::array<int64_t, 3> blockSize = {1, 1, 1};
  int64_t sharedBytes = 0; // dynamic shared memory of each launch
  int64_t registers = -1;  // -1: not known (ptxas did not run)
  /// The kernel waits for its stream predecessor before reading memory
  /// (the sidecar's "programmatic_launch", NVIDIA): it may be launched
  /// with programmatic stream serialization. Absent: false.
  bool programmaticLaunch = false;
  std::vector<KernelParam> params;
  int64_t paramBytes = 0;
  /// The sidecar's "plan_limits" ({"budget": b, "max_partitions": m,
  /// "kv_heads": h}, the plan kernel's): a pack whose views give both B
  /// and the capacity refuses a capacity other than the plan's. Absent (a
  /// sidecar from before the field, or a kernel that does not plan):
  /// unchecked.
  std::optional<PlanLimits> planLimits;
};

/// The sidecar: the kernels in launch order.
struct ModuleManifest {
  std::string target;
  std::string ptxVersion;
  std::string format; // "ptx" or "cubin"
  std::vector<KernelInfo> kernels;
};

/// Parses a sidecar; false with `error` on malformed text or fields
/// (unknown grid formulas and parameter meanings included). A kernel's
/// "dynamic_strides" ({"OPERAND": [dims], ...}) marks those strides
/// dynamicStride; a sidecar without it (written before the field) is read
/// as having none, so its kernels take row-major views only: a refusal
/// where such a kernel might read a stride as compiled in. "static_strides"
/// ({"OPERAND": {"DIM": stride, ...}, ...}) and "static_offsets" ({"OPERAND":
/// offset, ...}) give the strides and offsets an operand's non-identity layout
/// fixes (staticValue); a sidecar without them (written before them) is read as
/// listing none: its fixed strides are taken as row-major, and its offsets are
/// not checked (a kernel whose type fixes other strides, or a nonzero offset,
/// then takes a row-major view and misreads it, as before the fields).
/// "static_sizes"
/// ({"OPERAND": {"DIM": size, ...}, ...}) gives the sizes each operand's
/// type fixes (staticValue of its size parameters); a sidecar without it
/// (written before it) is read as fixing none: views of other sizes are
/// then taken and read at the compiled shape, as before the field.
/// "alignments" ({"OPERAND": {"bytes": B, "element_bytes": E}, ...}: B a
/// power of two, a multiple of E) gives each operand's widest access
/// (KernelParam::alignBytes); a sidecar without it (written before it) is
/// read as listing none: views are then not checked for alignment.
bool parseManifest(const std::string &json, ModuleManifest &manifest,
                   std::string &error);

/// The parameters of one launch of `kernel`, packed: `buffer` holds the
/// values at their offsets and `pointers[i]` points at parameter i in it
/// (the kernelParams array of cuLaunchKernel). Valid while the object lives
/// and is not copied.
class PackedParams {
public:
  PackedParams() = default;
  PackedParams(const PackedParams &) = delete;
  PackedParams &operator=(const PackedParams &) = delete;

  /// Fills the parameters of `kernel` from `views`; false with `error` when
  /// an operand is missing, a dim is out of range, a parameter is not 8
  /// bytes, a view's size is not the one the kernel's type fixes, a
  /// stride the kernel does not read at run time is not the compiled one
  /// (the fixed one, else the row-major one of the view's sizes; dims of
  /// one element, and empty views, at any stride), or a view would
  /// misalign the kernel's accesses (KernelParam::alignBytes), views that
  /// disagree on a shared size (KernelParam::sharedSize), or a workspace
  /// of another capacity than the plan's (KernelInfo::planLimits), naming
  /// the kernel, operand and dim.
  /// `fixedViews`: the caller keeps `views` with the same operands (the
  /// same map entries; their addresses, sizes and strides may change)
  /// until it packs from another map, as a bound launch does: the
  /// operands are then looked up by name on the first pack only, and a
  /// later pack of the same kernel from the same map reads each value
  /// through the view it resolved (a serving loop's per-layer enqueue).
  bool pack(const KernelInfo &kernel, const OperandViews &views,
            std::string &error, bool fixedViews = false);

  void **kernelParams() { return pointers.data(); }
  const std::vector<uint8_t> &bytes() const { return buffer; }

private:
  /// pack() through `sources`, resolved by an earlier pack.
  bool refill(const KernelInfo &kernel, std::string &error);

  std::vector<uint8_t> buffer;
  std::vector<void *> pointers;
  /// The view of each parameter of `resolvedKernel` in `resolvedViews`
  /// (parallel to its params); valid while the caller keeps the views
  /// fixed (pack's `fixedViews`).
  std::vector<const MemRefView *> sources;
  const KernelInfo *resolvedKernel = nullptr;
  const OperandViews *resolvedViews = nullptr;
};

/// The grid of `kernel` for `views`; false with `error` when an operand the
/// formula names is missing.
bool evaluateGrid(const KernelInfo &kernel, const OperandViews &views,
                  std::array<int64_t, 3> &grid, std::string &error);

} // namespace pa::runtime

#endif // PA_RUNTIME_KERNELMANIFEST_H
