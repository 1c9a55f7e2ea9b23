//===- NvrtcParallelTest.cpp - NVRTC compiles on the pool -----------------===//
//
// Real NVRTC compiles (no GPU or driver needed) through compileKernels: a
// program of 40 small kernels plus duplicates compiles on several threads to
// exactly the cubins of a serial compile, each distinct source once; a later
// run is all cache hits; a broken kernel is named in the error with NVRTC's
// log and nothing is left running or cached for it.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/cuda/KernelCache.h"
#include "runtime/src/cuda/Nvrtc.h"
#include "runtime/src/cuda/ParallelCompile.h"
#include "test/runtime/cuda/ThreadCount.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace fs = std::filesystem;
using tfc::rt::Status;
using namespace tfc::rt::cuda;

namespace {

constexpr int kArch = 80;


/// A small kernel whose body (and so cubin) differs with `i`.
std::string kernelSource(int i) {
  std::string name = "k" + std::to_string(i);
  return "extern \"C\" __global__ void " + name +
         "(const float* __restrict__ in0, float* __restrict__ out0) {\n"
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < " +
         std::to_string(1024 + i) + ") out0[i] = in0[i] * " +
         std::to_string(i + 1) + ".0f + " + std::to_string(i % 7) + ".5f;\n}\n";
}

/// 40 distinct kernels, then every fourth one requested again under its
/// own name (an artifact may hold the same kernel twice).
std::vector<CompileRequest> program() {
  std::vector<CompileRequest> r;
  for (int i = 0; i < 40; ++i)
    r.push_back({"k" + std::to_string(i), kernelSource(i)});
  for (int i = 0; i < 40; i += 4)
    r.push_back({"k" + std::to_string(i), kernelSource(i)});
  return r;
}

bool isElf(const std::string &bytes) {
  return bytes.size() > 4 && bytes.compare(0, 4,
                                           "\x7f"
                                           "ELF") == 0;
}

class NvrtcParallelTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (Status s = NvrtcCompiler::load(nvrtc_); !s)
      GTEST_SKIP() << "NVRTC is not installed: " << s.message();
    std::string tmpl = fs::temp_directory_path() / "tfc-nvrtc-pool-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    if (!dir_.empty())
      fs::remove_all(dir_);
  }

  size_t entries() const {
    size_t n = 0;
    for (const auto &e : fs::directory_iterator(dir_))
      n += e.path().extension() == ".entry";
    return n;
  }

  std::unique_ptr<NvrtcCompiler> nvrtc_;
  std::string dir_;
};

// Cold, on 4 threads (more than this machine may have cores, to make the
// threads really overlap): 40 NVRTC runs for 50 kernels, the same bytes as
// compiling each kernel alone, one cache entry per distinct source. Warm,
// from a fresh compiler and cache object (a later process): no NVRTC run,
// all hits, the same bytes again.
TEST_F(NvrtcParallelTest, ColdThenWarmMatchesSerial) {
  std::vector<CompileRequest> requests = program();
  CompiledKernels cold;
  {
    KernelCache cache(dir_);
    auto start = std::chrono::steady_clock::now();
    Status s = compileKernels(*nvrtc_, cache, kArch, requests, cold, 4);
    ASSERT_TRUE(s) << s.message();
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    std::printf("cold: %zu kernels, %zu distinct on %d threads: %.0f ms\n",
                requests.size(), cold.distinct(), cold.threads, ms);
  }
  EXPECT_EQ(cold.distinct(), 40u);
  EXPECT_EQ(cold.compiled, 40);
  EXPECT_EQ(cold.cacheHits, 0);
  EXPECT_EQ(cold.threads, 4);
  EXPECT_EQ(nvrtc_->compileCount(), 40);
  EXPECT_EQ(entries(), 40u);

  std::unique_ptr<NvrtcCompiler> serial;
  ASSERT_TRUE(NvrtcCompiler::load(serial));
  for (size_t i = 0; i < requests.size(); ++i) {
    std::string cubin;
    ASSERT_TRUE(
        serial->compile(requests[i].source, requests[i].name, kArch, cubin));
    ASSERT_TRUE(isElf(cold.cubin(i))) << requests[i].name;
    EXPECT_EQ(cold.cubin(i), cubin) << requests[i].name;
  }

  std::unique_ptr<NvrtcCompiler> later;
  ASSERT_TRUE(NvrtcCompiler::load(later));
  KernelCache laterCache(dir_);
  CompiledKernels warm;
  ASSERT_TRUE(compileKernels(*later, laterCache, kArch, requests, warm));
  EXPECT_EQ(later->compileCount(), 0);
  EXPECT_EQ(warm.cacheHits, 40);
  EXPECT_EQ(warm.compiled, 0);
  EXPECT_EQ(laterCache.stats().hits, 40);
  for (size_t i = 0; i < requests.size(); ++i)
    EXPECT_EQ(warm.cubin(i), cold.cubin(i)) << requests[i].name;
}

// With the cache off every distinct source still compiles only once.
TEST_F(NvrtcParallelTest, DuplicatesCompileOnceWithoutCache) {
  KernelCache cache(dir_, /*enabled=*/false);
  CompiledKernels out;
  std::vector<CompileRequest> requests = program();
  requests.resize(12); // k0..k11
  requests.push_back(requests[3]);
  requests.push_back(requests[3]);
  ASSERT_TRUE(compileKernels(*nvrtc_, cache, kArch, requests, out, 3));
  EXPECT_EQ(nvrtc_->compileCount(), 12);
  EXPECT_EQ(out.compiled, 12);
  EXPECT_EQ(out.cubin(12), out.cubin(3));
  EXPECT_EQ(entries(), 0u);
}

// The default pool is min(cores, 16, distinct).
TEST_F(NvrtcParallelTest, DefaultThreadCount) {
  KernelCache cache(dir_);
  CompiledKernels out;
  std::vector<CompileRequest> requests = program();
  requests.resize(6);
  ASSERT_TRUE(compileKernels(*nvrtc_, cache, kArch, requests, out));
  EXPECT_EQ(out.threads, compileThreadCount(6, availableCores()));
  EXPECT_LE(out.threads, 6);
}

// One broken kernel among 40: the error names it and carries NVRTC's log;
// the pool is joined, the broken source has no cache entry, and kernels
// after it may or may not have been compiled (they are not waited for).
TEST_F(NvrtcParallelTest, BrokenKernelIsNamed) {
  std::vector<CompileRequest> requests = program();
  requests[17].source =
      "extern \"C\" __global__ void k17() { not_declared(); }";
  KernelCache cache(dir_);
  CompiledKernels out;
  Status s = compileKernels(*nvrtc_, cache, kArch, requests, out, 4);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message().rfind("compiling kernel 'k17': NVRTC failed to "
                              "compile kernel k17 for sm_80",
                              0),
            0u)
      << s.message();
  EXPECT_NE(s.message().find("not_declared"), std::string::npos);
  // The pool's threads, by name (NVRTC itself may start threads of its
  // own and keep them, as it does on some machines).
  EXPECT_EQ(tfc::rt::test::threadsAfterJoin(0, kCompileThreadName), 0u);
  std::string key =
      KernelCache::makeKey(requests[17].source, nvrtc_->options(kArch),
                           "nvrtc-" + nvrtc_->version(), "sm_80");
  EXPECT_FALSE(fs::exists(cache.entryPath(key)));
  // Everything before the broken kernel was compiled and cached.
  EXPECT_GE(entries(), 17u);
}

} // namespace
