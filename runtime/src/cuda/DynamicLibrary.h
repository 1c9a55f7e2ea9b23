//===- DynamicLibrary.h - dlopen'd shared libraries -------------*- C++ -*-===//
//
// The cuda backend loads libcuda, NVRTC and cuBLASLt at run time so that
// libtfcrt itself links none of them and stays loadable on machines without
// a GPU or without the CUDA toolkit.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_CUDA_DYNAMICLIBRARY_H
#define TFC_RUNTIME_CUDA_DYNAMICLIBRARY_H

#include "runtime/src/core/Status.h"

#include <initializer_list>
#include <string>

namespace tfc::rt::cuda {

/// An owned dlopen handle (closed on destruction).
class DynamicLibrary {
public:
  DynamicLibrary() = default;
  ~DynamicLibrary();
  DynamicLibrary(const DynamicLibrary &) = delete;
  DynamicLibrary &operator=(const DynamicLibrary &) = delete;
  DynamicLibrary(DynamicLibrary &&other) noexcept;
  DynamicLibrary &operator=(DynamicLibrary &&other) noexcept;

  /// Opens the first of `names` that dlopen can load (RTLD_NOW | RTLD_LOCAL).
  /// With `searchToolkit` (NVRTC, cuBLASLt: toolkit libraries, which a
  /// machine may have without registering them with the loader), names the
  /// loader cannot find are also tried in the CUDA toolkit's library
  /// directories: $TFC_CUDA_LIB, $CUDA_HOME/lib64, $CUDA_PATH/lib64,
  /// /usr/local/cuda/lib64. On failure the error names every candidate and
  /// the last dlerror().
  Status open(std::initializer_list<const char *> names,
              bool searchToolkit = false);
  bool isOpen() const { return handle_ != nullptr; }
  /// The file name that was loaded ("libnvrtc.so.13").
  const std::string &loadedName() const { return name_; }

  /// Looks up `symbol`; null when absent.
  void *lookup(const char *symbol) const;

  /// Looks up `symbol` into the function pointer `fn`; an error naming the
  /// symbol and library when it is absent.
  template <typename Fn> Status bind(Fn &fn, const char *symbol) const {
    fn = reinterpret_cast<Fn>(lookup(symbol));
    if (!fn)
      return Status::error("symbol " + std::string(symbol) + " missing in " +
                           name_);
    return Status::ok();
  }

private:
  void *handle_ = nullptr;
  std::string name_;
};

} // namespace tfc::rt::cuda

#endif // TFC_RUNTIME_CUDA_DYNAMICLIBRARY_H
