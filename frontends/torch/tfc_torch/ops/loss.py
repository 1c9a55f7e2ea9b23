"""Loss functions. nll_loss becomes the frontend op `torch.nll_loss`:
next to a log_softmax over the classes, passes/cross_entropy.py turns the
pair into tfc.cross_entropy; anywhere else the expansion below computes it
with a one-hot selection (tfc has no gather), its labels checked at run
time by checking_labels (as the margin losses' targets). mse, l1,
smooth-l1, huber, the binary cross-entropies and the multi-class and
multi-label margin losses are elementwise formulas and a reduction."""
import torch

from ..constants import Known
from ..importer import Missing
from ..ir import TensorType
from ..registry import expands, lowers
from .activation import softplus_of_negated

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduce(ctx, losses, reduction):
    b = ctx.b
    r = _REDUCTIONS[reduction]
    if r == "none":
        return losses
    return b.reduce("mean" if r == "mean" else "sum", losses, list(range(losses.rank)))


@lowers("aten.nll_loss_forward.default", "aten.nll_loss2d_forward.default",
        "aten.nll_loss_nd.default")
def nll_loss(ctx, logp, target, weight=None, reduction=1, ignore_index=-100):
    b = ctx.b
    dt = ctx.out(0).dtype
    x = ctx.tensor(logp, dt)
    t = ctx.tensor(target)
    if t.dtype not in ("i32", "i64"):
        t = b.convert(t, "i64")
    if x.rank > 2:
        # [N, C, d1, ...] -> [N * d1 * ..., C]: the classes become the rows' last dim.
        perm = [0] + list(range(2, x.rank)) + [1]
        x = b.reshape(b.transpose(x, perm), (t.type.numel, x.shape[1]))
        t = b.reshape(t, (t.type.numel,))
    operands = [x, t] + ([ctx.tensor(weight, dt)] if weight is not None else [])
    r = _REDUCTIONS[reduction]
    loss_type = TensorType(t.shape if r == "none" else (), dt)
    op = b.frontend("nll_loss", operands,
                    {"reduction": r, "ignore_index": int(ignore_index),
                     "has_weight": weight is not None},
                    [loss_type, TensorType((), dt)])
    loss, total = op.results
    return b.reshape(loss, ctx.out(0).shape), total


@expands("torch.nll_loss")
def expand_nll_loss(b, op):
    """-logp[n, target[n]] * w[n] with w the class weight (1 without) and 0
    for ignored rows; mean divides by the sum of w, as torch."""
    logp, target = op.operands[:2]
    weight = op.operands[2] if op.attrs["has_weight"] else None
    dt = logp.dtype
    if logp.rank == 1:
        logp = b.reshape(logp, (1, logp.shape[0]))
        target = b.reshape(target, (1,))
    n, c = logp.shape
    zero = b.splat(0.0, dt)
    onehot = b.compare("eq", b.iota((n, c), 1, target.dtype), b.reshape(target, (n, 1)))
    picked = b.reduce("sum", b.select(onehot, logp, zero), [1])
    valid = b.compare("ne", target, b.splat(op.attrs["ignore_index"], target.dtype))
    if weight is not None:
        w = b.reduce("sum", b.select(onehot, b.reshape(weight, (1, c)), zero), [1])
        w = b.select(valid, w, zero)
    else:
        w = b.convert(valid, dt)
    losses = b.unary("neg", b.mul(picked, w))
    total = b.reduce("sum", w, [0])
    reduction = op.attrs["reduction"]
    if reduction == "none":
        loss = b.reshape(losses, op.results[0].shape)
    elif reduction == "sum":
        loss = b.reduce("sum", losses, [0])
    else:
        loss = b.div(b.reduce("sum", losses, [0]), total)
    return [checking_labels(b, loss, target, c, op.attrs["ignore_index"]), total]


def checking_labels(b, value, labels, classes, ignore_index=None):
    """`value` plus a zero that reads `labels` through tfc.cross_entropy
    (of [N, C] zero logits), whose kernel checks each label that is not
    ignore_index against [0, classes) at run time: a label out of range
    is an error naming cross_entropy on the host, as torch's 'Target 7 is
    out of bounds', and a NaN loss on the GPU (where the one-hot selection
    would silently pick nothing). No ignore_index: every label counts."""
    n = labels.type.numel
    if ignore_index is None:
        ignore_index = -2 ** 62  # a value no label holds (-2^63 is no C++ literal)
    labels = b.reshape(labels, (n,))
    zeros = b.splat(0.0, "f32", (n, classes))
    check = b.stop_gradient(b.cross_entropy(zeros, labels, ignore_index, 0.0, "sum"))
    zero = b.mul(check, b.splat(0.0, "f32"))
    return b.add(value, b.convert(zero, value.dtype))


