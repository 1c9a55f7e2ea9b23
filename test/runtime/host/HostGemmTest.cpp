//===- HostGemmTest.cpp - the host backend's GEMM -----------------------===//
//
// Every GemmDesc variant (transposes, padded leading dimensions, batch
// strides including 0, alpha/beta, 16-bit and f64 operands) against a naive
// triple loop in double, through the Backend interface. Epilogues against
// the host interpreter running the unfused add and relu or gelu kernels:
// equal bit for bit, NaN and -0.0 included.
//
//===----------------------------------------------------------------------===//

#include "HostTestUtil.h"

#include "runtime/src/core/Backend.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

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

namespace {

/// Buffers of one epilogue GEMM on the host backend, in storage format.
struct EpilogueGemm {
  GemmDesc g;
  Buf a, b, bias;
  Buf c, aux; ///< Results; every element starts as kPoison.
};

constexpr uint8_t kPoison = 0xA5;

/// Rows [0, m) of a matrix with leading dimension ld, packed to ld = n.
Buf packRows(const Buf &x, int64_t m, int64_t n, int64_t ld) {
  Buf out;
  out.dtype = x.dtype;
  int64_t size = dtypeSize(x.dtype);
  for (int64_t r = 0; r < m; ++r)
    out.bytes.insert(out.bytes.end(), x.bytes.begin() + r * ld * size,
                     x.bytes.begin() + (r * ld + n) * size);
  return out;
}

/// Random a (m x k), b (k x n) and bias (n) of `dtype` (values in [-3, 3]
/// rounded to the dtype), C and aux m rows of n + pad, poisoned. With
/// `specials` (m >= 2, k >= 2), row 0 of P is NaN (a NaN in a's row 0), row 1
/// is -0.75 * 2^-28 (a's row 1 is 2^-14, 0, 0, ..., b's row 0 is -2^-14),
/// which rounds to -0.0 in f16, and bias[0] is -0.0, so pre holds NaN and,
/// for f16, -0.0 with and without a bias.
EpilogueGemm makeEpilogueGemm(DType dtype, int64_t m, int64_t n, int64_t k,
                              int64_t pad, GemmEpilogue epilogue, uint32_t seed,
                              bool specials = false) {
  EpilogueGemm e;
  GemmDesc &g = e.g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.lda = k;
  g.ldb = n;
  g.ldc = n + pad;
  g.aType = g.bType = g.cType = dtype;
  g.computeType = dtype == DType::F64 ? "f64" : "f32";
  g.alpha = 0.75;
  g.epilogue = epilogue;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-3, 3);
  auto randomValues = [&](int64_t count) {
    std::vector<double> v(count);
    for (double &x : v)
      x = dist(rng);
    return v;
  };
  std::vector<double> a = randomValues(m * k), b = randomValues(k * n),
                      bias = randomValues(n);
  if (specials) {
    a[1] = std::numeric_limits<double>::quiet_NaN();
    for (int64_t p = 0; p < k; ++p)
      a[k + p] = p == 0 ? 0x1p-14 : 0.0;
    for (int64_t j = 0; j < n; ++j)
      b[j] = -0x1p-14;
    bias[0] = -0.0;
  }
  e.a = make(dtype, a);
  e.b = make(dtype, b);
  e.bias = make(dtype, bias);
  e.c.dtype = e.aux.dtype = dtype;
  e.c.bytes.assign(m * g.ldc * dtypeSize(dtype), kPoison);
  e.aux.bytes = e.c.bytes;
  return e;
}

/// Runs `e` on a fresh host backend (bias and aux passed only when the
/// epilogue has them) and reads C and aux back into `e`.
void runEpilogueGemm(EpilogueGemm &e) {
  auto backend = createHostBackend();
  std::vector<DevicePtr> ptrs;
  for (Buf *buf : {&e.a, &e.b, &e.bias, &e.c, &e.aux}) {
    DevicePtr p;
    ASSERT_TRUE(backend->allocate(buf->bytes.size(), p).isOk());
    ASSERT_TRUE(
        backend->copyToDevice(p, buf->bytes.data(), buf->bytes.size()).isOk());
    ptrs.push_back(p);
  }
  GemmOperands ops{ptrs[0], ptrs[1], ptrs[3]};
  if (epilogueHasBias(e.g.epilogue))
    ops.bias = ptrs[2];
  if (epilogueHasAux(e.g.epilogue))
    ops.aux = ptrs[4];
  Status s = backend->gemm(e.g, ops);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_TRUE(
      backend->copyToHost(e.c.bytes.data(), ptrs[3], e.c.bytes.size()).isOk());
  ASSERT_TRUE(
      backend->copyToHost(e.aux.bytes.data(), ptrs[4], e.aux.bytes.size())
          .isOk());
  for (DevicePtr p : ptrs)
    backend->free(p);
}

