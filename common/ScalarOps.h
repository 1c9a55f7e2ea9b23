//===- ScalarOps.h - element formulas of tfc ops, host and device -*- C++ -*-===//
//
// The scalar math that defines tfc ops element by element, written once for
// both backends. The host interpreter calls these functions from its loops;
// CUDA codegen embeds this very file in every NVRTC source that needs it (the
// build turns it into a string literal, compiler/codegen/cuda/CMakeLists.txt)
// and emits calls to it. Formulas follow PyTorch's (ATen's gelu, gelu_backward,
// silu, silu_backward), step for step, in the value type T (float for f32 and
// the 16-bit types, double for f64).
//
// Transcendentals come from a math policy M with static `exp`, `tanh`,
// `erf`, `log`, `sqrt` and `cos` overloads for float and double: the host's vectorizable versions
// (runtime/src/host/HostMath.h, `HostMath`) or CUDA's (`tfc_math` in the
// device library), so each backend keeps its accuracy/speed trade-off while
// the formula around them is the same text.
//
// NVRTC compiles this file with no standard headers: it includes nothing,
// spells 32/64-bit unsigned integers as `unsigned int` / `unsigned long long`
// and uses only C++17 core language.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_COMMON_SCALAROPS_H
#define TFC_COMMON_SCALAROPS_H

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define TFC_SCALAR_FN __device__ __forceinline__
#define TFC_SCALAR_UNROLL _Pragma("unroll")
#else
#define TFC_SCALAR_FN inline
#define TFC_SCALAR_UNROLL
#endif