def _difference(ctx, a, b_):
    dt = ctx.out().dtype
    return ctx.b.sub(ctx.tensor(a, dt), ctx.tensor(b_, dt))


@lowers("aten.mse_loss.default")
def mse_loss(ctx, a, b_, reduction=1):
    d = _difference(ctx, a, b_)
    return _reduce(ctx, ctx.b.mul(d, d), reduction)


@lowers("aten.l1_loss.default")
def l1_loss(ctx, a, b_, reduction=1):
    return _reduce(ctx, ctx.b.unary("abs", _difference(ctx, a, b_)), reduction)


@lowers("aten.smooth_l1_loss.default", "aten.huber_loss.default")
def smooth_l1_loss(ctx, a, b_, reduction=1, beta=1.0):
    b = ctx.b
    dt = ctx.out().dtype
    d = _difference(ctx, a, b_)
    ad = b.unary("abs", d)
    half = ctx.tensor(0.5, dt)
    if ctx.name.startswith("aten.huber"):
        delta = beta
        quad = b.mul(half, b.mul(d, d))
        lin = b.mul(ctx.tensor(delta, dt), b.sub(ad, ctx.tensor(0.5 * delta, dt)))
    else:
        if beta == 0:
            return _reduce(ctx, ad, reduction)
        quad = b.div(b.mul(half, b.mul(d, d)), ctx.tensor(beta, dt))
        lin = b.sub(ad, ctx.tensor(0.5 * beta, dt))
    small = b.compare("lt", ad, ctx.tensor(beta, dt))
    return _reduce(ctx, b.select(small, quad, lin), reduction)


@lowers("aten.soft_margin_loss.default")
def soft_margin_loss(ctx, x, y, reduction=1):
    """log(1 + exp(-y x)), in the form that neither overflows nor rounds
    small losses to zero (torch's log1p(exp(-y x)) overflows to inf)."""
    dt = ctx.out().dtype
    margin = ctx.b.mul(ctx.tensor(y, dt), ctx.tensor(x, dt))
    return _reduce(ctx, softplus_of_negated(ctx, margin), reduction)


@lowers("aten.binary_cross_entropy_with_logits.default")
def bce_with_logits(ctx, x, y, weight=None, pos_weight=None, reduction=1):
    b = ctx.b
    dt = ctx.out().dtype
    xv, yv = ctx.tensor(x, dt), ctx.tensor(y, dt)
    one = ctx.tensor(1.0, dt)
    softplus_neg = softplus_of_negated(ctx, xv)
    if pos_weight is not None:
        coeff = b.add(one, b.mul(b.sub(ctx.tensor(pos_weight, dt), one), yv))
        losses = b.add(b.mul(b.sub(one, yv), xv), b.mul(coeff, softplus_neg))
    else:
        losses = b.add(b.mul(b.sub(one, yv), xv), softplus_neg)
    if weight is not None:
        losses = b.mul(losses, ctx.tensor(weight, dt))
    return b.broadcast_to(_reduce(ctx, losses, reduction), ctx.out().shape)


@lowers("aten.binary_cross_entropy.default")
def binary_cross_entropy(ctx, p, y, weight=None, reduction=1):
    """-(y max(log p, -100) + (1 - y) max(log(1 - p), -100)) w, with
    torch's gradients rather than this formula's (whose 0 * 1 / (1 - p) is
    NaN at a saturated p of exactly 1 or 0, a sigmoid's in f32 beyond
    |x| ~ 17): (p - y) / max(p (1 - p), 1e-12) w for p and -logit(p) w =
    -log(p / (1 - p)) w (unclamped: +-inf at 0 and 1) for y, as torch's
    binary_cross_entropy_backward and _target_backward; w has none."""
    b = ctx.b
    dt = ctx.out().dtype
    pv, yv = ctx.tensor(p, dt), ctx.tensor(y, dt)
    one, floor = ctx.tensor(1.0, dt), ctx.tensor(-100.0, dt)
    q = b.sub(one, pv)
    log_p = b.binary("maximum", b.unary("log", pv), floor)
    log_q = b.binary("maximum", b.unary("log", q), floor)
    losses = b.unary("neg", b.add(b.mul(yv, log_p), b.mul(b.sub(one, yv), log_q)))
    d_p = b.div(b.sub(pv, yv), b.binary("maximum", b.mul(q, pv), ctx.tensor(1e-12, dt)))
    d_y = b.unary("neg", b.unary("log", b.div(pv, q)))
    if weight is not None:
        w = b.stop_gradient(ctx.tensor(weight, dt))
        losses, d_p, d_y = b.mul(losses, w), b.mul(d_p, w), b.mul(d_y, w)
    surrogate = b.add(b.mul(pv, b.stop_gradient(d_p)), b.mul(yv, b.stop_gradient(d_y)))
    losses = b.straight_through(b.stop_gradient(losses), b.broadcast_to(surrogate, losses.shape))
    return _reduce(ctx, losses, reduction)


