//===- HostBackendTest.cpp - the host Backend: memory, kernels, errors ---===//
//
// The Backend interface as the executor uses it: memory and copies (with
// range checks), preparing kernels from host programs, launching them on
// buffers (argument checks), and clear errors for everything malformed.
//
//===----------------------------------------------------------------------===//

#include "HostTestUtil.h"

#include "runtime/src/core/Backend.h"

#include <cmath>
#include <cstdint>

using namespace tfc::rt;
using namespace tfc::rt::host::test;

namespace {

KernelDesc kernel(const std::string &name, const std::string &kind,
                  const std::string &body) {
  KernelDesc k;
  k.name = name;
  k.kind = kind;
  k.hostProgram = program(body, kind);
  return k;
}

BufferDesc buffer(DType dtype, std::vector<int64_t> shape) {
  BufferDesc b;
  b.dtype = dtype;
  b.shape = std::move(shape);
  b.bytes = dtypeSize(dtype) * *numElements(b.shape);
  return b;
}

} // namespace

TEST(HostBackend, DescribesItself) {
  auto be = createHostBackend();
  EXPECT_EQ(be->name(), "host");
  EXPECT_NE(be->deviceDescription().find("host"), std::string::npos);
  EXPECT_TRUE(be->synchronize().isOk());
}

TEST(HostBackend, MemoryAndCopies) {
  auto be = createHostBackend();
  DevicePtr a, b;
  ASSERT_TRUE(be->allocate(100, a).isOk());
  ASSERT_TRUE(be->allocate(0, b).isOk());
  EXPECT_EQ(a % 256, 0u);
  std::vector<uint8_t> zeros(100, 0xFF);
  ASSERT_TRUE(be->copyToHost(zeros.data(), a, 100).isOk());
  EXPECT_EQ(zeros, std::vector<uint8_t>(100, 0)); // zero-filled
  std::vector<uint8_t> src(100), dst(100);
  for (int i = 0; i < 100; ++i)
    src[i] = uint8_t(i);
  ASSERT_TRUE(be->copyToDevice(a, src.data(), 100).isOk());
  ASSERT_TRUE(be->copyOnDevice(a + 50, a, 50).isOk());
  ASSERT_TRUE(be->copyToHost(dst.data(), a, 100).isOk());
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(dst[i], i < 50 ? i : i - 50);
  // Out of range, unknown address: errors, not crashes.
  EXPECT_FALSE(be->copyToDevice(a + 60, src.data(), 50).isOk());
  EXPECT_FALSE(be->copyToHost(dst.data(), a + 101, 1).isOk());
  EXPECT_FALSE(be->copyOnDevice(0x10, a, 4).isOk());
  be->free(a);
  EXPECT_FALSE(be->copyToHost(dst.data(), a, 1).isOk()); // freed
  be->free(a);                                           // double free: ignored
  be->free(12345);                                       // unknown: ignored
  be->free(b);
}

