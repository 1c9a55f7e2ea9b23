//===- ArtifactTest.cpp - artifact loading and validation -----------------===//
//
// Each test starts from the valid TestArtifact, breaks exactly one thing and
// checks that loading fails with an error naming the field.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/core/Artifact.h"
#include "runtime/src/core/FileUtil.h"

#include "test/runtime/TestUtil.h"

#include <cstdint>
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <iterator>
#include <optional>
#include <utility>

using namespace tfc::rt;
using namespace tfc::rt::test;
using nlohmann::json;

namespace {

/// Writes `t` to a fresh directory and loads it.
Status load(const TestArtifact &t, Artifact &out) {
  TempDir dir;
  t.write(dir.path());
  return loadArtifact(dir.path(), out);
}

/// Applies `edit` to a valid artifact and expects an error containing every
/// string in `needles`.
void expectError(const std::function<void(TestArtifact &)> &edit,
                 std::initializer_list<std::string> needles) {
  TestArtifact t = TestArtifact::valid();
  edit(t);
  Artifact a;
  Status s = load(t, a);
  ASSERT_FALSE(s.isOk()) << "expected an error for: " << t.manifest.dump();
  for (const std::string &n : needles)
    EXPECT_NE(s.message().find(n), std::string::npos)
        << "missing '" << n << "' in: " << s.message();
}

/// Edits the manifest only.
void expectManifestError(const std::function<void(json &)> &edit,
                                std::initializer_list<std::string> needles) {
  expectError([&](TestArtifact &t) { edit(t.manifest); }, needles);
}

json &gemmStep(json &m) { return m["entries"][0]["steps"][1]; }

} // namespace

// The valid artifact loads, with aliases resolved to roots and the kernel
// signature read from its host program.
TEST(Artifact, LoadsValid) {
  Artifact a;
  Status s = load(TestArtifact::valid(), a);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(a.arenaSize, 512);
  ASSERT_EQ(a.buffers.size(), 7u);
  EXPECT_EQ(a.buffers[5].aliasOf, 4);
  EXPECT_EQ(a.buffers[6].aliasOf, 2);
  EXPECT_EQ(a.buffers[1].role, BufferRole::Param);
  EXPECT_EQ(a.buffers[4].bytes, 16);
  ASSERT_EQ(a.kernels.size(), 1u);
  EXPECT_EQ(a.kernels[0].block[0], 256u);
  ASSERT_EQ(a.kernels[0].inputs.size(), 2u);
  ASSERT_EQ(a.kernels[0].outputs.size(), 1u);
  EXPECT_EQ(a.kernels[0].outputs[0].shape, (std::vector<int64_t>{2, 3}));
  ASSERT_NE(a.findEntry("forward"), nullptr);
  EXPECT_EQ(a.findEntry("forward")->steps.size(), 3u);
  EXPECT_EQ(a.findEntry("forward")->steps[1].gemm.k, 3);
  EXPECT_NE(a.findExternal("w"), nullptr);
  EXPECT_EQ(a.findExternal("t0"), nullptr);
}

// Training state (optimizer moments, step, loss scale) has its own role.
TEST(Artifact, StateRole) {
  TestArtifact t = TestArtifact::valid();
  t.manifest["buffers"][1]["role"] = "state";
  Artifact a;
  Status s = load(t, a);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(a.buffers[1].role, BufferRole::State);
}

// Buffers listed out of id order load the same (ids, not positions, count).
TEST(Artifact, BuffersInAnyOrder) {
  TestArtifact t = TestArtifact::valid();
  std::swap(t.manifest["buffers"][0], t.manifest["buffers"][6]);
  Artifact a;
  Status s = load(t, a);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(a.buffers[0].name, "x");
}

// Missing, truncated or non-JSON manifests.
TEST(Artifact, MissingOrCorruptManifest) {
  TempDir dir;
  Artifact a;
  Status s = loadArtifact(dir.path() + "/nope", a);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("manifest.json"), std::string::npos);

  std::string text = TestArtifact::valid().manifest.dump();
  for (size_t n : {size_t(0), size_t(1), text.size() / 2, text.size() - 1}) {
    TestArtifact t = TestArtifact::valid();
    t.write(dir.path());
    writeManifest(dir.path(), text.substr(0, n));
    s = loadArtifact(dir.path(), a);
    ASSERT_FALSE(s.isOk()) << n;
    EXPECT_NE(s.message().find("invalid JSON"), std::string::npos)
        << s.message();
  }
  expectManifestError([](json &m) { m = json::array(); },
                      {"expected a JSON object"});
}

