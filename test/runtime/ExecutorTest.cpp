//===- ExecutorTest.cpp - executor on the test-only FakeBackend -----------===//

#include "runtime/src/core/Executor.h"

#include "test/runtime/FakeBackend.h"
#include "test/runtime/TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

using namespace tfc::rt;
using namespace tfc::rt::test;

namespace {

struct Fixture {
  TempDir dir;
  std::shared_ptr<FakeBackend> backend = std::make_shared<FakeBackend>();
  std::shared_ptr<Artifact> artifact = std::make_shared<Artifact>();
  std::unique_ptr<Executor> exec;

  explicit Fixture(const TestArtifact &t = TestArtifact::valid()) {
    t.write(dir.path());
    Status s = loadArtifact(dir.path(), *artifact);
    EXPECT_TRUE(s.isOk()) << s.message();
  }
  Status create() { return Executor::create(backend, artifact, exec); }
  size_t count(const std::string &prefix) const {
    return std::count_if(
        backend->log.begin(), backend->log.end(),
        [&](const std::string &l) { return l.rfind(prefix, 0) == 0; });
  }
};

const std::vector<float> kX = {1, 2, 3, 4, 5, 6};        // 2x3
const std::vector<float> kW = {1, -1, 0.5, 2, -3, 0.25}; // 3x2

/// out = (x + x) @ w, computed directly.
std::vector<float> expected(const std::vector<float> &x,
                            const std::vector<float> &w) {
  std::vector<float> out(4, 0);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int p = 0; p < 3; ++p)
        out[i * 2 + j] += 2 * x[i * 3 + p] * w[p * 2 + j];
  return out;
}

} // namespace

// Runs forward end to end: launch, gemm, copy through aliases; results match.
TEST(Executor, RunsForward) {
  Fixture f;
  ASSERT_TRUE(f.create().isOk());
  ASSERT_TRUE(f.exec->setExternal("x", kX.data(), 24).isOk());
  ASSERT_TRUE(f.exec->setExternal("w", kW.data(), 24).isOk());
  Status s = f.exec->run("forward");
  ASSERT_TRUE(s.isOk()) << s.message();
  std::vector<float> out(4);
  ASSERT_TRUE(f.exec->getExternal("out", out.data(), 16).isOk());
  EXPECT_EQ(out, expected(kX, kW));
  EXPECT_TRUE(f.exec->isExternalSet("out"));
}

// Kernels are prepared once, at creation, however many runs follow; params
// keep their value across runs while inputs can change.
TEST(Executor, PreparesOnceAndKeepsParams) {
  Fixture f;
  ASSERT_TRUE(f.create().isOk());
  EXPECT_EQ(f.count("prepare k_add"), 1u);
  ASSERT_TRUE(f.exec->setExternal("w", kW.data(), 24).isOk());
  for (int run = 0; run < 3; ++run) {
    std::vector<float> x = kX;
    for (float &v : x)
      v += float(run);
    ASSERT_TRUE(f.exec->setExternal("x", x.data(), 24).isOk());
    ASSERT_TRUE(f.exec->run("forward").isOk());
    std::vector<float> out(4);
    ASSERT_TRUE(f.exec->getExternal("out", out.data(), 16).isOk());
    EXPECT_EQ(out, expected(x, kW)) << run;
  }
  EXPECT_EQ(f.count("prepare"), 1u);
  EXPECT_EQ(f.count("launch k_add"), 3u);
}

// Arena views sit at their offsets from an aligned base; aliases resolve to
// their root's address (arena and external).
TEST(Executor, AddressesAndAliases) {
  Fixture f;
  ASSERT_TRUE(f.create().isOk());
  DevicePtr base = f.exec->address(3);
  EXPECT_EQ(base % 256, 0u);
  EXPECT_EQ(f.exec->address(4), base + 256);
  EXPECT_EQ(f.exec->address(5), f.exec->address(4));
  EXPECT_EQ(f.exec->address(6), f.exec->address(2));
  EXPECT_TRUE(f.backend->inBounds(f.exec->address(4), 16));
  for (int id : {0, 1, 2})
    EXPECT_TRUE(f.backend->inBounds(f.exec->address(id),
                                    size_t(f.artifact->buffers[id].bytes)));
}

// Externals start zeroed; outputs can be read before any run.
TEST(Executor, ExternalsStartZeroed) {
  Fixture f;
  ASSERT_TRUE(f.create().isOk());
  std::vector<float> out(4, 7.0f);
  ASSERT_TRUE(f.exec->getExternal("out", out.data(), 16).isOk());
  EXPECT_EQ(out, std::vector<float>(4, 0.0f));
}

