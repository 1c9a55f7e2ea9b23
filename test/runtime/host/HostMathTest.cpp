//===- HostMathTest.cpp - accuracy of the vectorizable float math --------===//
//
// expFast / tanhFast / erfFast against libm in double over dense sweeps and
// at the special values (NaN, infinities, overflow, underflow, subnormal
// results).
//
//===----------------------------------------------------------------------===//

#include "runtime/src/host/HostMath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace tfc::rt::host;

namespace {

/// Largest relative error of `f` against `ref` over [lo, hi] in `steps`.
template <typename F, typename R>
double maxRelError(F f, R ref, double lo, double hi, int steps) {
  double worst = 0;
  for (int i = 0; i <= steps; ++i) {
    float x = float(lo + (hi - lo) * i / steps);
    double want = ref(double(x)), got = f(x);
    if (want == 0)
      continue;
    worst = std::max(worst, std::abs(got - want) / std::abs(want));
  }
  return worst;
}

} // namespace

TEST(HostMath, ExpAccuracy) {
  // float's epsilon is 1.19e-7: a few ulp at most over the normal range.
  EXPECT_LT(
      maxRelError(
          expFast, [](double x) { return std::exp(x); }, -87, 88.7, 200000),
      3e-7);
  EXPECT_LT(maxRelError(
                expFast, [](double x) { return std::exp(x); }, -1, 1, 100000),
            2.5e-7);
  EXPECT_EQ(expFast(0.0f), 1.0f);
  EXPECT_EQ(expFast(std::numeric_limits<float>::infinity()),
            std::numeric_limits<float>::infinity());
  EXPECT_EQ(expFast(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(expFast(100.0f), std::numeric_limits<float>::infinity());
  EXPECT_EQ(expFast(-200.0f), 0.0f);
  EXPECT_TRUE(std::isnan(expFast(std::nanf(""))));
  // Subnormal results are rounded once, close to libm's.
  for (float x : {-90.0f, -95.0f, -100.0f, -103.0f}) {
    double want = std::exp(double(x));
    EXPECT_NEAR(expFast(x), want, 1.5e-45 + want * 1e-3) << x;
  }
  // Around -104, where the result is selected as 0 instead of computed:
  // libm's float result on both sides (0 or the smallest subnormal).
  for (float x = -104.5f; x <= -103.5f; x += 1.0f / 64) {
    EXPECT_EQ(expFast(x), std::exp(x)) << x;
  }
  EXPECT_EQ(expFast(-std::numeric_limits<float>::max()), 0.0f);
}

TEST(HostMath, TanhAccuracy) {
  auto ref = [](double x) { return std::tanh(x); };
  EXPECT_LT(maxRelError(tanhFast, ref, -10, 10, 200000), 3e-7);
  EXPECT_LT(maxRelError(tanhFast, ref, -0.7, 0.7, 100000), 3e-7);
  EXPECT_LT(maxRelError(tanhFast, ref, -1e-3, 1e-3, 10000), 3e-7);
  EXPECT_EQ(tanhFast(0.0f), 0.0f);
  EXPECT_EQ(tanhFast(50.0f), 1.0f);
  EXPECT_EQ(tanhFast(-50.0f), -1.0f);
  EXPECT_EQ(tanhFast(std::numeric_limits<float>::infinity()), 1.0f);
  EXPECT_TRUE(std::isnan(tanhFast(std::nanf(""))));
}

TEST(HostMath, ErfAccuracy) {
  double worst = 0;
  for (int i = 0; i <= 200000; ++i) {
    float x = float(-6 + 12.0 * i / 200000);
    worst = std::max(worst, std::abs(erfFast(x) - std::erf(double(x))));
  }
  EXPECT_LT(worst, 4e-7); // A&S 7.1.26: 1.5e-7 plus float rounding
  // Near 0 (the series) the error is relative.
  double rel = 0;
  for (int i = 1; i <= 100000; ++i) {
    float x = float(0.5 * i / 100000);
    rel = std::max(rel, std::abs(erfFast(x) - std::erf(double(x))) /
                            std::erf(double(x)));
  }
  EXPECT_LT(rel, 5e-7); // a few float ulp
  EXPECT_EQ(erfFast(std::numeric_limits<float>::infinity()), 1.0f);
  EXPECT_EQ(erfFast(-std::numeric_limits<float>::infinity()), -1.0f);
  EXPECT_TRUE(std::isnan(erfFast(std::nanf(""))));
}
