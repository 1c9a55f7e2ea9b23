//===- DynamicLibrary.cpp - dlopen'd shared libraries ---------------------===//

#include "runtime/src/cuda/DynamicLibrary.h"

#include <dlfcn.h>
#include <utility>

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

Status DynamicLibrary::open(std::initializer_list<const char *> names) {
  std::string tried, lastError;
  for (const char *name : names) {
    // RTLD_LOCAL: the CUDA libraries must not leak symbols into the process
    // namespace, where another copy (e.g. PyTorch's) may live.
    if (void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) {
      if (handle_)
        dlclose(handle_);
      handle_ = h;
      name_ = name;
      return Status::ok();
    }
    const char *err = dlerror();
    lastError = err ? err : "unknown dlopen error";
    tried += tried.empty() ? name : std::string(", ") + name;
  }
  return Status::error("could not load " + tried + " (" + lastError + ")");
}

void *DynamicLibrary::lookup(const char *symbol) const {
  return handle_ ? dlsym(handle_, symbol) : nullptr;
}

} // namespace tfc::rt::cuda
