"""Activation functions: gelu, leaky_relu, rrelu (eval), elu/celu, softplus, mish,
log_sigmoid, glu, threshold, hard/soft shrink, hardsigmoid, hardswish, each
composed from tfc's pointwise ops as torch defines it."""
from ..importer import Missing
from ..registry import lowers
from .common import norm_dim, result_used
from .transcendental import log1p_of


@lowers("aten.gelu.default")
def gelu(ctx, x, approximate="none"):
    return ctx.b.gelu(ctx.tensor(x, ctx.out().dtype), approximate)


@lowers("aten.leaky_relu.default")
def leaky_relu(ctx, x, negative_slope=0.01):
    dt = ctx.out().dtype
    y = ctx.tensor(x, dt)
    positive = ctx.b.compare("gt", y, ctx.tensor(0.0, dt))
    return ctx.b.select(positive, y, ctx.b.mul(y, ctx.tensor(negative_slope, dt)))


@lowers("aten.rrelu_with_noise.default")
def rrelu(ctx, x, noise, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """In eval mode leaky_relu with the mean slope (lower + upper) / 2, as
    torch's. Training mode draws one slope per element from torch's
    generator, which tfc cannot reproduce."""
    if training:
        ctx.unsupported("training-mode rrelu draws random slopes from torch's generator",
                        "call model.eval() (rrelu is then leaky_relu with slope "
                        "(lower + upper) / 2), or use F.leaky_relu")
    return leaky_relu(ctx, x, (lower + upper) / 2)


@lowers("aten.prelu.default")
def prelu(ctx, x, weight):
    """x where x > 0, else weight * x with one weight per channel (dim 1) or
    one for all; at 0 the gradient is weight's side, as torch's."""
    dt, b = ctx.out().dtype, ctx.b
    y = ctx.tensor(x, dt)
    w = ctx.tensor(weight, dt)
    if w.shape not in ((), (1,)):
        w = b.reshape(w, (w.shape[0],) + (1,) * (y.rank - 2))
    return b.broadcast_to(b.select(b.compare("gt", y, ctx.tensor(0.0, dt)), y, b.mul(w, y)),
                          y.shape)


@lowers("aten.elu.default")
def elu(ctx, x, alpha=1.0, scale=1.0, input_scale=1.0):
    """alpha (exp(y input_scale) - 1) where y <= 0, else y (NaN among
    them: torch's backward passes grad * scale there), times scale. The
    exponential reads 0 elsewhere: exp of a large positive y would be inf
    there, and the select's gradient of the unused side 0 * inf = NaN."""
    dt = ctx.out().dtype
    b = ctx.b
    y = ctx.tensor(x, dt)
    zero = ctx.tensor(0.0, dt)
    at_most = b.compare("le", y, zero)
    at_most_zero = b.select(at_most, y, zero)
    negative = b.mul(ctx.tensor(alpha, dt),
                     b.sub(b.unary("exp", b.mul(at_most_zero, ctx.tensor(input_scale, dt))),
                           ctx.tensor(1.0, dt)))
    out = b.select(at_most, negative, y)
    return out if scale == 1 else b.mul(out, ctx.tensor(scale, dt))


def _softplus(ctx, y, beta=1, threshold=20):
    """log1p(exp(beta y)) / beta (torch's; log1p keeps the digits of a
    small exp), y itself where beta y > threshold (the exponential reads 0
    there: exp of a large beta y would be inf, and the select's gradient of
    the unused side 0 * inf = NaN)."""
    dt, b = y.dtype, ctx.b
    scaled = b.mul(y, ctx.tensor(beta, dt))
    linear = b.compare("gt", scaled, ctx.tensor(threshold, dt))
    scaled = b.select(linear, ctx.tensor(0.0, dt), scaled)
    soft = b.div(log1p_of(ctx, b.unary("exp", scaled)), ctx.tensor(beta, dt))
    return b.select(linear, y, soft)


@lowers("aten.softplus.default")
def softplus(ctx, x, beta=1, threshold=20):
    return _softplus(ctx, ctx.tensor(x, ctx.out().dtype), beta, threshold)


@lowers("aten.mish.default")
def mish(ctx, x):
    """x tanh(softplus(x)), softplus with torch's threshold 20."""
    y = ctx.tensor(x, ctx.out().dtype)
    return ctx.b.mul(y, ctx.b.unary("tanh", _softplus(ctx, y)))


def softplus_of_negated(ctx, y):
    """log(1 + exp(-y)) computed stably as log1p(exp(-|y|)) + max(-y, 0)
    (binary_cross_entropy_with_logits' and log_sigmoid's term)."""
    b, dt = ctx.b, y.dtype
    tail = log1p_of(ctx, b.unary("exp", b.unary("neg", b.unary("abs", y))))
    return b.add(tail, b.binary("maximum", b.unary("neg", y), ctx.tensor(0.0, dt)))


def nan_gradient(ctx, y):
    """A term of value 0 (NaN where y is NaN) whose gradient is NaN exactly
    where y is NaN, for formulas whose selects and abs give 0 there where
    torch's backward gives NaN: select(n, y, 0) * select(n, NaN, 0), n =
    isnan(y) (the coefficient is 0 elsewhere, so no 0 * NaN arises)."""
    b, dt = ctx.b, y.dtype
    zero = ctx.tensor(0.0, dt)
    nan = b.compare("ne", y, y)
    return b.mul(b.select(nan, y, zero), b.select(nan, ctx.tensor(float("nan"), dt), zero))


@lowers("aten.log_sigmoid_forward.default")
def log_sigmoid_forward(ctx, x):
    """(log sigmoid(x), torch's backward buffer): -log(1 + exp(-x)), which
    neither overflows nor loses the small values of the negative side. The
    buffer, read only by log_sigmoid_backward (a derivative taken inside
    forward), is built when the graph reads it: torch's CPU exp(-|x|). At
    NaN the gradient is NaN, as torch's (nan_gradient; abs' and maximum's
    would give 0)."""
    y = ctx.tensor(x, ctx.out(0).dtype)
    b = ctx.b
    buffer = b.unary("exp", b.unary("neg", b.unary("abs", ctx.tensor(x, ctx.out(1).dtype)))) \
        if result_used(ctx, 1) else Missing("its second result is the backward's buffer")
    return b.sub(nan_gradient(ctx, y), softplus_of_negated(ctx, y)), buffer


@lowers("aten.glu.default")
def glu(ctx, x, dim=-1):
    """a * sigmoid(b) for the two halves a, b of x along `dim`."""
    y = ctx.tensor(x, ctx.out().dtype)
    d = norm_dim(dim, y.rank)
    half = y.shape[d] // 2
    a = ctx.b.slice_dim(y, d, 0, half)
    gate = ctx.b.slice_dim(y, d, half, 2 * half)
    return ctx.b.mul(a, ctx.b.unary("sigmoid", gate))


@lowers("aten.threshold.default")
def threshold(ctx, x, threshold, value):
    """value where x <= threshold, else x (NaN stays NaN, its gradient
    passes, as torch's)."""
    dt, b = ctx.out().dtype, ctx.b
    y = ctx.tensor(x, dt)
    return b.select(b.compare("le", y, ctx.tensor(threshold, dt)), ctx.tensor(value, dt), y)


@lowers("aten.hardshrink.default")
def hardshrink(ctx, x, lambd=0.5):
    """0 where |x| <= lambd, else x (NaN stays NaN, its gradient passes,
    as torch's)."""
    dt, b = ctx.out().dtype, ctx.b
    y = ctx.tensor(x, dt)
    return b.select(b.compare("le", b.unary("abs", y), ctx.tensor(lambd, dt)),
                    ctx.tensor(0.0, dt), y)


@lowers("aten.softshrink.default")
def softshrink(ctx, x, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, else 0: also at NaN,
    whose gradient passes (torch 1.13's forward and backward)."""
    dt, b = ctx.out().dtype, ctx.b
    y = ctx.tensor(x, dt)
    l = ctx.tensor(lambd, dt)
    zero = ctx.tensor(0.0, dt)
    middle = b.select(b.compare("ne", y, y), b.straight_through(b.splat(0.0, dt, y.shape), y), zero)
    below = b.select(b.compare("lt", y, b.unary("neg", l)), b.add(y, l), middle)
    return b.select(b.compare("gt", y, l), b.sub(y, l), below)


@lowers("aten.celu.default")
def celu(ctx, x, alpha=1.0):
    """max(0, x) + min(0, alpha (exp(x / alpha) - 1)): elu with input
    scale 1 / alpha."""
    return elu(ctx, x, alpha, 1.0, 1.0 / alpha)


def _relu6_of_shifted(ctx, y, inclusive):
    """min(max(y + 3, 0), 6) as selects: on a bound the gradient passes
    (inclusive, hardswish's) or not (hardsigmoid's), as torch's backward."""
    b, dt = ctx.b, y.dtype
    v = b.add(y, ctx.tensor(3.0, dt))
    zero, six = ctx.tensor(0.0, dt), ctx.tensor(6.0, dt)
    v = b.select(b.compare("lt" if inclusive else "le", v, zero), zero, v)
    return b.select(b.compare("gt" if inclusive else "ge", v, six), six, v)


@lowers("aten.hardsigmoid.default")
def hardsigmoid(ctx, x):
    """min(max(x + 3, 0), 6) / 6 (torch's rounding); gradient 1/6 strictly
    inside (-3, 3), 0 at NaN (NaN's value kept without gradient)."""
    b = ctx.b
    y = ctx.tensor(x, ctx.out().dtype)
    out = b.div(_relu6_of_shifted(ctx, y, False), ctx.tensor(6.0, y.dtype))
    return b.select(b.compare("ne", y, y), b.stop_gradient(y), out)


@lowers("aten.hardswish.default")
def hardswish(ctx, x):
    """x * min(max(x + 3, 0), 6) / 6; gradient x / 3 + 0.5 on [-3, 3], as
    torch's, and g at NaN (the formula reads 0 there, whose unused
    gradient would otherwise be 0 * NaN)."""
    b = ctx.b
    y = ctx.tensor(x, ctx.out().dtype)
    nan = b.compare("ne", y, y)
    v = b.select(nan, ctx.tensor(0.0, y.dtype), y)
    out = b.div(b.mul(v, _relu6_of_shifted(ctx, v, True)), ctx.tensor(6.0, y.dtype))
    return b.select(nan, y, out)
