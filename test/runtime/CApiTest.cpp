//===- CApiTest.cpp - the public C API and C++ wrapper --------------------===//
//
// Devices come from wrapBackend(FakeBackend) so these tests do not depend on
// the real backends (tfc_device_create is tested where they are linked).
//
//===----------------------------------------------------------------------===//

#include "runtime/include/tfc/runtime.hpp"
#include "runtime/src/core/CApiInternal.h"
#include "runtime/src/core/Safetensors.h"

#include "test/runtime/FakeBackend.h"
#include "test/runtime/TestUtil.h"

#include <cstdint>
#include <gtest/gtest.h>

#include <cstring>

using namespace tfc::rt;
using namespace tfc::rt::test;

namespace {

/// Returns the status message and frees it ("" for success).
std::string consume(tfc_status s) {
  std::string m = tfc_status_message(s);
  tfc_status_free(s);
  return m;
}

struct CFixture {
  TempDir dir;
  tfc_device *device = wrapBackend(std::make_shared<FakeBackend>());
  tfc_program *program = nullptr;

  CFixture() {
    TestArtifact::valid().write(dir.path());
    EXPECT_EQ(consume(tfc_program_load(device, dir.path().c_str(), &program)),
              "");
  }
  ~CFixture() {
    tfc_program_destroy(program);
    tfc_device_destroy(device);
  }
};

const float kX[6] = {1, 2, 3, 4, 5, 6};
const float kW[6] = {1, -1, 0.5, 2, -3, 0.25};

} // namespace

// Status basics: NULL is success with an empty message; freeing NULL is fine.
TEST(CApi, StatusBasics) {
  EXPECT_STREQ(tfc_status_message(nullptr), "");
  tfc_status_free(nullptr);
  EXPECT_STREQ(tfc_dtype_name(TFC_DTYPE_BF16), "bf16");
  EXPECT_EQ(tfc_dtype_size(TFC_DTYPE_I64), 8u);
  EXPECT_STREQ(tfc_dtype_name(static_cast<tfc_dtype>(42)), "?");
  EXPECT_EQ(tfc_dtype_size(static_cast<tfc_dtype>(-1)), 0u);
  EXPECT_STREQ(tfc_role_name(TFC_ROLE_OUTPUT), "output");
  EXPECT_STREQ(tfc_role_name(TFC_ROLE_STATE), "state");
}

// Loading a bad artifact returns a message naming the problem, no program.
TEST(CApi, LoadErrors) {
  tfc_device *device = wrapBackend(std::make_shared<FakeBackend>());
  EXPECT_STREQ(tfc_device_kind(device), "fake");
  tfc_program *program = reinterpret_cast<tfc_program *>(1);
  std::string m = consume(tfc_program_load(device, "/nonexistent/x", &program));
  EXPECT_NE(m.find("manifest.json"), std::string::npos) << m;
  EXPECT_EQ(program, nullptr);
  EXPECT_NE(consume(tfc_program_load(nullptr, "/x", &program)), "");
  EXPECT_NE(consume(tfc_program_load(device, nullptr, &program)), "");
  tfc_device_destroy(device);
}

// Bindings are enumerated in manifest order with role, dtype and shape.
TEST(CApi, Bindings) {
  CFixture f;
  ASSERT_NE(f.program, nullptr);
  ASSERT_EQ(tfc_program_binding_count(f.program), 3u);
  tfc_binding b;
  ASSERT_EQ(consume(tfc_program_binding(f.program, 1, &b)), "");
  EXPECT_STREQ(b.name, "w");
  EXPECT_EQ(b.role, TFC_ROLE_PARAM);
  EXPECT_EQ(b.dtype, TFC_DTYPE_F32);
  ASSERT_EQ(b.rank, 2u);
  EXPECT_EQ(b.shape[0], 3);
  EXPECT_EQ(b.shape[1], 2);
  EXPECT_EQ(b.bytes, 24u);
  EXPECT_NE(consume(tfc_program_binding(f.program, 3, &b)), "");
  ASSERT_EQ(consume(tfc_program_find_binding(f.program, "out", &b)), "");
  EXPECT_EQ(b.role, TFC_ROLE_OUTPUT);
  EXPECT_NE(consume(tfc_program_find_binding(f.program, "zz", &b)), "");
  ASSERT_EQ(tfc_program_entry_count(f.program), 1u);
  EXPECT_STREQ(tfc_program_entry_name(f.program, 0), "forward");
  EXPECT_EQ(tfc_program_entry_name(f.program, 1), nullptr);
}

