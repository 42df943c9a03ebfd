//===- CudaLauncherTest.cpp - the launcher against the real driver --------===//
//
// Without libcuda.so.1 (no NVIDIA driver: CI, this project's build machine)
// these tests are skipped with the reason; the launcher itself builds and
// loads without CUDA. With a GPU, a hand-written PTX kernel checks loading,
// parameter packing from a sidecar, launch and graph replay end to end.
//
//===----------------------------------------------------------------------===//
#include "pa/Runtime/CudaLauncher.h"

#include "SidecarJson.h"

#include <gtest/gtest.h>

#include <vector>

using namespace pa::runtime;
using namespace pa::runtime::cuda;

namespace {

/// out[i] = in[i] * 2 + out.size[0], one thread per element; a memref
/// descriptor each (allocated, aligned, offset, size, stride).
const char *kPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry scale2(
  .param .u64 in_alloc, .param .u64 in_ptr, .param .u64 in_off,
  .param .u64 in_size, .param .u64 in_stride,
  .param .u64 out_alloc, .param .u64 out_ptr, .param .u64 out_off,
  .param .u64 out_size, .param .u64 out_stride)
{
  .reg .b64 %rd<8>;
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  .reg .pred %p;
  ld.param.u64 %rd1, [in_ptr];
  ld.param.u64 %rd2, [out_ptr];
  ld.param.u64 %rd3, [out_size];
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd4, %r1;
  setp.ge.u64 %p, %rd4, %rd3;
  @%p bra done;
  shl.b64 %rd5, %rd4, 2;
  add.s64 %rd6, %rd1, %rd5;
  add.s64 %rd7, %rd2, %rd5;
  ld.global.f32 %f1, [%rd6];
  cvt.rn.f32.u64 %f3, %rd3;
  fma.rn.f32 %f2, %f1, 0f40000000, %f3;
  st.global.f32 [%rd7], %f2;
done:
  ret;
}
)";

const std::string kSidecar = pa::runtime::test::sidecarJson(
    {{"scale2", "x = 1, y = 1, z = 1", 64, 0, "",
      pa::runtime::test::descriptorParams({{"in", 1}, {"out", 1}})}});

TEST(CudaLauncher, LaunchesAndReplaysAKernelFromItsSidecar) {
  std::string error;
  const DriverApi *api = makeContextCurrent(0, error);
  if (!api)
    GTEST_SKIP() << "no CUDA driver or GPU here: " << error;

  constexpr int64_t count = 48;
  std::vector<float> input(count), output(count);
  for (int64_t i = 0; i < count; ++i)
    input[i] = 0.25f * float(i);
  CUdeviceptr in = 0, out = 0;
  ASSERT_EQ(api->cuMemAlloc(&in, count * 4), CUDA_SUCCESS);
  ASSERT_EQ(api->cuMemAlloc(&out, count * 4), CUDA_SUCCESS);
  ASSERT_EQ(api->cuMemcpyHtoD(in, input.data(), count * 4), CUDA_SUCCESS);

  std::unique_ptr<CudaProgram> program =
      CudaProgram::load(*api, kPtx, kSidecar, error);
  ASSERT_TRUE(program) << error;
  OperandViews views;
  views["in"] = rowMajorView(in, {count});
  views["out"] = rowMajorView(out, {count});
  CUstream stream = nullptr;
  ASSERT_EQ(api->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);

  std::unique_ptr<CudaGraph> graph = CudaGraph::capture(
      *api, stream,
      [&](CUstream s, std::string &e) { return program->enqueue(s, views, e); },
      error);
  ASSERT_TRUE(graph) << error;
  for (int replay = 0; replay < 2; ++replay) {
    // New input in place, then the captured launch again.
    for (float &value : input)
      value += 1.0f;
    ASSERT_EQ(api->cuMemcpyHtoD(in, input.data(), count * 4), CUDA_SUCCESS);
    ASSERT_TRUE(graph->launch(stream, error)) << error;
    ASSERT_EQ(api->cuStreamSynchronize(stream), CUDA_SUCCESS);
    ASSERT_EQ(api->cuMemcpyDtoH(output.data(), out, count * 4), CUDA_SUCCESS);
    for (int64_t i = 0; i < count; ++i)
      ASSERT_EQ(output[i], input[i] * 2 + float(count)) << "element " << i;
  }
  api->cuStreamDestroy(stream);
  api->cuMemFree(in);
  api->cuMemFree(out);
}

TEST(CudaLauncher, ReportsAMissingDriverAsAnError) {
  std::string error;
  const DriverApi *api = loadDriver(error);
  if (api)
    GTEST_SKIP() << "a CUDA driver is present";
  EXPECT_NE(error.find("CUDA driver"), std::string::npos) << error;
}

} // namespace
