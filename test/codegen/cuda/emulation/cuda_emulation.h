//===- cuda_emulation.h - run generated CUDA kernels on the CPU -*- C++ -*-===//
//
// Test-only emulation of the CUDA subset tfc's generated kernels use, so
// their numerics can be checked against PyTorch on machines without a GPU:
// each block runs as blockDim real threads (blocks one after another), with
// std::barrier for __syncthreads and for warp shuffles, __shared__ as
// function statics (shared by the block's threads), and __device__ and
// __constant__ globals as plain globals. Include it before a kernel source;
// launch with emu_launch(kernel, grid, block, args...).
//
//===----------------------------------------------------------------------===//
#ifndef TFC_TEST_CUDA_EMULATION_H
#define TFC_TEST_CUDA_EMULATION_H
#include <array>
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <memory>
#include <thread>
#include <vector>
struct emu_dim3 {
  unsigned x = 1, y = 1, z = 1;
};
inline thread_local emu_dim3 threadIdx, blockIdx;
inline emu_dim3 blockDim, gridDim;
struct EmuBlock {
  std::unique_ptr<std::barrier<>> block;
  std::vector<std::unique_ptr<std::barrier<>>> warps;
  std::vector<std::array<unsigned long long, 32>> slots;
};
inline EmuBlock *emu_block;
inline thread_local int emu_tid;
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
inline void __syncthreads() { emu_block->block->arrive_and_wait(); }
template <class T> T __shfl_xor_sync(unsigned, T v, int m) {
  int w = emu_tid >> 5, lane = emu_tid & 31;
  std::memcpy(&emu_block->slots[w][lane], &v, sizeof(T));
  emu_block->warps[w]->arrive_and_wait();
  T r;
  std::memcpy(&r, &emu_block->slots[w][lane ^ m], sizeof(T));
  emu_block->warps[w]->arrive_and_wait();
  return r;
}
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
template <class F, class... A>
void emu_launch(F f, emu_dim3 g, emu_dim3 b, A... args) {
  gridDim = g;
  blockDim = b;
  int n = b.x * b.y * b.z;
  for (unsigned by = 0; by < g.y; ++by)
    for (unsigned bx = 0; bx < g.x; ++bx) {
      EmuBlock blk;
      blk.block = std::make_unique<std::barrier<>>(n);
      for (int w = 0; w < (n + 31) / 32; ++w)
        blk.warps.push_back(
            std::make_unique<std::barrier<>>(std::min(32, n - 32 * w)));
      blk.slots.resize((n + 31) / 32);
      emu_block = &blk;
      std::vector<std::thread> ts;
      for (int t = 0; t < n; ++t)
        ts.emplace_back([&, t, bx, by] {
          blockIdx.x = bx;
          blockIdx.y = by;
          emu_tid = t;
          threadIdx.x = t % b.x;
          threadIdx.y = t / b.x;
          f(args...);
        });
      for (auto &t : ts)
        t.join();
    }
}
#endif // TFC_TEST_CUDA_EMULATION_H
