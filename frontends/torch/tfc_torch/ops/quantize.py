"""Fake quantization (quantization-aware training): the cachemask forms
torch.fake_quantize_per_tensor_affine / _per_channel_affine trace to, the
learnable (LSQ) forms with their scale and zero-point gradients, and the
fused moving-average observer of torch.ao.quantization's default QAT
qconfigs (FusedMovingAvgObsFakeQuantize), whose running min / max, scale
and zero point are model state (tracing.py carries the buffers its
functionalized op writes back).

Every form follows ATen's CPU kernels: q = zero_point + nearbyint(x *
(1 / scale)) in f32 (ties to even), the output (clamp(q, quant_min,
quant_max) - zero_point) * scale, and the gradient of x the incoming one
where quant_min <= q <= quant_max, zero elsewhere (the cachemask); scale
and zero point get none, except in the learnable forms."""
import math
import struct

from .. import dtypes
from ..registry import lowers
from .rounding import round_half_even, trunc_toward_zero


def _work_dtype(x):
    """ATen computes x * inv_scale in f32 (f64 for f64 inputs)."""
    return "f64" if x.dtype == "f64" else "f32"


def _channel_view(ctx, v, rank, axis):
    """A per-channel [C] vector as [1, .., C, .., 1] along `axis`."""
    shape = [1] * rank
    shape[axis] = v.shape[0] if v.rank else 1
    return ctx.b.reshape(v, shape)


def _between(ctx, q, qmin, qmax):
    """quant_min <= q <= quant_max (i1)."""
    b = ctx.b
    low = b.compare("ge", q, ctx.tensor(float(qmin), q.dtype))
    high = b.compare("le", q, ctx.tensor(float(qmax), q.dtype))
    return b.select(low, high, low)


def _quantize(ctx, x, scale, zero_point, qmin, qmax, float_zero_point=False):
    """(fake-quantized x in x's type, the in-range mask, the unclamped
    quantized value q in the work type): scale an f32 Value broadcastable
    to x, zero_point a Value holding the (integer, unless
    float_zero_point) zero point."""
    b, wt = ctx.b, _work_dtype(x)
    xw = b.convert(x, wt)
    inv = b.convert(b.div(ctx.tensor(1.0, "f32"), scale), wt)  # 1.0f / scale
    zw = b.convert(zero_point, wt)
    if float_zero_point:  # lrintf(zero_point + x * inv_scale)
        q = round_half_even(ctx, b.add(zw, b.mul(xw, inv)))
    else:  # zero_point + nearbyint(x * inv_scale)
        q = b.add(zw, round_half_even(ctx, b.mul(xw, inv)))
    mask = _between(ctx, q, qmin, qmax)
    clamped = b.binary("minimum", b.binary("maximum", q, ctx.tensor(float(qmin), wt)),
                       ctx.tensor(float(qmax), wt))
    # (clamped - zero_point) * scale: exact integers times scale, rounded once
    # (ATen's double arithmetic; f32 rounds the same for an integer zero point).
    pt = "f64" if float_zero_point else wt
    out = b.mul(b.sub(b.convert(clamped, pt), b.convert(zero_point, pt)), b.convert(scale, pt))
    return b.convert(out, x.dtype), mask, q


def _with_mask_gradient(ctx, out, x, mask):
    """`out`, whose gradient passes to x where mask holds (torch's
    fake_quantize_*_cachemask_backward: grad * mask)."""
    b = ctx.b
    return b.straight_through(out, b.select(mask, x, b.stop_gradient(x)))


def _scalar(ctx, v, dtype):
    """A one-element tensor (or scalar) as a 0-d Value of `dtype`."""
    return ctx.b.reshape(ctx.tensor(v, dtype), ())


