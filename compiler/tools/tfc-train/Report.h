//===- Report.h - loss plot (SVG) and memory-anatomy report ----*- C++ -*-===//

#ifndef TFC_TOOLS_TFC_TRAIN_REPORT_H
#define TFC_TOOLS_TFC_TRAIN_REPORT_H

#include "compiler/tools/tfc-train/Metrics.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tfc::train {

/// The SVG document of a loss curve: the per-step loss (thin) and its
/// exponential moving average (thick) against the step, with labelled
/// axes. Non-finite losses are left out. Written by tfc itself so the tool
/// needs no plotting library.
std::string renderLossSvg(const std::vector<StepRecord> &records,
                          const std::string &title);

/// Where a training step's memory goes.
struct MemoryAnatomy {
  std::string device;     ///< "host" or "cuda"
  std::string optimizer;  ///< adamw, adam, sgd
  bool lossScaling = false;
  std::string precision = "f32"; ///< f32, tf32, bf16 or fp16 (--precision)
  std::string pad = "auto";      ///< auto, none or N (--pad)
  std::string recompute = "none"; ///< none, cheap or blocks (--recompute)
  /// --optimizer-in-backward: gradients die at their update (in the arena).
  bool optimizerInBackward = false;
  int64_t parameters = 0; ///< number of trainable scalars
  uint64_t weightBytes = 0;
  /// The 16-bit weight copies the forward reads (mixed precision): state
  /// the optimizer writes.
  uint64_t weightCopyBytes = 0;
  uint64_t gradientBytes = 0;  ///< one gradient per parameter (f32)
  uint64_t optimizerBytes = 0; ///< externals of role state but these:
  /// the f32 gradient accumulators P.grad_accum (--accumulate > 1), which
  /// the report counts as gradients.
  uint64_t accumulatorBytes = 0;
  uint64_t arenaBytes = 0;     ///< planned arena: activations + gradients
  /// Of the arena: the forward values the backward reads (saved
  /// activations, as --tfc-recompute left them); 0 when not recorded.
  uint64_t savedActivationBytes = 0;
  uint64_t workspaceBytes = 0; ///< GEMM workspace of the backend
  uint64_t batchBytes = 0;     ///< inputs and outputs
};

/// The memory.md report: a table of the figures above with bytes per
/// parameter, next to the Hugging Face single-GPU guide's count for
/// mixed-precision AdamW (18 bytes/param) and what tfc's f32 setup uses.
std::string renderMemoryReport(const MemoryAnatomy &anatomy);

/// The same figures as a JSON object (memory.json, read by the benches):
/// device, optimizer, loss_scaling, precision, pad, recompute,
/// optimizer_in_backward, parameters, and per part (weights,
/// gradients, optimizer_state, arena, saved_activations, workspace, batch,
/// total) its bytes;
/// "bytes_per_param" is weights + gradients + optimizer state per parameter.
std::string renderMemoryJson(const MemoryAnatomy &anatomy);

/// "1.50 MiB", "312 B".
std::string formatBytes(uint64_t bytes);

/// Why `path` cannot be read as an input file: "" for a regular file (or a
/// link to one), else "does not exist", "is a directory" or "is not a
/// regular file (a device, pipe or socket)", which could be read forever.
std::string notARegularFile(const std::string &path);

/// Writes `text` to `path` atomically (a temporary file renamed over it).
bool writeFileAtomically(const std::string &path, const std::string &text,
                         std::string &error);

} // namespace tfc::train

#endif // TFC_TOOLS_TFC_TRAIN_REPORT_H
