//===- KernelCache.h - on-disk cache of compiled kernels --------*- C++ -*-===//
//
// NVRTC compiles each kernel once per GPU architecture; the binary is kept in
// an on-disk cache so that later processes skip the compile. The cache knows
// nothing about CUDA: a key is the SHA-256 of everything that determines the
// binary (source, compile options, compiler version, architecture) and a
// payload is opaque bytes, so it is unit-testable without a GPU.
//
// Layout: one file per entry, `<dir>/<key>.entry`, holding a text header
//   tfc-kernel-cache 1
//   key <64 hex>
//   size <payload bytes>
//   sha256 <64 hex of the payload>
//   <empty line>
// followed by the payload. Entries are written to a temporary file in the same
// directory and renamed into place, so a reader sees either no entry or a
// complete one; the header's own payload hash catches everything else (disk
// corruption, a truncated copy, a hand-edited file), and such an entry is
// removed, reported at TFC_LOG=debug and recompiled.
//
// Environment: TFC_CACHE_DIR (default ~/.cache/tfc, created mode 0700),
// TFC_DISABLE_CACHE=1 bypasses the cache entirely.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_CUDA_KERNELCACHE_H
#define TFC_RUNTIME_CUDA_KERNELCACHE_H

#include "runtime/src/core/Status.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tfc::rt::cuda {

/// What a lookup found.
enum class CacheOutcome {
  Disabled, ///< The cache is bypassed (TFC_DISABLE_CACHE=1 or no directory).
  Hit,      ///< A valid entry was found.
  Miss,     ///< No entry.
  Corrupt,  ///< An entry existed but failed its checks; it was removed.
};

/// Returns "disabled", "hit", "miss" or "corrupt".
const char *cacheOutcomeName(CacheOutcome outcome);

/// Counters of one cache object (for tests and TFC_LOG=debug summaries): a
/// snapshot, taken while other threads may still be counting.
struct KernelCacheStats {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t corrupt = 0;
  int64_t compiles = 0;
  int64_t stores = 0;
  int64_t storeFailures = 0;
};

/// An on-disk, content-addressed cache of compiled kernel binaries. Safe to
/// share the directory between concurrent processes, and one object between
/// threads (the parallel NVRTC compile looks up and stores from a pool):
/// lookup, store and getOrCompile may run concurrently, on distinct keys or
/// the same one (every store writes its own temporary file and renames it
/// into place, so the last complete entry wins). Not copyable: the counters
/// belong to one object.
class KernelCache {
public:
  /// A cache in `directory` (created with mode 0700 on first store). With
  /// `enabled` false every lookup reports Disabled and nothing is written.
  explicit KernelCache(std::string directory, bool enabled = true);
  KernelCache(const KernelCache &) = delete;
  KernelCache &operator=(const KernelCache &) = delete;

  /// The cache the environment asks for: TFC_CACHE_DIR or ~/.cache/tfc,
  /// disabled when TFC_DISABLE_CACHE is set to anything but "" or "0", or
  /// when no directory can be determined.
  static KernelCache fromEnvironment();

  /// TFC_CACHE_DIR, else $HOME/.cache/tfc (home from the password database
  /// when HOME is unset); empty when neither is known.
  static std::string defaultDirectory();

  /// The key of a compile: SHA-256 (hex) of an unambiguous, length-prefixed
  /// encoding of `source`, each of `options` in order, `compilerVersion` and
  /// `arch`.
  static std::string makeKey(const std::string &source,
                             const std::vector<std::string> &options,
                             const std::string &compilerVersion,
                             const std::string &arch);

  bool enabled() const { return enabled_; }
  const std::string &directory() const { return directory_; }
  /// `<dir>/<key>.entry`.
  std::string entryPath(const std::string &key) const;

  /// Reads the entry of `key` into `payload`. A corrupt entry is removed and
  /// reported at TFC_LOG=debug (with the reason) and yields Corrupt. A key
  /// that is not 64 lowercase hex digits yields Miss.
  CacheOutcome lookup(const std::string &key, std::string &payload);

  /// Writes the entry of `key` atomically (temp file + rename). Errors say
  /// what failed; a failed store leaves no file behind.
  Status store(const std::string &key, const std::string &payload);

  /// Produces the payload of a compile.
  using CompileFn = std::function<Status(std::string &payload)>;

  /// Returns the cached payload of `key`, or runs `compile`, stores its
  /// result and returns it. A failing store is not an error (the compile
  /// succeeded); it is reported at TFC_LOG=debug. `outcome`, when given,
  /// receives what the lookup found.
  Status getOrCompile(const std::string &key, const CompileFn &compile,
                      std::string &payload, CacheOutcome *outcome = nullptr);

  /// The counters so far.
  KernelCacheStats stats() const;

  /// Test hook: makes the next stores fail after writing `bytes` bytes of
  /// the entry (std::nullopt turns it off), to check that a failed write
  /// leaves neither a partial entry nor a temporary file. Not to be called
  /// while another thread uses the cache.
  void setWriteFaultForTesting(std::optional<size_t> bytes) {
    writeFault_ = bytes;
  }

private:
  Status ensureDirectory();

  /// KernelCacheStats, counted from several threads.
  struct Counters {
    std::atomic<int64_t> hits{0}, misses{0}, corrupt{0}, compiles{0}, stores{0},
        storeFailures{0};
  };

  std::string directory_;
  bool enabled_;
  /// Set once the directory exists. Two threads racing to create it both
  /// succeed (mkdir's EEXIST is accepted), so no lock is needed.
  std::atomic<bool> directoryReady_{false};
  Counters stats_;
  std::optional<size_t> writeFault_;
};

} // namespace tfc::rt::cuda

#endif // TFC_RUNTIME_CUDA_KERNELCACHE_H
