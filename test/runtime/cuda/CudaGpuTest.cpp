//===- CudaGpuTest.cpp - the cuda backend on a real GPU (label gpu) -------===//
//
// Memory and copies, NVRTC-compiled kernels launched through the backend
// (and served from the cache the second time), launch errors, and cuBLASLt
// GEMMs in f32/f16/bf16/f64 with transposes, padding and batches against a
// CPU reference, and their epilogues (all nine: bias, relu, relu_bias, gelu,
// gelu_bias, gelu_aux, gelu_aux_bias, dgelu, dgelu_bgrad) against the host
// backend's. Every test skips with a one-line reason when createCudaBackend
// fails (no driver, no device).
//
//===----------------------------------------------------------------------===//

#include "GemmReference.h"
#include "GpuBackendFixture.h"
#include "runtime/src/core/Backend.h"
#include "runtime/src/core/DType.h"

#include <cstdint>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

using namespace tfc::rt;
using namespace tfc::rt::cuda::testing;

namespace {

using CudaGpuTest = GpuBackendTest;

// The device is described as "<name>, sm_XX".
TEST_F(CudaGpuTest, DescribesDevice) {
  EXPECT_EQ(backend_->name(), "cuda");
  EXPECT_NE(backend_->deviceDescription().find(", sm_"), std::string::npos);
  std::printf("device: %s\n", backend_->deviceDescription().c_str());
}

// Host -> device -> device -> host round trip preserves the bytes.
TEST_F(CudaGpuTest, CopiesRoundTrip) {
  std::vector<uint8_t> src(1 << 20), dst(src.size(), 0);
  for (size_t i = 0; i < src.size(); ++i)
    src[i] = uint8_t(i * 7 + 3);
  DevicePtr a = alloc(src.size()), b = alloc(src.size());
  ASSERT_TRUE(backend_->copyToDevice(a, src.data(), src.size()));
  ASSERT_TRUE(backend_->copyOnDevice(b, a, src.size()));
  ASSERT_TRUE(backend_->synchronize());
  ASSERT_TRUE(backend_->copyToHost(dst.data(), b, dst.size()));
  EXPECT_EQ(src, dst);
  DevicePtr empty = 1;
  ASSERT_TRUE(backend_->allocate(0, empty));
  EXPECT_EQ(empty, 0u);
  EXPECT_FALSE(backend_->copyToHost(dst.data(), 0, 4));
}

// A huge allocation fails with a message, not a crash.
TEST_F(CudaGpuTest, OutOfMemoryIsAnError) {
  DevicePtr p = 0;
  Status s = backend_->allocate(size_t(1) << 50, p);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("cuMemAlloc failed"), std::string::npos);
}

KernelDesc axpyKernel() {
  KernelDesc k;
  k.name = "axpy";
  k.kind = "pointwise";
  k.cudaSource = R"(
#include <cuda_fp16.h>
extern "C" __global__ void axpy(const float* __restrict__ in0,
                                const __half* __restrict__ in1,
                                float* __restrict__ out0) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < 1000;
       i += gridDim.x * blockDim.x)
    out0[i] = 3.0f * in0[i] + __half2float(in1[i]);
}
)";
  k.grid = {4, 1, 1};
  k.block = {128, 1, 1};
  return k;
}

// A kernel compiles, launches and computes; preparing it again is a cache
// hit (no new entry), and a second backend (a new process) reuses it too.
TEST_F(CudaGpuTest, LaunchesCachedKernel) {
  KernelDesc k = axpyKernel();
  std::unique_ptr<PreparedKernel> prepared;
  Status s = backend_->prepareKernel(k, prepared);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(cacheEntries(), 1);
  std::unique_ptr<PreparedKernel> again;
  ASSERT_TRUE(backend_->prepareKernel(k, again));
  EXPECT_EQ(cacheEntries(), 1);

  std::vector<float> x(1000), out(1000);
  std::vector<uint16_t> y(1000);
  for (int i = 0; i < 1000; ++i) {
    x[i] = float(i) * 0.25f;
    y[i] = floatToHalf(float(i % 17));
  }
  DevicePtr dx = alloc(4000), dy = alloc(2000), dout = alloc(4000);
  ASSERT_TRUE(backend_->copyToDevice(dx, x.data(), 4000));
  ASSERT_TRUE(backend_->copyToDevice(dy, y.data(), 2000));
  BufferDesc bx, by, bo;
  bx.bytes = 4000;
  by.bytes = 2000;
  bo.bytes = 4000;
  s = backend_->launch(*again, k, {dx, dy, dout}, {&bx, &by, &bo});
  ASSERT_TRUE(s) << s.message();
  ASSERT_TRUE(backend_->synchronize());
  ASSERT_TRUE(backend_->copyToHost(out.data(), dout, 4000));
  for (int i = 0; i < 1000; ++i)
    ASSERT_EQ(out[i], 3.0f * x[i] + float(i % 17)) << i;
}

