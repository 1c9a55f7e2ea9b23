//===- ParallelCompileTest.cpp - the compile pool with fake compilers -----===//
//
// compileDistinct without CUDA: the thread count and its cap, one compile
// per distinct source, cache hits counted, all threads busy at once, the
// earliest failure winning whatever the timing, exceptions turned into
// errors, and no thread left running after the call.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/cuda/ParallelCompile.h"
#include "test/runtime/cuda/ThreadCount.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

using tfc::rt::Status;
using namespace tfc::rt::cuda;
using namespace std::chrono_literals;
using tfc::rt::test::liveThreads;
using tfc::rt::test::threadsAfterJoin;

namespace {

/// `distinct` sources, each requested once, then `dups` more requests
/// repeating earlier sources (under other names), interleaved.
std::vector<CompileRequest> makeRequests(int distinct, int dups) {
  std::vector<CompileRequest> r;
  for (int i = 0; i < distinct; ++i) {
    r.push_back({"k" + std::to_string(i), "source " + std::to_string(i)});
    if (i % 2 == 1 && dups > 0) {
      --dups;
      r.push_back(
          {"dup" + std::to_string(i), "source " + std::to_string(i / 2)});
    }
  }
  for (int i = 0; dups > 0; ++i, --dups)
    r.push_back({"tail" + std::to_string(i), "source " + std::to_string(i)});
  return r;
}

/// A fake compile: "bin:<source>", counting calls per source.
struct CountingCompiler {
  std::mutex mu;
  std::map<std::string, int> calls;
  std::set<std::thread::id> threadIds;

  CompileOneFn fn(CacheOutcome outcome = CacheOutcome::Miss) {
    return [this, outcome](const CompileRequest &r, std::string &cubin,
                           CacheOutcome &o) {
      {
        std::lock_guard<std::mutex> lock(mu);
        ++calls[r.source];
        threadIds.insert(std::this_thread::get_id());
      }
      cubin = "bin:" + r.source;
      o = outcome;
      return Status::ok();
    };
  }
};

// min(cores, 16, distinct), never below one; the cores are those this
// process may use (at most the machine's).
TEST(ParallelCompile, ThreadCount) {
  EXPECT_GE(availableCores(), 1u);
  if (std::thread::hardware_concurrency() > 0) {
    EXPECT_LE(availableCores(), std::thread::hardware_concurrency());
  }
  EXPECT_EQ(compileThreadCount(40, 2), 2);
  EXPECT_EQ(compileThreadCount(40, 64), 16);
  EXPECT_EQ(compileThreadCount(40, 16), 16);
  EXPECT_EQ(compileThreadCount(3, 64), 3);
  EXPECT_EQ(compileThreadCount(0, 8), 1);
  EXPECT_EQ(compileThreadCount(40, 0), 1);
  EXPECT_EQ(compileThreadCount(1, 1), 1);
}

// 40 distinct sources requested 60 times: each compiled exactly once, every
// request gets the cubin of its own source, duplicates share one.
TEST(ParallelCompile, DistinctSourcesCompileOnce) {
  std::vector<CompileRequest> requests = makeRequests(40, 20);
  ASSERT_EQ(requests.size(), 60u);
  CountingCompiler fake;
  CompiledKernels out;
  ASSERT_TRUE(compileDistinct(requests, fake.fn(), out, 4));
  EXPECT_EQ(out.distinct(), 40u);
  EXPECT_EQ(fake.calls.size(), 40u);
  for (const auto &[source, n] : fake.calls)
    EXPECT_EQ(n, 1) << source;
  ASSERT_EQ(out.distinctOf.size(), requests.size());
  for (size_t i = 0; i < requests.size(); ++i)
    EXPECT_EQ(out.cubin(i), "bin:" + requests[i].source) << i;
  // Distinct indices follow first appearance.
  EXPECT_EQ(out.distinctOf[0], 0u);
  EXPECT_EQ(out.distinctOf[1], 1u);
  EXPECT_EQ(out.distinctOf[2], 0u); // "dup1" repeats source 0
  EXPECT_EQ(out.compiled, 40);
  EXPECT_EQ(out.cacheHits, 0);
  EXPECT_EQ(out.threads, 4);
}

// Hits and compiles are counted from the outcomes, per distinct source.
TEST(ParallelCompile, CountsCacheHits) {
  std::vector<CompileRequest> requests = makeRequests(10, 5);
  CompiledKernels out;
  CompileOneFn evenHits = [](const CompileRequest &r, std::string &cubin,
                             CacheOutcome &o) {
    cubin = r.source;
    o = (r.source.back() - '0') % 2 == 0 ? CacheOutcome::Hit
                                         : CacheOutcome::Corrupt;
    return Status::ok();
  };
  ASSERT_TRUE(compileDistinct(requests, evenHits, out, 3));
  EXPECT_EQ(out.cacheHits, 5);
  EXPECT_EQ(out.compiled, 5);
}

// No requests: nothing runs, one (calling) thread reported.
TEST(ParallelCompile, EmptyList) {
  CountingCompiler fake;
  CompiledKernels out;
  ASSERT_TRUE(compileDistinct({}, fake.fn(), out));
  EXPECT_EQ(out.distinct(), 0u);
  EXPECT_EQ(out.threads, 1);
  EXPECT_TRUE(fake.calls.empty());
}

// The pool size is the requested count clamped to [1, min(16, distinct)],
// and by default min(cores, 16, distinct); exactly that many distinct
// threads run compiles, all at once (each first compile waits until the
// whole pool is busy).
TEST(ParallelCompile, PoolSizeRespectsCap) {
  struct Case {
    int requested, distinct, expected;
  };
  int hw = compileThreadCount(64, availableCores());
  for (Case c : {Case{8, 40, 8}, Case{64, 40, 16}, Case{8, 3, 3},
                 Case{-1, 5, compileThreadCount(5, availableCores())},
                 Case{0, 64, hw}, Case{1, 40, 1}}) {
    std::mutex mu;
    std::condition_variable cv;
    int active = 0, maxActive = 0;
    std::set<std::thread::id> ids;
    CompileOneFn fn = [&](const CompileRequest &r, std::string &cubin,
                          CacheOutcome &o) {
      std::unique_lock<std::mutex> lock(mu);
      ids.insert(std::this_thread::get_id());
      maxActive = std::max(maxActive, ++active);
      cv.notify_all();
      cv.wait_for(lock, 5s, [&] { return maxActive >= c.expected; });
      --active;
      cubin = r.source;
      o = CacheOutcome::Miss;
      return Status::ok();
    };
    CompiledKernels out;
    ASSERT_TRUE(
        compileDistinct(makeRequests(c.distinct, 0), fn, out, c.requested));
    EXPECT_EQ(out.threads, c.expected) << c.requested << "/" << c.distinct;
    EXPECT_EQ(maxActive, c.expected) << c.requested << "/" << c.distinct;
    EXPECT_EQ(int(ids.size()), c.expected) << c.requested << "/" << c.distinct;
  }
}

// Two failures: the earlier request's wins even when the later one fails
// first in time; its name and message are in the error, no thread is left
// running, and no cubin is returned.
TEST(ParallelCompile, EarliestFailureWins) {
  size_t before = liveThreads();
  std::vector<CompileRequest> requests = makeRequests(40, 10);
  CompileOneFn fn = [](const CompileRequest &r, std::string &cubin,
                       CacheOutcome &o) {
    if (r.source == "source 7") {
      std::this_thread::sleep_for(50ms);
      return Status::error("syntax error in seven");
    }
    if (r.source == "source 23")
      return Status::error("syntax error in twenty-three");
    cubin = r.source;
    return Status::ok();
  };
  for (int threads : {1, 2, 8}) {
    CompiledKernels out;
    Status s = compileDistinct(requests, fn, out, threads);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.message(), "compiling kernel 'k7': syntax error in seven");
    EXPECT_TRUE(out.cubins.empty());
    EXPECT_EQ(threadsAfterJoin(before), before);
  }
}

