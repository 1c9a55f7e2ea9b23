//===- HostInterpreterTest.cpp - op semantics of the host interpreter ----===//
//
// Elementwise, shape and reduction ops on small cases whose results are
// computed by hand (or by the closed-form formula PyTorch documents), the
// storage rules (16-bit rounding, integer wrapping), runtime errors on bad
// indices, and that chunked evaluation is bit-identical to whole-tensor
// evaluation. Row ops, embedding and dropout's Philox stream are in
// HostRowOpsTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "HostTestUtil.h"

#include "common/ScalarOps.h"
#include "runtime/src/host/HostKernels.h"

#include <cmath>
#include <cstdint>
#include <limits>

using namespace tfc::rt;
using namespace tfc::rt::host;
using namespace tfc::rt::host::test;

namespace {

std::string unary(const std::string &name, const std::string &dtype, int n,
                  const std::string &attrs = "") {
  std::string s = std::to_string(n);
  return "in %0 " + dtype + " " + s + "\nop %1 " + name + " " + dtype + " " +
         s + " (%0)" + (attrs.empty() ? "" : " " + attrs) + "\nout %1\n";
}

} // namespace

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

TEST(HostInterpreter, UnaryMath) {
  Buf x = f32({-2, -0.5, 0, 1, 4});
  expectNear(run1(unary("neg", "f32", 5), {x}), {2, 0.5, 0, -1, -4});
  expectNear(run1(unary("abs", "f32", 5), {x}), {2, 0.5, 0, 1, 4});
  expectNear(run1(unary("exp", "f32", 5), {x}),
             {std::exp(-2.0), std::exp(-0.5), 1, std::exp(1.0), std::exp(4.0)});
  expectNear(run1(unary("relu", "f32", 5), {x}), {0, 0, 0, 1, 4});
  expectNear(run1(unary("sigmoid", "f32", 5), {x}),
             {1 / (1 + std::exp(2.0)), 1 / (1 + std::exp(0.5)), 0.5,
              1 / (1 + std::exp(-1.0)), 1 / (1 + std::exp(-4.0))});
  expectNear(run1(unary("silu", "f32", 5), {x}),
             {-2 / (1 + std::exp(2.0)), -0.5 / (1 + std::exp(0.5)), 0,
              1 / (1 + std::exp(-1.0)), 4 / (1 + std::exp(-4.0))});
  expectNear(
      run1(unary("tanh", "f32", 5), {x}),
      {std::tanh(-2.0), std::tanh(-0.5), 0, std::tanh(1.0), std::tanh(4.0)});
  Buf p = f32({0.25, 1, 4, 0});
  expectNear(run1(unary("sqrt", "f32", 4), {p}), {0.5, 1, 2, 0});
  expectNear(run1(unary("rsqrt", "f32", 4), {p}), {2, 1, 0.5, kInf});
  expectNear(run1(unary("log", "f32", 4), {p}),
             {std::log(0.25), 0, std::log(4.0), -kInf});
  // NaN propagates through relu, as torch.relu; -0.0 becomes +0.0 (the
  // GEMM relu epilogue must do the same: reluValues).
  expectNear(run1(unary("relu", "f32", 1), {f32({kNaN})}), {kNaN});
  for (DType dt : {DType::F32, DType::F64, DType::F16, DType::BF16}) {
    std::vector<double> zero =
        run1(unary("relu", dtypeName(dt), 1), {make(dt, {-0.0})});
    ASSERT_EQ(zero.size(), 1u);
    EXPECT_EQ(zero[0], 0.0) << dtypeName(dt);
    EXPECT_FALSE(std::signbit(zero[0])) << dtypeName(dt);
  }
}

TEST(HostInterpreter, GeluBothForms) {
  Buf x = f32({-1, 0, 1, 2});
  // 0.5 x (1 + erf(x / sqrt 2)).
  expectNear(run1(unary("gelu", "f32", 4, "approximate=none"), {x}),
             {-0.15865525393145707, 0, 0.8413447460685429, 1.9544997361036416});
  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
  expectNear(run1(unary("gelu", "f32", 4, "approximate=tanh"), {x}),
             {-0.15880800939172324, 0, 0.8411919906082768, 1.954597694087775});
}

TEST(HostInterpreter, PowSpecialAndGeneralExponents) {
  Buf x = f32({0.5, 2, 3});
  expectNear(run1(unary("pow", "f32", 3, "exponent=2"), {x}), {0.25, 4, 9});
  expectNear(run1(unary("pow", "f32", 3, "exponent=3"), {x}), {0.125, 8, 27});
  expectNear(run1(unary("pow", "f32", 3, "exponent=-1"), {x}),
             {2, 0.5, 1.0 / 3});
  expectNear(run1(unary("pow", "f32", 3, "exponent=0.5"), {x}),
             {std::sqrt(0.5), std::sqrt(2.0), std::sqrt(3.0)});
  expectNear(run1(unary("pow", "f32", 3, "exponent=1.5"), {x}),
             {std::pow(0.5, 1.5), std::pow(2.0, 1.5), std::pow(3.0, 1.5)});
  expectNear(run1(unary("pow", "f32", 3, "exponent=0"), {x}), {1, 1, 1});
}

