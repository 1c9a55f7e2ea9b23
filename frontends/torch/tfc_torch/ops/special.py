"""Special functions tfc has no op for, composed from its pointwise ops:
erfinv, lgamma, digamma, polygamma, mvlgamma, the modified Bessel functions
i0, i0e, i1, i1e (and modified_bessel_i0 / i1), spherical_bessel_j0,
erfc, ndtri, log_ndtr, erfcx, entr, xlog1py, the Hurwitz zeta and the
regularized incomplete gamma functions (erf, log1p, expm1, sinc and
xlogy: elementwise.py).

All but xlog1py (and entr of 16-bit types) are computed in f64 whatever the traced type and rounded
once to it (torch computes in the traced type, so f32 results differ from
torch's by its own rounding errors, about an ulp): series, continued
fractions and Newton steps against tfc.erf, which is libm's erf in f64.
Their gradients are torch's derivative formulas (derivatives.yaml), passed
straight through (`_result`): the value is y, the gradient g * y' with y'
from the same helpers (lgamma' = digamma, digamma' = trigamma, ...), so no
branch a select leaves unused leaks a NaN into it.
"""
import math
from fractions import Fraction

import torch

from .. import dtypes
from ..registry import lowers
from .transcendental import log1p_of, x_times_log

_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_INF = float("inf")
_NAN = float("nan")

# B_2, B_4, ..., B_20: the Bernoulli numbers of the asymptotic series.
_BERNOULLI = [Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30),
              Fraction(5, 66), Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510),
              Fraction(43867, 798), Fraction(-174611, 330)]
_TERMS = 9  # asymptotic terms used (B_2 .. B_18); B_20 bounds the error


# -- shared pieces ------------------------------------------------------------------

def _c(ctx, value):
    """An f64 constant."""
    return ctx.tensor(float(value), "f64")


def _f64(ctx, x):
    """x as a Value of the traced type and its f64 copy."""
    v = ctx.tensor(x, ctx.out().dtype)
    return v, ctx.b.convert(v, "f64")


def _result(ctx, v, y, slope):
    """y (f64) rounded to v's type, with gradient g * slope to v: torch's
    derivative formula, slope rounded to v's type as torch computes it."""
    b = ctx.b
    value = b.stop_gradient(b.convert(y, v.dtype))
    return b.straight_through(value, b.mul(v, b.stop_gradient(b.convert(slope, v.dtype))))


def _is(ctx, direction, a, value):
    return ctx.b.compare(direction, a, _c(ctx, value))


def _and(ctx, p, q):
    return ctx.b.select(p, q, ctx.tensor(False, "i1"))


def _where(ctx, cond, value, other):
    """value (a Value or a float) where cond, else other."""
    if not hasattr(value, "dtype"):
        value = _c(ctx, value)
    return ctx.b.select(cond, value, other)


def _poly(ctx, t, coeffs):
    """sum(coeffs[i] * t^i) by Horner's rule (coefficients lowest first)."""
    b = ctx.b
    acc = _c(ctx, coeffs[-1])
    for c in reversed(coeffs[:-1]):
        acc = b.add(b.mul(acc, t), _c(ctx, c))
    return acc


def _shift(ctx, x, threshold, term, combine, identity):
    """Moves x up by ones while it is below `threshold` (x >= 0): returns
    z >= threshold and the combination of term(x + k) over the steps
    taken: the recurrences Gamma(x) = Gamma(x + 1) / x and psi(x) =
    psi(x + 1) - 1 / x that bring x where an asymptotic series holds."""
    b = ctx.b
    z, acc = x, _c(ctx, identity)
    for _ in range(int(math.ceil(threshold))):
        low = _is(ctx, "lt", z, threshold)
        acc = combine(acc, _where(ctx, low, term(z), _c(ctx, identity)))
        z = _where(ctx, low, b.add(z, _c(ctx, 1.0)), z)
    return z, acc


def _reduced(ctx, x):
    """x - round(x), in [-1/2, 1/2] and exact (tfc.fmod), for sin(pi x)
    and cot(pi x) of negative x without pi x's rounding."""
    b = ctx.b
    r = b.binary("fmod", x, _c(ctx, 1.0))
    r = _where(ctx, _is(ctx, "lt", r, -0.5), b.add(r, _c(ctx, 1.0)), r)
    return _where(ctx, _is(ctx, "gt", r, 0.5), b.sub(r, _c(ctx, 1.0)), r)


# -- erfinv and ndtri --------------------------------------------------------------

# The classic rational approximations of erfinv (relative error about
# 1e-7), refined by Newton steps: central |y| <= 0.7 in y^2, tails in
# z = sqrt(-log((1 - |y|) / 2)).
_ERFINV_A = [0.886226899, -1.645349621, 0.914624893, -0.140543331]
_ERFINV_B = [1.0, -2.118377725, 1.442710462, -0.329097515, 0.012229801]
_ERFINV_C = [-1.970840454, -1.624906493, 3.429567803, 1.641345311]
_ERFINV_D = [1.0, 3.543889200, 1.637067800]


def _erfinv_guess(ctx, y, tail):
    """erfinv(y) to about 1e-7, given tail = (1 - |y|) / 2 (which ndtri
    passes without 1 - |y|'s cancellation)."""
    b = ctx.b
    square = b.mul(y, y)
    central = b.div(b.mul(y, _poly(ctx, square, _ERFINV_A)), _poly(ctx, square, _ERFINV_B))
    z = b.unary("sqrt", b.unary("neg", b.unary("log", tail)))
    far = b.div(_poly(ctx, z, _ERFINV_C), _poly(ctx, z, _ERFINV_D))
    far = _where(ctx, _is(ctx, "lt", y, 0.0), b.unary("neg", far), far)
    return _where(ctx, _is(ctx, "le", b.unary("abs", y), 0.7), central, far)


