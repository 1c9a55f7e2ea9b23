//===- KernelCache.cpp - on-disk cache of compiled kernels ----------------===//

#include "runtime/src/cuda/KernelCache.h"

#include "runtime/src/core/Sha256.h"
#include "runtime/src/cuda/DebugLog.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tfc::rt::cuda {
namespace {

constexpr const char *kMagic = "tfc-kernel-cache 1";
constexpr const char *kEntrySuffix = ".entry";
/// Entries larger than this are not believed (a cubin is at most a few MiB).
constexpr int64_t kMaxPayloadBytes = int64_t(1) << 30;

/// strerror_r: lookups and stores run on the compile pool's threads, and
/// POSIX does not promise that strerror's buffer is per thread.
std::string errnoText() {
  int err = errno;
  char buf[256] = {0};
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  return strerror_r(err, buf, sizeof(buf)); // GNU: returns the text
#else
  return strerror_r(err, buf, sizeof(buf)) == 0
             ? std::string(buf)
             : "errno " + std::to_string(err);
#endif
}

bool isHexKey(const std::string &key) {
  if (key.size() != 64)
    return false;
  for (char c : key)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  return true;
}

std::string sha256Of(const std::string &bytes) {
  return sha256Hex(bytes.data(), bytes.size());
}

/// Creates `path` and its missing parents with mode 0700 (the cache may hold
/// binaries of proprietary models: keep it private to the user).
Status makeDirectories(const std::string &path) {
  if (path.empty())
    return Status::error("empty cache directory");
  std::string prefix;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    prefix = path.substr(0, pos);
    if (prefix.empty())
      continue;
    if (mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST)
      return Status::error("cannot create cache directory " + prefix + ": " +
                           errnoText());
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Status::error("cache path " + path + " is not a directory");
  return Status::ok();
}

/// Reads the whole file; false when it cannot be opened or read (`notFound`
/// tells a missing file from other failures).
bool readFile(const std::string &path, std::string &out, std::string &why,
              bool &notFound) {
  notFound = false;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    notFound = errno == ENOENT;
    why = errnoText();
    return false;
  }
  out.clear();
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      why = errnoText();
      ::close(fd);
      return false;
    }
    if (n == 0)
      break;
    out.append(buf, size_t(n));
    if (int64_t(out.size()) > kMaxPayloadBytes + 4096) {
      why = "entry too large";
      ::close(fd);
      return false;
    }
  }
  ::close(fd);
  return true;
}

/// Reads one '\n'-terminated header line starting at `pos`.
bool headerLine(const std::string &data, size_t &pos, std::string &line) {
  size_t end = data.find('\n', pos);
  if (end == std::string::npos || end - pos > 256)
    return false;
  line = data.substr(pos, end - pos);
  pos = end + 1;
  return true;
}

/// Checks an entry's bytes; on success `payload` holds the payload, else
/// `why` says what is wrong.
bool parseEntry(const std::string &data, const std::string &key,
                std::string &payload, std::string &why) {
  size_t pos = 0;
  std::string line;
  if (!headerLine(data, pos, line) || line != kMagic) {
    why = "bad magic line";
    return false;
  }
  if (!headerLine(data, pos, line) || line != "key " + key) {
    why = "key line does not match the file name";
    return false;
  }
  if (!headerLine(data, pos, line) || line.rfind("size ", 0) != 0) {
    why = "missing size line";
    return false;
  }
  std::string sizeText = line.substr(5);
  if (sizeText.empty() || sizeText.size() > 12 ||
      sizeText.find_first_not_of("0123456789") != std::string::npos) {
    why = "malformed size";
    return false;
  }
  int64_t size = std::stoll(sizeText);
  if (size > kMaxPayloadBytes) {
    why = "size out of range";
    return false;
  }
  if (!headerLine(data, pos, line) || line.rfind("sha256 ", 0) != 0 ||
      !isHexKey(line.substr(7))) {
    why = "missing or malformed sha256 line";
    return false;
  }
  std::string expectedHash = line.substr(7);
  if (!headerLine(data, pos, line) || !line.empty()) {
    why = "missing header terminator";
    return false;
  }
  if (int64_t(data.size() - pos) != size) {
    why = "payload is " + std::to_string(data.size() - pos) +
          " bytes, header says " + std::to_string(size);
    return false;
  }
  payload = data.substr(pos);
  if (sha256Of(payload) != expectedHash) {
    why = "payload hash mismatch";
    return false;
  }
  return true;
}

