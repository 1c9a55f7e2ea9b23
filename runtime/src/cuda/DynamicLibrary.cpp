//===- DynamicLibrary.cpp - dlopen'd shared libraries ---------------------===//

#include "runtime/src/cuda/DynamicLibrary.h"

#include <cstdlib>
#include <dlfcn.h>
#include <utility>
#include <vector>

namespace tfc::rt::cuda {

DynamicLibrary::~DynamicLibrary() {
  if (handle_)
    dlclose(handle_);
}

DynamicLibrary::DynamicLibrary(DynamicLibrary &&other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      name_(std::move(other.name_)) {}

DynamicLibrary &DynamicLibrary::operator=(DynamicLibrary &&other) noexcept {
  if (this != &other) {
    if (handle_)
      dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    name_ = std::move(other.name_);
  }
  return *this;
}

namespace {

/// Where a CUDA toolkit keeps its libraries, in search order.
std::vector<std::string> toolkitLibraryDirs() {
  std::vector<std::string> dirs;
  if (const char *lib = std::getenv("TFC_CUDA_LIB"); lib && *lib)
    dirs.push_back(lib);
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(var); root && *root)
      dirs.push_back(std::string(root) + "/lib64");
  dirs.push_back("/usr/local/cuda/lib64");
  return dirs;
}

} // namespace

Status DynamicLibrary::open(std::initializer_list<const char *> names,
                            bool searchToolkit) {
  std::vector<std::string> candidates(names.begin(), names.end());
  if (searchToolkit)
    for (const std::string &dir : toolkitLibraryDirs())
      for (const char *name : names)
        candidates.push_back(dir + "/" + name);
  std::string tried, lastError;
  for (const std::string &name : candidates) {
    // RTLD_LOCAL: the CUDA libraries must not leak symbols into the process
    // namespace, where another copy (e.g. PyTorch's) may live.
    // RTLD_NODELETE: once loaded they stay for the process's life, as their
    // state does: NVRTC links its own libstdc++, whose 72 KiB emergency
    // exception pool is allocated at load and never freed, so every unload
    // and reload of it leaked that much (LeakSanitizer, scripts/test
    // --sanitize), and a leak in an unloaded module cannot even be named.
    if (void *h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)) {
      if (handle_)
        dlclose(handle_);
      handle_ = h;
      name_ = name;
      return Status::ok();
    }
    const char *err = dlerror();
    lastError = err ? err : "unknown dlopen error";
    tried += tried.empty() ? name : ", " + name;
  }
  return Status::error("could not load " + tried + " (" + lastError + ")");
}

void *DynamicLibrary::lookup(const char *symbol) const {
  return handle_ ? dlsym(handle_, symbol) : nullptr;
}

} // namespace tfc::rt::cuda
