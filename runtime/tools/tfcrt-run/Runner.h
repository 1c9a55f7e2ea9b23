//===- Runner.h - run a loaded artifact from the command line ---*- C++ -*-===//
//
// What tfcrt-run does, and what tfc-run does after compiling: open a device,
// load an artifact, bind parameters and inputs (random values from --seed,
// then safetensors), run an entry --steps times (or accumulated optimizer
// steps), and write traces, state, outputs, timings and profiles. Uses only
// libtfcrt's C API. Errors are one line on stderr, prefixed by the tool.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_TOOLS_TFCRT_RUN_RUNNER_H
#define TFC_RUNTIME_TOOLS_TFCRT_RUN_RUNNER_H

#include "runtime/tools/tfcrt-run/Flags.h"
#include "tfc/runtime.h"

#include <cstdint>
#include <string>

namespace tfc::tools {

/// The run flags shared by tfcrt-run and tfc-run (addRunFlags documents
/// each).
struct RunOptions {
  std::string tool = "tfcrt-run"; ///< Prefix of every message.
  std::string device = "auto";
  std::string inputs, outputs, stateOut, traceFile;
  std::string entry; ///< Empty: forward, else the artifact's only entry.
  unsigned steps = 1;
  /// > 0: each run is `accumulate` x accumulate_step, then apply_step.
  unsigned accumulate = 0;
  bool haveSeed = false;
  unsigned seed = 0;
  int64_t intRange = 2;
  unsigned repeat = 0;
  std::string timingJson;
  unsigned profile = 0;
  std::string profileJson;
  bool quiet = false;
  std::string probeDevice;
};

/// Declares the run flags in `parser`, writing into `options`. Call
/// finishRunFlags after parsing.
void addRunFlags(FlagParser &parser, RunOptions &options);
/// Completes `options` from what the parser saw (--seed given or not).
void finishRunFlags(const FlagParser &parser, RunOptions &options);

/// --probe-device: opens the device and prints its description. True when
/// it can be opened.
bool probeDevice(const RunOptions &options);

/// Loads the artifact directory `artifactDir` and runs it as `options`
/// says. True on success; on failure one line on stderr.
/// `device`: one the caller opened already (tfc-run opens --device auto
/// before compiling, so --target auto follows the backend it got), which
/// runArtifact takes over and destroys; null: it opens options.device.
/// `loadFailed`, when given, is set to whether tfc_program_load refused the
/// artifact (tfc-run then rebuilds a cache entry that does not load).
bool runArtifact(const std::string &artifactDir, const RunOptions &options,
                 tfc_device *device = nullptr, bool *loadFailed = nullptr);

} // namespace tfc::tools

#endif // TFC_RUNTIME_TOOLS_TFCRT_RUN_RUNNER_H
