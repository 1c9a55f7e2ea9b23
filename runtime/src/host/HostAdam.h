//===- HostAdam.h - the Adam/AdamW element update on the host ---*- C++ -*-===//
//
// One formula for every host op that does an Adam-family update (adamw,
// adam, adamw8bit): the scalars torch forms from Python floats are formed in
// double and rounded to the compute type once, per step; the element update
// follows torch.optim's single-tensor step operation by operation, in the
// same order as the CUDA kernels (compiler/codegen/cuda/AdamEmitter.h).
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_HOST_HOSTADAM_H
#define TFC_RUNTIME_HOST_HOSTADAM_H

#include <cmath>

namespace tfc::rt::host {

/// The per-step constants of an Adam/AdamW update in compute type T.
template <typename T> struct AdamStep {
  bool decoupled;
  double weightDecay;
  T negStep, bc2Sqrt, decay, wd, b1, omb1, b2, omb2, eps;

  /// `lr` and `t` (the step count after the increment) as torch reads them.
  AdamStep(bool decoupled, double beta1, double beta2, double epsilon,
           double weightDecay, double lr, double t)
      : decoupled(decoupled), weightDecay(weightDecay) {
    double bc1 = 1.0 - std::pow(beta1, t);
    double bc2 = 1.0 - std::pow(beta2, t);
    negStep = T(-(lr / bc1));
    bc2Sqrt = T(std::sqrt(bc2));
    decay = T(1.0 - lr * weightDecay);
    wd = T(weightDecay);
    b1 = T(beta1);
    omb1 = T(1.0 - beta1);
    b2 = T(beta2);
    omb2 = T(1.0 - beta2);
    eps = T(epsilon);
  }

  /// Updates one element: p, m, v in, their new values out (g already
  /// negated under maximize).
  void apply(T &p, T g, T &m, T &v) const {
    if (decoupled)
      p = p * decay; // param.mul_(1 - lr * weight_decay)
    else if (weightDecay != 0.0)
      g = std::fma(p, wd, g); // grad.add(param, alpha=weight_decay)
    m = std::fma(g, omb1, m * b1);
    v = v * b2 + omb2 * g * g;
    T denom = std::sqrt(v) / bc2Sqrt + eps;
    p = p + negStep * m / denom;
  }
};

} // namespace tfc::rt::host

#endif // TFC_RUNTIME_HOST_HOSTADAM_H