// set / run / get through the C API, with size errors reported.
TEST(CApi, SetRunGet) {
  CFixture f;
  ASSERT_EQ(consume(tfc_program_set(f.program, "x", kX, sizeof(kX))), "");
  std::string m = consume(tfc_program_run(f.program, "forward"));
  EXPECT_NE(m.find("parameter 'w' was never set"), std::string::npos) << m;
  ASSERT_EQ(consume(tfc_program_set(f.program, "w", kW, sizeof(kW))), "");
  ASSERT_EQ(consume(tfc_program_run(f.program, "forward")), "");
  float out[4];
  ASSERT_EQ(consume(tfc_program_get(f.program, "out", out, sizeof(out))), "");
  EXPECT_FLOAT_EQ(out[0], 2 * (1 * 1 + 2 * 0.5f + 3 * -3));
  EXPECT_NE(consume(tfc_program_get(f.program, "out", out, 8)), "");
  EXPECT_NE(consume(tfc_program_set(f.program, nullptr, kX, 24)), "");
  EXPECT_NE(consume(tfc_program_run(nullptr, "forward")), "");
  EXPECT_NE(consume(tfc_program_run(f.program, "nope")), "");
}

// Externals load from and save to safetensors; a mismatched file changes
// nothing and names the tensor.
TEST(CApi, Safetensors) {
  CFixture f;
  SafetensorsFile in;
  SafeTensor x{"x", DType::F32, {2, 3}, std::vector<uint8_t>(24)};
  std::memcpy(x.data.data(), kX, 24);
  SafeTensor w{"w", DType::F32, {3, 2}, std::vector<uint8_t>(24)};
  std::memcpy(w.data.data(), kW, 24);
  SafeTensor extra{"extra", DType::I32, {1}, std::vector<uint8_t>(4)};
  in.tensors = {x, w, extra};
  std::string inPath = f.dir.path() + "/in.safetensors";
  ASSERT_TRUE(writeSafetensors(inPath, in).isOk());

  std::string m =
      consume(tfc_program_load_safetensors(f.program, inPath.c_str(), 0));
  EXPECT_NE(m.find("'extra' names no external"), std::string::npos) << m;
  ASSERT_EQ(consume(tfc_program_load_safetensors(f.program, inPath.c_str(), 1)),
            "");
  ASSERT_EQ(consume(tfc_program_run(f.program, "forward")), "");

  std::string outPath = f.dir.path() + "/out.safetensors";
  ASSERT_EQ(consume(tfc_program_save_safetensors(
                f.program, outPath.c_str(), TFC_ROLE_OUTPUT | TFC_ROLE_PARAM)),
            "");
  SafetensorsFile out;
  ASSERT_TRUE(readSafetensors(outPath, out).isOk());
  ASSERT_EQ(out.tensors.size(), 2u);
  ASSERT_NE(out.find("out"), nullptr);
  EXPECT_EQ(out.find("w")->data, w.data);
  EXPECT_EQ(out.find("x"), nullptr);

  SafetensorsFile bad;
  bad.tensors = {{"x", DType::F64, {2, 3}, std::vector<uint8_t>(48)}};
  ASSERT_TRUE(writeSafetensors(inPath, bad).isOk());
  m = consume(tfc_program_load_safetensors(f.program, inPath.c_str(), 1));
  EXPECT_NE(m.find("tensor 'x' is f64 [2,3], the program expects f32 [2,3]"),
            std::string::npos)
      << m;
}

// Restoring needs exactly the externals of the roles asked for: a missing
// parameter, an extra input or an unknown tensor is an error naming it and
// sets nothing; the exact set restores.
TEST(CApi, RestoreNeedsExactlyTheRoles) {
  CFixture f;
  SafeTensor x{"x", DType::F32, {2, 3}, std::vector<uint8_t>(24)};
  std::memcpy(x.data.data(), kX, 24);
  SafeTensor w{"w", DType::F32, {3, 2}, std::vector<uint8_t>(24)};
  std::memcpy(w.data.data(), kW, 24);
  std::string path = f.dir.path() + "/state.safetensors";
  auto restore = [&](std::vector<SafeTensor> tensors, unsigned mask) {
    SafetensorsFile file;
    file.tensors = std::move(tensors);
    EXPECT_TRUE(writeSafetensors(path, file).isOk());
    return consume(tfc_program_restore_safetensors(f.program, path.c_str(),
                                                   mask));
  };
  std::string m = restore({}, TFC_ROLE_PARAM);
  EXPECT_NE(m.find("lacks the parameter 'w'"), std::string::npos) << m;
  m = restore({w, x}, TFC_ROLE_PARAM);
  EXPECT_NE(m.find("tensor 'x' is the program's input, not one of the roles"), std::string::npos)
      << m;
  // Nothing was set by the failed restores.
  ASSERT_EQ(consume(tfc_program_set(f.program, "x", kX, sizeof(kX))), "");
  m = consume(tfc_program_run(f.program, "forward"));
  EXPECT_NE(m.find("parameter 'w' was never set"), std::string::npos) << m;
  SafeTensor unknown{"zz", DType::F32, {1}, std::vector<uint8_t>(4)};
  m = restore({w, unknown}, TFC_ROLE_PARAM);
  EXPECT_NE(m.find("'zz' names no external"), std::string::npos) << m;
  EXPECT_NE(restore({w}, 0), "");
  ASSERT_EQ(restore({w}, TFC_ROLE_PARAM), "");
  ASSERT_EQ(consume(tfc_program_run(f.program, "forward")), "");
  ASSERT_EQ(restore({w, x}, TFC_ROLE_PARAM | TFC_ROLE_INPUT), "");
  EXPECT_NE(consume(tfc_program_restore_safetensors(nullptr, path.c_str(),
                                                    TFC_ROLE_PARAM)),
            "");
}