// Launch errors are reported: mismatched arguments, zero or oversized blocks,
// and a compile error carries NVRTC's log.
TEST_F(CudaGpuTest, LaunchErrors) {
  KernelDesc k = axpyKernel();
  std::unique_ptr<PreparedKernel> prepared;
  ASSERT_TRUE(backend_->prepareKernel(k, prepared));
  DevicePtr d = alloc(4000);
  BufferDesc b;
  b.bytes = 4000;
  // Addresses and descriptors must pair up. (A wrong parameter count is
  // only caught where the driver has cuFuncGetParamInfo, and launching it
  // anyway would be undefined, so it is not exercised here.)
  Status s = backend_->launch(*prepared, k, {d, d, d}, {&b, &b});
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("3 addresses but 2 buffers"), std::string::npos)
      << s.message();
  KernelDesc bad = k;
  bad.block = {2048, 1, 1};
  s = backend_->launch(*prepared, bad, {d, d, d}, {&b, &b, &b});
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("exceeds the device limit"), std::string::npos);
  bad.block = {0, 1, 1};
  EXPECT_FALSE(backend_->launch(*prepared, bad, {d, d, d}, {&b, &b, &b}));
  EXPECT_TRUE(backend_->synchronize());

  KernelDesc broken = k;
  broken.cudaSource = "extern \"C\" __global__ void axpy() { nope(); }";
  s = backend_->prepareKernel(broken, prepared);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("nope"), std::string::npos) << s.message();
  KernelDesc misnamed = k;
  misnamed.name = "not_there";
  s = backend_->prepareKernel(misnamed, prepared);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("no extern \"C\" __global__ function"),
            std::string::npos)
      << s.message();
}

/// Stores doubles as `type` (16-bit types rounded to nearest even).
std::vector<uint8_t> encode(const std::vector<double> &v, DType type) {
  std::vector<uint8_t> out(v.size() * size_t(dtypeSize(type)));
  for (size_t i = 0; i < v.size(); ++i) {
    switch (type) {
    case DType::F32: {
      float f = float(v[i]);
      std::memcpy(&out[i * 4], &f, 4);
      break;
    }
    case DType::F64:
      std::memcpy(&out[i * 8], &v[i], 8);
      break;
    case DType::F16: {
      uint16_t h = floatToHalf(float(v[i]));
      std::memcpy(&out[i * 2], &h, 2);
      break;
    }
    default: {
      uint16_t h = floatToBFloat16(float(v[i]));
      std::memcpy(&out[i * 2], &h, 2);
      break;
    }
    }
  }
  return out;
}

std::vector<double> decode(const std::vector<uint8_t> &bytes, DType type) {
  size_t n = bytes.size() / size_t(dtypeSize(type));
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) {
    switch (type) {
    case DType::F32: {
      float f;
      std::memcpy(&f, &bytes[i * 4], 4);
      out[i] = f;
      break;
    }
    case DType::F64:
      std::memcpy(&out[i], &bytes[i * 8], 8);
      break;
    case DType::F16: {
      uint16_t h;
      std::memcpy(&h, &bytes[i * 2], 2);
      out[i] = halfToFloat(h);
      break;
    }
    default: {
      uint16_t h;
      std::memcpy(&h, &bytes[i * 2], 2);
      out[i] = bfloat16ToFloat(h);
      break;
    }
    }
  }
  return out;
}

