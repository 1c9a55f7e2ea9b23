"""Matrix products: mm, addmm (a linear layer with bias), bmm, baddbmm,
addbmm, matmul, linear, mv, dot, vdot, bilinear forms (_trilinear);
norms of differences (cdist, pdist, dist) and renorm; cross products; matrix shapes (trace,
rot90, block_diag). A transposed operand (`t`, `transpose`) is folded
into tfc.matmul's transpose flags by passes/canonicalize.py; 16-bit
products, which tfc.matmul returns in f32, are converted back to the
traced type."""
import math

import torch

from ..constants import Known
from ..registry import lowers
from .common import norm_dim
from .reduction import p_norm
from .shape import flip, gather_rows


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
    """beta * c + alpha * (a @ b). A 16-bit product stays in f32 (tfc.matmul's
    result) while the bias is added and is rounded once, as torch's addmm
    (and cuBLASLt's bias epilogue): rounding the product first would round
    twice."""
    dt = ctx.out().dtype
    product = ctx.b.matmul(ctx.tensor(a, dt), ctx.tensor(b, dt))
    r = _axpby(ctx, product, c, beta, alpha, product.dtype)
    return ctx.b.broadcast_to(ctx.b.convert(r, dt), ctx.out().shape)


@lowers("aten._sparse_addmm.default")
def sparse_addmm(ctx, c, a, b, beta=1, alpha=1):
    """torch.sparse.mm (beta * c + alpha * (a @ b) with a sparse): addmm,
    a sparse matrix known at trace time (a graph's normalized adjacency
    kept on the module: LightGCN, NGCF) being emitted dense
    (constants.materialize); tfc has no sparse tensors."""
    return addmm(ctx, c, a, b, beta, alpha)


@lowers("aten.addmv.default")
def addmv(ctx, c, a, v, beta=1, alpha=1):
    """beta * c + alpha * (a @ v) (c broadcast to the result), as addmm."""
    dt = ctx.out().dtype
    return ctx.b.broadcast_to(_axpby(ctx, matmul(ctx, a, v), c, beta, alpha, dt),
                              ctx.out().shape)


@lowers("aten.addr.default")
def addr(ctx, c, u, v, beta=1, alpha=1):
    """beta * c + alpha * outer(u, v) (c broadcast), the outer product as a
    broadcast multiply."""
    b = ctx.b
    dt = ctx.out().dtype
    x, y = ctx.tensor(u, dt), ctx.tensor(v, dt)
    outer = b.mul(b.reshape(x, (x.shape[0], 1)), b.reshape(y, (1, y.shape[0])))
    return b.broadcast_to(_axpby(ctx, outer, c, beta, alpha, dt), ctx.out().shape)


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


@lowers("aten.mv.default", "aten.dot.default", "aten.vdot.default")
def mv(ctx, a, b):
    """mv, dot and vdot (of real vectors: no conjugate) as matmul's vector
    cases."""
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
    form, which records its own ops); gradients as torch's (_norms)."""
    b = ctx.b
    t = ctx.out()
    dt = t.dtype
    a, c = ctx.tensor(x1, dt), ctx.tensor(x2, dt)
    diff = b.sub(b.reshape(a, a.shape[:-1] + (1, a.shape[-1])),
                 b.reshape(c, c.shape[:-2] + (1,) + c.shape[-2:]))
    return b.broadcast_to(_norms(ctx, diff, p, "cdist"), t.shape)