TEST(HostInterpreter, IntegerUnaryAndBinaryWrap) {
  Buf x = make(DType::I32, {-2147483648.0, -3, 7});
  EXPECT_EQ(run1(unary("neg", "i32", 3), {x}),
            (std::vector<double>{-2147483648.0, 3, -7}));
  EXPECT_EQ(run1(unary("abs", "i32", 3), {x}),
            (std::vector<double>{-2147483648.0, 3, 7}));
  std::string add = "in %0 i32 2\nin %1 i32 2\nop %2 add i32 2 (%0, %1)\n"
                    "out %2\n";
  EXPECT_EQ(
      run1(add, {make(DType::I32, {2147483647, -5}), make(DType::I32, {1, 3})}),
      (std::vector<double>{-2147483648.0, -2}));
  // Integer division truncates toward zero.
  std::string div = "in %0 i64 4\nin %1 i64 4\nop %2 div i64 4 (%0, %1)\n"
                    "out %2\n";
  EXPECT_EQ(run1(div, {i64({-7, 7, -7, 9}), i64({2, 2, -2, -3})}),
            (std::vector<double>{-3, 3, 3, -3}));
  Status st;
  runProgram(program(div), {i64({1, 2, 3, 4}), i64({1, 0, 1, 1})},
             kDefaultChunkElements, &st);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("integer division by zero"), std::string::npos)
      << st.message();
}

TEST(HostInterpreter, BitwiseOnIntegersAndBools) {
  // Two's-complement bits of i32 (held sign-extended) and i64, broadcast.
  Buf x = make(DType::I32, {-2147483648.0, -1, 0, 2147483647, 1000});
  EXPECT_EQ(run1(unary("bitwise_not", "i32", 5), {x}),
            (std::vector<double>{2147483647, 0, -1, -2147483648.0, -1001}));
  auto bin = [](const std::string &op, const std::string &dtype,
                const std::string &rhsShape) {
    return "in %0 " + dtype + " 5\nin %1 " + dtype + " " + rhsShape +
           "\nop %2 " + op + " " + dtype + " 5 (%0, %1)\nout %2\n";
  };
  Buf m = make(DType::I32, {255});
  EXPECT_EQ(run1(bin("bitwise_and", "i32", "1"), {x, m}),
            (std::vector<double>{0, 255, 0, 255, 232}));
  EXPECT_EQ(run1(bin("bitwise_or", "i32", "1"), {x, m}),
            (std::vector<double>{-2147483393.0, -1, 255, 2147483647, 1023}));
  EXPECT_EQ(run1(bin("bitwise_xor", "i32", "1"), {x, m}),
            (std::vector<double>{-2147483393.0, -256, 255, 2147483392, 791}));
  Buf h = i64({-4294967296.0, 3, -8, 1099511627776.0, 12});
  Buf k = i64({-1, 5, 7, 1099511627775.0, -13});
  EXPECT_EQ(run1(bin("bitwise_xor", "i64", "5"), {h, k}),
            (std::vector<double>{4294967295.0, 6, -1, 2199023255551.0, -1}));
  EXPECT_EQ(run1(bin("bitwise_and", "i64", "5"), {h, k}),
            (std::vector<double>{-4294967296.0, 1, 0, 0, 0}));
  // i1 (held as 0 / 1): logic, and not is logical not.
  Buf p = make(DType::I1, {1, 1, 0, 0, 1}),
      q = make(DType::I1, {1, 0, 1, 0, 0});
  EXPECT_EQ(run1(unary("bitwise_not", "i1", 5), {p}),
            (std::vector<double>{0, 0, 1, 1, 0}));
  EXPECT_EQ(run1(bin("bitwise_and", "i1", "5"), {p, q}),
            (std::vector<double>{1, 0, 0, 0, 0}));
  EXPECT_EQ(run1(bin("bitwise_or", "i1", "5"), {p, q}),
            (std::vector<double>{1, 1, 1, 0, 1}));
  EXPECT_EQ(run1(bin("bitwise_xor", "i1", "5"), {p, q}),
            (std::vector<double>{0, 1, 1, 0, 1}));
}

