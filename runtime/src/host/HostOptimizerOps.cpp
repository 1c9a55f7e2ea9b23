//===- HostOptimizerOps.cpp - adamw, adam and sgd on the host -------------===//
//
// The host program rules and the interpreter of the optimizer ops. The
// arithmetic is torch.optim's single-tensor step, operation by operation and
// in the same order as the CUDA kernel (compiler/codegen/cuda/
// MultiTensorKernel.cpp): scalars torch forms from Python floats (bias
// corrections, step size, 1 - lr * wd) are formed in double and rounded to
// the compute type once; `x.add_(y, alpha=a)` is fma(y, a, x), as ATen's
// vectorized CPU kernel computes it. f16/bf16 parameters compute in float
// and round once per result.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/host/HostKernels.h"
#include "runtime/src/host/HostProgramVerify.h"

#include <cmath>

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
  bool sgd = op.code == OpCode::Sgd;
  size_t nOperands = sgd ? 5 : 6;
  if (op.operands.size() != nOperands)
    return "expected " + std::to_string(nOperands) + " operands, got " +
           std::to_string(op.operands.size());
  for (size_t i = 0; i < nOperands; ++i)
    if (op.operands[i] < 0 && !(sgd && i == 4))
      return "operand " + std::to_string(i) + " may not be absent";
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
  size_t nResults = 1 + state.size();
  if (op.results.size() != nResults)
    return "expected " + std::to_string(nResults) + " results, got " +
           std::to_string(op.results.size());
  for (size_t i = 0; i < nResults; ++i) {
    const ValueType &res = prog.values[op.results[i]];
    if (res.dtype != param.dtype || res.shape != param.shape)
      return "result " + std::to_string(i) + " is " + typeStr(res) +
             " but the op computes " + typeStr(param);
  }
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
  bool decoupled = op.code == OpCode::AdamW;
  DType gradType = prog.values[op.operands[1]].dtype;
  double lr = read<double>(in[4], prog.values[op.operands[4]].dtype, 0);
  double t = double(static_cast<const int64_t *>(in[5])[0]);
  double bc1 = 1.0 - std::pow(o.beta1, t);
  double bc2 = 1.0 - std::pow(o.beta2, t);
  const T negStep = T(-(lr / bc1)), bc2Sqrt = T(std::sqrt(bc2));
  const T decay = T(1.0 - lr * o.weightDecay), wd = T(o.weightDecay);
  const T b1 = T(o.beta1), omb1 = T(1.0 - o.beta1);
  const T b2 = T(o.beta2), omb2 = T(1.0 - o.beta2), eps = T(op.eps);
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
    T pi = p[i];
    if (decoupled)
      pi = pi * decay; // param.mul_(1 - lr * weight_decay)
    else if (o.weightDecay != 0.0)
      g = std::fma(pi, wd, g); // grad.add(param, alpha=weight_decay)
    T mi = std::fma(g, omb1, m[i] * b1);
    T vi = v[i] * b2 + omb2 * g * g;
    T denom = std::sqrt(vi) / bc2Sqrt + eps;
    p2[i] = pi + negStep * mi / denom;
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