// A failing source requested again later is named by its first request.
TEST(ParallelCompile, FailureNamesFirstRequestOfSource) {
  std::vector<CompileRequest> requests = {
      {"a", "ok"}, {"b", "bad"}, {"c", "bad"}, {"d", "ok2"}};
  CompileOneFn fn = [](const CompileRequest &r, std::string &, CacheOutcome &) {
    return r.source == "bad" ? Status::error("no") : Status::ok();
  };
  CompiledKernels out;
  Status s = compileDistinct(requests, fn, out, 2);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message(), "compiling kernel 'b': no");
}

// After a failure no later source is started: on one thread, a failure of
// the first source is the only compile.
TEST(ParallelCompile, StopsAfterFailure) {
  std::atomic<int> calls{0};
  CompileOneFn fn = [&](const CompileRequest &, std::string &, CacheOutcome &) {
    ++calls;
    return Status::error("broken");
  };
  CompiledKernels out;
  ASSERT_FALSE(compileDistinct(makeRequests(20, 0), fn, out, 1));
  EXPECT_EQ(calls, 1);
}

// Exceptions from the compile function become errors of their kernel (the
// earliest one again), never escape a thread; the pool is joined.
TEST(ParallelCompile, ExceptionsBecomeErrors) {
  size_t before = liveThreads();
  auto throwing = [](const std::string &badSource, int kind) {
    return [badSource, kind](const CompileRequest &r, std::string &cubin,
                             CacheOutcome &) -> Status {
      if (r.source == badSource) {
        if (kind == 0)
          throw std::bad_alloc();
        if (kind == 1)
          throw std::runtime_error("front end fell over");
        throw 42;
      }
      cubin = r.source;
      return Status::ok();
    };
  };
  std::vector<CompileRequest> requests = makeRequests(30, 0);
  const char *expected[] = {
      "compiling kernel 'k12': out of memory",
      "compiling kernel 'k12': unexpected exception: front end fell over",
      "compiling kernel 'k12': unexpected exception"};
  for (int kind = 0; kind < 3; ++kind) {
    CompiledKernels out;
    Status s = compileDistinct(requests, throwing("source 12", kind), out, 4);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.message(), expected[kind]);
    EXPECT_EQ(threadsAfterJoin(before), before);
  }
}

// Many rounds with more threads than cores: results stay exact (run under
// -fsanitize=thread to check the pool for races).
TEST(ParallelCompile, RepeatedRoundsStayExact) {
  std::vector<CompileRequest> requests = makeRequests(100, 50);
  for (int round = 0; round < 20; ++round) {
    CountingCompiler fake;
    CompiledKernels out;
    ASSERT_TRUE(compileDistinct(requests, fake.fn(), out, 16));
    ASSERT_EQ(out.distinct(), 100u);
    for (size_t i = 0; i < requests.size(); ++i)
      ASSERT_EQ(out.cubin(i), "bin:" + requests[i].source);
    for (const auto &[source, n] : fake.calls)
      ASSERT_EQ(n, 1);
  }
}

} // namespace
