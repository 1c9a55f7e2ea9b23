//===- HostRowOpsTest.cpp - row ops and random draws of the interpreter --===//
//
// The host interpreter's row ops (softmax, layer_norm, rms_norm,
// cross_entropy), embedding and its gradient, and the Philox stream behind
// dropout, on small cases computed by hand (HostInterpreterTest.cpp holds
// the elementwise, shape and reduction ops).
//
//===----------------------------------------------------------------------===//

#include "HostTestUtil.h"

#include "common/ScalarOps.h"
#include "runtime/src/host/HostKernels.h"

#include <array>
#include <cmath>
#include <cstdint>

using namespace tfc::rt;
using namespace tfc::rt::host;
using namespace tfc::rt::host::test;

//===----------------------------------------------------------------------===//
// Row ops: softmax, norms, cross-entropy; embedding
//===----------------------------------------------------------------------===//

TEST(HostInterpreter, SoftmaxAndLogSoftmax) {
  Buf x = f32({1, 2, 3, 1000, 1000, 1000});
  double e1 = std::exp(-2.0), e2 = std::exp(-1.0), s = e1 + e2 + 1;
  expectNear(run1("in %0 f32 2x3\nop %1 softmax f32 2x3 (%0) dim=-1\nout %1\n",
                  {x}, "row_reduction"),
             {e1 / s, e2 / s, 1 / s, 1.0 / 3, 1.0 / 3, 1.0 / 3});
  expectNear(run1("in %0 f32 2x3\nop %1 log_softmax f32 2x3 (%0) dim=1\n"
                  "out %1\n",
                  {x}, "row_reduction"),
             {-2 - std::log(s), -1 - std::log(s), -std::log(s), -std::log(3.0),
              -std::log(3.0), -std::log(3.0)});
  // Along dim 0 (a strided row per column).
  double a = 1 / (1 + std::exp(999.0)), b = 1 / (1 + std::exp(998.0)),
         c = 1 / (1 + std::exp(997.0));
  expectNear(run1("in %0 f32 2x3\nop %1 softmax f32 2x3 (%0) dim=0\nout %1\n",
                  {x}, "row_reduction"),
             {a, b, c, 1 - a, 1 - b, 1 - c});
}

TEST(HostInterpreter, LayerNormWithAndWithoutAffine) {
  Buf x = f32({1, 2, 3, 4, -1, -1, 1, 1});
  double rs = 1 / std::sqrt(1.25 + 1e-5), rs2 = 1 / std::sqrt(1.0 + 1e-5);
  auto outs =
      runProgram(program("in %0 f32 2x4\nin %1 f32 4\nin %2 f32 4\n"
                         "op %3 layer_norm f32 2x4 (%0, %1, %2) eps=1e-05 "
                         "normalized_rank=1\n"
                         "op %4 result f32 2x1 (%3) index=1\n"
                         "op %5 result f32 2x1 (%3) index=2\n"
                         "out %3\nout %4\nout %5\n",
                         "row_reduction"),
                 {x, f32({1, 2, 1, 2}), f32({0, 0, 10, 10})});
  ASSERT_EQ(outs.size(), 3u);
  expectNear(outs[0].values(),
             {-1.5 * rs, -0.5 * rs * 2, 0.5 * rs + 10, 1.5 * rs * 2 + 10, -rs2,
              -rs2 * 2, rs2 + 10, rs2 * 2 + 10});
  expectNear(outs[1].values(), {2.5, 0});
  expectNear(outs[2].values(), {rs, rs2});
  // normalized_rank 2 without affine, f64 (statistics in f64).
  auto o2 = runProgram(
      program("in %0 f64 1x2x2\n"
              "op %1 layer_norm f64 1x2x2 (%0, _, _) eps=0.5 "
              "normalized_rank=2\n"
              "op %2 result f64 1x1x1 (%1) index=1\n"
              "op %3 result f64 1x1x1 (%1) index=2\nout %1\nout %3\n",
              "row_reduction"),
      {f64({1, 2, 3, 4})});
  ASSERT_EQ(o2.size(), 2u);
  double r = 1 / std::sqrt(1.75);
  expectNear(o2[0].values(), {-1.5 * r, -0.5 * r, 0.5 * r, 1.5 * r}, 1e-15);
  expectNear(o2[1].values(), {r}, 1e-15);
}

TEST(HostInterpreter, LayerNormBf16InputKeepsF32Statistics) {
  auto outs =
      runProgram(program("in %0 bf16 1x4\nin %1 f32 4\n"
                         "op %2 layer_norm bf16 1x4 (%0, %1, _) eps=1e-05 "
                         "normalized_rank=1\n"
                         "op %3 result f32 1x1 (%2) index=1\n"
                         "op %4 result f32 1x1 (%2) index=2\nout %2\nout %4\n",
                         "row_reduction"),
                 {make(DType::BF16, {1, 2, 3, 4}), f32({1, 1, 1, 1})});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].dtype, DType::BF16);
  double rs = 1 / std::sqrt(1.25 + 1e-5);
  // y is rounded to bf16 once; rstd stays f32.
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(outs[0].at(i),
              bfloat16ToFloat(floatToBFloat16(float((i - 1.5) * rs))));
  EXPECT_NEAR(outs[1].at(0), rs, 1e-6);
}

