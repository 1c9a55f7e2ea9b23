//===- FakeBackend.cpp - test double for the Backend interface ------------===//

#include "test/runtime/FakeBackend.h"

#include "common/ScalarOps.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace tfc::rt::test {

namespace {
struct FakeKernel : PreparedKernel {
  std::string op; // "add" or "mul"
};

/// libm for common/ScalarOps.h's formulas (the fake needs no speed).
struct StdMath {
  template <typename T> static T exp(T x) { return std::exp(x); }
  template <typename T> static T tanh(T x) { return std::tanh(x); }
  template <typename T> static T erf(T x) { return std::erf(x); }
};
} // namespace

FakeBackend::~FakeBackend() {
  for (auto &[ptr, bytes] : allocations_)
    std::free(reinterpret_cast<void *>(ptr));
}

Status FakeBackend::record(const std::string &line) {
  log.push_back(line);
  if (!failOn.empty() && line.rfind(failOn, 0) == 0)
    return Status::error("injected failure: " + line);
  return Status::ok();
}

bool FakeBackend::inBounds(DevicePtr ptr, size_t bytes) const {
  auto it = allocations_.upper_bound(ptr);
  if (it == allocations_.begin())
    return false;
  --it;
  return ptr >= it->first && ptr + bytes <= it->first + it->second;
}

Status FakeBackend::allocate(size_t bytes, DevicePtr &out) {
  TFC_RETURN_IF_ERROR(record("allocate " + std::to_string(bytes)));
  void *p = std::malloc(bytes ? bytes : 1);
  if (!p)
    return Status::error("out of memory");
  out = reinterpret_cast<DevicePtr>(p);
  allocations_[out] = bytes;
  return Status::ok();
}

void FakeBackend::free(DevicePtr ptr) {
  log.push_back("free");
  allocations_.erase(ptr);
  std::free(reinterpret_cast<void *>(ptr));
}

Status FakeBackend::copyToDevice(DevicePtr dst, const void *src, size_t bytes) {
  TFC_RETURN_IF_ERROR(record("h2d " + std::to_string(bytes)));
  if (!inBounds(dst, bytes))
    return Status::error("h2d out of bounds");
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return Status::ok();
}

Status FakeBackend::copyToHost(void *dst, DevicePtr src, size_t bytes) {
  TFC_RETURN_IF_ERROR(record("d2h " + std::to_string(bytes)));
  if (!inBounds(src, bytes))
    return Status::error("d2h out of bounds");
  std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
  return Status::ok();
}

Status FakeBackend::copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) {
  TFC_RETURN_IF_ERROR(record("copy " + std::to_string(bytes)));
  if (!inBounds(dst, bytes) || !inBounds(src, bytes))
    return Status::error("copy out of bounds");
  std::memmove(reinterpret_cast<void *>(dst),
               reinterpret_cast<const void *>(src), bytes);
  return Status::ok();
}

Status FakeBackend::prepareKernel(const KernelDesc &kernel,
                                  std::unique_ptr<PreparedKernel> &out) {
  TFC_RETURN_IF_ERROR(record("prepare " + kernel.name));
  auto k = std::make_unique<FakeKernel>();
  std::stringstream ss(kernel.hostProgram);
  for (std::string line; std::getline(ss, line);) {
    std::stringstream ls(line);
    std::string head, id, op;
    ls >> head >> id >> op;
    if (head == "op")
      k->op = op;
  }
  if (k->op != "add" && k->op != "mul")
    return Status::error("fake backend runs only add/mul kernels");
  out = std::move(k);
  return Status::ok();
}

Status FakeBackend::launch(PreparedKernel &kernel, const KernelDesc &desc,
                           const std::vector<DevicePtr> &args,
                           const std::vector<const BufferDesc *> &argBuffers) {
  TFC_RETURN_IF_ERROR(record("launch " + desc.name));
  if (args.size() != 3 || argBuffers.size() != 3)
    return Status::error("fake kernels take 2 inputs and 1 output");
  size_t bytes = static_cast<size_t>(argBuffers[2]->bytes);
  for (size_t i = 0; i < 3; ++i)
    if (!inBounds(args[i], bytes) || argBuffers[i]->dtype != DType::F32)
      return Status::error("fake launch: bad operand");
  const float *a = reinterpret_cast<const float *>(args[0]);
  const float *b = reinterpret_cast<const float *>(args[1]);
  float *c = reinterpret_cast<float *>(args[2]);
  bool add = static_cast<FakeKernel &>(kernel).op == "add";
  for (size_t i = 0; i < bytes / 4; ++i)
    c[i] = add ? a[i] + b[i] : a[i] * b[i];
  return Status::ok();
}

Status FakeBackend::gemm(const GemmDesc &g, const GemmOperands &ops) {
  TFC_RETURN_IF_ERROR(
      record(g.epilogue == GemmEpilogue::None
                 ? std::string("gemm")
                 : std::string("gemm ") + gemmEpilogueName(g.epilogue)));
  if (g.aType != DType::F32 || g.bType != DType::F32 || g.cType != DType::F32)
    return Status::error("fake gemm is f32 only");
  if ((ops.bias != 0) != epilogueHasBias(g.epilogue) ||
      (ops.aux != 0) != epilogueHasAux(g.epilogue))
    return Status::error("fake gemm: bias/aux operands do not match the "
                         "epilogue");
  const float *A = reinterpret_cast<const float *>(ops.a);
  const float *B = reinterpret_cast<const float *>(ops.b);
  float *C = reinterpret_cast<float *>(ops.c);
  // Forward: bias read, aux written; backward: aux read, bias written (the
  // column sums of C, in row order).
  const bool biasGrad = epilogueBias(g.epilogue) == EpilogueOperand::Written;
  const bool auxIn = epilogueAux(g.epilogue) == EpilogueOperand::Read;
  const float *bias =
      biasGrad ? nullptr : reinterpret_cast<const float *>(ops.bias);
  float *dbias = biasGrad ? reinterpret_cast<float *>(ops.bias) : nullptr;
  const float *x = auxIn ? reinterpret_cast<const float *>(ops.aux) : nullptr;
  float *aux = auxIn ? nullptr : reinterpret_cast<float *>(ops.aux);
  if (dbias)
    std::fill(dbias, dbias + g.n, 0.0f);
  for (int64_t bt = 0; bt < g.batch; ++bt)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < g.k; ++p) {
          float x = g.transposeA ? A[bt * g.strideA + p * g.lda + i]
                                 : A[bt * g.strideA + i * g.lda + p];
          float y = g.transposeB ? B[bt * g.strideB + j * g.ldb + p]
                                 : B[bt * g.strideB + p * g.ldb + j];
          acc += double(x) * y;
        }
        float &out = C[bt * g.strideC + i * g.ldc + j];
        out = float(g.alpha * acc + (g.beta != 0 ? g.beta * out : 0.0));
        if (bias)
          out += bias[j];
        if (aux)
          aux[i * g.ldc + j] = out;
        switch (epilogueActivation(g.epilogue)) {
        case GemmActivation::None:
          break;
        case GemmActivation::Relu:
          out = (out > 0.0f || std::isnan(out)) ? out : 0.0f;
          break;
        case GemmActivation::GeluTanh:
          out = scalar::geluTanh<StdMath>(out);
          break;
        case GemmActivation::GeluTanhGrad:
          out = scalar::geluTanhGrad<StdMath>(out, x[i * g.ldc + j]);
          break;
        }
        if (dbias)
          dbias[j] += out;
      }
  return Status::ok();
}

Status FakeBackend::synchronize() { return record("sync"); }

} // namespace tfc::rt::test
