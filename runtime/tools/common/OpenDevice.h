//===- OpenDevice.h - device choice shared by the tfc tools -----*- C++ -*-===//
//
// `--device host|cuda|auto` as every tool handles it: "auto" prefers the GPU
// and, when it has to fall back to the host backend, says why in one line.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_TOOLS_COMMON_OPENDEVICE_H
#define TFC_RUNTIME_TOOLS_COMMON_OPENDEVICE_H

#include "tfc/runtime.h"

#include <cstdio>
#include <string>

namespace tfc {

/// Opens the device `kind` ("host", "cuda" or "auto") into `*out`. With
/// "auto", a cuda failure prints "<tool>: <reason>; using the host backend"
/// to stderr and the host backend is opened instead. Returns the runtime's
/// error status (the caller frees it), or null on success.
inline tfc_status openDevice(const char *tool, const std::string &kind,
                             tfc_device **out) {
  if (kind != "auto")
    return tfc_device_create(kind.c_str(), out);
  tfc_status cuda = tfc_device_create("cuda", out);
  if (!cuda)
    return nullptr;
  std::fprintf(stderr, "%s: %s; using the host backend\n", tool,
               tfc_status_message(cuda));
  tfc_status_free(cuda);
  return tfc_device_create("host", out);
}

} // namespace tfc

#endif // TFC_RUNTIME_TOOLS_COMMON_OPENDEVICE_H