TEST(HostInterpreter, ShiftsAtTheDtypeWidth) {
  // i32 (held sign-extended) at 32 bits, i64 at 64; an amount outside
  // [0, bits) gives 0 (<<) or the sign fill (>>), as torch >= 2.1.
  auto bin = [](const std::string &op, const std::string &dtype, int n) {
    std::string s = std::to_string(n);
    return "in %0 " + dtype + " " + s + "\nin %1 " + dtype + " " + s +
           "\nop %2 " + op + " " + dtype + " " + s + " (%0, %1)\nout %2\n";
  };
  Buf x = make(DType::I32, {1, -1, 5, -8, 100, -2147483648.0, 7});
  Buf k = make(DType::I32, {0, 1, 31, 32, -1, 1, 100});
  EXPECT_EQ(run1(bin("shift_left", "i32", 7), {x, k}),
            (std::vector<double>{1, -2, -2147483648.0, 0, 0, 0, 0}));
  EXPECT_EQ(run1(bin("shift_right", "i32", 7), {x, k}),
            (std::vector<double>{1, -1, 0, -1, 0, -1073741824.0, 0}));
  Buf h = i64({1, -5, 3, 1099511627776.0, -1});
  Buf n = i64({63, 64, 40, 23, -3});
  EXPECT_EQ(run1(bin("shift_left", "i64", 5), {h, n}),
            (std::vector<double>{-9223372036854775808.0, 0, 3298534883328.0,
                                 -9223372036854775808.0, 0}));
  EXPECT_EQ(run1(bin("shift_right", "i64", 5), {h, n}),
            (std::vector<double>{0, -1, 0, 131072, -1}));
}

TEST(HostInterpreter, BinaryBroadcasting) {
  Buf a = f32({1, 2, 3, 4, 5, 6}); // 2x3
  Buf b = f32({10, 20, 30});       // 3
  Buf c = f32({100, 200});         // 2x1
  auto bin = [](const std::string &op, const std::string &rhsShape) {
    return "in %0 f32 2x3\nin %1 f32 " + rhsShape + "\nop %2 " + op +
           " f32 2x3 (%0, %1)\nout %2\n";
  };
  expectNear(run1(bin("add", "3"), {a, b}), {11, 22, 33, 14, 25, 36});
  expectNear(run1(bin("sub", "2x1"), {a, c}),
             {-99, -98, -97, -196, -195, -194});
  expectNear(run1(bin("mul", "3"), {a, b}), {10, 40, 90, 40, 100, 180});
  expectNear(run1(bin("div", "2x1"), {a, c}),
             {0.01, 0.02, 0.03, 0.02, 0.025, 0.03});
  // Broadcast on the left operand, scalar on the right.
  std::string lhs = "in %0 f32 3\nin %1 f32 2x3\nop %2 sub f32 2x3 (%0, %1)\n"
                    "out %2\n";
  expectNear(run1(lhs, {b, a}), {9, 18, 27, 6, 15, 24});
  std::string sc = "in %0 f32 2x3\nin %1 f32 scalar\n"
                   "op %2 maximum f32 2x3 (%0, %1)\nout %2\n";
  expectNear(run1(sc, {a, f32({3.5})}), {3.5, 3.5, 3.5, 4, 5, 6});
}

TEST(HostInterpreter, MaximumMinimumPropagateNaN) {
  std::string mx = "in %0 f32 3\nin %1 f32 3\nop %2 maximum f32 3 (%0, %1)\n"
                   "out %2\n";
  std::string mn = "in %0 f32 3\nin %1 f32 3\nop %2 minimum f32 3 (%0, %1)\n"
                   "out %2\n";
  Buf a = f32({kNaN, 1, 5}), b = f32({1, kNaN, 2});
  expectNear(run1(mx, {a, b}), {kNaN, kNaN, 5});
  expectNear(run1(mn, {a, b}), {kNaN, kNaN, 2});
}

TEST(HostInterpreter, CompareAllDirections) {
  Buf a = f32({1, 2, 3, kNaN}), b = f32({2, 2, 2, kNaN});
  auto cmp = [&](const std::string &dir) {
    return run1("in %0 f32 4\nin %1 f32 4\nop %2 compare i1 4 (%0, %1) "
                "direction=" +
                    dir + "\nout %2\n",
                {a, b});
  };
  EXPECT_EQ(cmp("eq"), (std::vector<double>{0, 1, 0, 0}));
  EXPECT_EQ(cmp("ne"), (std::vector<double>{1, 0, 1, 1})); // NaN != NaN
  EXPECT_EQ(cmp("lt"), (std::vector<double>{1, 0, 0, 0}));
  EXPECT_EQ(cmp("le"), (std::vector<double>{1, 1, 0, 0}));
  EXPECT_EQ(cmp("gt"), (std::vector<double>{0, 0, 1, 0}));
  EXPECT_EQ(cmp("ge"), (std::vector<double>{0, 1, 1, 0}));
}

TEST(HostInterpreter, SelectBroadcastsAllThree) {
  // Causal-mask shape: condition 2x2, values 2x2x2, fill scalar.
  std::string s = "in %0 i1 2x2\nin %1 f32 2x2x2\nin %2 f32 scalar\n"
                  "op %3 select f32 2x2x2 (%0, %1, %2)\nout %3\n";
  expectNear(run1(s, {make(DType::I1, {1, 0, 1, 1}),
                      f32({1, 2, 3, 4, 5, 6, 7, 8}), f32({-kInf})}),
             {1, -kInf, 3, 4, 5, -kInf, 7, 8});
}