struct GemmCase {
  DType ab, c;
  bool ta, tb;
  int64_t m, n, k, batch, pad;
  bool broadcastB;
  double beta;
};

/// Runs `gc` on the GPU and compares with the CPU reference evaluated on
/// the values the GPU actually sees (inputs rounded to their storage type).
void runGemmCase(Backend &backend, std::vector<DevicePtr> &allocs,
                 const GemmCase &gc) {
  GemmDesc g;
  g.transposeA = gc.ta;
  g.transposeB = gc.tb;
  g.m = gc.m;
  g.n = gc.n;
  g.k = gc.k;
  g.batch = gc.batch;
  g.lda = (gc.ta ? gc.m : gc.k) + gc.pad;
  g.ldb = (gc.tb ? gc.k : gc.n) + gc.pad;
  g.ldc = gc.n + gc.pad;
  g.strideA = (gc.ta ? gc.k : gc.m) * g.lda;
  g.strideB = gc.broadcastB ? 0 : (gc.tb ? gc.n : gc.k) * g.ldb;
  g.strideC = gc.m * g.ldc;
  g.aType = g.bType = gc.ab;
  g.cType = gc.c;
  g.alpha = 0.75;
  g.beta = gc.beta;

  std::mt19937 rng(uint32_t(gc.m * 131 + gc.n * 7 + gc.k + int(gc.ab)));
  std::uniform_real_distribution<double> dist(-1, 1);
  auto fill = [&](int64_t n, DType t) {
    std::vector<double> v(static_cast<size_t>(n));
    for (double &x : v)
      x = dist(rng);
    return decode(encode(v, t), t); // the values storage can hold
  };
  std::vector<double> a = fill(spanA(g), gc.ab), b = fill(spanB(g), gc.ab),
                      c = fill(spanC(g), gc.c);
  std::vector<double> expected = c;
  rowMajorGemm(g, a, b, expected);

  std::vector<uint8_t> ea = encode(a, gc.ab), eb = encode(b, gc.ab),
                       ec = encode(c, gc.c);
  DevicePtr da = 0, db = 0, dc = 0;
  ASSERT_TRUE(backend.allocate(ea.size(), da));
  ASSERT_TRUE(backend.allocate(eb.size(), db));
  ASSERT_TRUE(backend.allocate(ec.size(), dc));
  allocs.insert(allocs.end(), {da, db, dc});
  ASSERT_TRUE(backend.copyToDevice(da, ea.data(), ea.size()));
  ASSERT_TRUE(backend.copyToDevice(db, eb.data(), eb.size()));
  ASSERT_TRUE(backend.copyToDevice(dc, ec.data(), ec.size()));
  Status s = backend.gemm(g, {da, db, dc});
  ASSERT_TRUE(s) << s.message();
  ASSERT_TRUE(backend.synchronize());
  ASSERT_TRUE(backend.copyToHost(ec.data(), dc, ec.size()));
  std::vector<double> actual = decode(ec, gc.c);

  // fp32 accumulation of k products; the output rounding of the C type.
  double outEps = gc.c == DType::F64   ? 1e-15
                  : gc.c == DType::F32 ? 1e-6
                  : gc.c == DType::F16 ? 1e-3
                                       : 8e-3;
  double accEps = gc.ab == DType::F64 ? 1e-15 : 1e-6;
  for (int64_t t = 0; t < g.batch; ++t)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        size_t idx = size_t(t * g.strideC + i * g.ldc + j);
        double tol = 2 * outEps * (std::fabs(expected[idx]) + 1) +
                     accEps * double(g.k) * 4;
        ASSERT_NEAR(actual[idx], expected[idx], tol)
            << "batch " << t << " (" << i << ", " << j << ") a_type "
            << dtypeName(gc.ab) << " c_type " << dtypeName(gc.c)
            << " ta=" << gc.ta << " tb=" << gc.tb;
      }
  // Padding between rows is never written.
  for (int64_t t = 0; t < g.batch; ++t)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = g.n;
           j < g.ldc && t * g.strideC + i * g.ldc + j < int64_t(c.size());
           ++j) {
        size_t idx = size_t(t * g.strideC + i * g.ldc + j);
        ASSERT_EQ(actual[idx], c[idx]) << "padding overwritten";
      }
}