// Binding errors: unknown names (listing the known ones), wrong sizes, null.
TEST(Executor, BindingErrors) {
  Fixture f;
  ASSERT_TRUE(f.create().isOk());
  Status s = f.exec->setExternal("y", kX.data(), 24);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("no external buffer named 'y'"),
            std::string::npos);
  EXPECT_NE(s.message().find("x, w, out"), std::string::npos) << s.message();
  s = f.exec->setExternal("x", kX.data(), 20);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("24 bytes) set with 20 bytes"), std::string::npos)
      << s.message();
  std::vector<float> out(8);
  s = f.exec->getExternal("out", out.data(), 32);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("read into 32 bytes"), std::string::npos);
  EXPECT_FALSE(f.exec->setExternal("x", nullptr, 24).isOk());
}

// Running with an unset parameter or input fails before launching anything.
TEST(Executor, UnsetInputsAreReported) {
  Fixture f;
  ASSERT_TRUE(f.create().isOk());
  ASSERT_TRUE(f.exec->setExternal("x", kX.data(), 24).isOk());
  Status s = f.exec->run("forward");
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("parameter 'w' was never set"), std::string::npos)
      << s.message();
  EXPECT_EQ(f.count("launch"), 0u);
  s = f.exec->run("backward");
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("no entry named 'backward' (entries: forward)"),
            std::string::npos)
      << s.message();
}

// State externals start zeroed and count as set: a run that reads one
// never set goes ahead (and reads zeros).
TEST(Executor, StateStartsZeroedAndSet) {
  TestArtifact t = TestArtifact::valid();
  t.manifest["buffers"][1]["role"] = "state";
  Fixture f(t);
  ASSERT_TRUE(f.create().isOk());
  ASSERT_TRUE(f.exec->setExternal("x", kX.data(), 24).isOk());
  Status s = f.exec->run("forward");
  ASSERT_TRUE(s.isOk()) << s.message();
  std::vector<float> w(6, 1.0f);
  ASSERT_TRUE(f.exec->getExternal("w", w.data(), 24).isOk());
  for (float v : w)
    EXPECT_EQ(v, 0.0f);
}

// A failing backend call is reported with the entry, step index and kind.
TEST(Executor, StepFailuresNameTheStep) {
  Fixture f;
  ASSERT_TRUE(f.create().isOk());
  ASSERT_TRUE(f.exec->setExternal("x", kX.data(), 24).isOk());
  ASSERT_TRUE(f.exec->setExternal("w", kW.data(), 24).isOk());
  f.backend->failOn = "gemm";
  Status s = f.exec->run("forward");
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("entry 'forward' step 1 (gemm 2x2x3): injected failure"),
            std::string::npos)
      << s.message();
  f.backend->failOn = "launch";
  s = f.exec->run("forward");
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("step 0 (launch k_add)"), std::string::npos);
  f.backend->failOn = "copy";
  s = f.exec->run("forward");
  EXPECT_NE(s.message().find("step 2 (copy)"), std::string::npos);
  f.backend->failOn = "sync";
  EXPECT_FALSE(f.exec->run("forward").isOk());
}

// Creation failures (allocation, kernel preparation) are errors and leak
// nothing; destruction frees every allocation.
TEST(Executor, CreationFailuresAndCleanup) {
  {
    Fixture f;
    f.backend->failOn = "prepare";
    Status s = f.create();
    ASSERT_FALSE(s.isOk());
    EXPECT_NE(s.message().find("preparing kernel 'k_add'"), std::string::npos);
    EXPECT_EQ(f.backend->liveAllocations(), 0u);
  }
  {
    Fixture f;
    f.backend->failOn = "allocate 24";
    Status s = f.create();
    ASSERT_FALSE(s.isOk());
    EXPECT_NE(s.message().find("allocating external 'x'"), std::string::npos)
        << s.message();
    EXPECT_EQ(f.backend->liveAllocations(), 0u);
  }
  {
    Fixture f;
    ASSERT_TRUE(f.create().isOk());
    EXPECT_EQ(f.backend->liveAllocations(), 4u); // arena + 3 externals
    f.exec.reset();
    EXPECT_EQ(f.backend->liveAllocations(), 0u);
  }
}

