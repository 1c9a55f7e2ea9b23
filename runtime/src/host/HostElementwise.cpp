//===- HostElementwise.cpp - pointwise ops, conversions, rounding --------===//
//
// The formulas follow PyTorch's CPU kernels (aten/src/ATen/native/cpu) so the
// host backend is a reference for numerics tests: gelu's erf and tanh forms,
// pow's special exponents, NaN-propagating maximum/minimum, truncating
// float->int conversion. Integer arithmetic wraps (two's complement), as
// PyTorch's does, without C++ signed-overflow undefined behaviour.
//
//===----------------------------------------------------------------------===//

#include "common/ScalarOps.h"
#include "runtime/src/host/HostConvert.h"
#include "runtime/src/host/HostKernels.h"
#include "runtime/src/host/HostMath.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace tfc::rt::host {

std::string opContext(const HostOp &op) {
  return "host program line " + std::to_string(op.line) + ": op '" +
         opName(op.code) + "': ";
}

Status checkClassLabel(const HostOp &op, int64_t label, int64_t row,
                       int64_t classes) {
  if (label >= 0 && label < classes)
    return Status::ok();
  return Status::error(opContext(op) + "label " + std::to_string(label) +
                       " of row " + std::to_string(row) + " is outside [0, " +
                       std::to_string(classes) + ")");
}

std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &from,
                                      const std::vector<int64_t> &to) {
  std::vector<int64_t> src = contiguousStrides(from);
  std::vector<int64_t> out(to.size(), 0);
  size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    out[lead + i] = from[i] == 1 ? 0 : src[i];
  return out;
}

template <typename T>
static void gatherT(const T *src, T *dst, const std::vector<int64_t> &shape,
                    const std::vector<int64_t> &strides, int64_t base,
                    int64_t start, int64_t n) {
  forEachRun(shape, strides, base, start, n,
             [&](int64_t k, int64_t off, int64_t cnt, int64_t st) {
               T *d = dst + k;
               const T *s = src + off;
               if (st == 1) {
                 std::memcpy(d, s, cnt * sizeof(T));
               } else if (st == 0) {
                 std::fill(d, d + cnt, *s);
               } else {
                 for (int64_t j = 0; j < cnt; ++j)
                   d[j] = s[j * st];
               }
             });
}

void gatherStrided(const void *src, void *dst, int64_t elemBytes,
                   const std::vector<int64_t> &shape,
                   const std::vector<int64_t> &strides, int64_t base,
                   int64_t start, int64_t n) {
  if (elemBytes == 4)
    gatherT(static_cast<const float *>(src), static_cast<float *>(dst), shape,
            strides, base, start, n);
  else
    gatherT(static_cast<const int64_t *>(src), static_cast<int64_t *>(dst),
            shape, strides, base, start, n);
}

//===----------------------------------------------------------------------===//
// Storage <-> compute conversions and rounding
//===----------------------------------------------------------------------===//

void loadStorage(DType dtype, const void *src, void *dst, int64_t n) {
  switch (dtype) {
  case DType::F32:
  case DType::F64:
  case DType::I64:
    std::memcpy(dst, src, n * dtypeSize(dtype));
    return;
  case DType::F16: {
    halfToFloatN(static_cast<const uint16_t *>(src), static_cast<float *>(dst),
                 n);
    return;
  }
  case DType::BF16: {
    bfloat16ToFloatN(static_cast<const uint16_t *>(src),
                     static_cast<float *>(dst), n);
    return;
  }
  case DType::I32: {
    auto *s = static_cast<const int32_t *>(src);
    auto *d = static_cast<int64_t *>(dst);
    for (int64_t i = 0; i < n; ++i)
      d[i] = s[i];
    return;
  }
  case DType::I1: {
    auto *s = static_cast<const uint8_t *>(src);
    auto *d = static_cast<int64_t *>(dst);
    for (int64_t i = 0; i < n; ++i)
      d[i] = s[i] != 0;
    return;
  }
  case DType::U8: {
    auto *s = static_cast<const uint8_t *>(src);
    auto *d = static_cast<int64_t *>(dst);
    for (int64_t i = 0; i < n; ++i)
      d[i] = s[i];
    return;
  }
  }
}

