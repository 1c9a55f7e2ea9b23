//===- KernelCacheTest.cpp - the on-disk kernel cache ---------------------===//
//
// Cache behaviour with a counting fake compiler (no CUDA at all): keys, miss
// then hit, private directory creation, corrupt entries of every kind
// detected, reported and recompiled, failed writes leaving nothing behind,
// concurrent writers never exposing a partial entry, one object shared by
// threads, TFC_DISABLE_CACHE and TFC_CACHE_DIR.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/cuda/KernelCache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sys/stat.h>
#include <thread>

namespace fs = std::filesystem;
using tfc::rt::Status;
using namespace tfc::rt::cuda;

namespace {

/// Sets an environment variable for the scope of one test.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char *name_;
  std::optional<std::string> old_;
};

class KernelCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "tfc-cache-test-XXXXXX");
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    // Two missing levels: the cache creates both.
    dir_ = (root_ / "cache" / "tfc").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  /// A compile function that counts its calls and returns `payload`.
  KernelCache::CompileFn counting(int &calls, std::string payload) {
    return [&calls, payload](std::string &out) {
      ++calls;
      out = payload;
      return Status::ok();
    };
  }

  /// Every file in the cache directory.
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    if (fs::exists(dir_))
      for (const auto &e : fs::directory_iterator(dir_))
        out.push_back(e.path().filename().string());
    return out;
  }

  std::string key(const std::string &source = "__global__ void k() {}") {
    return KernelCache::makeKey(source, {"--gpu-architecture=sm_90"},
                                "nvrtc-13.0", "sm_90");
  }

  fs::path root_;
  std::string dir_;
};

// A binary payload with NULs and high bytes, like a cubin.
const std::string kPayload = std::string("\x7f"
                                         "ELF\0\x01\xff\x00payload",
                                         16);

