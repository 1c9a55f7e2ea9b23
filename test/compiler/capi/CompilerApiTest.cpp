//===- CompilerApiTest.cpp - the compiler's C embedding API ---------------===//
//
// tfc/compiler.h end to end: flags are checked when set (naming the flag),
// a model compiles from a file or from memory through the cache, the
// artifact runs with libtfcrt in the same process, diagnostics name the
// buffer, and null handles are errors, not crashes.
//
//===----------------------------------------------------------------------===//

#include "tfc/compiler.h"
#include "tfc/runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

/// y = x w + b, loss = sum(y * y): two parameters, one input.
const char *kModel = R"(
func.func @loss(%w: tensor<3x4xf32> {tfc.param = "w"}, %b: tensor<4xf32> {tfc.param = "b"},
                %x: tensor<2x3xf32> {tfc.input = "x"}) -> tensor<f32> {
  %y = tfc.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %z = tfc.add %y, %b : tensor<2x4xf32>, tensor<4xf32>
  %s = tfc.mul %z, %z : tensor<2x4xf32>, tensor<2x4xf32>
  %l = tfc.reduce_sum %s dims [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
)";

/// The message of `error` (freed), or "" for success.
std::string take(tfc_compiler_error *error) {
  std::string message = tfc_compiler_error_message(error);
  tfc_compiler_error_destroy(error);
  return message;
}

std::string take(tfc_status status) {
  std::string message = tfc_status_message(status);
  tfc_status_free(status);
  return message;
}

tfc_compiler_error *setFlags(tfc_compiler_session *s,
                             std::vector<const char *> flags) {
  return tfc_compiler_session_set_flags(s, int(flags.size()), flags.data());
}

/// A private TFC_CACHE_DIR for the test process.
class CompilerApi : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/tfc-capi-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir = pattern;
    setenv("TFC_CACHE_DIR", (dir + "/cache").c_str(), 1);
    session = tfc_compiler_session_create();
  }
  void TearDown() override {
    tfc_compiler_session_destroy(session);
    std::string cmd = "rm -rf '" + dir + "'";
    (void)!std::system(cmd.c_str());
  }
  std::string dir;
  tfc_compiler_session *session = nullptr;
};

TEST_F(CompilerApi, VersionAndDefaults) {
  EXPECT_EQ(tfc_compiler_api_version(), TFC_COMPILER_API_VERSION);
  EXPECT_EQ(std::string(tfc_compiler_session_flags(session)),
            "--function=loss\n--fusion=all\n--target=sm_90\n"
            "--precision=f32\n--pad=auto\n");
}

TEST_F(CompilerApi, BadFlagsNameThemselvesAndChangeNothing) {
  EXPECT_NE(take(setFlags(session, {"--precision=bf17"})).find(
                "--precision='bf17': expected"),
            std::string::npos);
  EXPECT_NE(take(setFlags(session, {"--frobnicate=1"})).find(
                "unknown flag --frobnicate"),
            std::string::npos);
  EXPECT_NE(take(setFlags(session, {"precision=bf16"})).find("is not a flag"),
            std::string::npos);
  std::string bad = take(setFlags(session, {"--train-step=optimizer=adamw lr2=1"}));
  EXPECT_NE(bad.find("invalid --train-step options"), std::string::npos) << bad;
  EXPECT_NE(bad.find("lr2"), std::string::npos) << bad;
  bad = take(setFlags(session, {"--train-step=optimizer=adamx"}));
  EXPECT_NE(bad.find("adamx"), std::string::npos) << bad;
  // A value llvm::cl cannot parse (it prints its own message to stderr
  // only) is named in the status too.
  bad = take(setFlags(session, {"--train-step=max-grad-norm=1.x0"}));
  EXPECT_NE(bad.find("invalid value '1.x0' for option max-grad-norm"),
            std::string::npos)
      << bad;
  // A good flag before a bad one in the same call is not applied either.
  EXPECT_NE(take(setFlags(session, {"--target=host", "--pad=-3"})), "");
  EXPECT_NE(std::string(tfc_compiler_session_flags(session)).find("--target=sm_90"),
            std::string::npos);
  EXPECT_EQ(take(setFlags(session, {"--target=host", "--precision=bf16", "--grad"})), "");
  EXPECT_EQ(std::string(tfc_compiler_session_flags(session)),
            "--function=loss\n--grad\n--fusion=all\n--target=host\n"
            "--precision=bf16\n--pad=auto\n");
}

