"""Cases for tfc_torch/ops/special.py's lowerings (computed in f64, rounded
once): erfinv, lgamma / digamma / polygamma / mvlgamma, the Bessel
functions i0, i0e, i1, i1e, ndtri, log_ndtr, erfcx, entr and xlog1py, with
their gradients, on f32, f64 and (where torch's CPU has the op) bf16
arguments, and at their special values: zeros of both signs, poles, the
ends of the domain, +-inf and NaN; bf16 values only (detached: torch
evaluates the derivative formulas op by op in bf16, tfc in f64 rounded
once, a bf16 rounding apart). Each value enters the loss as asinh(value),
non-finite ones mapped to finite ones by nan_to_num (their gradient, 0 *
the derivative, is NaN where the derivative is infinite, in torch as in
tfc); special
values whose derivative torch computes as rounding noise (trigamma at the
negative integers) are checked on constants only."""
import torch
import torch.nn as nn

from .common import Lambda, _g

NAN, INF = float("nan"), float("inf")


def _weighted(t):
    """sum of asinh(t) (in f64: about t for small t, log(2 |t|) for huge
    ones, +-inf at +-inf) weighted along t's flattened elements, so that
    each one counts; non-finite values mapped to finite ones."""
    flat = torch.nan_to_num(torch.asinh(t.double()), 7.0, 100.0, -100.0).reshape(-1)
    return (flat * torch.linspace(0.5, 1.5, flat.numel(), dtype=torch.float64)).sum().float()


class _Special(nn.Module):
    """A linear layer h and parameters holding special arguments; `fn(self,
    h, edges)` is the loss, `edges` a batch input of f64 special values (a
    traced tensor: torch ops on constants would be folded while tracing)."""

    def __init__(self, fn, **points):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        for name, values in points.items():
            setattr(self, name, nn.Parameter(torch.tensor(values)))
        self.fn = fn

    def forward(self, x, edges):
        return self.fn(self, self.fc(x), edges)


def _case(fn, edges, **points):
    def make():
        torch.manual_seed(0)
        return _Special(fn, **points), (torch.randn(4, 6, generator=_g(1)),
                                        torch.tensor(edges, dtype=torch.float64))
    return make


def _erfinv(m, h, e):
    t = h.tanh()
    loss = _weighted(torch.erfinv(t)) + _weighted(torch.special.erfinv(t * 0.6))
    loss = loss + _weighted(torch.erfinv(m.p))
    loss = loss + _weighted(torch.erfinv(t.double() * 0.999))
    loss = loss + _weighted(torch.erfinv(t.detach().bfloat16()))
    return loss + _weighted(torch.erfinv(e.float())) + _weighted(torch.erfinv(e))


# Poles, infinities and NaN (values only: no gradient flows into them).
_GAMMA_EDGES = [0.0, -0.0, -1.0, -2.0, -7.0, INF, -INF, NAN, 1e30, -1e10, 1e-30, -1e-30]


def _gamma(m, h, e):
    loss = _weighted(torch.lgamma(h * 3)) + _weighted(torch.digamma(h * 3))
    loss = loss + _weighted(torch.special.gammaln(m.p)) + _weighted(torch.special.psi(m.p))
    loss = loss + _weighted(torch.lgamma(m.zero)) + _weighted(torch.digamma(m.zero))
    loss = loss + _weighted(torch.lgamma(e.float())) + _weighted(torch.digamma(e.float()))
    loss = loss + _weighted(torch.lgamma(e)) + _weighted(torch.digamma(e))
    wide = h.double() * 4
    loss = loss + _weighted(torch.lgamma(wide)) + _weighted(torch.digamma(wide))
    narrow = (h * 3).detach().bfloat16()
    return loss + _weighted(torch.lgamma(narrow)) + _weighted(torch.digamma(narrow))


