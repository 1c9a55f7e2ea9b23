//===- LibTfcrtTest.cpp - the real libtfcrt.so with its backends ----------===//
//
// Built only when runtime/src/host and runtime/src/cuda are in the tree: it
// links libtfcrt.so (so every backend symbol must be defined), creates devices
// by name through the C API and runs the small test artifact on the host
// backend. A machine without a GPU must still pass: "cuda" is then an error
// with a reason and "auto" picks host.
//
//===----------------------------------------------------------------------===//

#include "runtime/include/tfc/runtime.hpp"

#include "test/runtime/TestUtil.h"

#include <gtest/gtest.h>

using namespace tfc::rt::test;

// Device names: host always works, unknown names are errors, cuda either
// works or says why, auto always gives a device.
TEST(LibTfcrt, Devices) {
  tfc::runtime::Device host("host");
  EXPECT_EQ(host.kind(), "host");
  EXPECT_FALSE(host.description().empty());
  EXPECT_THROW(tfc::runtime::Device("tpu"), tfc::runtime::Error);
  tfc::runtime::Device any("auto");
  EXPECT_TRUE(any.kind() == "host" || any.kind() == "cuda");
  tfc_device *cuda = nullptr;
  tfc_status s = tfc_device_create("cuda", &cuda);
  if (s) {
    EXPECT_NE(std::string(tfc_status_message(s)), "");
    EXPECT_EQ(cuda, nullptr);
    EXPECT_EQ(any.kind(), "host");
    tfc_status_free(s);
  } else {
    EXPECT_STREQ(tfc_device_kind(cuda), "cuda");
    tfc_device_destroy(cuda);
  }
}

// The test artifact (out = (x + x) @ w) runs on the host backend.
TEST(LibTfcrt, HostRunsTestArtifact) {
  TempDir dir;
  TestArtifact::valid().write(dir.path());
  tfc::runtime::Device host("host");
  tfc::runtime::Program p(host, dir.path());
  std::vector<float> x = {1, 2, 3, 4, 5, 6}, w = {1, -1, 0.5, 2, -3, 0.25};
  p.set("x", x);
  p.set("w", w);
  p.run("forward");
  std::vector<float> out = p.get<float>("out");
  std::vector<float> want(4, 0);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k)
        want[i * 2 + j] += 2 * x[i * 3 + k] * w[k * 2 + j];
  ASSERT_EQ(out.size(), 4u);
  for (int i = 0; i < 4; ++i)
    EXPECT_FLOAT_EQ(out[i], want[i]) << i;
}
