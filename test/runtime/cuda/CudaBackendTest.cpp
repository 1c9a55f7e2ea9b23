//===- CudaBackendTest.cpp - creating the cuda backend without a GPU ------===//
//
// On machines without a CUDA driver, createCudaBackend must fail with the
// one clear line that tools print before falling back to the host backend.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/core/Backend.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

using namespace tfc::rt;

namespace {

bool driverInstalled() {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h)
    dlclose(h);
  return h != nullptr;
}

// Without libcuda.so.1 the error says exactly that, and no backend is made.
TEST(CudaBackendCreate, NoDriverGivesClearError) {
#ifndef TFC_HAVE_CUDA_BACKEND
  GTEST_SKIP() << "cuda backend not built (no CUDA headers)";
#endif
  if (driverInstalled())
    GTEST_SKIP() << "a CUDA driver is installed; the no-driver path cannot be "
                    "exercised here";
  std::unique_ptr<Backend> backend;
  Status s = createCudaBackend(backend);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message(), "no CUDA driver (libcuda.so.1 not found)");
  EXPECT_EQ(backend, nullptr);
}

// On any machine creation either succeeds with a described device or fails
// with a one-line reason; repeated attempts behave the same (nothing left
// half-initialized).
TEST(CudaBackendCreate, SucceedsOrExplainsInOneLine) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::unique_ptr<Backend> backend;
    Status s = createCudaBackend(backend);
    if (s) {
      ASSERT_NE(backend, nullptr);
      EXPECT_EQ(backend->name(), "cuda");
      EXPECT_NE(backend->deviceDescription().find(", sm_"), std::string::npos);
    } else {
      EXPECT_EQ(backend, nullptr);
      EXPECT_FALSE(s.message().empty());
      EXPECT_EQ(s.message().find('\n'), std::string::npos) << s.message();
    }
  }
}

} // namespace
