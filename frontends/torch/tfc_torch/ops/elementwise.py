"""Elementwise aten ops: arithmetic, comparisons, selections, integer bit
operations and dtype conversions (transcendental functions composed from
tfc's pointwise ops, log1p / asinh / hypot / xlogy ...: transcendental.py;
activations: activation.py; rounding: rounding.py; powers: power.py). Operands are converted to the traced result's element type
first (torch's type promotion made explicit, since tfc never promotes
implicitly); Python scalars become 0-d splat constants rounded to that
type, as torch rounds them."""
import math

import torch

from .. import dtypes
from ..registry import expands, lowers
from ..builder import broadcast_shapes
from .common import promoted
from .rounding import signed_zero, trunc_toward_zero


_INTEGER_BITS = {"i32": 32, "i64": 64}


def _wrapped(x, dtype):
    """A Python int operand of an integer result as torch casts it to the
    tensor's type: wrapped to the width in two's complement (int32 * 2**33
    multiplies by 0, int32 * (2**32 + 3) by 3)."""
    bits = _INTEGER_BITS.get(dtype)
    if bits is None or not isinstance(x, int) or isinstance(x, bool):
        return x
    half = 1 << (bits - 1)
    return (x + half) % (1 << bits) - half


def _operands(ctx, *xs, dtype=None):
    dtype = dtype or ctx.out().dtype
    return [ctx.tensor(_wrapped(x, dtype), dtype) for x in xs]


def _scaled(ctx, y, alpha, dtype):
    if alpha == 1:
        return y
    return ctx.b.mul(y, ctx.tensor(_wrapped(alpha, dtype), dtype))


@lowers("aten.add.Tensor", "aten.add.Scalar")
def add(ctx, a, b, alpha=1):
    dt = ctx.out().dtype
    if dt == "i1":  # torch adds bools as a logical or (isfinite's decomposition)
        return logical_or(ctx, a, b)
    x, y = _operands(ctx, a, b)
    return ctx.b.add(x, _scaled(ctx, y, alpha, dt))


@lowers("aten.sub.Tensor", "aten.sub.Scalar")
def sub(ctx, a, b, alpha=1):
    dt = ctx.out().dtype
    x, y = _operands(ctx, a, b)
    return ctx.b.sub(x, _scaled(ctx, y, alpha, dt))


@lowers("aten.rsub.Scalar", "aten.rsub.Tensor")
def rsub(ctx, a, b, alpha=1):
    dt = ctx.out().dtype
    x, y = _operands(ctx, a, b)
    return ctx.b.sub(y, _scaled(ctx, x, alpha, dt))


@lowers("aten.mul.Tensor", "aten.mul.Scalar")
def mul(ctx, a, b):
    if ctx.out().dtype == "i1":  # a logical and
        return logical_and(ctx, a, b)
    x, y = _operands(ctx, a, b)
    return ctx.b.mul(x, y)


@lowers("aten.div.Tensor", "aten.div.Scalar")
def div(ctx, a, b):
    x, y = _operands(ctx, a, b)
    return ctx.b.div(x, y)


@lowers("aten.div.Tensor_mode", "aten.div.Scalar_mode")
def div_mode(ctx, a, b, rounding_mode=None):
    """Integers divide truncating (tfc.div), or flooring: one less where a
    remainder is left and the signs differ (Python's //); floats truncate
    a / b (torch's trunc division), or floor with ATen's formula
    (_floor_quotient, from the exact tfc.fmod). Both float roundings have a
    zero gradient, as torch's."""
    dt, bld = ctx.out().dtype, ctx.b
    integer = dt in ("i32", "i64")
    if rounding_mode is None or (rounding_mode == "trunc" and integer):
        x, y = _operands(ctx, a, b)
        return bld.div(x, y)
    if rounding_mode == "floor" and integer:
        x, y = _operands(ctx, a, b)
        q = bld.div(x, y)
        zero = ctx.tensor(0, dt)
        inexact = bld.compare("ne", bld.sub(x, bld.mul(q, y)), zero)
        signs = bld.compare("ne", bld.compare("lt", x, zero), bld.compare("lt", y, zero))
        down = bld.select(inexact, signs, ctx.tensor(False, "i1"))
        return bld.select(down, bld.sub(q, ctx.tensor(1, dt)), q)
    if rounding_mode == "trunc" and dtypes.is_float(dt):
        x, y = _operands(ctx, a, b)
        q = bld.div(x, y)
        return bld.stop_gradient(signed_zero(ctx, trunc_toward_zero(ctx, q), q))
    if rounding_mode == "floor" and dtypes.is_float(dt):
        x, y = _operands(ctx, a, b)
        m = bld.binary("fmod", x, y)
        return bld.stop_gradient(_floor_quotient(ctx, x, y, m, _remainder_fix(ctx, m, y)))
    ctx.unsupported(f"rounding_mode={rounding_mode!r} on {dt} values is not supported",
                    "divide integer or float tensors")


