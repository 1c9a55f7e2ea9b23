//===- HostConvertTest.cpp - whole-array 16-bit conversions ---------------===//
//
// HostConvert.h's loops (F16C blocks of eight on x86-64-v3, vectorized bf16)
// against the scalar conversions of DType.h, bit for bit: every f16 pattern,
// NaNs included, at every offset of a block; floats around every f16 and
// bf16 rounding boundary, subnormals, infinities and NaN payloads placed
// inside a block of eight and in the tail.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/host/HostConvert.h"

#include "runtime/src/core/DType.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace tfc::rt;
using namespace tfc::rt::host;

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

/// Floats that exercise every conversion path: random patterns, values near
/// the f16 range and its subnormals, exact ties, infinities, NaNs (quiet and
/// signaling, payloads high and low), zeros of both signs.
std::vector<float> awkwardFloats() {
  std::vector<float> v;
  std::mt19937 rng(7);
  for (int i = 0; i < 300000; ++i) {
    uint32_t bits = rng();
    if (i % 3 == 1) // the f16 normal and subnormal range
      bits = (bits & 0x807FFFFFu) | (uint32_t(96 + rng() % 48) << 23);
    if (i % 3 == 2) // ties: the dropped bits exactly half
      bits = (bits & 0xFFFFE000u) | 0x1000u;
    v.push_back(fromBits(bits));
  }
  for (uint32_t bits : {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u,
                        0x7FC00000u, 0x7F800001u, 0x7FA00000u, 0xFFC01234u,
                        0x477FF000u, 0x477FEFFFu, 0x33000000u, 0x33000001u,
                        0x387FC000u, 0x7F7FFFFFu, 0x00000001u})
    v.push_back(fromBits(bits));
  return v;
}

} // namespace

TEST(HostConvert, HalfToFloatMatchesScalarForEveryPattern) {
  // Every pattern at every position of a block: offsets 0..8.
  for (int offset = 0; offset < 9; ++offset) {
    std::vector<uint16_t> h(offset + 65536);
    for (uint32_t i = 0; i < 65536; ++i)
      h[offset + i] = uint16_t(i);
    std::vector<float> got(h.size());
    halfToFloatN(h.data(), got.data(), int64_t(h.size()));
    for (size_t i = offset; i < h.size(); ++i)
      ASSERT_EQ(bitsOf(got[i]), bitsOf(halfToFloat(h[i])))
          << std::hex << h[i] << " offset " << offset;
  }
}

TEST(HostConvert, FloatToHalfAndBFloat16MatchScalar) {
  std::vector<float> x = awkwardFloats();
  std::vector<uint16_t> half(x.size()), bf(x.size());
  floatToHalfN(x.data(), half.data(), int64_t(x.size()));
  floatToBFloat16N(x.data(), bf.data(), int64_t(x.size()));
  std::vector<float> roundedHalf(x.size()), roundedBf(x.size());
  roundToHalfN(x.data(), roundedHalf.data(), int64_t(x.size()));
  roundToBFloat16N(x.data(), roundedBf.data(), int64_t(x.size()));
  std::vector<float> backBf(x.size());
  bfloat16ToFloatN(bf.data(), backBf.data(), int64_t(bf.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(half[i], floatToHalf(x[i])) << std::hex << bitsOf(x[i]);
    ASSERT_EQ(bf[i], floatToBFloat16(x[i])) << std::hex << bitsOf(x[i]);
    ASSERT_EQ(bitsOf(roundedHalf[i]), bitsOf(halfToFloat(floatToHalf(x[i]))))
        << std::hex << bitsOf(x[i]);
    ASSERT_EQ(bitsOf(roundedBf[i]),
              bitsOf(bfloat16ToFloat(floatToBFloat16(x[i]))))
        << std::hex << bitsOf(x[i]);
    ASSERT_EQ(bitsOf(backBf[i]), bitsOf(bfloat16ToFloat(bf[i])));
  }
}

// Rounding in place (src == dst) over lengths that end mid-block.
TEST(HostConvert, RoundInPlaceAnyLength) {
  for (int64_t n : {0, 1, 7, 8, 9, 255, 256, 257, 1000}) {
    std::vector<float> x(n), want(n);
    for (int64_t i = 0; i < n; ++i) {
      x[i] = 1.0f + 1e-3f * float(i) +
             (i % 13 == 0 ? std::numeric_limits<float>::quiet_NaN() : 0.0f);
      want[i] = halfToFloat(floatToHalf(x[i]));
    }
    roundToHalfN(x.data(), x.data(), n);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(bitsOf(x[i]), bitsOf(want[i])) << "n " << n << " i " << i;
  }
}