TEST(HostInterpreter, ConvertRoundsAndTruncates) {
  // 1 + 2^-8 is a tie between bf16 1 and 1 + 2^-7: even wins (1).
  // 1 + 3*2^-8 is a tie between 1 + 2^-7 and 1 + 2^-6: even is 1 + 2^-6.
  std::string c = "in %0 f32 3\nop %1 convert bf16 3 (%0)\nout %1\n";
  expectNear(run1(c, {f32({1 + 1.0 / 256, 1 + 3.0 / 256, 1.2})}),
             {1, 1 + 1.0 / 64, bfloat16ToFloat(floatToBFloat16(1.2f))}, 0);
  std::string toInt = "in %0 f32 5\nop %1 convert i32 5 (%0)\nout %1\n";
  EXPECT_EQ(run1(toInt, {f32({2.7, -2.7, 0.5, -0.0, 1e10})}),
            (std::vector<double>{2, -2, 0, 0, -2147483648.0}));
  std::string toBool = "in %0 f32 3\nop %1 convert i1 3 (%0)\nout %1\n";
  EXPECT_EQ(run1(toBool, {f32({0, -0.0, 0.1})}),
            (std::vector<double>{0, 0, 1}));
  std::string fromInt = "in %0 i64 2\nop %1 convert f16 2 (%0)\nout %1\n";
  expectNear(run1(fromInt, {i64({3, 2049})}), {3, 2048}, 0); // f16 RNE
  std::string narrow = "in %0 i64 2\nop %1 convert i32 2 (%0)\nout %1\n";
  EXPECT_EQ(run1(narrow, {i64({4294967297.0, -1})}),
            (std::vector<double>{1, -1}));
}

TEST(HostInterpreter, SixteenBitResultsRoundAfterEveryOp) {
  // bf16 has 8 significant bits: 256 + 1 rounds to 256 after the first add,
  // so the second add of 1 also rounds back: PyTorch's bf16 semantics.
  std::string s = "in %0 bf16 1\nin %1 bf16 1\n"
                  "op %2 add bf16 1 (%0, %1)\nop %3 add bf16 1 (%2, %1)\n"
                  "out %3\n";
  expectNear(run1(s, {make(DType::BF16, {256}), make(DType::BF16, {1})}), {256},
             0);
  // f16 storage of the output.
  auto outs = runProgram(program("in %0 f16 1\nop %1 mul f16 1 (%0, %0)\n"
                                 "out %1\n"),
                         {make(DType::F16, {300})});
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].at(0), kInf); // 90000 overflows f16
}

