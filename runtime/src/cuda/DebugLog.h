//===- DebugLog.h - TFC_LOG=debug messages of the cuda backend --*- C++ -*-===//

#ifndef TFC_RUNTIME_CUDA_DEBUGLOG_H
#define TFC_RUNTIME_CUDA_DEBUGLOG_H

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace tfc::rt::cuda {

/// True when the environment has TFC_LOG=debug. Read on every call (cheap)
/// so tests can toggle it.
inline bool debugLogEnabled() {
  const char *level = std::getenv("TFC_LOG");
  return level && std::strcmp(level, "debug") == 0;
}

/// Writes "tfc[cuda]: <message>" to stderr when TFC_LOG=debug.
inline void debugLog(const std::string &message) {
  if (debugLogEnabled())
    std::fprintf(stderr, "tfc[cuda]: %s\n", message.c_str());
}

} // namespace tfc::rt::cuda

#endif // TFC_RUNTIME_CUDA_DEBUGLOG_H
