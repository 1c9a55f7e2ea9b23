"""Powers: x ** number and integer powers of integer tensors (exact
products, wrapping as torch's), x ** tensor and number ** tensor (exp and
log with C pow's special cases, torch's gradients through a
straight-through surrogate)."""
import math

from .. import dtypes
from ..registry import lowers


@lowers("aten.pow.Tensor_Scalar")
def pow_scalar(ctx, x, exponent):
    dt = ctx.out().dtype
    if not dtypes.is_float(dt):
        return _integer_power(ctx, ctx.tensor(x, dt), exponent)
    return ctx.b.pow(ctx.tensor(x, dt), float(exponent))


def _integer_power(ctx, x, exponent):
    """x ** n of an integer tensor (an image's pixels squared), exactly as
    torch's: repeated squaring, wrapping as its multiplications do (uint8
    modulo 256 after the importer's wrap, as i32 products wrap modulo 2^32);
    a negative or non-integer n is torch's error too."""
    n = exponent
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        ctx.unsupported(f"an integer tensor to the power {exponent!r} (torch allows integers "
                        "to non-negative integer powers only)",
                        hint="convert to float first: x.float() ** e")
    b = ctx.b
    result, base = None, x
    while n:
        if n & 1:
            result = base if result is None else b.mul(result, base)
        n >>= 1
        if n:
            base = b.mul(base, base)
    if result is None:  # x ** 0
        return b.broadcast_to(ctx.tensor(1, x.dtype), x.shape)
    return result


@lowers("aten.pow.Tensor_Tensor", "aten.pow.Scalar")
def pow_tensor(ctx, base, exponent):
    dt = ctx.out().dtype
    b = ctx.b
    def constant(x, what):
        """The one value of a scalar or a known tensor of equal elements."""
        if not ctx.is_static(x):
            return None
        v = ctx.static(x, what)
        if hasattr(v, "reshape"):
            flat = v.reshape(-1)
            return float(flat[0]) if flat.numel() >= 1 and bool((flat == flat[0]).all()) else None
        return float(v)

    if not dtypes.is_float(dt):
        return _integer_tensor_power(ctx, base, exponent)
    e = constant(exponent, "the exponent")
    if e is not None:
        return b.broadcast_to(b.pow(ctx.tensor(base, dt), e), ctx.out().shape)
    value = constant(base, "the base")
    if value is not None:
        if value > 0:
            # base ** e = exp(e * ln(base)) for a positive constant base.
            e = ctx.tensor(exponent, dt)
            return b.broadcast_to(b.unary("exp", b.mul(e, ctx.tensor(math.log(value), dt))),
                                  ctx.out().shape)
    return _tensor_power(ctx, base, exponent)


def _integer_tensor_power(ctx, base, exponent):
    """base ** exponent of integers (2 ** int_tensor, int ** a traced or
    known exponent tensor), exactly as torch's: squaring and multiplying
    by base for each set bit of the exponent (all of its width; products
    wrap as torch's). A negative exponent gives 1 for base 1, +-1 for base
    -1 (its parity) and 0 otherwise, as torch's integer pow."""
    b, out = ctx.b, ctx.out()
    dt = out.dtype
    x, t = (b.broadcast_to(ctx.tensor(v, dt), out.shape) for v in (base, exponent))
    one, zero = ctx.tensor(1, dt), ctx.tensor(0, dt)
    result, square = b.broadcast_to(one, out.shape), x
    bits = 64 if dt == "i64" else 32
    for k in range(bits - 1):  # the sign bit is handled below
        bit = b.binary("bitwise_and", b.binary("shift_right", t, ctx.tensor(k, dt)), one)
        result = b.select(b.compare("ne", bit, zero), b.mul(result, square), result)
        if k < bits - 2:
            square = b.mul(square, square)
    odd = b.compare("ne", b.binary("bitwise_and", t, one), zero)
    minus_one = ctx.tensor(-1, dt)
    negative = b.select(b.compare("eq", x, one), one,
                        b.select(b.compare("eq", x, minus_one),
                                 b.select(odd, minus_one, one), zero))
    return b.select(b.compare("lt", t, zero), negative, result)


def _power_values(ctx, x, t):
    """x ** t elementwise for floats x, t (no gradient), as C's pow:
    |x| ** t = exp(t log|x|), negated for a negative x and an odd integer t,
    NaN for a finite negative x and a finite non-integer t; 1 where t == 0
    or x == 1 (also against NaN), and for |x| == 1 against t = +-inf."""
    b, dt = ctx.b, x.dtype
    one, zero, inf = (ctx.tensor(v, dt) for v in (1.0, 0.0, math.inf))
    yes, no = ctx.tensor(True, "i1"), ctx.tensor(False, "i1")
    size = b.unary("abs", x)
    mag = b.unary("exp", b.mul(t, b.unary("log", size)))
    t_inf = b.compare("eq", b.unary("abs", t), inf)
    mag = b.select(b.select(b.compare("eq", size, one), t_inf, no), one, mag)
    odd = b.compare("eq", b.unary("abs", b.binary("fmod", t, ctx.tensor(2.0, dt))), one)
    fraction = b.select(t_inf, no, b.compare("ne", b.binary("fmod", t, one), zero))
    # The sign follows x's sign bit: x < 0, or 1 / x < 0 for a zero
    # ((-0) ** -1 = -inf); (-0) ** 0.5 is 0, not NaN.
    below = b.compare("lt", x, zero)
    negative = b.select(b.compare("eq", x, zero), b.compare("lt", b.div(one, x), zero), below)
    out = b.select(b.select(negative, odd, no), b.unary("neg", mag), mag)
    finite_negative = b.select(below, b.compare("ne", size, inf), no)
    out = b.select(b.select(finite_negative, fraction, no), ctx.tensor(math.nan, dt), out)
    return b.select(b.select(b.compare("eq", t, zero), yes, b.compare("eq", x, one)), one, out)


def _tensor_power(ctx, base, exponent):
    """base ** exponent for a traced exponent (GeM pooling's learnable p),
    from exp and log (_power_values; 16-bit types in f32; integer results
    take _integer_tensor_power). The gradients are torch's, passed by a
    straight-through
    surrogate x c_x + t c_t of constant coefficients: c_x = t x ** (t - 1)
    (0 where t == 0), c_t = x ** t log x (0 where x == 0 and t >= 0)."""
    b, out = ctx.b, ctx.out()
    dt = out.dtype
    cd = "f32" if dt in ("f16", "bf16") else dt
    x, t = (b.broadcast_to(b.convert(ctx.tensor(v, dt), cd), out.shape)
            for v in (base, exponent))
    value = _power_values(ctx, x, t)
    zero, one = ctx.tensor(0.0, cd), ctx.tensor(1.0, cd)
    c_x = b.select(b.compare("eq", t, zero), zero,
                   b.mul(t, _power_values(ctx, x, b.sub(t, one))))
    at_zero = b.select(b.compare("eq", x, zero), b.compare("ge", t, zero), ctx.tensor(False, "i1"))
    c_t = b.select(at_zero, zero,
                   b.mul(value, b.unary("log", x)))
    surrogate = b.add(b.mul(x, b.stop_gradient(c_x)), b.mul(t, b.stop_gradient(c_t)))
    return b.convert(b.straight_through(b.stop_gradient(value), surrogate), dt)
