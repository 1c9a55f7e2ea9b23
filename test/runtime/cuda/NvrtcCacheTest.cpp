//===- NvrtcCacheTest.cpp - NVRTC compiles through the kernel cache -------===//
//
// Real NVRTC compiles (NVRTC needs no GPU or driver) of tiny kernels through
// the on-disk cache: compiled once per architecture, hits from a fresh
// compiler object (a later process), corrupt entries recompiled,
// TFC_DISABLE_CACHE, compile errors with NVRTC's log, fp16/bf16 headers.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/cuda/KernelCache.h"
#include "runtime/src/cuda/Nvrtc.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using tfc::rt::Status;
using namespace tfc::rt::cuda;

namespace {

const char *kScale = R"(
extern "C" __global__ void scale(const float* __restrict__ in0,
                                 float* __restrict__ out0) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 1024) out0[i] = in0[i] * 2.0f;
}
)";

const char *kHalf = R"(
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void widen(const __half* __restrict__ in0,
                                 const __nv_bfloat16* __restrict__ in1,
                                 float* __restrict__ out0) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 64) out0[i] = __half2float(in0[i]) + __bfloat162float(in1[i]);
}
)";

bool isElf(const std::string &bytes) {
  return bytes.size() > 4 && bytes.compare(0, 4,
                                           "\x7f"
                                           "ELF") == 0;
}

class NvrtcCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (Status s = NvrtcCompiler::load(nvrtc_); !s)
      GTEST_SKIP() << "NVRTC is not installed: " << s.message();
    std::string tmpl = fs::temp_directory_path() / "tfc-nvrtc-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    if (!dir_.empty())
      fs::remove_all(dir_);
  }

  std::unique_ptr<NvrtcCompiler> nvrtc_;
  std::string dir_;
};

// NVRTC reports a version and can emit the architectures CI targets.
TEST_F(NvrtcCacheTest, LoadsAndKnowsArchitectures) {
  EXPECT_FALSE(nvrtc_->version().empty());
  const auto &archs = nvrtc_->supportedArchs();
  EXPECT_NE(std::find(archs.begin(), archs.end(), 80), archs.end());
  EXPECT_NE(std::find(archs.begin(), archs.end(), 90), archs.end());
  std::vector<std::string> opts = nvrtc_->options(90);
  EXPECT_EQ(opts[0], "--gpu-architecture=sm_90");
  EXPECT_EQ(opts[1], "-std=c++17");
  for (const std::string &o : opts)
    EXPECT_EQ(o.find("fast_math"), std::string::npos);
}

// A device's architecture maps to itself when NVRTC supports it, else to
// the newest supported one of the same major version; none is an error.
TEST_F(NvrtcCacheTest, PicksCubinArchitecture) {
  int arch = 0;
  ASSERT_TRUE(nvrtc_->pickArch(90, arch));
  EXPECT_EQ(arch, 90);
  ASSERT_TRUE(nvrtc_->pickArch(80, arch));
  EXPECT_EQ(arch, 80);
  ASSERT_TRUE(nvrtc_->pickArch(99, arch));
  EXPECT_EQ(arch / 10, 9);
  EXPECT_LE(arch, 99);
  Status s = nvrtc_->pickArch(30, arch);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("cannot compile for sm_30"), std::string::npos);
}

// One compile per (source, arch): the second request and a fresh compiler
// on the same directory are served from the cache, byte for byte; another
// architecture is another entry.
TEST_F(NvrtcCacheTest, CompilesOncePerArchitecture) {
  KernelCache cache(dir_);
  std::string cubin90, again, cubin80;
  CacheOutcome outcome;
  ASSERT_TRUE(
      nvrtc_->compileCached(cache, kScale, "scale", 90, cubin90, &outcome));
  EXPECT_EQ(outcome, CacheOutcome::Miss);
  EXPECT_TRUE(isElf(cubin90));
  ASSERT_TRUE(
      nvrtc_->compileCached(cache, kScale, "scale", 90, again, &outcome));
  EXPECT_EQ(outcome, CacheOutcome::Hit);
  EXPECT_EQ(again, cubin90);
  EXPECT_EQ(nvrtc_->compileCount(), 1);

  std::unique_ptr<NvrtcCompiler> later;
  ASSERT_TRUE(NvrtcCompiler::load(later));
  KernelCache laterCache(dir_);
  ASSERT_TRUE(
      later->compileCached(laterCache, kScale, "scale", 90, again, &outcome));
  EXPECT_EQ(outcome, CacheOutcome::Hit);
  EXPECT_EQ(later->compileCount(), 0);
  EXPECT_EQ(again, cubin90);

  ASSERT_TRUE(
      nvrtc_->compileCached(cache, kScale, "scale", 80, cubin80, &outcome));
  EXPECT_EQ(outcome, CacheOutcome::Miss);
  EXPECT_EQ(nvrtc_->compileCount(), 2);
  EXPECT_NE(cubin80, cubin90);
}

