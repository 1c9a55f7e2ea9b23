//===- JitCompiler.cpp - in-process .mlir -> artifact compilation ---------===//

#include "compiler/jit/JitCompiler.h"
#include "compiler/artifact/ArtifactWriter.h"
#include "compiler/jit/InputFile.h"
#include "dialects/Registration.h"
#include "passes/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <dlfcn.h>
#include <link.h>

using namespace mlir;

std::string tfc::cacheDirectory() {
  if (const char *dir = std::getenv("TFC_CACHE_DIR"); dir && *dir)
    return dir;
  const char *home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/tfc";
}

namespace {
using OptionErrorHandler =
    llvm::function_ref<LogicalResult(const llvm::Twine &)>;

/// Runs `parse`, which parses options.trainStepOptions and reports problems
/// through the handler it is given; on failure sets `error` to one line
/// naming the options.
bool parseTrainOptions(
    const tfc::JitOptions &options, std::string &error,
    llvm::function_ref<LogicalResult(OptionErrorHandler)> parse) {
  std::string problem;
  if (succeeded(parse([&](const llvm::Twine &message) {
        problem = llvm::StringRef(message.str()).trim().str();
        return failure();
      })))
    return true;
  error = "invalid train-step options '" + options.trainStepOptions +
          "': " + problem + " (see tfc-opt --help, --tfc-build-train-step)\n";
  return false;
}

/// Parses, lowers and writes; all diagnostics go to `error`.
bool compileSource(llvm::SourceMgr &sourceMgr, const tfc::JitOptions &options,
                   const std::string &artifactDir, std::string &error,
                   tfc::ArtifactPublish publish = tfc::ArtifactPublish::Replace) {
  DialectRegistry registry;
  tfc::registerAllDialects(registry);
  MLIRContext context(registry);
  // A failing pass names its error; a dump of the whole module after it
  // helps nobody who runs a tool.
  context.printOpOnDiagnostic(false);
  context.disableMultithreading();
  llvm::raw_string_ostream errors(error);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, errors);

  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return false;
  PassManager pm(&context);
  if (!options.trainStepOptions.empty()) {
    std::string stepOptions = options.trainStepOptions;
    if (!options.fusion)
      stepOptions += " fusion=none";
    stepOptions += " target=" + options.target;
    if (options.precision != "f32" &&
        stepOptions.find("precision=") == std::string::npos)
      stepOptions += " precision=" + options.precision;
    if (options.pad != "auto" &&
        stepOptions.find("pad=") == std::string::npos)
      stepOptions += " pad=" + options.pad;
    if (!parseTrainOptions(options, error, [&](auto onError) {
          return tfc::buildTrainPipeline(pm, stepOptions, onError);
        }))
      return false;
  } else {
    // A function the module lacks is named with the ones it has (the
    // pipeline's passes would each report it as their own failure).
    if (!module->lookupSymbol<func::FuncOp>(options.function)) {
      std::string names;
      for (auto f : module->getOps<func::FuncOp>())
        names += (names.empty() ? "@" : ", @") + f.getName().str();
      error += "'" +
               sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
                   ->getBufferIdentifier()
                   .str() +
               "' has no function @" + options.function +
               (names.empty() ? " (it has no functions)"
                              : " (its functions: " + names + ")") +
               "\n";
      return false;
    }
    tfc::LowerToExecOptions pipelineOptions;
    pipelineOptions.function = options.function;
    pipelineOptions.autodiff = options.grad;
    pipelineOptions.fusion =
        options.fusion ? tfc::FusionMode::All : tfc::FusionMode::None;
    pipelineOptions.target = options.target;
    pipelineOptions.precision = options.precision;
    pipelineOptions.pad = options.pad;
    tfc::buildLowerToExecPipeline(pm, pipelineOptions);
  }
  if (failed(pm.run(*module)))
    return false;
  return succeeded(tfc::writeArtifact(*module, artifactDir, publish));
}

/// Identifies the compiler build (path, size and modification time of the
/// binary holding this code: the tool, or libtfc_compiler.so inside an
/// application such as Python), so a rebuilt tfc never reuses artifacts
/// that an older build generated.
std::string compilerBuildId() {
  std::string binary;
  Dl_info info;
  link_map *module = nullptr;
  static const char anchor = 0;
  // A shared library names itself; the main program's entry has no name
  // (dladdr would give argv[0]), so it is /proc/self/exe below.
  if (dladdr1(&anchor, &info, reinterpret_cast<void **>(&module),
              RTLD_DL_LINKMAP) &&
      module && module->l_name && *module->l_name)
    binary = module->l_name;
  llvm::sys::fs::file_status status;
  if (binary.empty() || llvm::sys::fs::status(binary, status)) {
    binary = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
    if (binary.empty() || llvm::sys::fs::status(binary, status))
      return "unknown-build";
  }
  return binary + ":" + std::to_string(status.getSize()) + ":" +
         std::to_string(status.getLastModificationTime().time_since_epoch().count());
}

bool loadSource(const std::string &modelPath, llvm::SourceMgr &sourceMgr,
                std::string &error) {
  if (std::string problem = tfc::checkInputFile(modelPath); !problem.empty()) {
    error = problem + "\n";
    return false;
  }
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(modelPath);
  if (!buffer) {
    error = "cannot open '" + modelPath + "': " +
            buffer.getError().message() + "\n";
    return false;
  }
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  return true;
}
/// Compiles through the on-disk cache (see compileModel).
bool compileCached(llvm::SourceMgr &sourceMgr, const tfc::JitOptions &options,
                   tfc::JitResult &result, std::string &error);
} // namespace