// An artifact with an empty arena and an empty external works.
TEST(Executor, EmptyArenaAndEmptyTensor) {
  TestArtifact t = TestArtifact::valid();
  t.manifest["arena"]["size"] = 0;
  t.manifest["buffers"] = {{{"id", 0},
                            {"kind", "external"},
                            {"role", "input"},
                            {"name", "e"},
                            {"dtype", "f32"},
                            {"shape", {0}}}};
  t.manifest["kernels"] = nlohmann::json::array();
  t.manifest["entries"] = {
      {{"name", "forward"}, {"steps", nlohmann::json::array()}}};
  Fixture f(t);
  ASSERT_TRUE(f.create().isOk());
  ASSERT_TRUE(f.exec->setExternal("e", nullptr, 0).isOk());
  EXPECT_TRUE(f.exec->run("forward").isOk());
}

// A GEMM epilogue's bias is a read (an unset bias parameter is reported),
// its aux a write (the "pre" output counts as set after the run); both reach
// the backend and count in the step's profiled bytes.
TEST(Executor, GemmEpilogueOperands) {
  Fixture f(TestArtifact::withEpilogue("gelu_aux_bias"));
  ASSERT_TRUE(f.create().isOk());
  ASSERT_TRUE(f.exec->setExternal("x", kX.data(), 24).isOk());
  ASSERT_TRUE(f.exec->setExternal("w", kW.data(), 24).isOk());
  Status s = f.exec->run("forward");
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("parameter 'bias' was never set"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(f.count("gemm"), 0u);

  const std::vector<float> bias = {0.5f, -14.0f}; // pre: -13.5 -6.5 -22.5 1
  ASSERT_TRUE(f.exec->setExternal("bias", bias.data(), 8).isOk());
  EXPECT_FALSE(f.exec->isExternalSet("pre"));
  s = f.exec->run("forward");
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(f.count("gemm gelu_aux_bias"), 1u);
  EXPECT_TRUE(f.exec->isExternalSet("pre"));
  std::vector<float> pre(4), out(4), want = expected(kX, kW);
  ASSERT_TRUE(f.exec->getExternal("pre", pre.data(), 16).isOk());
  ASSERT_TRUE(f.exec->getExternal("out", out.data(), 16).isOk());
  // gelu_tanh(pre): about 0 for the negative entries, 0.841192 for 1.
  const float gelu[4] = {0.0f, 0.0f, 0.0f, 0.841192f};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(pre[i], want[i] + bias[i % 2]) << i;
    EXPECT_NEAR(out[i], gelu[i], 1e-5) << i;
  }

  std::vector<StepProfile> steps;
  ASSERT_TRUE(f.exec->profile("forward", 1, steps).isOk());
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[1].kind, "gemm");
  // The label names the GEMM's m x n x k and its epilogue.
  EXPECT_EQ(steps[1].label, "gemm 2x2x3 gelu_aux_bias");
  // a (f32 2x3) + b (3x2) + c (2x2) + bias (2) + aux (2x2), 4 bytes each.
  EXPECT_EQ(steps[1].bytes, (6 + 6 + 4 + 2 + 4) * 4);
}

// The activation and the bias are independent: relu without a bias needs no
// bias parameter; relu_bias adds it first; gelu_aux writes P itself as pre.
// P = (x + x) @ w = -14 7.5 -23 15.
TEST(Executor, GemmEpiloguesWithoutBiasAndRelu) {
  const std::vector<float> p = expected(kX, kW);
  {
    Fixture f(TestArtifact::withEpilogue("relu"));
    ASSERT_TRUE(f.create().isOk());
    ASSERT_TRUE(f.exec->setExternal("x", kX.data(), 24).isOk());
    ASSERT_TRUE(f.exec->setExternal("w", kW.data(), 24).isOk());
    Status s = f.exec->run("forward");
    ASSERT_TRUE(s.isOk()) << s.message();
    EXPECT_EQ(f.count("gemm relu"), 1u);
    std::vector<float> out(4);
    ASSERT_TRUE(f.exec->getExternal("out", out.data(), 16).isOk());
    EXPECT_EQ(out, (std::vector<float>{0, 7.5f, 0, 15}));
  }
  {
    Fixture f(TestArtifact::withEpilogue("relu_bias"));
    ASSERT_TRUE(f.create().isOk());
    ASSERT_TRUE(f.exec->setExternal("x", kX.data(), 24).isOk());
    ASSERT_TRUE(f.exec->setExternal("w", kW.data(), 24).isOk());
    const std::vector<float> bias = {20, -10}; // pre: 6 -2.5 -3 5
    ASSERT_TRUE(f.exec->setExternal("bias", bias.data(), 8).isOk());
    Status s = f.exec->run("forward");
    ASSERT_TRUE(s.isOk()) << s.message();
    EXPECT_EQ(f.count("gemm relu_bias"), 1u);
    std::vector<float> out(4);
    ASSERT_TRUE(f.exec->getExternal("out", out.data(), 16).isOk());
    EXPECT_EQ(out, (std::vector<float>{6, 0, 0, 5}));
  }
  {
    Fixture f(TestArtifact::withEpilogue("gelu_aux"));
    ASSERT_TRUE(f.create().isOk());
    ASSERT_TRUE(f.exec->setExternal("x", kX.data(), 24).isOk());
    ASSERT_TRUE(f.exec->setExternal("w", kW.data(), 24).isOk());
    EXPECT_FALSE(f.exec->isExternalSet("pre"));
    Status s = f.exec->run("forward");
    ASSERT_TRUE(s.isOk()) << s.message();
    EXPECT_EQ(f.count("gemm gelu_aux"), 1u);
    EXPECT_TRUE(f.exec->isExternalSet("pre"));
    std::vector<float> pre(4), out(4);
    ASSERT_TRUE(f.exec->getExternal("pre", pre.data(), 16).isOk());
    ASSERT_TRUE(f.exec->getExternal("out", out.data(), 16).isOk());
    EXPECT_EQ(pre, p);
    // gelu_tanh: about 0 for the negative entries, the identity for 7.5, 15.
    const float gelu[4] = {0.0f, 7.5f, 0.0f, 15.0f};
    for (int i = 0; i < 4; ++i)
      EXPECT_NEAR(out[i], gelu[i], 1e-5) << i;
    std::vector<StepProfile> steps;
    ASSERT_TRUE(f.exec->profile("forward", 1, steps).isOk());
    ASSERT_EQ(steps.size(), 3u);
    // a (f32 2x3) + b (3x2) + c (2x2) + aux (2x2), no bias, 4 bytes each.
    EXPECT_EQ(steps[1].bytes, (6 + 6 + 4 + 4) * 4);
  }
}

