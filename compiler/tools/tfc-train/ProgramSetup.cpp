//===- ProgramSetup.cpp - a loaded train step's parameters and state ------===//

#include "compiler/tools/tfc-train/ProgramSetup.h"
#include "compiler/tools/tfc-train/Safetensors.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

using namespace tfc::train;

/// Sets `error` to `what` (and the status's message, which is freed);
/// returns false.
static bool failWith(std::string &error, const std::string &what,
                     tfc_status status = nullptr) {
  error = what;
  if (status) {
    error += std::string(": ") + tfc_status_message(status);
    tfc_status_free(status);
  }
  return false;
}

bool tfc::train::initParameters(tfc_program *program, Rng &rng,
                                const std::vector<std::string> &normScales,
                                int64_t &count, InitSummary &summary,
                                std::string &error) {
  summary = InitSummary();
  if (!countParameters(program, count, error))
    return false;
  std::set<std::string> scales(normScales.begin(), normScales.end());
  for (size_t i = 0, e = tfc_program_binding_count(program); i < e; ++i) {
    tfc_binding b;
    if (tfc_status s = tfc_program_binding(program, i, &b))
      return failWith(error, "cannot describe a binding", s);
    if (b.role != TFC_ROLE_PARAM)
      continue;
    if (b.dtype != TFC_DTYPE_F32)
      return failWith(error, std::string("parameter '") + b.name + "' is " +
                                 tfc_dtype_name(b.dtype) +
                                 "; tfc-train initializes f32");
    std::string name = b.name;
    size_t n = b.bytes / 4;
    std::vector<float> values(n, 0.0f);
    if (scales.count(name)) {
      std::fill(values.begin(), values.end(), 1.0f);
      summary.ones.push_back(name);
    } else if (b.rank >= 2) {
      for (float &v : values)
        v = float(0.02 * rng.normal());
      summary.normal.push_back(name);
    } else {
      summary.zeros.push_back(name);
    }
    if (tfc_status s = tfc_program_set(program, b.name, values.data(), b.bytes))
      return failWith(error, "cannot set '" + name + "'", s);
  }
  return true;
}

std::string tfc::train::describeInit(const InitSummary &summary,
                                     uint64_t seed) {
  auto line = [](const std::string &what,
                 const std::vector<std::string> &names) {
    if (names.empty())
      return std::string();
    std::vector<std::string> sorted = names;
    std::sort(sorted.begin(), sorted.end());
    std::string text = "init: " + what + " (" +
                       std::to_string(names.size()) + "): ";
    const size_t shown = 6;
    for (size_t i = 0; i < names.size() && i < shown; ++i)
      text += (i ? ", " : "") + sorted[i];
    if (names.size() > shown)
      text += ", ... " + std::to_string(names.size() - shown) + " more";
    return text + "\n";
  };
  return line("N(0, 0.02) from seed " + std::to_string(seed) +
                  ": parameters of rank >= 2",
              summary.normal) +
         line("1: normalization scales (a norm's weight in the IR)",
              summary.ones) +
         line("0: biases and other vectors", summary.zeros);
}

bool tfc::train::countParameters(tfc_program *program, int64_t &count,
                                 std::string &error) {
  count = 0;
  for (size_t i = 0, e = tfc_program_binding_count(program); i < e; ++i) {
    tfc_binding b;
    if (tfc_status s = tfc_program_binding(program, i, &b))
      return failWith(error, "cannot describe a binding", s);
    if (b.role == TFC_ROLE_PARAM)
      count += int64_t(b.bytes / tfc_dtype_size(b.dtype));
  }
  return true;
}

bool tfc::train::loadInitialValues(tfc_program *program,
                                   const std::string &path,
                                   const std::vector<std::string> &names,
                                   int64_t &count, std::string &error) {
  if (!countParameters(program, count, error))
    return false;
  std::vector<std::string> missing;
  std::set<std::string> known;
  for (size_t i = 0, e = tfc_program_binding_count(program); i < e; ++i) {
    tfc_binding b;
    if (tfc_status s = tfc_program_binding(program, i, &b))
      return failWith(error, "cannot describe a binding", s);
    if (b.role != TFC_ROLE_PARAM && b.role != TFC_ROLE_STATE)
      continue;
    known.insert(b.name);
    if (b.role == TFC_ROLE_PARAM &&
        !std::binary_search(names.begin(), names.end(), std::string(b.name)))
      missing.push_back(b.name);
  }
  if (!missing.empty())
    return failWith(error, "--init '" + path + "' lacks parameter '" +
                               missing.front() + "'" +
                               (missing.size() > 1
                                    ? " and " +
                                          std::to_string(missing.size() - 1) +
                                          " more"
                                    : std::string()) +
                               " (it must hold every parameter)");
  for (const std::string &name : names)
    if (!known.count(name))
      return failWith(error, "--init '" + path + "' holds '" + name +
                                 "', which is no parameter or state of the "
                                 "train step");
  if (tfc_status s = tfc_program_load_safetensors(program, path.c_str(), 0))
    return failWith(error, "--init", s);
  return true;
}