void storeStorage(DType dtype, const void *src, void *dst, int64_t n) {
  switch (dtype) {
  case DType::F32:
  case DType::F64:
  case DType::I64:
    if (src != dst)
      std::memmove(dst, src, n * dtypeSize(dtype));
    return;
  case DType::F16: {
    floatToHalfN(static_cast<const float *>(src), static_cast<uint16_t *>(dst),
                 n);
    return;
  }
  case DType::BF16: {
    floatToBFloat16N(static_cast<const float *>(src),
                     static_cast<uint16_t *>(dst), n);
    return;
  }
  case DType::I32: {
    auto *s = static_cast<const int64_t *>(src);
    auto *d = static_cast<int32_t *>(dst);
    for (int64_t i = 0; i < n; ++i)
      d[i] = static_cast<int32_t>(static_cast<uint32_t>(s[i]));
    return;
  }
  case DType::I1: {
    auto *s = static_cast<const int64_t *>(src);
    auto *d = static_cast<uint8_t *>(dst);
    for (int64_t i = 0; i < n; ++i)
      d[i] = s[i] != 0;
    return;
  }
  case DType::U8: {
    auto *s = static_cast<const int64_t *>(src);
    auto *d = static_cast<uint8_t *>(dst);
    for (int64_t i = 0; i < n; ++i)
      d[i] = static_cast<uint8_t>(s[i]);
    return;
  }
  }
}

void roundToDType(DType dtype, void *data, int64_t n) {
  switch (dtype) {
  case DType::F16: {
    roundToHalfN(static_cast<float *>(data), static_cast<float *>(data), n);
    return;
  }
  case DType::BF16: {
    roundToBFloat16N(static_cast<float *>(data), static_cast<float *>(data),
                     n);
    return;
  }
  case DType::I32: {
    auto *d = static_cast<int64_t *>(data);
    for (int64_t i = 0; i < n; ++i)
      d[i] = static_cast<int32_t>(static_cast<uint32_t>(d[i]));
    return;
  }
  case DType::I1: {
    auto *d = static_cast<int64_t *>(data);
    for (int64_t i = 0; i < n; ++i)
      d[i] = d[i] != 0;
    return;
  }
  case DType::U8: {
    auto *d = static_cast<int64_t *>(data);
    for (int64_t i = 0; i < n; ++i)
      d[i] = static_cast<uint8_t>(d[i]);
    return;
  }
  default:
    return;
  }
}

//===----------------------------------------------------------------------===//
// Unary and binary math
//===----------------------------------------------------------------------===//

// add, relu and gelu(tanh) have named entry points: the GEMM epilogue must
// compute exactly what these ops compute (HostKernels.h).
void addValues(const float *a, const float *b, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = a[i] + b[i];
}
void addValues(const double *a, const double *b, double *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = a[i] + b[i];
}
// max(x, 0) with NaN propagating, as torch.relu; -0.0 becomes +0.0.
template <typename T> static void reluT(const T *x, T *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = (x[i] > T(0) || std::isnan(x[i])) ? x[i] : T(0);
}
void reluValues(const float *x, float *y, int64_t n) { reluT(x, y, n); }
void reluValues(const double *x, double *y, int64_t n) { reluT(x, y, n); }
void geluTanhValues(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = scalar::geluTanh<HostMath>(x[i]);
}
void geluTanhValues(const double *x, double *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = scalar::geluTanh<HostMath>(x[i]);
}

namespace {

template <typename T> T wrapNeg(T x) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(0 - static_cast<uint64_t>(x));
  else
    return -x;
}

