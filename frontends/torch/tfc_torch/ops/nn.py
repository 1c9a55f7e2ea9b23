"""Neural-network aten ops: layer norm, group norm, batch norm (training
statistics or running statistics), softmax / log_softmax, dropout (native_dropout, or
the bernoulli mask F.dropout traces to on the CPU), embedding, weight
normalization.

Dropout masks use tfc.dropout's counter-based Philox stream, keyed by two
0-d i64 batch inputs the import adds: `dropout_seed` and `dropout_offset`
(each draw takes numel counters after the previous ones: random.py's
philox_stream, shared with the other random draws)."""
from .. import dtypes
from ..registry import expands, lowers
from .common import norm_dim
from .random import philox_stream


@lowers("aten.native_layer_norm.default")
def native_layer_norm(ctx, x, normalized_shape, weight, bias, eps):
    v = ctx.tensor(x)
    w = ctx.tensor(weight) if weight is not None else None
    bb = ctx.tensor(bias) if bias is not None else None
    y, mean, rstd = ctx.b.layer_norm(v, w, bb, len(normalized_shape), eps)
    # tfc keeps the statistics in the accumulation type; torch's CPU kernel
    # returns them in the input's (16-bit) type.
    return y, ctx.b.convert(mean, ctx.out(1).dtype), ctx.b.convert(rstd, ctx.out(2).dtype)