TEST(HostBackend, PreparesAndLaunchesKernels) {
  auto be = createHostBackend();
  KernelDesc k = kernel("k0", "pointwise",
                        "in %0 f32 2x3\nin %1 f32 3\n"
                        "op %2 add f32 2x3 (%0, %1)\n"
                        "op %3 gelu f32 2x3 (%2) approximate=tanh\n"
                        "op %4 convert bf16 2x3 (%3)\nout %3\nout %4\n");
  std::unique_ptr<PreparedKernel> pk;
  Status s = be->prepareKernel(k, pk);
  ASSERT_TRUE(s.isOk()) << s.message();

  // One arena holding x, b and both outputs at 256-byte offsets.
  DevicePtr arena;
  ASSERT_TRUE(be->allocate(1024, arena).isOk());
  std::vector<float> x = {-1, 0, 1, 2, 3, 4}, bias = {0.5f, -0.5f, 0};
  ASSERT_TRUE(be->copyToDevice(arena, x.data(), 24).isOk());
  ASSERT_TRUE(be->copyToDevice(arena + 256, bias.data(), 12).isOk());
  BufferDesc bx = buffer(DType::F32, {2, 3}), bb = buffer(DType::F32, {3}),
             by = buffer(DType::F32, {6}), // a view of another shape is fine
      bh = buffer(DType::BF16, {2, 3});
  s = be->launch(*pk, k, {arena, arena + 256, arena + 512, arena + 768},
                 {&bx, &bb, &by, &bh});
  ASSERT_TRUE(s.isOk()) << s.message();
  std::vector<float> y(6);
  std::vector<uint16_t> h(6);
  ASSERT_TRUE(be->copyToHost(y.data(), arena + 512, 24).isOk());
  ASSERT_TRUE(be->copyToHost(h.data(), arena + 768, 12).isOk());
  for (int i = 0; i < 6; ++i) {
    float v = x[i] + bias[i % 3];
    float g =
        0.5f * v *
        (1 + std::tanh(0.7978845608028654f * (v + 0.044715f * v * v * v)));
    EXPECT_NEAR(y[i], g, 1e-6);
    EXPECT_EQ(h[i], floatToBFloat16(y[i]));
  }

  // Argument checks.
  BufferDesc wrongType = buffer(DType::F64, {2, 3});
  BufferDesc wrongSize = buffer(DType::F32, {7});
  s = be->launch(*pk, k, {arena, arena + 256, arena + 512}, {&bx, &bb, &by});
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("expected 4 arguments"), std::string::npos);
  s = be->launch(*pk, k, {arena, arena + 256, arena + 512, arena + 768},
                 {&wrongType, &bb, &by, &bh});
  EXPECT_NE(s.message().find("argument 0 is f64 2x3"), std::string::npos)
      << s.message();
  s = be->launch(*pk, k, {arena, arena + 256, arena + 512, arena + 768},
                 {&bx, &bb, &wrongSize, &bh});
  EXPECT_FALSE(s.isOk());
  s = be->launch(*pk, k, {arena, arena + 256, arena + 1010, arena + 768},
                 {&bx, &bb, &by, &bh});
  EXPECT_NE(s.message().find("not inside memory"), std::string::npos)
      << s.message();
  be->free(arena);
}

TEST(HostBackend, KernelErrorsNameTheKernel) {
  auto be = createHostBackend();
  std::unique_ptr<PreparedKernel> pk;
  KernelDesc bad =
      kernel("k7", "pointwise", "in %0 f32 4\nop %1 nope f32 4 (%0)\nout %1\n");
  Status s = be->prepareKernel(bad, pk);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("kernel 'k7'"), std::string::npos);
  EXPECT_NE(s.message().find("unknown op 'nope'"), std::string::npos);

  KernelDesc mismatch =
      kernel("k8", "pointwise", "in %0 f32 4\nop %1 neg f32 4 (%0)\nout %1\n");
  mismatch.kind = "gather";
  s = be->prepareKernel(mismatch, pk);
  EXPECT_NE(s.message().find("differs from the manifest"), std::string::npos);

  // A runtime error (id out of range) comes back from launch.
  KernelDesc gather = kernel("k9", "gather",
                             "in %0 f32 2x2\nin %1 i64 1\n"
                             "op %2 embedding f32 1x2 (%0, %1)\nout %2\n");
  ASSERT_TRUE(be->prepareKernel(gather, pk).isOk());
  DevicePtr mem;
  ASSERT_TRUE(be->allocate(1024, mem).isOk());
  int64_t id = 5;
  ASSERT_TRUE(be->copyToDevice(mem + 256, &id, 8).isOk());
  BufferDesc t = buffer(DType::F32, {2, 2}), i = buffer(DType::I64, {1}),
             o = buffer(DType::F32, {1, 2});
  s = be->launch(*pk, gather, {mem, mem + 256, mem + 512}, {&t, &i, &o});
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("kernel 'k9'"), std::string::npos);
  EXPECT_NE(s.message().find("id 5"), std::string::npos);
  be->free(mem);
}
