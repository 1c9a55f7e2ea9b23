//===- CompilerApi.cpp - the compiler's C embedding API -------------------===//
//
// tfc/compiler.h over the JIT (compiler/jit): a session is a JitOptions plus
// the flag parsing that fills it; a compilation is compileModel /
// compileModelSource. Option checks reuse the tools' own predicates, so
// the API accepts exactly what tfc-run accepts.
//
//===----------------------------------------------------------------------===//

#include "tfc/compiler.h"

#include "compiler/jit/JitCompiler.h"
#include "dialects/tfc/TfcKernelSchedule.h"
#include "passes/Pipelines.h"
#include "passes/layout/Passes.h"
#include "passes/precision/PrecisionPolicy.h"

#include <chrono>
#include <exception>
#include <memory>
#include <string>
#include <vector>

struct tfc_compiler_error_t {
  std::string message;
};

struct tfc_compiler_session_t {
  tfc::JitOptions options;
  std::string flags; // tfc_compiler_session_flags's text
};

struct tfc_compiler_output_t {
  std::string artifactDir;
  bool cacheHit = false;
  int64_t accumulateSteps = 1;
  double wallMs = 0;
};

namespace {
tfc_compiler_error *makeError(std::string message) {
  while (!message.empty() && message.back() == '\n')
    message.pop_back();
  return new tfc_compiler_error{std::move(message)};
}

/// Applies one "--name[=value]" flag to `options`; returns an error message
/// or "".
std::string applyFlag(const std::string &flag, tfc::JitOptions &options) {
  if (flag.rfind("--", 0) != 0)
    return "'" + flag + "' is not a flag (flags are --name=value)";
  std::string name = flag.substr(2), value;
  bool hasValue = false;
  if (size_t eq = name.find('='); eq != std::string::npos) {
    value = name.substr(eq + 1);
    name.resize(eq);
    hasValue = true;
  }
  auto needValue = [&]() -> std::string {
    return hasValue ? "" : "--" + name + " needs a value (--" + name + "=...)";
  };
  auto boolean = [&](bool &field) -> std::string {
    if (!hasValue || value == "true" || value == "1") {
      field = true;
      return "";
    }
    if (value == "false" || value == "0") {
      field = false;
      return "";
    }
    return "--" + name + "='" + value + "': expected true or false";
  };
  if (name == "function") {
    if (std::string e = needValue(); !e.empty())
      return e;
    if (value.empty())
      return "--function needs a function name";
    options.function = value;
    return "";
  }
  if (name == "grad")
    return boolean(options.grad);
  if (name == "no-cache")
    return boolean(options.disableCache);
  if (name == "train-step") {
    if (std::string e = needValue(); !e.empty())
      return e;
    // Checked now, so a wrong option names itself before any compilation.
    std::string problem;
    int64_t steps = 1;
    if (failed(tfc::trainAccumulateSteps(
            value, steps, [&](const llvm::Twine &message) {
              problem = llvm::StringRef(message.str()).trim().str();
              return mlir::failure();
            })))
      return "invalid --train-step options '" + value + "': " + problem;
    // A bare --train-step still asks for a training step of --function.
    options.trainStepOptions =
        value.empty() ? "function=" + options.function : value;
    return "";
  }
  if (name == "fusion") {
    if (value != "all" && value != "none")
      return "--fusion='" + value + "': expected all or none";
    options.fusion = value == "all";
    return "";
  }
  if (name == "target") {
    if (!mlir::tfc::parseKernelTarget(value))
      return "--target='" + value + "': expected " +
             mlir::tfc::kernelTargetNames();
    options.target = value;
    return "";
  }
  if (name == "precision") {
    if (!tfc::parsePrecision(value))
      return "--precision='" + value + "': expected " +
             tfc::precisionNames().str();
    options.precision = value;
    return "";
  }
  if (name == "pad") {
    if (!tfc::isValidPadOption(value))
      return "--pad='" + value + "': expected " + tfc::padOptionValues();
    options.pad = value;
    return "";
  }
  return "unknown flag --" + name +
         " (expected --function, --grad, --train-step, --fusion, --target, "
         "--precision, --pad or --no-cache)";
}

std::string flagText(const tfc::JitOptions &o) {
  std::string text = "--function=" + o.function + "\n";
  if (o.grad)
    text += "--grad\n";
  if (!o.trainStepOptions.empty())
    text += "--train-step=" + o.trainStepOptions + "\n";
  text += std::string("--fusion=") + (o.fusion ? "all" : "none") + "\n";
  text += "--target=" + o.target + "\n--precision=" + o.precision +
          "\n--pad=" + o.pad + "\n";
  if (o.disableCache)
    text += "--no-cache\n";
  return text;
}

/// Runs `compile` (which fills `result` or `error`) and wraps the outcome.
template <typename Compile>
tfc_compiler_error *compileWith(tfc_compiler_session *session,
                                tfc_compiler_output **out, Compile compile) {
  if (!session)
    return makeError("tfc_compiler: null session");
  if (!out)
    return makeError("tfc_compiler: null output pointer");
  *out = nullptr;
  auto start = std::chrono::steady_clock::now();
  tfc::JitResult result;
  std::string error;
  try {
    if (!compile(result, error))
      return makeError(error.empty() ? "compilation failed" : error);
  } catch (const std::exception &e) {
    return makeError(std::string("compilation failed: ") + e.what());
  }
  auto output = std::make_unique<tfc_compiler_output>();
  output->artifactDir = result.artifactDir;
  output->cacheHit = result.cacheHit;
  output->accumulateSteps = result.accumulateSteps;
  output->wallMs = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  *out = output.release();
  return nullptr;
}
} // namespace

