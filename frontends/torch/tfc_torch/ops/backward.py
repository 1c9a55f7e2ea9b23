"""aten's backward ops, which a derivative taken inside forward records
(functorch.grad / vmap(grad) / jacrev / hessian: PINN residuals, score
matching, gradient penalties): the activations' `*_backward`, softmax's and
log_softmax's `_*_backward_data`, layer and batch norm's, glu's, the mse / smooth_l1 / huber / nll
losses' (silu and mish reach them as sigmoid's and tanh's: torch 1.13's
functorch decomposes silu_backward), and select's and slice's (an input
split into coordinates, u(x, t) of torch.stack([x, t])).

tfc's training step differentiates the loss again, through these ops
(second order): gelu's, softmax's and log_softmax's become tfc's named
backward ops (tfc.gelu_grad, tfc.softmax_grad, tfc.log_softmax_grad, whose
second derivatives are their VJPs in dialects/tfc/TfcGradVjps.cpp), the
others are composed from tfc ops that have VJPs. Each formula is the one of
ATen's kernel; at a kink the gradient passes to the side torch's backward
picks (torch's comparison, strict or not, kept).
"""
from .. import dtypes
from ..registry import lowers
from .common import norm_dim
from .shape import _slice_bounds


def _operands(ctx, *xs):
    """The backward's tensor operands in the result's element type, and the
    element type."""
    dt = ctx.out().dtype
    return [ctx.tensor(x, dt) for x in xs], dt


def _where(ctx, cond, on_true, on_false):
    """select(cond, on_true, on_false) broadcast to the result's shape."""
    return ctx.b.broadcast_to(ctx.b.select(cond, on_true, on_false), ctx.out().shape)


def _const(ctx, value, dt):
    return ctx.tensor(float(value), dt)


@lowers("aten.tanh_backward.default")
def tanh_backward(ctx, grad, output):
    """grad * (1 - y^2) with y = tanh(x), the forward's result."""
    (g, y), dt = _operands(ctx, grad, output)
    b = ctx.b
    return b.mul(g, b.sub(_const(ctx, 1, dt), b.mul(y, y)))


@lowers("aten.sigmoid_backward.default")
def sigmoid_backward(ctx, grad, output):
    """grad * (1 - y) * y with y = sigmoid(x), the forward's result."""
    (g, y), dt = _operands(ctx, grad, output)
    b = ctx.b
    return b.mul(b.mul(g, b.sub(_const(ctx, 1, dt), y)), y)


@lowers("aten.threshold_backward.default")
def threshold_backward(ctx, grad, x, threshold):
    """0 where x <= threshold, else grad (relu's backward: threshold 0),
    as ATen's: a NaN x passes grad."""
    (g, v), dt = _operands(ctx, grad, x)
    blocked = ctx.b.compare("le", v, _const(ctx, threshold, dt))
    return _where(ctx, blocked, _const(ctx, 0, dt), g)


@lowers("aten.leaky_relu_backward.default")
def leaky_relu_backward(ctx, grad, x, negative_slope, self_is_result=False):
    """grad where x > 0, else grad * negative_slope (x may be the forward's
    result: its sign is x's for a positive slope)."""
    (g, v), dt = _operands(ctx, grad, x)
    return _where(ctx, ctx.b.compare("gt", v, _const(ctx, 0, dt)), g,
                  ctx.b.mul(g, _const(ctx, negative_slope, dt)))


@lowers("aten.elu_backward.default")
def elu_backward(ctx, grad, alpha, scale, input_scale, is_result, self_or_result):
    """elu / selu / celu's backward: grad * scale where the input is
    positive, else grad * input_scale * alpha * scale * exp(x * input_scale),
    written with the forward's result y as grad * input_scale * (y + alpha *
    scale) when torch passes y (is_result)."""
    (g, v), dt = _operands(ctx, grad, self_or_result)
    b = ctx.b
    at_most_zero = b.compare("le", v, _const(ctx, 0, dt))
    if is_result:
        negative = b.mul(b.mul(g, _const(ctx, input_scale, dt)),
                         b.add(v, _const(ctx, alpha * scale, dt)))
    else:
        # exp reads 0 on the positive side (exp(large x) = inf would make
        # the select's gradient of the unused side 0 * inf = NaN).
        v_neg = b.select(at_most_zero, v, _const(ctx, 0, dt))
        e = b.unary("exp", b.mul(v_neg, _const(ctx, input_scale, dt)))
        negative = b.mul(b.mul(g, _const(ctx, input_scale * alpha * scale, dt)), e)
    return _where(ctx, at_most_zero, negative, b.mul(g, _const(ctx, scale, dt)))


