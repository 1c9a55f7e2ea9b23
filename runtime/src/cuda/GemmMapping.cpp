//===- GemmMapping.cpp - row-major GEMMs as column-major cuBLASLt calls ---===//

#include "runtime/src/cuda/GemmMapping.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

namespace tfc::rt::cuda {
namespace {

std::string field(const char *name, int64_t value) {
  return std::string(name) + " = " + std::to_string(value);
}

bool isFloatType(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16 ||
         t == DType::F64;
}

} // namespace

std::string cublasLtEpilogueName(GemmEpilogue epilogue) {
  std::string name = "CUBLASLT_EPILOGUE_";
  if (epilogue == GemmEpilogue::None)
    return name + "DEFAULT";
  for (const char *c = gemmEpilogueName(epilogue); *c; ++c)
    name += char(std::toupper(static_cast<unsigned char>(*c)));
  return name;
}

Status validateGemm(const GemmDesc &g) {
  auto fail = [](const std::string &why) {
    return Status::error("cuda gemm: " + why);
  };
  if (g.m <= 0 || g.n <= 0 || g.k <= 0)
    return fail("sizes must be positive (m = " + std::to_string(g.m) +
                ", n = " + std::to_string(g.n) +
                ", k = " + std::to_string(g.k) + ")");
  if (g.batch <= 0)
    return fail(field("batch", g.batch) + " must be positive");
  // cuBLASLt takes 64-bit sizes but its kernels index with 32 bits per
  // dimension; larger matrices are not a tfc use case.
  const int64_t kMaxDim = std::numeric_limits<int32_t>::max();
  if (g.m > kMaxDim || g.n > kMaxDim || g.k > kMaxDim || g.batch > kMaxDim)
    return fail("a size exceeds 2^31 - 1");
  int64_t minLda = g.transposeA ? g.m : g.k;
  int64_t minLdb = g.transposeB ? g.k : g.n;
  if (g.lda < minLda)
    return fail(field("lda", g.lda) + " is smaller than the row length " +
                std::to_string(minLda));
  if (g.ldb < minLdb)
    return fail(field("ldb", g.ldb) + " is smaller than the row length " +
                std::to_string(minLdb));
  if (g.ldc < g.n)
    return fail(field("ldc", g.ldc) +
                " is smaller than n = " + std::to_string(g.n));
  if (g.strideA < 0 || g.strideB < 0 || g.strideC < 0)
    return fail("batch strides must not be negative");
  // Two batch entries of C that overlap would be written concurrently.
  if (g.batch > 1 && g.strideC < (g.m - 1) * g.ldc + g.n)
    return fail(field("stride_c", g.strideC) +
                " makes the C matrices of the batch overlap");
  if (!isFloatType(g.aType) || g.aType != g.bType)
    return fail(std::string("a_type ") + dtypeName(g.aType) + " and b_type " +
                dtypeName(g.bType) +
                " must be equal and one of f32, f16, bf16, f64");
  bool cOk =
      g.cType == g.aType || (g.cType == DType::F32 &&
                             (g.aType == DType::F16 || g.aType == DType::BF16));
  if (!cOk)
    return fail(std::string("c_type ") + dtypeName(g.cType) +
                " is not supported with a_type " + dtypeName(g.aType));
  bool f64 = g.aType == DType::F64, f32 = g.aType == DType::F32;
  if (!(g.computeType == "f32" || (f64 && g.computeType == "f64") ||
        (f32 && g.computeType == "tf32")))
    return fail("compute_type '" + g.computeType + "' is not supported with " +
                dtypeName(g.aType) + " operands (expected f32" +
                (f64 ? " or f64)" : f32 ? " or tf32)" : ")"));
  if (!std::isfinite(g.alpha) || !std::isfinite(g.beta))
    return fail("alpha and beta must be finite");
  if (g.epilogue == GemmEpilogue::None)
    return Status::ok();
  std::string e =
      std::string("epilogue '") + gemmEpilogueName(g.epilogue) + "'";
  // cuBLASLt could stride bias and aux over a batch, but the contract has
  // no batched epilogue, and its bias is added to the product alone.
  if (g.batch != 1)
    return fail(e + " needs batch = 1 (" + field("batch", g.batch) + ")");
  if (g.beta != 0.0)
    return fail(e + " needs beta = 0 (an epilogue never accumulates into C)");
  // cublasLt.h (CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD): the GELU input
  // matrix's leading dimension, written by GELU_AUX* or read by DGELU*, must
  // be divisible by 8 and at least D's row count (n, which ldc >= n gives).
  if (epilogueHasAux(g.epilogue) && g.ldc % 8 != 0)
    return fail(e + ": " + field("ldc", g.ldc) +
                " is not divisible by 8, which cuBLASLt requires of the aux " +
                (epilogueAux(g.epilogue) == EpilogueOperand::Read
                     ? "(GELU input) "
                     : "") +
                "leading dimension (CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD)");
  return Status::ok();
}

Status validateGemmOperands(const GemmDesc &g, const GemmOperands &ops) {
  if (Status s = checkGemmOperands(g, ops); !s)
    return Status::error("cuda gemm: " + s.message());
  for (auto [name, address] :
       {std::pair<const char *, uint64_t>{"bias", ops.bias}, {"aux", ops.aux}})
    if (address && pointerAlignment(address) < kEpilogueOperandAlignment)
      return Status::error(
          std::string("cuda gemm: the ") + name + " address is aligned to " +
          std::to_string(pointerAlignment(address)) + " bytes; cuBLASLt's " +
          "epilogues need " + std::to_string(kEpilogueOperandAlignment));
  return Status::ok();
}

ColumnMajorGemm toColumnMajor(const GemmDesc &g, const GemmOperands &ops) {
  ColumnMajorGemm cm;
  cm.transA = g.transposeB;
  cm.transB = g.transposeA;
  cm.m = g.n;
  cm.n = g.m;
  cm.k = g.k;
  cm.batch = g.batch;
  // Row-major B (k x n, or n x k when transposed) read column-major is its
  // transpose: n x k, or k x n.
  cm.a = {g.bType, g.transposeB ? g.k : g.n, g.transposeB ? g.n : g.k, g.ldb,
          g.strideB};
  cm.b = {g.aType, g.transposeA ? g.m : g.k, g.transposeA ? g.k : g.m, g.lda,
          g.strideA};
  cm.c = {g.cType, g.n, g.m, g.ldc, g.strideC};
  cm.computeF64 = g.aType == DType::F64;
  cm.computeTf32 = g.computeType == "tf32";
  // The row-major bias over C's n columns is the bias over D's m' = n rows;
  // aux has C's layout.
  cm.epilogue = g.epilogue;
  cm.biasType = g.cType;
  cm.auxLd = epilogueHasAux(g.epilogue) ? g.ldc : 0;
  cm.aPtr = ops.b;
  cm.bPtr = ops.a;
  cm.cPtr = ops.c;
  cm.biasPtr = ops.bias;
  cm.auxPtr = ops.aux;
  return cm;
}

std::string heuristicKey(const ColumnMajorGemm &g) {
  std::string key;
  auto add = [&](int64_t v) {
    key += std::to_string(v);
    key += ',';
  };
  add(g.transA);
  add(g.transB);
  add(g.m);
  add(g.n);
  add(g.k);
  add(g.batch);
  for (const ColumnMajorLayout *l : {&g.a, &g.b, &g.c}) {
    add(int64_t(l->type));
    add(l->rows);
    add(l->cols);
    add(l->ld);
    add(l->batchStride);
  }
  add(g.computeF64);
  add(g.computeTf32);
  add(int64_t(g.epilogue));
  add(int64_t(g.biasType));
  add(g.auxLd);
  for (uint64_t address : {g.aPtr, g.bPtr, g.cPtr, g.biasPtr, g.auxPtr})
    add(pointerAlignment(address));
  return key;
}

uint32_t pointerAlignment(uint64_t address) {
  if (address == 0)
    return 256;
  uint64_t lowest = address & (~address + 1);
  return lowest >= 256 ? 256 : uint32_t(lowest);
}

} // namespace tfc::rt::cuda
