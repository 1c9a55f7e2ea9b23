//===- Data.h - tfc-train batches: byte-level text and synthetic tasks -*- C++ -*-===//
//
// The data side of tfc-train: a seeded, serializable random generator and a
// data set that cuts random [B, T+1] windows into (tokens, targets) batches.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_TOOLS_TFC_TRAIN_DATA_H
#define TFC_TOOLS_TFC_TRAIN_DATA_H

#include <cstdint>
#include <string>
#include <vector>

namespace tfc::train {

/// xoshiro256** seeded through splitmix64. Chosen over std::mt19937 and the
/// std distributions because its whole state is four words (saved in
/// checkpoints as text) and every draw below is defined here, so a run is
/// reproducible across standard libraries.
class Rng {
public:
  explicit Rng(uint64_t seed = 0);
  /// The next 64 random bits.
  uint64_t next();
  /// Uniform in [0, n) without modulo bias; n must be > 0.
  uint64_t below(uint64_t n);
  /// Uniform double in [0, 1).
  double uniform();
  /// A standard normal sample (Box-Muller; no cached second value, so the
  /// state stays the four words).
  double normal();
  /// The state as 64 hex digits.
  std::string serialize() const;
  /// Restores a state written by serialize(); false on malformed text.
  bool deserialize(const std::string &text);

private:
  uint64_t s[4];
};

/// One batch: row-major [batch, seqLen] tokens and next-token targets.
struct Batch {
  std::vector<int64_t> tokens;
  std::vector<int64_t> targets;
};

/// A source of training windows. `FILE` gives byte-level tokens of the file
/// (vocabulary 256); `synthetic:copy` a generated copy task: a random prefix
/// of letters followed by its repetition, so the second half is learnable.
class DataSet {
public:
  /// Opens `spec` (a path or synthetic:NAME) for windows of seqLen + 1
  /// tokens. On failure returns false and sets `error` to one line (missing
  /// or empty file, file shorter than a window, unknown synthetic task).
  bool open(const std::string &spec, int64_t seqLen, std::string &error);
  /// Draws `batch` random windows with `rng`: tokens are the first seqLen
  /// tokens of a window, targets the last seqLen. Counts one batch.
  void nextBatch(Rng &rng, int64_t batch, Batch &out);
  /// Batches drawn so far (the data position saved in checkpoints).
  uint64_t position() const { return position_; }
  void setPosition(uint64_t position) { position_ = position; }
  /// Tokens the source holds (file bytes; 0 for synthetic tasks).
  size_t size() const { return bytes_.size(); }
  /// One line describing the source.
  std::string describe() const;

private:
  void window(Rng &rng, int64_t *out);

  enum class Kind { Text, Copy } kind_ = Kind::Text;
  std::string spec_;
  std::vector<uint8_t> bytes_;
  int64_t seqLen_ = 0;
  uint64_t position_ = 0;
};

} // namespace tfc::train

#endif // TFC_TOOLS_TFC_TRAIN_DATA_H
