//===- DeviceMemoryTest.cpp - the host-buffer run, over recorded memory ---===//
//
// runOnHostOperands (shared by the HIP and CUDA C APIs) over a DeviceMemory
// that keeps "device" buffers in host memory and records every call: what
// is copied in and back, what the enqueue sees, and that every buffer is
// freed however the run ends.
//
//===----------------------------------------------------------------------===//
#include "pa/Runtime/DeviceMemory.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

using namespace pa::runtime;

namespace {

class RecordingMemory : public DeviceMemory {
public:
  bool allocate(size_t bytes, uint64_t &address,
                std::string &error) const override {
    if (failAllocationAt == allocations++) {
      error = "allocate refused";
      return false;
    }
    auto buffer = std::make_unique<std::vector<uint8_t>>(bytes ? bytes : 1);
    address = reinterpret_cast<uint64_t>(buffer->data());
    live[address] = std::move(buffer);
    return true;
  }
  bool release(uint64_t address, std::string &error) const override {
    if (!live.erase(address)) {
      error = "not allocated";
      return false;
    }
    return true;
  }
  bool copyToDevice(uint64_t destination, const void *source, size_t bytes,
                    std::string &error) const override {
    if (failCopyInAt == copiesIn++) {
      error = "copy in refused";
      return false;
    }
    std::memcpy(reinterpret_cast<void *>(destination), source, bytes);
    return true;
  }
  bool copyToHost(void *destination, uint64_t source, size_t bytes,
                  std::string &) const override {
    ++copiesOut;
    std::memcpy(destination, reinterpret_cast<const void *>(source), bytes);
    return true;
  }
  bool synchronize(void *, std::string &) const override {
    ++synchronizations;
    return true;
  }

  mutable std::map<uint64_t, std::unique_ptr<std::vector<uint8_t>>> live;
  mutable int allocations = 0, copiesIn = 0, copiesOut = 0,
              synchronizations = 0;
  int failAllocationAt = -1, failCopyInAt = -1;
};

struct Operands {
  std::vector<int32_t> input = {1, 2, 3, 4, 5, 6};
  std::vector<float> output = {-1, -1, -1};
  std::vector<HostOperand> list() {
    return {{"input", input.data(), {2, 3}, 4, true},
            {"output", output.data(), {3}, 4, false},
            {"empty", nullptr, {0, 7}, 2, false}};
  }
};

TEST(HostRun, CopiesInEnqueuesWaitsCopiesBackAndFrees) {
  RecordingMemory memory;
  Operands host;
  std::string error;
  int enqueues = 0;
  ASSERT_TRUE(runOnHostOperands(
      memory, host.list(),
      [&](void *stream, const OperandViews &views, std::string &) {
        ++enqueues;
        EXPECT_EQ(stream, nullptr);
        EXPECT_EQ(views.size(), 3u);
        const MemRefView &input = views.at("input");
        EXPECT_EQ(input.sizes, (std::vector<int64_t>{2, 3}));
        EXPECT_EQ(input.strides, (std::vector<int64_t>{3, 1}));
        EXPECT_NE(input.data, reinterpret_cast<uint64_t>(host.input.data()));
        EXPECT_EQ(std::memcmp(reinterpret_cast<void *>(input.data),
                              host.input.data(), 24),
                  0);
        // The output holds the caller's values; the "kernel" writes one.
        auto *output = reinterpret_cast<float *>(views.at("output").data);
        EXPECT_EQ(output[1], -1.0f);
        output[1] = 42.0f;
        EXPECT_NE(views.at("empty").data, 0u)
            << "empty operands get an address";
        return true;
      },
      error))
      << error;
  EXPECT_EQ(enqueues, 1);
  EXPECT_EQ(host.output, (std::vector<float>{-1, 42, -1}));
  EXPECT_EQ(memory.allocations, 3);
  EXPECT_EQ(memory.copiesIn, 2) << "the empty operand is not copied";
  EXPECT_EQ(memory.copiesOut, 1) << "non-empty outputs only";
  EXPECT_EQ(memory.synchronizations, 1);
  EXPECT_TRUE(memory.live.empty());
}

TEST(HostRun, FailuresFreeWhatWasAllocatedAndNameTheOperand) {
  auto never = [](void *, const OperandViews &, std::string &) {
    ADD_FAILURE() << "enqueued after a failure";
    return false;
  };
  {
    RecordingMemory memory;
    memory.failAllocationAt = 1;
    Operands host;
    std::string error;
    EXPECT_FALSE(runOnHostOperands(memory, host.list(), never, error));
    EXPECT_EQ(error, "allocate refused (operand 'output')");
    EXPECT_TRUE(memory.live.empty());
  }
  {
    RecordingMemory memory;
    memory.failCopyInAt = 1;
    Operands host;
    std::string error;
    EXPECT_FALSE(runOnHostOperands(memory, host.list(), never, error));
    EXPECT_EQ(error, "copy in refused (operand 'output')");
    EXPECT_TRUE(memory.live.empty());
  }
  {
    RecordingMemory memory;
    Operands host;
    std::string error;
    EXPECT_FALSE(runOnHostOperands(
        memory, host.list(),
        [](void *, const OperandViews &, std::string &e) {
          e = "launch refused";
          return false;
        },
        error));
    EXPECT_EQ(error, "launch refused");
    EXPECT_EQ(memory.copiesOut, 0);
    EXPECT_EQ(memory.synchronizations, 0);
    EXPECT_TRUE(memory.live.empty());
    EXPECT_EQ(host.output, (std::vector<float>{-1, -1, -1}));
  }
}

TEST(HostRun, BadOperandsAllocateNothing) {
  auto never = [](void *, const OperandViews &, std::string &) {
    ADD_FAILURE() << "enqueued a bad operand";
    return false;
  };
  std::vector<float> data(4);
  struct Case {
    HostOperand bad;
    const char *message;
  } cases[] = {
      {{"", data.data(), {4}, 4, true}, "operand 1 has no name"},
      {{"x", data.data(), {4}, 4, true}, "operand 'x' is given twice"},
      {{"y", data.data(), {2, -1}, 4, true},
       "operand 'y' has size -1 in dimension 1"},
      {{"y", data.data(), {4}, 0, true},
       "operand 'y' has element size 0; it must be positive"},
      {{"y", nullptr, {4}, 4, true}, "operand 'y' has 16 bytes but no data"},
      {{"y", data.data(), {int64_t(1) << 62, int64_t(1) << 62}, 4, true},
       "operand 'y' is too large to address"},
      // The last element at SIZE_MAX: one past it wraps the span to 0
      // elements (nothing copied, a 1-byte buffer read at huge strides).
      // 3 * 6148914691236517205 = 2^64 - 1.
      {{"y", data.data(), {4}, 1, true, {6148914691236517205}},
       "operand 'y' is too large to address"},
      {{"y", data.data(), {2, 2}, 4, true, {2, -1}},
       "operand 'y' has stride -1 in dimension 1; strides must be >= 0"},
  };
  for (const Case &c : cases) {
    RecordingMemory memory;
    std::string error;
    std::vector<HostOperand> operands = {{"x", data.data(), {4}, 4, true},
                                         c.bad};
    EXPECT_FALSE(runOnHostOperands(memory, operands, never, error));
    EXPECT_EQ(error, c.message);
    EXPECT_EQ(memory.allocations, 0);
  }
}

} // namespace
