//===- DTypeTest.cpp - dtype tables and 16-bit float conversions ----------===//

#include "runtime/src/core/DType.h"

#include <cstdint>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace tfc::rt;

namespace {
uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Reference rounding: the representable value nearest to `x` among the
/// finite 16-bit values `decode(0..0x7fff)` (positive half), ties to the even
/// encoding, overflow past the rounding boundary to infinity. Slow but
/// obviously right; used on a sample of inputs.
template <typename Decode>
uint16_t referenceRound(float x, Decode decode, uint16_t infBits,
                        uint16_t maxFinite) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  double a = std::fabs(double(x));
  // Boundary halfway between max finite and the next (virtual) step.
  double maxv = decode(maxFinite);
  double step = maxv - double(decode(maxFinite - 1));
  if (a >= maxv + step / 2)
    return sign | infBits;
  // Binary search the largest encoding <= a (encodings are monotone).
  uint16_t lo = 0, hi = maxFinite;
  while (lo < hi) {
    uint16_t mid = (lo + hi + 1) / 2;
    if (double(decode(mid)) <= a)
      lo = mid;
    else
      hi = mid - 1;
  }
  if (lo == maxFinite)
    return sign | lo;
  double below = decode(lo), above = decode(lo + 1);
  if (a - below < above - a)
    return sign | lo;
  if (a - below > above - a)
    return sign | (lo + 1);
  return sign | ((lo & 1) ? lo + 1 : lo);
}
} // namespace

// Names, sizes and parsing are consistent for every dtype.
TEST(DType, NamesAndSizes) {
  EXPECT_EQ(dtypeSize(DType::F32), 4);
  EXPECT_EQ(dtypeSize(DType::F64), 8);
  EXPECT_EQ(dtypeSize(DType::F16), 2);
  EXPECT_EQ(dtypeSize(DType::BF16), 2);
  EXPECT_EQ(dtypeSize(DType::I1), 1);
  EXPECT_EQ(dtypeSize(DType::I32), 4);
  EXPECT_EQ(dtypeSize(DType::I64), 8);
  EXPECT_EQ(dtypeSize(DType::U8), 1);
  EXPECT_STREQ(dtypeName(DType::U8), "ui8");
  for (DType d : {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I1,
                  DType::I32, DType::I64, DType::U8})
    EXPECT_EQ(parseDType(dtypeName(d)), d);
  EXPECT_FALSE(parseDType("f8"));
  EXPECT_FALSE(parseDType("F32"));
  EXPECT_FALSE(parseDType(""));
}

// numElements multiplies, treats rank 0 as 1 and rejects overflow/negatives.
TEST(DType, NumElements) {
  EXPECT_EQ(numElements({}), 1);
  EXPECT_EQ(numElements({2, 3, 4}), 24);
  EXPECT_EQ(numElements({5, 0, 7}), 0);
  EXPECT_FALSE(numElements({-1}));
  EXPECT_FALSE(numElements({int64_t(1) << 40, int64_t(1) << 40}));
  EXPECT_EQ(numElements({0, int64_t(1) << 62, int64_t(1) << 62}), 0);
}

// Every f16 bit pattern converts to float and back to itself (NaN payloads
// included), and the float value is exact.
TEST(DType, HalfRoundTripAll65536) {
  for (uint32_t h = 0; h < 65536; ++h) {
    float f = halfToFloat(uint16_t(h));
    ASSERT_EQ(floatToHalf(f), h) << std::hex << h;
    bool isNan = (h & 0x7C00) == 0x7C00 && (h & 0x3FF);
    ASSERT_EQ(std::isnan(f), isNan) << std::hex << h;
#ifdef __FLT16_MAX__
    // Cross-check the value against the compiler's _Float16 where available.
    if (!isNan) {
      _Float16 ref;
      uint16_t bits = uint16_t(h);
      std::memcpy(&ref, &bits, 2);
      ASSERT_EQ(bitsOf(float(ref)), bitsOf(f)) << std::hex << h;
    }
#endif
  }
}

// Every bf16 bit pattern converts to float and back to itself.
TEST(DType, BFloat16RoundTripAll65536) {
  for (uint32_t h = 0; h < 65536; ++h) {
    float f = bfloat16ToFloat(uint16_t(h));
    ASSERT_EQ(floatToBFloat16(f), h) << std::hex << h;
    ASSERT_EQ(bitsOf(f), h << 16);
  }
}

