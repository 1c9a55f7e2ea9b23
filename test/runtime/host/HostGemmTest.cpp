//===- HostGemmTest.cpp - the host backend's GEMM -----------------------===//
//
// Every GemmDesc variant (transposes, padded leading dimensions, batch
// strides including 0, alpha/beta, 16-bit and f64 operands) against a naive
// triple loop in double, through the Backend interface.
//
//===----------------------------------------------------------------------===//

#include "HostTestUtil.h"

#include "runtime/src/core/Backend.h"

#include <cmath>
#include <cstdint>

using namespace tfc::rt;
using namespace tfc::rt::host::test;

namespace {

struct Case {
  bool ta = false, tb = false;
  int64_t m = 3, n = 4, k = 5, batch = 1;
  int64_t padA = 0, padB = 0, padC = 0; // extra leading-dimension elements
  bool broadcastA = false, broadcastB = false;
  double alpha = 1, beta = 0;
  DType at = DType::F32, bt = DType::F32, ct = DType::F32;
};

/// Deterministic small values that are exact in bf16 (few significant bits).
double valueAt(int64_t i, int salt) {
  return double(int64_t((i * 7 + salt * 13) % 17) - 8) / 4;
}

void runCase(const Case &c) {
  auto backend = createHostBackend();
  GemmDesc g;
  g.transposeA = c.ta;
  g.transposeB = c.tb;
  g.m = c.m;
  g.n = c.n;
  g.k = c.k;
  g.batch = c.batch;
  int64_t rowsA = c.ta ? c.k : c.m, colsA = c.ta ? c.m : c.k;
  int64_t rowsB = c.tb ? c.n : c.k, colsB = c.tb ? c.k : c.n;
  g.lda = colsA + c.padA;
  g.ldb = colsB + c.padB;
  g.ldc = c.n + c.padC;
  g.strideA = c.broadcastA ? 0 : rowsA * g.lda;
  g.strideB = c.broadcastB ? 0 : rowsB * g.ldb;
  g.strideC = c.m * g.ldc;
  g.aType = c.at;
  g.bType = c.bt;
  g.cType = c.ct;
  g.computeType = c.at == DType::F64 ? "f64" : "f32";
  g.alpha = c.alpha;
  g.beta = c.beta;

  int64_t na = (c.broadcastA ? 1 : c.batch) * rowsA * g.lda;
  int64_t nb = (c.broadcastB ? 1 : c.batch) * rowsB * g.ldb;
  int64_t nc = c.batch * c.m * g.ldc;
  std::vector<double> va(na), vb(nb), vc(nc);
  for (int64_t i = 0; i < na; ++i)
    va[i] = valueAt(i, 1);
  for (int64_t i = 0; i < nb; ++i)
    vb[i] = valueAt(i, 2);
  for (int64_t i = 0; i < nc; ++i)
    vc[i] = valueAt(i, 3);
  Buf A = make(c.at, va), B = make(c.bt, vb), C = make(c.ct, vc);

  DevicePtr da, db, dc;
  ASSERT_TRUE(backend->allocate(A.bytes.size(), da).isOk());
  ASSERT_TRUE(backend->allocate(B.bytes.size(), db).isOk());
  ASSERT_TRUE(backend->allocate(C.bytes.size(), dc).isOk());
  ASSERT_TRUE(backend->copyToDevice(da, A.bytes.data(), A.bytes.size()).isOk());
  ASSERT_TRUE(backend->copyToDevice(db, B.bytes.data(), B.bytes.size()).isOk());
  ASSERT_TRUE(backend->copyToDevice(dc, C.bytes.data(), C.bytes.size()).isOk());
  Status s = backend->gemm(g, {da, db, dc});
  ASSERT_TRUE(s.isOk()) << s.message();
  Buf out = C;
  ASSERT_TRUE(
      backend->copyToHost(out.bytes.data(), dc, out.bytes.size()).isOk());

  // Reference: inputs as stored (16-bit values are exact in both), double
  // accumulation; 16-bit C compared after rounding the reference once.
  const Buf &A16 = A, &B16 = B, &C16 = C;
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < g.ldc; ++j) {
        int64_t ci = b * g.strideC + i * g.ldc + j;
        if (j >= c.n) {
          // Padding between rows of C is never written.
          EXPECT_EQ(out.at(ci), C16.at(ci)) << "padding at " << ci;
          continue;
        }
        double acc = 0;
        for (int64_t l = 0; l < c.k; ++l) {
          int64_t ai = b * g.strideA + (c.ta ? l * g.lda + i : i * g.lda + l);
          int64_t bi = b * g.strideB + (c.tb ? j * g.ldb + l : l * g.ldb + j);
          acc += A16.at(ai) * B16.at(bi);
        }
        double want = c.alpha * acc + c.beta * C16.at(ci);
        if (c.ct == DType::BF16)
          want = bfloat16ToFloat(floatToBFloat16(float(want)));
        else if (c.ct == DType::F16)
          want = halfToFloat(floatToHalf(float(want)));
        double tol = c.ct == DType::F64   ? 1e-12
                     : c.ct == DType::F32 ? 1e-5
                                          : 1e-2;
        EXPECT_NEAR(out.at(ci), want, tol * std::max(1.0, std::abs(want)))
            << "batch " << b << " row " << i << " col " << j;
      }
  backend->free(da);
  backend->free(db);
  backend->free(dc);
}

} // namespace

