//===- GpuBackendFixture.h - a cuda backend per test (label gpu) -*- C++ -*-===//
//
// The fixture of the tests that run on a real GPU: a cuda backend created
// per test with a private kernel cache (hit/miss expectations must not
// depend on earlier runs), device allocations freed at the end, and a skip
// with a one-line reason when createCudaBackend fails (no driver, no
// device).
//
//===----------------------------------------------------------------------===//

#ifndef TFC_TEST_RUNTIME_CUDA_GPUBACKENDFIXTURE_H
#define TFC_TEST_RUNTIME_CUDA_GPUBACKENDFIXTURE_H

#include "runtime/src/core/Backend.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace tfc::rt::cuda::testing {

class GpuBackendTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string tmpl =
        std::filesystem::temp_directory_path() / "tfc-gpu-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    cacheDir_ = tmpl;
    setenv("TFC_CACHE_DIR", cacheDir_.c_str(), 1);
    unsetenv("TFC_DISABLE_CACHE");
    if (Status s = createCudaBackend(backend_); !s)
      GTEST_SKIP() << "no usable CUDA GPU: " << s.message();
  }
  void TearDown() override {
    for (DevicePtr p : allocations_)
      backend_->free(p);
    backend_.reset();
    unsetenv("TFC_CACHE_DIR");
    std::filesystem::remove_all(cacheDir_);
  }

  /// `bytes` of device memory, freed after the test.
  DevicePtr alloc(size_t bytes) {
    DevicePtr p = 0;
    Status s = backend_->allocate(bytes, p);
    EXPECT_TRUE(s) << s.message();
    allocations_.push_back(p);
    return p;
  }

  /// The number of entries in the test's kernel cache.
  int64_t cacheEntries() const {
    int64_t n = 0;
    for (const auto &e : std::filesystem::directory_iterator(cacheDir_))
      n += e.path().extension() == ".entry";
    return n;
  }

  std::unique_ptr<Backend> backend_;
  std::vector<DevicePtr> allocations_;
  std::string cacheDir_;
};

} // namespace tfc::rt::cuda::testing

#endif // TFC_TEST_RUNTIME_CUDA_GPUBACKENDFIXTURE_H
