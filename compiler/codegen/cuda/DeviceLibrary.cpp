//===- DeviceLibrary.cpp - device helpers of generated kernels ------------===//
//
// Each part is guarded by its own macro, so sources that are concatenated
// (tfc-translate prints several kernels) still compile as one unit.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/DeviceLibrary.h"

#include "common/QuantMap.h"

#include <fmt/format.h>

using namespace mlir::tfc::cuda;

static const char *const kBasics = R"cuda(#ifndef TFC_DEVLIB_BASICS
#define TFC_DEVLIB_BASICS
#define TFC_INLINE __device__ __forceinline__
// W elements of T loaded or stored as one aligned access (16 bytes at most).
template <typename T, int W> struct alignas(sizeof(T) * W) tfc_vec { T v[W]; };
// NaN-propagating maximum/minimum (torch.maximum, torch.amax).
template <typename T> TFC_INLINE T tfc_max(T a, T b) {
  return (a != a) ? a : ((b != b) ? b : (a > b ? a : b));
}
template <typename T> TFC_INLINE T tfc_min(T a, T b) {
  return (a != a) ? a : ((b != b) ? b : (a < b ? a : b));
}
template <typename I, typename T> TFC_INLINE I tfc_clamp(T x, I lo, I hi) {
  return x < (T)lo ? lo : (x > (T)hi ? hi : (I)x);
}
#endif
)cuda";

static const char *const kF16 = R"cuda(#ifndef TFC_DEVLIB_F16
#define TFC_DEVLIB_F16
#include <cuda_fp16.h>
// f16 values are computed in float and rounded to nearest even at once.
TFC_INLINE float tfc_round_f16(float x) { return __half2float(__float2half_rn(x)); }
#endif
)cuda";

static const char *const kBF16 = R"cuda(#ifndef TFC_DEVLIB_BF16
#define TFC_DEVLIB_BF16
#include <cuda_bf16.h>
// bf16 values are computed in float and rounded to nearest even at once.
TFC_INLINE float tfc_round_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }
#endif
)cuda";

// Philox4x32-10 (Salmon et al., SC'11; Random123's philox4x32_10): key
// (lo32(seed), hi32(seed)), counter (lo32(c), hi32(c), 0, 0); the host
// backend implements the same function, so masks are bit-identical.
static const char *const kPhilox = R"cuda(#ifndef TFC_DEVLIB_PHILOX
#define TFC_DEVLIB_PHILOX
TFC_INLINE unsigned int tfc_philox4x32_10(unsigned long long seed, unsigned long long counter) {
  unsigned int c0 = (unsigned int)counter, c1 = (unsigned int)(counter >> 32), c2 = 0u, c3 = 0u;
  unsigned int k0 = (unsigned int)seed, k1 = (unsigned int)(seed >> 32);
#pragma unroll
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const unsigned int hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    const unsigned int hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    const unsigned int n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0; c1 = lo1; c2 = n2; c3 = lo0;
  }
  return c0;
}
// tfc.dropout keeps element i iff the first Philox word of counter
// offset + i (mod 2^64) is >= floor(p * 2^32).
TFC_INLINE bool tfc_dropout_keep(long long seed, long long offset, unsigned long long i, unsigned int threshold) {
  return tfc_philox4x32_10((unsigned long long)seed, (unsigned long long)offset + i) >= threshold;
}
#endif
)cuda";

// Butterfly all-reduce: every lane combines op(own, partner); op is
// commutative bit for bit (a + b == b + a), so all lanes end with the same
// value, and the order is fixed, so results are deterministic.
static const char *const kReductions = R"cuda(#ifndef TFC_DEVLIB_REDUCTIONS
#define TFC_DEVLIB_REDUCTIONS
struct tfc_sum_op {
  template <typename T> TFC_INLINE T operator()(T a, T b) const { return a + b; }
};
struct tfc_max_op {
  template <typename T> TFC_INLINE T operator()(T a, T b) const { return tfc_max(a, b); }
};
template <typename T, typename Op> TFC_INLINE T tfc_warp_allreduce(T v, Op op) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, m));
  return v;
}
// All threads of the block get op over all threads' values; shm holds one
// value per warp. The warps' partials are combined in warp order.
template <typename T, typename Op> __device__ T tfc_block_allreduce(T v, Op op, T *shm) {
  v = tfc_warp_allreduce(v, op);
  const int warps = (int)(blockDim.x >> 5);
  if ((threadIdx.x & 31) == 0) shm[threadIdx.x >> 5] = v;
  __syncthreads();
  T r = shm[0];
  for (int w = 1; w < warps; ++w) r = op(r, shm[w]);
  __syncthreads();
  return r;
}
#endif
)cuda";

/// The maps are printed from QuantMap.h (exact: %a-style hex floats), and
/// tfc_quantize runs the same float operations as quant::encode, so codes are
/// identical on both backends.
static std::string quantMaps() {
  std::string out = "#ifndef TFC_DEVLIB_QUANT\n#define TFC_DEVLIB_QUANT\n";
  auto table = [&](const char *name, const tfc::quant::Map &map) {
    out += fmt::format("__constant__ float {}[256] = {{", name);
    for (int i = 0; i < tfc::quant::kMapSize; ++i)
      out += fmt::format("{}{:a}f", i == 0 ? "\n  " : (i % 8 ? ", " : ",\n  "),
                         map[i]);
    out += "};\n";
  };
  table("tfc_qmap_signed", tfc::quant::signedMap());
  table("tfc_qmap_unsigned", tfc::quant::unsignedMap());
  out += R"cuda(// Index of the map entry nearest to x (ties: the lower one).
TFC_INLINE unsigned char tfc_quantize(const float *map, float x) {
  int i = 0;
#pragma unroll
  for (int step = 128; step > 0; step >>= 1)
    if (map[i + step] <= x) i += step;
  if (i < 255 && map[i + 1] - x < x - map[i]) ++i;
  return (unsigned char)i;
}
// Block absmax ignores NaN (fmaxf), as the host interpreter does.
struct tfc_absmax_op {
  TFC_INLINE float operator()(float a, float b) const { return fmaxf(a, b); }
};
#endif
)cuda";
  return out;
}

std::string mlir::tfc::cuda::deviceLibrary(const DeviceLibraryNeeds &needs) {
  std::string out = kBasics;
  if (needs.f16)
    out += kF16;
  if (needs.bf16)
    out += kBF16;
  if (needs.philox)
    out += kPhilox;
  if (needs.reductions)
    out += kReductions;
  if (needs.quantMaps)
    out += quantMaps();
  return out;
}
