"""Matrix products: mm, addmm (a linear layer with bias), bmm, baddbmm,
matmul, linear, mv, dot; pairwise distances (cdist). A transposed operand (`t`, `transpose`) is folded
into tfc.matmul's transpose flags by passes/canonicalize.py; 16-bit
products, which tfc.matmul returns in f32, are converted back to the
traced type."""
import math

from ..registry import lowers


def _product(ctx, a, b, dtype):
    x, y = ctx.tensor(a, dtype), ctx.tensor(b, dtype)
    return ctx.b.convert(ctx.b.matmul(x, y), dtype)


def _axpby(ctx, product, c, beta, alpha, dtype):
    """beta * c + alpha * product (torch's addmm/baddbmm scaling)."""
    b = ctx.b
    if alpha != 1:
        product = b.mul(product, ctx.tensor(alpha, dtype))
    if beta == 0:
        return product
    bias = ctx.tensor(c, dtype)
    if beta != 1:
        bias = b.mul(bias, ctx.tensor(beta, dtype))
    return b.add(product, bias)


@lowers("aten.mm.default", "aten.bmm.default")
def mm(ctx, a, b):
    return _product(ctx, a, b, ctx.out().dtype)


@lowers("aten.addmm.default", "aten.baddbmm.default")
def addmm(ctx, c, a, b, beta=1, alpha=1):
    dt = ctx.out().dtype
    return ctx.b.broadcast_to(_axpby(ctx, _product(ctx, a, b, dt), c, beta, alpha, dt),
                              ctx.out().shape)


@lowers("aten.matmul.default")
def matmul(ctx, a, b):
    dt = ctx.out().dtype
    x, y = ctx.tensor(a, dt), ctx.tensor(b, dt)
    bld = ctx.b
    # torch.matmul's vector cases: a vector operand becomes a matrix and
    # the added dimension is dropped from the result.
    if x.rank == 1:
        x = bld.reshape(x, (1, x.shape[0]))
    if y.rank == 1:
        y = bld.reshape(y, (y.shape[0], 1))
    return bld.reshape(bld.convert(bld.matmul(x, y), dt), ctx.out().shape)


@lowers("aten.mv.default", "aten.dot.default")
def mv(ctx, a, b):
    return matmul(ctx, a, b)


@lowers("aten.linear.default")
def linear(ctx, x, weight, bias=None):
    dt = ctx.out().dtype
    bld = ctx.b
    w = ctx.tensor(weight, dt)
    v = ctx.tensor(x, dt)
    if w.rank == 1:
        w = bld.reshape(w, (1, w.shape[0]))
    if v.rank == 1:
        v = bld.reshape(v, (1, v.shape[0]))
    y = bld.convert(bld.matmul(v, w, transpose_b=True), dt)
    if bias is not None:
        y = bld.add(y, ctx.tensor(bias, dt))
    return bld.reshape(y, ctx.out().shape)


@lowers("aten._cdist_forward.default")
def cdist(ctx, x1, x2, p, compute_mode=None):
    """The p-norm distances between the rows of x1 [..., P, M] and x2
    [..., R, M], computed directly from their differences [..., P, R, M]
    (torch.cdist traces here when it does not take its matrix-product
    form, which records its own ops). The gradients are torch's: at zero
    distance 0 (a safe operand under the root, not inf * 0), for p = inf
    each element whose |difference| equals the maximum gets the whole
    gradient with its sign (torch's convention; a max reduction would
    split ties), for p = 0 none."""
    b = ctx.b
    t = ctx.out()
    dt = t.dtype
    a, c = ctx.tensor(x1, dt), ctx.tensor(x2, dt)
    diff = b.sub(b.reshape(a, a.shape[:-1] + (1, a.shape[-1])),
                 b.reshape(c, c.shape[:-2] + (1,) + c.shape[-2:]))
    size = b.unary("abs", diff)
    zero = ctx.tensor(0.0, dt)
    if p == 0:
        dist = b.reduce("sum", b.convert(b.compare("ne", diff, zero), dt), [-1])
    elif p == 1:
        dist = b.reduce("sum", size, [-1])
    elif p == float("inf"):
        peak = b.reduce("max", size, [-1], keepdim=True)
        ties = b.reduce("sum", b.select(b.compare("eq", size, peak), size, zero), [-1])
        dist = b.straight_through(b.reshape(peak, ties.shape), ties)
    elif p > 0 and math.isfinite(p):
        total = b.reduce("sum", b.mul(diff, diff) if p == 2 else b.pow(size, p), [-1])
        empty = b.compare("eq", total, zero)
        safe = b.select(empty, ctx.tensor(1.0, dt), total)
        root = b.unary("sqrt", safe) if p == 2 else b.pow(safe, 1.0 / p)
        dist = b.select(empty, zero, root)
    else:
        ctx.unsupported(f"cdist with p={p} (torch takes p >= 0)")
    return b.broadcast_to(dist, t.shape)