// cuBLASLt GEMMs match the row-major reference for every supported type
// combination, all transposes, padded leading dimensions, strided and
// broadcast batches, and beta != 0.
TEST_F(CudaGpuTest, GemmMatchesReference) {
  std::vector<GemmCase> cases;
  for (DType ab : {DType::F32, DType::F16, DType::BF16, DType::F64})
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        DType c = ab;
        cases.push_back({ab, c, ta, tb, 33, 65, 17, 1, 0, false, 0.0});
        cases.push_back({ab, c, ta, tb, 16, 24, 40, 3, 8, false, 0.5});
        cases.push_back({ab, c, ta, tb, 64, 32, 128, 2, 0, true, 0.0});
      }
  cases.push_back(
      {DType::F16, DType::F32, false, true, 128, 64, 256, 1, 0, false, 0.0});
  cases.push_back(
      {DType::BF16, DType::F32, true, false, 48, 80, 96, 4, 0, false, 1.0});
  for (const GemmCase &gc : cases) {
    SCOPED_TRACE(std::string(dtypeName(gc.ab)) + " m=" + std::to_string(gc.m) +
                 " n=" + std::to_string(gc.n) + " k=" + std::to_string(gc.k) +
                 " batch=" + std::to_string(gc.batch));
    runGemmCase(*backend_, allocations_, gc);
    if (HasFatalFailure())
      return;
  }
}

// An invalid GEMM is rejected before reaching cuBLASLt: an aux leading
// dimension cuBLASLt cannot take, a misaligned bias.
TEST_F(CudaGpuTest, GemmRejectsInvalidDescriptor) {
  GemmDesc g;
  g.m = g.n = g.k = 4;
  g.lda = g.ldb = g.ldc = 4;
  g.epilogue = GemmEpilogue::GeluAuxBias;
  DevicePtr d = alloc(4096);
  Status s = backend_->gemm(g, {d, d + 256, d + 512, d + 768, d + 1024});
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("ldc = 4 is not divisible by 8"),
            std::string::npos)
      << s.message();
  g.epilogue = GemmEpilogue::GeluAux; // no bias, same aux rule
  s = backend_->gemm(g, {d, d + 256, d + 512, 0, d + 1024});
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("epilogue 'gelu_aux': ldc = 4 is not divisible"),
            std::string::npos)
      << s.message();
  g.epilogue = GemmEpilogue::DGeluBgrad; // aux read: the same rule
  s = backend_->gemm(g, {d, d + 256, d + 512, d + 768, d + 1024});
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("epilogue 'dgelu_bgrad': ldc = 4 is not "
                             "divisible by 8"),
            std::string::npos)
      << s.message();
  g.epilogue = GemmEpilogue::Bias;
  s = backend_->gemm(g, {d, d + 256, d + 512, d + 768 + 4});
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("bias address is aligned to 4 bytes"),
            std::string::npos)
      << s.message();
}

struct EpilogueCase {
  DType ab, c;
  bool ta, tb;
  int64_t m, n, k, pad;
  GemmEpilogue epilogue;
};

/// C, aux and the bias of `ec` run on `backend`, the buffers filled from
/// the same values on every backend: C starts as `kPad`, aux and the bias as
/// given (`aux` is the GELU input x where the epilogue reads it, `kPad`
/// elsewhere; the bias is `kPad` where it is the gradient).
struct EpilogueResult {
  std::vector<double> c, aux, bias;
};
/// Exact in every c type (bf16 keeps 8 significant bits: 1234 would read
/// back as 1232).
constexpr double kPad = 1152.0;