/// The unfused reference of `e`'s epilogue: the plain GEMM (epilogue none)
/// on the host backend, then, on what each stores, the interpreter's add
/// kernel (P + bias, when the epilogue has a bias) and its relu or
/// gelu(approximate=tanh) kernel (when it has that activation). Returns pre
/// (the activation's input) and C, packed m x n.
void unfusedReference(const EpilogueGemm &e, Buf &pre, Buf &c) {
  EpilogueGemm plain = e;
  plain.g.epilogue = GemmEpilogue::None;
  runEpilogueGemm(plain);
  if (::testing::Test::HasFatalFailure())
    return;
  const GemmDesc &g = e.g;
  std::string dt = dtypeName(g.cType);
  std::string mn = std::to_string(g.m) + "x" + std::to_string(g.n);
  pre = packRows(plain.c, g.m, g.n, g.ldc);
  if (epilogueHasBias(g.epilogue)) {
    std::string add = program("in %0 " + dt + " " + mn + "\nin %1 " + dt + " " +
                              std::to_string(g.n) + "\nop %2 add " + dt + " " +
                              mn + " (%0, %1)\nout %2\n");
    std::vector<Buf> outs = runProgram(add, {pre, e.bias});
    ASSERT_EQ(outs.size(), 1u);
    pre = outs[0];
  }
  std::string op;
  switch (epilogueActivation(g.epilogue)) {
  case GemmActivation::None:
    c = pre;
    return;
  case GemmActivation::Relu:
    op = "relu";
    break;
  case GemmActivation::GeluTanh:
    op = "gelu";
    break;
  case GemmActivation::GeluTanhGrad:
    FAIL() << "not an epilogue of the host backend yet";
  }
  std::string activation = program(
      "in %0 " + dt + " " + mn + "\nop %1 " + op + " " + dt + " " + mn +
      " (%0)" + (op == "gelu" ? " approximate=tanh" : "") + "\nout %1\n");
  std::vector<Buf> outs = runProgram(activation, {pre});
  ASSERT_EQ(outs.size(), 1u);
  c = outs[0];
}

/// True when some element of `x` is NaN, or -0.0.
bool hasNaN(const Buf &x) {
  for (double v : x.values())
    if (std::isnan(v))
      return true;
  return false;
}
bool hasNegativeZero(const Buf &x) {
  for (double v : x.values())
    if (v == 0 && std::signbit(v))
      return true;
  return false;
}

/// Index of the first element where `x` and `y` differ in their bits, or -1.
int64_t firstDifference(const Buf &x, const Buf &y) {
  int64_t size = dtypeSize(x.dtype);
  if (x.bytes.size() != y.bytes.size())
    return 0;
  for (int64_t i = 0; i < x.size(); ++i)
    if (std::memcmp(x.bytes.data() + i * size, y.bytes.data() + i * size,
                    size) != 0)
      return i;
  return -1;
}

/// Every element of the padding columns [n, ldc) of `x` is still kPoison.
bool paddingUntouched(const Buf &x, int64_t m, int64_t n, int64_t ld) {
  int64_t size = dtypeSize(x.dtype);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t byte = n * size; byte < ld * size; ++byte)
      if (x.bytes[r * ld * size + byte] != kPoison)
        return false;
  return true;
}

} // namespace

// Every host epilogue equals, bit for bit, the plain GEMM followed by the
// unfused add kernel (with a bias) and relu or gelu(tanh) kernel on the
// interpreter, for every float dtype (16-bit values rounded to c_type
// between the steps, as the kernels store them), row lengths 1, 3 and 127
// (vector tails) and padded rows; C's and aux's padding is never written.
// pre holds a NaN row and (for f16, where a tiny negative P rounds to it)
// -0.0, with and without a bias: relu must keep the NaN and turn -0.0 into
// +0.0 exactly as tfc.relu does.
TEST(HostGemm, EpilogueBitIdenticalToUnfusedKernels) {
  uint32_t seed = 1;
  for (DType dt : {DType::F32, DType::F16, DType::BF16, DType::F64})
    for (int64_t n : {1, 3, 127})
      for (int64_t pad : {0, 2})
        for (const GemmEpilogueInfo &info : kGemmEpilogues) {
          GemmEpilogue ep = info.epilogue;
          if (ep == GemmEpilogue::None ||
              info.activation == GemmActivation::GeluTanhGrad) // next commit
            continue;
          SCOPED_TRACE(std::string(dtypeName(dt)) + " n=" + std::to_string(n) +
                       " pad=" + std::to_string(pad) + " " + info.name);
          EpilogueGemm e = makeEpilogueGemm(dt, 5, n, 37, pad, ep, seed++,
                                            /*specials=*/true);
          Buf pre, want;
          unfusedReference(e, pre, want);
          runEpilogueGemm(e);
          if (HasFatalFailure())
            return;
          EXPECT_TRUE(hasNaN(pre));
          if (dt == DType::F16) {
            EXPECT_TRUE(hasNegativeZero(pre));
          }
          Buf got = packRows(e.c, e.g.m, n, e.g.ldc);
          int64_t i = firstDifference(got, want);
          EXPECT_EQ(i, -1) << "element " << i << ": " << got.at(i) << " vs "
                           << want.at(i);
          EXPECT_TRUE(paddingUntouched(e.c, e.g.m, n, e.g.ldc));
          if (epilogueHasAux(ep)) {
            EXPECT_EQ(firstDifference(packRows(e.aux, e.g.m, n, e.g.ldc), pre),
                      -1);
            EXPECT_TRUE(paddingUntouched(e.aux, e.g.m, n, e.g.ldc));
          } else {
            // Not passed: the poisoned buffer reads back unchanged.
            EXPECT_TRUE(paddingUntouched(e.aux, e.g.m, 0, e.g.ldc));
          }
        }
}