def _polygamma(m, h, e):
    loss = 0
    for n in (0, 1, 2, 3, 5):
        loss = loss + _weighted(torch.polygamma(n, h * 3)) / (n + 1)
        loss = loss + _weighted(torch.special.polygamma(n, m.p))
        loss = loss + _weighted(torch.polygamma(n, (h * 2 + 0.5).double()))
    edges, ints = e[:9].float(), e[9:]
    loss = loss + _weighted(torch.polygamma(1, edges)) + _weighted(torch.polygamma(1, m.zero))
    loss = loss + _weighted(torch.polygamma(2, ints.float())) + _weighted(torch.polygamma(3, ints))
    loss = loss + _weighted(torch.polygamma(2, (h * 3).detach().bfloat16()))
    loss = loss + _weighted(torch.mvlgamma(h.abs() + 2, 3))
    loss = loss + _weighted(torch.special.multigammaln(h.double().abs() + 1, 2))
    return loss + _weighted(torch.mvlgamma(m.p.abs() + 3, 4))


def _bessel(m, h, e):
    loss = 0
    for s in (1.0, 10.0, 30.0):
        x = h * s
        loss = loss + (_weighted(torch.i0(x)) / s ** 2 + _weighted(torch.special.i0e(x))
                       + _weighted(torch.special.i1(x)) / s ** 2 + _weighted(torch.special.i1e(x)))
    for f in (torch.special.i0, torch.special.i0e, torch.special.i1, torch.special.i1e):
        loss = loss + _weighted(f(m.p)) + _weighted(f(m.tiny))
        loss = loss + _weighted(f(h.double() * 8))
    loss = loss + sum(_weighted(f(e)) for f in (torch.special.i0e, torch.special.i1e))
    loss = loss + _weighted(torch.special.i0e(e.float())) + _weighted(torch.special.i1(e.float()))
    # torch defines no gradient for these (no grad_fn): values only.
    for f in (torch.special.modified_bessel_i0, torch.special.modified_bessel_i1,
              torch.special.spherical_bessel_j0):
        loss = loss + _weighted(f(h * 10)) + _weighted(f(e)) + _weighted(f(e.float()))
    return loss + _weighted(torch.i0((h * 4).detach().bfloat16()))


def _normal(m, h, e):
    p = h.sigmoid()
    loss = _weighted(torch.special.ndtri(p)) + _weighted(torch.special.ndtri(m.p))
    loss = loss + _weighted(torch.special.ndtri((h * 30).sigmoid().double()))
    loss = loss + _weighted(torch.special.log_ndtr(h * 4)) + _weighted(torch.special.log_ndtr(m.z))
    loss = loss + _weighted(torch.special.log_ndtr(h.double() * 15))
    loss = loss + _weighted(torch.special.erfcx(h * 4)) + _weighted(torch.special.erfcx(m.z))
    loss = loss + _weighted(torch.special.erfcx(h.double() * 3))
    # erfc in its f32 upper tail (1e-17 at 6: 1 - erf cancels to 0) and f64.
    loss = loss + _weighted(torch.erfc(h * 4)) + _weighted(torch.erfc(m.z))
    loss = loss + _weighted(torch.erfc(h.double() * 6)) * 1e10
    edges, far = e[:8], e[8:].float()
    loss = loss + _weighted(torch.special.ndtri(edges.float())) + _weighted(
        torch.special.ndtri(edges))
    return loss + sum(_weighted(f(far)) for f in (torch.special.log_ndtr, torch.special.erfcx,
                                                   torch.erfc))


def _entropy(m, h, e):
    loss = _weighted(torch.special.entr(h.abs())) + _weighted(torch.special.entr(m.p))
    loss = loss + _weighted(torch.special.entr(h.double() * 3)) + _weighted(
        torch.special.entr(h.abs().detach().bfloat16()))
    y = m.p.flip(0).abs()
    loss = loss + _weighted(torch.special.xlog1py(m.p, y))
    loss = loss + _weighted(torch.special.xlog1py(h, h * 0.5))
    loss = loss + _weighted(torch.special.xlog1py(h, 2.0))
    loss = loss + _weighted(torch.special.xlog1py(3.0, h.abs()))
    loss = loss + _weighted(torch.special.xlog1py(h.double(), h.abs().double() * 1e-9))
    # x == 0 exactly (q's zeros) against every y: the gradient for x is
    # log(y) (log1p(y)), zeroed only where that is not finite (y <= 0).
    ys = torch.tensor([7.5, 0.0, -2.0, 2.0, 1e-30, -1.0])
    loss = loss + _weighted(torch.xlogy(m.q[:, None], ys)) + _weighted(
        torch.special.xlog1py(m.q[:, None], ys))
    return loss + _weighted(torch.special.xlogy(h, h.abs())) + _weighted(
        torch.special.xlog1py(e[:3].float(), e[3:].float()))


