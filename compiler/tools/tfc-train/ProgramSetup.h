//===- ProgramSetup.h - a loaded train step's parameters and state -*- C++ -*-===//
//
// What tfc-train does to a compiled train-step program before and after
// training, through libtfcrt's C API only: GPT-2 initialization of the
// parameters or the model's own from a file, zero-filled optimizer state,
// and the memory anatomy of the program's buffers.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_TOOLS_TFC_TRAIN_PROGRAMSETUP_H
#define TFC_TOOLS_TFC_TRAIN_PROGRAMSETUP_H

#include "compiler/tools/tfc-train/Data.h"
#include "compiler/tools/tfc-train/Report.h"

#include "tfc/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tfc::train {

/// Which parameters initParameters set how, in program order.
struct InitSummary {
  std::vector<std::string> normal; ///< N(0, 0.02)
  std::vector<std::string> ones;   ///< normalization scales
  std::vector<std::string> zeros;  ///< biases, other vectors and scalars
};

/// GPT-2 initialization by role and rank, as torch.nn's modules start:
/// the parameters in `normScales` (ModelInfo::normScales: what the IR uses
/// as a normalization's scale, whatever its name, as torch's BatchNorm,
/// GroupNorm, LayerNorm and RMSNorm weights) ones, other parameters of
/// rank >= 2 N(0, 0.02) from `rng`, the rest (biases) zeros. Sets `count`
/// to the number of parameter scalars and `summary`. Only f32 parameters;
/// false with `error` otherwise.
bool initParameters(tfc_program *program, Rng &rng,
                    const std::vector<std::string> &normScales,
                    int64_t &count, InitSummary &summary, std::string &error);

/// The log lines ("init: ...", one per non-empty class, a few names each)
/// that say how initParameters set the parameters.
std::string describeInit(const InitSummary &summary, uint64_t seed);

/// Sets `count` to the number of parameter scalars of `program`.
bool countParameters(tfc_program *program, int64_t &count,
                     std::string &error);

/// Sets the parameters, and the model state the file holds, from the
/// safetensors file `path` (what tfc-import-torch --weights or
/// tfc_torch.Exported.save_weights write: the model's own initialization),
/// in place of initParameters; `names` are its tensors (safetensorsNames).
/// The file must hold every parameter; each of its tensors must name a
/// parameter or state of the program, of the same dtype and shape; state it
/// leaves out keeps its value. Sets `count` to the number of parameter
/// scalars. False with one line in `error` otherwise, naming the tensor.
bool loadInitialValues(tfc_program *program, const std::string &path,
                       const std::vector<std::string> &names, int64_t &count,
                       std::string &error);

/// Zero-fills every state (moments, step counter, scaler, accumulators,
/// model state) explicitly, except a batch norm's running variance (state
/// named "*.running_var"), which starts at 1 as torch's.
bool zeroStates(tfc_program *program, std::string &error);

/// Where the program's memory goes: its bindings by role (gradient
/// accumulators, P.grad_accum, count as gradients), the arena from the
/// artifact's manifest, and the cuda backend's GEMM workspace.
MemoryAnatomy anatomyOf(tfc_program *program, const std::string &artifactDir,
                        tfc_device *dev, int64_t parameters,
                        const std::string &optimizer, bool lossScaling,
                        const std::string &precision,
                        const std::string &pad,
                        const std::string &recompute,
                        bool optimizerInBackward);

} // namespace tfc::train

#endif // TFC_TOOLS_TFC_TRAIN_PROGRAMSETUP_H
