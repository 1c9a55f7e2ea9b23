//===- Checkpoint.cpp - tfc-train checkpoints ------------------------------===//

#include "compiler/tools/tfc-train/Checkpoint.h"
#include "compiler/tools/tfc-train/Json.h"
#include "compiler/tools/tfc-train/Report.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

using namespace tfc::train;
namespace fs = llvm::sys::fs;

namespace {
/// The files of a checkpoint its SHA256SUMS covers, in the order listed.
const char *const kDigestedFiles[] = {"meta.json", kCheckpointTensors};

/// Lowercase hex SHA-256 of the file at `path`; false when unreadable.
bool fileSha256(const std::string &path, std::string &hex,
                std::string &error) {
  // A FIFO or device in a checkpoint would be read forever.
  if (std::string problem = notARegularFile(path); !problem.empty()) {
    error = "cannot read '" + path + "': it " + problem;
    return false;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer) {
    error = "cannot read '" + path + "': " + buffer.getError().message();
    return false;
  }
  llvm::StringRef data = (*buffer)->getBuffer();
  hex = llvm::toHex(llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(
                        reinterpret_cast<const uint8_t *>(data.data()),
                        data.size())),
                    /*LowerCase=*/true);
  return true;
}

/// SHA256SUMS text (sha256sum's format) of the checkpoint files in `dir`.
bool formatSums(const std::string &dir, std::string &sums,
                std::string &error) {
  sums.clear();
  for (const char *name : kDigestedFiles) {
    std::string hex;
    if (!fileSha256(dir + "/" + name, hex, error))
      return false;
    sums += hex + "  " + name + "\n";
  }
  return true;
}
} // namespace

std::string tfc::train::formatMeta(const CheckpointMeta &meta) {
  llvm::json::Object options;
  for (const auto &[key, value] : meta.options)
    options[key] = value;
  // The position is a uint64 but JSON readers keep only 53 bits of a
  // number exactly: store it as text.
  llvm::json::Object object{{"format", "tfc-train-checkpoint"},
                            {"version", 1},
                            {"step", meta.step},
                            {"data_rng", meta.dataRng},
                            {"data_position", std::to_string(meta.dataPosition)},
                            {"elapsed", meta.elapsed},
                            {"options", std::move(options)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(object))) << "\n";
  return text;
}

bool tfc::train::parseMeta(const std::string &text, CheckpointMeta &meta,
                           std::string &error) {
  llvm::json::Value value = nullptr;
  std::string why;
  if (!parseJson(text, value, why)) {
    error = "meta.json " + why;
    return false;
  }
  const llvm::json::Object *object = value.getAsObject();
  if (!object || object->getString("format") != "tfc-train-checkpoint") {
    error = "meta.json is not a tfc-train checkpoint";
    return false;
  }
  if (object->getInteger("version") != 1) {
    error = "unsupported tfc-train checkpoint version";
    return false;
  }
  std::optional<int64_t> step = object->getInteger("step");
  std::optional<llvm::StringRef> rng = object->getString("data_rng");
  std::optional<llvm::StringRef> position =
      object->getString("data_position");
  std::optional<double> elapsed = object->getNumber("elapsed");
  const llvm::json::Object *options = object->getObject("options");
  uint64_t positionValue = 0;
  if (!step || *step < 0 || !rng || !position || !elapsed || !options ||
      position->getAsInteger(10, positionValue)) {
    error = "meta.json lacks step, data_rng, data_position, elapsed or "
            "options";
    return false;
  }
  meta.step = *step;
  meta.dataRng = rng->str();
  meta.dataPosition = positionValue;
  meta.elapsed = *elapsed;
  meta.options.clear();
  for (const auto &[key, v] : *options) {
    std::optional<llvm::StringRef> s = v.getAsString();
    if (!s) {
      error = "meta.json option '" + key.str() + "' is not a string";
      return false;
    }
    meta.options[key.str()] = s->str();
  }
  return true;
}

bool tfc::train::writeCheckpointSums(const std::string &dir,
                                     std::string &error) {
  std::string sums;
  return formatSums(dir, sums, error) &&
         writeFileAtomically(dir + "/" + kCheckpointSums, sums, error);
}

bool tfc::train::writeCheckpoint(
    const std::string &outDir, const CheckpointMeta &meta,
    const std::function<bool(const std::string &, std::string &)>
        &writeTensors,
    std::string &error) {
  std::string final = outDir + "/checkpoint";
  std::string tmp = outDir + "/checkpoint.tmp";
  std::string old = outDir + "/checkpoint.old";
  // Leftovers of an interrupted write are incomplete by construction.
  fs::remove_directories(tmp);
  if (std::error_code ec = fs::create_directories(tmp)) {
    error = "cannot create '" + tmp + "': " + ec.message();
    return false;
  }
  if (!writeTensors(tmp + "/" + kCheckpointTensors, error))
    return false;
  if (!writeFileAtomically(tmp + "/meta.json", formatMeta(meta), error))
    return false;
  if (!writeCheckpointSums(tmp, error))
    return false;
  fs::remove_directories(old);
  if (fs::exists(final))
    if (std::error_code ec = fs::rename(final, old)) {
      error = "cannot move '" + final + "' aside: " + ec.message();
      return false;
    }
  if (std::error_code ec = fs::rename(tmp, final)) {
    error = "cannot move '" + tmp + "' into place: " + ec.message();
    return false;
  }
  fs::remove_directories(old);
  return true;
}