@lowers("aten.gelu_backward.default")
def gelu_backward(ctx, grad, x, approximate="none"):
    """grad * gelu'(x): tfc.gelu_grad (ATen's formulas, erf or tanh form)."""
    (g, v), _ = _operands(ctx, grad, x)
    return ctx.b.gelu_grad(g, v, approximate)


@lowers("aten.softplus_backward.default")
def softplus_backward(ctx, grad, x, beta=1, threshold=20):
    """grad where beta x > threshold (softplus is x there), else grad *
    sigmoid(beta x), written as ATen's z / (z + 1) with z = exp(beta x)."""
    (g, v), dt = _operands(ctx, grad, x)
    b = ctx.b
    scaled = b.mul(v, _const(ctx, beta, dt))
    linear = b.compare("gt", scaled, _const(ctx, threshold, dt))
    # exp reads 0 on the linear side (exp(large beta x) = inf: z / (z + 1)
    # and its gradient NaN there).
    z = b.unary("exp", b.select(linear, _const(ctx, 0, dt), scaled))
    soft = b.mul(g, b.div(z, b.add(z, _const(ctx, 1, dt))))
    return _where(ctx, linear, g, soft)


@lowers("aten.hardtanh_backward.default")
def hardtanh_backward(ctx, grad, x, min_val=-1.0, max_val=1.0):
    """grad strictly inside (min_val, max_val), else 0 (hardtanh, relu6)."""
    (g, v), dt = _operands(ctx, grad, x)
    b = ctx.b
    zero = _const(ctx, 0, dt)
    below_max = _where(ctx, b.compare("lt", v, _const(ctx, max_val, dt)), g, zero)
    return _where(ctx, b.compare("gt", v, _const(ctx, min_val, dt)), below_max, zero)


@lowers("aten.log_sigmoid_backward.default")
def log_sigmoid_backward(ctx, grad, x, buffer):
    """grad * sigmoid(-x), the derivative of log sigmoid(x) (torch's CPU
    kernel computes the same from its buffer exp(-|x|), which is not read
    here)."""
    (g, v), _ = _operands(ctx, grad, x)
    return ctx.b.mul(g, ctx.b.unary("sigmoid", ctx.b.unary("neg", v)))


@lowers("aten.hardswish_backward.default")
def hardswish_backward(ctx, grad, x):
    """0 below -3, grad * (x / 3 + 0.5) on [-3, 3], grad above 3."""
    (g, v), dt = _operands(ctx, grad, x)
    b = ctx.b
    ramp = b.mul(g, b.add(b.div(v, _const(ctx, 3, dt)), _const(ctx, 0.5, dt)))
    upper = _where(ctx, b.compare("le", v, _const(ctx, 3, dt)), ramp, g)
    return _where(ctx, b.compare("lt", v, _const(ctx, -3, dt)), _const(ctx, 0, dt), upper)


@lowers("aten.hardsigmoid_backward.default")
def hardsigmoid_backward(ctx, grad, x):
    """grad / 6 strictly inside (-3, 3), else 0."""
    (g, v), dt = _operands(ctx, grad, x)
    return hardtanh_backward(ctx, ctx.b.div(g, _const(ctx, 6, dt)), v, -3.0, 3.0)


@lowers("aten.hardshrink_backward.default", "aten.softshrink_backward.default")
def shrink_backward(ctx, grad, x, lambd=0.5):
    """0 on [-lambd, lambd], else grad (hard and soft shrink alike)."""
    (g, v), dt = _operands(ctx, grad, x)
    b = ctx.b
    outside = b.compare("gt", b.unary("abs", v), _const(ctx, lambd, dt))
    return _where(ctx, outside, g, _const(ctx, 0, dt))


@lowers("aten.glu_backward.default")
def glu_backward(ctx, grad, x, dim=-1):
    """For x's halves a, c along `dim` (glu = a * sigmoid(c)): grad *
    sigmoid(c) for a, grad * a * s (1 - s) for c, concatenated."""
    (g, v), dt = _operands(ctx, grad, x)
    b = ctx.b
    d = norm_dim(dim, v.rank)
    half = v.shape[d] // 2
    a, s = b.slice_dim(v, d, 0, half), b.unary("sigmoid", b.slice_dim(v, d, half, 2 * half))
    da = b.mul(g, s)
    dc = b.mul(b.mul(da, a), b.sub(_const(ctx, 1, dt), s))
    return b.concat([da, dc], d)