@lowers("aten.fake_quantize_per_tensor_affine_cachemask.default")
def fake_quantize_per_tensor_cachemask(ctx, x, scale, zero_point, qmin, qmax):
    """Python scale and zero point: (output, mask)."""
    x = ctx.tensor(x)
    s = ctx.tensor(float(scale), "f32")
    z = ctx.tensor(int(zero_point), "i64")
    out, mask, _ = _quantize(ctx, x, s, z, qmin, qmax)
    return _with_mask_gradient(ctx, out, x, mask), mask


@lowers("aten._fake_quantize_per_tensor_affine_cachemask_tensor_qparams.default")
def fake_quantize_per_tensor_tensor_qparams(ctx, x, scale, zero_point, enabled, qmin, qmax):
    """Tensor scale and zero point (their first element, as ATen's
    .item()), and the fake_quant_enabled flag, which must be known at trace
    time (a buffer the forward only reads): 0 passes x through."""
    x = ctx.tensor(x)
    on = ctx.static(enabled, "fake_quant_enabled")
    if int(on.reshape(-1)[0]) == 0:
        return x, ctx.tensor(True, "i1", x.shape)
    return _tensor_qparams(ctx, x, scale, zero_point, qmin, qmax)


def _first(ctx, v, dtype):
    """Element 0 of a (one-element or longer) tensor as a 0-d Value."""
    t = ctx.tensor(v)
    if t.rank:
        t = ctx.b.reshape(t, [math.prod(t.shape)])
        if t.shape[0] > 1:
            t = ctx.b.slice_dim(t, 0, 0, 1)
    return ctx.b.reshape(ctx.b.convert(t, dtype), ())


def _tensor_qparams(ctx, x, scale, zero_point, qmin, qmax):
    s = _first(ctx, scale, "f32")
    z = _first(ctx, zero_point, "i64")
    out, mask, _ = _quantize(ctx, x, s, z, qmin, qmax)
    return _with_mask_gradient(ctx, out, x, mask), mask


@lowers("aten.fake_quantize_per_channel_affine_cachemask.default")
def fake_quantize_per_channel_cachemask(ctx, x, scale, zero_point, axis, qmin, qmax):
    """Per-channel scale and zero point along `axis`; an integer zero point
    is added after the rounding, a floating-point one before it (ATen's two
    kernels)."""
    x = ctx.tensor(x)
    axis = axis % x.rank
    s = _channel_view(ctx, ctx.tensor(scale, "f32"), x.rank, axis)
    zt = ctx.tensor(zero_point)
    float_zp = dtypes.is_float(zt.dtype)
    z = _channel_view(ctx, zt, x.rank, axis)
    out, mask, _ = _quantize(ctx, x, s, z, qmin, qmax, float_zero_point=float_zp)
    return _with_mask_gradient(ctx, out, x, mask), mask


# -- learnable (LSQ) forms: gradients to scale and zero point -----------------------------

def _learnable(ctx, x, s, z, z_fwd, z_bwd, qmin, qmax, grad_factor):
    """The fake-quantized x (zero point z_fwd) whose gradients are ATen's
    learnable backward (zero point z_bwd): x the incoming gradient where
    quant_min <= nearbyint(z_bwd + x / scale) <= quant_max; scale (dY
    times) (xfq - x) / scale inside the range and quant_min - z (below) or
    quant_max - z (above) outside it, zero point -scale outside and 0
    inside, both times grad_factor. s, z, z_*: f32 Values broadcastable to
    x (s and z the parameters, which the gradients reach)."""
    b = ctx.b
    out, _, _ = _quantize(ctx, x, s, z_fwd, qmin, qmax)
    xf = b.stop_gradient(b.convert(x, "f32"))
    sc = b.stop_gradient(s)
    inv = b.div(ctx.tensor(1.0, "f32"), sc)
    q = round_half_even(ctx, b.add(z_bwd, b.mul(xf, inv)))
    inside = _between(ctx, q, qmin, qmax)
    below = b.compare("lt", q, ctx.tensor(float(qmin), "f32"))
    gf = ctx.tensor(float(grad_factor), "f32")
    xfq = b.mul(b.sub(q, z_bwd), sc)  # inside the range: q is its own clamp
    d_scale = b.select(
        inside, b.mul(b.mul(b.sub(xfq, xf), inv), gf),
        b.mul(b.select(below, b.sub(ctx.tensor(float(qmin), "f32"), z_bwd),
                       b.sub(ctx.tensor(float(qmax), "f32"), z_bwd)), gf))
    d_zero = b.select(inside, ctx.tensor(0.0, "f32"), b.mul(b.unary("neg", sc), gf))
    source = b.add(b.add(b.convert(b.select(inside, x, b.stop_gradient(x)), "f32"),
                         b.mul(b.stop_gradient(d_scale), s)),
                   b.mul(b.stop_gradient(d_zero), z))
    source = b.convert(source, x.dtype)
    return b.straight_through(out, b.broadcast_to(source, x.shape))


