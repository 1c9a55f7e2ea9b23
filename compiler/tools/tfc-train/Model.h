//===- Model.h - what tfc-train needs to know about a model ----*- C++ -*-===//
//
// Reads the loss function's signature before compiling, so a model that
// tfc-train cannot feed gets a clear one-line error instead of a failure
// deep inside the train-step pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_TOOLS_TFC_TRAIN_MODEL_H
#define TFC_TOOLS_TFC_TRAIN_MODEL_H

#include <cstdint>
#include <string>
#include <vector>

namespace tfc::train {

/// One argument of the loss function.
struct ModelArgument {
  std::string name;           ///< tfc.param / tfc.input value
  std::vector<int64_t> shape; ///< static shape
  std::string elementType;    ///< "f32", "i64", ...
};

/// The 0-d i64 inputs that key a model's random draws (tfc.dropout's
/// Philox stream), named so by the PyTorch frontend: tfc-train feeds them
/// itself (the seed from --seed, the offset moved past every draw of the
/// micro-batches before), they never come from the data.
constexpr const char *kDropoutSeedInput = "dropout_seed";
constexpr const char *kDropoutOffsetInput = "dropout_offset";
/// The offset's step per micro-batch: room for 2^40 draws per forward, as
/// tfc_torch's TrainStep does.
constexpr int64_t kDropoutOffsetStride = int64_t(1) << 40;

/// The loss function's parameters and batch inputs.
struct ModelInfo {
  std::vector<ModelArgument> params;
  std::vector<ModelArgument> inputs; ///< data inputs
  /// The random-stream inputs (kDropoutSeedInput, kDropoutOffsetInput) the
  /// function has, not among `inputs`.
  std::vector<std::string> randomStream;
  int64_t batch = 0;  ///< tokens.shape[0] (or every input's leading dim)
  int64_t seqLen = 0; ///< tokens.shape[1] (1 for a data set of examples)
  /// The parameters the function uses as a normalization's scale: the
  /// `weight` of tfc.layer_norm / tfc.rms_norm, or a factor of a product
  /// with a normalized value (what the frontend makes of batch and group
  /// norm: (x - mean) * rsqrt(var + eps) * weight). Seen through reshape,
  /// convert, broadcast_to and transpose. Sorted.
  std::vector<std::string> normScales;
  /// Rows of the table a tfc.embedding looks the `tokens` input up in, and
  /// classes of the tfc.cross_entropy that takes `targets` as labels: the
  /// token values each accepts (0 where the IR has no such use).
  int64_t tokenVocab = 0, targetClasses = 0;
};

/// Parses `path` (a regular file) and describes `function`. Checks that it
/// has at least one tfc.param argument. On failure returns false and sets
/// `error` (MLIR diagnostics, or one line; a missing function names the
/// module's functions).
bool inspectModel(const std::string &path, const std::string &function,
                  ModelInfo &info, std::string &error);

/// What language-model data (a text file, synthetic:copy) needs: integer
/// `tokens` and `targets` inputs of the same rank-2 shape [B, T], which set
/// info.batch and info.seqLen. False with one line in `error` otherwise.
bool checkLanguageModel(const std::string &path, ModelInfo &info,
                        std::string &error);

} // namespace tfc::train

#endif // TFC_TOOLS_TFC_TRAIN_MODEL_H