@lowers("aten.floor_divide.default", "aten.floor_divide.Scalar")
def floor_divide(ctx, a, b):
    return div_mode(ctx, a, b, "floor")


@lowers("aten.maximum.default")
def maximum(ctx, a, b):
    if ctx.out().dtype == "i1":
        return logical_or(ctx, a, b)
    return ctx.b.binary("maximum", *_operands(ctx, a, b))


@lowers("aten.minimum.default")
def minimum(ctx, a, b):
    if ctx.out().dtype == "i1":
        return logical_and(ctx, a, b)
    return ctx.b.binary("minimum", *_operands(ctx, a, b))


@lowers("aten.fmax.default", "aten.fmin.default")
def fmax(ctx, a, b):
    """The larger (fmin: smaller) operand, ignoring a NaN one: a where a >=
    b (a <= b) or b is NaN, else b, so NaN only where both are and the
    gradient goes as torch's (to a on ties and where b is NaN)."""
    bld = ctx.b
    x, y = _operands(ctx, a, b)
    keep = bld.compare("ge" if ctx.name == "aten.fmax.default" else "le", x, y)
    if dtypes.is_float(x.dtype):
        keep = bld.select(bld.compare("ne", y, y), ctx.tensor(True, "i1"), keep)
    return bld.broadcast_to(bld.select(keep, x, y), ctx.out().shape)


def _remainder_fix(ctx, m, y):
    """Where the remainder m = fmod(x, y) is nonzero and its sign is not
    y's: there Python's % adds y and // takes one less."""
    bld, zero = ctx.b, ctx.tensor(0, m.dtype)
    return bld.select(bld.compare("ne", m, zero),
                      bld.compare("ne", bld.compare("lt", m, zero), bld.compare("lt", y, zero)),
                      ctx.tensor(False, "i1"))


def _floor_quotient(ctx, x, y, m, fix):
    """torch's floor division of floats (ATen's div_floor_floating), given
    m = fmod(x, y) and its _remainder_fix: d = (x - m) / y, less one where
    fixed; its floor, plus one where d exceeds it by more than 1/2 (d's
    rounding); zero with the sign of x / y where d is zero; x / y where y
    is zero. Computed in f32 for 16-bit types (torch's Half and BFloat16
    kernels compute in float) and rounded once to x's type."""
    bld, out = ctx.b, x.dtype
    dt = dtypes.accumulation_type(out)
    x, y, m = (bld.convert(v, dt) for v in (x, y, m))
    one, zero = ctx.tensor(1.0, dt), ctx.tensor(0.0, dt)
    d = bld.div(bld.sub(x, m), y)
    d = bld.select(fix, bld.sub(d, one), d)
    t = trunc_toward_zero(ctx, d)
    f = bld.sub(t, bld.select(bld.compare("gt", t, d), one, zero))  # floor(d)
    f = bld.select(bld.compare("gt", bld.sub(d, f), ctx.tensor(0.5, dt)), bld.add(f, one), f)
    q = bld.div(x, y)
    f = bld.select(bld.compare("eq", d, zero), bld.mul(q, zero), f)
    return bld.convert(bld.select(bld.compare("eq", y, zero), q, f), out)


