"""Transcendental functions composed from tfc's pointwise ops, torch's
forms and gradients: log1p / expm1 (tfc has neither), the inverse
trigonometric and hyperbolic functions (asinh, acosh, atanh, atan2, atan,
asin, acos) in forms without cancellation, sinc, log2 / log10 / exp2,
sinh / cosh / tan, hypot, xlogy and logit (16-bit types computed in f32
where the form needs it). The arithmetic they share with the other
elementwise ops is in elementwise.py."""
import math

from .. import dtypes
from ..registry import lowers
from .elementwise import _operands


def log1p_of(ctx, u):
    """log(1 + u) accurate for small |u| (tfc has no log1p op): log(w)
    with w = 1 + u, plus the rounding error of w relative to w, (u - (w -
    1)) / w, which is what log(w) misses (u itself when 1 + u rounds to 1).
    The correction's gradient cancels exactly, so d/du is 1 / w. Where w is
    0 or infinite, log(w) alone (-inf, inf; NaN at -inf, gradient -0 as
    torch's)."""
    b, dt = ctx.b, u.dtype
    one = ctx.tensor(1.0, dt)
    w = b.add(one, u)
    plain = b.unary("log", w)
    finite = b.select(b.compare("ne", w, ctx.tensor(0.0, dt)),
                      b.compare("lt", b.unary("abs", w), ctx.tensor(float("inf"), dt)),
                      ctx.tensor(False, "i1"))
    # Safe operands where the correction is not used, so no inf or NaN
    # reaches its gradient.
    safe_w = b.select(finite, w, one)
    safe_u = b.select(finite, u, ctx.tensor(0.0, dt))
    correction = b.div(b.sub(safe_u, b.sub(safe_w, one)), safe_w)
    return b.select(finite, b.add(plain, correction), plain)


@lowers("aten.log1p.default")
def log1p(ctx, x):
    return log1p_of(ctx, ctx.tensor(x, ctx.out().dtype))


@lowers("aten.expm1.default")
def expm1(ctx, x):
    """exp(x) - 1 accurate for small |x| (tfc has no expm1 op): Kahan's
    (u - 1) x / log(u) with u = exp(x), whose rounding errors in u - 1 and
    log(u) cancel; x itself where u rounds to 1 (keeps -0), -1 where u - 1
    is -1 (x = -inf among them), inf where u is. In f32 for 16-bit types.
    The gradient is torch's, grad * (result + 1), passed to x alone (the
    formula's own derivative is NaN where u == 1)."""
    dt, b = ctx.out().dtype, ctx.b
    v = ctx.tensor(x, dt)
    wide = dtypes.accumulation_type(dt)
    w = b.convert(v, wide)
    one, minus_one = ctx.tensor(1.0, wide), ctx.tensor(-1.0, wide)
    u = b.unary("exp", w)
    um1 = b.sub(u, one)
    y = b.div(b.mul(um1, w), b.unary("log", u))
    y = b.select(b.compare("eq", u, ctx.tensor(float("inf"), wide)), u, y)
    y = b.select(b.compare("eq", um1, minus_one), minus_one, y)
    y = b.convert(b.select(b.compare("eq", u, one), w, y), dt)
    slope = b.stop_gradient(b.add(y, ctx.tensor(1.0, dt)))
    return b.straight_through(b.stop_gradient(y), b.mul(v, slope))


def _in_accumulation_type(ctx, x, formula):
    """formula(x) computed in f32 for 16-bit types (its intermediate
    squares would overflow f16), converted back to the traced type."""
    dt = ctx.out().dtype
    v = ctx.tensor(x, dt)
    wide = dtypes.accumulation_type(dt)
    return ctx.b.convert(formula(ctx.b.convert(v, wide)), dt)


def _odd(ctx, y, formula):
    """formula(|y|) with y's sign, for an odd function whose formula is
    accurate on y >= 0. The mirror is a select, not abs, so y = 0 keeps
    its gradient (abs' would be 0 there)."""
    b = ctx.b
    negative = b.compare("lt", y, ctx.tensor(0.0, y.dtype))
    r = formula(b.select(negative, b.unary("neg", y), y))
    return b.select(negative, b.unary("neg", r), r)


