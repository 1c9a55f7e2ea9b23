//===- GemmMappingTest.cpp - row-major GEMMs as column-major calls --------===//
//
// The transposition identity the cuda backend relies on, checked on the CPU:
// the column-major GEMM produced by toColumnMajor, run on the same buffers
// with A' = B and B' = A, gives exactly the row-major GemmDesc result for
// every transpose combination, padded leading dimensions and batch strides
// (including broadcast), with the bias epilogue's vector over D's rows;
// validateGemm's and validateGemmOperands' rules; and each epilogue's
// cuBLASLt enumerator (value and name).
//
//===----------------------------------------------------------------------===//

#include "GemmReference.h"

#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>

#include <iterator>
#include <random>
#include <set>
#include <string>

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
  g.aType = g.bType = DType::BF16;
  g.computeType = "tf32";
  expectInvalid(g, "compute_type 'tf32' is not supported with bf16");
  g = valid();
  g.alpha = std::numeric_limits<double>::infinity();
  expectInvalid(g, "finite");
}

// precision=tf32: f32 GEMMs map to TF32 tensor cores, part of the plan key.
TEST(GemmMapping, Tf32ComputeForF32) {
  GemmDesc g = valid();
  ColumnMajorGemm plain = toColumnMajor(g);
  g.computeType = "tf32";
  Status s = validateGemm(g);
  EXPECT_TRUE(s) << s.message();
  ColumnMajorGemm tf32 = toColumnMajor(g);
  EXPECT_TRUE(tf32.computeTf32);
  EXPECT_FALSE(plain.computeTf32);
  EXPECT_NE(heuristicKey(tf32), heuristicKey(plain));
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

/// Addresses with 256-byte alignment for every operand of valid().
GemmOperands aligned(bool bias, bool aux) {
  GemmOperands ops{0x7f0000000000, 0x7f0000100000, 0x7f0000200000};
  if (bias)
    ops.bias = 0x7f0000300000;
  if (aux)
    ops.aux = 0x7f0000400000;
  return ops;
}

// Heuristic keys separate everything the algorithm choice depends on,
// including the epilogue and the alignment of every address (bias and aux
// too: the heuristic reads them).
TEST(GemmMapping, HeuristicKeyAndAlignment) {
  ColumnMajorGemm a = toColumnMajor(valid(), aligned(false, false));
  GemmDesc other = valid();
  other.transposeB = false;
  other.ldb = 16;
  EXPECT_NE(heuristicKey(a),
            heuristicKey(toColumnMajor(other, aligned(false, false))));
  EXPECT_EQ(heuristicKey(a), heuristicKey(toColumnMajor(valid())));
  GemmOperands ops = aligned(false, false);
  ops.b += 16; // A' is the row-major B
  ColumnMajorGemm b16 = toColumnMajor(valid(), ops);
  EXPECT_EQ(pointerAlignment(b16.aPtr), 16u);
  EXPECT_NE(heuristicKey(a), heuristicKey(b16));

  GemmDesc e = valid();
  e.batch = 1;
  std::set<std::string> keys;
  for (const GemmEpilogueInfo &info : kGemmEpilogues) {
    e.epilogue = info.epilogue;
    keys.insert(heuristicKey(
        toColumnMajor(e, aligned(info.bias != EpilogueOperand::None,
                                 info.aux != EpilogueOperand::None))));
  }
  EXPECT_EQ(keys.size(), std::size(kGemmEpilogues));
  e.epilogue = GemmEpilogue::GeluAuxBias;
  ColumnMajorGemm withAux = toColumnMajor(e, aligned(true, true));
  e.epilogue = GemmEpilogue::Bias;
  ColumnMajorGemm bias = toColumnMajor(e, aligned(true, false));
  ColumnMajorGemm biasAt16 = bias;
  biasAt16.biasPtr += 16;
  EXPECT_NE(heuristicKey(bias), heuristicKey(biasAt16));
  ColumnMajorGemm auxAt32 = withAux;
  auxAt32.auxPtr += 32;
  EXPECT_NE(heuristicKey(withAux), heuristicKey(auxAt32));
  EXPECT_EQ(heuristicKey(withAux), heuristicKey(toColumnMajor(
                                       [&] {
                                         GemmDesc d = e;
                                         d.epilogue = GemmEpilogue::GeluAuxBias;
                                         return d;
                                       }(),
                                       aligned(true, true))));

  EXPECT_EQ(pointerAlignment(0x7f0000000000), 256u);
  EXPECT_EQ(pointerAlignment(0x7f0000000010), 16u);
  EXPECT_EQ(pointerAlignment(0x7f0000000102), 2u);
}

/// valid() as one GEMM (batch 1) with `epilogue`.
GemmDesc withEpilogue(GemmEpilogue epilogue) {
  GemmDesc g = makeGemm(false, true, 8, 16, 4, 1, 0, false);
  g.epilogue = epilogue;
  return g;
}

// The epilogues pass with batch 1 and beta 0; anything else, or an aux
// leading dimension cuBLASLt cannot take, is refused naming the rule.
TEST(GemmMapping, EpilogueValidationRules) {
  for (const GemmEpilogueInfo &info : kGemmEpilogues) {
    GemmEpilogue e = info.epilogue;
    if (e == GemmEpilogue::None)
      continue;
    SCOPED_TRACE(info.name);
    Status s = validateGemm(withEpilogue(e));
    EXPECT_TRUE(s) << s.message();
    GemmDesc g = valid(); // batch 2
    g.epilogue = e;
    expectInvalid(g, "needs batch = 1 (batch = 2)");
    g = withEpilogue(e);
    g.beta = 0.5;
    expectInvalid(g, "needs beta = 0");
    for (DType ab : {DType::F16, DType::BF16}) {
      g = withEpilogue(e);
      g.aType = g.bType = g.cType = ab;
      EXPECT_TRUE(validateGemm(g));
      g.cType = DType::F32; // 16-bit inputs, f32 output and bias
      EXPECT_TRUE(validateGemm(g));
    }
  }
  for (const GemmEpilogueInfo &info : kGemmEpilogues) {
    SCOPED_TRACE(info.name);
    GemmDesc g = withEpilogue(info.epilogue);
    g.ldc = 20; // >= n = 16, but cuBLASLt's aux ld must be a multiple of 8
    if (info.aux != EpilogueOperand::None) {
      expectInvalid(g, "epilogue '" + std::string(info.name) +
                           "': ldc = 20 is not divisible by 8");
      expectInvalid(g, "CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD");
      if (info.aux == EpilogueOperand::Read) // the backward ones say which
        expectInvalid(g, "of the aux (GELU input) leading dimension");
      g.ldc = 24;
    }
    // No aux, no constraint.
    Status s = validateGemm(g);
    EXPECT_TRUE(s) << s.message();
  }
}

// Each epilogue is the cuBLASLt epilogue of the same name: the values of
// cublasLt.h's cublasLtEpilogue_t (CUDA 13; CublasLt.cpp static_asserts
// them against the header where it builds the backend).
TEST(GemmMapping, EpilogueCublasLtEnumerators) {
  struct Expected {
    GemmEpilogue epilogue;
    int32_t value;
    const char *name;
  };
  const Expected expected[] = {
      {GemmEpilogue::None, 1, "CUBLASLT_EPILOGUE_DEFAULT"},
      {GemmEpilogue::Bias, 4, "CUBLASLT_EPILOGUE_BIAS"},
      {GemmEpilogue::Relu, 2, "CUBLASLT_EPILOGUE_RELU"},
      {GemmEpilogue::ReluBias, 6, "CUBLASLT_EPILOGUE_RELU_BIAS"},
      {GemmEpilogue::Gelu, 32, "CUBLASLT_EPILOGUE_GELU"},
      {GemmEpilogue::GeluBias, 36, "CUBLASLT_EPILOGUE_GELU_BIAS"},
      {GemmEpilogue::GeluAux, 160, "CUBLASLT_EPILOGUE_GELU_AUX"},
      {GemmEpilogue::GeluAuxBias, 164, "CUBLASLT_EPILOGUE_GELU_AUX_BIAS"},
      {GemmEpilogue::DGelu, 192, "CUBLASLT_EPILOGUE_DGELU"},
      {GemmEpilogue::DGeluBgrad, 208, "CUBLASLT_EPILOGUE_DGELU_BGRAD"}};
  ASSERT_EQ(std::size(expected), std::size(kGemmEpilogues));
  for (const Expected &x : expected) {
    SCOPED_TRACE(gemmEpilogueName(x.epilogue));
    EXPECT_EQ(cublasLtEpilogueValue(x.epilogue), x.value);
    EXPECT_EQ(cublasLtEpilogueName(x.epilogue), x.name);
  }
  // Not mapped: RELU_AUX (2 | 128) and RELU_AUX_BIAS store a bit mask,
  // DRELU (8 | 128) and DRELU_BGRAD read one.
  for (const GemmEpilogueInfo &info : kGemmEpilogues) {
    EXPECT_NE(cublasLtEpilogueValue(info.epilogue) & (2 | 128), 2 | 128)
        << info.name;
    EXPECT_NE(cublasLtEpilogueValue(info.epilogue) & (8 | 128), 8 | 128)
        << info.name;
  }
}

// Operand addresses: present exactly as the epilogue needs, bias and aux
// aligned to 16 bytes.
TEST(GemmMapping, EpilogueOperandRules) {
  auto expectBad = [](const GemmDesc &g, const GemmOperands &ops,
                      const std::string &fragment) {
    Status s = validateGemmOperands(g, ops);
    ASSERT_FALSE(s) << "expected an error containing '" << fragment << "'";
    EXPECT_EQ(s.message().rfind("cuda gemm: ", 0), 0u) << s.message();
    EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
  };
  GemmDesc none = withEpilogue(GemmEpilogue::None);
  GemmDesc bias = withEpilogue(GemmEpilogue::Bias);
  GemmDesc aux = withEpilogue(GemmEpilogue::GeluAuxBias);
  EXPECT_TRUE(validateGemmOperands(none, aligned(false, false)));
  EXPECT_TRUE(validateGemmOperands(bias, aligned(true, false)));
  EXPECT_TRUE(validateGemmOperands(aux, aligned(true, true)));
  GemmOperands ops = aligned(false, false);
  ops.c = 0;
  expectBad(none, ops, "null operand address");
  expectBad(none, aligned(true, false), "epilogue 'none' takes no bias");
  expectBad(bias, aligned(false, false), "epilogue 'bias' needs bias");
  expectBad(bias, aligned(true, true), "epilogue 'bias' takes no aux");
  expectBad(aux, aligned(true, false), "epilogue 'gelu_aux_bias' needs aux");
  // Without a bias: no bias address, and aux still aligned.
  GemmDesc relu = withEpilogue(GemmEpilogue::Relu);
  GemmDesc geluAux = withEpilogue(GemmEpilogue::GeluAux);
  EXPECT_TRUE(validateGemmOperands(relu, aligned(false, false)));
  EXPECT_TRUE(validateGemmOperands(geluAux, aligned(false, true)));
  expectBad(relu, aligned(true, false), "epilogue 'relu' takes no bias");
  expectBad(geluAux, aligned(true, true), "epilogue 'gelu_aux' takes no bias");
  expectBad(geluAux, aligned(false, false), "epilogue 'gelu_aux' needs aux");
  ops = aligned(false, true);
  ops.aux += 8;
  expectBad(geluAux, ops, "the aux address is aligned to 8 bytes");
  expectBad(withEpilogue(GemmEpilogue::ReluBias), aligned(false, false),
            "epilogue 'relu_bias' needs bias");
  ops = aligned(true, true);
  ops.bias += 8;
  expectBad(aux, ops, "the bias address is aligned to 8 bytes");
  ops = aligned(true, true);
  ops.aux += 4;
  expectBad(aux, ops, "the aux address is aligned to 4 bytes");
  ops.aux += 12; // 16 bytes: enough
  EXPECT_TRUE(validateGemmOperands(aux, ops));
  // Backward: dgelu reads aux and takes no bias; dgelu_bgrad writes its
  // bias gradient through the bias address, aligned like a bias.
  GemmDesc dgelu = withEpilogue(GemmEpilogue::DGelu);
  GemmDesc bgrad = withEpilogue(GemmEpilogue::DGeluBgrad);
  EXPECT_TRUE(validateGemmOperands(dgelu, aligned(false, true)));
  EXPECT_TRUE(validateGemmOperands(bgrad, aligned(true, true)));
  expectBad(dgelu, aligned(true, true), "epilogue 'dgelu' takes no bias");
  expectBad(dgelu, aligned(false, false), "epilogue 'dgelu' needs aux");
  expectBad(bgrad, aligned(false, true), "epilogue 'dgelu_bgrad' needs bias");
  expectBad(bgrad, aligned(true, false), "epilogue 'dgelu_bgrad' needs aux");
  ops = aligned(true, true);
  ops.bias += 4;
  expectBad(bgrad, ops, "the bias address is aligned to 4 bytes");
  ops = aligned(false, true);
  ops.aux += 8;
  expectBad(dgelu, ops, "the aux address is aligned to 8 bytes");
}

// The column-major form carries the epilogue: the bias (c's type) runs over
// D's rows and adding it there gives the row-major bias over C's columns,
// bit for bit; aux has C's layout (ld = ldc); the addresses are swapped
// like the operands.
TEST(GemmMapping, EpilogueColumnMajorForm) {
  std::mt19937 rng(99);
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (int64_t pad : {0, 3}) {
        GemmDesc g = makeGemm(ta, tb, 5, 7, 4, 1, pad, false);
        g.epilogue = GemmEpilogue::Bias;
        g.alpha = 0.5;
        ASSERT_TRUE(validateGemm(g));
        std::vector<double> a = randomVector(spanA(g), rng);
        std::vector<double> b = randomVector(spanB(g), rng);
        std::vector<double> bias = randomVector(g.n, rng);
        std::vector<double> c0 = randomVector(spanC(g) + pad, rng);
        std::vector<double> expected = c0, actual = c0;
        rowMajorGemm(g, a, b, expected);
        rowMajorBias(g, bias, expected);
        ColumnMajorGemm cm = toColumnMajor(g);
        EXPECT_EQ(cm.epilogue, GemmEpilogue::Bias);
        columnMajorGemm(cm, /*A'=*/b, /*B'=*/a, actual, g.alpha, g.beta);
        columnMajorBias(cm, bias, actual);
        EXPECT_EQ(actual, expected)
            << "ta=" << ta << " tb=" << tb << " pad=" << pad;
      }

  GemmDesc g = withEpilogue(GemmEpilogue::GeluAuxBias);
  g.aType = g.bType = g.cType = DType::BF16;
  g.ldc = 24;
  GemmOperands ops = aligned(true, true);
  ColumnMajorGemm cm = toColumnMajor(g, ops);
  EXPECT_EQ(cm.epilogue, GemmEpilogue::GeluAuxBias);
  EXPECT_EQ(cm.biasType, DType::BF16);
  EXPECT_EQ(cm.m, g.n); // the bias length: D's rows
  EXPECT_EQ(cm.auxLd, 24);
  EXPECT_EQ(cm.auxLd, cm.c.ld); // aux is laid out like D
  EXPECT_EQ(cm.aPtr, ops.b);
  EXPECT_EQ(cm.bPtr, ops.a);
  EXPECT_EQ(cm.cPtr, ops.c);
  EXPECT_EQ(cm.biasPtr, ops.bias);
  EXPECT_EQ(cm.auxPtr, ops.aux);
  g.epilogue = GemmEpilogue::GeluBias;
  EXPECT_EQ(toColumnMajor(g).auxLd, 0);
  // gelu_aux: aux (ld = ldc) without a bias address.
  g.epilogue = GemmEpilogue::GeluAux;
  ops = aligned(false, true);
  cm = toColumnMajor(g, ops);
  EXPECT_EQ(cm.epilogue, GemmEpilogue::GeluAux);
  EXPECT_EQ(cm.auxLd, 24);
  EXPECT_EQ(cm.biasPtr, 0u);
  EXPECT_EQ(cm.auxPtr, ops.aux);
  g.epilogue = GemmEpilogue::Relu;
  cm = toColumnMajor(g, aligned(false, false));
  EXPECT_EQ(cm.epilogue, GemmEpilogue::Relu);
  EXPECT_EQ(cm.auxLd, 0);
  EXPECT_EQ(cm.biasPtr, 0u);
  // dgelu_bgrad: aux read with ld = ldc, the bias gradient's address and
  // type (c's) as a bias's.
  g.epilogue = GemmEpilogue::DGeluBgrad;
  ops = aligned(true, true);
  cm = toColumnMajor(g, ops);
  EXPECT_EQ(cm.epilogue, GemmEpilogue::DGeluBgrad);
  EXPECT_EQ(cm.auxLd, 24);
  EXPECT_EQ(cm.biasType, DType::BF16);
  EXPECT_EQ(cm.biasPtr, ops.bias);
  EXPECT_EQ(cm.auxPtr, ops.aux);
  g.epilogue = GemmEpilogue::DGelu;
  cm = toColumnMajor(g, aligned(false, true));
  EXPECT_EQ(cm.auxLd, 24);
  EXPECT_EQ(cm.biasPtr, 0u);
}

// DGELU(_BGRAD) in column-major terms is dgelu(_bgrad) in row-major ones,
// bit for bit: D's element (r, s) reads aux(r, s) at s * ldc + r, which is
// the row-major aux[s][r], and cuBLASLt's bias gradient over D's rows (the
// sum over D's columns) is the row-major sum over C's rows for each column
// j, summed in the same order.
TEST(GemmMapping, BackwardEpilogueColumnMajorForm) {
  std::mt19937 rng(7);
  // Any function of (dy, x) shows the layout; this one is GELU's gradient.
  auto grad = [](double dy, double x) {
    const double k = 0.7978845608028654, c = 0.044715;
    double t = std::tanh(k * (x + c * x * x * x));
    return dy *
           (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * c * x * x));
  };
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (int64_t pad : {0, 3}) {
        GemmDesc g = makeGemm(ta, tb, 5, 7, 4, 1, pad, false);
        g.epilogue = GemmEpilogue::DGeluBgrad;
        g.alpha = 0.5;
        std::vector<double> a = randomVector(spanA(g), rng);
        std::vector<double> b = randomVector(spanB(g), rng);
        std::vector<double> aux = randomVector(spanC(g) + pad, rng);
        std::vector<double> c0 = randomVector(spanC(g) + pad, rng);
        std::vector<double> expected = c0, actual = c0, wantBias, gotBias;
        rowMajorGemm(g, a, b, expected);
        rowMajorDGelu(g, aux, grad, expected, &wantBias);
        ColumnMajorGemm cm = toColumnMajor(g);
        ASSERT_EQ(cm.auxLd, g.ldc);
        columnMajorGemm(cm, /*A'=*/b, /*B'=*/a, actual, g.alpha, g.beta);
        columnMajorDGelu(cm, aux, grad, actual, &gotBias);
        EXPECT_EQ(actual, expected)
            << "ta=" << ta << " tb=" << tb << " pad=" << pad;
        ASSERT_EQ(gotBias.size(), size_t(g.n)); // D's rows: C's columns
        EXPECT_EQ(gotBias, wantBias)
            << "ta=" << ta << " tb=" << tb << " pad=" << pad;
      }
}

} // namespace
