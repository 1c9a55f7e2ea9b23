//===- HostOptimizerOps.cpp - adamw, adam and sgd on the host -------------===//
//
// The host program rules and the interpreter of the optimizer ops. The
// arithmetic is torch.optim's single-tensor step, operation by operation and
// in the same order as the CUDA kernel (compiler/codegen/cuda/
// MultiTensorKernel.cpp; the Adam formula is shared in HostAdam.h): scalars
// torch forms from Python floats (bias corrections, step size, 1 - lr * wd) are
// formed in double and rounded to the compute type once; `x.add_(y, alpha=a)`
// is fma(y, a, x), as ATen's vectorized CPU kernel computes it. f16/bf16
// parameters compute in float and round once per result.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/host/HostAdam.h"
#include "runtime/src/host/HostKernels.h"
#include "runtime/src/host/HostProgramVerify.h"

#include "common/QuantMap.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tfc::rt::host {

namespace {

bool isFloat(DType d) {
  return d == DType::F32 || d == DType::F64 || d == DType::F16 ||
         d == DType::BF16;
}

std::string typeStr(const ValueType &t) {
  return std::string(dtypeName(t.dtype)) + " " + formatShape(t.shape);
}

/// Reads the optimizer attributes, erasing each key it reads.
struct AttrReader {
  AttrMap &attrs;
  std::string problem;

  bool number(const char *key, double &out) {
    auto it = attrs.find(key);
    if (it == attrs.end())
      return fail(std::string("missing attribute '") + key + "'");
    std::optional<double> v = parseFloatToken(it->second);
    if (!v)
      return fail(std::string("attribute '") + key + "' is not a number: '" +
                  it->second + "'");
    attrs.erase(it);
    out = *v;
    return true;
  }
  bool flag(const char *key, bool &out) {
    auto it = attrs.find(key);
    if (it == attrs.end())
      return fail(std::string("missing attribute '") + key + "'");
    if (it->second != "true" && it->second != "false")
      return fail(std::string("attribute '") + key + "' must be true or " +
                  "false, got '" + it->second + "'");
    out = it->second == "true";
    attrs.erase(it);
    return true;
  }
  /// A hyper-parameter that must be >= 0 and finite (and below `limit` when
  /// given, for the betas).
  bool nonNegative(const char *key, double &out, double limit = INFINITY) {
    if (!number(key, out))
      return false;
    if (!(out >= 0.0) || !std::isfinite(out) || !(out < limit))
      return fail(std::string(key) + " out of range: " + std::to_string(out));
    return true;
  }
  /// An integer that must lie in [lo, hi].
  bool integer(const char *key, int64_t &out, int64_t lo, int64_t hi) {
    auto it = attrs.find(key);
    if (it == attrs.end())
      return fail(std::string("missing attribute '") + key + "'");
    std::optional<int64_t> v = parseIntToken(it->second);
    if (!v || *v < lo || *v > hi)
      return fail(std::string("attribute '") + key +
                  "' must be an integer in [" + std::to_string(lo) + ", " +
                  std::to_string(hi) + "], got '" + it->second + "'");
    attrs.erase(it);
    out = *v;
    return true;
  }
  bool fail(std::string m) {
    if (problem.empty())
      problem = std::move(m);
    return false;
  }
};

} // namespace