Status runEpilogueCase(Backend &backend, const GemmDesc &g,
                       const std::vector<double> &a,
                       const std::vector<double> &b,
                       const std::vector<double> &bias,
                       const std::vector<double> &aux, EpilogueResult &out) {
  std::vector<double> pad(size_t(g.m * g.ldc), kPad);
  std::vector<std::vector<uint8_t>> bytes = {
      encode(a, g.aType), encode(b, g.bType), encode(bias, g.cType),
      encode(pad, g.cType), encode(aux, g.cType)};
  std::vector<DevicePtr> ptrs(bytes.size(), 0);
  Status s;
  for (size_t i = 0; s && i < bytes.size(); ++i) {
    s = backend.allocate(bytes[i].size(), ptrs[i]);
    if (s)
      s = backend.copyToDevice(ptrs[i], bytes[i].data(), bytes[i].size());
  }
  GemmOperands ops{ptrs[0], ptrs[1], ptrs[3]};
  if (epilogueHasBias(g.epilogue))
    ops.bias = ptrs[2];
  if (epilogueHasAux(g.epilogue))
    ops.aux = ptrs[4];
  if (s)
    s = backend.gemm(g, ops);
  if (s)
    s = backend.synchronize();
  for (int i : {2, 3, 4})
    if (s)
      s = backend.copyToHost(bytes[i].data(), ptrs[i], bytes[i].size());
  for (DevicePtr p : ptrs)
    if (p)
      backend.free(p);
  out.bias = decode(bytes[2], g.cType);
  out.c = decode(bytes[3], g.cType);
  out.aux = decode(bytes[4], g.cType);
  return s;
}

