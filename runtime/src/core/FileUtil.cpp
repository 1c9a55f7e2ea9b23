//===- FileUtil.cpp - whole-file reads and atomic writes ------------------===//

#include "runtime/src/core/FileUtil.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
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

Status writeFileAtomic(const std::string &path, const void *data, size_t size) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status::error(osError("cannot create", tmp));
  const char *p = static_cast<const char *>(data);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::write(fd, p + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      Status s = Status::error(osError("cannot write", tmp));
      ::close(fd);
      ::unlink(tmp.c_str());
      return s;
    }
    done += static_cast<size_t>(n);
  }
  bool flushed = ::fsync(fd) == 0;
  if (::close(fd) != 0)
    flushed = false;
  if (!flushed) {
    Status s = Status::error(osError("cannot flush", tmp));
    ::unlink(tmp.c_str());
    return s;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Status s = Status::error(osError("cannot rename into", path));
    ::unlink(tmp.c_str());
    return s;
  }
  return Status::ok();
}

} // namespace tfc::rt