TEST(HostInterpreter, RmsNorm) {
  auto outs = runProgram(
      program("in %0 f32 1x4\nin %1 f32 4\n"
              "op %2 rms_norm f32 1x4 (%0, %1) eps=1e-06 normalized_rank=1\n"
              "op %3 result f32 1x1 (%2) index=1\nout %2\nout %3\n",
              "row_reduction"),
      {f32({1, 2, 3, 4}), f32({1, 0.5, 2, 1})});
  ASSERT_EQ(outs.size(), 2u);
  double rs = 1 / std::sqrt(7.5 + 1e-6);
  expectNear(outs[0].values(), {rs, rs, 6 * rs, 4 * rs});
  expectNear(outs[1].values(), {rs});
}

TEST(HostInterpreter, CrossEntropy) {
  // Row 0: logits (0, 0, ln 2): lse = ln 4, label 2 -> loss ln 2.
  // Row 1: logits (1, 1, 1): lse = 1 + ln 3, label 0 -> loss ln 3.
  Buf logits = f32({0, 0, std::log(2.0), 1, 1, 1});
  auto ce = [&](const std::string &attrs, const Buf &labels) {
    return run1("in %0 f32 2x3\nin %1 i64 2\n"
                "op %2 cross_entropy f32 scalar (%0, %1) " +
                    attrs + "\nout %2\n",
                {logits, labels}, "row_reduction");
  };
  std::string mean = "ignore_index=-100 label_smoothing=0 reduction=mean";
  expectNear(ce(mean, i64({2, 0})), {(std::log(2.0) + std::log(3.0)) / 2});
  expectNear(
      ce("ignore_index=-100 label_smoothing=0 reduction=sum", i64({2, 0})),
      {std::log(2.0) + std::log(3.0)});
  // Ignored rows drop out of the sum and the count.
  expectNear(ce(mean, i64({2, -100})), {std::log(2.0)});
  expectNear(ce("ignore_index=0 label_smoothing=0 reduction=mean", i64({2, 0})),
             {std::log(2.0)});
  expectNear(ce(mean, i64({-100, -100})), {kNaN});
  // Label smoothing e: -(1-e) lp[y] - e/C sum_c lp[c].
  double e = 0.1;
  double r0 = -(1 - e) * (std::log(2.0) - std::log(4.0)) -
              e / 3 * (2 * -std::log(4.0) + std::log(2.0) - std::log(4.0));
  double r1 = -(1 - e) * -std::log(3.0) - e / 3 * (3 * -std::log(3.0));
  expectNear(
      ce("ignore_index=-100 label_smoothing=0.1 reduction=mean", i64({2, 0})),
      {(r0 + r1) / 2});
  // i32 labels, bf16 logits: the loss is f32.
  auto o = runProgram(
      program("in %0 bf16 2x3\nin %1 i32 2\n"
              "op %2 cross_entropy f32 scalar (%0, %1) " +
                  mean + "\nout %2\n",
              "row_reduction"),
      {make(DType::BF16, {0, 0, 0, 1, 1, 1}), make(DType::I32, {1, 2})});
  ASSERT_EQ(o.size(), 1u);
  EXPECT_NEAR(o[0].at(0), std::log(3.0), 1e-6);
  // A label outside [0, C) is an error, not a read out of bounds.
  Status st;
  runProgram(program("in %0 f32 2x3\nin %1 i64 2\n"
                     "op %2 cross_entropy f32 scalar (%0, %1) " +
                         mean + "\nout %2\n",
                     "row_reduction"),
             {logits, i64({3, 0})}, kDefaultChunkElements, &st);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("label 3 of row 0"), std::string::npos)
      << st.message();
}

TEST(HostInterpreter, Embedding) {
  Buf table = f32({0, 1, 10, 11, 20, 21}); // 3x2
  expectNear(run1("in %0 f32 3x2\nin %1 i64 2x2\n"
                  "op %2 embedding f32 2x2x2 (%0, %1)\nout %2\n",
                  {table, i64({2, 0, 1, 1})}, "gather"),
             {20, 21, 0, 1, 10, 11, 10, 11});
  expectNear(run1("in %0 f32 3x2\nin %1 i32 scalar\n"
                  "op %2 embedding f32 2 (%0, %1)\nout %2\n",
                  {table, make(DType::I32, {1})}, "gather"),
             {10, 11});
  Status st;
  runProgram(program("in %0 f32 3x2\nin %1 i64 2\n"
                     "op %2 embedding f32 2x2 (%0, %1)\nout %2\n",
                     "gather"),
             {table, i64({0, -1})}, kDefaultChunkElements, &st);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("id -1 at position 1"), std::string::npos)
      << st.message();
}