@lowers("aten._euclidean_dist.default")
def euclidean_dist(ctx, x1, x2):
    """torch.cdist's matrix-product form (p = 2 when an operand has more
    than 25 rows; the batch dims already expanded to equal): as torch's,
    one matmul of [-2 x1, |x1|^2, 1] and [x2, 1, |x2|^2], clamped at 0,
    under a root. The root's operand is replaced by 1 where it is 0 or less,
    so the gradient there is 0 (torch's _euclidean_dist_backward masks
    res == 0) and elsewhere autodiff gives torch's (x1 - x2) grad / res."""
    b = ctx.b
    dt = ctx.out().dtype
    a, c = ctx.tensor(x1, dt), ctx.tensor(x2, dt)
    ones = lambda v: b.splat(1.0, dt, v.shape[:-1] + (1,))  # noqa: E731
    square = lambda v: b.reduce("sum", b.mul(v, v), [-1], keepdim=True)  # noqa: E731
    left = b.concat([b.mul(a, ctx.tensor(-2.0, dt)), square(a), ones(a)], -1)
    right = b.concat([c, ones(c), square(c)], -1)
    total = b.convert(b.matmul(left, right, transpose_b=True), dt)
    zero = ctx.tensor(0.0, dt)
    positive = b.compare("gt", total, zero)
    root = b.unary("sqrt", b.select(positive, total, ctx.tensor(1.0, dt)))
    return b.select(positive, root, zero)


def _norms(ctx, diff, p, what):
    """The p-norms of diff's rows (last dim), with torch's cdist/pdist
    gradients: at zero distance 0 (a safe operand under the root, not
    inf * 0), for p = inf each element whose |difference| equals the
    maximum gets the whole gradient with its sign (torch's convention; a
    max reduction would split ties), for p = 0 none."""
    b = ctx.b
    dt = diff.dtype
    size = b.unary("abs", diff)
    zero = ctx.tensor(0.0, dt)
    if p == 0:
        return b.reduce("sum", b.convert(b.compare("ne", diff, zero), dt), [-1])
    if p == 1:
        return b.reduce("sum", size, [-1])
    if p == float("inf"):
        peak = b.reduce("max", size, [-1], keepdim=True)
        ties = b.reduce("sum", b.select(b.compare("eq", size, peak), size, zero), [-1])
        return b.straight_through(b.reshape(peak, ties.shape), ties)
    if not (p > 0 and math.isfinite(p)):
        ctx.unsupported(f"{what} with p={p} (torch takes p >= 0)")
    total = b.reduce("sum", b.mul(diff, diff) if p == 2 else b.pow(size, p), [-1])
    empty = b.compare("eq", total, zero)
    safe = b.select(empty, ctx.tensor(1.0, dt), total)
    root = b.unary("sqrt", safe) if p == 2 else b.pow(safe, 1.0 / p)
    return b.select(empty, zero, root)


@lowers("aten._pdist_forward.default")
def pdist(ctx, x, p=2.0):
    """F.pdist: the p-norm distances between the rows i < j of x [N, M], in
    row-major order of the pairs (the upper triangle of cdist(x, x)), from
    the differences of the two rows of each pair, gathered by a constant
    pair table; gradients as torch's _pdist_backward (cdist's rules)."""
    b = ctx.b
    dt = ctx.out().dtype
    v = ctx.tensor(x, dt)
    n = v.shape[0]
    if n < 2:
        ctx.unsupported(f"pdist of {n} row (no pairs: tfc tensors have no zero-sized "
                        "dimensions)")
    first, second = torch.triu_indices(n, n, 1)
    diff = b.sub(gather_rows(ctx, v, ctx.tensor(Known(first), "i64")),
                 gather_rows(ctx, v, ctx.tensor(Known(second), "i64")))
    return _norms(ctx, diff, p, "pdist")


@lowers("aten.linalg_cross.default")
def cross(ctx, a, c, dim=-1):
    """torch.cross / linalg.cross of 3-vectors along dim (operands
    broadcast): a[i + 1] c[i + 2] - a[i + 2] c[i + 1], the components
    rotated by two static slices (views the consumers' kernels fold in)."""
    b = ctx.b
    t = ctx.out()
    x, y = (b.broadcast_to(ctx.tensor(v, t.dtype), t.shape) for v in (a, c))
    d = norm_dim(dim, t.rank)
    if t.shape[d] != 3:
        ctx.unsupported(f"cross product along a dim of size {t.shape[d]} (torch needs 3)")

    def rotated(v, by):
        return b.concat([b.slice_dim(v, d, by, 3), b.slice_dim(v, d, 0, by)], d)
    return b.sub(b.mul(rotated(x, 1), rotated(y, 2)), b.mul(rotated(x, 2), rotated(y, 1)))


