//===- HostGemmTest.cpp - the host backend's GEMM -----------------------===//
//
// Every GemmDesc variant (transposes, padded leading dimensions, batch
// strides including 0, alpha/beta, 16-bit and f64 operands) against a naive
// triple loop in double, through the Backend interface. Epilogues against
// the host interpreter running the unfused add and relu or gelu kernels, or
// gelu_grad and reduce_sum kernels: equal bit for bit, NaN and -0.0
// included.
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
  d = g;
  d.aType = d.bType = DType::BF16;
  d.computeType = "tf32";
  rejects(d, "compute_type tf32 needs f32 operands", p, p + 1024, p + 2048);
  // tf32 (TF32 tensor cores on a GPU) runs as the f32 GEMM on the host.
  d = g;
  d.computeType = "tf32";
  EXPECT_TRUE(backend->gemm(d, {p, p + 1024, p + 2048}).isOk());
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
  Buf a, b;
  /// Read: the bias values. Written (the bias gradient): starts as kPoison.
  Buf bias;
  Buf c; ///< Result; every element starts as kPoison.
  /// Written: starts as kPoison. Read (the GELU input x of dgelu*): values
  /// in the m x n entries, kPoison in the padding.
  Buf aux;
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
/// for f16, -0.0 with and without a bias. For an epilogue that reads aux
/// (the GELU input x), aux's m x n entries are random in [-6, 6] (both tails
/// of tanh), and P has no NaN row (it would make every column sum NaN and
/// hide the summation order); instead the specials are x[0][0] = 0,
/// x[1][0] = -0.0, x[m-2][n-1] = 12 and, with n >= 3, x[m-1][0] NaN (one
/// NaN column). A written bias (the bias gradient) starts poisoned.
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
  const bool readsAux = epilogueAux(epilogue) == EpilogueOperand::Read;
  if (specials) {
    if (!readsAux)
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
  if (epilogueBias(epilogue) == EpilogueOperand::Written)
    std::fill(e.bias.bytes.begin(), e.bias.bytes.end(), kPoison);
  e.c.dtype = e.aux.dtype = dtype;
  e.c.bytes.assign(m * g.ldc * dtypeSize(dtype), kPoison);
  e.aux.bytes = e.c.bytes;
  if (readsAux) {
    std::uniform_real_distribution<double> wide(-6, 6);
    std::vector<double> x(m * n);
    for (double &v : x)
      v = wide(rng);
    if (specials) {
      x[0] = 0.0;
      x[n] = -0.0;
      x[(m - 2) * n + n - 1] = 12.0;
      if (n >= 3)
        x[(m - 1) * n] = std::numeric_limits<double>::quiet_NaN();
    }
    Buf packed = make(dtype, x);
    int64_t size = dtypeSize(dtype);
    for (int64_t r = 0; r < m; ++r)
      std::copy(packed.bytes.begin() + r * n * size,
                packed.bytes.begin() + (r + 1) * n * size,
                e.aux.bytes.begin() + r * g.ldc * size);
  }
  return e;
}

/// Runs `e` on a fresh host backend (bias and aux passed only when the
/// epilogue has them) and reads C, aux and the bias back into `e`.
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
  ASSERT_TRUE(
      backend->copyToHost(e.bias.bytes.data(), ptrs[2], e.bias.bytes.size())
          .isOk());
  for (DevicePtr p : ptrs)
    backend->free(p);
}

