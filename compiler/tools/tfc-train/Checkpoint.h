//===- Checkpoint.h - tfc-train checkpoints ---------------------*- C++ -*-===//
//
// A checkpoint is the directory OUT/checkpoint/ holding
//   tensors.safetensors  parameters and optimizer/scaler state (by name),
//   meta.json            step, data RNG state, data position, options.
//   SHA256SUMS           the SHA-256 of both (sha256sum's format), checked
//                        before a resume reads anything else.
// It is replaced atomically: written to checkpoint.tmp/, the old one renamed
// to checkpoint.old/, the new one renamed into place, the old one removed.
// A crash at any point leaves checkpoint/ or checkpoint.old/ complete.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_TOOLS_TFC_TRAIN_CHECKPOINT_H
#define TFC_TOOLS_TFC_TRAIN_CHECKPOINT_H

#include "tfc/runtime.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace tfc::train {

/// What a checkpoint records besides the tensors.
struct CheckpointMeta {
  int64_t step = 0;          ///< optimizer steps completed
  std::string dataRng;       ///< Rng::serialize() of the data generator
  uint64_t dataPosition = 0; ///< batches drawn
  double elapsed = 0;        ///< training seconds so far
  /// The options of the run (flag name -> value as text), so a resume
  /// continues with the same optimizer, data, batch and schedule.
  std::map<std::string, std::string> options;
};

/// meta.json text of `meta`.
std::string formatMeta(const CheckpointMeta &meta);
/// Parses meta.json text; false and a one-line `error` when malformed.
bool parseMeta(const std::string &text, CheckpointMeta &meta,
               std::string &error);

/// The tensor file name inside a checkpoint directory.
inline const char *kCheckpointTensors = "tensors.safetensors";
/// The digest file name inside a checkpoint directory.
inline const char *kCheckpointSums = "SHA256SUMS";

/// Atomically replaces `outDir`/checkpoint with a new checkpoint: creates
/// `outDir`/checkpoint.tmp, writes meta.json there, calls `writeTensors`
/// with the path for the tensor file, then swaps it into place.
bool writeCheckpoint(
    const std::string &outDir, const CheckpointMeta &meta,
    const std::function<bool(const std::string &path, std::string &error)>
        &writeTensors,
    std::string &error);

/// Finds the checkpoint of `dir`: `dir`/checkpoint, else (a crash between
/// the renames) `dir`/checkpoint.old, else `dir` itself when it holds
/// meta.json. Checks SHA256SUMS against meta.json and the tensor file (a
/// mismatch or a missing SHA256SUMS is an error), then reads the meta; sets
/// `checkpointDir` to the directory found.
bool readCheckpoint(const std::string &dir, CheckpointMeta &meta,
                    std::string &checkpointDir, std::string &error);

/// Writes `dir`/SHA256SUMS over the checkpoint files in `dir` (what
/// writeCheckpoint records; also for tests and fuzzers that build a
/// checkpoint by hand).
bool writeCheckpointSums(const std::string &dir, std::string &error);

/// Restores a checkpoint that readCheckpoint found and verified into
/// `program`: exactly the program's parameters and state from the tensor
/// file (a missing, extra or mistyped tensor is an error and nothing is
/// set), then the optimizer's step counter (state "step") must equal
/// meta.step, or lag it only when loss scaling may have skipped steps.
bool restoreCheckpoint(tfc_program *program, const std::string &checkpointDir,
                       const CheckpointMeta &meta, std::string &error);

} // namespace tfc::train

#endif // TFC_TOOLS_TFC_TRAIN_CHECKPOINT_H