// gelu_aux_bias writes aux = pre: exactly what the bias epilogue stores in
// C, while its C holds gelu of it; aux's padding stays untouched.
TEST(HostGemm, GeluAuxBiasWritesPre) {
  for (DType dt : {DType::F32, DType::BF16}) {
    SCOPED_TRACE(dtypeName(dt));
    EpilogueGemm withAux =
        makeEpilogueGemm(dt, 4, 24, 16, 3, GemmEpilogue::GeluAuxBias, 99);
    EpilogueGemm biasOnly = withAux;
    biasOnly.g.epilogue = GemmEpilogue::Bias;
    runEpilogueGemm(withAux);
    runEpilogueGemm(biasOnly);
    if (HasFatalFailure())
      return;
    const GemmDesc &g = withAux.g;
    Buf aux = packRows(withAux.aux, g.m, g.n, g.ldc);
    Buf pre = packRows(biasOnly.c, g.m, g.n, g.ldc);
    EXPECT_EQ(firstDifference(aux, pre), -1);
    EXPECT_TRUE(paddingUntouched(withAux.aux, g.m, g.n, g.ldc));
    // C is gelu(pre), not pre (no fixed point of gelu among these values
    // is likely; at least one must differ).
    EXPECT_NE(firstDifference(packRows(withAux.c, g.m, g.n, g.ldc), pre), -1);
  }
}

// Epilogue misuse through the Backend interface: clear errors, nothing run.
TEST(HostGemm, EpilogueRejections) {
  auto backend = createHostBackend();
  DevicePtr p;
  ASSERT_TRUE(backend->allocate(8192, p).isOk());
  // 4x4x4 f32: a at 0, b at 1024, c at 2048, bias at 3072, aux at 4096.
  GemmDesc g;
  g.m = g.n = g.k = 4;
  g.lda = g.ldb = g.ldc = 4;
  g.epilogue = GemmEpilogue::GeluAuxBias;
  const GemmOperands ok{p, p + 1024, p + 2048, p + 3072, p + 4096};
  ASSERT_TRUE(backend->gemm(g, ok).isOk());
  auto rejects = [&](const GemmDesc &d, const GemmOperands &ops,
                     const std::string &needle) {
    Status s = backend->gemm(d, ops);
    EXPECT_FALSE(s.isOk()) << needle;
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
  };
  GemmDesc d = g;
  d.batch = 2;
  d.strideC = 16;
  rejects(d, ok, "needs batch 1");
  d = g;
  d.beta = 1;
  rejects(d, ok, "needs beta 0");
  GemmOperands ops = ok;
  ops.bias = 0;
  rejects(g, ops, "epilogue 'gelu_aux_bias' needs bias operand");
  ops = ok;
  ops.aux = 0;
  rejects(g, ops, "needs aux operand");
  d = g;
  d.epilogue = GemmEpilogue::GeluBias;
  rejects(d, ok, "epilogue 'gelu_bias' takes no aux operand");
  d.epilogue = GemmEpilogue::None;
  ops = ok;
  ops.aux = 0;
  rejects(d, ops, "epilogue 'none' takes no bias operand");
  // Activations without a bias take none; gelu_aux still needs its aux.
  d.epilogue = GemmEpilogue::Relu;
  rejects(d, ops, "epilogue 'relu' takes no bias operand");
  ops.bias = 0;
  ASSERT_TRUE(backend->gemm(d, ops).isOk());
  d.epilogue = GemmEpilogue::GeluAux;
  rejects(d, ops, "epilogue 'gelu_aux' needs aux operand");
  ops.aux = ok.aux;
  ASSERT_TRUE(backend->gemm(d, ops).isOk());
  rejects(d, ok, "epilogue 'gelu_aux' takes no bias operand");
  d.beta = 1;
  rejects(d, ops, "epilogue 'gelu_aux' needs beta 0");
  // Too small: the bias (4 floats) and aux (64 bytes) past the allocation.
  ops = ok;
  ops.bias = p + 8192 - 8;
  rejects(g, ops, "operand bias");
  ops = ok;
  ops.aux = p + 8192 - 32;
  rejects(g, ops, "operand aux");
  // Overlaps: c with the bias; aux with each other operand.
  ops = ok;
  ops.bias = p + 2048 + 32;
  rejects(g, ops, "c overlaps the bias");
  for (DevicePtr at : {p + 16, p + 1024 + 16, p + 2048 + 16, p + 3072 + 8}) {
    ops = ok;
    ops.aux = at;
    rejects(g, ops, "aux overlaps");
  }
  backend->free(p);
}