def _zeta(m, h, e):
    x = h.detach().abs() * 3 + 1.5
    loss = _weighted(torch.special.zeta(3.0, h.abs() + 0.5)) + _weighted(
        torch.special.zeta(x, h.abs() + 0.1))
    loss = loss + _weighted(torch.special.zeta(x, 2.0)) + _weighted(
        torch.special.zeta(4.0, m.p)) + _weighted(torch.special.zeta(2.0, m.p))
    loss = loss + _weighted(torch.special.zeta(x.double(), h.double().abs() + 1))
    loss = loss + _weighted(torch.special.zeta(3.0, -2.5 + h * 0.1))
    return loss + _weighted(torch.special.zeta(e[:8].float(), e[8:].float())) + _weighted(
        torch.special.zeta(e[:8], e[8:]))


def _incomplete_gamma(m, h, e):
    a = h.detach().abs() * 5 + 0.1  # torch has no derivative for a
    loss = _weighted(torch.special.gammainc(a, h.abs() * 5)) + _weighted(
        torch.special.gammaincc(a, h.abs() * 3))
    loss = loss + _weighted(torch.special.gammainc(a[0], m.p)) + _weighted(
        torch.special.gammaincc(a[:, :1] * 10, m.p * 20))
    loss = loss + _weighted(torch.special.gammainc(a.double() * 3, h.double().abs() * 8))
    loss = loss + _weighted(torch.special.gammaincc(a.double() * 30, h.double().abs() * 60))
    ea, ex = e[:15], e[15:]
    return loss + sum(_weighted(f(ea.float(), ex.float())) + _weighted(f(ea, ex))
                      for f in (torch.special.gammainc, torch.special.gammaincc))


