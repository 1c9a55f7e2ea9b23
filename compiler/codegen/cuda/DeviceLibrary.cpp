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

// The element formulas of tfc ops (common/ScalarOps.h, pasted verbatim) and
// the math policy they call on the device: CUDA's libdevice functions.
static const char *const kScalarOps =
#include "ScalarOpsSource.inc"
    ;
static const char *const kDeviceMath = R"cuda(#ifndef TFC_DEVLIB_MATH
#define TFC_DEVLIB_MATH
struct tfc_math {
  static TFC_INLINE float exp(float x) { return expf(x); }
  static TFC_INLINE double exp(double x) { return ::exp(x); }
  static TFC_INLINE float tanh(float x) { return tanhf(x); }
  static TFC_INLINE double tanh(double x) { return ::tanh(x); }
  static TFC_INLINE float erf(float x) { return erff(x); }
  static TFC_INLINE double erf(double x) { return ::erf(x); }
  static TFC_INLINE float log(float x) { return logf(x); }
  static TFC_INLINE double log(double x) { return ::log(x); }
  static TFC_INLINE float sqrt(float x) { return sqrtf(x); }
  static TFC_INLINE double sqrt(double x) { return ::sqrt(x); }
  static TFC_INLINE float cos(float x) { return cosf(x); }
  static TFC_INLINE double cos(double x) { return ::cos(x); }
};
#endif
)cuda";

// Butterfly all-reduce: every lane combines op(own, partner); op is
// commutative bit for bit (a + b == b + a), so all lanes end with the same
// value, and the order is fixed, so results are deterministic.
static const char *const kReductions = R"cuda(#ifndef TFC_DEVLIB_REDUCTIONS
#define TFC_DEVLIB_REDUCTIONS
// Integer sums wrap (two's complement), as torch's: through the unsigned
// type, since signed overflow is undefined.
struct tfc_sum_op {
  template <typename T> TFC_INLINE T operator()(T a, T b) const { return a + b; }
  TFC_INLINE int operator()(int a, int b) const { return (int)((unsigned)a + (unsigned)b); }
  TFC_INLINE long long operator()(long long a, long long b) const {
    return (long long)((unsigned long long)a + (unsigned long long)b);
  }
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
// Softmax statistics in one read of the row (online normalizer): m is the
// running maximum, s the sum of exp(v - m). A larger value rescales the sum;
// an equal one adds exp(0) = 1 exactly, so a row of -inf sums to a count,
// not exp(-inf - -inf) = NaN (its results are NaN through x - m, as with
// two passes); +inf makes s = exp(inf - inf) = NaN and a NaN makes s NaN,
// as the two-pass sum does.
TFC_INLINE float tfc_exp(float x) { return expf(x); }
TFC_INLINE double tfc_exp(double x) { return ::exp(x); }
template <typename T> TFC_INLINE void tfc_softmax_update(T &m, T &s, T v) {
  if (v > m) {
    s = s * tfc_exp(m - v) + tfc_exp(v - v);
    m = v;
  } else {
    s = s + (v == m ? (T)1 : tfc_exp(v - m));
  }
}
// s's sum relative to maximum m, rescaled to maximum to >= m.
template <typename T> TFC_INLINE T tfc_softmax_rescale(T s, T m, T to) {
  return m == to ? s : s * tfc_exp(m - to);
}
// Commutative bit for bit (the sum's terms are added in either order).
template <typename T> TFC_INLINE void tfc_softmax_combine(T &m, T &s, T m2, T s2) {
  const T to = tfc_max(m, m2);
  s = tfc_softmax_rescale(s, m, to) + tfc_softmax_rescale(s2, m2, to);
  m = to;
}
template <typename T> TFC_INLINE void tfc_warp_softmax_allreduce(T &m, T &s) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const T m2 = __shfl_xor_sync(0xffffffffu, m, o);
    const T s2 = __shfl_xor_sync(0xffffffffu, s, o);
    tfc_softmax_combine(m, s, m2, s2);
  }
}
// shm holds 64 values: the warps' maxima, then their sums.
template <typename T> __device__ void tfc_block_softmax_allreduce(T &m, T &s, T *shm) {
  tfc_warp_softmax_allreduce(m, s);
  const int warps = (int)(blockDim.x >> 5);
  if ((threadIdx.x & 31) == 0) {
    shm[threadIdx.x >> 5] = m;
    shm[32 + (threadIdx.x >> 5)] = s;
  }
  __syncthreads();
  T rm = shm[0], rs = shm[32];
  for (int w = 1; w < warps; ++w) tfc_softmax_combine(rm, rs, shm[w], shm[32 + w]);
  __syncthreads();
  m = rm;
  s = rs;
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
  if (needs.scalarOps) {
    out += kScalarOps;
    out += kDeviceMath;
  }
  if (needs.reductions)
    out += kReductions;
  if (needs.quantMaps)
    out += quantMaps();
  return out;
}