@lowers("aten.multi_margin_loss.default")
def multi_margin_loss(ctx, x, target, p=1, margin=1, weight=None, reduction=1):
    """Per row, the mean over the classes d other than the target y of
    max(0, margin - x[y] + x[d]) (squared for p = 2), times weight[y]:
    torch's sum, with the same strict z > 0 (at z = 0 the gradient is 0).
    A target outside [0, C) is an error at run time, as torch's."""
    b = ctx.b
    dt = ctx.out().dtype
    if p not in (1, 2):
        ctx.unsupported(f"multi_margin_loss with p={p} (torch allows only 1 and 2)")
    v = ctx.tensor(x, dt)
    y = ctx.tensor(target)
    if v.rank == 1:
        v = b.reshape(v, (1, v.shape[0]))
    n, c = v.shape
    y = b.reshape(y if y.dtype in ("i32", "i64") else b.convert(y, "i64"), (n, 1))
    zero = ctx.tensor(0.0, dt)
    onehot = b.compare("eq", b.iota((n, c), 1, y.dtype), y)
    picked = b.reduce("sum", b.select(onehot, v, zero), [1], keepdim=True)
    z = b.add(b.sub(ctx.tensor(margin, dt), picked), v)
    hinge = b.mul(z, z) if p == 2 else z
    counted = b.select(onehot, ctx.tensor(False, "i1"), b.compare("gt", z, zero))
    hinge = b.select(counted, hinge, zero)
    if weight is not None:
        w = b.reshape(ctx.tensor(weight, dt), (1, c))
        hinge = b.mul(hinge, b.reduce("sum", b.select(onehot, w, zero), [1], keepdim=True))
    losses = b.div(b.reduce("sum", hinge, [1]), ctx.tensor(float(c), dt))
    losses = checking_labels(b, _reduce(ctx, losses, reduction), y, c)
    return b.reshape(losses, ctx.out().shape)


@lowers("aten.multilabel_margin_loss_forward.default")
def multilabel_margin_loss(ctx, x, target, reduction):
    """Per row, the sum over its targets y (target's entries before the
    first -1, repeats counted again) and the classes d that are no target
    of max(0, 1 - x[y] + x[d]), over the number of classes: torch's, the
    same strict z > 0 (at z = 0 the gradient is 0). The second result is
    torch's is_target, 1 at the row's target classes. An entry outside
    [-1, C), also after the first -1, is an error at run time, as torch's."""
    b = ctx.b
    dt = ctx.out(0).dtype
    v = ctx.tensor(x, dt)
    t = ctx.tensor(target)
    if v.rank == 1:
        v, t = b.reshape(v, (1, v.shape[0])), b.reshape(t, (1, t.shape[0]))
    t = t if t.dtype == "i64" else b.convert(t, "i64")
    n, c = v.shape
    zero = ctx.tensor(0.0, dt)
    # The targets before the row's first negative entry count.
    k = b.iota((n, c), 1)
    from_end = b.sub(ctx.tensor(c, "i64"), k)
    first_end = b.sub(ctx.tensor(c, "i64"), b.reduce(
        "max", b.select(b.compare("lt", t, ctx.tensor(0, "i64")), from_end,
                        ctx.tensor(0, "i64")), [1], keepdim=True))
    valid = b.compare("lt", k, first_end)                                     # [n, k]
    onehot = b.compare("eq", b.iota((n, c, c), 2), b.reshape(t, (n, c, 1)))  # [n, k, class]
    onehot = b.select(b.reshape(valid, (n, c, 1)), onehot, ctx.tensor(False, "i1"))
    hits = b.reduce("sum", b.convert(onehot, "i32"), [1])
    is_target = b.compare("gt", hits, ctx.tensor(0, "i32"))                  # [n, class]
    picked = b.reduce("sum", b.select(onehot, b.reshape(v, (n, 1, c)), zero), [2],
                      keepdim=True)                                           # [n, k, 1]
    z = b.add(b.sub(ctx.tensor(1.0, dt), picked), b.reshape(v, (n, 1, c)))   # [n, k, d]
    counted = b.select(b.reshape(is_target, (n, 1, c)), ctx.tensor(False, "i1"),
                       b.compare("gt", z, zero))
    counted = b.select(b.reshape(valid, (n, c, 1)), counted, ctx.tensor(False, "i1"))
    hinge = b.reduce("sum", b.select(counted, z, zero), [1, 2])
    losses = b.div(hinge, ctx.tensor(float(c), dt))
    # torch refuses any entry outside [-1, C), also after the first -1.
    losses = checking_labels(b, _reduce(ctx, losses, reduction), t, c, -1)
    return (b.reshape(losses, ctx.out(0).shape),
            b.reshape(b.convert(is_target, ctx.out(1).dtype), ctx.out(1).shape))