# Above this, 1 + a^2 and a^2 - 1 round to a^2 even in f64 (a^2 would
# overflow f32 from 1.8e19): asinh(a) and acosh(a) are log(a) + log(2).
_HUGE = 2.0 ** 28


def _huge_split(ctx, a, small_formula):
    """small_formula(a) for a <= _HUGE, log(a) + log 2 above; each branch
    sees a safe operand (1 in the other's range), so neither overflows
    into the other's gradient."""
    b, dt = ctx.b, a.dtype
    huge = b.compare("gt", a, ctx.tensor(_HUGE, dt))
    small = small_formula(b.select(huge, ctx.tensor(1.0, dt), a))
    large = b.add(b.unary("log", b.select(huge, a, ctx.tensor(1.0, dt))),
                  ctx.tensor(math.log(2.0), dt))
    return b.select(huge, large, small)


@lowers("aten.asinh.default")
def asinh(ctx, x):
    """asinh(a) = log1p(a + a^2 / (1 + sqrt(1 + a^2))) for a >= 0 (no
    cancellation for small a), odd; gradient 1 / sqrt(1 + x^2)."""
    def formula(v):
        b = ctx.b
        one = ctx.tensor(1.0, v.dtype)

        def small(a):
            square = b.mul(a, a)
            return log1p_of(ctx, b.add(a, b.div(square, b.add(one, b.unary(
                "sqrt", b.add(one, square))))))
        return _odd(ctx, v, lambda a: _huge_split(ctx, a, small))
    return _in_accumulation_type(ctx, x, formula)


def _torch_slope(ctx, value, x, slope):
    """`value` (no gradient of its own) with the gradient g * slope(x), the
    slope computed in x's type as torch's backward formula (so also where
    value is NaN), through a straight-through source."""
    b = ctx.b
    v = ctx.tensor(x, ctx.out().dtype)
    return b.straight_through(b.stop_gradient(value), b.mul(v, b.stop_gradient(slope(v))))


@lowers("aten.acosh.default")
def acosh(ctx, x):
    """acosh(x) = log1p(t + sqrt(t) sqrt(t + 2)) with t = x - 1 (exact near
    1, where log(x + sqrt(x^2 - 1)) cancels); NaN below 1. The gradient is
    torch's g rsqrt(x^2 - 1) (inf at 1, finite below -1 where the value is
    NaN, 0 where x^2 overflows)."""
    def formula(v):
        b = ctx.b
        one = ctx.tensor(1.0, v.dtype)

        def small(a):
            t = b.sub(a, one)
            root = b.mul(b.unary("sqrt", t), b.unary("sqrt", b.add(t, ctx.tensor(2.0, v.dtype))))
            return log1p_of(ctx, b.add(t, root))
        return _huge_split(ctx, v, small)
    b, one = ctx.b, ctx.tensor(1.0, ctx.out().dtype)
    return _torch_slope(ctx, _in_accumulation_type(ctx, x, formula), x,
                        lambda v: b.unary("rsqrt", b.sub(b.mul(v, v), one)))


@lowers("aten.atanh.default")
def atanh(ctx, x):
    """atanh(x) = (log1p(x) - log1p(-x)) / 2: accurate for small |x| and
    near +-1 (1 - |x| is exact there), +-inf at +-1, NaN beyond; gradient
    torch's g / (1 - x^2) (also beyond +-1, where the value is NaN)."""
    def formula(v):
        b = ctx.b
        diff = b.sub(log1p_of(ctx, v), log1p_of(ctx, b.unary("neg", v)))
        return b.mul(diff, ctx.tensor(0.5, v.dtype))
    b, one = ctx.b, ctx.tensor(1.0, ctx.out().dtype)
    return _torch_slope(ctx, _in_accumulation_type(ctx, x, formula), x,
                        lambda v: b.div(one, b.sub(one, b.mul(v, v))))


@lowers("aten.atan2.default")
def atan2(ctx, a, b):
    """tfc.atan2 (y = a first, as torch); its gradient is torch's."""
    return ctx.b.binary("atan2", *_operands(ctx, a, b))


@lowers("aten.atan.default")
def atan(ctx, x):
    """atan(x) = atan2(x, 1): the same signed zero, +-pi/2 at +-inf, and
    gradient 1 / (x^2 + 1)."""
    dt = ctx.out().dtype
    return ctx.b.binary("atan2", ctx.tensor(x, dt), ctx.tensor(1.0, dt))