// The manifest must match manifest.sha256: an edit the JSON parser cannot
// see (a GEMM's m, a step's buffer) is refused by the digest, and so is a
// missing or damaged digest file.
TEST(Artifact, ManifestDigest) {
  TempDir dir;
  TestArtifact t = TestArtifact::valid();
  t.write(dir.path());
  Artifact a;
  ASSERT_TRUE(loadArtifact(dir.path(), a).isOk());
  std::string text;
  ASSERT_TRUE(readFile(dir.path() + "/manifest.json", text, 1 << 20).isOk());
  std::string edited = text;
  size_t at = edited.find("\"m\": 2");
  ASSERT_NE(at, std::string::npos);
  edited.replace(at, 6, "\"m\": 1");
  writeFile(dir.path() + "/manifest.json", edited);
  Status s = loadArtifact(dir.path(), a);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("manifest.json does not match its SHA-256 in "
                             "manifest.sha256"),
            std::string::npos)
      << s.message();
  writeFile(dir.path() + "/manifest.json", text);
  ASSERT_TRUE(loadArtifact(dir.path(), a).isOk());
  writeFile(dir.path() + "/manifest.sha256", "0000  manifest.json\n");
  EXPECT_FALSE(loadArtifact(dir.path(), a).isOk());
  std::remove((dir.path() + "/manifest.sha256").c_str());
  s = loadArtifact(dir.path(), a);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("no readable manifest.sha256"), std::string::npos)
      << s.message();
}

// A GEMM writes its whole result buffer: an m or batch that leaves rows of
// c unwritten is refused even when the manifest's digest matches.
TEST(Artifact, GemmMustWriteItsWholeResult) {
  TestArtifact t = TestArtifact::valid();
  json *gemm = nullptr;
  for (auto &entry : t.manifest["entries"])
    for (auto &step : entry["steps"])
      if (step["op"] == "gemm")
        gemm = &step;
  ASSERT_NE(gemm, nullptr);
  (*gemm)["m"] = (*gemm)["m"].get<int64_t>() - 1;
  Artifact a;
  Status s = load(t, a);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("a GEMM must write its whole result"),
            std::string::npos)
      << s.message();
}

// Every strict prefix of a valid manifest is rejected.
TEST(Artifact, EveryManifestTruncationFails) {
  TempDir dir;
  TestArtifact t = TestArtifact::valid();
  t.write(dir.path());
  std::string text = t.manifest.dump();
  for (size_t n = 0; n < text.size(); n += 7) {
    writeManifest(dir.path(), text.substr(0, n));
    Artifact a;
    EXPECT_FALSE(loadArtifact(dir.path(), a).isOk()) << n;
  }
}

// Format and version.
TEST(Artifact, FormatAndVersion) {
  expectManifestError([](json &m) { m["format"] = "onnx"; }, {"format"});
  expectManifestError([](json &m) { m.erase("format"); },
                      {"format: missing field"});
  expectManifestError([](json &m) { m["version"] = 2; },
                      {"version", "unsupported artifact version 2"});
  expectManifestError([](json &m) { m["version"] = "1"; },
                      {"version: expected an integer"});
  expectManifestError([](json &m) { m["version"] = 1.0; },
                      {"version: expected an integer"});
}