// The key is 64 hex digits and changes with every input, including how the
// options are split.
TEST_F(KernelCacheTest, KeyCoversEveryInput) {
  std::string base = KernelCache::makeKey("src", {"-a", "-b"}, "13.0", "sm_90");
  EXPECT_EQ(base.size(), 64u);
  EXPECT_EQ(base.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(base, KernelCache::makeKey("src", {"-a", "-b"}, "13.0", "sm_90"));
  EXPECT_NE(base, KernelCache::makeKey("src2", {"-a", "-b"}, "13.0", "sm_90"));
  EXPECT_NE(base, KernelCache::makeKey("src", {"-a", "-c"}, "13.0", "sm_90"));
  EXPECT_NE(base, KernelCache::makeKey("src", {"-a-b"}, "13.0", "sm_90"));
  EXPECT_NE(base, KernelCache::makeKey("src", {"-a", "-b"}, "12.9", "sm_90"));
  EXPECT_NE(base, KernelCache::makeKey("src", {"-a", "-b"}, "13.0", "sm_80"));
}

// The first request compiles and stores, the second is served from disk; a
// new cache object on the same directory (a later process) hits too.
TEST_F(KernelCacheTest, MissThenHit) {
  KernelCache cache(dir_);
  int calls = 0;
  std::string out;
  CacheOutcome outcome;
  ASSERT_TRUE(
      cache.getOrCompile(key(), counting(calls, kPayload), out, &outcome));
  EXPECT_EQ(outcome, CacheOutcome::Miss);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(out, kPayload);
  EXPECT_TRUE(fs::exists(cache.entryPath(key())));

  out.clear();
  ASSERT_TRUE(
      cache.getOrCompile(key(), counting(calls, "other"), out, &outcome));
  EXPECT_EQ(outcome, CacheOutcome::Hit);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(out, kPayload);

  KernelCache later(dir_);
  ASSERT_TRUE(
      later.getOrCompile(key(), counting(calls, "other"), out, &outcome));
  EXPECT_EQ(outcome, CacheOutcome::Hit);
  EXPECT_EQ(out, kPayload);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(cache.stats().hits, 1);
  EXPECT_EQ(cache.stats().misses, 1);
  EXPECT_EQ(cache.stats().stores, 1);
}

// Directories the cache creates are private to the user (mode 0700).
TEST_F(KernelCacheTest, CreatesPrivateDirectories) {
  KernelCache cache(dir_);
  ASSERT_TRUE(cache.store(key(), kPayload));
  for (const fs::path &p : {root_ / "cache", fs::path(dir_)}) {
    struct stat st;
    ASSERT_EQ(stat(p.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u) << p;
  }
  struct stat st;
  ASSERT_EQ(stat(cache.entryPath(key()).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0077, 0u) << "entries are not readable by others";
}

/// One way of damaging a stored entry.
struct Damage {
  const char *name;
  std::function<void(std::string &)> apply;
};

class KernelCacheCorruptTest : public KernelCacheTest,
                               public ::testing::WithParamInterface<Damage> {};

// A damaged entry is detected, reported at TFC_LOG=debug with the reason,
// removed and recompiled; the rewritten entry then hits.
TEST_P(KernelCacheCorruptTest, DetectedReportedAndRecompiled) {
  KernelCache cache(dir_);
  ASSERT_TRUE(cache.store(key(), kPayload));
  std::string path = cache.entryPath(key());
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  GetParam().apply(bytes);
  {
    std::ofstream outFile(path, std::ios::binary | std::ios::trunc);
    outFile << bytes;
  }

  int calls = 0;
  std::string out;
  CacheOutcome outcome;
  std::string err;
  Status s;
  {
    ScopedEnv log("TFC_LOG", "debug");
    testing::internal::CaptureStderr();
    s = cache.getOrCompile(key(), counting(calls, kPayload), out, &outcome);
    err = testing::internal::GetCapturedStderr();
  }
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(outcome, CacheOutcome::Corrupt);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(out, kPayload);
  EXPECT_NE(err.find("corrupt entry " + path), std::string::npos) << err;
  EXPECT_EQ(cache.stats().corrupt, 1);

  ASSERT_TRUE(
      cache.getOrCompile(key(), counting(calls, kPayload), out, &outcome));
  EXPECT_EQ(outcome, CacheOutcome::Hit);
  EXPECT_EQ(calls, 1);
}

INSTANTIATE_TEST_SUITE_P(
    Damages, KernelCacheCorruptTest,
    ::testing::Values(
        Damage{"FlippedPayloadByte", [](std::string &b) { b.back() ^= 0x01; }},
        Damage{"Truncated", [](std::string &b) { b.resize(b.size() - 3); }},
        Damage{"TruncatedHeader", [](std::string &b) { b.resize(20); }},
        Damage{"Empty", [](std::string &b) { b.clear(); }},
        Damage{"Appended", [](std::string &b) { b += "x"; }},
        Damage{"BadMagic", [](std::string &b) { b[0] = 'X'; }},
        Damage{"WrongKey",
               [](std::string &b) {
                 size_t p = b.find("key ") + 4;
                 b[p] = b[p] == '0' ? '1' : '0';
               }},
        Damage{"WrongSize",
               [](std::string &b) {
                 size_t p = b.find("size ") + 5;
                 b.insert(p, "9");
               }},
        Damage{"WrongHash",
               [](std::string &b) {
                 size_t p = b.find("sha256 ") + 7;
                 b[p] = b[p] == 'a' ? 'b' : 'a';
               }},
        Damage{"Garbage",
               [](std::string &b) { b = std::string(4096, '\xab'); }}),
    [](const ::testing::TestParamInfo<Damage> &info) {
      return info.param.name;
    });

// A write that fails part-way leaves neither an entry nor a temporary file,
// and the next lookup misses; getOrCompile still returns the compiled
// payload (a cache failure never fails a compile).
TEST_F(KernelCacheTest, FailedWriteLeavesNoPartialFile) {
  KernelCache cache(dir_);
  cache.setWriteFaultForTesting(10);
  Status s = cache.store(key(), kPayload);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("injected fault"), std::string::npos);
  EXPECT_TRUE(files().empty()) << files().front();

  int calls = 0;
  std::string out;
  CacheOutcome outcome;
  ASSERT_TRUE(
      cache.getOrCompile(key(), counting(calls, kPayload), out, &outcome));
  EXPECT_EQ(outcome, CacheOutcome::Miss);
  EXPECT_EQ(out, kPayload);
  EXPECT_EQ(cache.stats().storeFailures, 1);
  EXPECT_TRUE(files().empty());

  cache.setWriteFaultForTesting(std::nullopt);
  ASSERT_TRUE(cache.store(key(), kPayload));
  EXPECT_EQ(files(), std::vector<std::string>{key() + ".entry"});
}

// Writers replacing one entry while a reader reads it: the reader only ever
// sees a complete entry or none (rename is atomic), never a corrupt one.
TEST_F(KernelCacheTest, ConcurrentWritersNeverExposePartialEntries) {
  std::string big(256 * 1024, 'c');
  std::atomic<bool> stop{false};
  std::atomic<int> corrupt{0}, hits{0};
  std::thread reader([&] {
    KernelCache cache(dir_);
    std::string out;
    while (!stop) {
      CacheOutcome o = cache.lookup(key(), out);
      if (o == CacheOutcome::Corrupt)
        ++corrupt;
      if (o == CacheOutcome::Hit && out == big)
        ++hits;
    }
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < 2; ++w)
    writers.emplace_back([&] {
      KernelCache cache(dir_);
      for (int i = 0; i < 20; ++i)
        EXPECT_TRUE(cache.store(key(), big));
    });
  for (std::thread &t : writers)
    t.join();
  stop = true;
  reader.join();
  EXPECT_EQ(corrupt, 0);
  EXPECT_EQ(files(), std::vector<std::string>{key() + ".entry"});
}

// One cache object shared by 8 threads (as the parallel NVRTC compile uses
// it), each getting 16 distinct keys and one key they all share, twice: the
// first pass creates the directory from several threads at once, every
// payload comes back intact, and the counters add up exactly.
TEST_F(KernelCacheTest, OneObjectSharedByThreads) {
  KernelCache cache(dir_);
  constexpr int kThreads = 8, kKeys = 16;
  std::atomic<int> compiles{0}, wrong{0}, failed{0};
  auto work = [&](int t) {
    for (int i = 0; i <= kKeys; ++i) {
      // i == kKeys: the key every thread shares.
      std::string source =
          i == kKeys ? "shared"
                     : "k" + std::to_string(t) + "_" + std::to_string(i);
      std::string expected = kPayload + source, out;
      Status s = cache.getOrCompile(
          key(source),
          [&](std::string &payload) {
            ++compiles;
            payload = expected;
            return Status::ok();
          },
          out);
      if (!s)
        ++failed;
      else if (out != expected)
        ++wrong;
    }
  };
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back(work, t);
    for (std::thread &t : threads)
      t.join();
  }
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(wrong, 0);
  // Private keys compile once each; the shared one at least once and at
  // most once per thread (first-pass threads may all miss it together).
  EXPECT_GE(compiles, kThreads * kKeys + 1);
  EXPECT_LE(compiles, kThreads * kKeys + kThreads);
  KernelCacheStats stats = cache.stats();
  EXPECT_EQ(stats.compiles, compiles);
  EXPECT_EQ(stats.stores, compiles);
  EXPECT_EQ(stats.hits + stats.misses, 2 * kThreads * (kKeys + 1));
  EXPECT_EQ(stats.misses, compiles);
  EXPECT_EQ(stats.corrupt, 0);
  EXPECT_EQ(stats.storeFailures, 0);
  EXPECT_EQ(files().size(), size_t(kThreads * kKeys + 1));
}

// TFC_DISABLE_CACHE=1 bypasses the cache: every request compiles and nothing
// is written. "0" or empty leaves it on.
TEST_F(KernelCacheTest, DisabledByEnvironment) {
  ScopedEnv dirEnv("TFC_CACHE_DIR", dir_.c_str());
  {
    ScopedEnv off("TFC_DISABLE_CACHE", "1");
    KernelCache cache = KernelCache::fromEnvironment();
    EXPECT_FALSE(cache.enabled());
    int calls = 0;
    std::string out;
    CacheOutcome outcome;
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(
          cache.getOrCompile(key(), counting(calls, kPayload), out, &outcome));
      EXPECT_EQ(outcome, CacheOutcome::Disabled);
    }
    EXPECT_EQ(calls, 2);
    EXPECT_FALSE(fs::exists(dir_));
    EXPECT_FALSE(cache.store(key(), kPayload));
  }
  for (const char *value : {"0", ""}) {
    ScopedEnv on("TFC_DISABLE_CACHE", value);
    KernelCache cache = KernelCache::fromEnvironment();
    EXPECT_TRUE(cache.enabled()) << "TFC_DISABLE_CACHE=" << value;
    EXPECT_EQ(cache.directory(), dir_);
  }
}

// The directory is TFC_CACHE_DIR, else ~/.cache/tfc.
TEST_F(KernelCacheTest, DefaultDirectory) {
  {
    ScopedEnv dirEnv("TFC_CACHE_DIR", "/some/where/");
    EXPECT_EQ(KernelCache::defaultDirectory(), "/some/where/");
    EXPECT_EQ(KernelCache::fromEnvironment().directory(), "/some/where");
  }
  ScopedEnv dirEnv("TFC_CACHE_DIR", nullptr);
  ScopedEnv home("HOME", "/home/tester");
  EXPECT_EQ(KernelCache::defaultDirectory(), "/home/tester/.cache/tfc");
}

// Keys that are not SHA-256 hex (path traversal, wrong length) are refused.
TEST_F(KernelCacheTest, RejectsMalformedKeys) {
  KernelCache cache(dir_);
  std::string out;
  for (std::string bad : {std::string("../../etc/passwd"), std::string("ab"),
                          std::string(64, 'G'), key() + "0"}) {
    Status s = cache.store(bad, kPayload);
    EXPECT_FALSE(s) << bad;
    EXPECT_NE(s.message().find("is not 64 lowercase hex digits"),
              std::string::npos);
    EXPECT_EQ(cache.lookup(bad, out), CacheOutcome::Miss);
  }
  EXPECT_TRUE(files().empty());
}

// A failing compile is returned as is and stores nothing.
TEST_F(KernelCacheTest, CompileErrorIsReturnedAndNotCached) {
  KernelCache cache(dir_);
  std::string out;
  Status s = cache.getOrCompile(
      key(), [](std::string &) { return Status::error("boom"); }, out);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message(), "boom");
  EXPECT_TRUE(files().empty());
}

// An unusable directory (a regular file in the way) disables storing with an
// error but compiles still succeed.
TEST_F(KernelCacheTest, UnusableDirectoryIsNotFatal) {
  std::string blocker = (root_ / "file").string();
  std::ofstream(blocker) << "x";
  KernelCache cache(blocker + "/tfc");
  EXPECT_FALSE(cache.store(key(), kPayload));
  int calls = 0;
  std::string out;
  ASSERT_TRUE(cache.getOrCompile(key(), counting(calls, kPayload), out));
  EXPECT_EQ(out, kPayload);
  EXPECT_EQ(cache.stats().storeFailures, 1);
}

} // namespace