@lowers("aten._softmax_backward_data.default")
def softmax_backward(ctx, grad, output, dim, input_dtype=None):
    """y * (grad - sum(grad * y)) along `dim`, y the forward's result:
    tfc.softmax_grad."""
    (g, y), _ = _operands(ctx, grad, output)
    return ctx.b.softmax_grad(g, y, dim)


@lowers("aten._log_softmax_backward_data.default")
def log_softmax_backward(ctx, grad, output, dim, input_dtype=None):
    """grad - exp(y) * sum(grad) along `dim`, y the forward's result:
    tfc.log_softmax_grad."""
    (g, y), _ = _operands(ctx, grad, output)
    return ctx.b.softmax_grad(g, y, dim, log=True)


@lowers("aten.native_layer_norm_backward.default")
def native_layer_norm_backward(ctx, grad, x, normalized_shape, mean, rstd, weight, bias,
                               output_mask):
    """(dx, dweight, dbias) from the forward's statistics: tfc.layer_norm_grad
    (whose VJP, with the statistics' own, gives the second derivative);
    dbias is grad's sum over the rows when there is no weight."""
    dt = next(t.dtype for t in ctx.out_types if t is not None)
    b = ctx.b
    dy, v = ctx.tensor(grad, dt), ctx.tensor(x, dt)
    acc = dtypes.accumulation_type(dt)
    m, r = ctx.tensor(mean, acc), ctx.tensor(rstd, acc)
    w = ctx.tensor(weight) if weight is not None else None
    grads = b.layer_norm_grad(dy, v, m, r, w, len(normalized_shape))
    rows = list(range(v.rank - len(normalized_shape)))
    results = [grads[0] if output_mask[0] else None, None, None]
    if output_mask[1] and w is not None:
        results[1] = grads[1]
    if output_mask[2] and bias is not None:
        results[2] = (grads[2] if w is not None else
                      b.convert(b.reduce("sum", dy, rows), ctx.out(2).dtype))
    return tuple(results)