CASES = {
    # erfinv (rational guess, two Newton steps against erf, in f64) near 0
    # and +-1, at the ends (+-inf), beyond (NaN), in f64 and bf16; the
    # gradient sqrt(pi) / 2 exp(erfinv(x)^2).
    "erfinv": _case(_erfinv, [1.0, -1.0, 1.5, -2.0, NAN, INF, 1.0 - 2 ** -24, -1e-38],
                    p=[0.0, -0.0, 0.5, -0.7, 0.7001, 0.99999, -0.999, 1e-30]),
    # lgamma (shift + Stirling, reflection below 0) and digamma (shift +
    # asymptotic series, reflection), gradients digamma and trigamma: both
    # signs, near the poles, at +-0 (digamma(-0) = inf), poles, +-inf,
    # NaN, huge and tiny arguments; f64 and bf16.
    "gamma": _case(_gamma, _GAMMA_EDGES, p=[0.5, -0.5, -2.5, 1e-6, 1.0, 2.0, 30.5, -10.3, 1.4616],
                   zero=[0.0, -0.0]),
    # polygamma (n = 0, 1, 2, 3, 5; reflection with the n-th derivative of
    # cot for negative arguments), gradient polygamma(n + 1); its special
    # values (n >= 2: -+inf at the poles, NaN at inf); mvlgamma /
    # multigammaln (p = 2, 3, 4).
    "polygamma": _case(_polygamma, [0.0, -0.0, INF, -INF, NAN, 1e30, 1e-30, -1e-30, -2.5]
                       + [0.0, -0.0, -1.0, -2.0, -INF, INF, NAN],
                       p=[0.5, -0.5, -2.5, 0.01, 1.0, 7.25, -10.3, 40.0],
                       zero=[0.0, -0.0]),
    # i0, i0e, i1, i1e (power series below 20, asymptotic expansion above)
    # at small and large arguments of both signs, the tiny arguments where
    # torch's i1 / i1e gradient is 1/2, overflow (i0 and i1: inf), +-inf,
    # NaN; f64, bf16 i0; modified_bessel_i0 / i1 and spherical_bessel_j0
    # (sin(x) / x), which torch does not differentiate.
    "bessel": _case(_bessel, [INF, -INF, NAN, 700.0, -800.0, 1e30, 0.0, -0.0, 1e-30, 0.3],
                    p=[0.0, -0.0, 19.99, 20.0, -25.0, 85.0, -3.5, 1e-3],
                    tiny=[1e-30, -1e-8, 0.0, 1e-7]),
    # ndtri (erfinv's guess, Newton on log_ndtr), log_ndtr (erfcx below -1,
    # log1p(-erfc / 2) above), erfcx (continued fraction from 2) and erfc
    # (exp(-x^2) erfcx(x) from 2): deep tails, 0, 1/2, 1, outside [0, 1],
    # +-inf, NaN, f64.
    "normal": _case(_normal, [0.0, 1.0, 0.5, -0.1, 1.5, NAN, 1e-300, 1.0 - 1e-16]  # ndtri
                    + [INF, -INF, NAN, -1e10, 1e10, -30.0, 30.0],
                    p=[1e-30, 1e-8, 0.02, 0.5, 0.75, 1.0 - 1e-6, 0.9999, 0.3],
                    z=[-30.0, -5.0, -1.0, -0.999, 0.0, 2.0, 1.999, 9.0]),
    # entr (0 at 0, -inf below 0; gradient -(1 + log x): inf at 0) in f32,
    # f64 and bf16 (rounded per op, as torch), xlog1py (tensor and scalar
    # operands, x = 0 with y = NaN / -1) and special.xlogy; xlogy's and
    # xlog1py's gradient for x at x = 0 (a Gamma's log_prob at
    # concentration 1): log(y), which the select alone made 0.
    "entropy": _case(_entropy, [0.0, 0.0, 1.0, NAN, -1.0, -1.0],
                     p=[0.0, -0.5, 0.5, 1.0, 1e-30, 3.0, 0.25, 7.5], q=[0.0, 0.0]),
    # Hurwitz zeta (12 terms and Euler-Maclaurin's tail): tensor and scalar
    # x and q, q < 0 with integer x, f64; x = 1 (inf), x < 1 (NaN), poles
    # at q = 0, -1, fractional x at q < 0 (NaN). torch has no derivative for
    # x (its backward raises): x is detached or a number here.
    "zeta": _case(_zeta, [1.0, 0.5, 2.0, 2.0, 2.5, 3.0, 4.0, 2.0]
                  + [1.0, 2.0, 0.0, -1.0, -0.5, -2.5, NAN, INF],
                  p=[0.5, 1.0, 2.5, 1e-3, 30.0, -0.5, -2.25, 7.0]),
    # The regularized incomplete gamma functions P (gammainc) and Q
    # (gammaincc): series below x = a + 1, continued fraction above; x in
    # both ranges and near a + 1, f64 with a up to 150; edges: a or x zero,
    # negative, infinite or NaN. Gradient to x only (torch has none for a).
    "incomplete-gamma": _case(_incomplete_gamma,
                              [0.0, 0.0, 1.0, 1.0, 2.0, -1.0, 1.0, INF, INF, 1.0, 2.0, NAN, 1.0,
                               0.5, 5.0]
                              + [0.0, 1.0, 0.0, INF, -1.0, 1.0, NAN, 1.0, INF, 1e-30, 1e30, 1.0,
                                 -0.0, 1e-300, 3.0],
                              p=[0.0, 1e-4, 0.5, 1.0, 2.0, 6.5, 30.0, 100.0]),
    # Accuracy on f64 grids: each function within its tolerance of torch.
    "special-accuracy": lambda: _special_accuracy(),
}


def _special_accuracy():
    torch.manual_seed(0)
    loss, grids = _accuracy()
    return Lambda(loss), (torch.randn(4, 6, generator=_g(1)), *grids)


def _grid(lo, hi, n=2001):
    return torch.linspace(lo, hi, n, dtype=torch.float64)


def _tails(lo, hi, n):
    return torch.logspace(lo, hi, n, dtype=torch.float64)