def _integer_operands(ctx, a, b, what):
    dt = ctx.out().dtype
    if dt not in ("i32", "i64"):
        ctx.unsupported(f"{what} of {dt} values is not supported",
                        "compute the remainder of integer or float tensors")
    return _operands(ctx, a, b)


@lowers("aten.fmod.Tensor", "aten.fmod.Scalar")
def fmod(ctx, a, b):
    """C's fmod: tfc.fmod for floats (exact; 16-bit types in f32, also
    exact), whose gradient is torch's (g for a, -g * trunc(a / b) for b, in
    the traced type); a - trunc(a / b) * b for integers."""
    dt, bld = ctx.out().dtype, ctx.b
    if dtypes.is_float(dt):
        return bld.binary("fmod", *_operands(ctx, a, b))
    x, y = _integer_operands(ctx, a, b, "fmod")
    return bld.sub(x, bld.mul(bld.div(x, y), y))


@lowers("aten.remainder.Tensor", "aten.remainder.Scalar", "aten.remainder.Scalar_Tensor")
def remainder(ctx, a, b):
    """Python's %: m = fmod(a, b), plus b where m is nonzero and its sign
    is not b's (ATen's formula; for floats from tfc.fmod, m + b rounded
    once as torch's). The float gradient is torch's, g for a and
    -g * (a // b) for b with ATen's floor division, through a
    straight-through source (the select's own gradient would truncate a
    rounded a / b instead)."""
    dt, bld = ctx.out().dtype, ctx.b
    if dtypes.is_float(dt):
        x, y = _operands(ctx, a, b)
        m = bld.binary("fmod", x, y)
        fix = _remainder_fix(ctx, m, y)
        r = bld.select(fix, bld.add(m, y), m)
        q = bld.stop_gradient(_floor_quotient(ctx, x, y, m, fix))
        return bld.straight_through(r, bld.sub(x, bld.mul(y, q)))
    x, y = _integer_operands(ctx, a, b, "remainder")
    m = bld.sub(x, bld.mul(bld.div(x, y), y))
    return bld.select(_remainder_fix(ctx, m, y), bld.add(m, y), m)


def _logaddexp(ctx, a, b, exp_neg, scale):
    """max(a, b) + log1p(exp_neg(|a - b|)) * scale, and a where a == b is
    infinite (torch's formula; its gradient splits a tie evenly, as
    maximum's does)."""
    bld, dt = ctx.b, ctx.out().dtype
    x, y = _operands(ctx, a, b)
    tail = exp_neg(bld.unary("abs", bld.sub(x, y)))
    out = bld.add(bld.binary("maximum", x, y),
                  bld.mul(bld.unary("log", bld.add(ctx.tensor(1.0, dt), tail)),
                          ctx.tensor(scale, dt)))
    infinite = bld.compare("eq", bld.unary("abs", x), ctx.tensor(float("inf"), dt))
    same = bld.select(infinite, bld.compare("eq", x, y), ctx.tensor(False, "i1"))
    return bld.select(same, x, out)


@lowers("aten.logaddexp.default")
def logaddexp(ctx, a, b):
    return _logaddexp(ctx, a, b, lambda d: ctx.b.unary("exp", ctx.b.unary("neg", d)), 1.0)


@lowers("aten.logaddexp2.default")
def logaddexp2(ctx, a, b):
    dt = ctx.out().dtype
    return _logaddexp(ctx, a, b, lambda d: ctx.b.unary(
        "exp", ctx.b.mul(d, ctx.tensor(-math.log(2.0), dt))), 1.0 / math.log(2.0))