@lowers("aten.addbmm.default")
def addbmm(ctx, c, b1, b2, beta=1, alpha=1):
    """beta * c + alpha * sum_i b1[i] @ b2[i] as one matmul: the batch
    moved into the contracted dim ([M, B * K] @ [B * K, N])."""
    bld = ctx.b
    dt = ctx.out().dtype
    x, y = ctx.tensor(b1, dt), ctx.tensor(b2, dt)
    nb, m, k = x.shape
    rows = bld.reshape(bld.transpose(x, [1, 0, 2]), (m, nb * k))
    cols = bld.reshape(y, (nb * k, y.shape[2]))
    product = bld.convert(bld.matmul(rows, cols), dt)
    return bld.broadcast_to(_axpby(ctx, product, c, beta, alpha, dt), ctx.out().shape)


def _contract(ctx, a, b, sums):
    """The sum over dims `sums` of a * b (same rank, size-1 dims broadcast)
    as one matmul, the summed dims kept with size 1: a dim both have (and
    not summed) is a batch dim, one only a has a row dim, one only b has a
    column dim (torch's sumproduct_pair). A summed dim only one operand has
    is summed in that operand first."""
    bld = ctx.b
    r = a.rank
    for d in sums:
        if a.shape[d] == 1 and b.shape[d] != 1:
            b = bld.reduce("sum", b, [d], keepdim=True)
        elif b.shape[d] == 1 and a.shape[d] != 1:
            a = bld.reduce("sum", a, [d], keepdim=True)
    kept = [d for d in range(r) if d not in sums]
    batch = [d for d in kept if a.shape[d] == b.shape[d]]
    left = [d for d in kept if d not in batch and b.shape[d] == 1]
    right = [d for d in kept if d not in batch and a.shape[d] == 1]
    summed = list(sums)
    perm = batch + left + summed + right
    lead = tuple(a.shape[d] for d in batch)
    size = lambda v, dims: math.prod(v.shape[d] for d in dims)  # noqa: E731
    x = bld.reshape(bld.transpose(a, perm), lead + (size(a, left), size(a, summed)))
    y = bld.reshape(bld.transpose(b, perm), lead + (size(b, summed), size(b, right)))
    out = bld.convert(bld.matmul(x, y), a.dtype)
    order = batch + left + right
    out = bld.reshape(out, lead + tuple(a.shape[d] for d in left)
                      + tuple(b.shape[d] for d in right))
    out = bld.transpose(out, [order.index(d) for d in kept])
    return bld.reshape(out, tuple(1 if d in sums else max(a.shape[d], b.shape[d])
                                  for d in range(r)))