# f64 grids (tails, both signs) and each function's tolerance for its largest
# error relative to max(|torch's value|, floor = 1): 20 times what tfc
# reaches on the host. Where torch itself is off (digamma near the negative
# poles, 7e-13; trigamma, 5e-10 near 1.1) tfc agrees with mpmath to 1e-15.
_ACCURACY = {
    "erfinv": (torch.erfinv, torch.cat([_grid(-0.999999, 0.999999), 1 - _tails(-12, -1, 200)]),
               4e-14),
    "lgamma": (torch.lgamma, torch.cat([_grid(-30.05, 30.05), _tails(-200, 200, 401)]), 1.2e-13),
    # Relative to the value itself (floor 1e-300) near lgamma's zeros.
    "lgamma-zeros": (torch.lgamma, torch.cat([c + s * _tails(-15, -0.5, 100) for c in (1.0, 2.0)
                                              for s in (1.0, -1.0)]), 7e-15, 1e-300),
    "digamma": (torch.digamma, torch.cat([_grid(-30.05, 30.05), _tails(-200, 200, 401)]), 1.4e-11),
    # Negative half-integers only: near the poles torch's sin(pi x) loses digits.
    "trigamma": (lambda t: torch.polygamma(1, t),
                 torch.cat([_grid(1e-3, 60.0), -_grid(0.5, 40.5, 41)]), 1e-8),
    "polygamma3": (lambda t: torch.polygamma(3, t), _grid(-20.05, 40.05), 3e-14),
    "i0": (torch.special.i0, _grid(-100, 100), 2.3e-14),
    "i0e": (torch.special.i0e, _grid(-200, 200), 7e-15),
    "i1": (torch.special.i1, _grid(-100, 100), 2.2e-14),
    "i1e": (torch.special.i1e, _grid(-200, 200), 3e-15),
    "ndtri": (torch.special.ndtri, torch.cat([_grid(1e-6, 1 - 1e-6), _tails(-300, -1, 300)]),
              2.2e-14),
    "log_ndtr": (torch.special.log_ndtr, _grid(-40, 40), 2.3e-14),
    "erfcx": (torch.special.erfcx, _grid(-20, 30), 4.3e-14),
    # Relative to the value itself: the upper tail's digits (to 1e-300).
    "erfc": (torch.erfc, torch.cat([_grid(-6, 26), _tails(-8, 0, 100)]), 2.1e-13, 1e-300),
    "entr": (torch.special.entr, _grid(0, 10), 1e-15),
    "zeta-q": (lambda t: torch.special.zeta(3.0, t), torch.cat([_grid(-2.95, -0.05, 30),
                                                               _tails(-6, 3, 300)]), 1.2e-13),
    "zeta-x": (lambda t: torch.special.zeta(t, 1.5), _grid(1.01, 40), 1e-14),
    # Relative to the value itself: the small tails count.
    "gammainc": (lambda t: torch.special.gammainc(torch.full_like(t, 2.5), t),
                 torch.cat([_grid(1e-3, 60.0), _tails(-8, -3, 50)]), 1.5e-13, 1e-300),
    "gammaincc": (lambda t: torch.special.gammaincc(torch.full_like(t, 0.5), t),
                  torch.cat([_grid(1e-3, 60.0), _tails(-8, -3, 50)]), 9e-14, 1e-300),
}


def _accuracy(only=None, scale=None):
    """A loss of 1e5 (so check_ops' rtol admits 1) plus the largest of the
    functions' errors over their f64 grids in units of their tolerances
    (torch's values are constants of the model: torch's own loss is exactly
    1e5), so each function must stay within its tolerance."""
    names = only or list(_ACCURACY)
    want = [_ACCURACY[n][0](_ACCURACY[n][1]) for n in names]

    def loss(h, *grids):  # the grids are batch inputs (traced, not folded)
        worst = []
        for n, grid, w in zip(names, grids, want):
            f, _, tol, *floor = _ACCURACY[n]
            err = (f(grid) - w).abs() / w.abs().clamp(min=floor[0] if floor else 1.0)
            worst.append((err.amax() / (scale or tol)).float())
        return h.sum() * 0 + 1e5 + torch.stack(worst).amax()
    return loss, tuple(_ACCURACY[n][1] for n in names)