/// dy * gelu'(x) of GELU's tanh form, in double (the FakeBackend computes it
/// in float through common/ScalarOps.h).
double geluTanhGrad(double dy, double x) {
  const double k = 0.7978845608028654, c = 0.044715;
  double t = std::tanh(k * (x + c * x * x * x));
  return dy * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * c * x * x));
}

// Contract v3's directions: the backward epilogues read aux (the stored GELU
// input: an unset input is reported, nothing runs) and dgelu_bgrad writes
// its bias (the bias gradient, which counts as set after the run); C =
// gelu_grad(P, x) and the bias gradient its column sums. Bytes count every
// buffer once.
TEST(Executor, GemmBackwardEpilogueOperands) {
  const std::vector<float> p = expected(kX, kW); // -14 7.5 -23 15
  const std::vector<float> x = {0.5f, -1.0f, 2.0f, 0.0f};
  for (const char *name : {"dgelu", "dgelu_bgrad"}) {
    SCOPED_TRACE(name);
    bool bgrad = std::string(name) == "dgelu_bgrad";
    Fixture f(TestArtifact::withEpilogue(name));
    ASSERT_TRUE(f.create().isOk());
    ASSERT_TRUE(f.exec->setExternal("x", kX.data(), 24).isOk());
    ASSERT_TRUE(f.exec->setExternal("w", kW.data(), 24).isOk());
    Status s = f.exec->run("forward");
    ASSERT_FALSE(s.isOk());
    EXPECT_NE(s.message().find("input 'gelu_in' was never set"),
              std::string::npos)
        << s.message();
    EXPECT_EQ(f.count("gemm"), 0u);

    ASSERT_TRUE(f.exec->setExternal("gelu_in", x.data(), 16).isOk());
    if (bgrad) {
      EXPECT_FALSE(f.exec->isExternalSet("dbias"));
    }
    s = f.exec->run("forward");
    ASSERT_TRUE(s.isOk()) << s.message();
    EXPECT_EQ(f.count(std::string("gemm ") + name), 1u);
    std::vector<float> out(4);
    ASSERT_TRUE(f.exec->getExternal("out", out.data(), 16).isOk());
    for (int i = 0; i < 4; ++i)
      EXPECT_NEAR(out[i], geluTanhGrad(p[i], x[i]), 1e-5) << i;
    EXPECT_EQ(out[3], 7.5f); // gelu'(0) = 1/2
    if (bgrad) {
      EXPECT_TRUE(f.exec->isExternalSet("dbias"));
      std::vector<float> dbias(2);
      ASSERT_TRUE(f.exec->getExternal("dbias", dbias.data(), 8).isOk());
      EXPECT_EQ(dbias[0], out[0] + out[2]);
      EXPECT_EQ(dbias[1], out[1] + out[3]);
    }
    std::vector<StepProfile> steps;
    ASSERT_TRUE(f.exec->profile("forward", 1, steps).isOk());
    ASSERT_EQ(steps.size(), 3u);
    // a (f32 2x3) + b (3x2) + c (2x2) + aux (2x2) + the bias gradient (2).
    EXPECT_EQ(steps[1].bytes, (6 + 6 + 4 + 4 + (bgrad ? 2 : 0)) * 4);
  }
}