/// Writes all of `bytes` to `fd`, stopping after `limit` bytes when given
/// (the test hook), in which case it reports an injected failure.
Status writeAll(int fd, const std::string &bytes, std::optional<size_t> limit) {
  size_t total = bytes.size();
  if (limit && *limit < total)
    total = *limit;
  size_t done = 0;
  while (done < total) {
    ssize_t n = ::write(fd, bytes.data() + done, total - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return Status::error("write failed: " + errnoText());
    }
    done += size_t(n);
  }
  if (limit && *limit < bytes.size())
    return Status::error("write failed: injected fault after " +
                         std::to_string(*limit) + " bytes");
  return Status::ok();
}

} // namespace

const char *cacheOutcomeName(CacheOutcome outcome) {
  switch (outcome) {
  case CacheOutcome::Disabled:
    return "disabled";
  case CacheOutcome::Hit:
    return "hit";
  case CacheOutcome::Miss:
    return "miss";
  case CacheOutcome::Corrupt:
    return "corrupt";
  }
  return "unknown";
}

KernelCache::KernelCache(std::string directory, bool enabled)
    : directory_(std::move(directory)), enabled_(enabled) {
  while (directory_.size() > 1 && directory_.back() == '/')
    directory_.pop_back();
  if (directory_.empty())
    enabled_ = false;
}

std::string KernelCache::defaultDirectory() {
  if (const char *dir = std::getenv("TFC_CACHE_DIR"); dir && *dir)
    return dir;
  const char *home = std::getenv("HOME");
  if (!home || !*home) {
    if (struct passwd *pw = getpwuid(getuid()))
      home = pw->pw_dir;
  }
  if (!home || !*home)
    return "";
  return std::string(home) + "/.cache/tfc";
}

KernelCache KernelCache::fromEnvironment() {
  const char *disable = std::getenv("TFC_DISABLE_CACHE");
  bool disabled = disable && *disable && std::strcmp(disable, "0") != 0;
  std::string dir = defaultDirectory();
  if (disabled)
    debugLog("kernel cache disabled (TFC_DISABLE_CACHE)");
  else if (dir.empty())
    debugLog("kernel cache disabled: neither TFC_CACHE_DIR nor a home "
             "directory is known");
  return KernelCache(dir, !disabled);
}

std::string KernelCache::makeKey(const std::string &source,
                                 const std::vector<std::string> &options,
                                 const std::string &compilerVersion,
                                 const std::string &arch) {
  // Length prefixes keep ("ab","c") and ("a","bc") apart; the leading tag
  // versions the key scheme itself.
  std::string encoded;
  auto add = [&](const std::string &part) {
    encoded += std::to_string(part.size());
    encoded += ':';
    encoded += part;
    encoded += '\n';
  };
  add("tfc-kernel-key-v1");
  add(source);
  add(std::to_string(options.size()));
  for (const std::string &opt : options)
    add(opt);
  add(compilerVersion);
  add(arch);
  return sha256Of(encoded);
}

std::string KernelCache::entryPath(const std::string &key) const {
  return directory_ + "/" + key + kEntrySuffix;
}

KernelCacheStats KernelCache::stats() const {
  KernelCacheStats s;
  s.hits = stats_.hits.load();
  s.misses = stats_.misses.load();
  s.corrupt = stats_.corrupt.load();
  s.compiles = stats_.compiles.load();
  s.stores = stats_.stores.load();
  s.storeFailures = stats_.storeFailures.load();
  return s;
}