def _stable_max(ctx, m):
    """m without gradient, 0 where it is -inf (log-sum-exp's shift)."""
    b = ctx.b
    ninf = ctx.tensor(float("-inf"), m.dtype)
    return b.stop_gradient(b.select(b.compare("eq", m, ninf), ctx.tensor(0.0, m.dtype), m))


def _shifted_log(ctx, total, m):
    """log(total) + m, -inf where total is 0 with a zero gradient (not
    the NaN of log's at 0 times exp's 0): impossible alignments."""
    b = ctx.b
    dt = total.dtype
    empty = b.compare("eq", total, ctx.tensor(0.0, dt))
    logged = b.add(b.unary("log", b.select(empty, ctx.tensor(1.0, dt), total)), m)
    return b.select(empty, ctx.tensor(float("-inf"), dt), logged)


def _log_sum_exp(ctx, terms):
    """log(sum exp(terms)) as torch's CTC kernels write it: m the largest
    term (0 where all are -inf), log(exp(t1 - m) + ...) + m summed in
    order; m carries no gradient (the terms get their softmax weights)."""
    b = ctx.b
    m = terms[0]
    for t in terms[1:]:
        m = b.binary("maximum", m, t)
    m = _stable_max(ctx, m)
    total = None
    for t in terms:
        e = b.unary("exp", b.sub(t, m))
        total = e if total is None else b.add(total, e)
    return _shifted_log(ctx, total, m)


def _lengths(ctx, lengths, n):
    """CTC lengths (a list, or a known or traced tensor) as i64 [n]."""
    if isinstance(lengths, (list, tuple, int)):
        lengths = Known(torch.tensor(lengths, dtype=torch.int64).reshape(n))
    return ctx.b.reshape(ctx.tensor(lengths, "i64"), (n,))


def _padded_targets(ctx, targets, target_lengths, n, unbatched):
    """CTC targets as [n, S] i64: padded ones as they are; 1-d
    concatenated ones (sample k's after the lengths before it) gathered
    into rows of S = their count (enough for any lengths)."""
    b = ctx.b
    t = ctx.tensor(targets, "i64")
    if t.rank == 2 or unbatched:
        return b.reshape(t, (n, t.shape[-1]))
    total = s = t.shape[0]
    zero = ctx.tensor(0, "i64")
    before = b.compare("lt", b.iota((n, n), 1), b.iota((n, n), 0))           # [k, j]: j < k
    offset = b.reduce("sum", b.select(before, b.reshape(target_lengths, (1, n)), zero), [1],
                      keepdim=True)
    inside = b.compare("lt", b.iota((n, s), 1), b.reshape(target_lengths, (n, 1)))
    pos = b.select(inside, b.add(offset, b.iota((n, s), 1)), zero)            # [n, S]
    onehot = b.compare("eq", b.iota((n, s, total), 2), b.reshape(pos, (n, s, 1)))
    return b.reduce("sum", b.select(onehot, b.reshape(t, (1, 1, total)), zero), [2])