std::string verifyOptimizerOp(const HostProgram &prog, HostOp &op,
                              AttrMap &attrs) {
  AttrReader r{attrs, {}};
  // Operand and result counts: common/HostOps.def, checked by the parser.
  bool sgd = op.code == OpCode::Sgd;
  auto in = [&](size_t i) -> const ValueType & {
    return prog.values[op.operands[i]];
  };
  const ValueType &param = in(0);
  if (!isFloat(param.dtype))
    return "param must be a float tensor, got " + typeStr(param);
  if (!isFloat(in(1).dtype) || in(1).shape != param.shape)
    return "grad must be a float tensor of param's shape " +
           formatShape(param.shape) + ", got " + typeStr(in(1));
  // adamw/adam: (param, grad, exp_avg, exp_avg_sq, lr, step);
  // sgd: (param, grad, lr, step, momentum_buffer or _).
  size_t lrIndex = sgd ? 2 : 4;
  const ValueType &lr = in(lrIndex), &step = in(lrIndex + 1);
  if (!isFloat(lr.dtype) || !lr.shape.empty())
    return "lr must be a 0-d float tensor, got " + typeStr(lr);
  if (step.dtype != DType::I64 || !step.shape.empty())
    return "step must be a 0-d i64 tensor, got " + typeStr(step);
  std::vector<size_t> state;
  if (!sgd)
    state = {2, 3};
  else if (op.operands[4] >= 0)
    state = {4};
  for (size_t i : state)
    if (in(i).dtype != param.dtype || in(i).shape != param.shape)
      return "optimizer state (operand " + std::to_string(i) +
             ") must have param's type " + typeStr(param) + ", got " +
             typeStr(in(i));

  HostOp::Optimizer &o = op.optimizer;
  if (sgd) {
    if (!r.nonNegative("momentum", o.momentum) ||
        !r.nonNegative("dampening", o.dampening) ||
        !r.nonNegative("weight_decay", o.weightDecay) ||
        !r.flag("nesterov", o.nesterov) || !r.flag("maximize", o.maximize))
      return r.problem;
    if (o.nesterov && (o.momentum == 0.0 || o.dampening != 0.0))
      return "nesterov needs momentum > 0 and dampening 0";
    if ((op.operands[4] >= 0) != (o.momentum != 0.0))
      return "a momentum buffer is present exactly when momentum != 0";
  } else {
    if (!r.nonNegative("beta1", o.beta1, 1.0) ||
        !r.nonNegative("beta2", o.beta2, 1.0) ||
        !r.nonNegative("eps", op.eps) ||
        !r.nonNegative("weight_decay", o.weightDecay) ||
        !r.flag("maximize", o.maximize))
      return r.problem;
  }
  for (size_t i = 0; i < op.results.size(); ++i) {
    const ValueType &res = prog.values[op.results[i]];
    if (res.dtype != param.dtype || res.shape != param.shape)
      return "result " + std::to_string(i) + " is " + typeStr(res) +
             " but the op computes " + typeStr(param);
  }
  return "";
}

std::string verifyAdamW8bitOp(const HostProgram &prog, HostOp &op,
                              AttrMap &attrs) {
  // (param, grad, exp_avg codes, exp_avg absmax, exp_avg_sq codes,
  //  exp_avg_sq absmax, lr, step) -> (param, codes, absmax, codes, absmax)
  auto in = [&](size_t i) -> const ValueType & {
    return prog.values[op.operands[i]];
  };
  AttrReader r{attrs, {}};
  HostOp::Optimizer &o = op.optimizer;
  if (!r.nonNegative("beta1", o.beta1, 1.0) ||
      !r.nonNegative("beta2", o.beta2, 1.0) || !r.nonNegative("eps", op.eps) ||
      !r.nonNegative("weight_decay", o.weightDecay) ||
      !r.integer("block_size", o.blockSize, 32, 1024))
    return r.problem;
  if ((o.blockSize & (o.blockSize - 1)) != 0)
    return "block_size must be a power of two, got " +
           std::to_string(o.blockSize);
  const ValueType &param = in(0);
  if (param.dtype != DType::F32)
    return "param must be an f32 tensor, got " + typeStr(param);
  if (!isFloat(in(1).dtype) || in(1).shape != param.shape)
    return "grad must be a float tensor of param's shape " +
           formatShape(param.shape) + ", got " + typeStr(in(1));
  ValueType codes{DType::U8, param.shape, param.numel};
  ValueType absmax{DType::F32,
                   {quant::numBlocks(param.numel, o.blockSize)},
                   quant::numBlocks(param.numel, o.blockSize)};
  auto same = [](const ValueType &a, const ValueType &b) {
    return a.dtype == b.dtype && a.shape == b.shape;
  };
  for (size_t i : {2, 4})
    if (!same(in(i), codes))
      return "operand " + std::to_string(i) + " (codes) must be " +
             typeStr(codes) + ", got " + typeStr(in(i));
  for (size_t i : {3, 5})
    if (!same(in(i), absmax))
      return "operand " + std::to_string(i) + " (absmax) must be " +
             typeStr(absmax) + ", got " + typeStr(in(i));
  if (!isFloat(in(6).dtype) || !in(6).shape.empty())
    return "lr must be a 0-d float tensor, got " + typeStr(in(6));
  if (in(7).dtype != DType::I64 || !in(7).shape.empty())
    return "step must be a 0-d i64 tensor, got " + typeStr(in(7));
  const ValueType *want[] = {&param, &codes, &absmax, &codes, &absmax};
  for (size_t i = 0; i < 5; ++i)
    if (!same(prog.values[op.results[i]], *want[i]))
      return "result " + std::to_string(i) + " is " +
             typeStr(prog.values[op.results[i]]) + " but the op computes " +
             typeStr(*want[i]);
  return "";
}

