"""Piecewise-constant ops: sign, floor, ceil, trunc, round (half to even,
also to decimals) and frac. Their gradient is zero (frac's is one), as in
torch: sign selects constants, the rounded values are wrapped in
tfc.stop_gradient."""
import math

import torch

from .. import dtypes
from ..registry import lowers


@lowers("aten.sign.default", "aten.sgn.default")
def sign(ctx, x):
    """1, -1 or 0 (0 also for NaN, as torch's (0 < x) - (x < 0))."""
    dt, b = ctx.out().dtype, ctx.b
    y = ctx.tensor(x, dt)
    zero = ctx.tensor(0, dt)
    negative = b.select(b.compare("lt", y, zero), ctx.tensor(-1, dt), zero)
    return b.select(b.compare("gt", y, zero), ctx.tensor(1, dt), negative)


# -- rounding: piecewise constant, so their gradient is zero (stop_gradient) --

def trunc_toward_zero(ctx, y):
    """y rounded toward zero: through i64 where |y| < 2^(mantissa bits),
    where every float is already an integer (and for inf and NaN) y."""
    b, dt = ctx.b, y.dtype
    exact = 1.0 / torch.finfo(dtypes.torch_dtype(dt)).eps  # 2^(mantissa bits)
    small = b.compare("lt", b.unary("abs", y), ctx.tensor(exact, dt))
    safe = b.select(small, y, ctx.tensor(0.0, dt))  # never convert an out-of-range value
    return b.select(small, b.convert(b.convert(safe, "i64"), dt), y)


def signed_zero(ctx, r, y):
    """r with zeros carrying y's sign (torch's floor(-0.5) is -1, its
    ceil(-0.5) and trunc(-0.5) are -0)."""
    b, dt = ctx.b, y.dtype
    return b.select(b.compare("eq", r, ctx.tensor(0.0, dt)), b.mul(y, ctx.tensor(0.0, dt)), r)


def floor_toward_minus_inf(ctx, y):
    """y rounded down (a zero may lose its sign; inf and NaN stay)."""
    b, dt = ctx.b, y.dtype
    t = trunc_toward_zero(ctx, y)
    return b.sub(t, b.select(b.compare("gt", t, y), ctx.tensor(1.0, dt), ctx.tensor(0.0, dt)))


def round_half_even(ctx, y):
    """y rounded to the nearest integer, ties to even (std::nearbyint's
    default; a zero may lose its sign)."""
    b, dt = ctx.b, y.dtype
    one, zero = ctx.tensor(1.0, dt), ctx.tensor(0.0, dt)
    f = floor_toward_minus_inf(ctx, y)
    d = b.sub(y, f)  # exact: f is within one of y
    half = ctx.tensor(0.5, dt)
    f_half = b.mul(f, half)
    odd = b.compare("ne", f_half, floor_toward_minus_inf(ctx, f_half))
    up = b.select(b.compare("gt", d, half), one,
                  b.select(b.compare("eq", d, half), b.select(odd, one, zero), zero))
    return b.add(f, up)


def _rounding(kind):
    def lower(ctx, x):
        dt, b = ctx.out().dtype, ctx.b
        y = ctx.tensor(x, dt)
        if not dtypes.is_float(dt):
            return y
        one, zero = ctx.tensor(1.0, dt), ctx.tensor(0.0, dt)
        if kind == "trunc":
            r = trunc_toward_zero(ctx, y)
        elif kind == "floor":
            r = floor_toward_minus_inf(ctx, y)
        elif kind == "ceil":
            t = trunc_toward_zero(ctx, y)
            r = b.add(t, b.select(b.compare("lt", t, y), one, zero))
        else:  # round half to even
            r = round_half_even(ctx, y)
        return b.stop_gradient(signed_zero(ctx, r, y))
    lower.__name__ = kind
    return lower


for _kind in ("trunc", "floor", "ceil", "round"):
    lowers(f"aten.{_kind}.default")(_rounding(_kind))


@lowers("aten.round.decimals")
def round_decimals(ctx, x, decimals=0):
    """torch.round(x, decimals=d) (torch.special.round): ATen's
    nearbyint(x * 10^d) / 10^d, for d < 0 nearbyint(x / 10^-d) * 10^-d,
    each op rounded to x's type (also bf16, as torch); zero gradient."""
    dt, b = ctx.out().dtype, ctx.b
    if not dtypes.is_float(dt) or decimals == 0:
        return _rounding("round")(ctx, x)
    v = ctx.tensor(x, dt)
    # 10^d past f64's range is inf, as ATen's pow (x * inf, x / inf).
    scale = ctx.tensor(10.0 ** abs(decimals) if abs(decimals) <= 308 else math.inf, dt)
    if decimals > 0:
        r = b.div(round_half_even(ctx, b.mul(v, scale)), scale)
    else:
        r = b.mul(round_half_even(ctx, b.div(v, scale)), scale)
    return b.stop_gradient(signed_zero(ctx, r, v))


@lowers("aten.frac.default")
def frac(ctx, x):
    """x - trunc(x) (gradient 1, as torch's)."""
    y = ctx.tensor(x, ctx.out().dtype)
    return ctx.b.sub(y, ctx.b.stop_gradient(signed_zero(ctx, trunc_toward_zero(ctx, y), y)))
