//===- tfc/runtime.hpp - C++ wrapper over the libtfcrt C API ----*- C++ -*-===//
//
// Header-only RAII wrapper over tfc/runtime.h: errors become
// tfc::runtime::Error exceptions, handles are move-only objects. Example:
//
//   tfc::runtime::Device dev("auto");
//   tfc::runtime::Program prog(dev, "gpt-mini.artifact");
//   prog.loadSafetensors("weights.safetensors");
//   prog.set("tokens", tokens.data(), tokens.size() * sizeof(int64_t));
//   prog.run("forward");
//   float loss;
//   prog.get("loss", &loss, sizeof(loss));
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_HPP
#define TFC_RUNTIME_HPP

#include "runtime.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tfc::runtime {

/// A runtime error (the message of a tfc_status).
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Throws Error for a non-NULL status (freeing it).
inline void check(tfc_status status) {
  if (!status)
    return;
  std::string message = tfc_status_message(status);
  tfc_status_free(status);
  throw Error(message);
}

/// A device ("host", "cuda" or "auto").
class Device {
public:
  explicit Device(const std::string &kind = "auto") {
    check(tfc_device_create(kind.c_str(), &device_));
  }
  ~Device() { tfc_device_destroy(device_); }
  Device(Device &&other) noexcept
      : device_(std::exchange(other.device_, nullptr)) {}
  Device &operator=(Device &&other) noexcept {
    std::swap(device_, other.device_);
    return *this;
  }
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  /// "host" or "cuda".
  std::string kind() const { return tfc_device_kind(device_); }
  /// One line describing the device.
  std::string description() const { return tfc_device_description(device_); }
  tfc_device *handle() const { return device_; }

private:
  tfc_device *device_ = nullptr;
};

/// One external buffer of a program.
struct Binding {
  std::string name;
  tfc_role role;
  tfc_dtype dtype;
  std::vector<int64_t> shape;
  size_t bytes;
};

/// A loaded artifact on a device.
class Program {
public:
  Program(const Device &device, const std::string &artifactDir)
      : Program(device.handle(), artifactDir) {}
  /// Loads on a device handle owned by the caller.
  Program(tfc_device *device, const std::string &artifactDir) {
    check(tfc_program_load(device, artifactDir.c_str(), &program_));
  }
  ~Program() { tfc_program_destroy(program_); }
  Program(Program &&other) noexcept
      : program_(std::exchange(other.program_, nullptr)) {}
  Program &operator=(Program &&other) noexcept {
    std::swap(program_, other.program_);
    return *this;
  }
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;

  /// All external buffers, in manifest order.
  std::vector<Binding> bindings() const {
    std::vector<Binding> out;
    size_t n = tfc_program_binding_count(program_);
    for (size_t i = 0; i < n; ++i) {
      tfc_binding b;
      check(tfc_program_binding(program_, i, &b));
      out.push_back(convert(b));
    }
    return out;
  }
  /// The external buffer `name`.
  Binding binding(const std::string &name) const {
    tfc_binding b;
    check(tfc_program_find_binding(program_, name.c_str(), &b));
    return convert(b);
  }
  /// Entry names ("forward", ...).
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (size_t i = 0, n = tfc_program_entry_count(program_); i < n; ++i)
      out.emplace_back(tfc_program_entry_name(program_, i));
    return out;
  }

  void set(const std::string &name, const void *data, size_t bytes) {
    check(tfc_program_set(program_, name.c_str(), data, bytes));
  }
  template <typename T>
  void set(const std::string &name, const std::vector<T> &values) {
    set(name, values.data(), values.size() * sizeof(T));
  }
  void get(const std::string &name, void *data, size_t bytes) {
    check(tfc_program_get(program_, name.c_str(), data, bytes));
  }
  /// Reads `name` into a vector of T sized from the binding.
  template <typename T> std::vector<T> get(const std::string &name) {
    Binding b = binding(name);
    if (b.bytes % sizeof(T))
      throw Error("binding '" + name +
                  "' is not a whole number of elements "
                  "of the requested type");
    std::vector<T> out(b.bytes / sizeof(T));
    get(name, out.data(), b.bytes);
    return out;
  }
  void run(const std::string &entry) {
    check(tfc_program_run(program_, entry.c_str()));
  }
  void loadSafetensors(const std::string &path, bool ignoreUnknown = false) {
    check(tfc_program_load_safetensors(program_, path.c_str(), ignoreUnknown));
  }
  void restoreSafetensors(const std::string &path, unsigned roleMask) {
    check(tfc_program_restore_safetensors(program_, path.c_str(), roleMask));
  }
  void saveSafetensors(const std::string &path, unsigned roleMask) {
    check(tfc_program_save_safetensors(program_, path.c_str(), roleMask));
  }
  tfc_program *handle() const { return program_; }

private:
  static Binding convert(const tfc_binding &b) {
    return Binding{b.name, b.role, b.dtype,
                   std::vector<int64_t>(b.shape, b.shape + b.rank), b.bytes};
  }
  tfc_program *program_ = nullptr;
};

} // namespace tfc::runtime

#endif // TFC_RUNTIME_HPP