template <typename T>
void unaryFloat(OpCode code, const HostOp &op, const T *x, T *y, int64_t n) {
  switch (code) {
  case OpCode::Exp:
    for (int64_t i = 0; i < n; ++i)
      y[i] = vexp(x[i]);
    return;
  case OpCode::Log:
    for (int64_t i = 0; i < n; ++i)
      y[i] = std::log(x[i]);
    return;
  case OpCode::Sqrt:
    for (int64_t i = 0; i < n; ++i)
      y[i] = std::sqrt(x[i]);
    return;
  case OpCode::Rsqrt:
    for (int64_t i = 0; i < n; ++i)
      y[i] = T(1) / std::sqrt(x[i]);
    return;
  case OpCode::Cos:
    for (int64_t i = 0; i < n; ++i)
      y[i] = std::cos(x[i]);
    return;
  case OpCode::Sin:
    for (int64_t i = 0; i < n; ++i)
      y[i] = std::sin(x[i]);
    return;
  case OpCode::Tanh:
    for (int64_t i = 0; i < n; ++i)
      y[i] = vtanh(x[i]);
    return;
  case OpCode::Erf:
    // ATen's vectorized erf formula for float (HostMath.h), libm for double.
    for (int64_t i = 0; i < n; ++i)
      y[i] = verf(x[i]);
    return;
  case OpCode::Sigmoid:
    for (int64_t i = 0; i < n; ++i)
      y[i] = T(1) / (T(1) + vexp(-x[i]));
    return;
  case OpCode::Relu:
    reluValues(x, y, n);
    return;
  // Activations: the formulas of common/ScalarOps.h, shared with CUDA
  // codegen.
  case OpCode::Silu:
    for (int64_t i = 0; i < n; ++i)
      y[i] = scalar::silu<HostMath>(x[i]);
    return;
  case OpCode::Gelu:
    if (op.geluTanh) {
      geluTanhValues(x, y, n);
    } else {
      for (int64_t i = 0; i < n; ++i)
        y[i] = scalar::geluErf<HostMath>(x[i]);
    }
    return;
  case OpCode::Pow: {
    // torch.pow(tensor, python_scalar) special-cases these exponents.
    double e = op.fvalue;
    if (e == 2.0) {
      for (int64_t i = 0; i < n; ++i)
        y[i] = x[i] * x[i];
    } else if (e == 3.0) {
      for (int64_t i = 0; i < n; ++i)
        y[i] = x[i] * x[i] * x[i];
    } else if (e == 0.5) {
      for (int64_t i = 0; i < n; ++i)
        y[i] = std::sqrt(x[i]);
    } else if (e == -0.5) {
      for (int64_t i = 0; i < n; ++i)
        y[i] = T(1) / std::sqrt(x[i]);
    } else if (e == -1.0) {
      for (int64_t i = 0; i < n; ++i)
        y[i] = T(1) / x[i];
    } else if (e == -2.0) {
      for (int64_t i = 0; i < n; ++i)
        y[i] = T(1) / (x[i] * x[i]);
    } else if (e == 1.0) {
      std::copy(x, x + n, y);
    } else if (e == 0.0) {
      std::fill(y, y + n, T(1));
    } else {
      T te = T(e);
      for (int64_t i = 0; i < n; ++i)
        y[i] = std::pow(x[i], te);
    }
    return;
  }
  default:
    return;
  }
}

template <typename T>
void unaryAny(OpCode code, const HostOp &op, const T *x, T *y, int64_t n) {
  if (code == OpCode::Neg) {
    for (int64_t i = 0; i < n; ++i)
      y[i] = wrapNeg(x[i]);
  } else if (code == OpCode::Abs) {
    for (int64_t i = 0; i < n; ++i)
      y[i] = x[i] < T(0) ? wrapNeg(x[i]) : (x[i] == T(0) ? T(0) : x[i]);
  } else if constexpr (!std::is_integral_v<T>) {
    unaryFloat(code, op, x, y, n);
  }
}