def _erfinv64(ctx, y):
    """erfinv(y) in f64: the guess and two Newton steps against erf;
    +-inf at +-1, NaN beyond (and for NaN)."""
    b = ctx.b
    a = b.unary("abs", y)
    tail = b.mul(b.sub(_c(ctx, 1.0), a), _c(ctx, 0.5))
    x = _erfinv_guess(ctx, y, _where(ctx, _is(ctx, "lt", a, 1.0), tail, _c(ctx, 0.5)))
    for _ in range(2):
        slope = b.mul(_c(ctx, 2.0 / _SQRT_PI), b.unary("exp", b.unary("neg", b.mul(x, x))))
        x = b.sub(x, b.div(b.sub(b.unary("erf", x), y), slope))
    x = _where(ctx, _is(ctx, "eq", y, 1.0), _INF, x)
    x = _where(ctx, _is(ctx, "eq", y, -1.0), -_INF, x)
    return _where(ctx, _is(ctx, "gt", a, 1.0), _NAN, x)


@lowers("aten.erfinv.default")
def erfinv(ctx, x):
    """erfinv with torch's gradient sqrt(pi) / 2 * exp(erfinv(x)^2)."""
    b = ctx.b
    v, y = _f64(ctx, x)
    r = _erfinv64(ctx, y)
    slope = b.mul(_c(ctx, _SQRT_PI / 2.0), b.unary("exp", b.mul(r, r)))
    return _result(ctx, v, r, slope)


# -- erfc's tail: erfcx, log_ndtr, ndtri ---------------------------------------------

_CF_FROM = 2.0   # erfcx by its continued fraction from here (60 terms: f64's digits)
_CF_TERMS = 60


def _erfcx_positive(ctx, t):
    """exp(t^2) erfc(t) for t >= 0: Laplace's continued fraction
    1 / sqrt(pi) / (t + (1/2) / (t + 1 / (t + (3/2) / ...))) from t = 2,
    exp(t^2) (1 - erf(t)) below (erfc >= 4.7e-3 there: 2e-14 relative)."""
    b = ctx.b
    big = _is(ctx, "ge", t, _CF_FROM)
    s = _where(ctx, big, t, _c(ctx, _CF_FROM))
    frac = s
    for k in range(_CF_TERMS, 0, -1):
        frac = b.add(s, b.div(_c(ctx, k / 2.0), frac))
    far = b.div(_c(ctx, 1.0 / _SQRT_PI), frac)
    near_t = _where(ctx, big, _c(ctx, 0.0), t)
    near = b.mul(b.unary("exp", b.mul(near_t, near_t)),
                 b.sub(_c(ctx, 1.0), b.unary("erf", near_t)))
    return _where(ctx, big, far, near)


def _erfcx64(ctx, t):
    """exp(t^2) erfc(t): 2 exp(t^2) - erfcx(-t) for t < 0 (inf below
    -26.6, as torch's)."""
    b = ctx.b
    negative = _is(ctx, "lt", t, 0.0)
    e = _erfcx_positive(ctx, b.unary("abs", t))
    mirrored = b.sub(b.mul(_c(ctx, 2.0), b.unary("exp", b.mul(t, t))), e)
    return _where(ctx, negative, mirrored, e)


def _exp_minus_square(ctx, s):
    """exp(-s^2) without the error of rounding s^2 (which exp multiplies by
    2 s^2: 6e-14 at s = 24): s = hi + lo with hi s rounded to f32, so
    hi^2 is exact in f64, and exp(-hi^2) exp(-lo (hi + s))."""
    b = ctx.b
    hi = b.convert(b.convert(s, "f32"), "f64")
    lo = b.sub(s, hi)
    return b.mul(b.unary("exp", b.unary("neg", b.mul(hi, hi))),
                 b.unary("exp", b.unary("neg", b.mul(lo, b.add(hi, s)))))


def _erfc64(ctx, t):
    """erfc(t) with its relative digits in the upper tail (exp(-t^2)
    erfcx(t) from t = 2; 0 from t = 27.3)."""
    b = ctx.b
    big = _is(ctx, "ge", t, _CF_FROM)
    s = _where(ctx, big, t, _c(ctx, _CF_FROM))
    far = b.mul(_exp_minus_square(ctx, s), _erfcx_positive(ctx, s))
    return _where(ctx, big, far, b.sub(_c(ctx, 1.0), b.unary("erf", t)))


@lowers("aten.erfc.default")
def erfc(ctx, x):
    """erfc(x) with its relative digits in the upper tail, where 1 - erf(x)
    cancels (erfc(6) = 2.2e-17 is an f32 number; 1 - erf is 0 from 5.9 on),
    computed in f64 and rounded once; gradient -2 / sqrt(pi) exp(-x^2)."""
    b = ctx.b
    v, t = _f64(ctx, x)
    slope = b.mul(_c(ctx, -2.0 / _SQRT_PI), b.unary("exp", b.unary("neg", b.mul(t, t))))
    return _result(ctx, v, _erfc64(ctx, t), slope)


@lowers("aten.special_erfcx.default")
def erfcx(ctx, x):
    """exp(x^2) erfc(x), gradient 2 x erfcx(x) - 2 / sqrt(pi) (torch's)."""
    b = ctx.b
    v, t = _f64(ctx, x)
    r = _erfcx64(ctx, t)
    slope = b.sub(b.mul(b.mul(_c(ctx, 2.0), t), r), _c(ctx, 2.0 / _SQRT_PI))
    return _result(ctx, v, r, slope)


