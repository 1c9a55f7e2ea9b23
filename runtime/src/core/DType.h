//===- DType.h - element types and 16-bit float conversions -----*- C++ -*-===//

#ifndef TFC_RUNTIME_CORE_DTYPE_H
#define TFC_RUNTIME_CORE_DTYPE_H

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace tfc::rt {

/// Element types of tfc tensors. I1 is stored as one byte holding 0 or 1;
/// U8 is an unsigned byte (the codes of 8-bit quantized optimizer state).
enum class DType { F32, F64, F16, BF16, I1, I32, I64, U8 };

/// Bytes per element in storage.
int64_t dtypeSize(DType dtype);
/// "f32", "bf16", "i1", ...
const char *dtypeName(DType dtype);
/// Parses a dtype name; std::nullopt when unknown.
std::optional<DType> parseDType(const std::string &name);
/// Product of `shape` (1 for rank 0); std::nullopt on overflow or a
/// negative size.
std::optional<int64_t> numElements(const std::vector<int64_t> &shape);

// fp32 -> f16 / bf16 with round-to-nearest-even (NaN stays NaN), and back:
// floatToHalf, halfToFloat, floatToBFloat16, bfloat16ToFloat. Inline, since
// the host backend converts whole tensors with them (its vector loops in
// runtime/src/host/HostConvert.h fall back on them for tails and NaNs).

namespace detail {
inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

inline float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

} // namespace detail

inline uint16_t floatToHalf(float value) {
  uint32_t x = detail::floatBits(value);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  uint32_t exp = (x >> 23) & 0xFFu;
  uint32_t mant = x & 0x7FFFFFu;

  if (exp == 0xFFu) {
    if (mant == 0)
      return sign | 0x7C00u; // infinity
    // NaN: keep the top payload bits so that half -> float -> half is the
    // identity; a payload living only in the dropped bits becomes quiet NaN.
    uint16_t m = static_cast<uint16_t>(mant >> 13);
    if (m == 0)
      m = 0x200u;
    return sign | 0x7C00u | m;
  }

  // Unbiased exponent; half normals cover [-14, 15].
  int32_t e = static_cast<int32_t>(exp) - 127;
  if (e > 15)
    return sign | 0x7C00u; // overflow to infinity
  if (e >= -14) {
    // Normal half: keep 10 mantissa bits, round the 13 dropped bits to nearest
    // even. A carry out of the mantissa correctly bumps the exponent (and can
    // reach infinity, which is the right answer for values >= 65520).
    uint32_t h = (static_cast<uint32_t>(e + 15) << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
      ++h;
    return sign | static_cast<uint16_t>(h);
  }
  // Subnormal half (or zero): value = m * 2^-24. Shift the full 24-bit
  // significand so that the integer part is m, then round to nearest even.
  if (e < -25)
    return sign; // below half of the smallest subnormal: rounds to zero
  uint32_t sig = mant | (exp ? 0x800000u : 0u);
  // value = sig * 2^(e - 23); m = value / 2^-24 = sig * 2^(e + 1); shift right
  // by s = -(e + 1) >= 14 (e <= -15).
  uint32_t s = static_cast<uint32_t>(-(e + 1));
  uint32_t m = sig >> s;
  uint32_t rest = sig & ((1u << s) - 1u);
  uint32_t halfway = 1u << (s - 1);
  if (rest > halfway || (rest == halfway && (m & 1u)))
    ++m; // may carry into the smallest normal, which is the right encoding
  return sign | static_cast<uint16_t>(m);
}

inline float halfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exp = (bits >> 10) & 0x1Fu;
  uint32_t mant = bits & 0x3FFu;
  if (exp == 0x1Fu)
    return detail::bitsFloat(sign | 0x7F800000u | (mant << 13));
  if (exp != 0)
    return detail::bitsFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
  if (mant == 0)
    return detail::bitsFloat(sign);
  // Subnormal half: normalize into a float normal.
  int32_t e = -14;
  while (!(mant & 0x400u)) {
    mant <<= 1;
    --e;
  }
  mant &= 0x3FFu;
  return detail::bitsFloat(sign | (static_cast<uint32_t>(e + 127) << 23) |
                   (mant << 13));
}

inline uint16_t floatToBFloat16(float value) {
  uint32_t x = detail::floatBits(value);
  // Written without branches so that loops over arrays vectorize.
  // NaN: truncate, keeping it a NaN if the payload was only in low bits.
  uint32_t truncated = x >> 16;
  uint32_t nan = (truncated & 0x7Fu) ? truncated : (truncated | 0x40u);
  // Round to nearest even on the 16 dropped bits; overflow of the largest
  // finite values correctly rounds to infinity.
  uint32_t rounded = (x + 0x7FFFu + (truncated & 1u)) >> 16;
  bool isNan = (x & 0x7FFFFFFFu) > 0x7F800000u;
  return static_cast<uint16_t>(isNan ? nan : rounded);
}

inline float bfloat16ToFloat(uint16_t bits) {
  return detail::bitsFloat(static_cast<uint32_t>(bits) << 16);
}

} // namespace tfc::rt

#endif // TFC_RUNTIME_CORE_DTYPE_H
