//===- nvrtc-check.cpp - compile generated kernels with NVRTC + ptxas -----===//
//
// For every kernel in the given .mlir files (tfc.fusion and tfcrt.kernel
// ops), generates the CUDA source, compiles it with NVRTC to PTX for each
// architecture (sm_80 and sm_90 by default) and assembles the PTX with
// `ptxas -v`. Fails when codegen, NVRTC or ptxas fails, or when ptxas
// reports a register spill while the kernel uses every register its
// __launch_bounds__ leaves a thread (register pressure). Spills with
// registers to spare are the saves around a call (the slow paths of IEEE
// division, sinf/cosf's large-argument reduction): reported as a note, not
// a failure. Needs no GPU. --exec-only checks the tfcrt.kernel
// symbols alone: a train pipeline's output also holds the loss function with
// its graph-level tfc.fusion regions (gemm ones included), which it does not
// lower and which would be checked twice.
//
//   tfc-nvrtc-check [--ptxas PATH] [--cuda-include DIR] [--arch sm_80,...]
//                   [--keep DIR] [--exec-only] file.mlir...   ("-": stdin)
//
// Exit status: 0 all kernels fine, 1 a failure (a file without kernels,
// an unlowered model, is one), 77 (skip) when ptxas cannot be run.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/CudaCodegen.h"
#include "compiler/jit/InputFile.h"
#include "dialects/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"

#include <nvrtc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace {

struct Options {
  std::string ptxas = "/usr/local/cuda/bin/ptxas";
  std::string cudaInclude = "/usr/local/cuda/include";
  std::vector<std::string> archs = {"sm_80", "sm_90"};
  std::string keepDir;
  bool execOnly = false;
  std::vector<std::string> inputs;
};