@lowers("aten.copysign.Tensor", "aten.copysign.Scalar")
def copysign(ctx, a, b):
    """|a| with b's sign: negative where b < 0 (-inf among them) or b is -0
    (1 / b < 0 for a zero b). A NaN b's sign bit is not visible to tfc's
    compares: |a| there. The gradient is torch's, g * result / a (0 where
    a == 0; NaN where a is infinite or NaN), through a straight-through
    source."""
    bld, dt = ctx.b, ctx.out().dtype
    x, y = _operands(ctx, a, b)
    magnitude = bld.unary("abs", x)
    zero = ctx.tensor(0.0, dt)
    negative = bld.select(bld.compare("eq", y, zero),
                          bld.compare("lt", bld.div(ctx.tensor(1.0, dt), y), zero),
                          bld.compare("lt", y, zero))
    value = bld.stop_gradient(bld.select(negative, bld.unary("neg", magnitude), magnitude))
    if not dtypes.is_float(dt):
        return value
    ratio = bld.select(bld.compare("eq", x, zero), zero, bld.div(value, x))
    return bld.straight_through(value, bld.mul(bld.broadcast_to(x, value.shape),
                                               bld.stop_gradient(ratio)))


@lowers("aten.clamp.default", "aten.clamp.Tensor", "aten.clamp_min.default",
        "aten.clamp_max.default", "aten.clamp_min.Tensor", "aten.clamp_max.Tensor",
        "aten.hardtanh.default")
def clamp(ctx, x, lo=None, hi=None):
    """min(max(x, lo), hi) as selects, so that a value on a bound gets
    torch's gradient (not maximum's even split of a tie): clamp passes it
    to x (lo <= x <= hi), hardtanh to neither (lo < x < hi); a tensor bound
    gets it where x is strictly beyond it. NaN stays NaN: a NaN x, or a
    NaN tensor bound, gives NaN with no gradient to anything under clamp
    (torch's: x >= lo and x <= hi are false), while hardtanh passes x's
    (x <= lo and x >= hi are false); a NaN number bound is no bound, as
    torch's."""
    dt, b = ctx.out().dtype, ctx.b
    y = x0 = ctx.tensor(x, dt)
    if ctx.name.startswith("aten.clamp_max"):
        lo, hi = None, lo
    inclusive = ctx.name != "aten.hardtanh.default"
    if not inclusive:
        lo = -1.0 if lo is None else lo
        hi = 1.0 if hi is None else hi
    nan = b.compare("ne", x0, x0) if inclusive and dtypes.is_float(dt) else None
    for limit, beyond in ((lo, "lt" if inclusive else "le"), (hi, "gt" if inclusive else "ge")):
        if limit is None:
            continue
        bound = ctx.tensor(limit, dt)
        y = b.broadcast_to(b.select(b.compare(beyond, y, bound), bound, y),
                           broadcast_shapes(y.shape, bound.shape))
        if nan is not None and not isinstance(limit, (int, float)):
            nan = b.select(nan, ctx.tensor(True, "i1"), b.compare("ne", bound, bound))
    if nan is None:
        return y
    return b.broadcast_to(b.select(nan, ctx.tensor(float("nan"), dt), y), y.shape)


_DIRECTIONS = {"eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge"}


def _compare(direction):
    def lower(ctx, a, b):
        dt = promoted(a, b)
        x, y = ctx.tensor(a, dt), ctx.tensor(b, dt)
        return ctx.b.compare(direction, x, y)
    lower.__name__ = f"compare_{direction}"
    return lower


for _d in _DIRECTIONS:
    lowers(f"aten.{_d}.Tensor", f"aten.{_d}.Scalar")(_compare(_d))


@lowers("aten.where.self", "aten.where.ScalarSelf", "aten.where.ScalarOther", "aten.where.Scalar")
def where(ctx, cond, a, b):
    dt = ctx.out().dtype
    c = ctx.tensor(cond, "i1")
    return ctx.b.broadcast_to(ctx.b.select(c, *_operands(ctx, a, b, dtype=dt)), ctx.out().shape)