// Misuse a C caller can make: handles used after destroy, destroyed twice or
// never created; null data, wrong sizes, bad dtype and role values. Each is
// an error status or an ignored call, never a crash (ASan would see a use of
// freed memory here).
TEST(CApi, MisuseIsAnErrorNotACrash) {
  TempDir dir;
  TestArtifact::valid().write(dir.path());
  tfc_device *device = wrapBackend(std::make_shared<FakeBackend>());
  tfc_program *program = nullptr;
  ASSERT_EQ(consume(tfc_program_load(device, dir.path().c_str(), &program)),
            "");
  // Null data and wrong sizes.
  EXPECT_NE(consume(tfc_program_set(program, "x", nullptr, 24))
                .find("null data"),
            std::string::npos);
  float small[2];
  EXPECT_NE(consume(tfc_program_get(program, "out", small, sizeof(small)))
                .find("read into 8 bytes"),
            std::string::npos);
  EXPECT_NE(consume(tfc_program_set(program, "x", kX, 4)).find("set with 4"),
            std::string::npos);
  EXPECT_EQ(tfc_dtype_size(static_cast<tfc_dtype>(99)), 0u);
  EXPECT_STREQ(tfc_role_name(static_cast<tfc_role>(3)), "?");

  // A destroyed program: every call is an error, a second destroy ignored.
  tfc_program_destroy(program);
  std::string m = consume(tfc_program_run(program, "forward"));
  EXPECT_NE(m.find("program handle is not live"), std::string::npos) << m;
  EXPECT_NE(consume(tfc_program_set(program, "x", kX, sizeof(kX))), "");
  EXPECT_EQ(tfc_program_binding_count(program), 0u);
  EXPECT_EQ(tfc_program_entry_count(program), 0u);
  EXPECT_EQ(tfc_program_entry_name(program, 0), nullptr);
  tfc_program_destroy(program);
  // A pointer that never was a program.
  int notAProgram = 0;
  EXPECT_NE(consume(tfc_program_run(
                reinterpret_cast<tfc_program *>(&notAProgram), "forward")),
            "");

  // A destroyed device cannot load programs; destroying it twice is ignored.
  tfc_device_destroy(device);
  tfc_program *again = reinterpret_cast<tfc_program *>(1);
  m = consume(tfc_program_load(device, dir.path().c_str(), &again));
  EXPECT_NE(m.find("device handle is not live"), std::string::npos) << m;
  EXPECT_EQ(again, nullptr);
  EXPECT_STREQ(tfc_device_kind(device), "");
  tfc_device_destroy(device);

  // A status freed twice, and read after free.
  tfc_status s = tfc_program_run(nullptr, "forward");
  ASSERT_NE(s, nullptr);
  tfc_status_free(s);
  EXPECT_STREQ(tfc_status_message(s), "(not a live tfc_status: already freed?)");
  tfc_status_free(s);
}

// The program keeps its device alive: destroying the device first is safe.
TEST(CApi, DeviceOutlivedByProgram) {
  CFixture f;
  tfc_device_destroy(f.device);
  f.device = nullptr;
  ASSERT_EQ(consume(tfc_program_set(f.program, "x", kX, sizeof(kX))), "");
  ASSERT_EQ(consume(tfc_program_set(f.program, "w", kW, sizeof(kW))), "");
  EXPECT_EQ(consume(tfc_program_run(f.program, "forward")), "");
}

// The C++ wrapper: RAII handles, typed get, errors as exceptions.
TEST(CApi, CppWrapper) {
  TempDir dir;
  TestArtifact::valid().write(dir.path());
  tfc_device *device = wrapBackend(std::make_shared<FakeBackend>());
  {
    tfc::runtime::Program p(device, dir.path());
    auto bindings = p.bindings();
    ASSERT_EQ(bindings.size(), 3u);
    EXPECT_EQ(bindings[0].name, "x");
    EXPECT_EQ(bindings[0].shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(p.entries(), std::vector<std::string>{"forward"});
    p.set("x", std::vector<float>(kX, kX + 6));
    p.set("w", std::vector<float>(kW, kW + 6));
    p.run("forward");
    std::vector<float> out = p.get<float>("out");
    ASSERT_EQ(out.size(), 4u);
    EXPECT_FLOAT_EQ(out[0], 2 * (1 * 1 + 2 * 0.5f + 3 * -3));
    EXPECT_THROW(p.run("nope"), tfc::runtime::Error);
    EXPECT_THROW(p.set("x", std::vector<float>(2)), tfc::runtime::Error);
    tfc::runtime::Program moved = std::move(p);
    EXPECT_EQ(moved.binding("w").bytes, 24u);
  }
  EXPECT_THROW(tfc::runtime::Program(device, dir.path() + "/missing"),
               tfc::runtime::Error);
  tfc_device_destroy(device);
}
