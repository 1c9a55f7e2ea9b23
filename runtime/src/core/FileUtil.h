//===- FileUtil.h - whole-file reads and atomic writes ----------*- C++ -*-===//

#ifndef TFC_RUNTIME_CORE_FILEUTIL_H
#define TFC_RUNTIME_CORE_FILEUTIL_H

#include "runtime/src/core/Status.h"

#include <cstddef>
#include <string>

namespace tfc::rt {

/// Reads the regular file `path` into `out`. Errors (with the OS reason) when
/// it is missing, not a regular file, unreadable, or larger than `maxBytes`.
Status readFile(const std::string &path, std::string &out,
                size_t maxBytes = size_t(1) << 40);

/// Writes `size` bytes to `path` atomically: a temporary file in the same
/// directory is written, flushed and renamed over `path`, so readers never
/// see a partial file. Only a regular file (or a path that does not exist)
/// is replaced that way: a symbolic link is followed and its target written
/// the same way (the link stays); a device or FIFO (/dev/null, /dev/stdout)
/// is written in place; a directory is an error.
Status writeFileAtomic(const std::string &path, const void *data, size_t size);

} // namespace tfc::rt

#endif // TFC_RUNTIME_CORE_FILEUTIL_H