TEST(HostInterpreter, ConstantsAndIota) {
  expectNear(run1("op %0 constant f32 2x2 () value=[1.5]\nout %0\n", {}),
             {1.5, 1.5, 1.5, 1.5});
  expectNear(run1("op %0 constant f64 3 () value=[1,-inf,0.1]\nout %0\n", {}),
             {1, -kInf, 0.1}, 0);
  EXPECT_EQ(run1("op %0 iota i64 2x3 () dim=1\nout %0\n", {}),
            (std::vector<double>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(run1("op %0 iota i32 2x3 () dim=-2\nout %0\n", {}),
            (std::vector<double>{0, 0, 0, 1, 1, 1}));
  // A constant used by a chain broadcasts like any operand.
  expectNear(run1("in %0 f32 3\nop %1 constant f32 scalar () value=[2]\n"
                  "op %2 mul f32 3 (%0, %1)\nout %2\n",
                  {f32({1, 2, 3})}),
             {2, 4, 6});
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

TEST(HostInterpreter, ShapeOps) {
  Buf x = f32({0, 1, 2, 3, 4, 5}); // 2x3
  expectNear(run1("in %0 f32 2x3\nop %1 reshape f32 3x2 (%0)\nout %1\n", {x}),
             {0, 1, 2, 3, 4, 5});
  expectNear(run1("in %0 f32 2x3\nop %1 transpose f32 3x2 (%0) "
                  "permutation=[1,0]\nout %1\n",
                  {x}),
             {0, 3, 1, 4, 2, 5});
  expectNear(run1("in %0 f32 3\nop %1 broadcast_to f32 2x3 (%0)\nout %1\n",
                  {f32({7, 8, 9})}),
             {7, 8, 9, 7, 8, 9});
  expectNear(run1("in %0 f32 2x3\nop %1 slice f32 2x2 (%0) start=[0,0] "
                  "limit=[2,3] step=[1,2]\nout %1\n",
                  {x}),
             {0, 2, 3, 5});
  expectNear(run1("in %0 f32 2x3\nop %1 slice f32 1x2 (%0) start=[1,1] "
                  "limit=[2,3] step=[1,1]\nout %1\n",
                  {x}),
             {4, 5});
  // A step past the size keeps one element; the largest step must not
  // overflow the result's extent, whole or read as a view by a chain.
  expectNear(run1("in %0 f32 2x3\nop %1 slice f32 1x3 (%0) start=[0,0] "
                  "limit=[2,3] step=[9223372036854775807,1]\nout %1\n",
                  {x}),
             {0, 1, 2});
  expectNear(run1("in %0 f32 2x3\nop %1 slice f32 1x2 (%0) start=[0,1] "
                  "limit=[2,3] step=[9223372036854775807,1]\n"
                  "op %2 neg f32 1x2 (%1)\nout %2\n",
                  {x}),
             {-1, -2});
  expectNear(run1("in %0 f32 2x3\nin %1 f32 2x1\n"
                  "op %2 concat f32 2x4 (%0, %1) dim=-1\nout %2\n",
                  {x, f32({9, 10})}),
             {0, 1, 2, 9, 3, 4, 5, 10});
  expectNear(run1("in %0 f32 2x3\nin %1 f32 1x3\n"
                  "op %2 concat f32 3x3 (%1, %0) dim=0\nout %2\n",
                  {x, f32({7, 8, 9})}),
             {7, 8, 9, 0, 1, 2, 3, 4, 5});
  expectNear(run1("in %0 f32 2x3\nop %1 pad f32 3x4 (%0) low=[1,0] "
                  "high=[0,1] value=-1\nout %1\n",
                  {x}),
             {-1, -1, -1, -1, 0, 1, 2, -1, 3, 4, 5, -1});
  // A 4-d head split as attention's decomposition does it.
  std::vector<double> v(2 * 3 * 2 * 2);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = double(i);
  auto t = run1("in %0 f32 2x3x2x2\nop %1 transpose f32 2x2x3x2 (%0) "
                "permutation=[0,2,1,3]\nout %1\n",
                {f32(v)});
  // out[b][h][t][d] = in[b][t][h][d]
  ASSERT_EQ(t.size(), v.size());
  for (int b = 0; b < 2; ++b)
    for (int h = 0; h < 2; ++h)
      for (int tt = 0; tt < 3; ++tt)
        for (int d = 0; d < 2; ++d)
          EXPECT_EQ(t[((b * 2 + h) * 3 + tt) * 2 + d],
                    v[((b * 3 + tt) * 2 + h) * 2 + d]);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

TEST(HostInterpreter, Reductions) {
  Buf x = f32({1, 2, 3, 4, 5, 6}); // 2x3
  auto red = [&](const std::string &op, const std::string &dims,
                 const std::string &shape, bool keep = false) {
    return run1("in %0 f32 2x3\nop %1 " + op + " f32 " + shape +
                    " (%0) dims=" + dims +
                    " keepdim=" + (keep ? "true" : "false") + "\nout %1\n",
                {x}, "row_reduction");
  };
  expectNear(red("reduce_sum", "[1]", "2"), {6, 15});
  expectNear(red("reduce_sum", "[0]", "3"), {5, 7, 9});
  expectNear(red("reduce_sum", "[0,1]", "scalar"), {21});
  expectNear(red("reduce_sum", "[-1]", "2x1", true), {6, 15});
  expectNear(red("reduce_mean", "[1]", "2"), {2, 5});
  expectNear(red("reduce_mean", "[0]", "1x3", true), {2.5, 3.5, 4.5});
  expectNear(red("reduce_max", "[1]", "2"), {3, 6});
  expectNear(red("reduce_max", "[0]", "3"), {4, 5, 6});
  // Middle dimension of a 2x3x2 tensor (neither leading nor trailing).
  std::vector<double> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  expectNear(run1("in %0 f32 2x3x2\nop %1 reduce_sum f32 2x2 (%0) dims=[1] "
                  "keepdim=false\nout %1\n",
                  {f32(v)}),
             {9, 12, 27, 30});
  expectNear(run1("in %0 f32 2x3x2\nop %1 reduce_max f32 3 (%0) dims=[0,2] "
                  "keepdim=false\nout %1\n",
                  {f32(v)}),
             {8, 10, 12});
  // NaN propagates through max; integers sum exactly.
  expectNear(run1("in %0 f32 3\nop %1 reduce_max f32 scalar (%0) dims=[0] "
                  "keepdim=false\nout %1\n",
                  {f32({1, kNaN, 3})}),
             {kNaN});
  EXPECT_EQ(run1("in %0 i64 3\nop %1 reduce_sum i64 scalar (%0) dims=[0] "
                 "keepdim=false\nout %1\n",
                 {i64({1, -5, 1000000000000.0})}),
            (std::vector<double>{999999999996.0}));
  // bf16 sums accumulate in f32 and round once: 512 ones sum to 512, where
  // a bf16 accumulator would stall at 256 (256 + 1 rounds back to 256).
  std::vector<double> ones(512, 1.0);
  expectNear(run1("in %0 bf16 512\nop %1 reduce_sum bf16 scalar (%0) dims=[0] "
                  "keepdim=false\nout %1\n",
                  {make(DType::BF16, ones)}),
             {512}, 0);
}

// A reduction over every dim but the last (a bias gradient) runs
// columnSumValues, which the GEMM dgelu_bgrad epilogue calls too: one
// accumulator per column starting at +0.0, rows added in order, rounded
// once. The order shows: 1e8 + 1 rounds back to 1e8 in f32, so rows 1e8, 1,
// -1e8, 1 sum to 1 in order (reversed: 0, in pairs: 0 or 2); a single -0.0
// row sums to +0.0.
// Leading dims of any rank flatten into rows, and a padded matrix (ld >
// cols) sums like its packed rows.
TEST(HostInterpreter, ColumnReductionAddsRowsInOrder) {
  std::vector<double> v = {1e8, -0.0, 2, 1, 3, 0.5, -1e8, 4, 0.25, 1, 0, 0};
  std::vector<double> want = {1, 7, 2.75};
  expectNear(run1("in %0 f32 4x3\nop %1 reduce_sum f32 3 (%0) dims=[0] "
                  "keepdim=false\nout %1\n",
                  {f32(v)}, "column_reduction"),
             want, 0);
  std::vector<double> sums = run1("in %0 f32 1x3\nop %1 reduce_sum f32 3 (%0) "
                                  "dims=[0] keepdim=false\nout %1\n",
                                  {f32({-0.0, 1, 2})}, "column_reduction");
  ASSERT_EQ(sums.size(), 3u);
  EXPECT_EQ(sums[0], 0.0);
  EXPECT_FALSE(std::signbit(sums[0]));
  // Rank 3, dims [0, 1]: the same rows.
  expectNear(run1("in %0 f32 2x2x3\nop %1 reduce_sum f32 3 (%0) dims=[0,1] "
                  "keepdim=false\nout %1\n",
                  {f32(v)}, "column_reduction"),
             want, 0);
  expectNear(run1("in %0 f32 4x3\nop %1 reduce_mean f32 1x3 (%0) dims=[0] "
                  "keepdim=true\nout %1\n",
                  {f32(v)}, "column_reduction"),
             {0.25, 1.75, 2.75f / 4}, 0);
  // bf16 accumulates in f32 and rounds once: 300 ones sum to 300, where a
  // bf16 accumulator would stall at 256.
  std::vector<double> ones(300, 1.0);
  expectNear(run1("in %0 bf16 300x1\nop %1 reduce_sum bf16 1 (%0) dims=[0] "
                  "keepdim=false\nout %1\n",
                  {make(DType::BF16, ones)}, "column_reduction"),
             {300}, 0);
  // The function itself, on padded rows (ld 4, the padding never read).
  const float padded[] = {1e8f,  -0.0f, 2, 99, 1, 3, 0.5f, 99,
                          -1e8f, 4,     0.25f, 99, 1, 0, 0};
  float y[3];
  columnSumValues(padded, 4, 3, 4, y);
  EXPECT_EQ(std::vector<double>(y, y + 3), want);
  // f64 the same way: 1e17 + 1 rounds back to 1e17.
  const double paddedF64[] = {1e17, 99, 1, 99, -1e17, 99, 1};
  double z[1];
  columnSumValues(paddedF64, 4, 1, 2, z);
  EXPECT_EQ(z[0], 1.0);
}

//===----------------------------------------------------------------------===//
// Chunking, aliasing, errors
//===----------------------------------------------------------------------===//

TEST(HostInterpreter, ChunkedEqualsWhole) {
  // bias + gelu + dropout chain with broadcast operands, a bf16 round trip,
  // a layer_norm in the middle and a chain after it whose intermediates are
  // also outputs: every chunk size gives the same bytes.
  std::string prog = program(
      "in %0 f32 6x37\nin %1 f32 37\nin %2 i64 scalar\nin %3 i64 scalar\n"
      "in %4 bf16 6x1\n"
      "op %5 add f32 6x37 (%0, %1)\n"
      "op %6 gelu f32 6x37 (%5) approximate=tanh\n"
      "op %7 dropout f32 6x37 (%6, %2, %3) p=0.1\n"
      "op %8 convert bf16 6x37 (%7)\n"
      "op %9 add bf16 6x37 (%8, %4)\n"
      "op %10 convert f32 6x37 (%9)\n"
      "op %11 layer_norm f32 6x37 (%10, %1, _) eps=1e-05 normalized_rank=1\n"
      "op %12 result f32 6x1 (%11) index=1\n"
      "op %13 result f32 6x1 (%11) index=2\n"
      "op %14 constant f32 scalar () value=[0.5]\n"
      "op %15 mul f32 6x37 (%11, %14)\n"
      "op %16 sub f32 6x37 (%15, %12)\n"
      "op %17 reduce_sum f32 37 (%16) dims=[0] keepdim=false\n"
      "out %16\nout %9\nout %13\nout %17\nout %5\n",
      "row_reduction");
  std::vector<double> x(6 * 37), b(37);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::sin(double(i)) * 3;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = std::cos(double(i));
  std::vector<Buf> in = {f32(x), f32(b), i64({42}), i64({1000}),
                         make(DType::BF16, {0.5, -1, 2, 0, 1, 3})};
  auto whole = runProgram(prog, in, int64_t(1) << 20);
  ASSERT_EQ(whole.size(), 5u);
  for (int64_t chunk : {1, 2, 7, 37, 64, 100}) {
    auto got = runProgram(prog, in, chunk);
    ASSERT_EQ(got.size(), whole.size());
    for (size_t o = 0; o < got.size(); ++o)
      EXPECT_EQ(got[o].bytes, whole[o].bytes)
          << "output " << o << " differs with chunk " << chunk;
  }
}

TEST(HostInterpreter, GroupsPointwiseChains) {
  std::unique_ptr<Interpreter> interp;
  ASSERT_TRUE(
      Interpreter::create(program("in %0 f32 4x8\nin %1 f32 8\n"
                                  "op %2 add f32 4x8 (%0, %1)\n"
                                  "op %3 gelu f32 4x8 (%2) approximate=none\n"
                                  "op %4 mul f32 4x8 (%3, %0)\n"
                                  "op %5 softmax f32 4x8 (%4) dim=1\n"
                                  "op %6 exp f32 4x8 (%5)\nout %6\n",
                                  "row_reduction"),
                          interp)
          .isOk());
  // add+gelu+mul form one chain, softmax its own group, exp a chain.
  EXPECT_EQ(interp->numGroups(), 3u);
}

// In-place updates (an output passed the memory of an input) are written
// directly only when every read of the input comes first or element by
// element; otherwise the output is staged. Either way the results are those
// of separate buffers.
TEST(HostInterpreter, InPlaceOnlyWhenEveryReadComesFirst) {
  auto plan = [](const std::string &body) {
    std::unique_ptr<Interpreter> interp;
    EXPECT_TRUE(Interpreter::create(program(body), interp).isOk()) << body;
    return interp;
  };
  std::vector<float> g = {1, 2, 3, 4, 5, 6, 7, 8};
  auto fresh = [] { return std::vector<float>{8, 7, 6, 5, 4, 3, 2, 1}; };

  // p' = p + g: in place over p (and over g).
  auto update = plan("in %0 f32 8\nin %1 f32 8\n"
                     "op %2 add f32 8 (%0, %1)\nout %2\n");
  EXPECT_TRUE(update->writesInPlace(0, 0));
  EXPECT_TRUE(update->writesInPlace(0, 1));
  std::vector<float> p = fresh();
  ASSERT_TRUE(update->run({p.data(), g.data()}, {p.data()}).isOk());
  EXPECT_EQ(p, std::vector<float>(8, 9));

  // p is read again after the update (p * p): staged, p * p of the old p.
  auto reread = plan("in %0 f32 8\nin %1 f32 8\n"
                     "op %2 add f32 8 (%0, %1)\nop %3 mul f32 8 (%0, %0)\n"
                     "out %2\nout %3\n");
  EXPECT_FALSE(reread->writesInPlace(0, 0));
  p = fresh();
  std::vector<float> sq(8);
  ASSERT_TRUE(reread->run({p.data(), g.data()}, {p.data(), sq.data()}).isOk());
  EXPECT_EQ(p, std::vector<float>(8, 9));
  EXPECT_EQ(sq[0], 64.0f);
  EXPECT_EQ(sq[7], 1.0f);

  // Read through a broadcast (another shape, same size): staged.
  auto broadcast = plan("in %0 f32 8\nin %1 f32 1x8\n"
                        "op %2 add f32 1x8 (%1, %0)\nout %2\n");
  EXPECT_FALSE(broadcast->writesInPlace(0, 0));
  p = fresh();
  ASSERT_TRUE(broadcast->run({p.data(), g.data()}, {p.data()}).isOk());
  EXPECT_EQ(p, std::vector<float>(8, 9));

  // A row op reads a whole row before writing it: never in place.
  auto softmax = plan("in %0 f32 2x4\nop %1 softmax f32 2x4 (%0) dim=1\n"
                      "out %1\n");
  EXPECT_FALSE(softmax->writesInPlace(0, 0));
  p = fresh();
  ASSERT_TRUE(softmax->run({p.data()}, {p.data()}).isOk());
  EXPECT_NEAR(p[0] + p[1] + p[2] + p[3], 1.0f, 1e-6f);

  // adamw's parameter and both moments are updated in place; its step
  // counter's increment too.
  auto adamw = plan(
      "in %0 f32 8\nin %1 f32 8\nin %2 f32 8\nin %3 f32 8\n"
      "in %4 f32 scalar\nin %5 i64 scalar\n"
      "op %6 constant i64 scalar () value=[1]\n"
      "op %7 add i64 scalar (%5, %6)\n"
      "op %8 adamw f32 8 (%0, %1, %2, %3, %4, %7) beta1=0.9 beta2=0.999 "
      "eps=1e-08 weight_decay=0.01 maximize=false\n"
      "op %9 result f32 8 (%8) index=1\nop %10 result f32 8 (%8) index=2\n"
      "out %8\nout %9\nout %10\nout %7\n");
  EXPECT_TRUE(adamw->writesInPlace(0, 0));
  EXPECT_TRUE(adamw->writesInPlace(1, 2));
  EXPECT_TRUE(adamw->writesInPlace(2, 3));
  EXPECT_TRUE(adamw->writesInPlace(3, 5));
  // Same results in place as into separate buffers.
  std::vector<float> m(8, 0.5f), v(8, 0.25f), lr = {0.1f};
  std::vector<int64_t> step = {3};
  std::vector<float> p2(8), m2(8), v2(8);
  std::vector<int64_t> step2(1);
  p = fresh();
  ASSERT_TRUE(adamw
                  ->run({p.data(), g.data(), m.data(), v.data(), lr.data(),
                         step.data()},
                        {p2.data(), m2.data(), v2.data(), step2.data()})
                  .isOk());
  ASSERT_TRUE(adamw
                  ->run({p.data(), g.data(), m.data(), v.data(), lr.data(),
                         step.data()},
                        {p.data(), m.data(), v.data(), step.data()})
                  .isOk());
  EXPECT_EQ(p, p2);
  EXPECT_EQ(m, m2);
  EXPECT_EQ(v, v2);
  EXPECT_EQ(step, step2);
}

TEST(HostInterpreter, OutputMayAliasInput) {
  // In-place transpose of a square matrix: the output buffer is the input.
  std::unique_ptr<Interpreter> interp;
  ASSERT_TRUE(Interpreter::create(program("in %0 f32 2x2\n"
                                          "op %1 transpose f32 2x2 (%0) "
                                          "permutation=[1,0]\nout %1\n"),
                                  interp)
                  .isOk());
  std::vector<float> m = {1, 2, 3, 4};
  ASSERT_TRUE(interp->run({m.data()}, {m.data()}).isOk());
  EXPECT_EQ(m, (std::vector<float>{1, 3, 2, 4}));
  // Wrong argument counts are errors.
  EXPECT_FALSE(interp->run({}, {m.data()}).isOk());
  EXPECT_FALSE(interp->run({m.data()}, {nullptr}).isOk());
}

TEST(HostInterpreter, OutputsThatAreInputsOrConstants) {
  auto outs = runProgram(program("in %0 i32 2\n"
                                 "op %1 constant bf16 2 () value=[1,2]\n"
                                 "out %0\nout %1\n"),
                         {make(DType::I32, {5, -6})});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].values(), (std::vector<double>{5, -6}));
  EXPECT_EQ(outs[1].values(), (std::vector<double>{1, 2}));
}

TEST(HostInterpreter, EmptyTensors) {
  expectNear(run1("in %0 f32 0x3\nin %1 f32 3\nop %2 add f32 0x3 (%0, %1)\n"
                  "out %2\n",
                  {f32({}), f32({1, 2, 3})}),
             {});
  expectNear(run1("in %0 f32 0x3\nop %1 reduce_sum f32 3 (%0) dims=[0] "
                  "keepdim=false\nout %1\n",
                  {f32({})}),
             {0, 0, 0});
}

TEST(HostInterpreter, HugeIntermediatesFailCleanly) {
  // 2^40 f32 elements (4 TiB) as an intermediate: an error, not an abort.
  std::unique_ptr<Interpreter> interp;
  ASSERT_TRUE(
      Interpreter::create(program("in %0 f32 1\n"
                                  "op %1 broadcast_to f32 1099511627776 (%0)\n"
                                  "op %2 reduce_sum f32 scalar (%1) dims=[0] "
                                  "keepdim=false\nout %2\n"),
                          interp)
          .isOk());
  float x = 1, y = 0;
  Status s = interp->run({&x}, {&y});
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("out of memory"), std::string::npos)
      << s.message();
  // The same for a huge constant, at planning time.
  s = Interpreter::create(program("op %0 constant f32 1099511627776 () "
                                  "value=[1]\nop %1 reduce_sum f32 scalar "
                                  "(%0) dims=[0] keepdim=false\nout %1\n"),
                          interp);
  EXPECT_FALSE(s.isOk());
}
