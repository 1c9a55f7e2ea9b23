//===- FuzzCheckpoint.cpp - libFuzzer target: the checkpoint loader -------===//
//
// Input: a checkpoint directory's files in one buffer, separated by the
// line "--tfc-fuzz-file--": meta.json, tensors.safetensors and
// metrics.jsonl, in that order (missing parts are missing files). The
// harness writes them to a private directory and, unless the input starts
// with '!', records their SHA256SUMS (so mutations get past the digest to
// the parsers; with '!' a mutated SHA256SUMS part follows as a fourth
// file). Then it resumes the way tfc-train does: readCheckpoint (digests,
// meta.json), restoreCheckpoint into the mlp train step of test/fuzz/artifact
// on the host backend (exact tensor set, step counter), the data RNG state,
// metrics.jsonl. An accepted checkpoint must leave the program's parameters
// and state equal to the file's tensors, and then one training step runs.
//
// TFC_FUZZ_WRITE_SEED=FILE writes a valid input (the program's zero state
// with deterministic parameters) to FILE and exits: make-corpus.py's seed.
//
//===----------------------------------------------------------------------===//

#include "compiler/tools/tfc-train/Checkpoint.h"
#include "compiler/tools/tfc-train/Data.h"
#include "compiler/tools/tfc-train/Metrics.h"
#include "runtime/src/core/Backend.h"
#include "runtime/src/core/CApiInternal.h"
#include "runtime/src/core/Safetensors.h"
#include "test/fuzz/FuzzUtil.h"

#include "tfc/runtime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

using namespace tfc::train;

namespace {

const char kSeparator[] = "\n--tfc-fuzz-file--\n";
const char *const kFiles[] = {"meta.json", kCheckpointTensors, "metrics.jsonl",
                              kCheckpointSums};

[[noreturn]] void fail(const std::string &what) {
  std::fprintf(stderr, "fuzz-checkpoint: %s\n", what.c_str());
  std::abort();
}

void check(tfc_status s, const char *what) {
  if (s) {
    std::string m = tfc_status_message(s);
    tfc_status_free(s);
    fail(std::string(what) + ": " + m);
  }
}

/// The program every input is restored into, loaded once.
struct Target {
  tfc_device *device = nullptr;
  tfc_program *program = nullptr;
  std::string dir; // the private checkpoint directory

  Target() {
    // The host backend directly (tfc_device_create also names the CUDA
    // backend, which the fuzz build does not compile).
    device = tfc::rt::wrapBackend(tfc::rt::createHostBackend());
    check(tfc_program_load(device, TFC_FUZZ_ARTIFACT_DIR, &program),
          "loading " TFC_FUZZ_ARTIFACT_DIR);
    char pattern[] = "/tmp/tfc-fuzz-checkpoint-XXXXXX";
    if (!mkdtemp(pattern))
      fail("mkdtemp");
    dir = pattern;
  }
};

Target &target() {
  static Target t;
  return t;
}

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out)
    fail("cannot write " + path);
}

/// Every parameter and state of the program as a safetensors file image.
std::vector<uint8_t> programTensors(tfc_program *program) {
  tfc::rt::SafetensorsFile file;
  for (size_t i = 0, n = tfc_program_binding_count(program); i < n; ++i) {
    tfc_binding b;
    check(tfc_program_binding(program, i, &b), "binding");
    if (b.role != TFC_ROLE_PARAM && b.role != TFC_ROLE_STATE)
      continue;
    tfc::rt::SafeTensor t;
    t.name = b.name;
    t.dtype = tfc::rt::DType(b.dtype);
    t.shape.assign(b.shape, b.shape + b.rank);
    t.data.resize(b.bytes);
    check(tfc_program_get(program, b.name, t.data.data(), b.bytes), "get");
    file.tensors.push_back(std::move(t));
  }
  std::vector<uint8_t> bytes;
  tfc::rt::Status s = tfc::rt::serializeSafetensors(file, bytes);
  if (!s)
    fail("serialize: " + s.message());
  return bytes;
}

/// Sets the inputs of a training step (deterministic, valid values).
void setInputs(tfc_program *program) {
  for (size_t i = 0, n = tfc_program_binding_count(program); i < n; ++i) {
    tfc_binding b;
    check(tfc_program_binding(program, i, &b), "binding");
    if (b.role != TFC_ROLE_INPUT)
      continue;
    std::vector<uint8_t> data(b.bytes, 0);
    if (b.dtype == TFC_DTYPE_F32)
      for (size_t k = 0; k < b.bytes / 4; ++k) {
        float v = std::strcmp(b.name, "lr") == 0 ? 0.01f : 0.25f * float(k % 7);
        std::memcpy(&data[4 * k], &v, 4);
      }
    check(tfc_program_set(program, b.name, data.data(), b.bytes), "set input");
  }
}