template <typename T> T maxProp(T a, T b) {
  if constexpr (!std::is_integral_v<T>)
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<T>::quiet_NaN();
  return a > b ? a : b;
}
template <typename T> T minProp(T a, T b) {
  if constexpr (!std::is_integral_v<T>)
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<T>::quiet_NaN();
  return a < b ? a : b;
}

template <typename T>
bool binary(OpCode code, const T *a, const T *b, T *y, int64_t n) {
  using U = std::conditional_t<std::is_integral_v<T>, uint64_t, T>;
  switch (code) {
  case OpCode::Add:
    if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < n; ++i)
        y[i] = T(U(a[i]) + U(b[i]));
    } else {
      addValues(a, b, y, n);
    }
    return true;
  case OpCode::Sub:
    for (int64_t i = 0; i < n; ++i)
      y[i] = T(U(a[i]) - U(b[i]));
    return true;
  case OpCode::Mul:
    for (int64_t i = 0; i < n; ++i)
      y[i] = T(U(a[i]) * U(b[i]));
    return true;
  case OpCode::Div:
    if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < n; ++i) {
        if (b[i] == 0)
          return false;
        // INT64_MIN / -1 overflows: the wrapped result is INT64_MIN.
        y[i] = (b[i] == -1) ? wrapNeg(a[i]) : a[i] / b[i];
      }
    } else {
      for (int64_t i = 0; i < n; ++i)
        y[i] = a[i] / b[i];
    }
    return true;
  case OpCode::Maximum:
    for (int64_t i = 0; i < n; ++i)
      y[i] = maxProp(a[i], b[i]);
    return true;
  case OpCode::Minimum:
    for (int64_t i = 0; i < n; ++i)
      y[i] = minProp(a[i], b[i]);
    return true;
  case OpCode::Atan2: // float only (the verifier checks)
    if constexpr (!std::is_integral_v<T>)
      for (int64_t i = 0; i < n; ++i)
        y[i] = std::atan2(a[i], b[i]);
    return true;
  case OpCode::Fmod: // float only (the verifier checks); exact
    if constexpr (!std::is_integral_v<T>)
      for (int64_t i = 0; i < n; ++i)
        y[i] = std::fmod(a[i], b[i]);
    return true;
  // Integers only (the verifier checks): i32 is held sign-extended and i1
  // as 0 / 1, which the bitwise ops keep.
  case OpCode::BitwiseAnd:
    if constexpr (std::is_integral_v<T>)
      for (int64_t i = 0; i < n; ++i)
        y[i] = a[i] & b[i];
    return true;
  case OpCode::BitwiseOr:
    if constexpr (std::is_integral_v<T>)
      for (int64_t i = 0; i < n; ++i)
        y[i] = a[i] | b[i];
    return true;
  case OpCode::BitwiseXor:
    if constexpr (std::is_integral_v<T>)
      for (int64_t i = 0; i < n; ++i)
        y[i] = a[i] ^ b[i];
    return true;
  default:
    return true;
  }
}

template <typename T>
void compare(CompareDir dir, const T *a, const T *b, int64_t *y, int64_t n) {
  // C++ comparisons are IEEE: ordered, except != which is true for NaN.
  switch (dir) {
  case CompareDir::Eq:
    for (int64_t i = 0; i < n; ++i)
      y[i] = a[i] == b[i];
    return;
  case CompareDir::Ne:
    for (int64_t i = 0; i < n; ++i)
      y[i] = a[i] != b[i];
    return;
  case CompareDir::Lt:
    for (int64_t i = 0; i < n; ++i)
      y[i] = a[i] < b[i];
    return;
  case CompareDir::Le:
    for (int64_t i = 0; i < n; ++i)
      y[i] = a[i] <= b[i];
    return;
  case CompareDir::Gt:
    for (int64_t i = 0; i < n; ++i)
      y[i] = a[i] > b[i];
    return;
  case CompareDir::Ge:
    for (int64_t i = 0; i < n; ++i)
      y[i] = a[i] >= b[i];
    return;
  }
}