// A corrupted cubin entry is detected and recompiled to the same binary.
TEST_F(NvrtcCacheTest, CorruptEntryIsRecompiled) {
  KernelCache cache(dir_);
  std::string cubin, fresh;
  ASSERT_TRUE(nvrtc_->compileCached(cache, kScale, "scale", 90, cubin));
  std::string key = KernelCache::makeKey(kScale, nvrtc_->options(90),
                                         "nvrtc-" + nvrtc_->version(), "sm_90");
  std::string path = cache.entryPath(key);
  ASSERT_TRUE(fs::exists(path));
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-100, std::ios::end);
    f.put('\x5a');
  }
  CacheOutcome outcome;
  ASSERT_TRUE(
      nvrtc_->compileCached(cache, kScale, "scale", 90, fresh, &outcome));
  EXPECT_EQ(outcome, CacheOutcome::Corrupt);
  EXPECT_EQ(nvrtc_->compileCount(), 2);
  EXPECT_EQ(fresh, cubin);
  ASSERT_TRUE(
      nvrtc_->compileCached(cache, kScale, "scale", 90, fresh, &outcome));
  EXPECT_EQ(outcome, CacheOutcome::Hit);
}

// TFC_DISABLE_CACHE=1: every request compiles, nothing reaches the disk.
TEST_F(NvrtcCacheTest, DisabledCacheAlwaysCompiles) {
  std::string cacheDir = dir_ + "/cache";
  setenv("TFC_CACHE_DIR", cacheDir.c_str(), 1);
  setenv("TFC_DISABLE_CACHE", "1", 1);
  KernelCache cache = KernelCache::fromEnvironment();
  unsetenv("TFC_DISABLE_CACHE");
  unsetenv("TFC_CACHE_DIR");
  std::string cubin;
  CacheOutcome outcome;
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(
        nvrtc_->compileCached(cache, kScale, "scale", 90, cubin, &outcome));
    EXPECT_EQ(outcome, CacheOutcome::Disabled);
    EXPECT_TRUE(isElf(cubin));
  }
  EXPECT_EQ(nvrtc_->compileCount(), 2);
  EXPECT_FALSE(fs::exists(cacheDir));
}

// A compile error names the kernel and architecture, carries NVRTC's log
// and leaves nothing in the cache.
TEST_F(NvrtcCacheTest, CompileErrorCarriesLog) {
  KernelCache cache(dir_);
  std::string cubin;
  Status s = nvrtc_->compileCached(
      cache, "extern \"C\" __global__ void bad() { undeclared_thing(); }",
      "bad", 90, cubin);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("NVRTC failed to compile kernel bad for sm_90"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("undeclared_thing"), std::string::npos)
      << s.message();
  EXPECT_TRUE(fs::is_empty(dir_));
}

// Kernels using __half and __nv_bfloat16 find the toolkit headers.
TEST_F(NvrtcCacheTest, HalfPrecisionHeadersAreFound) {
  ASSERT_FALSE(nvrtc_->includeDir().empty())
      << "cuda_fp16.h not found; set TFC_CUDA_INCLUDE";
  std::string cubin;
  Status s = nvrtc_->compile(kHalf, "widen", 80, cubin);
  ASSERT_TRUE(s) << s.message();
  EXPECT_TRUE(isElf(cubin));
}

// An architecture NVRTC cannot emit is refused before compiling.
TEST_F(NvrtcCacheTest, RejectsUnsupportedArchitecture) {
  std::string cubin;
  Status s = nvrtc_->compile(kScale, "scale", 35, cubin);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("does not support sm_35"), std::string::npos);
  EXPECT_EQ(nvrtc_->compileCount(), 0);
}

} // namespace