def _cosine_of_asin(ctx, v):
    """sqrt(1 - v^2) as sqrt(1 - v) sqrt(1 + v): 1 - v is exact for
    v >= 0.5 (1 + v for v <= -0.5), where 1 - v^2 would cancel; NaN for
    |v| > 1. With the root split in two, the gradient at v = +-1 is an
    infinity (torch's) rather than the inf * 0 of sqrt((1 - v) (1 + v))."""
    b = ctx.b
    one = ctx.tensor(1.0, v.dtype)
    return b.mul(b.unary("sqrt", b.sub(one, v)), b.unary("sqrt", b.add(one, v)))


@lowers("aten.asin.default")
def asin(ctx, x):
    """asin(x) = atan2(x, sqrt(1 - x^2)), in f32 for 16-bit types: -0 at
    -0, +-pi/2 at +-1 with gradient +inf there, NaN beyond."""
    return _in_accumulation_type(
        ctx, x, lambda v: ctx.b.binary("atan2", v, _cosine_of_asin(ctx, v)))


@lowers("aten.acos.default")
def acos(ctx, x):
    """acos(x) = atan2(sqrt(1 - x^2), x), in f32 for 16-bit types: pi at
    -1, 0 at 1, gradient -inf at both, NaN beyond."""
    return _in_accumulation_type(
        ctx, x, lambda v: ctx.b.binary("atan2", _cosine_of_asin(ctx, v), v))


@lowers("aten.sinc.default")
def sinc(ctx, x):
    """sin(pi x) / (pi x), 1 at x = 0 with gradient 0 there (torch's). The
    quotient divides by 1 at x = 0 (a safe denominator), so the branch
    select leaves unused yields no NaN gradient."""
    dt, b = ctx.out().dtype, ctx.b
    y = ctx.tensor(x, dt)
    one = ctx.tensor(1.0, dt)
    zero = b.compare("eq", y, ctx.tensor(0.0, dt))
    scaled = b.select(zero, one, b.mul(y, ctx.tensor(math.pi, dt)))
    return b.select(zero, one, b.div(b.unary("sin", scaled), scaled))


def _scaled_log(ctx, x, base):
    dt = ctx.out().dtype
    return ctx.b.mul(ctx.b.unary("log", ctx.tensor(x, dt)), ctx.tensor(1.0 / math.log(base), dt))


@lowers("aten.log2.default")
def log2(ctx, x):
    return _scaled_log(ctx, x, 2.0)


@lowers("aten.log10.default")
def log10(ctx, x):
    return _scaled_log(ctx, x, 10.0)


@lowers("aten.exp2.default")
def exp2(ctx, x):
    dt = ctx.out().dtype
    return ctx.b.unary("exp", ctx.b.mul(ctx.tensor(x, dt), ctx.tensor(math.log(2.0), dt)))


def _exp_pair(ctx, x):
    dt, b = ctx.out().dtype, ctx.b
    y = ctx.tensor(x, dt)
    return b.unary("exp", y), b.unary("exp", b.unary("neg", y)), ctx.tensor(0.5, dt)


@lowers("aten.sinh.default")
def sinh(ctx, x):
    up, down, half = _exp_pair(ctx, x)
    return ctx.b.mul(ctx.b.sub(up, down), half)


@lowers("aten.cosh.default")
def cosh(ctx, x):
    up, down, half = _exp_pair(ctx, x)
    return ctx.b.mul(ctx.b.add(up, down), half)


@lowers("aten.tan.default")
def tan(ctx, x):
    y = ctx.tensor(x, ctx.out().dtype)
    return ctx.b.div(ctx.b.unary("sin", y), ctx.b.unary("cos", y))


