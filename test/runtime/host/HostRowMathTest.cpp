//===- HostRowMathTest.cpp - row sums, maxima and shifted exps -----------===//
//
// HostRowMath.h's primitives against plain serial loops: rowMax's NaN in
// every lane position and in the tail, empty rows, -inf rows and integers;
// rowSum's fixed eight-lane order; expShiftedRow writing each e^(x - m).
//
//===----------------------------------------------------------------------===//

#include "runtime/src/host/HostRowMath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace tfc::rt::host;

namespace {

std::vector<float> ramp(int64_t n) {
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i)
    x[i] = std::sin(0.7f * float(i)) * 3.0f;
  return x;
}

} // namespace

TEST(HostRowMath, MaxMatchesSerialForEveryLength) {
  for (int64_t n = 1; n <= 40; ++n) {
    std::vector<float> x = ramp(n);
    float want = x[0];
    for (float v : x)
      want = v > want ? v : want;
    EXPECT_EQ(rowMax(x.data(), n), want) << n;
  }
}

TEST(HostRowMath, MaxPropagatesNaNFromAnyPosition) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t n : {1, 7, 8, 9, 16, 19}) {
    for (int64_t at = 0; at < n; ++at) {
      std::vector<float> x = ramp(n);
      x[at] = nan;
      EXPECT_TRUE(std::isnan(rowMax(x.data(), n))) << n << " " << at;
    }
  }
}

TEST(HostRowMath, MaxOfEmptyAndInfiniteRows) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(rowMax<float>(nullptr, 0), -inf);
  std::vector<float> x(11, -inf);
  EXPECT_EQ(rowMax(x.data(), 11), -inf);
  x[10] = inf;
  EXPECT_EQ(rowMax(x.data(), 11), inf);
  std::vector<int64_t> ints = {-5, 3, std::numeric_limits<int64_t>::min(), 2,
                               9, -1, 0, 4, 8, 7};
  EXPECT_EQ(rowMax(ints.data(), 10), 9);
  EXPECT_EQ(rowMax<int64_t>(nullptr, 0), std::numeric_limits<int64_t>::min());
}

TEST(HostRowMath, SumUsesEightLanesCombinedPairwise) {
  // Values whose float sum depends on the order: the documented order must
  // be the one computed, bit for bit.
  for (int64_t n : {0, 1, 8, 13, 64, 100}) {
    std::vector<float> x(n);
    for (int64_t i = 0; i < n; ++i)
      x[i] = (i % 3 == 0 ? 1e7f : 1.0f) * (i % 2 ? -1.0f : 1.0f) + 0.1f * i;
    float a[8] = {};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
      for (int j = 0; j < 8; ++j)
        a[j] += x[i + j];
    float want =
        ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
    for (; i < n; ++i)
      want += x[i];
    EXPECT_EQ(rowSum(x.data(), n), want) << n;
  }
  std::vector<int64_t> wrap = {std::numeric_limits<int64_t>::max(), 1};
  EXPECT_EQ(rowSum(wrap.data(), 2), std::numeric_limits<int64_t>::min());
}

TEST(HostRowMath, ExpShiftedRowWritesEachExpAndReturnsTheirSum) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = ramp(29);
  x[3] = -inf; // a masked entry
  float m = rowMax(x.data(), 29);
  std::vector<float> out(29);
  float s = expShiftedRow(x.data(), m, out.data(), 29);
  for (int64_t i = 0; i < 29; ++i)
    EXPECT_EQ(out[i], vexp(x[i] - m)) << i;
  EXPECT_EQ(out[3], 0.0f);
  EXPECT_EQ(s, rowSum(out.data(), 29));
  std::vector<double> xd = {0.5, -1.0, 2.0};
  std::vector<double> od(3);
  double sd = expShiftedRow(xd.data(), 2.0, od.data(), 3);
  EXPECT_DOUBLE_EQ(sd, std::exp(-1.5) + std::exp(-3.0) + 1.0);
}