def _log_ndtr64(ctx, x, upper_tail=True):
    """log(Phi(x)), torch's split: log(erfcx(-x / sqrt 2) / 2) - x^2 / 2
    below -1 (no underflow), log1p(-erfc(x / sqrt 2) / 2) above (the
    upper tail's digits; without `upper_tail`, for x <= 0 only, erfc is
    1 - erf)."""
    b = ctx.b
    t = b.mul(x, _c(ctx, math.sqrt(0.5)))
    low = _is(ctx, "lt", x, -1.0)
    tl = _where(ctx, low, t, _c(ctx, -1.0))
    lower = b.sub(b.unary("log", b.mul(_erfcx64(ctx, b.unary("neg", tl)), _c(ctx, 0.5))),
                  b.mul(tl, tl))
    th = _where(ctx, low, _c(ctx, 0.0), t)
    erfc = _erfc64(ctx, th) if upper_tail else b.sub(_c(ctx, 1.0), b.unary("erf", th))
    upper = log1p_of(ctx, b.mul(erfc, _c(ctx, -0.5)))
    return _where(ctx, low, lower, upper)


@lowers("aten.special_log_ndtr.default")
def log_ndtr(ctx, x):
    """log of the standard normal CDF, gradient exp(-x^2 / 2 - result) /
    sqrt(2 pi) (torch's)."""
    b = ctx.b
    v, y = _f64(ctx, x)
    r = _log_ndtr64(ctx, y)
    exponent = b.sub(b.mul(b.mul(y, y), _c(ctx, -0.5)), r)
    return _result(ctx, v, r, b.mul(b.unary("exp", exponent), _c(ctx, 1.0 / _SQRT_2PI)))


def _ndtri64(ctx, p):
    """Phi^-1(p): for q = min(p, 1 - p), erfinv's guess from q itself (the
    tail needs no 1 - 2q), then Newton steps on log Phi(x) = log q; minus
    that for p > 1/2. -inf at 0, inf at 1, NaN outside [0, 1]."""
    b = ctx.b
    upper = _is(ctx, "gt", p, 0.5)
    q = _where(ctx, upper, b.sub(_c(ctx, 1.0), p), p)
    inside = _and(ctx, _is(ctx, "gt", q, 0.0), _is(ctx, "le", q, 0.5))
    q = _where(ctx, inside, q, _c(ctx, 0.25))
    y = b.sub(b.mul(q, _c(ctx, 2.0)), _c(ctx, 1.0))
    x = b.mul(_erfinv_guess(ctx, y, q), _c(ctx, math.sqrt(2.0)))
    log_q = b.unary("log", q)
    for _ in range(3):
        lp = _log_ndtr64(ctx, x, upper_tail=False)  # x <= 0
        # d log Phi / dx = exp(-x^2 / 2 - log Phi) / sqrt(2 pi)
        inv_slope = b.mul(b.unary("exp", b.add(lp, b.mul(b.mul(x, x), _c(ctx, 0.5)))),
                          _c(ctx, _SQRT_2PI))
        x = b.sub(x, b.mul(b.sub(lp, log_q), inv_slope))
    x = _where(ctx, upper, b.unary("neg", x), x)
    x = _where(ctx, _is(ctx, "eq", p, 0.5), 0.0, x)
    x = _where(ctx, _is(ctx, "eq", p, 0.0), -_INF, x)
    x = _where(ctx, _is(ctx, "eq", p, 1.0), _INF, x)
    outside = b.select(_is(ctx, "lt", p, 0.0), ctx.tensor(True, "i1"), _is(ctx, "gt", p, 1.0))
    return _where(ctx, b.select(outside, outside, b.compare("ne", p, p)), _NAN, x)


@lowers("aten.special_ndtri.default")
def ndtri(ctx, x):
    """The standard normal quantile, gradient sqrt(2 pi) exp(result^2 / 2)
    (torch's)."""
    b = ctx.b
    v, p = _f64(ctx, x)
    r = _ndtri64(ctx, p)
    slope = b.mul(b.unary("exp", b.mul(b.mul(r, r), _c(ctx, 0.5))), _c(ctx, _SQRT_2PI))
    return _result(ctx, v, r, slope)


# -- lgamma, digamma, polygamma, mvlgamma ---------------------------------------------

# log Gamma(z) = (z - 1/2) log z - z + log(2 pi) / 2 + sum_k B_2k / (2k (2k - 1) z^(2k - 1))
_STIRLING = [float(bk / (2 * k * (2 * k - 1))) for k, bk in enumerate(_BERNOULLI[:_TERMS], 1)]
_SHIFT_TO = 10.0  # where the series of lgamma and digamma reach f64's digits


def _lgamma_positive(ctx, x):
    """log Gamma(x) for x >= 0 (inf at 0): shifted to z >= 10 by
    Gamma(x) = Gamma(x + n) / (x (x + 1) ... (x + n - 1)), then Stirling's
    series (within about 1e-15 absolute near the zeros at 1 and 2, where
    _lgamma64 takes another series)."""
    b = ctx.b
    z, product = _shift(ctx, x, _SHIFT_TO, lambda z: z, b.mul, 1.0)
    r = b.div(_c(ctx, 1.0), z)
    series = b.mul(r, _poly(ctx, b.mul(r, r), _STIRLING))
    main = b.sub(b.mul(b.sub(z, _c(ctx, 0.5)), b.unary("log", z)), z)
    return b.sub(b.add(b.add(main, _c(ctx, 0.5 * math.log(2 * math.pi))), series),
                 b.unary("log", product))