// embedding_grad (a scatter kernel's op): each table row sums the dy rows of
// the positions holding it, in position order from zero, rounded once; ids
// outside [0, V) add nothing; rows no id names are zeros.
TEST(HostInterpreter, EmbeddingGradSumsInPositionOrder) {
  // Rows 0..3 of dy (width 2); ids 2, 0, 2, 5 into a 4-row table.
  Buf dy = f32({1, 2, 10, 20, 100, 200, 1000, 2000});
  expectNear(run1("in %0 f32 2x2x2\nin %1 i64 2x2\n"
                  "op %2 embedding_grad f32 4x2 (%0, %1)\nout %2\n",
                  {dy, i64({2, 0, 2, 5})}, "scatter"),
             {10, 20, 0, 0, 101, 202, 0, 0});
  // Order matters in f32: 1e8 + 1 - 1e8 is 0 in position order (and 1 if
  // the 1 came last); bf16 dy sums in f32 and rounds once (256 + 1 + 1 =
  // 258; rounding each partial sum to bf16 would give 256).
  expectNear(run1("in %0 f32 3x1\nin %1 i32 3\n"
                  "op %2 embedding_grad f32 1x1 (%0, %1)\nout %2\n",
                  {f32({1e8f, 1, -1e8f}), make(DType::I32, {0, 0, 0})},
                  "scatter"),
             {0}, 0);
  Buf b = make(DType::BF16, {256, 1, 1});
  expectNear(run1("in %0 bf16 3x1\nin %1 i64 3\n"
                  "op %2 embedding_grad bf16 2x1 (%0, %1)\nout %2\n",
                  {b, i64({1, 1, 1})}, "scatter"),
             {0, 258}, 0);
}

//===----------------------------------------------------------------------===//
// Dropout and Philox
//===----------------------------------------------------------------------===//

TEST(HostInterpreter, Philox4x32KnownAnswers) {
  // Random123's known-answer vectors for philox4x32_10 (common/ScalarOps.h,
  // which CUDA codegen embeds too).
  auto philox4x32_10 = [](std::array<uint32_t, 4> c,
                          std::array<uint32_t, 2> k) {
    unsigned int v[4] = {c[0], c[1], c[2], c[3]};
    tfc::scalar::philox4x32_10(v, k[0], k[1]);
    return std::array<uint32_t, 4>{v[0], v[1], v[2], v[3]};
  };
  auto r = philox4x32_10({0, 0, 0, 0}, {0, 0});
  EXPECT_EQ(r, (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c,
                                        0x9b00dbd8}));
  r = philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                    {0xffffffff, 0xffffffff});
  EXPECT_EQ(r, (std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6,
                                        0x6d5451fd}));
  r = philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                    {0xa4093822, 0x299f31d0});
  EXPECT_EQ(r, (std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420,
                                        0x24126ea1}));
}

TEST(HostInterpreter, DropoutFollowsThePhiloxRule) {
  const int n = 1000;
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = 1 + i;
  // Exact in a double (the test helper builds i64 tensors from doubles) and
  // using both 32-bit halves of the key.
  int64_t seed = 0x12345678abcdLL, offset = 77;
  std::string prog = "in %0 f32 1000\nin %1 i64 scalar\nin %2 i64 scalar\n"
                     "op %3 dropout f32 1000 (%0, %1, %2) p=0.25\nout %3\n";
  auto y = run1(prog, {f32(x), i64({double(seed)}), i64({double(offset)})});
  ASSERT_EQ(y.size(), size_t(n));
  uint64_t threshold = uint64_t(0.25 * 4294967296.0);
  int kept = 0;
  for (int i = 0; i < n; ++i) {
    uint32_t r =
        tfc::scalar::dropoutDraw(uint64_t(seed), uint64_t(offset), uint64_t(i));
    bool keep = r >= threshold;
    kept += keep;
    EXPECT_EQ(y[i], keep ? double(float(x[i]) * float(1 / 0.75)) : 0.0)
        << "element " << i;
  }
  EXPECT_GT(kept, 700); // ~750 expected
  EXPECT_LT(kept, 800);
  // p = 0 is the identity; another offset gives another mask.
  std::string p0 = prog;
  p0.replace(p0.find("p=0.25"), 6, "p=0");
  EXPECT_EQ(run1(p0, {f32(x), i64({1}), i64({2})}), x);
  auto y2 =
      run1(prog, {f32(x), i64({double(seed)}), i64({double(offset + 1)})});
  EXPECT_NE(y, y2);
  // The counter is offset + i: shifting the offset by one shifts the mask.
  for (int i = 0; i + 1 < n; ++i)
    EXPECT_EQ(y2[i] == 0, y[i + 1] == 0);
}