@lowers("aten.native_group_norm.default")
def native_group_norm(ctx, x, weight, bias, n, channels, hw, group, eps):
    """GroupNorm as a layer_norm over [N, G, C/G * HxW] (each group's
    channels and positions), then the per-channel affine; the statistics
    come out as torch's [N, G]."""
    b = ctx.b
    v = ctx.tensor(x, ctx.out(0).dtype)
    grouped = b.reshape(v, (n, group, (channels // group) * hw))
    y, mean, rstd = b.layer_norm(grouped, None, None, 1, eps)
    y = b.reshape(y, (n, channels, hw))
    if weight is not None:
        y = b.mul(y, b.reshape(ctx.tensor(weight, y.dtype), (channels, 1)))
    if bias is not None:
        y = b.add(y, b.reshape(ctx.tensor(bias, y.dtype), (channels, 1)))
    stats = [b.convert(b.reshape(s, (n, group)), ctx.out(i + 1).dtype)
             for i, s in enumerate((mean, rstd))]
    return (b.reshape(y, v.shape), *stats)


@lowers("aten._softmax.default", "aten._log_softmax.default", "aten.softmax.int",
        "aten.log_softmax.int")
def softmax(ctx, x, dim, half_to_float=False):
    # half_to_float (or softmax.int's dtype) shows in the traced result type:
    # the input is converted to it first.
    v = ctx.tensor(x, ctx.out().dtype)
    return ctx.b.softmax(v, norm_dim(dim, v.rank), log="log_softmax" in ctx.name)


@lowers("aten.native_dropout.default")
def native_dropout(ctx, x, p, train):
    """Identity when p is 0 or not training; otherwise tfc.dropout (its
    masks are tfc's Philox stream, not torch's: same distribution, other
    draws)."""
    from ..importer import Missing
    v = ctx.tensor(x)
    if not train or p == 0:
        return v, Missing("its mask is not computed by tfc")
    seed, offset = philox_stream(ctx, v.type.numel)
    return ctx.b.dropout(v, seed, offset, p), Missing(
        "its mask is not computed by tfc (tfc.dropout regenerates it)")


@lowers("aten.bernoulli_.float", "aten.bernoulli.p")
def bernoulli(ctx, x, p=0.5, generator=None):
    """A {0, 1} mask with P(1) = p: F.dropout on the CPU traces to
    x * (bernoulli(p) / p), which passes/dropout.py turns into tfc.dropout;
    elsewhere the expansion below draws the mask with tfc.dropout."""
    t = ctx.out()
    if not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        ctx.unsupported(f"bernoulli with probability {p!r} (a number in [0, 1] is lowered)")
    if p == 0:
        return ctx.tensor(0, t.dtype, t.shape)
    seed, offset = philox_stream(ctx, t.numel)
    return ctx.b.frontend("bernoulli", [seed, offset], {"p": float(p)}, [t]).result


@expands("torch.bernoulli")
def expand_bernoulli(b, op):
    t = op.results[0].type
    seed, offset = op.operands
    p = op.attrs["p"]
    ones = b.splat(1.0, "f32", t.shape)
    if p >= 1.0:
        return [b.convert(ones, t.dtype)]
    kept = b.dropout(ones, seed, offset, 1.0 - p)
    return [b.convert(b.compare("ne", kept, b.splat(0.0, "f32")), t.dtype)]


def _by_frequency(ctx, table, ids, out):
    """The lookup `out` whose gradient reaches each row of the table divided
    by how often the row's index occurs in `ids` (scale_grad_by_freq, as
    torch's): straight_through of the lookup times 1 / that count (a
    constant), a scatter-add of ones looked up again."""
    b = ctx.b
    n = ids.type.numel
    flat = b.reshape(ids, (n,))
    ones = b.broadcast_to(ctx.tensor(1.0, "f32"), (n, 1))
    counts = b.embedding(b.embedding_grad(ones, flat, table.shape[0]), ids)   # ids.shape + (1,)
    scale = b.convert(b.div(ctx.tensor(1.0, "f32"), counts), out.dtype)
    return b.straight_through(out, b.mul(out, b.stop_gradient(scale)))


@lowers("aten.embedding.default")
def embedding(ctx, weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Rows of the weight at the indices (tfc.embedding; its gradient sums
    repeated rows, or with scale_grad_by_freq averages them over the
    index's count in the batch)."""
    b = ctx.b
    table = ctx.tensor(weight)
    ids = ctx.tensor(indices)
    if ids.dtype not in ("i32", "i64"):
        ids = b.convert(ids, "i64")
    out = b.embedding(table, ids)
    if scale_grad_by_freq:
        out = _by_frequency(ctx, table, ids, out)
    if padding_idx is not None and padding_idx >= 0:
        # torch reads the padding row like any other and gives it no
        # gradient from this lookup: the values are the lookup's, the
        # gradient goes through the lookup masked at padding_idx. (Masking
        # the values too is only right while the row is zero: a row tied to
        # an output layer, or set by the user, is not.)
        keep = b.compare("ne", ids, b.splat(padding_idx, ids.dtype))
        keep = b.reshape(keep, ids.shape + (1,))
        out = b.straight_through(out, b.select(keep, out, ctx.tensor(0.0, out.dtype)))
    return out


def _batch_norm(ctx, x, weight, bias, mean, var, training, eps):
    """y = (x - mean) * rsqrt(var + eps) * weight + bias over dim 1;
    training mode uses the batch's biased statistics. Returns y, the mean
    and rstd per channel, and the variance per channel."""
    b = ctx.b
    v = ctx.tensor(x)
    if v.rank < 2:
        ctx.unsupported("batch norm of a tensor of rank < 2")
    acc = dtypes.accumulation_type(v.dtype)
    xa = b.convert(v, acc)
    dims = [0] + list(range(2, v.rank))
    stat_shape = [1, v.shape[1]] + [1] * (v.rank - 2)
    if training:
        mu = b.reduce("mean", xa, dims, keepdim=True)
        centered = b.sub(xa, mu)
        variance = b.reduce("mean", b.mul(centered, centered), dims, keepdim=True)
    else:
        mu = b.reshape(ctx.tensor(mean, acc), stat_shape)
        variance = b.reshape(ctx.tensor(var, acc), stat_shape)
        centered = b.sub(xa, mu)
    rstd = b.unary("rsqrt", b.add(variance, ctx.tensor(eps, acc)))
    y = b.mul(centered, rstd)
    if weight is not None:
        y = b.mul(y, b.reshape(ctx.tensor(weight, acc), stat_shape))
    if bias is not None:
        y = b.add(y, b.reshape(ctx.tensor(bias, acc), stat_shape))
    channels = [v.shape[1]]
    return (b.convert(y, v.dtype), b.reshape(mu, channels), b.reshape(rstd, channels),
            b.reshape(variance, channels))


def _stat_outputs(ctx, y, mu, rstd, count):
    """Pads the batch-norm results to the op's traced result count with
    Missing values (running-statistic updates, reserve buffers)."""
    from ..importer import Missing
    outs = [y]
    for i in range(1, count):
        t = ctx.out_types[i] if i < len(ctx.out_types) else None
        if i == 1 and t is not None and t.shape == mu.shape:
            outs.append(mu)
        elif i == 2 and t is not None and t.shape == rstd.shape:
            outs.append(rstd)
        else:
            outs.append(Missing("its running-statistic results are not computed by tfc"))
    return tuple(outs)


@lowers("aten.native_batch_norm.default", "aten._native_batch_norm_legit_functional.default",
        "aten._native_batch_norm_legit.default", "aten._native_batch_norm_legit.no_stats",
        "aten._native_batch_norm_legit_no_training.default")
def native_batch_norm(ctx, x, weight, bias, running_mean, running_var, *args):
    # Signatures: (x, w, b, rm, rv, training, momentum, eps), legit.no_stats
    # (x, w, b, training, momentum, eps), legit_no_training (x, w, b, rm, rv,
    # momentum, eps).
    if ctx.name.endswith("no_stats"):
        training, eps = running_mean, args[1]
        running_mean = running_var = None
    elif ctx.name.endswith("no_training.default"):
        training, eps = False, args[1]
    else:
        training, eps = args[0], args[2]
    y, mu, rstd, variance = _batch_norm(ctx, x, weight, bias, running_mean, running_var,
                                        training, eps)
    if training and ctx.name == "aten.native_batch_norm.default":
        _update_running_stats(ctx, x, mu, variance, running_mean, running_var, args[1])
    return _stat_outputs(ctx, y, mu, rstd, len(ctx.out_types))


def _update_running_stats(ctx, x, mu, variance, running_mean, running_var, momentum):
    """Training-mode batch norm's update of its running statistics when the
    loss import carries them as model state (ctx.update_state), as ATen's:
    running = (1 - momentum) * running + momentum * batch statistic, the
    variance unbiased (times n / (n - 1), n the elements per channel; inf
    for n = 1, as torch's division by zero)."""
    b = ctx.b
    n = ctx.tensor(x).type.numel // x.shape[1]
    unbias = n / (n - 1) if n > 1 else float("inf")
    for state, stat in ((running_mean, mu), (running_var, variance)):
        if not ctx.is_state(state):
            continue
        if state is running_var:
            stat = b.mul(stat, ctx.tensor(unbias, stat.dtype))
        old = ctx.tensor(ctx.state_value(state), stat.dtype)
        new = b.add(b.mul(old, ctx.tensor(1.0 - momentum, stat.dtype)),
                    b.mul(b.stop_gradient(stat), ctx.tensor(momentum, stat.dtype)))
        ctx.update_state(state, new)


@lowers("aten._weight_norm_interface.default")
def weight_norm(ctx, v, g, dim=0):
    """nn.utils.weight_norm's w = v * (g / ||v||), the 2-norm over every dim
    but `dim` (kept as size 1, g's shape), and that norm. (For another dim
    than the first or last, and for dim=None, torch traces the formula's
    own ops.)"""
    b = ctx.b
    w = ctx.tensor(v, ctx.out(0).dtype)
    d = norm_dim(dim, w.rank)
    others = [i for i in range(w.rank) if i != d]
    norm = b.unary("sqrt", b.reduce("sum", b.mul(w, w), others, keepdim=True))
    scaled = b.mul(w, b.div(ctx.tensor(g, w.dtype), norm))
    return scaled, b.convert(b.reshape(norm, ctx.out(1).shape), ctx.out(1).dtype)
