//===- Nvrtc.cpp - NVRTC loaded at run time -------------------------------===//

#include "runtime/src/cuda/Nvrtc.h"

#include "runtime/src/cuda/DebugLog.h"

#include <nvrtc.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <dlfcn.h>
#include <sys/stat.h>

namespace tfc::rt::cuda {

/// The NVRTC entry points tfc uses, bound by name from the dlopen'd library.
struct NvrtcApi {
  const char *(*nvrtcGetErrorString)(nvrtcResult);
  nvrtcResult (*nvrtcVersion)(int *, int *);
  nvrtcResult (*nvrtcGetNumSupportedArchs)(int *);
  nvrtcResult (*nvrtcGetSupportedArchs)(int *);
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *,
                                    int, const char *const *,
                                    const char *const *);
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram *);
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char *const *);
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t *);
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char *);
  nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t *);
  nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char *);
};

namespace {

bool fileExists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

bool hasFp16Headers(const std::string &dir) {
  return !dir.empty() && fileExists(dir + "/cuda_fp16.h") &&
         fileExists(dir + "/cuda_bf16.h");
}

/// Finds the toolkit include directory that matches the loaded NVRTC as well
/// as possible: explicit variables first, then the one beside the library.
std::string findIncludeDir(void *nvrtcSymbol) {
  std::vector<std::string> candidates;
  if (const char *dir = std::getenv("TFC_CUDA_INCLUDE"))
    candidates.push_back(dir);
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(var))
      candidates.push_back(std::string(root) + "/include");
  Dl_info info;
  if (nvrtcSymbol && dladdr(nvrtcSymbol, &info) && info.dli_fname) {
    char resolved[PATH_MAX];
    if (realpath(info.dli_fname, resolved)) {
      std::string lib(resolved);
      std::string libDir = lib.substr(0, lib.rfind('/'));
      candidates.push_back(libDir + "/../include");
      // targets/x86_64-linux/lib -> targets/x86_64-linux/include is covered
      // above; the toolkit root's include/ is two levels up from there.
      candidates.push_back(libDir + "/../../../include");
    }
  }
  candidates.push_back("/usr/local/cuda/include");
  for (const std::string &dir : candidates) {
    if (hasFp16Headers(dir)) {
      char resolved[PATH_MAX];
      return realpath(dir.c_str(), resolved) ? std::string(resolved) : dir;
    }
  }
  return "";
}

} // namespace

NvrtcCompiler::NvrtcCompiler() : api_(std::make_unique<NvrtcApi>()) {}
NvrtcCompiler::~NvrtcCompiler() = default;