@lowers("aten._fake_quantize_learnable_per_tensor_affine.default")
def fake_quantize_learnable_per_tensor(ctx, x, scale, zero_point, qmin, qmax, grad_factor=1.0):
    """Forward with the zero point nearbyint(zero_point) clamped to the
    range, backward with int(clamp(zero_point + 0.5)) (ATen's
    _get_zero_point_from_tensor for each direction); the gradients of scale
    and zero point summed over every element."""
    b = ctx.b
    x = ctx.tensor(x)
    s = _first(ctx, scale, "f32")
    z = _first(ctx, zero_point, "f32")
    lo, hi = ctx.tensor(float(qmin), "f32"), ctx.tensor(float(qmax), "f32")

    def clamp(v):
        return b.binary("minimum", b.binary("maximum", v, lo), hi)
    zc = b.stop_gradient(z)
    z_fwd = clamp(round_half_even(ctx, zc))
    z_bwd = trunc_toward_zero(ctx, clamp(b.add(zc, ctx.tensor(0.5, "f32"))))
    return _learnable(ctx, x, s, z, z_fwd, z_bwd, qmin, qmax, grad_factor)


@lowers("aten._fake_quantize_learnable_per_channel_affine.default")
def fake_quantize_learnable_per_channel(ctx, x, scale, zero_point, axis, qmin, qmax,
                                        grad_factor=1.0):
    """Per channel: the zero point round(zero_point) clamped to the range
    in both directions (ATen's _get_rounded_zero_point); the gradients of
    scale and zero point summed over every dim but `axis`."""
    b = ctx.b
    x = ctx.tensor(x)
    axis = axis % x.rank
    s = _channel_view(ctx, ctx.tensor(scale, "f32"), x.rank, axis)
    z = _channel_view(ctx, ctx.tensor(zero_point, "f32"), x.rank, axis)
    lo, hi = ctx.tensor(float(qmin), "f32"), ctx.tensor(float(qmax), "f32")
    zr = b.binary("minimum", b.binary("maximum", round_half_even(ctx, b.stop_gradient(z)), lo),
                  hi)
    return _learnable(ctx, x, s, z, zr, zr, qmin, qmax, grad_factor)


# -- the fused moving-average observer (FusedMovingAvgObsFakeQuantize) ---------------------

_SMALL_SCALE = 6.1e-5  # ATen's SMALL_SCALE_THRESHOLD (a float)
_SMALL_SCALE_F32 = struct.unpack("f", struct.pack("f", _SMALL_SCALE))[0]  # its value as a float