@lowers("aten._trilinear.default")
def trilinear(ctx, i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    """sum over `sumdim` of i1 * i2 * i3, each input given size-1 dims at
    its `expand` positions (F.bilinear: x1 W x2 per output feature).
    As torch's: i1 and i2 contracted over the summed dims i3 lacks, then
    that with i3 over the rest, each as one matmul (_contract)."""
    dt = ctx.out().dtype
    bld = ctx.b

    def expanded(x, dims):
        v = ctx.tensor(x, dt)
        shape = list(v.shape)
        for d in sorted(dims):
            shape.insert(d, 1)
        return bld.reshape(v, shape)

    a, b, c = expanded(i1, expand1), expanded(i2, expand2), expanded(i3, expand3)
    sums = sorted(norm_dim(d, a.rank) for d in sumdim)
    if not sums:
        return bld.reshape(bld.mul(bld.mul(a, b), c), ctx.out().shape)
    first = [d for d in sums if c.shape[d] == 1]
    out = _contract(ctx, a, b, first) if first else bld.mul(a, b)
    rest = [d for d in sums if d not in first]
    out = _contract(ctx, out, c, rest) if rest else bld.mul(out, c)
    return bld.reshape(out, ctx.out().shape)


@lowers("aten.dist.default")
def dist(ctx, a, b, p=2):
    """The p-norm of a - b (broadcast) over all its elements."""
    dt = ctx.out().dtype
    diff = ctx.b.sub(ctx.tensor(a, dt), ctx.tensor(b, dt))
    return p_norm(ctx, diff, float(p), list(range(diff.rank)))


@lowers("aten.renorm.default")
def renorm(ctx, x, p, dim, maxnorm):
    """Each slice along `dim` whose p-norm exceeds maxnorm scaled by
    maxnorm / (norm + 1e-7), as torch's kernel (x times a factor that is 1
    elsewhere); differentiating that product gives torch's
    renorm_backward."""
    b = ctx.b
    dt = ctx.out().dtype
    v = ctx.tensor(x, dt)
    d = norm_dim(dim, v.rank)
    norm = p_norm(ctx, v, float(p), [i for i in range(v.rank) if i != d], keepdim=True)
    limit = ctx.tensor(float(maxnorm), dt)
    factor = b.select(b.compare("gt", norm, limit),
                      b.div(limit, b.add(norm, ctx.tensor(1e-7, dt))), ctx.tensor(1.0, dt))
    return b.mul(v, factor)


@lowers("aten.trace.default")
def trace(ctx, x):
    """The sum of a matrix's main diagonal: the flattened matrix's every
    (cols + 1)-th element from the first. Its gradient is the diagonal's;
    torch 1.13's trace backward also sends the gradient to the elements
    past the diagonal at the same stride in a matrix with more rows than
    columns (pytorch#171704, fixed upstream), which tfc does not copy."""
    b = ctx.b
    t = ctx.out()
    v = ctx.tensor(x, t.dtype)
    rows, cols = v.shape
    n = min(rows, cols)
    if n == 0:
        return ctx.tensor(0, t.dtype)
    flat = b.reshape(v, (rows * cols,))
    return b.reduce("sum", b.slice_dim(flat, 0, 0, (n - 1) * (cols + 1) + 1, cols + 1), [0])


@lowers("aten.rot90.default")
def rot90(ctx, x, k=1, dims=(0, 1)):
    """x rotated k quarter turns from dims[0] towards dims[1], as torch's:
    a flip of dims[1] then a transpose (k = 1), a flip of both (2), a flip
    of dims[0] then a transpose (3)."""
    b = ctx.b
    v = ctx.tensor(x)
    d0, d1 = norm_dim(dims[0], v.rank), norm_dim(dims[1], v.rank)
    k %= 4
    if k == 1:
        return b.swap(flip(ctx, v, [d1]), d0, d1)
    if k == 2:
        return flip(ctx, v, [d0, d1])
    if k == 3:
        return b.swap(flip(ctx, v, [d0]), d0, d1)
    return v


@lowers("aten.block_diag.default")
def block_diag(ctx, tensors):
    """The inputs (0-d: 1 x 1, 1-d: one row) along the diagonal of a zero
    matrix: each padded with zeros to the full width, the rows
    concatenated."""
    b = ctx.b
    t = ctx.out()
    blocks = []
    for x in tensors:
        v = ctx.tensor(x, t.dtype)
        blocks.append(b.reshape(v, (1, 1) if v.rank == 0 else (1, v.shape[0]) if v.rank == 1
                                else v.shape))
    width, start, rows = t.shape[1], 0, []
    for v in blocks:
        if v.shape[0]:
            rows.append(b.pad(v, [0, start], [0, width - start - v.shape[1]], 0.0)
                        if v.shape[1] != width else v)
        start += v.shape[1]
    return b.concat(rows, 0) if rows else b.splat(0, t.dtype, t.shape)