bool tfc::compileModelTo(const std::string &modelPath,
                         const JitOptions &options,
                         const std::string &artifactDir, std::string &error) {
  llvm::SourceMgr sourceMgr;
  return loadSource(modelPath, sourceMgr, error) &&
         compileSource(sourceMgr, options, artifactDir, error);
}

bool tfc::compileModel(const std::string &modelPath, const JitOptions &options,
                       JitResult &result, std::string &error) {
  llvm::SourceMgr sourceMgr;
  return loadSource(modelPath, sourceMgr, error) &&
         compileCached(sourceMgr, options, result, error);
}

bool tfc::compileModelSource(const std::string &source,
                             const std::string &bufferName,
                             const JitOptions &options, JitResult &result,
                             std::string &error) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, bufferName), llvm::SMLoc());
  return compileCached(sourceMgr, options, result, error);
}

namespace {
bool compileCached(llvm::SourceMgr &sourceMgr, const tfc::JitOptions &options,
                   tfc::JitResult &result, std::string &error) {
  // A cached artifact needs the value as much as a fresh one does.
  if (!options.trainStepOptions.empty() &&
      !parseTrainOptions(options, error, [&](auto onError) {
        return tfc::trainAccumulateSteps(options.trainStepOptions,
                                         result.accumulateSteps, onError);
      }))
    return false;
  const char *disable = std::getenv("TFC_DISABLE_CACHE");
  bool useCache = !options.disableCache && !(disable && *disable &&
                                             std::string(disable) != "0");
  if (!useCache) {
    // A private directory per process, so concurrent runs never collide.
    llvm::SmallString<128> dir;
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory("tfc-artifact", dir)) {
      error = "cannot create a temporary directory: " + ec.message() + "\n";
      return false;
    }
    result.artifactDir = std::string(dir) + "/artifact";
    result.cacheHit = false;
    return compileSource(sourceMgr, options, result.artifactDir, error);
  }

  // The key covers everything the artifact depends on: the model text, the
  // options and the artifact format (a new tfc build changes the format
  // version when the contents change meaning).
  llvm::SHA256 hasher;
  StringRef source =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  hasher.update(source);
  hasher.update(StringRef("\0function=", 10));
  hasher.update(options.function);
  hasher.update(options.grad ? StringRef("\0grad=1", 7) : StringRef("\0grad=0", 7));
  hasher.update(StringRef("\0train-step=", 12));
  hasher.update(options.trainStepOptions);
  hasher.update(options.fusion ? StringRef("\0fusion=all", 11)
                               : StringRef("\0fusion=none", 12));
  hasher.update(StringRef("\0target=", 8));
  hasher.update(options.target);
  hasher.update(StringRef("\0precision=", 11));
  hasher.update(options.precision);
  hasher.update(StringRef("\0pad=", 5));
  hasher.update(options.pad);
  hasher.update("\0artifact-version=" + std::to_string(tfc::kArtifactVersion));
  hasher.update(compilerBuildId());
  std::string key = llvm::toHex(hasher.final(), /*LowerCase=*/true);

  std::string root = tfc::cacheDirectory() + "/artifacts";
  if (std::error_code ec = llvm::sys::fs::create_directories(
          root, /*IgnoreExisting=*/true, llvm::sys::fs::perms::owner_all)) {
    error = "cannot create the cache directory '" + root + "': " +
            ec.message() + "\n";
    return false;
  }
  result.artifactDir = root + "/" + key;
  if (llvm::sys::fs::exists(result.artifactDir)) {
    // The runtime re-validates the whole entry when it loads it; its digests
    // are checked here too, so a damaged entry is rebuilt rather than
    // failing every run that hits it.
    std::string problem = tfc::checkArtifactDigests(result.artifactDir);
    if (problem.empty()) {
      result.cacheHit = true;
      return true;
    }
    llvm::errs() << "tfc: cache entry '" << result.artifactDir
                 << "' is damaged (" << problem
                 << "); removed it, compiling again\n";
    tfc::evictCachedArtifact(result.artifactDir);
  }
  result.cacheHit = false;
  // Processes compiling the same model at once each write their own
  // temporary copy; the first rename publishes, the others keep it.
  return compileSource(sourceMgr, options, result.artifactDir, error,
                       tfc::ArtifactPublish::KeepExisting);
}
} // namespace

void tfc::evictCachedArtifact(const std::string &artifactDir) {
  // Renamed aside first (atomic: another process sees the entry whole or
  // not at all), then deleted. Only a directory in the cache is touched.
  llvm::SmallString<256> aside;
  llvm::sys::fs::createUniquePath(artifactDir + ".bad-%%%%%%", aside,
                                  /*MakeAbsolute=*/false);
  if (!llvm::sys::fs::is_directory(artifactDir) ||
      llvm::sys::path::parent_path(artifactDir) !=
          tfc::cacheDirectory() + "/artifacts")
    return;
  if (!llvm::sys::fs::rename(artifactDir, aside))
    llvm::sys::fs::remove_directories(aside);
}

std::string tfc::targetForDevice(const std::string &device) {
  return device == "host" ? "host" : "sm_90";
}