void writeSeed(const char *path) {
  Target &t = target();
  for (size_t i = 0, n = tfc_program_binding_count(t.program); i < n; ++i) {
    tfc_binding b;
    check(tfc_program_binding(t.program, i, &b), "binding");
    if (b.role != TFC_ROLE_PARAM || b.dtype != TFC_DTYPE_F32)
      continue;
    std::vector<float> v(b.bytes / 4);
    for (size_t k = 0; k < v.size(); ++k)
      v[k] = 0.01f * float(int(k % 17) - 8);
    check(tfc_program_set(t.program, b.name, v.data(), b.bytes), "set param");
  }
  CheckpointMeta meta;
  meta.step = 0;
  tfc::train::Rng rng(7);
  meta.dataRng = rng.serialize();
  meta.options["optimizer"] = "sgd";
  std::vector<uint8_t> tensors = programTensors(t.program);
  std::string text = formatMeta(meta) + kSeparator +
                     std::string(tensors.begin(), tensors.end()) + kSeparator +
                     "{\"step\":1,\"loss\":2.5,\"lr\":0.01,\"tokens_per_s\":1000,\"time\":0.1}\n";
  writeFile(path, text);
  std::exit(0);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  if (const char *seed = std::getenv("TFC_FUZZ_WRITE_SEED"))
    writeSeed(seed);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Target &t = target();
  std::string input(reinterpret_cast<const char *>(data), size);
  bool rawSums = !input.empty() && input[0] == '!';
  if (rawSums)
    input.erase(0, 1);
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t at = input.find(kSeparator, start);
    parts.push_back(input.substr(start, at == std::string::npos ? at : at - start));
    if (at == std::string::npos || parts.size() == 4)
      break;
    start = at + sizeof(kSeparator) - 1;
  }
  for (const char *name : kFiles)
    std::remove((t.dir + "/" + name).c_str());
  size_t files = rawSums ? 4 : 3;
  for (size_t i = 0; i < parts.size() && i < files; ++i)
    writeFile(t.dir + "/" + kFiles[i], parts[i]);
  std::string error;
  if (!rawSums && !writeCheckpointSums(t.dir, error)) {
    tfc::rt::fuzz::note("sums", tfc::rt::Status::error(error));
    return 0;
  }

  CheckpointMeta meta;
  std::string found;
  if (!readCheckpoint(t.dir, meta, found, error)) {
    tfc::rt::fuzz::note("read", tfc::rt::Status::error(error));
    return 0;
  }
  std::vector<uint8_t> before = programTensors(t.program);
  if (!restoreCheckpoint(t.program, found, meta, error)) {
    tfc::rt::fuzz::note("restore", tfc::rt::Status::error(error));
    // A refused restore sets nothing, or only what a step check undoes:
    // the tensors are put back for the next input either way.
    tfc::rt::SafetensorsFile file;
    if (tfc::rt::parseSafetensors(before.data(), before.size(), file))
      for (const tfc::rt::SafeTensor &x : file.tensors)
        check(tfc_program_set(t.program, x.name.c_str(), x.data.data(),
                              x.data.size()),
              "put back");
    return 0;
  }
  tfc::rt::fuzz::note("restore", tfc::rt::Status::ok());
  // The program now holds exactly the file's tensors.
  tfc::rt::SafetensorsFile file, now;
  std::vector<uint8_t> after = programTensors(t.program);
  if (!tfc::rt::parseSafetensors(
          reinterpret_cast<const uint8_t *>(parts[1].data()), parts[1].size(),
          file) ||
      !tfc::rt::parseSafetensors(after.data(), after.size(), now))
    fail("a restored tensor file does not parse");
  // (Except derived state the file lists under "tfc.derived_state" that
  // names no external: another target's weight copies, which the restored
  // parameters recompute.)
  std::string derived = file.metadata.count("tfc.derived_state")
                            ? "\n" + file.metadata["tfc.derived_state"] + "\n"
                            : "";
  for (const tfc::rt::SafeTensor &x : file.tensors) {
    const tfc::rt::SafeTensor *y = now.find(x.name);
    if (!y && derived.find("\n" + x.name + "\n") != std::string::npos)
      continue;
    if (!y || y->data != x.data)
      fail("restore did not set '" + x.name + "' to the file's value");
  }
  tfc::train::Rng rng(0);
  tfc::rt::fuzz::note("data_rng", rng.deserialize(meta.dataRng)
                                      ? tfc::rt::Status::ok()
                                      : tfc::rt::Status::error("malformed"));
  std::vector<StepRecord> records;
  bool metrics = readMetrics(t.dir + "/metrics.jsonl", records, error);
  tfc::rt::fuzz::note("metrics", metrics ? tfc::rt::Status::ok()
                                         : tfc::rt::Status::error(error));
  // A resumed program trains (hostile values are fine, crashes are not).
  setInputs(t.program);
  if (tfc_status s = tfc_program_run(t.program, "train_step"))
    tfc_status_free(s);
  return 0;
}