bool tfc::train::zeroStates(tfc_program *program, std::string &error) {
  for (size_t i = 0, e = tfc_program_binding_count(program); i < e; ++i) {
    tfc_binding b;
    if (tfc_status s = tfc_program_binding(program, i, &b))
      return failWith(error, "cannot describe a binding", s);
    if (b.role != TFC_ROLE_STATE)
      continue;
    std::vector<uint8_t> zeros(b.bytes, 0);
    // Model state starts as torch initializes it: a batch norm's running
    // variance at 1 (its running mean, like optimizer state, at 0).
    llvm::StringRef name(b.name);
    if (name.ends_with(".running_var") && b.dtype == TFC_DTYPE_F32) {
      std::vector<float> ones(b.bytes / 4, 1.0f);
      std::memcpy(zeros.data(), ones.data(), b.bytes);
    }
    if (tfc_status s = tfc_program_set(program, b.name, zeros.data(), b.bytes))
      return failWith(error, std::string("cannot set '") + b.name + "'", s);
  }
  return true;
}

/// The arena size and the saved-activation bytes of the step's forward
/// entry (train_step, or accumulate_step) from the artifact's manifest; 0
/// for what it does not record.
static std::pair<uint64_t, uint64_t>
arenaAndSavedBytes(const std::string &artifactDir) {
  auto buffer = llvm::MemoryBuffer::getFile(artifactDir + "/manifest.json");
  if (!buffer)
    return {0, 0};
  llvm::Expected<llvm::json::Value> value =
      llvm::json::parse((*buffer)->getBuffer());
  if (!value) {
    llvm::consumeError(value.takeError());
    return {0, 0};
  }
  const llvm::json::Object *root = value->getAsObject();
  const llvm::json::Object *arena = root ? root->getObject("arena") : nullptr;
  std::optional<int64_t> size = arena ? arena->getInteger("size") : std::nullopt;
  uint64_t saved = 0;
  if (const llvm::json::Array *entries = root ? root->getArray("entries")
                                              : nullptr)
    for (const llvm::json::Value &entry : *entries) {
      const llvm::json::Object *object = entry.getAsObject();
      std::optional<llvm::StringRef> name =
          object ? object->getString("name") : std::nullopt;
      if (!name || (*name != "train_step" && *name != "accumulate_step"))
        continue;
      if (std::optional<int64_t> bytes =
              object->getInteger("saved_activation_bytes"))
        saved = uint64_t(std::max<int64_t>(*bytes, 0));
    }
  return {size ? uint64_t(std::max<int64_t>(*size, 0)) : 0, saved};
}

MemoryAnatomy tfc::train::anatomyOf(tfc_program *program,
                                    const std::string &artifactDir,
                                    tfc_device *dev, int64_t parameters,
                                    const std::string &optimizer,
                                    bool lossScaling,
                                    const std::string &precision,
                                    const std::string &pad,
                                    const std::string &recompute,
                                    bool optimizerInBackward) {
  MemoryAnatomy a;
  a.recompute = recompute;
  a.optimizerInBackward = optimizerInBackward;
  a.precision = precision;
  a.pad = pad;
  a.device = tfc_device_kind(dev);
  a.optimizer = optimizer;
  a.lossScaling = lossScaling;
  a.parameters = parameters;
  std::vector<tfc_binding> bindings;
  std::vector<std::string> params;
  for (size_t i = 0, e = tfc_program_binding_count(program); i < e; ++i) {
    tfc_binding b;
    if (tfc_status s = tfc_program_binding(program, i, &b)) {
      tfc_status_free(s);
      continue;
    }
    bindings.push_back(b);
    if (b.role == TFC_ROLE_PARAM)
      params.push_back(b.name);
  }
  // The 16-bit copies of the weights (--tfc-weight-copies) are state named
  // "<param>.bf16" or "<param>.f16" (with a shape suffix when padded).
  auto isWeightCopy = [&](llvm::StringRef name) {
    return llvm::any_of(params, [&](const std::string &p) {
      llvm::StringRef rest = name;
      return rest.consume_front(p) &&
             (rest.starts_with(".bf16") || rest.starts_with(".f16"));
    });
  };
  for (const tfc_binding &b : bindings) {
    if (b.role == TFC_ROLE_PARAM)
      a.weightBytes += b.bytes;
    else if (b.role == TFC_ROLE_STATE && isWeightCopy(b.name))
      a.weightCopyBytes += b.bytes;
    else if (b.role == TFC_ROLE_STATE &&
             llvm::StringRef(b.name).ends_with(".grad_accum"))
      a.accumulatorBytes += b.bytes;
    else if (b.role == TFC_ROLE_STATE)
      a.optimizerBytes += b.bytes;
    else
      a.batchBytes += b.bytes;
  }
  // One f32 gradient per parameter, all live before the optimizer runs;
  // with the optimizer in the backward each dies at its update, so they
  // are never all live at once: what remains of them is in the arena.
  a.gradientBytes = a.optimizerInBackward ? 0 : a.weightBytes;
  std::tie(a.arenaBytes, a.savedActivationBytes) =
      arenaAndSavedBytes(artifactDir);
  // The cuda backend's cuBLASLt workspace (docs/execution.md): 32 MiB on
  // sm_90 and newer, 4 MiB before; the host backend's GEMMs need none.
  if (a.device == "cuda") {
    std::string description = tfc_device_description(dev);
    size_t sm = description.find("sm_");
    int arch = sm == std::string::npos ? 0 : std::atoi(description.c_str() + sm + 3);
    a.workspaceBytes = (arch >= 90 ? 32u : 4u) << 20;
  }
  return a;
}
