//===- Devices.cpp - tfc_device_create ------------------------------------===//
//
// Kept apart from CApi.cpp because it is the one place that names the
// concrete backends (createHostBackend in runtime/src/host, createCudaBackend
// in runtime/src/cuda): unit tests link the rest of the core without them.
//
//===----------------------------------------------------------------------===//

#include "runtime/include/tfc/runtime.h"
#include "runtime/src/core/CApiInternal.h"

#include <new>

using namespace tfc::rt;

extern "C" tfc_status tfc_device_create(const char *kind, tfc_device **out) {
  try {
    if (!kind || !out)
      return toCStatus(Status::error("tfc_device_create: null argument"));
    *out = nullptr;
    std::string k = kind;
    if (k != "host" && k != "cuda" && k != "auto")
      return toCStatus(Status::error("unknown device '" + k +
                                     "' (expected host, cuda or auto)"));
    if (k == "cuda" || k == "auto") {
      std::unique_ptr<Backend> cuda;
      Status s = createCudaBackend(cuda);
      if (s && cuda) {
        *out = wrapBackend(std::move(cuda));
        return nullptr;
      }
      if (k == "cuda")
        return toCStatus(Status::error(
            "cuda device unavailable: " +
            (s ? std::string("backend returned no device") : s.message())));
    }
    std::unique_ptr<Backend> host = createHostBackend();
    if (!host)
      return toCStatus(Status::error("host backend unavailable"));
    *out = wrapBackend(std::move(host));
    return nullptr;
  } catch (const std::bad_alloc &) {
    return toCStatus(Status::error("out of memory"));
  }
}