TEST(HostGemm, PlainF32) { runCase({}); }

TEST(HostGemm, Transposes) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      Case c;
      c.ta = ta;
      c.tb = tb;
      SCOPED_TRACE(std::string("ta=") + (ta ? "1" : "0") +
                   " tb=" + (tb ? "1" : "0"));
      runCase(c);
    }
}

TEST(HostGemm, PaddedLeadingDimensions) {
  Case c;
  c.ta = true;
  c.padA = 3;
  c.padB = 1;
  c.padC = 2;
  runCase(c);
}

TEST(HostGemm, BatchStridesIncludingBroadcast) {
  Case c;
  c.batch = 3;
  runCase(c);
  c.broadcastB = true; // a weight shared by every batch entry
  runCase(c);
  c.broadcastB = false;
  c.broadcastA = true;
  c.tb = true;
  runCase(c);
}

TEST(HostGemm, AlphaBeta) {
  Case c;
  c.alpha = 0.5;
  c.beta = -2;
  c.batch = 2;
  runCase(c);
}

TEST(HostGemm, SixteenBitOperandsAccumulateInF32) {
  Case c;
  c.at = c.bt = DType::BF16;
  c.ct = DType::F32;
  c.tb = true;
  runCase(c);
  c.ct = DType::BF16;
  c.beta = 1;
  c.padC = 1;
  runCase(c);
  c.at = c.bt = c.ct = DType::F16;
  c.batch = 2;
  runCase(c);
}

TEST(HostGemm, F64) {
  Case c;
  c.at = c.bt = c.ct = DType::F64;
  c.ta = true;
  c.batch = 2;
  c.alpha = 0.25;
  runCase(c);
}

TEST(HostGemm, RejectsBadDescriptors) {
  auto backend = createHostBackend();
  DevicePtr p;
  ASSERT_TRUE(backend->allocate(4096, p).isOk());
  GemmDesc g;
  g.m = g.n = g.k = 4;
  g.lda = g.ldb = g.ldc = 4;
  ASSERT_TRUE(backend->gemm(g, {p, p + 1024, p + 2048}).isOk());
  auto rejects = [&](GemmDesc d, const std::string &needle, DevicePtr a,
                     DevicePtr b, DevicePtr c) {
    Status s = backend->gemm(d, {a, b, c});
    EXPECT_FALSE(s.isOk()) << needle;
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
  };
  GemmDesc d = g;
  d.lda = 3;
  rejects(d, "lda", p, p + 1024, p + 2048);
  d = g;
  d.m = -1;
  rejects(d, "m, n, k", p, p + 1024, p + 2048);
  d = g;
  d.batch = 2;
  d.strideC = 0;
  rejects(d, "stride_c 0", p, p + 1024, p + 2048);
  d = g;
  d.aType = DType::F64;
  rejects(d, "unsupported dtypes", p, p + 1024, p + 2048);
  d = g;
  d.aType = DType::I32;
  rejects(d, "unsupported dtypes", p, p + 1024, p + 2048);
  d = g;
  d.computeType = "tf32x";
  rejects(d, "compute_type", p, p + 1024, p + 2048);
  // Operands outside the allocation, or overlapping the output.
  rejects(g, "operand c", p, p + 1024, p + 4096 - 32);
  rejects(g, "operand a", p + 8192, p + 1024, p + 2048);
  rejects(g, "overlaps", p, p + 1024, p + 32);
  d = g;
  d.batch = 1000;
  d.strideA = d.strideB = 0;
  d.strideC = 16;
  rejects(d, "operand c", p, p + 1024, p + 2048);
  backend->free(p);
}