@lowers("aten._ctc_loss.default", "aten._ctc_loss.Tensor")
def ctc_loss(ctx, log_probs, targets, input_lengths, target_lengths, blank=0,
             zero_infinity=False):
    """torch's CTC negative log-likelihood per sample: the log-space alpha
    recursion over the extended labels l' = (blank, y1, blank, y2, ...,
    blank) unrolled over the T time steps, each torch's
    alpha_t(s) = lse(alpha(s), alpha(s - 1), alpha(s - 2) where
    l'(s) != l'(s - 2)) + lp_t(l'(s)), a sample's alphas kept once t
    reaches its input length, and -lse(alpha(2L), alpha(2L - 1)) at the
    end. Lengths and targets may be known or traced (masks, not shapes,
    follow them). Impossible alignments give inf with a zero gradient.
    torch's backward adds exp(lp) * grad to the gradient of each
    log-probability before the input length (the logits' gradient when lp
    is a log_softmax; with zero_infinity, not for infinite losses): a
    straight_through term of value 0 adds the same. The second result,
    log_alpha, is not computed."""
    b = ctx.b
    out_dt = ctx.out(0).dtype
    dt = "f32" if out_dt in ("f16", "bf16") else out_dt
    lp = ctx.tensor(log_probs, dt)
    unbatched = lp.rank == 2
    if unbatched:
        lp = b.reshape(lp, (lp.shape[0], 1, lp.shape[1]))
    steps, n, c = lp.shape
    il = b.reshape(_lengths(ctx, input_lengths, n), (n, 1))
    tl = _lengths(ctx, target_lengths, n)
    t = _padded_targets(ctx, targets, tl, n, unbatched)
    tl = b.reshape(tl, (n, 1))
    s = t.shape[1]
    width = 2 * s + 1
    ninf = ctx.tensor(float("-inf"), dt)
    no = ctx.tensor(False, "i1")
    # l' [n, 2S + 1] and lp_t(l'(s)) [T, n, 2S + 1] by a one-hot selection.
    blanks = b.broadcast_to(ctx.tensor(blank, "i64"), (n, s, 1))
    ext = b.reshape(b.concat([blanks, b.reshape(t, (n, s, 1))], 2), (n, 2 * s))
    ext = b.concat([ext, b.broadcast_to(ctx.tensor(blank, "i64"), (n, 1))], 1)
    onehot = b.compare("eq", b.iota((1, n, width, c), 3), b.reshape(ext, (1, n, width, 1)))
    picked = b.reduce("sum", b.select(onehot, b.reshape(lp, (steps, n, 1, c)),
                                      ctx.tensor(0.0, dt)), [3])
    state = b.iota((n, width), 1)
    differs = b.compare("ne", b.slice(ext, [0, 2], [n, width]),
                        b.slice(ext, [0, 0], [n, width - 2]))
    skip = b.concat([b.broadcast_to(no, (n, 2)), differs], 1)

    def at(step):
        return b.reshape(b.slice(picked, [step, 0, 0], [step + 1, n, width]), (n, width))

    def shifted(a, k):
        return b.pad(b.slice(a, [0, 0], [n, width - k]), [0, k], [0, 0], float("-inf"))

    # alpha_0: lp_0(blank), and lp_0(y1) for a non-empty target.
    starts = b.select(b.compare("gt", tl, ctx.tensor(0, "i64")), ctx.tensor(2, "i64"),
                      ctx.tensor(1, "i64"))
    alpha = b.select(b.compare("lt", state, starts), at(0), ninf)
    for step in range(1, steps):
        terms = [alpha, shifted(alpha, 1), b.select(skip, shifted(alpha, 2), ninf)]
        new = b.add(_log_sum_exp(ctx, terms), at(step))
        alpha = b.select(b.compare("lt", ctx.tensor(step, "i64"), il), new, alpha)
    # The states 2L and 2L - 1; the others add exact zeros to the sum.
    tl2 = b.mul(tl, ctx.tensor(2, "i64"))
    last = b.select(b.compare("eq", state, tl2), ctx.tensor(True, "i1"),
                    b.compare("eq", state, b.sub(tl2, ctx.tensor(1, "i64"))))
    ends = b.select(last, alpha, ninf)
    m = _stable_max(ctx, b.reduce("max", ends, [1], keepdim=True))
    total = b.reduce("sum", b.unary("exp", b.sub(ends, m)), [1], keepdim=True)
    nll = b.reshape(b.unary("neg", _shifted_log(ctx, total, m)), (n,))
    # torch's exp(lp) term, for the time steps before each input length.
    live = b.compare("lt", b.iota((steps, n, 1), 0), b.reshape(il, (1, n, 1)))
    mass = b.reduce("sum", b.select(live, b.unary("exp", lp), ctx.tensor(0.0, dt)), [0, 2])
    if zero_infinity:
        mass = b.select(b.compare("eq", nll, ctx.tensor(float("inf"), dt)),
                        ctx.tensor(0.0, dt), mass)
    nll = b.add(nll, b.straight_through(b.broadcast_to(ctx.tensor(0.0, dt), (n,)), mass))
    return (b.convert(b.reshape(nll, ctx.out(0).shape), out_dt),
            Missing("the CTC log-alpha table has no tfc form", "use the loss (the first result)"))
