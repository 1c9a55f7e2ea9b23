//===- GemmMappingTest.cpp - row-major GEMMs as column-major calls --------===//
//
// The transposition identity the cuda backend relies on, checked on the CPU:
// the column-major GEMM produced by toColumnMajor, run on the same buffers
// with A' = B and B' = A, gives exactly the row-major GemmDesc result for
// every transpose combination, padded leading dimensions and batch strides
// (including broadcast); and validateGemm's rules.
//
//===----------------------------------------------------------------------===//

#include "GemmReference.h"

#include <cstdint>
#include <gtest/gtest.h>

#include <random>

using namespace tfc::rt;
using namespace tfc::rt::cuda;
using namespace tfc::rt::cuda::testing;

namespace {

GemmDesc makeGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                  int64_t batch, int64_t pad, bool broadcastB) {
  GemmDesc g;
  g.transposeA = ta;
  g.transposeB = tb;
  g.m = m;
  g.n = n;
  g.k = k;
  g.batch = batch;
  g.lda = (ta ? m : k) + pad;
  g.ldb = (tb ? k : n) + pad;
  g.ldc = n + pad;
  g.strideA = (ta ? k : m) * g.lda + pad;
  g.strideB = broadcastB ? 0 : (tb ? n : k) * g.ldb;
  g.strideC = m * g.ldc + pad;
  return g;
}

std::vector<double> randomVector(int64_t n, std::mt19937 &rng) {
  std::uniform_int_distribution<int> d(-4, 4);
  std::vector<double> v(static_cast<size_t>(n));
  for (double &x : v)
    x = d(rng); // small integers: sums are exact in any order
  return v;
}

// Every transpose combination x padding x batch/broadcast x alpha/beta: the
// column-major form computes the row-major result bit for bit, and touches
// nothing outside the C matrices.
TEST(GemmMapping, ColumnMajorFormEqualsRowMajorDefinition) {
  std::mt19937 rng(1234);
  int cases = 0;
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (int64_t pad : {0, 3})
        for (auto [batch, bcast] :
             {std::pair{1, false}, std::pair{3, false}, std::pair{2, true}})
          for (auto [alpha, beta] :
               {std::pair{1.0, 0.0}, std::pair{0.5, 2.0}}) {
            GemmDesc g = makeGemm(ta, tb, 5, 7, 4, batch, pad, bcast);
            g.alpha = alpha;
            g.beta = beta;
            ASSERT_TRUE(validateGemm(g));
            std::vector<double> a = randomVector(spanA(g), rng);
            std::vector<double> b = randomVector(spanB(g), rng);
            std::vector<double> c0 = randomVector(spanC(g) + pad, rng);
            std::vector<double> expected = c0, actual = c0;
            rowMajorGemm(g, a, b, expected);
            ColumnMajorGemm cm = toColumnMajor(g);
            columnMajorGemm(cm, /*A'=*/b, /*B'=*/a, actual, alpha, beta);
            EXPECT_EQ(actual, expected) << "ta=" << ta << " tb=" << tb
                                        << " pad=" << pad << " batch=" << batch;
            ++cases;
          }
  EXPECT_EQ(cases, 48);
}

// The column-major layouts have the dimensions cuBLASLt expects: op(A') is
// m' x k', op(B') is k' x n', C' is m' x n', and each fits its ld.
TEST(GemmMapping, LayoutsAreConsistent) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      GemmDesc g = makeGemm(ta, tb, 6, 10, 3, 1, 1, false);
      ColumnMajorGemm cm = toColumnMajor(g);
      EXPECT_EQ(cm.m, g.n);
      EXPECT_EQ(cm.n, g.m);
      EXPECT_EQ(cm.transA, tb);
      EXPECT_EQ(cm.transB, ta);
      EXPECT_EQ(cm.transA ? cm.a.cols : cm.a.rows, cm.m);
      EXPECT_EQ(cm.transA ? cm.a.rows : cm.a.cols, cm.k);
      EXPECT_EQ(cm.transB ? cm.b.cols : cm.b.rows, cm.k);
      EXPECT_EQ(cm.transB ? cm.b.rows : cm.b.cols, cm.n);
      EXPECT_EQ(cm.c.rows, cm.m);
      EXPECT_EQ(cm.c.cols, cm.n);
      for (const ColumnMajorLayout *l : {&cm.a, &cm.b, &cm.c})
        EXPECT_LE(l->rows, l->ld);
    }
}