extern "C" {

int tfc_compiler_api_version(void) { return TFC_COMPILER_API_VERSION; }

const char *tfc_compiler_error_message(const tfc_compiler_error *error) {
  return error ? error->message.c_str() : "";
}

void tfc_compiler_error_destroy(tfc_compiler_error *error) { delete error; }

tfc_compiler_session *tfc_compiler_session_create(void) {
  auto *session = new tfc_compiler_session;
  session->flags = flagText(session->options);
  return session;
}

void tfc_compiler_session_destroy(tfc_compiler_session *session) {
  delete session;
}

tfc_compiler_error *tfc_compiler_session_set_flags(tfc_compiler_session *session,
                                                   int argc,
                                                   const char *const *argv) {
  if (!session)
    return makeError("tfc_compiler_session_set_flags: null session");
  if (argc < 0 || (argc > 0 && !argv))
    return makeError("tfc_compiler_session_set_flags: bad argc/argv");
  tfc::JitOptions options = session->options;
  for (int i = 0; i < argc; ++i) {
    if (!argv[i])
      return makeError("tfc_compiler_session_set_flags: flag " +
                       std::to_string(i) + " is null");
    if (std::string problem = applyFlag(argv[i], options); !problem.empty())
      return makeError(problem);
  }
  session->options = options;
  session->flags = flagText(options);
  return nullptr;
}

const char *tfc_compiler_session_flags(tfc_compiler_session *session) {
  return session ? session->flags.c_str() : "";
}

tfc_compiler_error *tfc_compiler_compile_file(tfc_compiler_session *session,
                                              const char *path,
                                              tfc_compiler_output **out) {
  if (!path)
    return makeError("tfc_compiler_compile_file: null path");
  return compileWith(session, out, [&](tfc::JitResult &r, std::string &e) {
    return tfc::compileModel(path, session->options, r, e);
  });
}

tfc_compiler_error *tfc_compiler_compile_source(tfc_compiler_session *session,
                                                const char *name,
                                                const char *source, size_t size,
                                                tfc_compiler_output **out) {
  if (!source && size)
    return makeError("tfc_compiler_compile_source: null source");
  std::string text(source ? source : "", size);
  std::string bufferName = name && *name ? name : "<source>";
  return compileWith(session, out, [&](tfc::JitResult &r, std::string &e) {
    return tfc::compileModelSource(text, bufferName, session->options, r, e);
  });
}

const char *tfc_compiler_output_artifact_dir(const tfc_compiler_output *output) {
  return output ? output->artifactDir.c_str() : "";
}

int tfc_compiler_output_cache_hit(const tfc_compiler_output *output) {
  return output && output->cacheHit ? 1 : 0;
}

int64_t tfc_compiler_output_accumulate_steps(const tfc_compiler_output *output) {
  return output ? output->accumulateSteps : 0;
}

double tfc_compiler_output_wall_ms(const tfc_compiler_output *output) {
  return output ? output->wallMs : 0.0;
}

void tfc_compiler_output_destroy(tfc_compiler_output *output) { delete output; }

} // extern "C"