namespace tfc {
namespace scalar {

/// sqrt(2 / pi) (ATen's kBeta of the tanh form: M_SQRT2 * M_2_SQRTPI * 0.5).
inline constexpr double kSqrt2OverPi = 0.79788456080286535588;
/// The cubic coefficient of GELU's tanh form.
inline constexpr double kGeluKappa = 0.044715;
/// 1 / sqrt(2).
inline constexpr double kSqrtHalf = 0.70710678118654752440;
/// 1 / sqrt(2 pi) (ATen's kBeta of the erf form's derivative).
inline constexpr double kInvSqrt2Pi = 0.39894228040143267794;

/// gelu(x), approximate="tanh": 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
template <class M, class T> TFC_SCALAR_FN T geluTanh(T x) {
  T inner = T(kSqrt2OverPi) * (x + T(kGeluKappa) * x * x * x);
  return T(0.5) * x * (T(1) + M::tanh(inner));
}

/// gelu(x), approximate="none": x * 0.5 * (1 + erf(x / sqrt(2))).
template <class M, class T> TFC_SCALAR_FN T geluErf(T x) {
  return x * T(0.5) * (T(1) + M::erf(x * T(kSqrtHalf)));
}

/// dy * gelu'(x) of the tanh form (ATen's GeluBackward, tanh branch).
template <class M, class T> TFC_SCALAR_FN T geluTanhGrad(T dy, T x) {
  T x2 = x * x;
  T t = M::tanh(T(kSqrt2OverPi) * (x + T(kGeluKappa) * x2 * x));
  T left = T(0.5) * x, right = T(1) + t;
  T dLeft = T(0.5) * right;
  T dRight = left * (T(1) - t * t) * T(kSqrt2OverPi) *
             (T(1) + T(3) * T(kGeluKappa) * x2);
  return dy * (dLeft + dRight);
}

/// dy * gelu'(x) of the erf form: dy * (cdf(x) + x pdf(x)).
template <class M, class T> TFC_SCALAR_FN T geluErfGrad(T dy, T x) {
  T cdf = T(0.5) * (T(1) + M::erf(x * T(kSqrtHalf)));
  T pdf = T(kInvSqrt2Pi) * M::exp(T(-0.5) * x * x);
  return dy * (cdf + x * pdf);
}

/// silu(x) = x / (1 + e^-x).
template <class M, class T> TFC_SCALAR_FN T silu(T x) {
  return x / (T(1) + M::exp(-x));
}

/// dy * silu'(x) = dy * s (1 + x (1 - s)), s = sigmoid(x).
template <class M, class T> TFC_SCALAR_FN T siluGrad(T dy, T x) {
  T s = T(1) / (T(1) + M::exp(-x));
  return dy * s * (T(1) + x * (T(1) - s));
}

/// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
/// 3", SC'11; the constants of Random123 and cuRAND) of the counter `c`
/// under key (k0, k1), in place: 10 rounds, the key bumped by the Weyl
/// constants between rounds.
TFC_SCALAR_FN void philox4x32_10(unsigned int c[4], unsigned int k0,
                                 unsigned int k1) {
  TFC_SCALAR_UNROLL
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    unsigned long long p0 = 0xD2511F53ull * c[0];
    unsigned long long p1 = 0xCD9E8D57ull * c[2];
    unsigned int hi0 = (unsigned int)(p0 >> 32), lo0 = (unsigned int)p0;
    unsigned int hi1 = (unsigned int)(p1 >> 32), lo1 = (unsigned int)p1;
    unsigned int n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
    c[0] = n0;
    c[1] = lo1;
    c[2] = n2;
    c[3] = lo0;
  }
}

/// The stream of tfc.dropout and tfc.random (TfcNNOps.td): the four
/// Philox4x32-10 words of element `index`, with key (lo32(seed), hi32(seed))
/// and counter (lo32(c), hi32(c), 0, 0), c = offset + index (mod 2^64).
TFC_SCALAR_FN void philoxWords(unsigned long long seed,
                               unsigned long long offset,
                               unsigned long long index, unsigned int r[4]) {
  unsigned long long counter = offset + index;
  r[0] = (unsigned int)counter;
  r[1] = (unsigned int)(counter >> 32);
  r[2] = 0u;
  r[3] = 0u;
  philox4x32_10(r, (unsigned int)seed, (unsigned int)(seed >> 32));
}

/// tfc.dropout's 32-bit draw for element `index`: the first word.
TFC_SCALAR_FN unsigned int dropoutDraw(unsigned long long seed,
                                       unsigned long long offset,
                                       unsigned long long index) {
  unsigned int r[4];
  philoxWords(seed, offset, index, r);
  return r[0];
}

/// The keep threshold of dropout probability p in [0, 1): an element is kept
/// iff its draw is >= floor(p * 2^32).
TFC_SCALAR_FN unsigned long long dropoutThreshold(double p) {
  return (unsigned long long)(p * 4294967296.0);
}

/// Whether tfc.dropout keeps element `index`.
TFC_SCALAR_FN bool dropoutKeep(unsigned long long seed,
                               unsigned long long offset,
                               unsigned long long index,
                               unsigned long long threshold) {
  return dropoutDraw(seed, offset, index) >= threshold;
}

/// 2^-24 and 2^-53: the weights of the lowest random bit of a 24-bit and a
/// 53-bit uniform.
inline constexpr float kTwoToMinus24 = 5.9604644775390625e-08f;
inline constexpr double kTwoToMinus53 = 1.1102230246251565404e-16;

/// 53 random bits from two Philox words: hi * 2^21 + (lo >> 11).
TFC_SCALAR_FN unsigned long long randomBits53(unsigned int hi,
                                              unsigned int lo) {
  return ((unsigned long long)hi << 21) | (unsigned long long)(lo >> 11);
}

/// The random bits of a tfc.random uniform per result type: its
/// significand's (f64: 53, randomUniformDouble).
inline constexpr int kUniformBitsF32 = 24;
inline constexpr int kUniformBitsF16 = 11;
inline constexpr int kUniformBitsBF16 = 8;

/// tfc.random uniform for a result whose significand has `bits` <= 24 bits
/// (kUniformBits*): (r0 >> (32 - bits)) * 2^-bits in [0, 1), exact in float
/// and in the result type.
TFC_SCALAR_FN float randomUniformFloat(unsigned long long seed,
                                       unsigned long long offset,
                                       unsigned long long index, int bits) {
  unsigned int r[4];
  philoxWords(seed, offset, index, r);
  unsigned int scale = 1u << (24 - bits);
  return float((r[0] >> (32 - bits)) * scale) * kTwoToMinus24;
}

/// tfc.random uniform for f64: 53 bits from r0, r1, times 2^-53.
TFC_SCALAR_FN double randomUniformDouble(unsigned long long seed,
                                         unsigned long long offset,
                                         unsigned long long index) {
  unsigned int r[4];
  philoxWords(seed, offset, index, r);
  return double(randomBits53(r[0], r[1])) * kTwoToMinus53;
}

/// tfc.random normal (Box-Muller): sqrt(-2 ln u1) cos(2 pi u2) with u1 in
/// (0, 1] and u2 in [0, 1): 24-bit uniforms from r0 and r1 in float (T =
/// float, for f32 and the 16-bit types), 53-bit ones from (r0, r1) and (r2,
/// r3) in double. The policy M supplies log, sqrt and cos.
template <class M, class T>
TFC_SCALAR_FN T randomNormal(unsigned long long seed, unsigned long long offset,
                             unsigned long long index) {
  unsigned int r[4];
  philoxWords(seed, offset, index, r);
  T u1, u2;
  if constexpr (sizeof(T) == 8) {
    u1 = T(randomBits53(r[0], r[1]) + 1ull) * T(kTwoToMinus53);
    u2 = T(randomBits53(r[2], r[3])) * T(kTwoToMinus53);
  } else {
    u1 = T((r[0] >> 8) + 1u) * T(kTwoToMinus24);
    u2 = T(r[1] >> 8) * T(kTwoToMinus24);
  }
  return M::sqrt(T(-2) * M::log(u1)) *
         M::cos(T(6.283185307179586476925) * u2);
}

/// tfc.sort's order (torch.sort(stable=True)'s): whether element `a` at
/// row position `ia` goes before `b` at `ib`. Ascending by value (descending
/// with `descending`); a NaN after every number ascending and before every
/// number descending; equal values (-0.0 and +0.0 among them) and two NaNs
/// keep their position order. A strict weak order on (value, position)
/// pairs, so any sort under it (the host's std::stable_sort, CUDA's bitonic
/// network over the pairs) gives the same permutation. T is the value's
/// compute type (float, double, or long long for integers, never NaN).
template <class T>
TFC_SCALAR_FN bool sortsBefore(T a, long long ia, T b, long long ib,
                               bool descending) {
  bool aNan = a != a, bNan = b != b;
  if (aNan || bNan) {
    if (aNan && bNan)
      return ia < ib;
    return descending ? aNan : bNan;
  }
  if (a < b || b < a)
    return descending ? b < a : a < b;
  return ia < ib;
}

/// tfc.shift_left of T (int for i32, long long for i64): a's two's-
/// complement bits moved left by b, the bits shifted out dropped; 0 for an
/// amount outside [0, bits of T), as torch >= 2.1's bitwise_left_shift
/// (C's << is undefined there, and on a negative a).
template <class T> TFC_SCALAR_FN T shiftLeft(T a, T b) {
  if (b < 0 || b >= T(sizeof(T) * 8))
    return T(0);
  return T((unsigned long long)a << b);
}

/// tfc.shift_right of T: an arithmetic shift (the sign fills the vacated
/// bits); an amount outside [0, bits) shifts by bits - 1 (0 or -1), as
/// torch >= 2.1's bitwise_right_shift of signed integers.
template <class T> TFC_SCALAR_FN T shiftRight(T a, T b) {
  const T last = T(sizeof(T) * 8 - 1);
  return a >> (b < 0 || b > last ? last : b);
}

} // namespace scalar
} // namespace tfc

#endif // TFC_COMMON_SCALAROPS_H