GemmDesc valid() { return makeGemm(false, true, 8, 16, 4, 2, 0, false); }

void expectInvalid(const GemmDesc &g, const std::string &fragment) {
  Status s = validateGemm(g);
  ASSERT_FALSE(s) << "expected an error containing '" << fragment << "'";
  EXPECT_EQ(s.message().rfind("cuda gemm: ", 0), 0u) << s.message();
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
}

// Each rule of validateGemm rejects with a message naming the field.
TEST(GemmMapping, ValidationRules) {
  ASSERT_TRUE(validateGemm(valid()));
  GemmDesc g = valid();
  g.k = 0;
  expectInvalid(g, "sizes must be positive");
  g = valid();
  g.batch = 0;
  expectInvalid(g, "batch = 0");
  g = valid();
  g.lda = 3;
  expectInvalid(g, "lda = 3");
  g = valid();
  g.ldb = 2;
  expectInvalid(g, "ldb = 2");
  g = valid();
  g.ldc = 15;
  expectInvalid(g, "ldc = 15");
  g = valid();
  g.strideA = -1;
  expectInvalid(g, "must not be negative");
  g = valid();
  g.strideC = 0;
  expectInvalid(g, "stride_c = 0");
  g = valid();
  g.m = int64_t(1) << 32;
  g.lda = g.ldc = g.strideC = int64_t(1) << 40;
  expectInvalid(g, "exceeds 2^31 - 1");
  g = valid();
  g.bType = DType::F16;
  expectInvalid(g, "must be equal");
  g = valid();
  g.aType = g.bType = DType::I32;
  expectInvalid(g, "a_type i32");
  g = valid();
  g.cType = DType::F16;
  expectInvalid(g, "c_type f16 is not supported with a_type f32");
  g = valid();
  g.aType = g.bType = DType::F64;
  expectInvalid(g, "c_type f32 is not supported with a_type f64");
  g = valid();
  g.computeType = "f16";
  expectInvalid(g, "compute_type 'f16'");
  g = valid();
  g.computeType = "f64";
  expectInvalid(g, "compute_type 'f64'");
  g = valid();
  g.epilogue = GemmEpilogue::GeluBias;
  expectInvalid(g, "epilogue 'gelu_bias' is not supported");
  g = valid();
  g.alpha = std::numeric_limits<double>::infinity();
  expectInvalid(g, "finite");
}

// The type combinations cuBLASLt runs with fp32 (or f64) compute pass.
TEST(GemmMapping, SupportedTypeCombinations) {
  struct Combo {
    DType ab, c;
    const char *compute;
  };
  for (Combo combo : {Combo{DType::F32, DType::F32, "f32"},
                      Combo{DType::F16, DType::F16, "f32"},
                      Combo{DType::F16, DType::F32, "f32"},
                      Combo{DType::BF16, DType::BF16, "f32"},
                      Combo{DType::BF16, DType::F32, "f32"},
                      Combo{DType::F64, DType::F64, "f32"},
                      Combo{DType::F64, DType::F64, "f64"}}) {
    GemmDesc g = valid();
    g.aType = g.bType = combo.ab;
    g.cType = combo.c;
    g.computeType = combo.compute;
    Status s = validateGemm(g);
    EXPECT_TRUE(s) << s.message();
    EXPECT_EQ(toColumnMajor(g).computeF64, combo.ab == DType::F64);
  }
}

// Heuristic keys separate everything the algorithm choice depends on.
TEST(GemmMapping, HeuristicKeyAndAlignment) {
  ColumnMajorGemm a = toColumnMajor(valid());
  GemmDesc other = valid();
  other.transposeB = false;
  other.ldb = 16;
  EXPECT_NE(heuristicKey(a, 256, 256, 256),
            heuristicKey(toColumnMajor(other), 256, 256, 256));
  EXPECT_NE(heuristicKey(a, 256, 256, 256), heuristicKey(a, 16, 256, 256));
  EXPECT_EQ(heuristicKey(a, 256, 256, 256), heuristicKey(a, 256, 256, 256));
  EXPECT_EQ(pointerAlignment(0x7f0000000000), 256u);
  EXPECT_EQ(pointerAlignment(0x7f0000000010), 16u);
  EXPECT_EQ(pointerAlignment(0x7f0000000102), 2u);
}

} // namespace