def _zeta_minus_one(k):
    """zeta(k) - 1 for an integer k >= 2: the sum of n^-k over 2 <= n < 20
    and Euler-Maclaurin's tail from 20 (f64's digits)."""
    n = 20
    head = sum(float(m) ** -k for m in range(2, n))
    tail = n ** (1.0 - k) / (k - 1) + 0.5 * n ** -float(k)
    rising = float(k)  # k (k + 1) ... (k + 2j - 2)
    for j, bj in enumerate(_BERNOULLI[:5], 1):
        tail += float(bj) / math.factorial(2 * j) * rising * n ** float(-k - 2 * j + 1)
        rising *= (k + 2 * j - 1) * (k + 2 * j)
    return head + tail


# log Gamma(2 + e) = (1 - euler_gamma) e + sum_(k>=2) (-1)^k (zeta(k) - 1) / k e^k
# (|e| <= 1/2: 30 terms), relative to the value also near its zeros e = 0, -1.
_EULER_GAMMA = 0.57721566490153286061
_LGAMMA_NEAR_2 = [0.0, 1.0 - _EULER_GAMMA] + [
    (-1) ** k * _zeta_minus_one(k) / k for k in range(2, 32)]


def _lgamma_near_zeros(ctx, x):
    """log Gamma(x) for 0.5 <= x <= 2.5 from the series around 2: at e =
    x - 2, or at e = x - 1 less log1p(e) (Gamma(2 + e) = (1 + e) Gamma(1 +
    e)), both e exact."""
    b = ctx.b
    low = _is(ctx, "lt", x, 1.5)
    e = b.sub(x, _where(ctx, low, _c(ctx, 1.0), _c(ctx, 2.0)))
    series = _poly(ctx, e, _LGAMMA_NEAR_2)
    return _where(ctx, low, b.sub(series, log1p_of(ctx, e)), series)


def _lgamma64(ctx, x):
    """log |Gamma(x)|, for x < 0 by reflection: log(pi / |sin(pi x)|) -
    log Gamma(1 - x); on [0.5, 2.5] the series around 2 (relative digits
    near the zeros at 1 and 2). inf at 0, the negative integers and +-inf
    (torch's)."""
    b = ctx.b
    negative = _is(ctx, "lt", x, 0.0)
    w = _where(ctx, negative, b.sub(_c(ctx, 1.0), x), x)
    lg = _lgamma_positive(ctx, w)
    near = _and(ctx, _is(ctx, "ge", w, 0.5), _is(ctx, "le", w, 2.5))
    lg = _where(ctx, near, _lgamma_near_zeros(ctx, _where(ctx, near, w, _c(ctx, 2.0))), lg)
    r = _reduced(ctx, x)
    sine = b.unary("abs", b.unary("sin", b.mul(r, _c(ctx, math.pi))))
    y = _where(ctx, negative, b.sub(b.unary("log", b.div(_c(ctx, math.pi), sine)), lg), lg)
    pole = _and(ctx, negative, _is(ctx, "eq", r, 0.0))
    y = _where(ctx, b.select(pole, pole, _is(ctx, "eq", b.unary("abs", x), _INF)), _INF, y)
    return y


def _threshold(n):
    """Where the asymptotic series of psi^(n) with _TERMS terms is below
    1e-17 relative (its next term's bound): 10 for n <= 1, growing with n."""
    k = _TERMS + 1
    bound = abs(_BERNOULLI[k - 1]) / (2 * k) if n == 0 else (
        abs(_BERNOULLI[k - 1]) * math.factorial(2 * k + n - 1)
        / (math.factorial(2 * k) * math.factorial(n - 1)))
    t = _SHIFT_TO
    while float(bound) / t ** (2 * k) > 1e-17:
        t += 1.0
    return t


def _polygamma_positive(ctx, n, x):
    """psi^(n)(x) for x >= 0: shifted to z by psi^(n)(x) = psi^(n)(x + 1) +
    (-1)^(n+1) n! / x^(n+1), then the asymptotic series: log z - 1 / (2z) -
    sum_k B_2k / (2k z^2k) for n = 0, (-1)^(n+1) ((n-1)! / z^n + n! /
    (2 z^(n+1)) + sum_k B_2k (2k+n-1)! / ((2k)! z^(2k+n))) above."""
    b = ctx.b
    x = b.add(x, _c(ctx, 0.0))  # -0 -> +0: the pole's sign is +0's
    sign = -1.0 if n % 2 == 0 else 1.0  # (-1)^(n+1)
    scale = sign * math.factorial(n)
    z, total = _shift(ctx, x, _threshold(n),
                      lambda z: b.pow(b.div(_c(ctx, 1.0), z), float(n + 1)), b.add, 0.0)
    r = b.div(_c(ctx, 1.0), z)
    r2 = b.mul(r, r)
    if n == 0:
        coeffs = [float(bk / (2 * k)) for k, bk in enumerate(_BERNOULLI[:_TERMS], 1)]
        tail = b.add(b.mul(r, _c(ctx, 0.5)), b.mul(r2, _poly(ctx, r2, coeffs)))
        series = b.sub(b.unary("log", z), tail)
    else:
        coeffs = [sign * float(bk * math.factorial(2 * k + n - 1) / math.factorial(2 * k))
                  for k, bk in enumerate(_BERNOULLI[:_TERMS], 1)]
        head = b.add(_c(ctx, sign * math.factorial(n - 1)),
                     b.mul(r, _c(ctx, sign * math.factorial(n) / 2.0)))
        series = b.mul(b.pow(r, float(n)), b.add(head, b.mul(r2, _poly(ctx, r2, coeffs))))
    return b.add(series, b.mul(total, _c(ctx, scale)))