TEST_F(CompilerApi, TrainStepCompilesCachesAndRunsInProcess) {
  ASSERT_EQ(take(setFlags(session, {"--train-step=optimizer=sgd", "--target=host"})), "");
  tfc_compiler_output *out = nullptr;
  ASSERT_EQ(take(tfc_compiler_compile_source(session, "model.mlir", kModel,
                                             std::strlen(kModel), &out)),
            "");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(tfc_compiler_output_cache_hit(out), 0);
  EXPECT_EQ(tfc_compiler_output_accumulate_steps(out), 1);
  EXPECT_GE(tfc_compiler_output_wall_ms(out), 0.0);
  std::string artifact = tfc_compiler_output_artifact_dir(out);
  EXPECT_EQ(artifact.rfind(dir + "/cache/artifacts/", 0), 0u) << artifact;
  tfc_compiler_output_destroy(out);

  // The same model from a file: the cache's entry (the key is the text).
  std::string path = dir + "/model.mlir";
  std::ofstream(path) << kModel;
  ASSERT_EQ(take(tfc_compiler_compile_file(session, path.c_str(), &out)), "");
  EXPECT_EQ(tfc_compiler_output_cache_hit(out), 1);
  EXPECT_EQ(std::string(tfc_compiler_output_artifact_dir(out)), artifact);
  tfc_compiler_output_destroy(out);

  // Run two SGD steps with libtfcrt in this process: the loss falls.
  tfc_device *device = nullptr;
  ASSERT_EQ(take(tfc_device_create("host", &device)), "");
  tfc_program *program = nullptr;
  ASSERT_EQ(take(tfc_program_load(device, artifact.c_str(), &program)), "");
  std::vector<float> w(12), b(4, 0.1f), x(6);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = 0.05f * float(i) - 0.3f;
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = 0.5f - 0.2f * float(i);
  float lr = 0.05f;
  ASSERT_EQ(take(tfc_program_set(program, "w", w.data(), 48)), "");
  ASSERT_EQ(take(tfc_program_set(program, "b", b.data(), 16)), "");
  ASSERT_EQ(take(tfc_program_set(program, "x", x.data(), 24)), "");
  ASSERT_EQ(take(tfc_program_set(program, "lr", &lr, 4)), "");
  float losses[2];
  for (float &loss : losses) {
    ASSERT_EQ(take(tfc_program_run(program, "train_step")), "");
    ASSERT_EQ(take(tfc_program_get(program, "loss", &loss, 4)), "");
  }
  EXPECT_TRUE(std::isfinite(losses[0]));
  EXPECT_LT(losses[1], losses[0]);
  tfc_program_destroy(program);
  tfc_device_destroy(device);
}

TEST_F(CompilerApi, NoCacheCompilesIntoAPrivateDirectory) {
  ASSERT_EQ(take(setFlags(session, {"--target=host", "--no-cache"})), "");
  tfc_compiler_output *out = nullptr;
  ASSERT_EQ(take(tfc_compiler_compile_source(session, nullptr, kModel,
                                             std::strlen(kModel), &out)),
            "");
  std::string artifact = tfc_compiler_output_artifact_dir(out);
  EXPECT_EQ(artifact.find(dir + "/cache"), std::string::npos) << artifact;
  EXPECT_EQ(access((artifact + "/manifest.json").c_str(), R_OK), 0);
  tfc_compiler_output_destroy(out);
  (void)!std::system(("rm -rf '" + artifact + "'").c_str());
}

TEST_F(CompilerApi, DiagnosticsNameTheBuffer) {
  const char *broken = "func.func @loss(%x: tensor<2xf32>) -> tensor<f32> {\n"
                       "  %y = tfc.frob %x\n}\n";
  tfc_compiler_output *out = nullptr;
  std::string message = take(tfc_compiler_compile_source(
      session, "broken.mlir", broken, std::strlen(broken), &out));
  EXPECT_EQ(out, nullptr);
  EXPECT_NE(message.find("broken.mlir:2:"), std::string::npos) << message;
  message = take(tfc_compiler_compile_file(session, "/nonexistent/m.mlir", &out));
  EXPECT_NE(message.find("cannot open '/nonexistent/m.mlir'"), std::string::npos)
      << message;
}

TEST_F(CompilerApi, NullHandlesAreErrors) {
  tfc_compiler_output *out = nullptr;
  EXPECT_NE(take(tfc_compiler_compile_file(nullptr, "m.mlir", &out)), "");
  EXPECT_NE(take(tfc_compiler_compile_file(session, nullptr, &out)), "");
  EXPECT_NE(take(tfc_compiler_compile_source(session, "m", kModel, 10, nullptr)), "");
  EXPECT_NE(take(tfc_compiler_compile_source(session, "m", nullptr, 10, &out)), "");
  EXPECT_NE(take(tfc_compiler_session_set_flags(nullptr, 0, nullptr)), "");
  EXPECT_NE(take(tfc_compiler_session_set_flags(session, 1, nullptr)), "");
  const char *flags[] = {nullptr};
  EXPECT_NE(take(tfc_compiler_session_set_flags(session, 1, flags)), "");
  EXPECT_STREQ(tfc_compiler_error_message(nullptr), "");
  EXPECT_STREQ(tfc_compiler_output_artifact_dir(nullptr), "");
  EXPECT_EQ(tfc_compiler_output_cache_hit(nullptr), 0);
  tfc_compiler_output_destroy(nullptr);
  tfc_compiler_error_destroy(nullptr);
  tfc_compiler_session_destroy(nullptr);
}

} // namespace