// Numbers JSON can spell but the runtime cannot use.
TEST(Artifact, HostileNumbers) {
  TempDir dir;
  TestArtifact t = TestArtifact::valid();
  t.write(dir.path());
  std::string text = t.manifest.dump();
  auto replaced = [&](const std::string &from, const std::string &to) {
    std::string s = text;
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  struct {
    std::string from, to, needle;
  } cases[] = {
      {"\"alpha\":1.0", "\"alpha\":1e400", "number overflow"},
      {"\"size\":512", "\"size\":99999999999999999999999", "arena.size"},
      {"\"m\":2", "\"m\":2.5", "m: expected an integer"},
      {"\"version\":1", "\"version\":1,\"version\":1", "duplicate key"},
  };
  for (auto &c : cases) {
    writeManifest(dir.path(), replaced(c.from, c.to));
    Artifact a;
    Status s = loadArtifact(dir.path(), a);
    ASSERT_FALSE(s.isOk()) << c.to;
    EXPECT_NE(s.message().find(c.needle), std::string::npos) << s.message();
  }
}

// Arena size and alignment.
TEST(Artifact, Arena) {
  expectManifestError([](json &m) { m["arena"]["size"] = -1; }, {"arena.size"});
  expectManifestError([](json &m) { m["arena"]["alignment"] = 48; },
                      {"arena.alignment", "power of two"});
  expectManifestError([](json &m) { m.erase("arena"); },
                      {"arena: missing field"});
  expectManifestError(
      [](json &m) { m["arena"]["size"] = 9223372036854775808u; },
      {"arena.size: integer out of range"});
}

// Buffer fields: dtype, shape, kind, role, ids, names.
TEST(Artifact, BufferFields) {
  expectManifestError([](json &m) { m["buffers"][1]["dtype"] = "f8"; },
                      {"buffers[1].dtype", "unknown dtype 'f8'"});
  expectManifestError(
      [](json &m) {
        m["buffers"][1]["shape"] = {3, -2};
      },
      {"buffers[1].shape[1]"});
  expectManifestError(
      [](json &m) {
        m["buffers"][1]["shape"] = {int64_t(1) << 40, int64_t(1) << 40};
      },
      {"buffers[1].shape", "overflows"});
  expectManifestError([](json &m) { m["buffers"][1]["kind"] = "heap"; },
                      {"buffers[1].kind", "unknown buffer kind"});
  expectManifestError([](json &m) { m["buffers"][1]["role"] = "weights"; },
                      {"buffers[1].role", "unknown role"});
  expectManifestError([](json &m) { m["buffers"][1]["name"] = ""; },
                      {"buffers[1].name", "empty"});
  expectManifestError([](json &m) { m["buffers"][1]["name"] = "x"; },
                      {"buffers[1].name", "duplicate external name 'x'"});
  expectManifestError([](json &m) { m["buffers"][1]["id"] = 9; },
                      {"buffers[1].id", "out of range"});
  expectManifestError([](json &m) { m["buffers"][1]["id"] = 0; },
                      {"buffers[1].id", "duplicate id 0"});
  expectManifestError([](json &m) { m["buffers"] = json::object(); },
                      {"buffers: expected an array"});
  expectManifestError([](json &m) { m["buffers"][2] = 5; },
                      {"buffers[2]: expected an object"});
}

// Arena views must lie inside the arena and be aligned.
TEST(Artifact, ArenaViewOutsideArena) {
  expectManifestError([](json &m) { m["buffers"][4]["offset"] = 512; },
                      {"buffers[4].offset", "outside the arena"});
  expectManifestError([](json &m) { m["arena"]["size"] = 270; },
                      {"buffers[4].offset", "outside the arena (size 270)"});
  expectManifestError([](json &m) { m["buffers"][4]["offset"] = 128; },
                      {"buffers[4].offset", "alignment 256"});
  expectManifestError([](json &m) { m["buffers"][4]["offset"] = -256; },
                      {"buffers[4].offset"});
  expectManifestError(
      [](json &m) { m["buffers"][4]["offset"] = 9223372036854775552LL; },
      {"buffers[4].offset", "outside the arena"});
}

// Aliases: size must match the root, ids valid, no cycles.
TEST(Artifact, Aliases) {
  expectManifestError([](json &m) { m["buffers"][5]["shape"] = {5}; },
                      {"buffers[5].of", "16", "20"});
  expectManifestError([](json &m) { m["buffers"][5]["of"] = 7; },
                      {"buffers[5].of", "out of range"});
  expectManifestError([](json &m) { m["buffers"][5]["of"] = 5; },
                      {"buffers[5].of", "itself"});
  expectManifestError(
      [](json &m) {
        m["buffers"][5]["of"] = 6;
        m["buffers"][6]["of"] = 5;
      },
      {"cycle"});
  expectManifestError([](json &m) { m["buffers"][5].erase("of"); },
                      {"buffers[5].of: missing field"});
}

// Kernel records: name, kind, launch limits, files and their hashes.
TEST(Artifact, KernelFields) {
  expectManifestError([](json &m) { m["kernels"][0]["kind"] = "conv"; },
                      {"kernels[0].kind", "unknown kernel kind"});
  expectManifestError([](json &m) { m["kernels"][0]["name"] = "k-add"; },
                      {"kernels[0].name", "not a C identifier"});
  expectManifestError(
      [](json &m) {
        m["kernels"][0]["grid"] = {1, 1};
      },
      {"kernels[0].grid", "3 dimensions"});
  expectManifestError(
      [](json &m) {
        m["kernels"][0]["grid"] = {0, 1, 1};
      },
      {"kernels[0].grid[0]"});
  expectManifestError(
      [](json &m) {
        m["kernels"][0]["block"] = {1024, 2, 1};
      },
      {"kernels[0].block", "1024 threads"});
  expectManifestError([](json &m) { m["kernels"][0]["shared_bytes"] = -4; },
                      {"kernels[0].shared_bytes"});
  expectManifestError([](json &m) { m["kernels"].push_back(m["kernels"][0]); },
                      {"kernels[1].name", "duplicate kernel 'k_add'"});
}

// Kernel files: missing, escaping the directory, hash mismatch, bad hash.
TEST(Artifact, KernelFiles) {
  expectError([](TestArtifact &t) { t.files.erase("kernels/k_add.cu"); },
              {"kernels[0].cuda", "cannot open", "k_add.cu"});
  expectManifestError(
      [](json &m) { m["kernels"][0]["host"] = "../../etc/passwd"; },
      {"kernels[0].host", "must not leave the artifact directory"});
  expectManifestError([](json &m) { m["kernels"][0]["cuda"] = "/etc/passwd"; },
                      {"kernels[0].cuda", "must be relative"});
  expectError(
      [](TestArtifact &t) { t.files["kernels/k_add.cu"] += "// tampered\n"; },
      {"kernels[0].sha256.cuda", "corrupt or modified"});
  expectManifestError(
      [](json &m) { m["kernels"][0]["sha256"]["host"] = "abc"; },
      {"kernels[0].sha256.host", "64 hex digits"});
  expectManifestError([](json &m) { m["kernels"][0]["sha256"].erase("host"); },
                      {"kernels[0].sha256.host: missing field"});
}

// A kernel compiled for the host (target=host) has no CUDA source and no
// launch geometry; geometry without a source is an error.
TEST(Artifact, HostOnlyKernel) {
  auto hostOnly = [](TestArtifact &t) {
    json &k = t.manifest["kernels"][0];
    for (const char *key : {"cuda", "grid", "block", "shared_bytes"})
      k.erase(key);
    k["sha256"].erase("cuda");
    t.files.erase("kernels/k_add.cu");
  };
  TestArtifact t = TestArtifact::valid();
  hostOnly(t);
  Artifact a;
  Status s = load(t, a);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_TRUE(a.kernels[0].cudaSource.empty());
  EXPECT_FALSE(a.kernels[0].hostProgram.empty());
  expectError(
      [&](TestArtifact &t) {
        hostOnly(t);
        t.manifest["kernels"][0]["grid"] = {1, 1, 1};
      },
      {"kernels[0].grid", "present without a CUDA source"});
}

// Host programs: the signature is read and checked against the manifest.
TEST(Artifact, HostProgramSignature) {
  auto withHost = [](const std::string &program) {
    return [program](TestArtifact &t) {
      t.files["kernels/k_add.host"] = program;
      t.rehash();
    };
  };
  expectError(withHost(""), {"kernels[0].host", "empty host program"});
  expectError(withHost("tfc-host-program 2\nkind pointwise\n"),
              {"kernels[0].host", "line 1", "version '2'"});
  expectError(withHost("tfc-host-program 1\nkind row_reduction\nin %0 f32 2x3\n"
                       "in %1 f32 2x3\nop %2 add f32 2x3 (%0, %1)\nout %2\n"),
              {"host program kind 'row_reduction'", "'pointwise'"});
  expectError(withHost("tfc-host-program 1\nkind pointwise\nin %0 f32 2x\n"),
              {"line 3", "bad shape"});
  expectError(withHost("tfc-host-program 1\nkind pointwise\nin %0 q8 2\n"),
              {"line 3", "unknown dtype"});
  expectError(withHost("tfc-host-program 1\nkind pointwise\nin %0 f32 2\n"
                       "out %7\n"),
              {"line 4", "%7 is not defined"});
  expectError(withHost("tfc-host-program 1\nkind pointwise\nin %0 f32 2\n"
                       "in %0 f32 2\n"),
              {"line 4", "defined twice"});
}

// Steps: unknown ops/kernels, operand counts and sizes, bad buffer ids.
TEST(Artifact, Steps) {
  auto step = [](json &m, int i) -> json & {
    return m["entries"][0]["steps"][i];
  };
  expectManifestError([&](json &m) { step(m, 0)["op"] = "fill"; },
                      {"entries[0].steps[0].op", "unknown step op"});
  expectManifestError([&](json &m) { step(m, 0)["kernel"] = "k9"; },
                      {"entries[0].steps[0].kernel", "unknown kernel 'k9'"});
  expectManifestError(
      [&](json &m) { step(m, 0)["args"] = {0}; },
      {"entries[0].steps[0].args", "has 2 inputs", "step gives 1"});
  expectManifestError([&](json &m) { step(m, 0)["results"] = json::array(); },
                      {"entries[0].steps[0].results", "has 1 outputs"});
  expectManifestError(
      [&](json &m) {
        step(m, 0)["args"] = {0, 1};
      },
      {"entries[0].steps[0].args[1]", "f32 3x2", "expects f32 2x3"});
  expectManifestError([&](json &m) { step(m, 0)["results"] = {4}; },
                      {"entries[0].steps[0].results[0]"});
  expectManifestError(
      [&](json &m) {
        step(m, 0)["args"] = {0, 17};
      },
      {"entries[0].steps[0].args[1]", "buffer id 17", "out of range"});
  expectManifestError([&](json &m) { step(m, 2)["dst"] = 3; },
                      {"entries[0].steps[2]", "16 bytes", "24 bytes"});
  expectManifestError([&](json &m) { step(m, 2)["src"] = -1; },
                      {"entries[0].steps[2].src", "out of range"});
  expectManifestError([&](json &m) { step(m, 2)["dst"] = 4; },
                      {"entries[0].steps[2]", "overlap"});
  expectManifestError([&](json &m) { m["entries"].push_back(m["entries"][0]); },
                      {"entries[1].name", "duplicate entry 'forward'"});
  expectManifestError([&](json &m) { m["entries"][0]["steps"] = 3; },
                      {"entries[0].steps: expected an array"});
}

// Arena buffers that share bytes must not be live at once (an offset moved
// onto another buffer passes every per-step check): a second k_add result
// (buffer 7) placed over buffer 3 while the GEMM still reads 3 fails; the
// same placement once 3 is dead loads.
TEST(Artifact, ArenaBuffersOverlapOnlyWhenNotLive) {
  auto addBuffer7 = [](json &m, int64_t offset) {
    m["buffers"].push_back({{"id", 7},
                            {"kind", "arena"},
                            {"offset", offset},
                            {"dtype", "f32"},
                            {"shape", {2, 3}}});
  };
  json extraAdd = {{"op", "launch"},
                   {"kernel", "k_add"},
                   {"args", {0, 0}},
                   {"results", {7}}};
  expectManifestError(
      [&](json &m) {
        addBuffer7(m, 0);
        auto &steps = m["entries"][0]["steps"];
        steps.insert(steps.begin() + 1, extraAdd); // 3 live over steps 0..2
      },
      {"entries[0]", "arena buffers 3 (bytes 0..24, steps 0..2) and 7",
       "steps 1..1", "overlap while both are live"});
  TestArtifact t = TestArtifact::valid();
  addBuffer7(t.manifest, 0);
  t.manifest["entries"][0]["steps"].push_back(extraAdd); // after 3's last use
  Artifact a;
  Status s = load(t, a);
  EXPECT_TRUE(s.isOk()) << s.message();
}

// GEMM descriptors: every field checked against its buffers.
TEST(Artifact, GemmFields) {
  expectManifestError([](json &m) { gemmStep(m).erase("ldb"); },
                      {"steps[1].ldb: missing field"});
  expectManifestError(
      [](json &m) {
        gemmStep(m)["k"] = 4;
        gemmStep(m)["lda"] = 4;
      },
      {"steps[1]", "operand a reaches element 8", "has 6"});
  expectManifestError([](json &m) { gemmStep(m)["m"] = 0; },
                      {"steps[1].m", "out of range"});
  expectManifestError([](json &m) { gemmStep(m)["lda"] = 2; },
                      {"steps[1].lda", "< row length 3"});
  expectManifestError([](json &m) { gemmStep(m)["a_type"] = "f16"; },
                      {"steps[1].a_type", "buffer 3 is f32"});
  expectManifestError([](json &m) { gemmStep(m)["c_type"] = "i32"; },
                      {"steps[1].c_type", "not a floating-point"});
  expectManifestError([](json &m) { m["entries"][0]["refresh"] = "yes"; },
                      {"entries[0].refresh", "expected a boolean"});
  expectManifestError([](json &m) { gemmStep(m)["compute_type"] = "f16"; },
                      {"steps[1].compute_type", "(expected 'f32' or 'tf32'"});
  // cuBLASLt's RELU_AUX_BIAS stores a bit mask, not pre: not a tfc epilogue.
  expectManifestError(
      [](json &m) { gemmStep(m)["epilogue"] = "relu_aux_bias"; },
      {"steps[1].epilogue", "unknown epilogue 'relu_aux_bias'",
       "(expected none, bias, relu, relu_bias, gelu, gelu_bias, gelu_aux, "
       "gelu_aux_bias, dgelu or dgelu_bgrad)"});
  expectManifestError([](json &m) { gemmStep(m)["alpha"] = "one"; },
                      {"steps[1].alpha: expected a number"});
  expectManifestError([](json &m) { gemmStep(m)["transpose_a"] = 0; },
                      {"steps[1].transpose_a: expected a boolean"});
  expectManifestError(
      [](json &m) {
        gemmStep(m)["batch"] = 2;
        gemmStep(m)["stride_a"] = 6;
      },
      {"steps[1]", "operand a reaches element 12"});
  expectManifestError(
      [](json &m) {
        gemmStep(m)["batch"] = 2;
        gemmStep(m)["stride_c"] = 0;
        gemmStep(m)["m"] = 1; // fits, but both batches write the same c
      },
      {"steps[1].stride_c", "overlap"});
  expectManifestError([](json &m) { gemmStep(m)["c"] = 3; },
                      {"steps[1]", "c overlaps an input"});
  expectManifestError([](json &m) { gemmStep(m)["a"] = 99; },
                      {"steps[1].a", "out of range"});
}

namespace {

/// The ten manifest names of contracts v2 and v3, in the table's (enum)
/// order.
const char *const kEpilogueNames[] = {
    "none",      "bias",     "relu",          "relu_bias", "gelu",
    "gelu_bias", "gelu_aux", "gelu_aux_bias", "dgelu",     "dgelu_bgrad"};

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool startsWith(const std::string &s, const std::string &prefix) {
  return s.rfind(prefix, 0) == 0;
}

/// The contracts' spelling rules for the bias and aux fields: the bias is
/// read by the names ending in "bias" and written (the bias gradient) by
/// dgelu_bgrad; aux is written by the names starting with "gelu_aux" and
/// read by those starting with "dgelu".
EpilogueOperand biasBySpelling(const std::string &name) {
  return endsWith(name, "bias")     ? EpilogueOperand::Read
         : endsWith(name, "_bgrad") ? EpilogueOperand::Written
                                    : EpilogueOperand::None;
}
EpilogueOperand auxBySpelling(const std::string &name) {
  return startsWith(name, "gelu_aux") ? EpilogueOperand::Written
         : startsWith(name, "dgelu")  ? EpilogueOperand::Read
                                      : EpilogueOperand::None;
}

} // namespace

// Every epilogue name parses, round-trips and loads with its bias and aux
// buffer ids; the predicates follow the contracts' spelling rules: a bias
// read exactly by the names ending in "bias" and written by dgelu_bgrad,
// aux written exactly by those starting with "gelu_aux" and read by
// "dgelu*", relu for "relu*", tanh gelu for "gelu*", its gradient for
// "dgelu*".
TEST(Artifact, GemmEpiloguesLoad) {
  Artifact a;
  ASSERT_TRUE(load(TestArtifact::valid(), a).isOk());
  const GemmDesc &plain = a.findEntry("forward")->steps[1].gemm;
  EXPECT_EQ(plain.epilogue, GemmEpilogue::None);
  EXPECT_EQ(plain.bias, -1);
  EXPECT_EQ(plain.aux, -1);
  ASSERT_EQ(std::size(kGemmEpilogues), std::size(kEpilogueNames));
  for (const std::string name : kEpilogueNames) {
    SCOPED_TRACE(name);
    std::optional<GemmEpilogue> e = parseGemmEpilogue(name);
    ASSERT_TRUE(e);
    EXPECT_EQ(gemmEpilogueName(*e), name);
    EXPECT_EQ(epilogueBias(*e), biasBySpelling(name));
    EXPECT_EQ(epilogueAux(*e), auxBySpelling(name));
    bool bias = biasBySpelling(name) != EpilogueOperand::None,
         aux = auxBySpelling(name) != EpilogueOperand::None;
    EXPECT_EQ(epilogueHasBias(*e), bias);
    EXPECT_EQ(epilogueHasAux(*e), aux);
    EXPECT_EQ(epilogueActivation(*e),
              startsWith(name, "relu")    ? GemmActivation::Relu
              : startsWith(name, "gelu")  ? GemmActivation::GeluTanh
              : startsWith(name, "dgelu") ? GemmActivation::GeluTanhGrad
                                          : GemmActivation::None);
    Status s = load(TestArtifact::withEpilogue(name), a);
    ASSERT_TRUE(s.isOk()) << s.message();
    const GemmDesc &g = a.findEntry("forward")->steps[1].gemm;
    EXPECT_EQ(g.epilogue, *e);
    EXPECT_EQ(g.bias, bias ? 7 : -1);
    EXPECT_EQ(g.aux, aux ? (bias ? 8 : 7) : -1);
  }
  EXPECT_FALSE(parseGemmEpilogue("bgrad"));
  EXPECT_FALSE(parseGemmEpilogue("relu_aux"));
  EXPECT_FALSE(parseGemmEpilogue("GELU"));
  EXPECT_FALSE(parseGemmEpilogue("drelu_bgrad"));
  EXPECT_FALSE(parseGemmEpilogue("bgradb"));
  EXPECT_EQ(gemmEpilogueNameList(),
            "none, bias, relu, relu_bias, gelu, gelu_bias, gelu_aux, "
            "gelu_aux_bias, dgelu or dgelu_bgrad");
}

// For every name: "bias" missing where the name ends in "bias" (or is
// dgelu_bgrad) and present where it does not, "aux" missing for gelu_aux*
// and dgelu* and present elsewhere, are errors naming the field and the
// epilogue; batch 1 and beta 0 hold for every epilogue but none.
TEST(Artifact, GemmEpilogueOperandsPerName) {
  for (const std::string name : kEpilogueNames) {
    SCOPED_TRACE(name);
    std::string quoted = "epilogue '" + name + "'";
    bool bias = biasBySpelling(name) != EpilogueOperand::None,
         aux = auxBySpelling(name) != EpilogueOperand::None;
    auto expectEdit = [&](const std::function<void(json &)> &edit,
                          std::initializer_list<std::string> needles) {
      expectError(
          [&](TestArtifact &t) {
            t = TestArtifact::withEpilogue(name);
            edit(t.manifest);
          },
          needles);
    };
    if (bias)
      expectEdit([](json &m) { gemmStep(m).erase("bias"); },
                 {"steps[1].bias: missing field (" + quoted + " needs it)"});
    else
      expectEdit([](json &m) { gemmStep(m)["bias"] = 1; },
                 {"steps[1].bias: not allowed with " + quoted});
    if (aux)
      expectEdit([](json &m) { gemmStep(m).erase("aux"); },
                 {"steps[1].aux: missing field (" + quoted + " needs it)"});
    else
      expectEdit([](json &m) { gemmStep(m)["aux"] = 4; },
                 {"steps[1].aux: not allowed with " + quoted});
    if (name == "none")
      continue;
    expectEdit(
        [](json &m) {
          gemmStep(m)["m"] = 1;
          gemmStep(m)["batch"] = 2;
          gemmStep(m)["stride_c"] = 2;
        },
        {"steps[1].batch", "2 with " + quoted, "need batch 1"});
    expectEdit([](json &m) { gemmStep(m)["beta"] = 1.0; },
               {"steps[1].beta", "with " + quoted, "never accumulates"});
  }
}

// Without a bias, aux is still checked: c_type, footprint, and no overlap
// with a, b or c.
TEST(Artifact, GemmAuxWithoutBias) {
  auto expectAuxError = [](const std::function<void(json &)> &edit,
                           std::initializer_list<std::string> needles) {
    expectError(
        [&](TestArtifact &t) {
          t = TestArtifact::withEpilogue("gelu_aux");
          edit(t.manifest);
        },
        needles);
  };
  expectAuxError([](json &m) { m["buffers"][7]["dtype"] = "f16"; },
                 {"steps[1].aux", "buffer 7 is f16 but c_type is f32"});
  expectAuxError([](json &m) { m["buffers"][7]["shape"] = {3}; },
                 {"steps[1].aux", "ldc = 2 reach element 4", "has 3"});
  for (auto [id, what] :
       {std::pair<int, const char *>{3, "a"}, {1, "b"}, {5, "c"}})
    expectAuxError([id = id](json &m) { gemmStep(m)["aux"] = id; },
                   {"steps[1]", std::string("aux overlaps ") + what});
}

// Loading the test artifact with `epilogue`, edited by `edit`, fails with
// every one of `needles` in the message.
static void expectEpilogueError(const std::string &epilogue,
                                const std::function<void(json &)> &edit,
                                std::initializer_list<std::string> needles) {
  expectError(
      [&](TestArtifact &t) {
        t = TestArtifact::withEpilogue(epilogue);
        edit(t.manifest);
      },
      needles);
}

// Every epilogue rule of the contract rejects with the field's path: bias
// and aux present exactly when the epilogue uses them, batch 1, beta 0,
// c_type operands large enough, and nothing written overlapping.
TEST(Artifact, GemmEpilogueRules) {
  auto buffer = [](json &m, int id) -> json & { return m["buffers"][id]; };
  // Presence.
  expectEpilogueError("bias", [](json &m) { gemmStep(m)["epilogue"] = "none"; },
                      {"steps[1].bias: not allowed with epilogue 'none'"});
  expectEpilogueError(
      "gelu_bias", [](json &m) { gemmStep(m).erase("bias"); },
      {"steps[1].bias: missing field", "epilogue 'gelu_bias' needs it"});
  expectEpilogueError(
      "gelu_aux_bias", [](json &m) { gemmStep(m).erase("aux"); },
      {"steps[1].aux: missing field", "epilogue 'gelu_aux_bias'"});
  expectEpilogueError("gelu_aux_bias",
                      [](json &m) { gemmStep(m)["epilogue"] = "gelu_bias"; },
                      {"steps[1].aux: not allowed with epilogue 'gelu_bias'"});
  expectEpilogueError("bias", [](json &m) { gemmStep(m)["bias"] = "7"; },
                      {"steps[1].bias: expected an integer"});
  expectEpilogueError("bias", [](json &m) { gemmStep(m)["bias"] = 99; },
                      {"steps[1].bias", "buffer id 99 out of range"});
  // Batch and beta.
  expectEpilogueError(
      "bias",
      [](json &m) {
        gemmStep(m)["m"] = 1;
        gemmStep(m)["batch"] = 2;
        gemmStep(m)["stride_c"] = 2; // c is 2 batches of 1 row: all written
      },
      {"steps[1].batch", "2 with epilogue 'bias'", "need batch 1"});
  expectEpilogueError("gelu_bias", [](json &m) { gemmStep(m)["beta"] = 1.0; },
                      {"steps[1].beta", "never accumulates"});
  // Types and sizes.
  expectEpilogueError("bias", [&](json &m) { buffer(m, 7)["dtype"] = "f16"; },
                      {"steps[1].bias", "buffer 7 is f16 but c_type is f32"});
  expectEpilogueError("bias", [&](json &m) { buffer(m, 7)["shape"] = {1}; },
                      {"steps[1].bias", "has 1 elements", "needs n = 2"});
  expectEpilogueError("gelu_aux_bias",
                      [&](json &m) { buffer(m, 8)["dtype"] = "bf16"; },
                      {"steps[1].aux", "buffer 8 is bf16 but c_type is f32"});
  expectEpilogueError("gelu_aux_bias",
                      [&](json &m) { buffer(m, 8)["shape"] = {3}; },
                      {"steps[1].aux", "ldc = 2 reach element 4", "has 3"});
  // Overlaps: c with the bias; aux with anything else.
  expectEpilogueError("bias",
                      [](json &m) { gemmStep(m)["bias"] = 5; }, // alias of c
                      {"steps[1]", "c overlaps the bias"});
  for (auto [id, what] :
       {std::pair<int, const char *>{3, "a"}, {1, "b"}, {5, "c"}}) {
    expectEpilogueError("gelu_aux_bias",
                        [id = id](json &m) { gemmStep(m)["aux"] = id; },
                        {"steps[1]", std::string("aux overlaps ") + what});
  }
  expectEpilogueError("gelu_aux_bias", [](json &m) { gemmStep(m)["bias"] = 8; },
                      {"steps[1]", "aux overlaps bias"});
}

// Contract v3's directions: dgelu* read aux (the stored GELU input), so it
// may share memory with a and b (read too) but not with c; dgelu_bgrad
// writes the bias gradient, which must stay apart from a, b, aux and c and
// fill its buffer exactly (n elements, like c's whole-result rule).
TEST(Artifact, GemmBackwardEpilogueDirections) {
  auto loads = [](const std::string &epilogue,
                  const std::function<void(json &)> &edit) {
    TestArtifact t = TestArtifact::withEpilogue(epilogue);
    edit(t.manifest);
    t.rehash();
    Artifact a;
    Status s = load(t, a);
    EXPECT_TRUE(s.isOk()) << epilogue << ": " << s.message();
  };
  /// Appends arena view `id` of f32 `shape` at byte `offset`.
  auto arenaView = [](json &m, int id, int offset, std::vector<int> shape) {
    m["arena"]["size"] = 1024;
    m["buffers"].push_back({{"id", id},
                            {"kind", "arena"},
                            {"offset", offset},
                            {"dtype", "f32"},
                            {"shape", shape}});
  };
  for (const char *name : {"dgelu", "dgelu_bgrad"}) {
    SCOPED_TRACE(name);
    // aux read from a's or b's buffer: all three are read.
    loads(name, [](json &m) { gemmStep(m)["aux"] = 3; });
    loads(name, [](json &m) { gemmStep(m)["aux"] = 1; });
    // ... but never from what the GEMM writes.
    expectEpilogueError(name, [](json &m) { gemmStep(m)["aux"] = 5; }, // alias of c
            {"steps[1]", "aux overlaps c"});
    int auxId = std::string(name) == "dgelu" ? 7 : 8; // after dbias
    expectEpilogueError(name, [&](json &m) { m["buffers"][auxId]["dtype"] = "f16"; },
            {"steps[1].aux", "is f16 but c_type is f32"});
  }
  // The forward aux (written) still may not share a's buffer.
  expectEpilogueError("gelu_aux", [](json &m) { gemmStep(m)["aux"] = 3; },
          {"steps[1]", "aux overlaps a"});
  // The bias gradient: exactly n elements, apart from everything else.
  expectEpilogueError("dgelu_bgrad", [](json &m) { m["buffers"][7]["shape"] = {3}; },
          {"steps[1].bias", "has 3 elements",
           "the bias gradient writes exactly n = 2"});
  expectEpilogueError("dgelu_bgrad", [](json &m) { gemmStep(m)["bias"] = 6; }, // out
          {"steps[1].bias", "has 4 elements"});
  expectEpilogueError("dgelu_bgrad",
          [&](json &m) {
            arenaView(m, 9, 0, {2}); // inside a (buffer 3, bytes 0..24)
            gemmStep(m)["bias"] = 9;
          },
          {"steps[1]", "the bias gradient (bias) overlaps a"});
  expectEpilogueError("dgelu_bgrad",
          [&](json &m) {
            arenaView(m, 9, 0, {2});
            gemmStep(m)["a"] = 0; // x, f32 2x3: a moves off the arena
            gemmStep(m)["b"] = 3; // and b onto it (3x2 = 6 elements)
            gemmStep(m)["bias"] = 9;
          },
          {"steps[1]", "the bias gradient (bias) overlaps b"});
  expectEpilogueError("dgelu_bgrad",
          [&](json &m) {
            arenaView(m, 9, 256, {2}); // inside c (buffer 4)
            gemmStep(m)["bias"] = 9;
          },
          {"steps[1]", "c overlaps the bias"});
  expectEpilogueError("dgelu_bgrad",
          [&](json &m) {
            arenaView(m, 9, 512, {2, 2});
            arenaView(m, 10, 512, {2});
            gemmStep(m)["aux"] = 9;
            gemmStep(m)["bias"] = 10;
          },
          {"steps[1]", "aux overlaps bias"});
  // A read bias next to a read aux would be fine, but no epilogue has both;
  // the same two views for dgelu_bgrad apart load.
  loads("dgelu_bgrad", [&](json &m) {
    arenaView(m, 9, 512, {2, 2});
    arenaView(m, 10, 768, {2});
    gemmStep(m)["aux"] = 9;
    gemmStep(m)["bias"] = 10;
  });
}

// The bias may share a buffer with an input: both are only read.
TEST(Artifact, GemmBiasMayBeAnInput) {
  TestArtifact t = TestArtifact::withEpilogue("bias");
  gemmStep(t.manifest)["bias"] = 1; // w, f32 3x2: at least n = 2 elements
  Artifact a;
  Status s = load(t, a);
  EXPECT_TRUE(s.isOk()) << s.message();
}

// Transposed operands use the transposed storage extents.
TEST(Artifact, GemmTransposeExtents) {
  TestArtifact t = TestArtifact::valid();
  // w is 3x2 f32; with transpose_b it is read as stored n x k = 2x3, ldb 3.
  gemmStep(t.manifest)["transpose_b"] = true;
  gemmStep(t.manifest)["ldb"] = 3;
  Artifact a;
  EXPECT_TRUE(load(t, a).isOk());
  gemmStep(t.manifest)["ldb"] = 2; // < k
  Status s = load(t, a);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("ldb"), std::string::npos) << s.message();
}