def _choose_qparams(ctx, lo, hi, qmin, qmax, symmetric):
    """ATen's quant_utils::ChooseQuantizationParams(min, max, qmin, qmax,
    preserve_sparsity=symmetric) elementwise on f32 Values: (scale f32,
    zero point i32)."""
    b = ctx.b

    def f32(v):
        return ctx.tensor(float(v), "f32")

    def f64(v):
        return ctx.tensor(float(v), "f64")

    def both(c1, c2):
        return b.select(c1, c2, c1)

    zero = f32(0.0)
    if symmetric:  # symmetric range around zero when min < 0 < max
        straddles = both(b.compare("lt", lo, zero), b.compare("gt", hi, zero))
        smin, smax = -((qmax - qmin) // 2 + 1), (qmax - qmin) // 2
        widest = b.convert(b.binary("maximum", b.unary("abs", b.div(lo, f32(smin))),
                                    b.unary("abs", b.div(hi, f32(smax)))), "f64")
        lo = b.select(straddles, b.convert(b.mul(widest, f64(smin)), "f32"), lo)
        hi = b.select(straddles, b.convert(b.mul(widest, f64(smax)), "f32"), hi)
    lo = b.binary("minimum", lo, zero)  # the range holds 0
    hi = b.binary("maximum", hi, zero)
    span = qmax - qmin
    # The scale is a double, as ATen's, until it is returned: the zero point
    # comes from the unrounded one (an f32 one moves it by one for ranges
    # such as [-1, 1] over 0..255).
    s64 = b.div(b.sub(b.convert(hi, "f64"), b.convert(lo, "f64")), f64(span))
    scale = b.convert(s64, "f32")
    # A zero scale, or one whose reciprocal overflows (in float), becomes 0.1.
    degenerate = b.compare("eq", scale, zero)
    degenerate = b.select(degenerate, degenerate,
                          b.compare("eq", b.unary("abs", b.div(f32(1.0), scale)),
                                    f32(float("inf"))))
    s64 = b.select(degenerate, f64(0.1), s64)
    # A scale below the (float) threshold is raised to it, the range widened
    # with it (the amplifier a float, as ATen's).
    threshold = f64(_SMALL_SCALE_F32)
    small = b.compare("lt", s64, threshold)
    amplifier = b.convert(b.div(threshold, s64), "f32")
    lo_zero, hi_zero = b.compare("eq", lo, zero), b.compare("eq", hi, zero)
    widened = b.mul(f32(_SMALL_SCALE), f32(span))
    new_hi = b.select(lo_zero, widened, b.select(hi_zero, hi, b.mul(hi, amplifier)))
    new_lo = b.select(lo_zero, lo, b.select(hi_zero, b.unary("neg", widened),
                                            b.mul(lo, amplifier)))
    lo, hi = b.select(small, new_lo, lo), b.select(small, new_hi, hi)
    s64 = b.select(small, threshold, s64)
    scale = b.convert(s64, "f32")
    # The zero point from the end with the smaller error term, nudged to an
    # integer in [qmin, qmax] (nearbyint: ties to even).
    lo64, hi64 = b.convert(lo, "f64"), b.convert(hi, "f64")
    lo_q, hi_q = b.div(lo64, s64), b.div(hi64, s64)
    from_lo, from_hi = b.sub(f64(qmin), lo_q), b.sub(f64(qmax), hi_q)
    err_lo = b.sub(f64(abs(qmin)), b.unary("abs", lo_q))
    err_hi = b.sub(f64(abs(qmax)), b.unary("abs", hi_q))
    initial = b.select(b.compare("lt", err_lo, err_hi), from_lo, from_hi)
    if symmetric:
        straddles = both(b.compare("lt", lo, zero), b.compare("gt", hi, zero))
        initial = b.select(straddles, f64((qmin + qmax) / 2), initial)
    nudged = b.select(b.compare("lt", initial, f64(qmin)), f64(qmin),
                      b.select(b.compare("gt", initial, f64(qmax)), f64(qmax),
                               round_half_even(ctx, initial)))
    return scale, b.convert(nudged, "i32")


def _extreme(ctx, x, kind, per_row):
    """min or max of x (per_row: of each row along dim 0, x flattened)."""
    b = ctx.b
    dims = list(range(1 if per_row else 0, x.rank))
    if kind == "max":
        return b.reduce("max", x, dims)
    return b.unary("neg", b.reduce("max", b.unary("neg", x), dims))


@lowers("aten._fused_moving_avg_obs_fq_helper_functional.default")
def fused_moving_avg_obs_fake_quant(ctx, x, observer_on, fake_quant_on, running_min,
                                    running_max, scale, zero_point, averaging_const, qmin,
                                    qmax, ch_axis, per_row_fake_quant=False,
                                    symmetric_quant=False):
    """torch.fused_moving_avg_obs_fake_quant, functionalized: (output,
    mask, running_min, running_max, scale, zero_point). With the observer
    on, the running min / max move toward the batch's (per row of dim 0
    when per-channel): running + averaging_const * (batch - running), the
    batch's own where the running value is infinite (the first
    observation); with fake quantization on, the qparams are chosen from
    the running range (ChooseQuantizationParams, symmetric or affine) and
    x is fake-quantized with them. Both flags must be known at trace time
    (buffers the forward only reads)."""
    b = ctx.b
    x = ctx.tensor(x)
    observe = int(ctx.static(observer_on, "observer_enabled").reshape(-1)[0]) != 0
    quantize = int(ctx.static(fake_quant_on, "fake_quant_enabled").reshape(-1)[0]) != 0
    lo_t, hi_t = ctx.out(2), ctx.out(3)
    if per_row_fake_quant and ch_axis != 0:
        ctx.unsupported("per-channel fused observers work on axis 0 only (as ATen)")
    sized = [tuple(ctx.example(i).shape) for i in (3, 4, 5, 6)]
    if per_row_fake_quant and any(shape != (x.shape[0],) for shape in sized):
        ctx.unsupported(
            "the per-channel observer's buffers are not sized yet (min_val / max_val are "
            "empty before the first observation, and ATen resizes them then)",
            "run the prepared model once in PyTorch (one forward on a batch, as a "
            "calibration step) before importing it, so its buffers have their [C] shapes")
    lo, hi = ctx.tensor(running_min, "f32"), ctx.tensor(running_max, "f32")
    if observe:
        xs = b.stop_gradient(b.convert(x, "f32"))
        c = ctx.tensor(float(averaging_const), "f32")
        inf = ctx.tensor(float("inf"), "f32")
        batch_lo = b.reshape(_extreme(ctx, xs, "min", per_row_fake_quant), lo_t.shape)
        batch_hi = b.reshape(_extreme(ctx, xs, "max", per_row_fake_quant), hi_t.shape)

        def moved(run, new):
            first = b.compare("eq", b.unary("abs", run), inf)
            return b.select(first, new, b.add(run, b.mul(c, b.sub(new, run))))
        lo, hi = moved(lo, batch_lo), moved(hi, batch_hi)
    s_t, z_t = ctx.out(4), ctx.out(5)
    s_old = ctx.tensor(scale, "f32")
    z_old = ctx.tensor(zero_point, z_t.dtype)
    if not quantize:
        return (x, ctx.tensor(True, "i1", x.shape), lo, hi, s_old, z_old)
    s, z = _choose_qparams(ctx, lo, hi, qmin, qmax, symmetric_quant)
    if per_row_fake_quant:
        out, mask, _ = _quantize(ctx, x, _channel_view(ctx, s, x.rank, 0),
                                 _channel_view(ctx, z, x.rank, 0), qmin, qmax)
    else:
        out, mask, _ = _quantize(ctx, x, s, z, qmin, qmax)
        s, z = b.broadcast_to(b.reshape(s, [1] * s_t.rank), s_t.shape), \
            b.broadcast_to(b.reshape(z, [1] * z_t.rank), z_t.shape)
    return (_with_mask_gradient(ctx, out, x, mask), mask, lo, hi, s,
            b.convert(z, z_t.dtype))
