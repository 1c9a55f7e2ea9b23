//===- InputFile.h - which paths a tool reads a model from ------*- C++ -*-===//
//
// tfc-opt, tfc-translate and the JIT read a whole model into memory. A
// character device (/dev/zero, /dev/urandom) never ends, so reading one runs
// out of memory: such inputs are refused up front. Header-only (LLVM's
// file-system support alone), so tools that do not link the JIT use it too.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_COMPILER_JIT_INPUTFILE_H
#define TFC_COMPILER_JIT_INPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"

#include <string>

namespace tfc {

/// Empty when `path` may be read as a model: "-" (stdin), a regular file, a
/// pipe (`<(...)`), or a path that does not exist (the reader then says so).
/// Else one line saying why not: a directory, a device, a socket.
inline std::string checkInputFile(llvm::StringRef path) {
  if (path == "-")
    return "";
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status))
    return "";
  switch (status.type()) {
  case llvm::sys::fs::file_type::regular_file:
  case llvm::sys::fs::file_type::fifo_file:
    return "";
  case llvm::sys::fs::file_type::directory_file:
    return ("'" + path + "' is a directory, not a model file").str();
  case llvm::sys::fs::file_type::character_file:
  case llvm::sys::fs::file_type::block_file:
    return ("'" + path + "' is a device, not a model file").str();
  default:
    return ("'" + path + "' is not a regular file").str();
  }
}

} // namespace tfc

#endif // TFC_COMPILER_JIT_INPUTFILE_H