// profile runs the entry like run (same results), one record per step with
// its label, kind and traffic; unset inputs and bad arguments are errors.
TEST(Executor, ProfilesEachStep) {
  Fixture f;
  ASSERT_TRUE(f.create().isOk());
  std::vector<StepProfile> steps;
  EXPECT_FALSE(f.exec->profile("forward", 3, steps).isOk()); // x, w unset
  ASSERT_TRUE(f.exec->setExternal("x", kX.data(), 24).isOk());
  ASSERT_TRUE(f.exec->setExternal("w", kW.data(), 24).isOk());
  EXPECT_FALSE(f.exec->profile("forward", 0, steps).isOk());
  EXPECT_FALSE(f.exec->profile("backward", 1, steps).isOk());
  Status s = f.exec->profile("forward", 3, steps);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(steps.size(), f.artifact->findEntry("forward")->steps.size());
  for (const StepProfile &p : steps) {
    EXPECT_GT(p.bytes, 0);
    EXPECT_GE(p.medianMs, 0.0);
    EXPECT_FALSE(p.label.empty());
  }
  EXPECT_EQ(steps.front().label.rfind("launch ", 0), 0u);
  std::vector<float> out(4);
  ASSERT_TRUE(f.exec->getExternal("out", out.data(), 16).isOk());
  EXPECT_EQ(out, expected(kX, kW));

  double copyMs = -1;
  ASSERT_TRUE(f.exec->profileCopy(1024, 2, copyMs).isOk());
  EXPECT_GE(copyMs, 0.0);
  EXPECT_FALSE(f.exec->profileCopy(0, 2, copyMs).isOk());
}

// A refresh entry (the 16-bit weight copies of --tfc-weight-copies) runs by
// itself before any other entry whenever a parameter was set since it last
// ran: first use, after a new weight, never twice for the same weights, and
// not before itself.
TEST(Executor, RefreshEntryRunsWhenParamsChange) {
  TestArtifact t = TestArtifact::valid();
  t.manifest["buffers"].push_back({{"id", 7},
                                   {"kind", "external"},
                                   {"role", "state"},
                                   {"name", "w.copy"},
                                   {"dtype", "f32"},
                                   {"shape", {3, 2}}});
  t.manifest["entries"].push_back(
      {{"name", "refresh_weight_copies"},
       {"refresh", true},
       {"steps", {{{"op", "copy"}, {"src", 1}, {"dst", 7}}}}});
  t.rehash();
  Fixture f(t);
  ASSERT_TRUE(f.create().isOk());
  ASSERT_TRUE(f.exec->setExternal("x", kX.data(), 24).isOk());
  ASSERT_TRUE(f.exec->setExternal("w", kW.data(), 24).isOk());
  // The forward's own copy moves 16 bytes; the refresh copies the 24 of w.
  ASSERT_TRUE(f.exec->run("forward").isOk());
  EXPECT_EQ(f.count("copy 24"), 1u);
  std::vector<float> copy(6);
  ASSERT_TRUE(f.exec->getExternal("w.copy", copy.data(), 24).isOk());
  EXPECT_EQ(copy, kW);
  ASSERT_TRUE(f.exec->run("forward").isOk());
  ASSERT_TRUE(f.exec->setExternal("x", kX.data(), 24).isOk()); // an input
  ASSERT_TRUE(f.exec->run("forward").isOk());
  EXPECT_EQ(f.count("copy 24"), 1u);
  std::vector<float> w2 = {2, 2, 2, 2, 2, 2};
  ASSERT_TRUE(f.exec->setExternal("w", w2.data(), 24).isOk());
  ASSERT_TRUE(f.exec->run("refresh_weight_copies").isOk());
  EXPECT_EQ(f.count("copy 24"), 2u); // run directly: once, not twice
  ASSERT_TRUE(f.exec->getExternal("w.copy", copy.data(), 24).isOk());
  EXPECT_EQ(copy, w2);
  ASSERT_TRUE(f.exec->setExternal("w", kW.data(), 24).isOk());
  std::vector<StepProfile> profile;
  ASSERT_TRUE(f.exec->profile("forward", 2, profile).isOk());
  EXPECT_EQ(f.count("copy 24"), 3u); // before a profile too, once
}