def _cot_derivative(n):
    """Coefficients (lowest first) of P_n with d^n/dx^n cot(pi x) =
    pi^n P_n(cot(pi x)): P_0 = c, P_(k+1) = -(1 + c^2) P_k'(c)."""
    p = [0, 1]
    for _ in range(n):
        d = [i * p[i] for i in range(1, len(p))] or [0]
        p = [0] * (len(d) + 2)
        for i, c in enumerate(d):
            p[i] -= c
            p[i + 2] -= c
    return [float(c) for c in p]


def _polygamma64(ctx, n, x):
    """psi^(n)(x); for x < 0 by reflection, psi^(n)(x) = (-1)^n
    psi^(n)(1 - x) - pi^(n+1) P_n(cot(pi x)) (the n-th derivative of
    psi(1 - x) - psi(x) = pi cot(pi x)). Special values as torch's:
    digamma(+-0) = -+inf, NaN at the negative integers and -inf, inf at
    inf; for n >= 1 (-1)^(n+1) inf at 0 and the negative integers (torch's
    trigamma there is sin(pi x)'s rounding: about 1e15 in f32), trigamma
    NaN at -inf and 0 at inf, n >= 2 (-1)^(n+1) inf at -inf, NaN at inf."""
    b = ctx.b
    negative = _is(ctx, "lt", x, 0.0)
    w = _where(ctx, negative, b.sub(_c(ctx, 1.0), x), x)
    p = _polygamma_positive(ctx, n, w)
    r = b.mul(_reduced(ctx, x), _c(ctx, math.pi))
    cot = b.div(b.unary("cos", r), b.unary("sin", r))
    cot_term = b.mul(_poly(ctx, cot, _cot_derivative(n)), _c(ctx, math.pi ** (n + 1)))
    reflected = b.sub(p if n % 2 == 0 else b.unary("neg", p), cot_term)
    y = _where(ctx, negative, reflected, p)
    integer = _is(ctx, "eq", b.binary("fmod", x, _c(ctx, 1.0)), 0.0)
    pole = _and(ctx, _is(ctx, "le", x, 0.0), integer)
    minus_inf = _is(ctx, "eq", x, -_INF)
    plus_inf = _is(ctx, "eq", x, _INF)
    if n == 0:
        y = _where(ctx, b.select(pole, pole, minus_inf), _NAN, y)
        negative_zero = _and(ctx, _is(ctx, "eq", x, 0.0),
                             _is(ctx, "lt", b.div(_c(ctx, 1.0), x), 0.0))
        y = _where(ctx, _is(ctx, "eq", x, 0.0), -_INF, y)
        return _where(ctx, negative_zero, _INF, _where(ctx, plus_inf, _INF, y))
    signed_inf = _INF if n % 2 == 1 else -_INF
    y = _where(ctx, pole, signed_inf, y)
    if n == 1:
        return _where(ctx, plus_inf, 0.0, _where(ctx, minus_inf, _NAN, y))
    return _where(ctx, plus_inf, _NAN, _where(ctx, minus_inf, signed_inf, y))


@lowers("aten.lgamma.default")
def lgamma(ctx, x):
    """log |Gamma(x)|, gradient digamma(x) (torch's)."""
    v, y = _f64(ctx, x)
    return _result(ctx, v, _lgamma64(ctx, y), _polygamma64(ctx, 0, y))


@lowers("aten.digamma.default")
def digamma(ctx, x):
    """psi(x), gradient trigamma(x) (torch's polygamma(1, x))."""
    v, y = _f64(ctx, x)
    return _result(ctx, v, _polygamma64(ctx, 0, y), _polygamma64(ctx, 1, y))


@lowers("aten.polygamma.default")
def polygamma(ctx, n, x):
    """psi^(n)(x) for a known n >= 0, gradient psi^(n+1)(x) (torch's; n
    is an int, without a gradient)."""
    if not isinstance(n, int) or n < 0:
        ctx.unsupported(f"polygamma of order {n!r}", "use an integer order n >= 0")
    v, y = _f64(ctx, x)
    return _result(ctx, v, _polygamma64(ctx, n, y), _polygamma64(ctx, n + 1, y))


@lowers("aten.mvlgamma.default")
def mvlgamma(ctx, x, p):
    """The multivariate log-gamma sum_(i<p) lgamma(x - i/2) + p (p - 1) /
    4 log(pi), gradient sum_i digamma(x - i/2) (torch's; torch checks x >
    (p - 1) / 2 while tracing)."""
    b = ctx.b
    v, y = _f64(ctx, x)
    total = _c(ctx, p * (p - 1) / 4.0 * math.log(math.pi))
    slope = _c(ctx, 0.0)
    for i in range(p):
        shifted = b.sub(y, _c(ctx, i / 2.0))
        total = b.add(total, _lgamma64(ctx, shifted))
        slope = b.add(slope, _polygamma64(ctx, 0, shifted))
    return _result(ctx, v, total, slope)


# -- modified Bessel functions of the first kind, orders 0 and 1 ------------------------

_BESSEL_SERIES_TO = 20.0  # power series below, asymptotic expansion from here
_BESSEL_SERIES_TERMS = 36  # (x^2 / 4)^k / (k! (k + nu)!), k < 36: 1e-17 relative at x = 20
_BESSEL_ASYMPTOTIC_TERMS = 26  # e^-2x-small from x = 20


