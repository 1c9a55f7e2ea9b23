//===- Data.h - tfc-train batches: text, synthetic tasks, examples -*- C++ -*-===//
//
// The data side of tfc-train: a seeded, serializable random generator and a
// data set that cuts random [B, T+1] windows into (tokens, targets) batches
// of a language model, or draws B random examples from a safetensors file
// for any model (a classifier's inputs and labels).
//
//===----------------------------------------------------------------------===//

#ifndef TFC_TOOLS_TFC_TRAIN_DATA_H
#define TFC_TOOLS_TFC_TRAIN_DATA_H

#include "compiler/tools/tfc-train/Model.h"

#include <cstdint>
#include <string>
#include <utility>
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

/// One batch. Language-model data: row-major [batch, seqLen] tokens and
/// next-token targets. Examples: the bytes of each model input, by name.
struct Batch {
  std::vector<int64_t> tokens;
  std::vector<int64_t> targets;
  std::vector<std::pair<std::string, std::vector<uint8_t>>> inputs;
};

/// Whether `spec` names a safetensors file of examples (*.safetensors).
bool isExamplesSpec(const std::string &spec);

/// A source of training batches. `FILE` gives byte-level tokens of the file
/// (vocabulary 256); `synthetic:copy` a generated copy task: a random prefix
/// of letters followed by its repetition, so the second half is learnable;
/// `FILE.safetensors` a set of N examples: one tensor per model input, named
/// like it, of shape [N, ...] where the input is [B, ...] (same dtype), and
/// a batch is B examples drawn uniformly with replacement.
class DataSet {
public:
  /// Opens `spec` for `model` (language-model data: windows of seqLen + 1
  /// tokens; examples: the model's inputs). On failure returns false and
  /// sets `error` to one line (missing or empty file, file shorter than a
  /// window, unknown synthetic task, a corrupt safetensors file, an input
  /// missing from it or of another dtype or shape, unequal example counts).
  bool open(const std::string &spec, const ModelInfo &model,
            std::string &error);
  /// Draws a batch of model.batch windows or examples with `rng`: tokens
  /// are the first seqLen tokens of a window, targets the last seqLen.
  /// Counts one batch.
  void nextBatch(Rng &rng, int64_t batch, Batch &out);
  /// Batches drawn so far (the data position saved in checkpoints).
  uint64_t position() const { return position_; }
  void setPosition(uint64_t position) { position_ = position; }
  /// Tokens the source holds (file bytes; 0 for synthetic tasks and
  /// examples).
  size_t size() const { return kind_ == Kind::Text ? bytes_.size() : 0; }
  /// The largest token value a batch can hold: the largest byte of a text
  /// file, 'z' for synthetic:copy; 0 for examples.
  int64_t largestToken() const;
  /// One line describing the source.
  std::string describe() const;

private:
  void window(Rng &rng, int64_t *out);

  bool openExamples(const std::string &spec, const ModelInfo &model,
                    std::string &error);

  /// One model input fed from the examples file.
  struct Column {
    std::string name;
    size_t offset = 0;       ///< Of example 0 in bytes_.
    size_t exampleBytes = 0; ///< Bytes per example.
  };

  enum class Kind { Text, Copy, Examples } kind_ = Kind::Text;
  std::string spec_;
  std::vector<uint8_t> bytes_; ///< Text, or the whole examples file.
  std::vector<Column> columns_;
  int64_t examples_ = 0;
  int64_t seqLen_ = 0;
  uint64_t position_ = 0;
};

} // namespace tfc::train

#endif // TFC_TOOLS_TFC_TRAIN_DATA_H