/// Runs `command`, returning its exit status and combined output.
int run(const std::string &command, std::string &output) {
  FILE *pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe)
    return -1;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    output.append(buffer, n);
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string quote(const std::string &s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// NVRTC: source -> PTX for `arch` ("sm_80"), or an error message.
bool compileToPtx(const mlir::tfc::CudaKernel &kernel, const std::string &arch,
                  const Options &options, std::string &ptx, std::string &log) {
  nvrtcProgram program;
  std::string file = kernel.name + ".cu";
  if (nvrtcCreateProgram(&program, kernel.source.c_str(), file.c_str(), 0,
                         nullptr, nullptr) != NVRTC_SUCCESS) {
    log = "nvrtcCreateProgram failed";
    return false;
  }
  std::string archOpt = "--gpu-architecture=compute_" + arch.substr(3);
  std::string include = "--include-path=" + options.cudaInclude;
  const char *opts[] = {archOpt.c_str(), include.c_str(), "--std=c++17"};
  nvrtcResult result = nvrtcCompileProgram(program, 3, opts);
  size_t size = 0;
  nvrtcGetProgramLogSize(program, &size);
  log.assign(size, '\0');
  if (size)
    nvrtcGetProgramLog(program, log.data());
  while (!log.empty() && log.back() == '\0')
    log.pop_back();
  bool ok = result == NVRTC_SUCCESS;
  if (ok) {
    nvrtcGetPTXSize(program, &size);
    ptx.assign(size, '\0');
    nvrtcGetPTX(program, ptx.data());
    if (!ptx.empty() && ptx.back() == '\0')
      ptx.pop_back();
  } else {
    log = std::string(nvrtcGetErrorString(result)) + "\n" + log;
  }
  nvrtcDestroyProgram(&program);
  return ok;
}

/// Sums the "N bytes spill stores/loads" figures of a `ptxas -v` report.
long spillBytes(const std::string &report, std::string &summary,
               long &registers) {
  static const std::regex spill(R"((\d+) bytes spill (stores|loads))");
  static const std::regex regs(R"(Used (\d+) registers)");
  long total = 0;
  for (std::sregex_iterator it(report.begin(), report.end(), spill), end;
       it != end; ++it)
    total += std::stol((*it)[1]);
  std::smatch m;
  registers = 0;
  if (std::regex_search(report, m, regs)) {
    summary = m[1].str() + " registers";
    registers = std::stol(m[1].str());
  }
  return total;
}

/// The registers a thread may use under __launch_bounds__(threads): the
/// 64 Ki registers of a multiprocessor shared by one block (allocated in
/// units of 8), at most 255.
long registerCap(long threads) {
  long cap = 65536 / std::max(threads, 1L) / 8 * 8;
  return std::min(cap, 255L);
}

int checkFile(const std::string &path, const Options &options,
              const std::string &tmpDir, int &kernels) {
  mlir::DialectRegistry registry;
  tfc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::string error = tfc::checkInputFile(path);
  if (!error.empty()) {
    std::cerr << "error: " << error << "\n";
    return 1;
  }
  auto buffer = mlir::openInputFile(path, &error);
  if (!buffer) {
    std::cerr << "error: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  auto module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  int failures = 0, sites = 0;
  for (const mlir::tfc::KernelSite &site : mlir::tfc::findKernels(*module)) {
    if (options.execOnly && site.op->getName().getStringRef() != "tfcrt.kernel")
      continue;
    ++sites;
    auto kernel = mlir::tfc::emitCudaKernel(*site.body, site.kind, site.name);
    if (mlir::failed(kernel)) {
      std::cerr << "FAIL " << path << ": " << site.name << ": codegen failed\n";
      ++failures;
      continue;
    }
    ++kernels;
    if (!options.keepDir.empty()) {
      std::string kept = options.keepDir + "/" + kernel->name + ".cu";
      std::ofstream out(kept);
      out << kernel->source;
      out.close();
      if (!out) {
        std::cerr << "FAIL " << site.name << ": cannot write '" << kept
                  << "' (--keep)\n";
        ++failures;
      }
    }
    for (const std::string &arch : options.archs) {
      std::string ptx, log;
      if (!compileToPtx(*kernel, arch, options, ptx, log)) {
        std::cerr << "FAIL " << site.name << " (" << arch << "): NVRTC: " << log
                  << "\n--- source ---\n"
                  << kernel->source << "\n";
        ++failures;
        continue;
      }
      // NVRTC warnings are reported (generated code should not have any)
      // but do not fail the check.
      if (log.find_first_not_of(" \n\r\t") != std::string::npos)
        std::cout << "note " << site.name << " (" << arch << "): NVRTC log:\n"
                  << log << "\n";
      std::string ptxPath = tmpDir + "/" + kernel->name + "." + arch + ".ptx";
      std::ofstream(ptxPath) << ptx;
      std::string report;
      int status = run(quote(options.ptxas) + " -v -arch=" + arch + " " +
                           quote(ptxPath) + " -o /dev/null",
                       report);
      std::string summary;
      long registers = 0;
      long spills = spillBytes(report, summary, registers);
      long cap = registerCap(kernel->block[0] * kernel->block[1] *
                             kernel->block[2]);
      long callSaves = 0;
      if (status == 0 && spills != 0 && registers < cap) {
        callSaves = spills;
        spills = 0;
      }
      if (status != 0 || spills != 0) {
        std::cerr << "FAIL " << site.name << " (" << arch << "): "
                  << (status != 0 ? "ptxas failed"
                                  : std::to_string(spills) +
                                        " bytes of register spills")
                  << "\n"
                  << report << "\n";
        ++failures;
        continue;
      }
      std::cout << "ok   " << site.name << " ("
                << mlir::tfc::stringifyKernelKind(kernel->kind).str() << ", "
                << arch << "): " << summary << " of " << cap
                << (callSaves ? ", " + std::to_string(callSaves) +
                                    " bytes saved around calls (not "
                                    "register pressure)"
                              : std::string(", no spills"))
                << "\n";
    }
  }
  // A model that was never lowered has no kernels: "0 kernels, 0
  // failures" would read as a pass.
  if (sites == 0) {
    std::cerr << "FAIL " << path << ": no kernels found ("
              << (options.execOnly ? "tfcrt.kernel ops"
                                   : "tfc.fusion or tfcrt.kernel ops")
              << "): lower the model first, e.g. tfc-opt "
                 "--tfc-train-pipeline or --tfc-lower-to-exec\n";
    ++failures;
  }
  return failures;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "error: " << arg << " needs a value\n";
        std::exit(1);
      }
      return argv[++i];
    };
    if (arg == "--ptxas") {
      options.ptxas = value();
    } else if (arg == "--cuda-include") {
      options.cudaInclude = value();
    } else if (arg == "--keep") {
      options.keepDir = value();
    } else if (arg == "--exec-only") {
      options.execOnly = true;
    } else if (arg == "--arch") {
      options.archs.clear();
      std::stringstream list(value());
      for (std::string a; std::getline(list, a, ',');)
        if (a.rfind("sm_", 0) == 0)
          options.archs.push_back(a);
        else {
          std::cerr << "error: bad architecture '" << a << "' (sm_XX)\n";
          return 1;
        }
    } else if (arg == "-h" || arg == "--help") {
      std::cout << "usage: tfc-nvrtc-check [--ptxas PATH] [--cuda-include "
                   "DIR] [--arch sm_80,sm_90] [--keep DIR] [--exec-only] "
                   "file.mlir...\n";
      return 0;
    } else {
      options.inputs.push_back(arg);
    }
  }
  if (options.inputs.empty()) {
    std::cerr << "error: no input files\n";
    return 1;
  }
  if (!options.keepDir.empty()) {
    struct stat st;
    if (stat(options.keepDir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      std::cerr << "error: --keep '" << options.keepDir
                << "' is not a directory\n";
      return 1;
    }
  }
  if (access(options.ptxas.c_str(), X_OK) != 0) {
    std::cout << "skipped: ptxas not found at " << options.ptxas << "\n";
    return 77;
  }
  char tmpl[] = "/tmp/tfc-nvrtc-XXXXXX";
  if (!mkdtemp(tmpl)) {
    std::cerr << "error: cannot create a temporary directory\n";
    return 1;
  }
  std::string tmpDir = tmpl;

  int failures = 0, kernels = 0;
  for (const std::string &input : options.inputs)
    failures += checkFile(input, options, tmpDir, kernels);
  std::string ignored;
  run("rm -rf " + quote(tmpDir), ignored);
  std::cout << kernels << " kernels, " << options.archs.size()
            << " architectures, " << failures << " failures\n";
  return failures ? 1 : 0;
}