def _bessel_series(ctx, nu, a):
    """I_nu(a) / (a / 2)^nu = sum_k (a^2 / 4)^k / (k! (k + nu)!) for
    0 <= a <= 20: positive terms, no cancellation."""
    b = ctx.b
    t = b.mul(b.mul(a, a), _c(ctx, 0.25))
    coeffs = [1.0 / (math.factorial(k) * math.factorial(k + nu))
              for k in range(_BESSEL_SERIES_TERMS)]
    return _poly(ctx, t, coeffs)


def _bessel_asymptotic(ctx, nu, a):
    """I_nu(a) e^-a sqrt(2 pi a) = sum_k (-1)^k prod_(j<=k) (4 nu^2 - (2j -
    1)^2) / (k! (8a)^k) for a >= 20, where the terms fall below 1e-17
    before they grow."""
    b = ctx.b
    mu = 4 * nu * nu
    coeffs, c = [], Fraction(1)
    for k in range(_BESSEL_ASYMPTOTIC_TERMS):
        coeffs.append(float(c))
        c = -c * (mu - (2 * k + 1) ** 2) / ((k + 1) * 8)
    return _poly(ctx, b.div(_c(ctx, 1.0), a), coeffs)


def _bessel64(ctx, nu, x, scaled):
    """I_nu(x) (nu = 0, 1), or e^-|x| I_nu(x) when `scaled`; I_1 is odd.
    I_nu overflows to inf past |x| = 709.8 (its e^|x|), as torch's."""
    b = ctx.b
    a = b.unary("abs", x)
    large = _is(ctx, "ge", a, _BESSEL_SERIES_TO)
    small_a = _where(ctx, large, _c(ctx, 0.0), a)
    small = _bessel_series(ctx, nu, small_a)
    if nu == 1:
        small = b.mul(small, b.mul(small_a, _c(ctx, 0.5)))
    if scaled:
        small = b.mul(small, b.unary("exp", b.unary("neg", small_a)))
    large_a = _where(ctx, large, a, _c(ctx, _BESSEL_SERIES_TO))
    big = b.div(_bessel_asymptotic(ctx, nu, large_a),
                b.unary("sqrt", b.mul(large_a, _c(ctx, 2.0 * math.pi))))
    if not scaled:
        big = b.mul(big, b.unary("exp", large_a))
    y = _where(ctx, large, big, small)
    if nu == 1:
        y = _where(ctx, _is(ctx, "lt", x, 0.0), b.unary("neg", y), y)
    return _where(ctx, b.compare("ne", x, x), _NAN, y)


def _sign(ctx, x):
    """sgn(x): 1, -1 or 0 (0 for NaN)."""
    s = _where(ctx, _is(ctx, "gt", x, 0.0), 1.0, _c(ctx, 0.0))
    return _where(ctx, _is(ctx, "lt", x, 0.0), -1.0, s)


def _i1_slope(ctx, x, scaled, eps):
    """torch's i1 / i1e derivative: I_0(x) - I_1(x) / x (scaled: e^-|x|
    I_0(x) - e^-|x| I_1(x) (sgn(x) + 1 / x)), 1/2 where |x| <= the traced
    type's epsilon."""
    b = ctx.b
    tiny = _is(ctx, "le", b.unary("abs", x), eps)
    safe = _where(ctx, tiny, _c(ctx, eps), x)
    inverse = b.div(_c(ctx, 1.0), safe)
    if scaled:
        inverse = b.add(inverse, _sign(ctx, safe))
    slope = b.sub(_bessel64(ctx, 0, safe, scaled),
                  b.mul(_bessel64(ctx, 1, safe, scaled), inverse))
    return _where(ctx, tiny, 0.5, slope)


def _eps(ctx):
    return float(torch.finfo(dtypes.torch_dtype(ctx.out().dtype)).eps)


@lowers("aten.i0.default")
def i0(ctx, x):
    """I_0(x), gradient I_1(x) (torch's)."""
    v, y = _f64(ctx, x)
    return _result(ctx, v, _bessel64(ctx, 0, y, False), _bessel64(ctx, 1, y, False))


@lowers("aten.special_i0e.default")
def i0e(ctx, x):
    """e^-|x| I_0(x), gradient i1e(x) - sgn(x) i0e(x) (torch's)."""
    b = ctx.b
    v, y = _f64(ctx, x)
    r = _bessel64(ctx, 0, y, True)
    slope = b.sub(_bessel64(ctx, 1, y, True), b.mul(_sign(ctx, y), r))
    return _result(ctx, v, r, slope)


@lowers("aten.special_i1.default")
def i1(ctx, x):
    """I_1(x), gradient I_0(x) - I_1(x) / x (1/2 at tiny x, torch's)."""
    v, y = _f64(ctx, x)
    return _result(ctx, v, _bessel64(ctx, 1, y, False), _i1_slope(ctx, y, False, _eps(ctx)))


@lowers("aten.special_i1e.default")
def i1e(ctx, x):
    """e^-|x| I_1(x), gradient i0e(x) - i1e(x) (sgn(x) + 1 / x) (1/2 at
    tiny x, torch's)."""
    v, y = _f64(ctx, x)
    return _result(ctx, v, _bessel64(ctx, 1, y, True), _i1_slope(ctx, y, True, _eps(ctx)))


@lowers("aten.special_modified_bessel_i0.default", "aten.special_modified_bessel_i1.default")
def modified_bessel(ctx, x):
    """torch.special.modified_bessel_i0 / i1: I_0, I_1 as i0 / i1, without a
    gradient (torch defines none)."""
    b = ctx.b
    v, y = _f64(ctx, x)
    nu = 0 if ctx.name.endswith("i0.default") else 1
    return b.stop_gradient(b.convert(_bessel64(ctx, nu, y, False), v.dtype))


