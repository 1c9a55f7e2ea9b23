//===- tfcrt-run.cpp - run a tfc artifact with the runtime alone ----------===//
//
// tfcrt-run ARTIFACT_DIR [options]
//
// The artifact runner of a runtime-only build (no compiler, no MLIR): binds
// parameters and inputs from safetensors (or --seed), runs an entry on the
// host or cuda backend, and writes outputs, traces, state, timings and
// profiles. The same run flags as tfc-run, which compiles first.
//
//===----------------------------------------------------------------------===//

#include "runtime/tools/tfcrt-run/Runner.h"

#include <cstdio>
#include <sys/stat.h>

int main(int argc, char **argv) {
  tfc::tools::RunOptions options;
  std::string artifact;
  tfc::tools::FlagParser parser(
      "tfcrt-run",
      "tfcrt-run: run a tfc artifact (written by tfc-translate --emit-artifact "
      "or tfc-run --emit-artifact)\n\n"
      "  tfcrt-run ARTIFACT_DIR --inputs in.safetensors --outputs out.safetensors\n"
      "  tfcrt-run ARTIFACT_DIR --seed 0 --device cuda --repeat 20 --profile 20\n"
      "  tfcrt-run ARTIFACT_DIR --entry train_step --inputs init.safetensors "
      "--steps 50 --trace t.jsonl\n");
  parser.setPositional(&artifact, "ARTIFACT_DIR");
  tfc::tools::addRunFlags(parser, options);
  int exitCode = 0;
  if (!parser.parse(argc, argv, exitCode))
    return exitCode;
  tfc::tools::finishRunFlags(parser, options);
  if (!options.probeDevice.empty())
    return tfc::tools::probeDevice(options) ? 0 : 1;
  struct stat st;
  if (artifact.empty()) {
    std::fprintf(stderr, "tfcrt-run: no artifact directory (see --help)\n");
    return 1;
  }
  if (stat(artifact.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    std::fprintf(stderr, "tfcrt-run: '%s' is not an artifact directory\n",
                 artifact.c_str());
    return 1;
  }
  return tfc::tools::runArtifact(artifact, options) ? 0 : 1;
}