// Midpoints between adjacent f16 values round to the even encoding; values
// just off the midpoint round to the nearer neighbour. Covers subnormals,
// the normal/subnormal boundary and the overflow boundary.
TEST(DType, HalfTiesToEven) {
  for (uint32_t h = 0; h < 0x7C00; ++h) {
    double lo = halfToFloat(uint16_t(h));
    double hi =
        h + 1 == 0x7C00 ? 65536.0 : double(halfToFloat(uint16_t(h + 1)));
    float mid = float((lo + hi) / 2); // exact in float
    ASSERT_EQ(double(mid), (lo + hi) / 2);
    uint16_t even = (h & 1) ? uint16_t(h + 1) : uint16_t(h);
    ASSERT_EQ(floatToHalf(mid), even) << std::hex << h;
    ASSERT_EQ(floatToHalf(-mid), even | 0x8000) << std::hex << h;
    ASSERT_EQ(floatToHalf(std::nextafter(mid, 0.0f)), h) << std::hex << h;
    ASSERT_EQ(floatToHalf(std::nextafter(mid, INFINITY)), h + 1)
        << std::hex << h;
  }
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65519.99f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00); // ties to even -> infinity
  EXPECT_EQ(floatToHalf(1e10f), 0x7C00);
  EXPECT_EQ(floatToHalf(-INFINITY), 0xFC00);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000); // tie to 0
  EXPECT_EQ(floatToHalf(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  EXPECT_EQ(floatToHalf(std::numeric_limits<float>::denorm_min()), 0);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
}

// Same for bf16, including the overflow boundary (ties to even -> inf).
TEST(DType, BFloat16TiesToEven) {
  for (uint32_t h = 0; h < 0x7F80; ++h) {
    uint32_t mid = (h << 16) | 0x8000u; // exactly halfway to h + 1
    uint16_t even = (h & 1) ? uint16_t(h + 1) : uint16_t(h);
    ASSERT_EQ(floatToBFloat16(fromBits(mid)), even) << std::hex << h;
    ASSERT_EQ(floatToBFloat16(fromBits(mid - 1)), h) << std::hex << h;
    ASSERT_EQ(floatToBFloat16(fromBits(mid + 1)), h + 1) << std::hex << h;
    ASSERT_EQ(floatToBFloat16(fromBits(mid | 0x80000000u)), even | 0x8000);
  }
  EXPECT_EQ(floatToBFloat16(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(floatToBFloat16(INFINITY), 0x7F80);
  // A NaN whose payload is only in the low 16 bits stays NaN.
  EXPECT_TRUE(
      std::isnan(bfloat16ToFloat(floatToBFloat16(fromBits(0x7F800001)))));
  EXPECT_TRUE(
      std::isnan(bfloat16ToFloat(floatToBFloat16(fromBits(0xFF800001)))));
}

// Random floats of all magnitudes against a brute-force nearest-even
// reference (and the compiler's _Float16 conversion when available).
TEST(DType, RandomAgainstReference) {
  std::mt19937 rng(1234);
  auto half = [](uint16_t h) { return halfToFloat(h); };
  auto bf = [](uint16_t h) { return bfloat16ToFloat(h); };
  for (int i = 0; i < 200000; ++i) {
    uint32_t bits = rng();
    // Concentrate half of the samples on the f16 range.
    if (i & 1)
      bits = (bits & 0x807FFFFFu) | (uint32_t(100 + rng() % 60) << 23);
    float x = fromBits(bits);
    if (std::isnan(x))
      continue;
    ASSERT_EQ(floatToHalf(x), referenceRound(x, half, 0x7C00, 0x7BFF))
        << x << " bits " << std::hex << bits;
    ASSERT_EQ(floatToBFloat16(x), referenceRound(x, bf, 0x7F80, 0x7F7F))
        << x << " bits " << std::hex << bits;
#ifdef __FLT16_MAX__
    _Float16 ref = static_cast<_Float16>(x);
    uint16_t refBits;
    std::memcpy(&refBits, &ref, 2);
    ASSERT_EQ(floatToHalf(x), refBits) << x;
#endif
  }
}