/// Float -> integer, truncating toward zero. Out-of-range and NaN give the
/// most negative value, as x86's cvtt* instructions do under PyTorch.
template <typename F, typename I> int64_t truncToInt(F x) {
  constexpr F lo = F(std::numeric_limits<I>::min());
  constexpr F hi = -lo; // 2^31 or 2^63, exactly representable
  if (!(x >= lo && x < hi))
    return std::numeric_limits<I>::min();
  return static_cast<I>(x);
}

template <typename F>
void convertFromFloat(const F *x, DType to, void *out, int64_t n) {
  switch (computeKind(to)) {
  case ComputeKind::Float: {
    auto *y = static_cast<float *>(out);
    for (int64_t i = 0; i < n; ++i)
      y[i] = static_cast<float>(x[i]);
    return;
  }
  case ComputeKind::Double: {
    auto *y = static_cast<double *>(out);
    for (int64_t i = 0; i < n; ++i)
      y[i] = static_cast<double>(x[i]);
    return;
  }
  case ComputeKind::Int: {
    auto *y = static_cast<int64_t *>(out);
    if (to == DType::I1) {
      for (int64_t i = 0; i < n; ++i)
        y[i] = x[i] != F(0);
    } else if (to == DType::I32) {
      for (int64_t i = 0; i < n; ++i)
        y[i] = truncToInt<F, int32_t>(x[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        y[i] = truncToInt<F, int64_t>(x[i]);
    }
    return;
  }
  }
}

void convertFromInt(const int64_t *x, DType to, void *out, int64_t n) {
  switch (computeKind(to)) {
  case ComputeKind::Float: {
    auto *y = static_cast<float *>(out);
    for (int64_t i = 0; i < n; ++i)
      y[i] = static_cast<float>(x[i]);
    return;
  }
  case ComputeKind::Double: {
    auto *y = static_cast<double *>(out);
    for (int64_t i = 0; i < n; ++i)
      y[i] = static_cast<double>(x[i]);
    return;
  }
  case ComputeKind::Int: {
    auto *y = static_cast<int64_t *>(out);
    if (to == DType::I1)
      for (int64_t i = 0; i < n; ++i)
        y[i] = x[i] != 0;
    else
      std::copy(x, x + n, y); // i32 wraps in roundToDType
    return;
  }
  }
}

template <typename T>
void dropout(const HostOp &op, const T *x, T *y, int64_t start, int64_t n,
             int64_t seed, int64_t offset) {
  double p = op.fvalue;
  if (p == 0.0) {
    std::copy(x, x + n, y);
    return;
  }
  uint64_t threshold = scalar::dropoutThreshold(p);
  T scale = T(1.0 / (1.0 - p));
  for (int64_t i = 0; i < n; ++i)
    y[i] = scalar::dropoutKeep(uint64_t(seed), uint64_t(offset),
                               uint64_t(start + i), threshold)
               ? x[i] * scale
               : T(0);
}

/// tfc.random's elements [start, start + n) in compute type: float for f32
/// and the 16-bit types (whose uniforms are exact in them), double for f64.
void random(const HostOp &op, DType dtype, int64_t seed, int64_t offset,
            void *result, int64_t start, int64_t n) {
  uint64_t s = uint64_t(seed), o = uint64_t(offset);
  if (dtype == DType::F64) {
    auto *y = static_cast<double *>(result);
    for (int64_t i = 0; i < n; ++i)
      y[i] = op.randomNormal
                 ? scalar::randomNormal<HostMath, double>(s, o, start + i)
                 : scalar::randomUniformDouble(s, o, start + i);
    return;
  }
  int bits = dtype == DType::F16    ? scalar::kUniformBitsF16
             : dtype == DType::BF16 ? scalar::kUniformBitsBF16
                                    : scalar::kUniformBitsF32;
  auto *y = static_cast<float *>(result);
  for (int64_t i = 0; i < n; ++i)
    y[i] = op.randomNormal
               ? scalar::randomNormal<HostMath, float>(s, o, start + i)
               : scalar::randomUniformFloat(s, o, start + i, bits);
}

template <typename T>
Status pointwiseTyped(const HostOp &op, const std::vector<const void *> &in,
                      void *result, int64_t start, int64_t n) {
  auto arg = [&](size_t i) { return static_cast<const T *>(in[i]); };
  T *y = static_cast<T *>(result);
  switch (op.code) {
  case OpCode::Add:
  case OpCode::Sub:
  case OpCode::Mul:
  case OpCode::Div:
  case OpCode::Maximum:
  case OpCode::Minimum:
  case OpCode::Atan2:
  case OpCode::Fmod:
  case OpCode::BitwiseAnd:
  case OpCode::BitwiseOr:
  case OpCode::BitwiseXor:
    if (!binary(op.code, arg(0), arg(1), y, n))
      return Status::error(opContext(op) + "integer division by zero");
    return Status::ok();
  case OpCode::Select: {
    auto *c = static_cast<const int64_t *>(in[0]);
    auto *a = static_cast<const T *>(in[1]);
    auto *b = static_cast<const T *>(in[2]);
    for (int64_t i = 0; i < n; ++i)
      y[i] = c[i] ? a[i] : b[i];
    return Status::ok();
  }
  case OpCode::GeluGrad:
  case OpCode::SiluGrad:
    if constexpr (!std::is_integral_v<T>)
      activationGrad(op, arg(0), arg(1), y, n);
    return Status::ok();
  case OpCode::Dropout:
    if constexpr (!std::is_integral_v<T>)
      dropout(op, arg(0), y, start, n, *static_cast<const int64_t *>(in[1]),
              *static_cast<const int64_t *>(in[2]));
    return Status::ok();
  default:
    unaryAny(op.code, op, arg(0), y, n);
    return Status::ok();
  }
}

} // namespace

bool isPointwiseOp(OpCode code) {
  if (isUnaryElementwise(code) || isBinaryElementwise(code))
    return true;
  switch (code) {
  case OpCode::Convert:
  case OpCode::Dropout:
  case OpCode::Random:
  case OpCode::GeluGrad:
  case OpCode::SiluGrad:
    return true;
  default:
    return false;
  }
}

Status runPointwiseOp(const HostProgram &prog, const HostOp &op,
                      const std::vector<const void *> &operands, void *result,
                      int64_t start, int64_t n) {
  const ValueType &rt = prog.values[op.results[0]];
  if (op.code == OpCode::Compare || op.code == OpCode::Convert) {
    // These two dispatch on the operand's compute kind, not the result's.
    ComputeKind k = computeKind(prog.values[op.operands[0]].dtype);
    if (op.code == OpCode::Compare) {
      auto *y = static_cast<int64_t *>(result);
      if (k == ComputeKind::Float)
        compare(op.direction, static_cast<const float *>(operands[0]),
                static_cast<const float *>(operands[1]), y, n);
      else if (k == ComputeKind::Double)
        compare(op.direction, static_cast<const double *>(operands[0]),
                static_cast<const double *>(operands[1]), y, n);
      else
        compare(op.direction, static_cast<const int64_t *>(operands[0]),
                static_cast<const int64_t *>(operands[1]), y, n);
      return Status::ok();
    }
    if (k == ComputeKind::Float)
      convertFromFloat(static_cast<const float *>(operands[0]), rt.dtype,
                       result, n);
    else if (k == ComputeKind::Double)
      convertFromFloat(static_cast<const double *>(operands[0]), rt.dtype,
                       result, n);
    else
      convertFromInt(static_cast<const int64_t *>(operands[0]), rt.dtype,
                     result, n);
    roundToDType(rt.dtype, result, n);
    return Status::ok();
  }
  if (op.code == OpCode::BitwiseNot) {
    // Integers only (the verifier checks): every bit flipped, ~x = x ^ -1,
    // on i32 (held sign-extended) and i64; on i1 (held as 0 / 1) its one
    // bit, x ^ 1.
    int64_t ones = rt.dtype == DType::I1 ? 1 : -1;
    auto *x = static_cast<const int64_t *>(operands[0]);
    auto *y = static_cast<int64_t *>(result);
    for (int64_t i = 0; i < n; ++i)
      y[i] = x[i] ^ ones;
    return Status::ok();
  }
  if (op.code == OpCode::ShiftLeft || op.code == OpCode::ShiftRight) {
    // i32 / i64 only (the verifier checks): common/ScalarOps.h's formulas at
    // the dtype's width (i32 is held sign-extended).
    auto *a = static_cast<const int64_t *>(operands[0]);
    auto *b = static_cast<const int64_t *>(operands[1]);
    auto *y = static_cast<int64_t *>(result);
    bool left = op.code == OpCode::ShiftLeft;
    for (int64_t i = 0; i < n; ++i) {
      if (rt.dtype == DType::I32) {
        int32_t x = int32_t(a[i]), k = int32_t(b[i]);
        y[i] = left ? scalar::shiftLeft(x, k) : scalar::shiftRight(x, k);
      } else {
        long long x = a[i], k = b[i];
        y[i] = left ? scalar::shiftLeft(x, k) : scalar::shiftRight(x, k);
      }
    }
    return Status::ok();
  }
  if (op.code == OpCode::Random) {
    random(op, rt.dtype, *static_cast<const int64_t *>(operands[0]),
           *static_cast<const int64_t *>(operands[1]), result, start, n);
    roundToDType(rt.dtype, result, n); // a 16-bit normal, rounded once
    return Status::ok();
  }
  Status s;
  switch (computeKind(rt.dtype)) {
  case ComputeKind::Float:
    s = pointwiseTyped<float>(op, operands, result, start, n);
    break;
  case ComputeKind::Double:
    s = pointwiseTyped<double>(op, operands, result, start, n);
    break;
  case ComputeKind::Int:
    s = pointwiseTyped<int64_t>(op, operands, result, start, n);
    break;
  }
  if (s.isOk())
    roundToDType(rt.dtype, result, n);
  return s;
}

void materializeStatic(const HostProgram &prog, const HostOp &op,
                       void *result) {
  const ValueType &rt = prog.values[op.results[0]];
  ComputeKind k = computeKind(rt.dtype);
  auto fill = [&](auto *y, auto valueAt) {
    for (int64_t i = 0; i < rt.numel; ++i)
      y[i] = valueAt(i);
  };
  if (op.code == OpCode::Constant) {
    auto pick = [&](const auto &v, int64_t i) {
      return v.size() == 1 ? v[0] : v[i];
    };
    if (k == ComputeKind::Float)
      fill(static_cast<float *>(result),
           [&](int64_t i) { return float(pick(op.fconst, i)); });
    else if (k == ComputeKind::Double)
      fill(static_cast<double *>(result),
           [&](int64_t i) { return pick(op.fconst, i); });
    else
      fill(static_cast<int64_t *>(result),
           [&](int64_t i) { return pick(op.iconst, i); });
  } else { // iota: the index along op.dim
    int64_t inner = 1;
    for (size_t d = op.dim + 1; d < rt.shape.size(); ++d)
      inner *= rt.shape[d];
    int64_t size = rt.shape[op.dim];
    auto at = [&](int64_t i) { return (i / inner) % size; };
    if (k == ComputeKind::Float)
      fill(static_cast<float *>(result),
           [&](int64_t i) { return float(at(i)); });
    else if (k == ComputeKind::Double)
      fill(static_cast<double *>(result),
           [&](int64_t i) { return double(at(i)); });
    else
      fill(static_cast<int64_t *>(result), at);
  }
  roundToDType(rt.dtype, result, rt.numel);
}

} // namespace tfc::rt::host
