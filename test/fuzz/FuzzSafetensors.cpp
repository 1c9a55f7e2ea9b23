//===- FuzzSafetensors.cpp - libFuzzer target: the safetensors reader -----===//
//
// Input: a whole safetensors file image. parseSafetensors must reject any
// malformed file with a status (ASan/UBSan watch its reads); a file it
// accepts must satisfy the invariants of Safetensors.h (dtype x shape ==
// bytes) and round-trip: serializing it and parsing that again gives the
// same tensors and metadata.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/core/Safetensors.h"
#include "test/fuzz/FuzzUtil.h"

#include <cstdio>
#include <cstdlib>

using namespace tfc::rt;

namespace {

[[noreturn]] void fail(const char *what, const std::string &detail) {
  std::fprintf(stderr, "fuzz-safetensors: %s: %s\n", what, detail.c_str());
  std::abort();
}

bool sameFile(const SafetensorsFile &a, const SafetensorsFile &b) {
  if (a.metadata != b.metadata || a.tensors.size() != b.tensors.size())
    return false;
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const SafeTensor &x = a.tensors[i], &y = b.tensors[i];
    if (x.name != y.name || x.dtype != y.dtype || x.shape != y.shape ||
        x.data != y.data)
      return false;
  }
  return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  SafetensorsFile file;
  Status parsed = parseSafetensors(data, size, file);
  tfc::rt::fuzz::note("parse", parsed);
  if (!parsed)
    return 0;
  for (const SafeTensor &t : file.tensors) {
    std::optional<int64_t> n = numElements(t.shape);
    if (!n || uint64_t(*n) * uint64_t(dtypeSize(t.dtype)) != t.data.size())
      fail("accepted a tensor whose bytes do not match its shape", t.name);
    if (file.find(t.name) == nullptr)
      fail("find() misses an accepted tensor", t.name);
  }
  std::vector<uint8_t> bytes;
  Status s = serializeSafetensors(file, bytes);
  if (!s)
    fail("an accepted file does not serialize", s.message());
  SafetensorsFile again;
  s = parseSafetensors(bytes.data(), bytes.size(), again);
  if (!s)
    fail("a serialized file does not parse", s.message());
  if (!sameFile(file, again))
    fail("round trip changed the file", "");
  return 0;
}