@lowers("aten.special_spherical_bessel_j0.default")
def spherical_bessel_j0(ctx, x):
    """sin(x) / x in f64: 1 at 0, 0 at +-inf (torch's), without a gradient
    (torch defines none)."""
    b = ctx.b
    v, y = _f64(ctx, x)
    zero = _is(ctx, "eq", y, 0.0)
    safe = _where(ctx, zero, _c(ctx, 1.0), y)
    r = _where(ctx, zero, 1.0, b.div(b.unary("sin", safe), safe))
    r = _where(ctx, _is(ctx, "eq", b.unary("abs", y), _INF), 0.0, r)
    return b.stop_gradient(b.convert(r, v.dtype))


# -- entr, xlog1py ----------------------------------------------------------------

@lowers("aten.special_entr.default")
def entr(ctx, x):
    """-x log(x): 0 at 0, -inf below, NaN at NaN (torch's); gradient
    -(1 + log(x)) (inf at 0, NaN below)."""
    b = ctx.b
    v, y = _f64(ctx, x)
    if v.dtype in ("f16", "bf16"):  # torch rounds log(x) and the product to the type
        r = b.convert(b.unary("neg", b.mul(v, b.unary("log", v))), "f64")
    else:
        r = b.unary("neg", b.mul(y, b.unary("log", y)))
    r = _where(ctx, _is(ctx, "eq", y, 0.0), 0.0, r)
    r = _where(ctx, _is(ctx, "lt", y, 0.0), -_INF, r)
    slope = b.unary("neg", b.add(_c(ctx, 1.0), b.unary("log", y)))
    return _result(ctx, v, r, slope)


@lowers("aten.special_xlog1py.default", "aten.special_xlog1py.self_scalar",
        "aten.special_xlog1py.other_scalar")
def xlog1py(ctx, a, c):
    """x log1p(y), 0 where x == 0 unless y is NaN (xlogy's rule)."""
    return x_times_log(ctx, a, c, lambda y: log1p_of(ctx, y))


# -- Hurwitz zeta ------------------------------------------------------------------

_ZETA_TERMS = 12  # sum of the first 12 terms, Euler-Maclaurin's tail from q + 12
_ZETA_TAIL = 12   # Bernoulli terms of the tail (B_2 .. B_24, Cephes' count)
_BERNOULLI_MORE = _BERNOULLI + [Fraction(854513, 138), Fraction(-236364091, 2730)]


def _power(ctx, base, x, odd):
    """base^-x for base != 0: exp(-x log |base|), negative where base < 0
    and the (integer) x is odd."""
    b = ctx.b
    p = b.unary("exp", b.unary("neg", b.mul(x, b.unary("log", b.unary("abs", base)))))
    flip = _and(ctx, _is(ctx, "lt", base, 0.0), odd)
    return _where(ctx, flip, b.unary("neg", p), p)


def _zeta64(ctx, x, q):
    """zeta(x, q) = sum_k (q + k)^-x: 12 terms, then w = q + 12's
    Euler-Maclaurin tail w^(1-x) / (x - 1) + w^-x / 2 + sum_j B_2j / (2j)!
    x (x + 1) ... (x + 2j - 2) w^(-x-2j+1). Special values as torch's
    (Cephes'): inf at x = 1 and at q <= 0 integer, NaN for x < 1 and for
    q <= 0 with a fractional x; NaN also for q < -3 (w < 9, where the tail
    does not hold; torch sums further)."""
    b = ctx.b
    one = _c(ctx, 1.0)
    odd = b.compare("ne", b.binary("fmod", x, _c(ctx, 2.0)), _c(ctx, 0.0))
    total = _c(ctx, 0.0)
    for k in range(_ZETA_TERMS):
        total = b.add(total, _power(ctx, b.add(q, _c(ctx, float(k))), x, odd))
    w = b.add(q, _c(ctx, float(_ZETA_TERMS)))
    w = _where(ctx, _is(ctx, "gt", w, 0.0), w, one)  # the NaN cases below
    wx = _power(ctx, w, x, odd)
    tail = b.add(b.div(b.mul(wx, w), b.sub(x, one)), b.mul(wx, _c(ctx, 0.5)))
    rising, inverse = x, b.div(wx, w)  # x (x + 1) ..., w^(-x-2j+1)
    inverse_square = b.div(one, b.mul(w, w))
    for j in range(1, _ZETA_TAIL + 1):
        c = _c(ctx, float(_BERNOULLI_MORE[j - 1]) / math.factorial(2 * j))
        tail = b.add(tail, b.mul(b.mul(c, rising), inverse))
        rising = b.mul(rising, b.mul(b.add(x, _c(ctx, 2.0 * j - 1)), b.add(x, _c(ctx, 2.0 * j))))
        inverse = b.mul(inverse, inverse_square)
    y = b.add(total, tail)
    integer_x = _is(ctx, "eq", b.binary("fmod", x, one), 0.0)
    nonpositive = _is(ctx, "le", q, 0.0)
    pole = _and(ctx, nonpositive, _is(ctx, "eq", b.binary("fmod", q, one), 0.0))
    undefined = b.select(_is(ctx, "lt", q, -3.0), ctx.tensor(True, "i1"),
                         _and(ctx, nonpositive, b.select(integer_x, ctx.tensor(False, "i1"),
                                                         ctx.tensor(True, "i1"))))
    y = _where(ctx, undefined, _NAN, y)
    y = _where(ctx, pole, _INF, y)
    y = _where(ctx, _is(ctx, "lt", x, 1.0), _NAN, y)
    return _where(ctx, _is(ctx, "eq", x, 1.0), _INF, y)


