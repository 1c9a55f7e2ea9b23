//===- AdamW8bit.cpp - adamw8bit for the train step -----------------------===//
//
// AdamW with block-wise 8-bit moments (tfc.adamw8bit, bitsandbytes'
// AdamW8bit). As in bitsandbytes, tensors with fewer than 4096 elements
// (biases, norm weights) keep f32 moments and take the plain tfc.adamw step:
// their state is negligible, and quantizing it would only cost accuracy.
// Parameters that are not f32 (f64 test models) also keep adamw's moments:
// the 8-bit update is defined on f32 weights.
//
//===----------------------------------------------------------------------===//

#include "passes/training/OptimizerRule.h"

#include "common/QuantMap.h"
#include "dialects/tfc/TfcOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tfc;

namespace tfc {
namespace {

/// bitsandbytes' min_8bit_size: smaller tensors keep f32 moments.
using ::tfc::quant::kMin8BitElements;

class AdamW8bitRule : public OptimizerRule {
public:
  explicit AdamW8bitRule(const TfcBuildTrainStepPassOptions &options)
      : options(options) {}

  static bool quantized(RankedTensorType param) {
    return param.getElementType().isF32() &&
           param.getNumElements() >= kMin8BitElements;
  }

  SmallVector<StateSpec> stateOf(RankedTensorType param) const override {
    if (!quantized(param))
      return {{"exp_avg", param}, {"exp_avg_sq", param}};
    MLIRContext *ctx = param.getContext();
    auto codes = RankedTensorType::get(
        param.getShape(), IntegerType::get(ctx, 8, IntegerType::Unsigned));
    int64_t blocks =
        llvm::divideCeil(param.getNumElements(), int64_t(options.blockSize));
    auto absmax = RankedTensorType::get({blocks}, Float32Type::get(ctx));
    return {{"exp_avg.codes", codes},
            {"exp_avg.absmax", absmax},
            {"exp_avg_sq.codes", codes},
            {"exp_avg_sq.absmax", absmax}};
  }
  double defaultWeightDecay() const override { return 1e-2; }
  bool hasUpdateOp() const override { return true; }

  ParamStepResult emitStep(OpBuilder &builder, Location loc,
                           const ParamStep &in) const override {
    APFloat beta1(options.beta1), beta2(options.beta2), eps(options.eps),
        decay(in.weightDecay);
    if (in.states.size() == 2) {
      auto op = builder.create<AdamWOp>(loc, in.param, in.grad, in.states[0],
                                        in.states[1], in.lr, in.step, beta1,
                                        beta2, eps, decay);
      return {op.getParamOut(), {op.getExpAvgOut(), op.getExpAvgSqOut()}};
    }
    auto op = builder.create<AdamW8bitOp>(
        loc, in.param, in.grad, in.states[0], in.states[1], in.states[2],
        in.states[3], in.lr, in.step, beta1, beta2, eps, decay,
        uint64_t(options.blockSize));
    return {op.getParamOut(),
            {op.getExpAvgOut(), op.getExpAvgAbsmaxOut(), op.getExpAvgSqOut(),
             op.getExpAvgSqAbsmaxOut()}};
  }

private:
  TfcBuildTrainStepPassOptions options;
};

} // namespace

std::unique_ptr<OptimizerRule>
makeAdamW8bitRule(const TfcBuildTrainStepPassOptions &options,
                  std::string &error) {
  if (options.optimizer != "adamw8bit")
    return nullptr;
  if (!checkBetas(options, error))
    return nullptr;
  int64_t b = options.blockSize;
  if (b < 32 || b > 1024 || !llvm::isPowerOf2_64(b)) {
    error = "block-size must be a power of two in [32, 1024], got " +
            std::to_string(b);
    return nullptr;
  }
  return std::make_unique<AdamW8bitRule>(options);
}

} // namespace tfc