// cuBLASLt's epilogues, all nine, match the host backend's (the bit-exact
// reference of the unfused add + relu / gelu kernels, or gelu_grad +
// reduce_sum kernels) within the rounding of the c type: the GPU adds the
// bias (and applies the activation or gradient) before rounding P, the host
// after, and the two gelu implementations differ in the last bits. A
// written aux holds the activation's input (P, or P + bias); a read one (x,
// the GELU input of dgelu*) is left as it was; the bias gradient is each
// column's sum over the rows, within the sum of C's tolerances; C's and
// aux's padding stay untouched, and aux is not written without aux.
TEST_F(CudaGpuTest, GemmEpiloguesMatchHostReference) {
  std::vector<EpilogueCase> cases;
  struct Types {
    DType ab, c;
  };
  for (Types t :
       {Types{DType::F32, DType::F32}, Types{DType::F16, DType::F16},
        Types{DType::BF16, DType::BF16}, Types{DType::BF16, DType::F32}})
    for (const GemmEpilogueInfo &info : kGemmEpilogues) {
      if (info.epilogue == GemmEpilogue::None)
        continue;
      cases.push_back({t.ab, t.c, false, true, 33, 64, 40, 0, info.epilogue});
      cases.push_back({t.ab, t.c, true, false, 16, 24, 72, 8, info.epilogue});
    }
  auto host = createHostBackend();
  for (const EpilogueCase &ec : cases) {
    SCOPED_TRACE(std::string(dtypeName(ec.ab)) + "->" + dtypeName(ec.c) + " " +
                 gemmEpilogueName(ec.epilogue) + " m=" + std::to_string(ec.m) +
                 " n=" + std::to_string(ec.n) + " k=" + std::to_string(ec.k));
    GemmDesc g;
    g.transposeA = ec.ta;
    g.transposeB = ec.tb;
    g.m = ec.m;
    g.n = ec.n;
    g.k = ec.k;
    g.lda = ec.ta ? ec.m : ec.k;
    g.ldb = ec.tb ? ec.k : ec.n;
    g.ldc = ec.n + ec.pad;
    g.aType = g.bType = ec.ab;
    g.cType = ec.c;
    g.alpha = 0.75;
    g.epilogue = ec.epilogue;
    std::mt19937 rng(
        uint32_t(ec.m * 31 + ec.n + int(ec.ab) * 7 + int(ec.epilogue)));
    std::uniform_real_distribution<double> dist(-1, 1);
    auto fill = [&](int64_t n, DType t) {
      std::vector<double> v(static_cast<size_t>(n));
      for (double &x : v)
        x = dist(rng);
      return decode(encode(v, t), t);
    };
    std::vector<double> a = fill(spanA(g), ec.ab), b = fill(spanB(g), ec.ab),
                        bias = fill(ec.n, ec.c);
    const EpilogueOperand auxUse = epilogueAux(ec.epilogue);
    const bool biasGrad = epilogueBias(ec.epilogue) == EpilogueOperand::Written;
    if (biasGrad)
      bias.assign(size_t(ec.n), kPad);
    // x, the GELU input a backward epilogue reads: [-3, 3], both tails.
    std::vector<double> aux(size_t(g.m * g.ldc), kPad);
    if (auxUse == EpilogueOperand::Read) {
      std::vector<double> x = fill(g.m * g.ldc, ec.c);
      for (int64_t i = 0; i < g.m; ++i)
        for (int64_t j = 0; j < g.n; ++j)
          aux[i * g.ldc + j] = 3 * x[i * g.ldc + j];
      aux = decode(encode(aux, ec.c), ec.c);
    }
    EpilogueResult want, got;
    Status s = runEpilogueCase(*host, g, a, b, bias, aux, want);
    ASSERT_TRUE(s) << "host: " << s.message();
    s = runEpilogueCase(*backend_, g, a, b, bias, aux, got);
    ASSERT_TRUE(s) << "cuda: " << s.message();
    double outEps = ec.c == DType::F32   ? 1e-6
                    : ec.c == DType::F16 ? 1e-3
                                         : 8e-3;
    // Two roundings of the c type on the host (P, then pre), one on the
    // GPU, plus fp32 accumulation order; for gelu, cuBLASLt's tanh may be
    // the hardware approximation (about 2^-11 relative). In the gradient
    // dy * gelu'(x) that error scales with dy = P (gelu' is up to ~5 times
    // as sensitive to tanh as gelu is, for |x| <= 3), so its tolerance is
    // relative to P, the exact product in double.
    const GemmActivation fn = epilogueActivation(ec.epilogue);
    const bool gelu = fn == GemmActivation::GeluTanh;
    std::vector<double> p(size_t(g.m * g.ldc), 0.0);
    rowMajorGemm(g, a, b, p);
    auto tol = [&](double x, bool gelu) {
      double t = 3 * outEps * (std::fabs(x) + 1) + 1e-6 * double(g.k) * 4;
      return gelu ? std::max(t, 2e-3 * (std::fabs(x) + 1)) : t;
    };
    auto tolC = [&](size_t idx) {
      if (fn != GemmActivation::GeluTanhGrad)
        return tol(want.c[idx], gelu);
      return tol(want.c[idx], false) + 5e-3 * (std::fabs(p[idx]) + 1);
    };
    std::vector<double> biasTol(size_t(g.n), 0.0);
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.ldc; ++j) {
        size_t idx = size_t(i * g.ldc + j);
        if (j >= g.n) {
          ASSERT_EQ(got.c[idx], kPad) << "C padding overwritten";
          ASSERT_EQ(got.aux[idx], aux[idx]) << "aux padding overwritten";
          continue;
        }
        ASSERT_NEAR(got.c[idx], want.c[idx], tolC(idx))
            << "C (" << i << ", " << j << ")";
        biasTol[j] += tolC(idx);
        switch (auxUse) {
        case EpilogueOperand::Written:
          ASSERT_NEAR(got.aux[idx], want.aux[idx], tol(want.aux[idx], false))
              << "aux (" << i << ", " << j << ")";
          break;
        case EpilogueOperand::Read:
          ASSERT_EQ(got.aux[idx], aux[idx]) << "read aux written";
          break;
        case EpilogueOperand::None:
          ASSERT_EQ(got.aux[idx], kPad) << "aux written without aux";
          break;
        }
      }
    for (int64_t j = 0; j < g.n; ++j) {
      if (!biasGrad) {
        ASSERT_EQ(got.bias[j], bias[j]) << "bias written";
        continue;
      }
      // Each C within its tolerance, the sum's own order and rounding.
      ASSERT_NEAR(got.bias[j], want.bias[j],
                  biasTol[j] + 3 * outEps * (std::fabs(want.bias[j]) + 1))
          << "bias gradient " << j;
    }
  }
}

} // namespace