@lowers("aten.special_zeta.default", "aten.special_zeta.self_scalar",
        "aten.special_zeta.other_scalar")
def zeta(ctx, x, q):
    """The Hurwitz zeta function zeta(x, q); gradient -x zeta(x + 1, q) to
    q (torch's). torch has no derivative for x (its backward raises): tfc
    passes none to x."""
    dt, b = ctx.out().dtype, ctx.b
    xv, qv = ctx.tensor(x, dt), ctx.tensor(q, dt)
    shape = ctx.out().shape
    xv, qv = b.broadcast_to(xv, shape), b.broadcast_to(qv, shape)
    x64, q64 = b.convert(xv, "f64"), b.convert(qv, "f64")
    y = _zeta64(ctx, x64, q64)
    slope = b.mul(b.unary("neg", x64), _zeta64(ctx, b.add(x64, _c(ctx, 1.0)), q64))
    return _result(ctx, qv, y, slope)


# -- regularized incomplete gamma ---------------------------------------------------

_IGAMMA_TERMS = 150  # series and continued-fraction terms: f64's digits for a <= 400


def _igamma64(ctx, a, x):
    """(P(a, x), Q(a, x)) = the regularized lower and upper incomplete
    gamma functions, with f = x^a e^-x / Gamma(a): for x < a + 1 the series
    P = f / a sum_k x^k / ((a + 1) ... (a + k)), else Legendre's continued
    fraction Q = f / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...));
    the other one is 1 minus it. Special values as torch's: NaN for a < 0,
    x < 0, a = x = 0 and a = x = inf; P = 1 at a = 0 and at x = inf, P = 0
    at x = 0 and at a = inf."""
    b = ctx.b
    one = _c(ctx, 1.0)
    positive = _and(ctx, _is(ctx, "gt", a, 0.0), _is(ctx, "gt", x, 0.0))
    finite = _and(ctx, _is(ctx, "lt", a, _INF), _is(ctx, "lt", x, _INF))
    usable = _and(ctx, positive, finite)
    sa, sx = _where(ctx, usable, a, one), _where(ctx, usable, x, one)
    f = b.unary("exp", b.sub(b.sub(b.mul(sa, b.unary("log", sx)), sx), _lgamma64(ctx, sa)))
    term, total = one, one
    for k in range(1, _IGAMMA_TERMS):
        term = b.mul(term, b.div(sx, b.add(sa, _c(ctx, float(k)))))
        total = b.add(total, term)
    series = b.mul(b.div(f, sa), total)
    frac = b.sub(b.add(sx, _c(ctx, 2.0 * _IGAMMA_TERMS + 1)), sa)
    for i in range(_IGAMMA_TERMS, 0, -1):
        partial = b.mul(_c(ctx, float(i)), b.sub(_c(ctx, float(i)), sa))
        frac = b.sub(b.sub(b.add(sx, _c(ctx, 2.0 * i - 1)), sa), b.div(partial, frac))
    upper = b.div(f, frac)
    use_series = b.compare("lt", sx, b.add(sa, one))
    p = _where(ctx, use_series, series, b.sub(one, upper))
    q = _where(ctx, use_series, b.sub(one, series), upper)
    # Edges: P's value (Q = 1 - P there), NaN where undefined.
    zero_x = _is(ctx, "eq", x, 0.0)
    edge = _where(ctx, _is(ctx, "eq", a, 0.0), one, _c(ctx, _NAN))
    edge = _where(ctx, b.select(zero_x, zero_x, _is(ctx, "eq", a, _INF)), 0.0, edge)
    edge = _where(ctx, _is(ctx, "eq", x, _INF), one, edge)
    nan = b.select(_is(ctx, "lt", a, 0.0), ctx.tensor(True, "i1"), _is(ctx, "lt", x, 0.0))
    nan = b.select(nan, nan, _and(ctx, _is(ctx, "eq", a, 0.0), zero_x))
    nan = b.select(nan, nan, _and(ctx, _is(ctx, "eq", a, _INF), _is(ctx, "eq", x, _INF)))
    nan = b.select(nan, nan, b.select(b.compare("ne", a, a), ctx.tensor(True, "i1"),
                                      b.compare("ne", x, x)))
    edge = _where(ctx, nan, _NAN, edge)
    p = _where(ctx, usable, p, edge)
    q = _where(ctx, usable, q, b.sub(one, edge))
    return p, q


@lowers("aten.igamma.default", "aten.igammac.default")
def igamma(ctx, a, x):
    """torch.special.gammainc / gammaincc (P and Q); gradient to x, +-x^(a-1)
    e^-x / Gamma(a) (torch's); none to a (torch's backward raises)."""
    dt, b = ctx.out().dtype, ctx.b
    shape = ctx.out().shape
    av = b.broadcast_to(ctx.tensor(a, dt), shape)
    xv = b.broadcast_to(ctx.tensor(x, dt), shape)
    a64, x64 = b.convert(av, "f64"), b.convert(xv, "f64")
    p, q = _igamma64(ctx, a64, x64)
    log_x = b.unary("log", x64)
    density = b.unary("exp", b.sub(b.sub(b.mul(b.sub(a64, _c(ctx, 1.0)), log_x), x64),
                                   _lgamma64(ctx, a64)))
    if ctx.name == "aten.igamma.default":
        return _result(ctx, xv, p, density)
    return _result(ctx, xv, q, b.unary("neg", density))
