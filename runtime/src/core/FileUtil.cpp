//===- FileUtil.cpp - whole-file reads and atomic writes ------------------===//

#include "runtime/src/core/FileUtil.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tfc::rt {

static std::string osError(const std::string &what, const std::string &path) {
  return what + " '" + path + "': " + std::strerror(errno);
}

Status readFile(const std::string &path, std::string &out, size_t maxBytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::error(osError("cannot open", path));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    Status s = Status::error(osError("cannot stat", path));
    ::close(fd);
    return s;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::error("'" + path + "' is not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > maxBytes) {
    ::close(fd);
    return Status::error("'" + path + "' is too large (" +
                         std::to_string(st.st_size) + " bytes, limit " +
                         std::to_string(maxBytes) + ")");
  }
  out.clear();
  try {
    out.resize(static_cast<size_t>(st.st_size));
  } catch (const std::exception &) {
    ::close(fd);
    return Status::error("out of memory reading '" + path + "'");
  }
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::read(fd, &out[done], out.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      Status s = Status::error(osError("cannot read", path));
      ::close(fd);
      return s;
    }
    if (n == 0)
      break; // the file shrank while reading
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  out.resize(done);
  return Status::ok();
}

/// Writes all of `data` to `fd`; false (errno set) on failure.
static bool writeAll(int fd, const void *data, size_t size) {
  const char *p = static_cast<const char *>(data);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::write(fd, p + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

/// Writes through `path` in place: a device, a FIFO, or a link whose target
/// cannot be resolved. Nothing is renamed or replaced.
static Status writeInPlace(const std::string &path, const void *data,
                           size_t size) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status::error(osError("cannot open", path));
  if (!writeAll(fd, data, size)) {
    Status s = Status::error(osError("cannot write", path));
    ::close(fd);
    return s;
  }
  if (::close(fd) != 0)
    return Status::error(osError("cannot write", path));
  return Status::ok();
}

Status writeFileAtomic(const std::string &path, const void *data, size_t size) {
  // Only a regular file (or a new one) is replaced by a rename: renaming
  // over /dev/null, a FIFO or a symbolic link would replace the node itself.
  // A link is followed to its target, which is then written as `path` would.
  // /dev/stdout and /dev/fd/N name a descriptor the caller holds: written
  // in place even when they lead to a regular file (a shell's redirection,
  // whose open descriptor a rename would leave on the old file).
  if (path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0)
    return writeInPlace(path, data, size);
  std::string target = path;
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    char *resolved = ::realpath(path.c_str(), nullptr);
    if (!resolved) // a dangling link: open() creates its target
      return writeInPlace(path, data, size);
    target = resolved;
    std::free(resolved);
  }
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return Status::error("cannot write '" + path + "': it is a directory");
    if (!S_ISREG(st.st_mode))
      return writeInPlace(target, data, size);
  }

  // A fresh name (O_EXCL): never truncates a file that happens to exist.
  std::string tmp = target + ".tmp.XXXXXX";
  int fd = ::mkostemp(&tmp[0], O_CLOEXEC);
  if (fd < 0)
    return Status::error(osError("cannot create", target + ".tmp.*"));
  // The replaced file's permissions, else the 0644 of a new file.
  ::fchmod(fd, ::stat(target.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644);
  if (!writeAll(fd, data, size)) {
    Status s = Status::error(osError("cannot write", tmp));
    ::close(fd);
    ::unlink(tmp.c_str());
    return s;
  }
  bool flushed = ::fsync(fd) == 0;
  if (::close(fd) != 0)
    flushed = false;
  if (!flushed) {
    Status s = Status::error(osError("cannot flush", tmp));
    ::unlink(tmp.c_str());
    return s;
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    Status s = Status::error(osError("cannot rename into", target));
    ::unlink(tmp.c_str());
    return s;
  }
  return Status::ok();
}

} // namespace tfc::rt