@lowers("aten.hypot.default")
def hypot(ctx, a, b_):
    """sqrt(x^2 + y^2) scaled by m = max(|x|, |y|) as libm's hypot, m
    sqrt((x/m)^2 + (y/m)^2), so that neither square overflows (above
    1.8e19 in f32) nor underflows (below 1e-19); 0 where m is 0, inf where
    either is infinite (also against NaN). The gradient is torch's, g x / h
    and g y / h (NaN at the origin), through a straight-through source."""
    x, y = _operands(ctx, a, b_)
    b, dt = ctx.b, ctx.out().dtype
    inf = ctx.tensor(float("inf"), dt)
    ax, ay = b.unary("abs", x), b.unary("abs", y)
    m = b.binary("maximum", ax, ay)
    usable = b.select(b.compare("gt", m, ctx.tensor(0.0, dt)), b.compare("lt", m, inf),
                      ctx.tensor(False, "i1"))
    s = b.select(usable, m, ctx.tensor(1.0, dt))
    u, v = b.div(x, s), b.div(y, s)
    h = b.mul(m, b.unary("sqrt", b.add(b.mul(u, u), b.mul(v, v))))
    infinite = b.select(b.compare("eq", ax, inf), ctx.tensor(True, "i1"), b.compare("eq", ay, inf))
    h = b.stop_gradient(b.select(infinite, inf, h))
    source = b.add(b.mul(x, b.stop_gradient(b.div(x, h))), b.mul(y, b.stop_gradient(b.div(y, h))))
    return b.straight_through(h, source)


@lowers("aten.xlogy.Tensor", "aten.xlogy.Scalar_Self", "aten.xlogy.Scalar_Other")
def xlogy(ctx, a, b_):
    """x log(y), 0 where x == 0 unless y is NaN (torch's rule)."""
    return x_times_log(ctx, a, b_, lambda y: ctx.b.unary("log", y))


def x_times_log(ctx, a, b_, log):
    """x log(y) in the traced type with torch's xlogy rule: 0 where x == 0
    unless y is NaN; `log` maps y to its logarithm (log, log1p). Gradients
    as torch's: x log'(y) for y, and log(y) for x, also where x == 0 (a
    Gamma's log_prob at concentration 1; inf for y = inf) except where
    log(y) is -inf or NaN there (torch zeroes it where y <= 0, xlog1py's
    y <= -1): the select alone would give 0 at x == 0, so a term of value
    0 carries it, straight_through(0, x sg(L)) where x == 0."""
    dt, b = ctx.out().dtype, ctx.b
    x, y = _operands(ctx, a, b_)
    zero = ctx.tensor(0.0, dt)
    logs = log(y)
    skip = b.select(b.compare("ne", y, y), ctx.tensor(False, "i1"), b.compare("eq", x, zero))
    # log(y) taken as 0 at skip in the product, whose gradient for x would
    # be 0 * log(y), NaN where that is infinite.
    value = b.select(skip, zero, b.mul(x, b.select(skip, zero, logs)))
    above = b.compare("gt", logs, ctx.tensor(float("-inf"), dt))  # not -inf, not NaN
    slope = b.stop_gradient(b.select(b.select(skip, above, ctx.tensor(False, "i1")), logs, zero))
    carried = b.broadcast_to(b.mul(x, slope), value.shape)
    term = b.straight_through(b.splat(0.0, dt, value.shape), carried)
    return b.broadcast_to(b.add(value, term), ctx.out().shape)


@lowers("aten.logit.default")
def logit(ctx, x, eps=None):
    """log(z / (1 - z)), z = x clamped to [eps, 1 - eps] when eps is given.
    The gradient is torch's, g / (x (1 - x)) (inf at exactly 0 and 1, where
    the quotient's own would be inf * 0), outside [eps, 1 - eps] 0, or NaN
    outside [0, 1] without eps, through a straight-through source."""
    dt, b = ctx.out().dtype, ctx.b
    v = z = ctx.tensor(x, dt)
    one = ctx.tensor(1.0, dt)
    slope = b.div(one, b.mul(v, b.sub(one, v)))
    lo, hi, fill = ctx.tensor(0.0, dt), one, ctx.tensor(float("nan"), dt)
    if eps is not None:
        lo, hi, fill = ctx.tensor(eps, dt), ctx.tensor(1.0 - eps, dt), ctx.tensor(0.0, dt)
        z = b.select(b.compare("lt", z, lo), lo, b.select(b.compare("gt", z, hi), hi, z))
    outside = b.select(b.compare("lt", v, lo), ctx.tensor(True, "i1"), b.compare("gt", v, hi))
    slope = b.select(outside, fill, slope)
    value = b.stop_gradient(b.unary("log", b.div(z, b.sub(one, z))))
    return b.straight_through(value, b.mul(v, b.stop_gradient(slope)))
