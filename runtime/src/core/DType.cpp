//===- DType.cpp - element types and 16-bit float conversions ------------===//
//
// The 16-bit conversions are written with integer arithmetic on the IEEE bit
// patterns so that they are exact and portable (no dependence on the host's
// _Float16 / __bf16 support or on the FPU rounding mode).
//
//===----------------------------------------------------------------------===//

#include "runtime/src/core/DType.h"

#include <cstdint>
#include <cstring>
#include <limits>

namespace tfc::rt {

int64_t dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I1:
  case DType::U8:
    return 1;
  }
  return 0;
}

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I1:
    return "i1";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::U8:
    return "ui8";
  }
  return "?";
}

std::optional<DType> parseDType(const std::string &name) {
  static const DType all[] = {DType::F32, DType::F64, DType::F16, DType::BF16,
                              DType::I1,  DType::I32, DType::I64, DType::U8};
  for (DType d : all)
    if (name == dtypeName(d))
      return d;
  return std::nullopt;
}

std::optional<int64_t> numElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      return std::nullopt;
    n *= d;
  }
  return n;
}

static uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

static float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

uint16_t floatToHalf(float value) {
  uint32_t x = floatBits(value);
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

float halfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exp = (bits >> 10) & 0x1Fu;
  uint32_t mant = bits & 0x3FFu;
  if (exp == 0x1Fu)
    return bitsFloat(sign | 0x7F800000u | (mant << 13));
  if (exp != 0)
    return bitsFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
  if (mant == 0)
    return bitsFloat(sign);
  // Subnormal half: normalize into a float normal.
  int32_t e = -14;
  while (!(mant & 0x400u)) {
    mant <<= 1;
    --e;
  }
  mant &= 0x3FFu;
  return bitsFloat(sign | (static_cast<uint32_t>(e + 127) << 23) |
                   (mant << 13));
}

uint16_t floatToBFloat16(float value) {
  uint32_t x = floatBits(value);
  if ((x & 0x7F800000u) == 0x7F800000u && (x & 0x7FFFFFu)) {
    // NaN: truncate, keeping it a NaN if the payload was only in low bits.
    uint16_t h = static_cast<uint16_t>(x >> 16);
    if (!(h & 0x7Fu))
      h |= 0x40u;
    return h;
  }
  // Round to nearest even on the 16 dropped bits; overflow of the largest
  // finite values correctly rounds to infinity.
  uint32_t lsb = (x >> 16) & 1u;
  return static_cast<uint16_t>((x + 0x7FFFu + lsb) >> 16);
}

float bfloat16ToFloat(uint16_t bits) {
  return bitsFloat(static_cast<uint32_t>(bits) << 16);
}

} // namespace tfc::rt
