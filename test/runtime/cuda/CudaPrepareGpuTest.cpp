//===- CudaPrepareGpuTest.cpp - preparing a program's kernels (label gpu) -===//
//
// CudaBackend::prepareKernels on a real GPU: a program of many kernels (with
// duplicates) compiled on the pool, loaded, launched and computing; the
// second preparation all cache hits; a cached cubin that passes its checksum
// but does not load recompiled and replaced; a broken kernel named. Skips
// with a one-line reason when createCudaBackend fails.
//
//===----------------------------------------------------------------------===//

#include "GpuBackendFixture.h"
#include "runtime/src/core/Backend.h"
#include "runtime/src/cuda/KernelCache.h"
#include "runtime/src/cuda/Nvrtc.h"
#include "runtime/src/cuda/ParallelCompile.h"

#include <cstdint>
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

using namespace tfc::rt;
using namespace tfc::rt::cuda::testing;

namespace {

class CudaPrepareGpuTest : public GpuBackendTest {
protected:
  /// Runs `kernel` (a scaleKernel) on 0..255 and checks out = in * factor.
  void expectScales(PreparedKernel &prepared, const KernelDesc &kernel,
                    float factor) {
    std::vector<float> in(256), out(256);
    for (int i = 0; i < 256; ++i)
      in[i] = float(i) - 100.0f;
    DevicePtr din = alloc(1024), dout = alloc(1024);
    ASSERT_TRUE(backend_->copyToDevice(din, in.data(), 1024));
    BufferDesc b;
    b.bytes = 1024;
    Status s = backend_->launch(prepared, kernel, {din, dout}, {&b, &b});
    ASSERT_TRUE(s) << s.message();
    ASSERT_TRUE(backend_->synchronize());
    ASSERT_TRUE(backend_->copyToHost(out.data(), dout, 1024));
    for (int i = 0; i < 256; ++i)
      ASSERT_EQ(out[i], in[i] * factor) << kernel.name << " at " << i;
  }
};

/// out0[i] = in0[i] * (n + 1), as kernel "scale<n>".
KernelDesc scaleKernel(int n) {
  KernelDesc k;
  k.name = "scale" + std::to_string(n);
  k.kind = "pointwise";
  k.cudaSource = "extern \"C\" __global__ void " + k.name +
                 "(const float* __restrict__ in0, float* __restrict__ out0) "
                 "{\n  int i = threadIdx.x;\n  out0[i] = in0[i] * " +
                 std::to_string(n + 1) + ".0f;\n}\n";
  k.grid = {1, 1, 1};
  k.block = {256, 1, 1};
  return k;
}

// 24 distinct kernels and 2 repeats: 24 compiles on min(cores, 16, 24)
// threads, one cache entry each, every kernel computing its own scale;
// preparing again takes everything from the cache.
TEST_F(CudaPrepareGpuTest, PreparesProgramOnPool) {
  std::vector<KernelDesc> kernels;
  for (int n = 0; n < 24; ++n)
    kernels.push_back(scaleKernel(n));
  kernels.push_back(scaleKernel(3));
  kernels.push_back(scaleKernel(10));
  std::vector<std::unique_ptr<PreparedKernel>> prepared;
  PrepareStats stats;
  Status s = backend_->prepareKernels(kernels, prepared, stats);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(stats.kernels, 26);
  EXPECT_EQ(stats.distinct, 24);
  EXPECT_EQ(stats.compiled, 24);
  EXPECT_EQ(stats.cacheHits, 0);
  EXPECT_EQ(stats.threads,
            cuda::compileThreadCount(24, cuda::availableCores()));
  EXPECT_EQ(cacheEntries(), 24);
  ASSERT_EQ(prepared.size(), kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i) {
    ASSERT_NE(prepared[i], nullptr);
    int n = std::stoi(kernels[i].name.substr(5));
    expectScales(*prepared[i], kernels[i], float(n + 1));
  }

  std::vector<std::unique_ptr<PreparedKernel>> again;
  PrepareStats warm;
  ASSERT_TRUE(backend_->prepareKernels(kernels, again, warm));
  EXPECT_EQ(warm.compiled, 0);
  EXPECT_EQ(warm.cacheHits, 24);
  expectScales(*again[25], kernels[25], 11.0f);
}

// A cache entry with a valid checksum whose payload is not a cubin: the
// load fails, the kernel is recompiled once (its repeat reuses the fresh
// cubin), the entry is replaced, and both kernels compute.
TEST_F(CudaPrepareGpuTest, CachedCubinThatDoesNotLoadIsReplaced) {
  KernelDesc k = scaleKernel(4);
  std::unique_ptr<cuda::NvrtcCompiler> nvrtc;
  ASSERT_TRUE(cuda::NvrtcCompiler::load(nvrtc));
  std::string desc = backend_->deviceDescription();
  int deviceArch = std::stoi(desc.substr(desc.rfind("sm_") + 3)), arch = 0;
  ASSERT_TRUE(nvrtc->pickArch(deviceArch, arch));
  std::string key = cuda::KernelCache::makeKey(
      k.cudaSource, nvrtc->options(arch), "nvrtc-" + nvrtc->version(),
      "sm_" + std::to_string(arch));
  cuda::KernelCache cache(cacheDir_);
  ASSERT_TRUE(cache.store(key, "definitely not a cubin"));

  std::vector<std::unique_ptr<PreparedKernel>> prepared;
  PrepareStats stats;
  Status s = backend_->prepareKernels({k, k}, prepared, stats);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(stats.distinct, 1);
  EXPECT_EQ(stats.compiled, 1);
  EXPECT_EQ(stats.cacheHits, 0);
  std::string payload;
  ASSERT_EQ(cache.lookup(key, payload), cuda::CacheOutcome::Hit);
  EXPECT_EQ(payload.compare(0, 4,
                            "\x7f"
                            "ELF"),
            0);
  expectScales(*prepared[0], k, 5.0f);
  expectScales(*prepared[1], k, 5.0f);
}

// A broken kernel in a program fails the preparation with its name and
// NVRTC's log; a kernel whose function is missing is named too.
TEST_F(CudaPrepareGpuTest, ErrorsNameTheKernel) {
  std::vector<KernelDesc> kernels;
  for (int n = 0; n < 8; ++n)
    kernels.push_back(scaleKernel(n));
  kernels[5].cudaSource = "extern \"C\" __global__ void scale5() { nope(); }";
  std::vector<std::unique_ptr<PreparedKernel>> prepared;
  PrepareStats stats;
  Status s = backend_->prepareKernels(kernels, prepared, stats);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message().rfind("compiling kernel 'scale5': ", 0), 0u)
      << s.message();
  EXPECT_NE(s.message().find("nope"), std::string::npos) << s.message();
  EXPECT_TRUE(prepared.empty());

  kernels[5] = scaleKernel(5);
  kernels[6].name = "not_there";
  s = backend_->prepareKernels(kernels, prepared, stats);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message().rfind("preparing kernel 'not_there': ", 0), 0u)
      << s.message();
  EXPECT_TRUE(prepared.empty());
}

} // namespace
