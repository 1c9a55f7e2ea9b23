//===- TestUtil.h - helpers for the runtime unit tests ----------*- C++ -*-===//

#ifndef TFC_TEST_RUNTIME_TESTUTIL_H
#define TFC_TEST_RUNTIME_TESTUTIL_H

#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace tfc::rt::test {

/// A fresh temporary directory, removed with its contents on destruction.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

/// Writes `content` to `path`, creating parent directories.
void writeFile(const std::string &path, const std::string &content);

/// A small valid artifact (see TestUtil.cpp for its plan) as editable JSON
/// plus its kernel files, for tests to corrupt one field at a time.
struct TestArtifact {
  nlohmann::json manifest;
  std::map<std::string, std::string> files; ///< relative path -> contents

  /// The valid artifact: out = (x + x) @ w through an arena, an alias and a
  /// copy. x: input f32 2x3, w: param f32 3x2, out: output f32 2x2.
  static TestArtifact valid();
  /// The valid artifact whose GEMM has `epilogue` (any manifest name): for
  /// a name ending in "bias", param "bias" f32 2 (buffer 7), and for one
  /// starting with "gelu_aux", output "pre" f32 2x2 (the next id: 8 after
  /// a bias, else 7), named by the step's "bias" and "aux". The backward
  /// ones read input "gelu_in" f32 2x2 as aux, and dgelu_bgrad writes
  /// output "dbias" f32 2 as its bias (ids in the same order).
  static TestArtifact withEpilogue(const std::string &epilogue);
  /// Recomputes manifest sha256 fields from `files`.
  void rehash();
  /// Writes the files and manifest.json into `dir`.
  void write(const std::string &dir) const;
};

/// Writes `text` as dir/manifest.json with its manifest.sha256: a manifest
/// that is wrong but consistently digested, so loads reach the validation.
void writeManifest(const std::string &dir, const std::string &text);

} // namespace tfc::rt::test

#endif // TFC_TEST_RUNTIME_TESTUTIL_H
