"""Matrix products: mm, addmm (a linear layer with bias), bmm, baddbmm,
matmul, linear, mv, dot. A transposed operand (`t`, `transpose`) is folded
into tfc.matmul's transpose flags by passes/canonicalize.py; 16-bit
products, which tfc.matmul returns in f32, are converted back to the
traced type."""
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
