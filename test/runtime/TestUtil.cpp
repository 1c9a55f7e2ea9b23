//===- TestUtil.cpp - helpers for the runtime unit tests ------------------===//

#include "test/runtime/TestUtil.h"
#include "runtime/src/core/Artifact.h"

#include "runtime/src/core/Sha256.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace tfc::rt::test {

TempDir::TempDir() {
  std::string base = std::filesystem::temp_directory_path().string();
  std::string tmpl = base + "/tfcrt-test-XXXXXX";
  if (!mkdtemp(tmpl.data()))
    throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void writeFile(const std::string &path, const std::string &content) {
  std::filesystem::create_directories(
      std::filesystem::path(path).parent_path());
  std::ofstream f(path, std::ios::binary);
  f << content;
  if (!f)
    throw std::runtime_error("cannot write " + path);
}

TestArtifact TestArtifact::valid() {
  TestArtifact t;
  t.files["kernels/k_add.cu"] =
      "extern \"C\" __global__ void k_add(const float* __restrict__ in0, "
      "const float* __restrict__ in1, float* __restrict__ out0) {}\n";
  t.files["kernels/k_add.host"] = "tfc-host-program 1\n"
                                  "kind pointwise\n"
                                  "in %0 f32 2x3\n"
                                  "in %1 f32 2x3\n"
                                  "op %2 add f32 2x3 (%0, %1)\n"
                                  "out %2\n";
  using J = nlohmann::json;
  t.manifest = J{
      {"format", "tfc-artifact"},
      {"version", 1},
      {"arena", {{"size", 512}, {"alignment", 256}}},
      {"buffers", J::array({
                      {{"id", 0},
                       {"kind", "external"},
                       {"role", "input"},
                       {"name", "x"},
                       {"dtype", "f32"},
                       {"shape", {2, 3}}},
                      {{"id", 1},
                       {"kind", "external"},
                       {"role", "param"},
                       {"name", "w"},
                       {"dtype", "f32"},
                       {"shape", {3, 2}}},
                      {{"id", 2},
                       {"kind", "external"},
                       {"role", "output"},
                       {"name", "out"},
                       {"dtype", "f32"},
                       {"shape", {2, 2}}},
                      {{"id", 3},
                       {"kind", "arena"},
                       {"offset", 0},
                       {"dtype", "f32"},
                       {"shape", {2, 3}}},
                      {{"id", 4},
                       {"kind", "arena"},
                       {"offset", 256},
                       {"dtype", "f32"},
                       {"shape", {2, 2}}},
                      {{"id", 5},
                       {"kind", "alias"},
                       {"of", 4},
                       {"dtype", "f32"},
                       {"shape", {4}}},
                      {{"id", 6},
                       {"kind", "alias"},
                       {"of", 2},
                       {"dtype", "f32"},
                       {"shape", {4}}},
                  })},
      {"kernels", J::array({{{"name", "k_add"},
                             {"kind", "pointwise"},
                             {"cuda", "kernels/k_add.cu"},
                             {"host", "kernels/k_add.host"},
                             {"grid", {1, 1, 1}},
                             {"block", {256, 1, 1}},
                             {"shared_bytes", 0},
                             {"sha256", {{"cuda", ""}, {"host", ""}}}}})},
      {"entries",
       J::array({{{"name", "forward"},
                  {"steps", J::array({
                                {{"op", "launch"},
                                 {"kernel", "k_add"},
                                 {"args", {0, 0}},
                                 {"results", {3}}},
                                {{"op", "gemm"},
                                 {"a", 3},
                                 {"b", 1},
                                 {"c", 4},
                                 {"transpose_a", false},
                                 {"transpose_b", false},
                                 {"m", 2},
                                 {"n", 2},
                                 {"k", 3},
                                 {"batch", 1},
                                 {"lda", 3},
                                 {"ldb", 2},
                                 {"ldc", 2},
                                 {"stride_a", 0},
                                 {"stride_b", 0},
                                 {"stride_c", 0},
                                 {"a_type", "f32"},
                                 {"b_type", "f32"},
                                 {"c_type", "f32"},
                                 {"compute_type", "f32"},
                                 {"epilogue", "none"},
                                 {"alpha", 1.0},
                                 {"beta", 0.0}},
                                {{"op", "copy"}, {"src", 5}, {"dst", 6}},
                            })}}})},
  };
  t.rehash();
  return t;
}

TestArtifact TestArtifact::withEpilogue(const std::string &epilogue) {
  TestArtifact t = valid();
  using J = nlohmann::json;
  J &buffers = t.manifest["buffers"];
  J &gemm = t.manifest["entries"][0]["steps"][1];
  gemm["epilogue"] = epilogue;
  // The contract's rules, spelled out here independently of the loader.
  auto endsWith = [&](const std::string &suffix) {
    return epilogue.size() >= suffix.size() &&
           epilogue.compare(epilogue.size() - suffix.size(), suffix.size(),
                            suffix) == 0;
  };
  // Backward (contract v3): dgelu* read aux, the GELU input (an input
  // "gelu_in"),
  // and dgelu_bgrad writes the bias gradient (an output "dbias").
  bool backward = epilogue.rfind("dgelu", 0) == 0;
  int64_t id = 7;
  if (endsWith("bias") || epilogue == "dgelu_bgrad") {
    buffers.push_back({{"id", id},
                       {"kind", "external"},
                       {"role", backward ? "output" : "param"},
                       {"name", backward ? "dbias" : "bias"},
                       {"dtype", "f32"},
                       {"shape", {2}}});
    gemm["bias"] = id++;
  }
  if (epilogue.rfind("gelu_aux", 0) == 0 || backward) {
    buffers.push_back({{"id", id},
                       {"kind", "external"},
                       {"role", backward ? "input" : "output"},
                       {"name", backward ? "gelu_in" : "pre"},
                       {"dtype", "f32"},
                       {"shape", {2, 2}}});
    gemm["aux"] = id++;
  }
  return t;
}

void TestArtifact::rehash() {
  for (auto &k : manifest["kernels"]) {
    for (const char *key : {"cuda", "host"}) {
      if (!k.contains(key))
        continue;
      auto it = files.find(k[key].get<std::string>());
      if (it != files.end())
        k["sha256"][key] = sha256Hex(it->second);
    }
  }
}

void TestArtifact::write(const std::string &dir) const {
  for (auto &[rel, content] : files)
    writeFile(dir + "/" + rel, content);
  writeManifest(dir, manifest.dump(2));
}

void writeManifest(const std::string &dir, const std::string &text) {
  writeFile(dir + "/manifest.json", text);
  writeFile(dir + "/" + kManifestDigestFile, manifestDigestText(text));
}

} // namespace tfc::rt::test
