//===- CApiInternal.h - C API object definitions ----------------*- C++ -*-===//
//
// What the opaque C handles are, shared between CApi.cpp (everything that
// does not name a concrete backend) and Devices.cpp (tfc_device_create, which
// does). Tests use wrapBackend to drive the C API with a test backend.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_CORE_CAPIINTERNAL_H
#define TFC_RUNTIME_CORE_CAPIINTERNAL_H

#include "runtime/include/tfc/runtime.h"
#include "runtime/src/core/Backend.h"
#include "runtime/src/core/Status.h"

#include <memory>
#include <string>

struct tfc_status_t {
  std::string message;
};

struct tfc_device_t {
  std::shared_ptr<tfc::rt::Backend> backend;
  std::string kind;
  std::string description;
};

namespace tfc::rt {

/// A C status for `status`: NULL when ok. Never throws (falls back to a
/// static out-of-memory status if allocating the message fails).
tfc_status toCStatus(const Status &status);

/// Wraps a backend into a C device handle (owned by the caller, freed with
/// tfc_device_destroy).
tfc_device *wrapBackend(std::shared_ptr<Backend> backend);

} // namespace tfc::rt

#endif // TFC_RUNTIME_CORE_CAPIINTERNAL_H
