//===- cuda_emulation.h - run generated CUDA kernels on the CPU -*- C++ -*-===//
//
// Test-only emulation of the CUDA subset tfc's generated kernels use, so
// their numerics can be checked against PyTorch on machines without a GPU.
// Blocks run one after another; each block's blockDim threads run as fibers
// on the calling thread (made once per launch with ucontext, then switched
// with _setjmp/_longjmp, which skip ucontext's signal-mask system calls),
// switched at barriers: __syncthreads and the two warp barriers of each warp
// shuffle. A barrier's last arrival goes
// on; the others resume once it completes, so any interleaving the hardware
// allows between barriers is one the kernel must already tolerate. Fibers
// instead of OS threads: a 1000-block grid of 256 threads costs seconds, not
// minutes, on a small machine. __shared__ variables are function statics
// (shared by the block's threads), __device__ and __constant__ globals plain
// globals. A barrier that not every thread of its block or warp reaches
// aborts with a message (a GPU would hang). Include it before a kernel
// source; launch with emu_launch(kernel, grid, block, args...).
//
//===----------------------------------------------------------------------===//
#ifndef TFC_TEST_CUDA_EMULATION_H
#define TFC_TEST_CUDA_EMULATION_H
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <functional>
#include <csetjmp>
#include <memory>
#include <setjmp.h>
#include <ucontext.h>
#include <vector>
struct emu_dim3 {
  unsigned x = 1, y = 1, z = 1;
};
// The running fiber's coordinates: set by the scheduler before it resumes a
// fiber (one OS thread runs them all).
inline emu_dim3 threadIdx, blockIdx;
inline emu_dim3 blockDim, gridDim;
inline int emu_tid;
struct EmuBarrier {
  int expected = 0, arrived = 0;
  unsigned long long generation = 0;
};
struct EmuFiber {
  ucontext_t context;  ///< Its first entry.
  jmp_buf resume;      ///< Where it waits at a barrier or for a block.
  std::unique_ptr<char[]> stack;
  bool started = false, done = false;
  const EmuBarrier *waitingOn = nullptr; ///< Blocked until its generation
  unsigned long long waitingFor = 0;     ///< moves past this one.
};
struct EmuBlock {
  EmuBarrier block;
  std::vector<EmuBarrier> warps;
  std::vector<std::array<unsigned long long, 32>> slots;
  std::vector<EmuFiber> fibers;
  jmp_buf scheduler;
};
inline EmuBlock *emu_block;
inline std::function<void()> emu_body;
inline void emu_arrive_and_wait(EmuBarrier &b) {
  unsigned long long g = b.generation;
  if (++b.arrived == b.expected) { // the last arrival releases the others
    b.arrived = 0;
    ++b.generation;
    return;
  }
  EmuFiber &self = emu_block->fibers[emu_tid];
  self.waitingOn = &b;
  self.waitingFor = g;
  if (!_setjmp(self.resume))
    _longjmp(emu_block->scheduler, 1);
}
#undef __global__
#undef __device__
#undef __forceinline__
#undef __launch_bounds__
#undef __shared__
#undef __constant__
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __shared__ static
#define __constant__
#define __restrict__
inline void __syncthreads() { emu_arrive_and_wait(emu_block->block); }
template <class T> T __shfl_xor_sync(unsigned, T v, int m) {
  int w = emu_tid >> 5, lane = emu_tid & 31;
  std::memcpy(&emu_block->slots[w][lane], &v, sizeof(T));
  emu_arrive_and_wait(emu_block->warps[w]);
  T r;
  std::memcpy(&r, &emu_block->slots[w][lane ^ m], sizeof(T));
  emu_arrive_and_wait(emu_block->warps[w]);
  return r;
}
// A warp vote: every lane publishes its predicate, then reads all 32.
inline unsigned __ballot_sync(unsigned, int predicate) {
  int w = emu_tid >> 5, lane = emu_tid & 31;
  emu_block->slots[w][lane] = predicate ? 1 : 0;
  emu_arrive_and_wait(emu_block->warps[w]);
  unsigned r = 0;
  for (int l = 0; l < 32; ++l)
    r |= emu_block->slots[w][l] ? 1u << l : 0u;
  emu_arrive_and_wait(emu_block->warps[w]);
  return r;
}
inline int __ffs(unsigned x) { return __builtin_ffs((int)x); }
inline void __threadfence() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
inline unsigned atomicAdd(unsigned *p, unsigned v) {
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
template <class T> T __ldcg(const T *p) { return *p; }
inline unsigned __umulhi(unsigned a, unsigned b) {
  return (unsigned)(((unsigned long long)a * b) >> 32);
}
inline float __int_as_float(unsigned x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
inline double __longlong_as_double(unsigned long long x) {
  double f;
  std::memcpy(&f, &x, 8);
  return f;
}
inline void __trap() {
  std::fprintf(stderr, "trap\n");
  std::abort();
}
// A fiber runs the kernel once per block: after each run it waits for the
// scheduler to start it on the next block.
inline void emu_fiber_main() {
  for (;;) {
    emu_body();
    EmuFiber &self = emu_block->fibers[emu_tid];
    self.done = true;
    if (!_setjmp(self.resume))
      _longjmp(emu_block->scheduler, 1);
  }
}
template <class F, class... A>
void emu_launch(F f, emu_dim3 g, emu_dim3 b, A... args) {
  constexpr size_t kStack = 256 << 10;
  gridDim = g;
  blockDim = b;
  int n = b.x * b.y * b.z;
  EmuBlock blk;
  blk.fibers.resize(n);
  blk.slots.resize((n + 31) / 32);
  emu_block = &blk;
  emu_body = [&] { f(args...); };
  for (EmuFiber &fiber : blk.fibers) {
    fiber.stack.reset(new char[kStack]);
    getcontext(&fiber.context);
    fiber.context.uc_stack.ss_sp = fiber.stack.get();
    fiber.context.uc_stack.ss_size = kStack;
    fiber.context.uc_link = nullptr; // emu_fiber_main never returns
    makecontext(&fiber.context, emu_fiber_main, 0);
  }
  for (unsigned by = 0; by < g.y; ++by)
    for (unsigned bx = 0; bx < g.x; ++bx) {
      blockIdx = emu_dim3{bx, by, 0};
      blk.block = EmuBarrier{n};
      blk.warps.assign((n + 31) / 32, EmuBarrier{});
      for (int w = 0; w < (n + 31) / 32; ++w)
        blk.warps[w].expected = std::min(32, n - 32 * w);
      for (EmuFiber &fiber : blk.fibers) {
        fiber.done = false;
        fiber.waitingOn = nullptr;
      }
      // Round-robin over the fibers that can run until all have finished.
      for (int live = n; live > 0;) {
        bool progress = false;
        for (int t = 0; t < n; ++t) {
          EmuFiber &fiber = blk.fibers[t];
          if (fiber.done || (fiber.waitingOn &&
                             fiber.waitingOn->generation == fiber.waitingFor))
            continue;
          fiber.waitingOn = nullptr;
          emu_tid = t;
          threadIdx = emu_dim3{t % b.x, t / b.x, 0};
          if (!_setjmp(blk.scheduler)) {
            if (!fiber.started) {
              fiber.started = true;
              setcontext(&fiber.context);
            }
            _longjmp(fiber.resume, 1);
          }
          progress = true;
          live -= fiber.done;
        }
        if (!progress) {
          std::fprintf(stderr, "emulation: block (%u, %u) deadlocks: %d "
                       "threads wait at a barrier the others never reach\n",
                       bx, by, live);
          std::abort();
        }
      }
    }
}
#endif // TFC_TEST_CUDA_EMULATION_H