bool tfc::train::readCheckpoint(const std::string &dir, CheckpointMeta &meta,
                                std::string &checkpointDir,
                                std::string &error) {
  checkpointDir.clear();
  for (const std::string &candidate :
       {dir + "/checkpoint", dir + "/checkpoint.old", dir})
    if (fs::exists(candidate + "/meta.json")) {
      checkpointDir = candidate;
      break;
    }
  if (checkpointDir.empty()) {
    error = "no checkpoint in '" + dir + "' (expected " + dir +
            "/checkpoint/meta.json)";
    return false;
  }
  // The digests first: a checkpoint whose files changed after it was written
  // (disk corruption, a stray edit, a partial copy) is never resumed.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> recorded =
      llvm::MemoryBuffer::getFile(checkpointDir + "/" + kCheckpointSums);
  if (!recorded) {
    error = "checkpoint '" + checkpointDir + "' has no readable " +
            std::string(kCheckpointSums) +
            " (damaged, or written by a tfc-train that did not record "
            "digests): refusing to resume from unverified files";
    return false;
  }
  std::string expected;
  if (!formatSums(checkpointDir, expected, error))
    return false;
  if ((*recorded)->getBuffer() != expected) {
    llvm::SmallVector<llvm::StringRef> lines, want;
    (*recorded)->getBuffer().split(lines, '\n', -1, false);
    llvm::StringRef(expected).split(want, '\n', -1, false);
    std::string which;
    for (size_t i = 0; i < want.size(); ++i)
      if (i >= lines.size() || lines[i] != want[i])
        which += (which.empty() ? "" : ", ") +
                 std::string(kDigestedFiles[i]);
    if (which.empty())
      which = kCheckpointSums;
    error = "checkpoint '" + checkpointDir + "': " + which +
            " does not match its SHA-256 in " + kCheckpointSums +
            " (corrupt or modified): refusing to resume";
    return false;
  }
  std::string metaPath = checkpointDir + "/meta.json";
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(metaPath);
  if (!buffer) {
    error = "cannot read '" + metaPath + "': " + buffer.getError().message();
    return false;
  }
  if (!parseMeta((*buffer)->getBuffer().str(), meta, error)) {
    error = metaPath + ": " + error;
    return false;
  }
  if (!fs::exists(checkpointDir + "/" + kCheckpointTensors)) {
    error = "checkpoint '" + checkpointDir + "' has no " +
            std::string(kCheckpointTensors);
    return false;
  }
  return true;
}

namespace {
/// The optimizer's step counter (state "step") against meta.json's step:
/// equal, or at most meta's when loss scaling skipped steps (skipped
/// overflow steps do not count, as with torch.cuda.amp.GradScaler).
bool checkStepCounter(tfc_program *program, int64_t metaStep,
                      std::string &error) {
  tfc_binding binding;
  if (tfc_status s = tfc_program_find_binding(program, "step", &binding)) {
    tfc_status_free(s);
    return true; // no optimizer state to compare
  }
  int64_t counter = 0;
  if (binding.dtype != TFC_DTYPE_I64 || binding.bytes != sizeof(counter)) {
    error = "the 'step' state is not a scalar i64";
    return false;
  }
  if (tfc_status s = tfc_program_get(program, "step", &counter, 8)) {
    error = tfc_status_message(s);
    tfc_status_free(s);
    return false;
  }
  bool skips = false;
  if (tfc_status s = tfc_program_find_binding(program, "loss_scale", &binding))
    tfc_status_free(s);
  else
    skips = true;
  if (counter == metaStep || (skips && counter >= 0 && counter < metaStep))
    return true;
  error = "meta.json says step " + std::to_string(metaStep) +
          " but the optimizer's step counter is " + std::to_string(counter) +
          (skips ? " (it can only lag when loss scaling skipped steps)" : "") +
          ": the files do not belong together, refusing to resume";
  return false;
}
} // namespace

bool tfc::train::restoreCheckpoint(tfc_program *program,
                                   const std::string &checkpointDir,
                                   const CheckpointMeta &meta,
                                   std::string &error) {
  std::string tensors = checkpointDir + "/" + kCheckpointTensors;
  // Exactly the program's parameters and state: a tensor missing from the
  // checkpoint would otherwise keep its fresh initial value.
  if (tfc_status s = tfc_program_restore_safetensors(
          program, tensors.c_str(), TFC_ROLE_PARAM | TFC_ROLE_STATE)) {
    error = "cannot restore '" + tensors + "': " + tfc_status_message(s);
    tfc_status_free(s);
    return false;
  }
  if (!checkStepCounter(program, meta.step, error)) {
    error = checkpointDir + ": " + error;
    return false;
  }
  return true;
}