Status NvrtcCompiler::load(std::unique_ptr<NvrtcCompiler> &out) {
  std::unique_ptr<NvrtcCompiler> c(new NvrtcCompiler());
  if (Status s = c->library_.open({"libnvrtc.so.13", "libnvrtc.so"},
                                     /*searchToolkit=*/true); !s)
    return Status::error("NVRTC not found (" + s.message() + ")");
  NvrtcApi &api = *c->api_;
  const DynamicLibrary &lib = c->library_;
#define TFC_BIND(sym) TFC_RETURN_IF_ERROR(lib.bind(api.sym, #sym))
  TFC_BIND(nvrtcGetErrorString);
  TFC_BIND(nvrtcVersion);
  TFC_BIND(nvrtcGetNumSupportedArchs);
  TFC_BIND(nvrtcGetSupportedArchs);
  TFC_BIND(nvrtcCreateProgram);
  TFC_BIND(nvrtcDestroyProgram);
  TFC_BIND(nvrtcCompileProgram);
  TFC_BIND(nvrtcGetProgramLogSize);
  TFC_BIND(nvrtcGetProgramLog);
  TFC_BIND(nvrtcGetCUBINSize);
  TFC_BIND(nvrtcGetCUBIN);
#undef TFC_BIND

  int major = 0, minor = 0;
  if (api.nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    return Status::error("nvrtcVersion failed");
  c->version_ = std::to_string(major) + "." + std::to_string(minor);
  int count = 0;
  if (api.nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0 ||
      count > 1024)
    return Status::error("nvrtcGetNumSupportedArchs failed");
  c->archs_.resize(size_t(count));
  if (api.nvrtcGetSupportedArchs(c->archs_.data()) != NVRTC_SUCCESS)
    return Status::error("nvrtcGetSupportedArchs failed");
  std::sort(c->archs_.begin(), c->archs_.end());
  c->includeDir_ = findIncludeDir(reinterpret_cast<void *>(api.nvrtcVersion));
  debugLog("loaded " + lib.loadedName() + " (NVRTC " + c->version_ +
           "), include dir '" + c->includeDir_ + "'");
  out = std::move(c);
  return Status::ok();
}

Status NvrtcCompiler::pickArch(int deviceArch, int &arch) const {
  if (std::find(archs_.begin(), archs_.end(), deviceArch) != archs_.end()) {
    arch = deviceArch;
    return Status::ok();
  }
  int best = -1;
  for (int a : archs_)
    if (a / 10 == deviceArch / 10 && a <= deviceArch)
      best = std::max(best, a);
  if (best < 0)
    return Status::error("NVRTC " + version_ + " cannot compile for sm_" +
                         std::to_string(deviceArch) +
                         " (no cubin architecture of that major version)");
  arch = best;
  return Status::ok();
}

std::vector<std::string> NvrtcCompiler::options(int arch) const {
  std::vector<std::string> opts = {
      "--gpu-architecture=sm_" + std::to_string(arch), "-std=c++17"};
  if (!includeDir_.empty())
    opts.push_back("--include-path=" + includeDir_);
  return opts;
}

Status NvrtcCompiler::compile(const std::string &source,
                              const std::string &name, int arch,
                              std::string &cubin) {
  if (std::find(archs_.begin(), archs_.end(), arch) == archs_.end())
    return Status::error("NVRTC " + version_ + " does not support sm_" +
                         std::to_string(arch));
  const NvrtcApi &api = *api_;
  nvrtcProgram prog = nullptr;
  std::string fileName = name + ".cu";
  nvrtcResult r = api.nvrtcCreateProgram(&prog, source.c_str(),
                                         fileName.c_str(), 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS)
    return Status::error("nvrtcCreateProgram(" + name +
                         ") failed: " + api.nvrtcGetErrorString(r));
  // The program is destroyed on every path below.
  struct Guard {
    const NvrtcApi &api;
    nvrtcProgram &prog;
    ~Guard() { api.nvrtcDestroyProgram(&prog); }
  } guard{api, prog};

  std::vector<std::string> opts = options(arch);
  std::vector<const char *> argv;
  for (const std::string &o : opts)
    argv.push_back(o.c_str());
  compileCount_.fetch_add(1, std::memory_order_relaxed);
  r = api.nvrtcCompileProgram(prog, int(argv.size()), argv.data());

  std::string log;
  size_t logSize = 0;
  if (api.nvrtcGetProgramLogSize(prog, &logSize) == NVRTC_SUCCESS &&
      logSize > 1) {
    log.resize(logSize);
    if (api.nvrtcGetProgramLog(prog, log.data()) != NVRTC_SUCCESS)
      log.clear();
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
      log.pop_back();
  }
  if (r != NVRTC_SUCCESS)
    return Status::error("NVRTC failed to compile kernel " + name + " for sm_" +
                         std::to_string(arch) + ": " +
                         api.nvrtcGetErrorString(r) +
                         (log.empty() ? "" : "\n" + log));
  if (!log.empty())
    debugLog("NVRTC log for " + name + ":\n" + log);

  size_t size = 0;
  if ((r = api.nvrtcGetCUBINSize(prog, &size)) != NVRTC_SUCCESS || size == 0)
    return Status::error("NVRTC produced no cubin for " + name + " (" +
                         api.nvrtcGetErrorString(r) + ")");
  cubin.assign(size, '\0');
  if ((r = api.nvrtcGetCUBIN(prog, cubin.data())) != NVRTC_SUCCESS)
    return Status::error("nvrtcGetCUBIN(" + name +
                         ") failed: " + api.nvrtcGetErrorString(r));
  return Status::ok();
}

Status NvrtcCompiler::compileCached(KernelCache &cache,
                                    const std::string &source,
                                    const std::string &name, int arch,
                                    std::string &cubin, CacheOutcome *outcome) {
  std::string key = KernelCache::makeKey(
      source, options(arch), "nvrtc-" + version_, "sm_" + std::to_string(arch));
  return cache.getOrCompile(
      key,
      [&](std::string &payload) {
        return compile(source, name, arch, payload);
      },
      cubin, outcome);
}

} // namespace tfc::rt::cuda