/// The unfused reference of `e`'s epilogue: the plain GEMM (epilogue none)
/// on the host backend, then, on what each stores, the interpreter's add
/// kernel (P + bias, when the epilogue reads a bias) and its relu or
/// gelu(approximate=tanh) kernel (when it has that activation), or its
/// gelu_grad(approximate=tanh) kernel of (dy = P, x = aux) and, when the
/// epilogue writes the bias gradient, its reduce_sum kernel over the rows
/// (dims [0], a column_reduction program; `biasGrad`). Returns pre (the
/// activation's input) and C, packed m x n.
void unfusedReference(const EpilogueGemm &e, Buf &pre, Buf &c,
                      Buf *biasGrad = nullptr) {
  EpilogueGemm plain = e;
  plain.g.epilogue = GemmEpilogue::None;
  runEpilogueGemm(plain);
  if (::testing::Test::HasFatalFailure())
    return;
  const GemmDesc &g = e.g;
  std::string dt = dtypeName(g.cType);
  std::string mn = std::to_string(g.m) + "x" + std::to_string(g.n);
  pre = packRows(plain.c, g.m, g.n, g.ldc);
  if (epilogueActivation(g.epilogue) == GemmActivation::GeluTanhGrad) {
    std::string grad = program("in %0 " + dt + " " + mn + "\nin %1 " + dt +
                               " " + mn + "\nop %2 gelu_grad " + dt + " " + mn +
                               " (%0, %1) approximate=tanh\nout %2\n");
    std::vector<Buf> outs =
        runProgram(grad, {pre, packRows(e.aux, g.m, g.n, g.ldc)});
    ASSERT_EQ(outs.size(), 1u);
    c = outs[0];
    if (epilogueBias(g.epilogue) != EpilogueOperand::Written)
      return;
    std::string n = std::to_string(g.n);
    std::string sum =
        program("in %0 " + dt + " " + mn + "\nop %1 reduce_sum " + dt + " " +
                    n + " (%0) dims=[0] keepdim=false\nout %1\n",
                "column_reduction");
    outs = runProgram(sum, {c});
    ASSERT_EQ(outs.size(), 1u);
    *biasGrad = outs[0];
    return;
  }
  if (epilogueBias(g.epilogue) == EpilogueOperand::Read) {
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
    return; // handled above
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
// unfused kernels on the interpreter, for every float dtype (16-bit values
// rounded to c_type between the steps, as the kernels store them), m = 5,
// row lengths 1, 3 and 127 (vector tails) and padded rows; C's and a
// written aux's padding is never written, a read aux not at all.
// Forward: the add kernel (with a bias) and the relu or gelu(tanh) kernel;
// pre holds a NaN row and (for f16, where a tiny negative P rounds to it)
// -0.0, with and without a bias: relu must keep the NaN and turn -0.0 into
// +0.0 exactly as tfc.relu does. Backward: the gelu_grad(tanh) kernel of
// (P, x) and, for dgelu_bgrad, the reduce_sum kernel over the rows (a
// column reduction, dims [0]; also dims [0, 1] of a 1 x m x n tensor, the
// rank-3 form a batch of sequences has), its bias gradient equal bit for
// bit: same f32 (f64) accumulator, row order and rounding to c_type.
TEST(HostGemm, EpilogueBitIdenticalToUnfusedKernels) {
  uint32_t seed = 1;
  for (DType dt : {DType::F32, DType::F16, DType::BF16, DType::F64})
    for (int64_t n : {1, 3, 127})
      for (int64_t pad : {0, 2})
        for (const GemmEpilogueInfo &info : kGemmEpilogues) {
          GemmEpilogue ep = info.epilogue;
          if (ep == GemmEpilogue::None)
            continue;
          SCOPED_TRACE(std::string(dtypeName(dt)) + " n=" + std::to_string(n) +
                       " pad=" + std::to_string(pad) + " " + info.name);
          EpilogueGemm e = makeEpilogueGemm(dt, 5, n, 37, pad, ep, seed++,
                                            /*specials=*/true);
          const EpilogueGemm before = e;
          Buf pre, want, wantBias;
          unfusedReference(e, pre, want, &wantBias);
          runEpilogueGemm(e);
          if (HasFatalFailure())
            return;
          const bool backward = info.activation == GemmActivation::GeluTanhGrad;
          if (!backward) {
            EXPECT_TRUE(hasNaN(pre));
          } else if (n >= 3) {
            EXPECT_TRUE(hasNaN(want)); // the NaN column of x
          }
          if (dt == DType::F16) {
            EXPECT_TRUE(hasNegativeZero(pre));
          }
          Buf got = packRows(e.c, e.g.m, n, e.g.ldc);
          int64_t i = firstDifference(got, want);
          EXPECT_EQ(i, -1) << "element " << i << ": " << got.at(i) << " vs "
                           << want.at(i);
          EXPECT_TRUE(paddingUntouched(e.c, e.g.m, n, e.g.ldc));
          switch (info.aux) {
          case EpilogueOperand::Written:
            EXPECT_EQ(firstDifference(packRows(e.aux, e.g.m, n, e.g.ldc), pre),
                      -1);
            EXPECT_TRUE(paddingUntouched(e.aux, e.g.m, n, e.g.ldc));
            break;
          case EpilogueOperand::Read:
            EXPECT_EQ(e.aux.bytes, before.aux.bytes); // x, padding included
            break;
          case EpilogueOperand::None:
            // Not passed: the poisoned buffer reads back unchanged.
            EXPECT_TRUE(paddingUntouched(e.aux, e.g.m, 0, e.g.ldc));
            break;
          }
          if (info.bias != EpilogueOperand::Written) {
            EXPECT_EQ(e.bias.bytes, before.bias.bytes);
            continue;
          }
          i = firstDifference(e.bias, wantBias);
          EXPECT_EQ(i, -1) << "bias gradient element " << i << ": "
                           << e.bias.at(i) << " vs " << wantBias.at(i);
          // Finite sums where x has no NaN (a NaN row would hide the order).
          EXPECT_FALSE(std::isnan(e.bias.at(n - 1)));
          std::string dtn = dtypeName(dt), nn = std::to_string(n);
          std::vector<Buf> rank3 =
              runProgram(program("in %0 " + dtn + " 1x5x" + nn +
                                     "\nop %1 reduce_sum " + dtn + " " + nn +
                                     " (%0) dims=[0,1] keepdim=false\nout %1\n",
                                 "column_reduction"),
                         {want});
          ASSERT_EQ(rank3.size(), 1u);
          EXPECT_EQ(firstDifference(rank3[0], wantBias), -1);
        }
}

// dgelu_bgrad's bias gradient is the reduce_sum kernel's for every dtype,
// order and accumulator included, on a column built to show both: with
// x = 12 (gelu'(12) = 1 exactly, so C = P) and P's rows 1, h, h, u, -0.0
// (k = 1, b = 1), where h is half an ulp of 1 in the accumulator (f32, or
// f64 for f64) and u half an ulp of 1 in c_type, the kernel's in-order f32
// sum ((1 + h) + h) + u rounds to 1 in c_type (each step a tie to even),
// while the reversed order or a wider accumulator keeps 2h + u and rounds
// up. The unfused reference equals the in-order value, and the test checks
// that the other orders would indeed differ.
TEST(HostGemm, BiasGradientHasTheReduceKernelsOrderAndAccumulator) {
  struct Case {
    DType dt;
    double h, u;
  };
  for (Case c :
       {Case{DType::F32, 0x1p-24, 0x1p-24}, Case{DType::F16, 0x1p-24, 0x1p-11},
        Case{DType::BF16, 0x1p-24, 0x1p-8},
        Case{DType::F64, 0x1p-53, 0x1p-53}}) {
    SCOPED_TRACE(dtypeName(c.dt));
    const int64_t m = 5, n = 3;
    EpilogueGemm e =
        makeEpilogueGemm(c.dt, m, n, 1, 2, GemmEpilogue::DGeluBgrad, 11);
    e.g.alpha = 1;
    e.a = make(c.dt, {1, c.h, c.h, c.u, -0.0});
    e.b = make(c.dt, std::vector<double>(n, 1.0));
    Buf x = make(c.dt, std::vector<double>(m * e.g.ldc, 12.0));
    e.aux.bytes = x.bytes;
    Buf pre, want, wantBias;
    unfusedReference(e, pre, want, &wantBias);
    runEpilogueGemm(e);
    if (HasFatalFailure())
      return;
    ASSERT_EQ(firstDifference(want, pre), -1) << "gelu'(12) is not 1 here";
    EXPECT_EQ(firstDifference(packRows(e.c, m, n, e.g.ldc), want), -1);
    int64_t i = firstDifference(e.bias, wantBias);
    EXPECT_EQ(i, -1) << "bias gradient element " << i << ": " << e.bias.at(i)
                     << " vs " << wantBias.at(i);
    // The kernel's order gives 1; the others 1 + an ulp of c_type.
    for (int64_t j = 0; j < n; ++j)
      EXPECT_EQ(e.bias.at(j), 1.0) << j;
    double inOrder, reversed, wide = 1 + 2 * c.h + c.u;
    if (c.dt == DType::F64) {
      inOrder = ((1 + c.h) + c.h) + c.u;
      reversed = ((c.u + c.h) + c.h) + 1;
    } else {
      float f = ((1.0f + float(c.h)) + float(c.h)) + float(c.u);
      float r = ((float(c.u) + float(c.h)) + float(c.h)) + 1.0f;
      inOrder = f;
      reversed = r;
    }
    EXPECT_EQ(make(c.dt, {inOrder}).at(0), 1.0);
    EXPECT_GT(make(c.dt, {reversed}).at(0), 1.0);
    EXPECT_GT(make(c.dt, {wide}).at(0), 1.0);
  }
}

// A GEMM of no rows still writes its bias gradient: zeros, as the unfused
// reduce_sum over an empty dim does (the manifest never has m = 0, the
// Backend interface may).
TEST(HostGemm, BiasGradientOfNoRowsIsZero) {
  auto backend = createHostBackend();
  DevicePtr p;
  ASSERT_TRUE(backend->allocate(4096, p).isOk());
  GemmDesc g;
  g.m = 0;
  g.n = g.k = 3;
  g.lda = g.ldb = g.ldc = 8;
  g.epilogue = GemmEpilogue::DGeluBgrad;
  const std::vector<uint8_t> poison(12, kPoison);
  ASSERT_TRUE(backend->copyToDevice(p + 3072, poison.data(), 12).isOk());
  Status s = backend->gemm(g, {p, p + 1024, p + 2048, p + 3072, p + 3584});
  ASSERT_TRUE(s.isOk()) << s.message();
  std::vector<float> dbias(3, 1.0f);
  ASSERT_TRUE(backend->copyToHost(dbias.data(), p + 3072, 12).isOk());
  EXPECT_EQ(dbias, std::vector<float>(3, 0.0f));
  EXPECT_FALSE(std::signbit(dbias[0]));
  backend->free(p);
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

// Epilogue misuse through the Backend interface: clear errors, nothing run;
// what a GEMM only reads may share memory, what it writes may not.
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
  // Backward: dgelu reads aux and takes no bias; dgelu_bgrad also writes
  // the bias gradient.
  d = g;
  d.epilogue = GemmEpilogue::DGelu;
  ops = ok;
  ops.bias = 0;
  ASSERT_TRUE(backend->gemm(d, ops).isOk());
  rejects(d, ok, "epilogue 'dgelu' takes no bias operand");
  ops.aux = 0;
  rejects(d, ops, "epilogue 'dgelu' needs aux operand");
  // A read aux may share a's or b's memory (all three are read), never c's.
  for (DevicePtr at : {p, p + 1024}) {
    ops.aux = at;
    Status s = backend->gemm(d, ops);
    EXPECT_TRUE(s.isOk()) << s.message();
  }
  ops.aux = p + 2048 + 16;
  rejects(d, ops, "aux overlaps another operand");
  d.epilogue = GemmEpilogue::DGeluBgrad;
  ASSERT_TRUE(backend->gemm(d, ok).isOk());
  ops = ok;
  ops.bias = 0;
  rejects(d, ops, "epilogue 'dgelu_bgrad' needs bias operand");
  ops = ok;
  ops.aux = p; // read, like a
  ASSERT_TRUE(backend->gemm(d, ops).isOk());
  // The bias gradient is written: apart from a, b, aux and c.
  for (DevicePtr at : {p + 8, p + 1024 + 8, p + 4096 + 8}) {
    ops = ok;
    ops.bias = at;
    rejects(d, ops, "the bias gradient overlaps another operand");
  }
  ops = ok;
  ops.bias = p + 2048 + 8;
  rejects(d, ops, "c overlaps the bias");
  d.beta = 1;
  rejects(d, ok, "epilogue 'dgelu_bgrad' needs beta 0");
  backend->free(p);
}