@lowers("aten.native_batch_norm_backward.default")
def native_batch_norm_backward(ctx, grad, x, weight, running_mean, running_var, save_mean,
                               save_invstd, train, eps, output_mask):
    """(dx, dweight, dbias) of batch norm over every dim but the channels
    (dim 1). In training mode dx is tfc.layer_norm_grad of the channels'
    rows ([C, everything else], the forward's batch statistics), with the
    weight folded into the upstream gradient; in eval mode the statistics
    are the running ones, constants: dx = grad * weight * rstd."""
    dt = next(t.dtype for t in ctx.out_types if t is not None)
    b = ctx.b
    dy, v = ctx.tensor(grad, dt), ctx.tensor(x, dt)
    acc = dtypes.accumulation_type(dt)
    c = v.shape[1]
    per_channel = (1, c) + (1,) * (v.rank - 2)
    if train:
        mean, rstd = ctx.tensor(save_mean, acc), ctx.tensor(save_invstd, acc)
    else:
        mean = ctx.tensor(running_mean, acc)
        rstd = b.unary("rsqrt", b.add(ctx.tensor(running_var, acc), ctx.tensor(eps, acc)))
    mean, rstd = b.reshape(mean, per_channel), b.reshape(rstd, per_channel)
    w = b.reshape(ctx.tensor(weight, dt), per_channel) if weight is not None else None
    g = b.mul(dy, w) if w is not None else dy
    others = [0] + list(range(2, v.rank))
    results = [None, None, None]
    if output_mask[0] and train:
        # Channels first, each channel's elements one row.
        perm = [1, 0] + list(range(2, v.rank))
        rows = (c, v.type.numel // c)
        g_rows = b.reshape(b.transpose(g, perm), rows)
        x_rows = b.reshape(b.transpose(v, perm), rows)
        dx, = b.layer_norm_grad(g_rows, x_rows, b.reshape(mean, (c, 1)),
                                b.reshape(rstd, (c, 1)), None, 1)
        moved = tuple(v.shape[i] for i in perm)
        results[0] = b.transpose(b.reshape(dx, moved), perm)
    elif output_mask[0]:
        results[0] = b.mul(g, b.convert(rstd, dt))
    if output_mask[1] and w is not None:
        xhat = b.mul(b.sub(b.convert(v, acc), mean), rstd)
        dw = b.reduce("sum", b.mul(b.convert(dy, acc), xhat), others)
        results[1] = b.convert(dw, ctx.out(1).dtype)
    if output_mask[2]:
        results[2] = b.convert(b.reduce("sum", b.convert(dy, acc), others), ctx.out(2).dtype)
    return tuple(results)


def _mean_scale(ctx, reduction):
    """1 / the element count for the mean reduction (1), else 1."""
    return 1.0 / ctx.out().numel if reduction == 1 else 1.0


@lowers("aten.mse_loss_backward.default")
def mse_loss_backward(ctx, grad, x, target, reduction=1):
    """2 (x - target) grad, divided by the element count for the mean."""
    (g, v, t), dt = _operands(ctx, grad, x, target)
    b = ctx.b
    d = b.mul(b.sub(v, t), _const(ctx, 2.0 * _mean_scale(ctx, reduction), dt))
    return b.broadcast_to(b.mul(d, g), ctx.out().shape)


@lowers("aten.smooth_l1_loss_backward.default", "aten.huber_loss_backward.default")
def smooth_l1_loss_backward(ctx, grad, x, target, reduction=1, beta=1.0):
    """With d = x - target: grad * d / beta (smooth_l1) or grad * d (huber,
    beta its delta) for |d| <= beta, else grad * sign(d) (smooth_l1) or
    grad * delta * sign(d) (huber); divided by the element count for the
    mean."""
    (g, v, t), dt = _operands(ctx, grad, x, target)
    b = ctx.b
    huber = ctx.name.startswith("aten.huber")
    norm = _mean_scale(ctx, reduction)
    d = b.sub(v, t)
    outer = _const(ctx, norm * (beta if huber else 1.0), dt)
    sign = _where(ctx, b.compare("lt", d, _const(ctx, 0, dt)), b.unary("neg", outer),
                  _where(ctx, b.compare("gt", d, _const(ctx, 0, dt)), outer, _const(ctx, 0, dt)))
    if beta == 0 and not huber:
        return b.broadcast_to(b.mul(sign, g), ctx.out().shape)
    inner = b.mul(d, _const(ctx, norm * (1.0 if huber else 1.0 / beta), dt))
    beyond = b.compare("gt", b.unary("abs", d), _const(ctx, beta, dt))
    return b.broadcast_to(b.mul(_where(ctx, beyond, sign, inner), g), ctx.out().shape)


@lowers("aten.nll_loss_backward.default")
def nll_loss_backward(ctx, grad, x, target, weight, reduction, ignore_index, total_weight):
    """-grad * weight[target] at each row's target class, 0 elsewhere and in
    ignored rows; divided by the forward's total weight for the mean."""
    (g,), dt = _operands(ctx, grad)
    b = ctx.b
    shape = ctx.out().shape
    n, c = (1,) + shape if len(shape) == 1 else shape
    t = ctx.tensor(target)
    t = b.reshape(t if t.dtype in ("i32", "i64") else b.convert(t, "i64"), (n, 1))
    onehot = b.compare("eq", b.iota((n, c), 1, t.dtype), t)
    valid = b.compare("ne", t, ctx.tensor(ignore_index, t.dtype))
    coef = _const(ctx, -1, dt) if weight is None else \
        b.reshape(b.unary("neg", ctx.tensor(weight, dt)), (1, c))
    zero = _const(ctx, 0, dt)
    picked = b.broadcast_to(b.select(valid, b.select(onehot, coef, zero), zero), (n, c))
    if reduction == 0:
        g = b.reshape(g, (n, 1))
    elif reduction == 1:
        g = b.div(g, ctx.tensor(total_weight, dt))
    return b.reshape(b.mul(picked, g), shape)


@lowers("aten.embedding_dense_backward.default")
def embedding_dense_backward(ctx, grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    """An embedding weight's gradient, [num_weights, ...]: grad's rows
    summed into the rows their indices name (tfc.embedding_grad, the
    deterministic scatter-add whose VJP is an embedding lookup); rows at
    padding_idx add nothing, and with scale_grad_by_freq each row is
    divided by its index's count in `indices` first, as torch's (whose
    derivative of this op leaves the division to the lookup's)."""
    (g,), dt = _operands(ctx, grad)
    b = ctx.b
    ids = ctx.tensor(indices)
    if ids.dtype not in ("i32", "i64"):
        ids = b.convert(ids, "i64")
    per_row = (1,) * (g.rank - ids.rank)
    if padding_idx is not None and padding_idx >= 0:
        keep = b.compare("ne", ids, ctx.tensor(padding_idx, ids.dtype))
        g = b.broadcast_to(b.select(b.reshape(keep, ids.shape + per_row), g, _const(ctx, 0, dt)),
                           g.shape)
    if scale_grad_by_freq:
        n = ids.type.numel
        ones = b.broadcast_to(_const(ctx, 1, dt), (n, 1))
        counts = b.embedding(b.embedding_grad(ones, b.reshape(ids, (n,)), num_weights), ids)
        # The gradient passes unscaled, as torch's double backward: the
        # forward lookup's gradient (ops/nn.py) is the one divided.
        g = b.straight_through(b.div(g, b.reshape(counts, ids.shape + per_row)), g)
    return b.embedding_grad(g, ids, num_weights)


@lowers("aten._cdist_backward.default")
def cdist_backward(ctx, grad, x1, x2, p, cdist):
    """torch.cdist's gradient for x1 [..., P, M] (x2's is this op with the
    operands swapped): the sum over x2's rows of grad times the p-norm's
    derivative in the difference d = x1_i - x2_j, as ATen's kernels: p = 2
    d / dist, p = 1 sign(d), p = inf sign(d) where |d| equals the distance,
    other p sign(d) |d|^(p-1) / dist^(p-1), p = 0 none; 0 where the
    distance is 0 (and where d is 0). Result in the batch shape broadcast
    (torch's autograd sums it to x1's). Safe operands under the divisions
    and powers keep the unused sides finite for the second derivative."""
    (g, a, c, dist), dt = _operands(ctx, grad, x1, x2, cdist)
    b = ctx.b
    out = ctx.out().shape
    if p == 0:
        return b.splat(0.0, dt, out)
    if not (p > 0):
        ctx.unsupported(f"cdist's gradient with p={p} (torch takes p >= 0)")
    diff = b.sub(b.reshape(a, a.shape[:-1] + (1, a.shape[-1])),
                 b.reshape(c, c.shape[:-2] + (1,) + c.shape[-2:]))       # [..., P, R, M]
    g = b.reshape(g, g.shape + (1,))
    dist = b.reshape(dist, dist.shape + (1,))
    zero, one = _const(ctx, 0, dt), _const(ctx, 1, dt)
    sign = b.select(b.compare("gt", diff, zero), one,
                    b.select(b.compare("lt", diff, zero), _const(ctx, -1, dt), zero))
    if p == 1:
        term = b.mul(sign, g)
    elif p == float("inf"):
        term = b.mul(sign, b.select(b.compare("eq", b.unary("abs", diff), dist), g, zero))
    else:
        at_zero = b.compare("eq", dist, zero)
        safe_dist = b.select(at_zero, one, dist)
        if p == 2:
            term = b.div(b.mul(diff, g), safe_dist)
        else:
            at_zero = b.select(at_zero, ctx.tensor(True, "i1"),       # dist == 0 or d == 0
                               b.compare("eq", diff, zero))
            size = b.select(at_zero, one, b.unary("abs", diff))
            term = b.mul(b.mul(sign, g), b.pow(b.div(size, safe_dist), p - 1))
        term = b.select(at_zero, zero, term)
    return b.broadcast_to(b.reduce("sum", term, [-2]), out)


@lowers("aten.slice_backward.default")
def slice_backward(ctx, grad, input_sizes, dim, start, end, step):
    """Zeros of `input_sizes` with grad at x[start:end:step] along `dim`:
    a stride interleaves step - 1 zeros after each row (concat, reshape),
    then zero padding places the rows."""
    (g,), dt = _operands(ctx, grad)
    b = ctx.b
    dim = norm_dim(dim, g.rank)
    size = input_sizes[dim]
    lo, _, st = _slice_bounds(size, start, end, step)
    n, rest = g.shape[dim], g.shape[dim + 1:]
    if st > 1:
        rows = b.reshape(g, g.shape[:dim + 1] + (1,) + rest)
        gaps = b.splat(0.0, dt, g.shape[:dim + 1] + (st - 1,) + rest)
        g = b.reshape(b.concat([rows, gaps], dim + 1), g.shape[:dim] + (n * st,) + rest)
        g = b.slice_dim(g, dim, 0, min(n * st, size - lo))
    low, high = [0] * g.rank, [0] * g.rank
    low[dim], high[dim] = lo, size - lo - g.shape[dim]
    return b.pad(g, low, high, 0.0)


@lowers("aten.select_backward.default")
def select_backward(ctx, grad, input_sizes, dim, index):
    """Zeros of `input_sizes` with grad at index `index` of `dim`."""
    (g,), _ = _operands(ctx, grad)
    dim = norm_dim(dim, len(input_sizes))
    index = index + input_sizes[dim] if index < 0 else index
    g = ctx.b.reshape(g, g.shape[:dim] + (1,) + g.shape[dim:])
    return slice_backward(ctx, g, input_sizes, dim, index, index + 1, 1)