Status KernelCache::ensureDirectory() {
  if (directoryReady_.load(std::memory_order_acquire))
    return Status::ok();
  TFC_RETURN_IF_ERROR(makeDirectories(directory_));
  directoryReady_.store(true, std::memory_order_release);
  return Status::ok();
}

CacheOutcome KernelCache::lookup(const std::string &key, std::string &payload) {
  if (!enabled_)
    return CacheOutcome::Disabled;
  if (!isHexKey(key)) {
    ++stats_.misses;
    return CacheOutcome::Miss;
  }
  std::string path = entryPath(key), data, why;
  bool notFound = false;
  if (!readFile(path, data, why, notFound)) {
    if (!notFound)
      debugLog("kernel cache: cannot read " + path + ": " + why);
    ++stats_.misses;
    return CacheOutcome::Miss;
  }
  if (!parseEntry(data, key, payload, why)) {
    debugLog("kernel cache: corrupt entry " + path + " (" + why +
             "); removing it and recompiling");
    ::unlink(path.c_str());
    payload.clear();
    ++stats_.corrupt;
    return CacheOutcome::Corrupt;
  }
  ++stats_.hits;
  return CacheOutcome::Hit;
}

Status KernelCache::store(const std::string &key, const std::string &payload) {
  if (!enabled_)
    return Status::error("kernel cache is disabled");
  if (!isHexKey(key))
    return Status::error("kernel cache key '" + key +
                         "' is not 64 lowercase hex digits");
  if (int64_t(payload.size()) > kMaxPayloadBytes)
    return Status::error("kernel cache payload too large");
  TFC_RETURN_IF_ERROR(ensureDirectory());

  std::string entry = std::string(kMagic) + "\nkey " + key + "\nsize " +
                      std::to_string(payload.size()) + "\nsha256 " +
                      sha256Of(payload) + "\n\n";
  entry += payload;

  // The temporary file lives in the cache directory so rename() stays on one
  // file system and is atomic; its name never ends in ".entry", so a reader
  // can never mistake it for an entry.
  std::string tmpl = directory_ + "/." + key + ".tmp.XXXXXX";
  std::vector<char> tmpPath(tmpl.begin(), tmpl.end());
  tmpPath.push_back('\0');
  int fd = mkstemp(tmpPath.data());
  if (fd < 0)
    return Status::error("cannot create temporary file in " + directory_ +
                         ": " + errnoText());
  Status written = writeAll(fd, entry, writeFault_);
  if (written && ::fsync(fd) != 0)
    written = Status::error("fsync failed: " + errnoText());
  if (::close(fd) != 0 && written)
    written = Status::error("close failed: " + errnoText());
  if (written && ::rename(tmpPath.data(), entryPath(key).c_str()) != 0)
    written = Status::error("rename failed: " + errnoText());
  if (!written) {
    ::unlink(tmpPath.data());
    return Status::error("cannot write kernel cache entry " + entryPath(key) +
                         ": " + written.message());
  }
  ++stats_.stores;
  return Status::ok();
}

Status KernelCache::getOrCompile(const std::string &key,
                                 const CompileFn &compile, std::string &payload,
                                 CacheOutcome *outcome) {
  CacheOutcome found = lookup(key, payload);
  if (outcome)
    *outcome = found;
  if (found == CacheOutcome::Hit) {
    debugLog("kernel cache hit " + key);
    return Status::ok();
  }
  payload.clear();
  TFC_RETURN_IF_ERROR(compile(payload));
  ++stats_.compiles;
  if (found == CacheOutcome::Disabled)
    return Status::ok();
  if (Status stored = store(key, payload); !stored) {
    // The binary is good; only later processes lose the shortcut.
    ++stats_.storeFailures;
    debugLog("kernel cache: " + stored.message());
  } else {
    debugLog("kernel cache stored " + entryPath(key));
  }
  return Status::ok();
}

} // namespace tfc::rt::cuda
