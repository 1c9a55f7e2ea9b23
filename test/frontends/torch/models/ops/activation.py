"""Cases for tfc_torch/ops/activation.py's lowerings: gelu (exact and tanh),
leaky_relu, softplus, hardsigmoid / hardswish, elu / celu / selu, mish,
log_sigmoid, glu, threshold and the shrinks, each composed from tfc's
pointwise ops, also with parameters exactly on their kinks."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import _case

CASES = {
    "activations": _case(lambda h: (F.gelu(h) + F.gelu(h, approximate="tanh") + F.leaky_relu(h, 0.2)
                                    + F.softplus(h) + F.softplus(h, beta=2.0, threshold=1.0)
                                    + F.hardsigmoid(h) + F.hardswish(h) + F.hardtanh(h, -0.5, 0.5)
                                    + F.elu(h).clamp(max=10.0)).mean()),
    # Piecewise activations with parameters exactly on their kinks: each
    # gets torch's one-sided derivative there.
    "activation-kinks": lambda: _activation_kinks(),
    # Activations composed from tfc's pointwise ops.
    "activations-composed": _case(lambda h: (F.mish(h) + F.logsigmoid(h) + F.celu(h, 0.7) + F.selu(h)
                                             + F.softsign(h) + F.tanhshrink(h)
                                             + F.hardshrink(h, 0.3) + F.softshrink(h, 0.2)
                                             + F.threshold(h, 0.1, -2.0) + F.relu6(h * 8)
                                             + F.glu(torch.cat([h, h * 0.5], 1), dim=1)).mean()
                                  + F.glu(h, dim=0).sum()),
    # exp-based activations at inputs beyond exp's f32 range (|x| > 88.7):
    # torch's gradients are finite there (the unused branch's exp must not
    # overflow into the selected one's gradient as 0 * inf).
    "activations-large-inputs": lambda: _large_inputs(),
    # Activations and clamps at a NaN input, each on a row of its own (a NaN
    # gradient would hide the others'): torch's backward passes the
    # gradient where its test is false at NaN (relu, threshold, hardtanh,
    # elu / selu / celu, hardswish, the shrinks), stops it where its test
    # must be true (clamp, clamp_min, hardsigmoid) and gives NaN through
    # exp (logsigmoid, softplus); softshrink's value is 0 there. The loss
    # is NaN, as torch's.
    "activations-at-nan": lambda: _at_nan(),
    # softplus / mish / logsigmoid in their exponentially small tails
    # (softplus(-20) = 2e-9, which log(1 + exp(x)) rounds to 0 in f32):
    # log1p(exp(x)) as torch's, scaled up so that the loss sees them.
    "activation-tails": lambda: _tails(),
}


class _Tails(nn.Module):
    def __init__(self):
        super().__init__()
        self.p = nn.Parameter(torch.tensor([-20.0, -25.0, -17.5, -30.0]))

    def forward(self, x):
        p = self.p + x.sum()
        return ((F.softplus(p) + F.softplus(p * 0.5, beta=2.0) - F.logsigmoid(-p)) * 1e9).sum() \
            - (F.mish(p) * 1e8).sum()


def _tails():
    return _Tails(), (torch.zeros(2),)

_AT_NAN = (F.relu, lambda v: v.clamp(-1.0, 2.0), lambda v: v.clamp(min=0.5),
           lambda v: v.clamp(max=-0.25), F.hardtanh, F.relu6, F.elu, F.selu,
           lambda v: F.celu(v, 0.5), F.hardswish, F.hardsigmoid, F.logsigmoid,
           lambda v: F.leaky_relu(v, 0.2), lambda v: F.threshold(v, 0.1, -2.0), F.hardshrink,
           F.softshrink, F.softplus, lambda v: F.rrelu(v, training=False))


class _AtNan(nn.Module):
    def __init__(self):
        super().__init__()
        row = [float("nan"), 0.0, -0.5, 1.5, -3.0, 0.25]
        self.p = nn.Parameter(torch.tensor([row] * len(_AT_NAN)))

    def forward(self, x):
        w = torch.linspace(0.5, 1.5, 6) + x.sum()
        return sum((f(self.p[i]) * w).sum() * (i + 1) for i, f in enumerate(_AT_NAN))


def _at_nan():
    return _AtNan(), (torch.zeros(2),)


class _LargeInputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor([1.0, 1.5, -1.2, 0.8, 1.1, -0.9, 2.0]))

    def forward(self, x):
        h = x * self.w                                 # 120, -195, -114, -80.8, ...
        ramp = torch.linspace(0.5, 1.5, h.shape[0])
        acts = (F.elu(h), F.elu(h, 0.5), F.celu(h, 0.7), F.selu(h), F.softplus(h),
                F.softplus(h, 2.0, 1.0), F.mish(h), F.logsigmoid(h), F.silu(h))
        return sum((a * ramp).sum() * (i + 1) for i, a in enumerate(acts))


def _large_inputs():
    return _LargeInputs(), (torch.tensor([120.0, -130.0, 95.0, -101.0, 0.7, 0.4, 45.0]),)


class _ActivationKinks(nn.Module):
    def __init__(self):
        super().__init__()
        self.p = nn.Parameter(torch.tensor([-3.0, 3.0, 0.0, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 6.0,
                                            -6.0, 0.5]))

    def forward(self, x):
        p, w = self.p, torch.arange(1.0, 13.0) + x.sum()
        return ((F.hardswish(p) * w).sum() + (F.hardsigmoid(p) * w).sum() * 3
                + (F.relu6(p + 3) * w).sum() * 5 + (F.hardtanh(p, -3, 3) * w).sum() * 7
                + (p.clamp(-3, 3) * w).sum() * 11 + (F.relu(p) * w).sum() * 13
                + (F.threshold(p, 3.0, -1.0) * w).sum() * 17 + (F.hardshrink(p, 3.0) * w).sum()
                + (F.softshrink(p, 3.0) * w).sum() * 23 + (F.leaky_relu(p, 0.1) * w).sum()
                + F.elu(p).sum())


def _activation_kinks():
    return _ActivationKinks(), (torch.zeros(2),)