namespace {

/// Element `i` of a whole compute buffer of dtype `d` (float or double) as T.
template <typename T> T read(const void *data, DType d, int64_t i) {
  return computeKind(d) == ComputeKind::Double
             ? T(static_cast<const double *>(data)[i])
             : T(static_cast<const float *>(data)[i]);
}

/// adamw (decoupled) and adam; T is the parameter's compute type.
template <typename T>
void runAdam(const HostProgram &prog, const HostOp &op,
             const std::vector<const void *> &in,
             const std::vector<void *> &out) {
  const HostOp::Optimizer &o = op.optimizer;
  DType gradType = prog.values[op.operands[1]].dtype;
  double lr = read<double>(in[4], prog.values[op.operands[4]].dtype, 0);
  double t = double(static_cast<const int64_t *>(in[5])[0]);
  const AdamStep<T> adam(op.code == OpCode::AdamW, o.beta1, o.beta2, op.eps,
                         o.weightDecay, lr, t);
  auto *p = static_cast<const T *>(in[0]);
  auto *m = static_cast<const T *>(in[2]);
  auto *v = static_cast<const T *>(in[3]);
  auto *p2 = static_cast<T *>(out[0]);
  auto *m2 = static_cast<T *>(out[1]);
  auto *v2 = static_cast<T *>(out[2]);
  int64_t n = prog.values[op.operands[0]].numel;
  for (int64_t i = 0; i < n; ++i) {
    T g = read<T>(in[1], gradType, i);
    if (o.maximize)
      g = -g;
    T pi = p[i], mi = m[i], vi = v[i];
    adam.apply(pi, g, mi, vi);
    p2[i] = pi;
    m2[i] = mi;
    v2[i] = vi;
  }
}

template <typename T>
void runSgd(const HostProgram &prog, const HostOp &op,
            const std::vector<const void *> &in,
            const std::vector<void *> &out) {
  const HostOp::Optimizer &o = op.optimizer;
  DType gradType = prog.values[op.operands[1]].dtype;
  double lr = read<double>(in[2], prog.values[op.operands[2]].dtype, 0);
  bool first = static_cast<const int64_t *>(in[3])[0] == 1;
  const T negLr = T(-lr), wd = T(o.weightDecay), mom = T(o.momentum);
  const T keep = T(1.0 - o.dampening);
  auto *p = static_cast<const T *>(in[0]);
  auto *buf = static_cast<const T *>(in[4]); // null without momentum
  auto *p2 = static_cast<T *>(out[0]);
  T *buf2 = buf ? static_cast<T *>(out[1]) : nullptr;
  int64_t n = prog.values[op.operands[0]].numel;
  for (int64_t i = 0; i < n; ++i) {
    T d = read<T>(in[1], gradType, i);
    if (o.maximize)
      d = -d;
    if (o.weightDecay != 0.0)
      d = std::fma(p[i], wd, d);
    if (buf) {
      // torch clones d_p into a fresh buffer on the first step.
      T b = first ? d : std::fma(d, keep, buf[i] * mom);
      buf2[i] = b;
      d = o.nesterov ? std::fma(b, mom, d) : b;
    }
    p2[i] = std::fma(d, negLr, p[i]);
  }
}

/// adamw8bit: per block of blockSize elements, decode both moments, run the
/// AdamW element update, take the block's absmax and encode (QuantMap.h).
/// Codes are held as int64_t (the integer compute type).
void runAdamW8bit(const HostProgram &prog, const HostOp &op,
                  const std::vector<const void *> &in,
                  const std::vector<void *> &out) {
  const HostOp::Optimizer &o = op.optimizer;
  DType gradType = prog.values[op.operands[1]].dtype;
  double lr = read<double>(in[6], prog.values[op.operands[6]].dtype, 0);
  double t = double(static_cast<const int64_t *>(in[7])[0]);
  const AdamStep<float> adam(true, o.beta1, o.beta2, op.eps, o.weightDecay, lr,
                             t);
  const quant::Map &mapM = quant::signedMap(), &mapV = quant::unsignedMap();
  auto *p = static_cast<const float *>(in[0]);
  auto *codeM = static_cast<const int64_t *>(in[2]);
  auto *absM = static_cast<const float *>(in[3]);
  auto *codeV = static_cast<const int64_t *>(in[4]);
  auto *absV = static_cast<const float *>(in[5]);
  auto *p2 = static_cast<float *>(out[0]);
  auto *codeM2 = static_cast<int64_t *>(out[1]);
  auto *absM2 = static_cast<float *>(out[2]);
  auto *codeV2 = static_cast<int64_t *>(out[3]);
  auto *absV2 = static_cast<float *>(out[4]);
  int64_t n = prog.values[op.operands[0]].numel, b = o.blockSize;
  std::vector<float> m(b), v(b);
  for (int64_t block = 0; block * b < n; ++block) {
    int64_t begin = block * b, len = std::min(b, n - begin);
    float maxM = 0.0f, maxV = 0.0f;
    for (int64_t j = 0; j < len; ++j) {
      int64_t i = begin + j;
      float pi = p[i];
      m[j] = quant::decode(mapM, uint8_t(codeM[i]), absM[block]);
      v[j] = quant::decode(mapV, uint8_t(codeV[i]), absV[block]);
      adam.apply(pi, read<float>(in[1], gradType, i), m[j], v[j]);
      p2[i] = pi;
      // fmaxf ignores NaN, as the CUDA kernel's reduction does.
      maxM = std::fmax(maxM, std::fabs(m[j]));
      maxV = std::fmax(maxV, std::fabs(v[j]));
    }
    absM2[block] = maxM;
    absV2[block] = maxV;
    for (int64_t j = 0; j < len; ++j) {
      codeM2[begin + j] = quant::encode(mapM, maxM > 0.0f ? m[j] / maxM : 0.0f);
      codeV2[begin + j] = quant::encode(mapV, maxV > 0.0f ? v[j] / maxV : 0.0f);
    }
  }
}

} // namespace

Status runOptimizerOp(const HostProgram &prog, const HostOp &op,
                      const std::vector<const void *> &operands,
                      const std::vector<void *> &results) {
  DType pt = prog.values[op.operands[0]].dtype;
  bool dbl = computeKind(pt) == ComputeKind::Double;
  switch (op.code) {
  case OpCode::AdamW:
  case OpCode::Adam:
    dbl ? runAdam<double>(prog, op, operands, results)
        : runAdam<float>(prog, op, operands, results);
    break;
  case OpCode::Sgd:
    dbl ? runSgd<double>(prog, op, operands, results)
        : runSgd<float>(prog, op, operands, results);
    break;
  case OpCode::AdamW8bit:
    runAdamW8bit(prog, op, operands, results);
    break;
  default:
    return Status::error(opContext(op) + "not an optimizer op");
  }
  for (size_t k = 0; k < op.results.size(); ++k) {
    const ValueType &t = prog.values[op.results[k]];
    roundToDType(t.dtype, results[k], t.numel);
  }
  return Status::ok();
}

} // namespace tfc::rt::host