@lowers("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
def masked_fill(ctx, x, mask, value):
    dt = ctx.out().dtype
    y = ctx.tensor(x, dt)
    v = ctx.tensor(value, dt)
    return ctx.b.broadcast_to(ctx.b.select(ctx.tensor(mask, "i1"), v, y), ctx.out().shape)


def _unary(name):
    def lower(ctx, x):
        return ctx.b.unary(name, ctx.tensor(x, ctx.out().dtype))
    lower.__name__ = name
    return lower


for _name in ("neg", "abs", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid",
              "relu", "silu"):
    lowers(f"aten.{_name}.default")(_unary(_name))


@lowers("aten.reciprocal.default")
def reciprocal(ctx, x):
    dt = ctx.out().dtype
    return ctx.b.div(ctx.tensor(1.0, dt), ctx.tensor(x, dt))


@lowers("aten.addcmul.default")
def addcmul(ctx, s, t1, t2, value=1):
    """s + value * t1 * t2, in torch's order ((value * t1) * t2)."""
    dt, b = ctx.out().dtype, ctx.b
    x, y, z = _operands(ctx, s, t1, t2)
    return b.broadcast_to(b.add(x, b.mul(b.mul(ctx.tensor(value, dt), y), z)), ctx.out().shape)


@lowers("aten.addcdiv.default")
def addcdiv(ctx, s, t1, t2, value=1):
    """s + value * t1 / t2, in torch's order ((value * t1) / t2)."""
    dt, b = ctx.out().dtype, ctx.b
    x, y, z = _operands(ctx, s, t1, t2)
    return b.broadcast_to(b.add(x, b.div(b.mul(ctx.tensor(value, dt), y), z)), ctx.out().shape)


@lowers("aten.lerp.Scalar", "aten.lerp.Tensor")
def lerp(ctx, start, end, weight):
    """start + w (end - start) where |w| < 0.5, else end - (end - start)
    (1 - w): torch's two forms, each exact at its end."""
    dt, b = ctx.out().dtype, ctx.b
    s, e, w = _operands(ctx, start, end, weight)
    diff = b.sub(e, s)
    low = b.add(s, b.mul(w, diff))
    high = b.sub(e, b.mul(diff, b.sub(ctx.tensor(1.0, dt), w)))
    near_start = b.compare("lt", b.unary("abs", w), ctx.tensor(0.5, dt))
    return b.broadcast_to(b.select(near_start, low, high), ctx.out().shape)


@lowers("aten.nan_to_num.default")
def nan_to_num(ctx, x, nan=None, posinf=None, neginf=None):
    """NaN -> nan (0), +inf -> posinf (the type's largest), -inf -> neginf
    (its lowest)."""
    dt, b = ctx.out().dtype, ctx.b
    y = ctx.tensor(x, dt)
    if not dtypes.is_float(dt):
        return y
    info = torch.finfo(dtypes.torch_dtype(dt))
    inf = ctx.tensor(float("inf"), dt)
    out = b.select(b.compare("ne", y, y), ctx.tensor(0.0 if nan is None else nan, dt), y)
    out = b.select(b.compare("eq", y, inf),
                   ctx.tensor(info.max if posinf is None else posinf, dt), out)
    return b.select(b.compare("eq", y, b.unary("neg", inf)),
                    ctx.tensor(info.min if neginf is None else neginf, dt), out)


@lowers("aten.erf.default")
def erf(ctx, x):
    """A frontend op first, so that the exact-GELU pattern (passes/gelu.py)
    sees it whole; legalize turns the others into tfc.erf."""
    y = ctx.tensor(x, ctx.out().dtype)
    return ctx.b.frontend("erf", [y], {}, [y.type]).result


@expands("torch.erf")
def expand_erf(b, op):
    return [b.unary("erf", op.operands[0])]


@lowers("aten.logical_not.default", "aten.bitwise_not.default")
def logical_not(ctx, x):
    """Bools: a select; integers: tfc.bitwise_not (~x = -x - 1), and for a
    uint8 result (held as i32 in 0..255) x ^ 255 = 255 - x, as torch's."""
    if ctx.out().dtype != "i1":
        y = ctx.tensor(x, ctx.out().dtype)
        if ctx.node in ctx.uint8_nodes:
            return ctx.b.binary("bitwise_xor", y, ctx.tensor(255, y.dtype))
        return ctx.b.unary("bitwise_not", y)
    c = ctx.tensor(x, "i1")
    return ctx.b.select(c, ctx.tensor(False, "i1"), ctx.tensor(True, "i1"))


def _bitwise(ctx, name, a, b):
    """Integer and / or / xor (tfc.bitwise_*) in the traced result type
    (torch's promotion: a bool operand is 0 / 1; uint8 operands in 0..255
    give results in 0..255)."""
    return ctx.b.binary(name, *_operands(ctx, a, b))


@lowers("aten.logical_and.default", "aten.bitwise_and.Tensor")
def logical_and(ctx, a, b):
    if ctx.out().dtype != "i1":
        return _bitwise(ctx, "bitwise_and", a, b)
    x, y = ctx.tensor(a, "i1"), ctx.tensor(b, "i1")
    return ctx.b.broadcast_to(ctx.b.select(x, y, ctx.tensor(False, "i1")), ctx.out().shape)


@lowers("aten.logical_or.default", "aten.bitwise_or.Tensor")
def logical_or(ctx, a, b):
    if ctx.out().dtype != "i1":
        return _bitwise(ctx, "bitwise_or", a, b)
    x, y = ctx.tensor(a, "i1"), ctx.tensor(b, "i1")
    return ctx.b.broadcast_to(ctx.b.select(x, ctx.tensor(True, "i1"), y), ctx.out().shape)


@lowers("aten.logical_xor.default", "aten.bitwise_xor.Tensor")
def logical_xor(ctx, a, b):
    if ctx.out().dtype != "i1":
        return _bitwise(ctx, "bitwise_xor", a, b)
    return ctx.b.compare("ne", ctx.tensor(a, "i1"), ctx.tensor(b, "i1"))


_SHIFT_WIDTH = {"i32": 32, "i64": 64}
_TORCH_DEFINES_SHIFTS = tuple(int(v) for v in torch.__version__.split(".")[:2]) >= (2, 1)


def _shift(ctx, name, a, b):
    """tfc.shift_left / shift_right (arithmetic: torch's >> of signed
    integers) in the traced result type; a uint8 result (held as i32 in
    0..255) wraps modulo 256 after <<. An amount outside [0, bits) gives 0 /
    the sign fill, as torch >= 2.1; torch 1.13 takes it modulo the width, so
    there a Python number amount out of range is refused (a tensor one
    follows torch >= 2.1)."""
    dt = ctx.out().dtype
    if dt not in _SHIFT_WIDTH:
        ctx.unsupported(f"a bit shift of {dt} values is not supported",
                        "shift integer tensors (int32, int64, uint8)")
    width = _SHIFT_WIDTH[dt]
    if isinstance(b, int) and not 0 <= b < width and not _TORCH_DEFINES_SHIFTS:
        ctx.unsupported(f"a bit shift by {b}, outside [0, {width}): torch {torch.__version__} "
                        f"takes it modulo {width} and torch >= 2.1 gives "
                        f"{'0' if name == 'shift_left' else '0 or -1'}",
                        f"write a shift by {b % width} for torch {torch.__version__}'s result")
    y = ctx.b.binary(name, *_operands(ctx, a, b))
    if name == "shift_left" and ctx.node in ctx.uint8_nodes:
        y = ctx.b.binary("bitwise_and", y, ctx.tensor(255, y.dtype))
    return y


@lowers("aten.__lshift__.Tensor", "aten.__lshift__.Scalar", "aten.bitwise_left_shift.Tensor",
        "aten.bitwise_left_shift.Tensor_Scalar", "aten.bitwise_left_shift.Scalar_Tensor")
def shift_left(ctx, a, b):
    return _shift(ctx, "shift_left", a, b)


@lowers("aten.__rshift__.Tensor", "aten.__rshift__.Scalar", "aten.bitwise_right_shift.Tensor",
        "aten.bitwise_right_shift.Tensor_Scalar", "aten.bitwise_right_shift.Scalar_Tensor")
def shift_right(ctx, a, b):
    return _shift(ctx, "shift_right", a, b)


@lowers("aten.isnan.default")
def isnan(ctx, x):
    y = ctx.tensor(x)
    return ctx.b.compare("ne", y, y)


@lowers("aten.isinf.default")
def isinf(ctx, x):
    y = ctx.tensor(x)
    return ctx.b.compare("eq", ctx.b.unary("abs", y), ctx.tensor(float("inf"), y.dtype))


@lowers("aten.signbit.default")
def signbit(ctx, x):
    """Whether x's sign bit is set: x < 0, and for a zero 1 / x < 0 (-0).
    A NaN's sign bit cannot be read without a bit cast (tfc has none):
    false, where torch gives true for -NaN."""
    b = ctx.b
    y = ctx.tensor(x)
    if y.dtype == "i1":
        return b.splat(False, "i1", y.shape)
    zero = ctx.tensor(0, y.dtype)
    negative = b.compare("lt", y, zero)
    if not dtypes.is_float(y.dtype):
        return negative
    one = ctx.tensor(1.0, y.dtype)
    return b.select(b.compare("eq", y, zero), b.compare("lt", b.div(one, y), zero), negative)


@lowers("aten.deg2rad.default", "aten.rad2deg.default")
def deg2rad(ctx, x):
    """x times pi / 180 (rad2deg: 180 / pi), the factor rounded to x's
    type as torch's scalar multiply."""
    dt = ctx.out().dtype
    factor = math.pi / 180 if ctx.name.startswith("aten.deg2rad") else 180 / math.pi
    return ctx.b.mul(ctx.tensor(x, dt), ctx.tensor(factor, dt))


@lowers("aten.heaviside.default")
def heaviside(ctx, x, values):
    """0 where x < 0 (and NaN), `values` where x == 0, 1 where x > 0.
    torch 1.13 defines no derivative; tfc passes values' gradient where it
    is selected."""
    b, t = ctx.b, ctx.out()
    y, v = ctx.tensor(x, t.dtype), ctx.tensor(values, t.dtype)
    zero = ctx.tensor(0, t.dtype)
    step = b.select(b.compare("gt", y, zero), ctx.tensor(1, t.dtype), zero)
    return b.broadcast_to(b.select(b.compare("eq", y, zero), v, step), t.shape)


@lowers("aten.isin.Tensor_Tensor", "aten.isin.Tensor_Scalar", "aten.isin.Scalar_Tensor")
def isin(ctx, elements, test_elements, assume_unique=False, invert=False):
    """Whether each element equals one of test_elements (compared in their
    promoted type; NaN equals nothing): a [..., n] comparison against the
    n flattened test elements, any over n (memory grows as numel * n)."""
    b = ctx.b
    dt = promoted(elements, test_elements)
    x, test = ctx.tensor(elements, dt), ctx.tensor(test_elements, dt)
    n = test.type.numel
    hits = b.compare("eq", b.reshape(x, x.shape + (1,)), b.reshape(test, (n,)))
    found = b.compare("gt", b.reduce("sum", b.convert(hits, "i32"), [-1]), ctx.tensor(0, "i32"))
    if invert:
        found = b.select(found, ctx.tensor(False, "i1"), ctx.tensor(True, "i1"))
    return b.reshape(found, ctx.out().shape)


@lowers("aten.frexp.Tensor")
def frexp(ctx, x):
    """(mantissa, exponent) with x = mantissa 2^exponent, |mantissa| in
    [0.5, 1): |x| in f64 scaled into [0.5, 1) by exact powers of two chosen
    by comparisons (down from 2^1023, up from 2^-1074, so subnormals are
    exact), the exponent counting them (i32). 0, +-inf and NaN give
    (x, 0), as torch. The mantissa's gradient is torch's, g / 2^exponent
    (through the scalings); the exponent has none."""
    b = ctx.b
    dt = ctx.out(0).dtype
    v = ctx.tensor(x, dt)
    wide = b.convert(v, "f64")
    size = b.stop_gradient(b.unary("abs", wide))
    f64 = lambda c: ctx.tensor(float(c), "f64")  # noqa: E731
    scaled, exponent = wide, f64(0)
    steps = [2 ** k for k in range(9, -1, -1)]
    for k, up in [(k, False) for k in steps] + [(k, True) for k in [512] + steps]:
        limit = 2.0 ** -k if up else 2.0 ** k
        move = b.compare("lt" if up else "ge", size, f64(limit))
        scale = b.select(move, f64(2.0 ** k if up else 2.0 ** -k), f64(1))
        size, scaled = b.mul(size, scale), b.mul(scaled, scale)
        exponent = b.add(exponent, b.select(move, f64(-k if up else k), f64(0)))
    move = b.compare("ge", size, f64(1))  # [1, 2) -> [0.5, 1)
    scaled = b.mul(scaled, b.select(move, f64(0.5), f64(1)))
    exponent = b.add(exponent, b.select(move, f64(1), f64(0)))
    special = b.select(b.compare("eq", wide, f64(0)), ctx.tensor(True, "i1"),
                       b.compare("ne", b.sub(wide, wide), f64(0)))  # 0, inf, NaN
    exponent = b.select(special, f64(0), exponent)  # the scalings leave their mantissa x
    return b.convert(scaled, dt), b.convert(exponent, ctx.out(1).dtype)


@lowers("aten._to_copy.default", "aten.to.dtype", "aten.to.dtype_layout", "aten.to.device",
        "aten.to.other", "aten.type_as.default")
def to_copy(ctx, x, *args, **kwargs):
    return ctx.tensor(x, ctx.out().dtype)


@lowers("aten.detach.default")
def detach(ctx, x):
    """x.detach(): the value, with no gradient flowing back through it."""
    y = ctx.tensor(x, ctx.out().dtype)
    return ctx.b.stop_gradient(y) if dtypes.is_float(y.dtype) else y


@lowers("aten.clone.default", "aten.alias.default",
        "aten.lift_fresh_copy.default", "aten.lift_fresh.default", "aten.contiguous.default",
        "aten.positive.default", "aten.dropout.default", "aten.feature_dropout.default")
def identity(ctx, x, *args, **kwargs):
    if ctx.name in ("aten.dropout.default", "aten.feature_dropout.default"):
        p, train = args[0], args[1]
        if p != 0 and train:
            ctx.unsupported("dropout reached the trace undecomposed")
    return ctx.tensor(x, ctx.out().dtype)


@lowers("aten.copy.default")
def copy(ctx, target, src, non_blocking=False):
    t = ctx.out()
    return ctx.b.broadcast_to(ctx.tensor(src, t.dtype), t.shape)


@lowers("aten.fill.Scalar", "aten.fill.Tensor")
def fill(ctx, x, value):
    t = ctx.out()
    return ctx.b.broadcast_to(ctx.tensor(value, t.dtype), t.shape)


@lowers("aten.resize_as.default", "aten.resize.default")
def resize(ctx, x, *args, **kwargs):
    """x.resize_as_(y) / x.resize_(sizes) (the legacy x.new().resize_as_(y)):
    an empty x takes the new shape with zeros where torch leaves the memory
    uninitialized (as empty tensors while tracing), an x of as many
    elements its values reshaped; a resize keeping part of x is refused."""
    t = ctx.out()
    v = ctx.tensor(x)
    have, want = math.prod(v.shape), math.prod(t.shape)
    if have == 0:
        return ctx.tensor(0, t.dtype, t.shape)
    if have != want:
        ctx.unsupported(f"resizing {have} elements to {want} keeps part of the storage")
    return ctx.b.reshape(v, t.shape)


@lowers("aten.zeros_like.default", "aten.ones_like.default", "aten.full_like.default",
        "aten.empty_like.default", "aten.new_zeros.default", "aten.new_ones.default",
        "aten.new_full.default", "aten.new_empty.default", "aten.zero.default")
def like(ctx, x, *args, **kwargs):
    t = ctx.out()
    op = ctx.name.split(".")[1]
    if op in ("ones_like", "new_ones"):
        value = 1
    elif op in ("full_like",):
        value = args[0] if args else kwargs["fill_value"]
    elif op == "new_full":
        value = args[1] if len(args) > 1 else kwargs["fill_value"]
    else:
        value = 0
    return ctx.tensor(ctx.static(value, "the fill value"), t.dtype, t.shape)
