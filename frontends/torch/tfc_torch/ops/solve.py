"""Small dense linear algebra: LU with partial pivoting (linalg.solve, inv,
det, slogdet / logdet, lu_factor, lu_solve, linalg.lu, lu_unpack), Cholesky (linalg.cholesky,
cholesky_solve, cholesky_inverse) and triangular solves
(linalg.solve_triangular, triangular_solve), batched over leading dims,
with B broadcast against A's batch as torch's; the matrix exponential
(linalg.matrix_exp: scaling, Taylor polynomial, squarings, in f64);
Householder QR (linalg.qr, linalg.householder_product) and least squares
from it (linalg.lstsq, full-rank A).

The matrix size n is static, so each algorithm is unrolled over the n
columns (a few elementwise ops on the whole [.., n, n] matrix per column):
matrices larger than MAX_SIZE are refused. LU is LAPACK's getrf: the pivot
of column k is the first row at or below k of largest |value|, its row
swapped with row k by selects, the multipliers stored below the diagonal;
`pivots` are 1-based (i32) and det's sign is the swaps' parity. tfc's
autodiff of the unrolled forms gives torch's analytic gradients wherever
the pivot order does not change under a small perturbation (no ties).

Errors: torch.linalg.solve / inv / cholesky / lu_factor check `info` with
aten._linalg_check_errors, which raises for a singular (not positive
definite) example while tracing, as torch does; at run time tfc has no
check (the op lowers to nothing), and a singular matrix gives inf / NaN
solutions and inverses (a zero pivot), NaN Cholesky factors, as the _ex
forms return with a nonzero info (nonzero exactly when torch's is; the
column it names may differ: torch factors the transpose). det of a singular matrix is 0 and
slogdet's (sign, logabsdet) (0, -inf), as torch's."""
from ..builder import broadcast_shapes
from ..importer import Missing
from ..registry import lowers

# Larger matrices are refused: every algorithm is unrolled over the columns.
MAX_SIZE = 64


def _square(ctx, a):
    """n of the square matrices a [.., n, n]; refused otherwise."""
    n = a.shape[-1]
    if a.rank < 2 or a.shape[-2] != n:
        ctx.unsupported(f"{ctx.name} of a {a.shape} tensor (a square matrix is needed)")
    return n


def _unrolled(ctx, a, steps):
    """Refuses unrolling more than MAX_SIZE column steps for a [.., m, n]."""
    if steps > MAX_SIZE:
        ctx.unsupported(f"{ctx.name} of {a.shape[-2]} x {a.shape[-1]} matrices (tfc unrolls it "
                        f"over the columns: at most {MAX_SIZE})", "compute it outside the model")


def _size(ctx, a):
    """n of the square matrices a [.., n, n], n <= MAX_SIZE."""
    n = _square(ctx, a)
    _unrolled(ctx, a, n)
    return n


def _batched(ctx, a, rhs):
    """a [.., n, n] and rhs [.., n, m] broadcast to one batch shape."""
    batch = tuple(broadcast_shapes(a.shape[:-2], rhs.shape[:-2]))
    return (ctx.b.broadcast_to(a, batch + a.shape[-2:]),
            ctx.b.broadcast_to(rhs, batch + rhs.shape[-2:]))


def _rows(ctx, n):
    return ctx.b.iota((n, 1), 0, "i64")


def _cols(ctx, n):
    return ctx.b.iota((1, n), 1, "i64")


def _entry(b, w, i, j):
    return b.slice_dim(b.slice_dim(w, -2, i, i + 1), -1, j, j + 1)


def _is(ctx, ids, direction, k):
    return ctx.b.compare(direction, ids, ctx.tensor(k, "i64"))


def _mT(b, x):
    return b.swap(x, x.rank - 2, x.rank - 1)


def _swap_rows(ctx, w, k, p):
    """w with row k and row p (i64 [.., 1, 1]) exchanged."""
    b = ctx.b
    rows = _rows(ctx, w.shape[-2])
    at_p = b.compare("eq", rows, p)
    row_p = b.reduce("sum", b.select(at_p, w, ctx.tensor(0.0, w.dtype)), [-2], keepdim=True)
    return b.select(_is(ctx, rows, "eq", k), row_p,
                    b.select(at_p, b.slice_dim(w, -2, k, k + 1), w))


def _eliminate(ctx, a, extra=None):
    """Gaussian elimination with partial pivoting of a [.., n, n], the same
    row operations applied to extra [.., n, m]: (LU, extra', pivots i32
    [.., n], info i32 [..], sign [.., 1, 1]). LU holds U on and above the
    diagonal, L's multipliers below; a zero pivot leaves its column's
    multipliers 0 (LAPACK's) and sets info to its 1-based column."""
    b = ctx.b
    n = a.shape[-1]
    dt = a.dtype
    w = b.concat([a, extra], a.rank - 1) if extra is not None else a
    rows, cols = _rows(ctx, n), _cols(ctx, w.shape[-1])
    zero, one = ctx.tensor(0.0, dt), ctx.tensor(1.0, dt)
    batch = a.shape[:-2]
    sign = b.splat(1.0, dt, batch + (1, 1))
    info = b.splat(0, "i32", batch + (1, 1))
    pivots = []
    for k in range(n):
        size = b.select(_is(ctx, rows, "ge", k), b.unary("abs", b.slice_dim(w, -1, k, k + 1)),
                        ctx.tensor(-1.0, dt))
        peak = b.reduce("max", size, [-2], keepdim=True)
        # The first row of largest |value| (row k if none, e.g. NaN).
        later = b.select(b.compare("eq", size, peak), b.sub(ctx.tensor(n, "i64"), rows),
                         ctx.tensor(0, "i64"))
        p = b.sub(ctx.tensor(n, "i64"), b.reduce("max", later, [-2], keepdim=True))
        p = b.select(_is(ctx, p, "eq", n), ctx.tensor(k, "i64"), p)
        pivots.append(b.add(p, ctx.tensor(1, "i64")))
        w = _swap_rows(ctx, w, k, p)
        sign = b.select(_is(ctx, p, "ne", k), b.unary("neg", sign), sign)
        pivot = _entry(b, w, k, k)
        singular = b.compare("eq", pivot, zero)
        info = b.select(singular, b.select(b.compare("eq", info, ctx.tensor(0, "i32")),
                                           ctx.tensor(k + 1, "i32"), info), info)
        below = _is(ctx, rows, "gt", k)
        multipliers = b.select(below, b.div(b.slice_dim(w, -1, k, k + 1),
                                            b.select(singular, one, pivot)), zero)
        right = b.select(_is(ctx, cols, "gt", k), b.slice_dim(w, -2, k, k + 1), zero)
        w = b.sub(w, b.mul(multipliers, right))
        w = b.select(_is(ctx, cols, "eq", k), b.select(below, multipliers, w), w)
    lu = b.slice_dim(w, -1, 0, n)
    rest = b.slice_dim(w, -1, n, w.shape[-1]) if extra is not None else None
    pivots = b.convert(b.reshape(b.concat(pivots, a.rank - 1), batch + (n,)), "i32")
    return lu, rest, pivots, b.reshape(info, batch), sign


def _substitute(ctx, t, rhs, upper, unit=False):
    """The solution x of t x = rhs (t [.., n, n] triangular, only its
    `upper` or lower triangle read; a unit diagonal when `unit`), by
    substitution, column by column."""
    b = ctx.b
    n = t.shape[-1]
    rows = _rows(ctx, n)
    zero = ctx.tensor(0.0, t.dtype)
    x = rhs
    for k in (reversed(range(n)) if upper else range(n)):
        value = b.slice_dim(x, -2, k, k + 1)
        if not unit:
            value = b.div(value, _entry(b, t, k, k))
        left = _is(ctx, rows, "lt" if upper else "gt", k)
        column = b.select(left, b.slice_dim(t, -1, k, k + 1), zero)
        x = b.select(_is(ctx, rows, "eq", k), value, b.sub(x, b.mul(column, value)))
    return x


def _swaps(ctx, pivots):
    """The 0-based row (i64 [.., 1, 1]) swapped with row k, for each k."""
    b = ctx.b
    return [b.reshape(b.sub(b.convert(b.slice_dim(pivots, -1, k, k + 1), "i64"),
                            ctx.tensor(1, "i64")), pivots.shape[:-1] + (1, 1))
            for k in range(pivots.shape[-1])]


def _lu_solve(ctx, lu, pivots, rhs, adjoint=False):
    """A^-1 rhs (A^T when `adjoint`) of A's (LU, pivots)."""
    b = ctx.b
    n = lu.shape[-1]
    swaps = _swaps(ctx, pivots)
    if not adjoint:
        for k in range(n):
            rhs = _swap_rows(ctx, rhs, k, swaps[k])
        return _substitute(ctx, lu, _substitute(ctx, lu, rhs, False, True), True)
    x = _substitute(ctx, _mT(b, lu), _substitute(ctx, _mT(b, lu), rhs, False), True, True)
    for k in reversed(range(n)):
        x = _swap_rows(ctx, x, k, swaps[k])
    return x


def _solve(ctx, a, rhs):
    """(A^-1 rhs, info) for a [.., n, n] and rhs [.., n, m] (batches
    broadcast)."""
    a, rhs = _batched(ctx, a, rhs)
    lu, rest, _, info, _ = _eliminate(ctx, a, rhs)
    return _substitute(ctx, lu, rest, True), info


def _eye(ctx, n, dt, batch=()):
    b = ctx.b
    one = b.convert(b.compare("eq", _rows(ctx, n), _cols(ctx, n)), dt)
    return b.broadcast_to(one, batch + (n, n))


@lowers("aten._linalg_solve_ex.default")
def linalg_solve(ctx, a, rhs, left=True, check_errors=False):
    """torch.linalg.solve / solve_ex: X with A X = B (X A = B if not
    left, as A^T X^T = B^T); B a vector when 1-d or A's shape less its
    last dim. Its LU and pivots are not returned (lu_factor gives them)."""
    b = ctx.b
    t = ctx.out(0)
    m, v = ctx.tensor(a, t.dtype), ctx.tensor(rhs, t.dtype)
    _size(ctx, m)
    vector = v.rank == 1 or (v.rank == m.rank - 1 and v.shape == m.shape[:-1])
    if vector:
        v = b.reshape(v, v.shape + (1,))
    elif not left:
        v = _mT(b, v)
    x, info = _solve(ctx, m if left else _mT(b, m), v)
    x = x if left or vector else _mT(b, x)
    why = "tfc does not return solve's LU factorization (torch.linalg.lu_factor does)"
    return (b.reshape(x, t.shape), Missing(why), Missing(why),
            b.reshape(info, ctx.out(3).shape))


@lowers("aten.linalg_inv_ex.default")
def linalg_inv(ctx, a, check_errors=False):
    """torch.linalg.inv / inverse: A^-1 = solve(A, I)."""
    t = ctx.out(0)
    m = ctx.tensor(a, t.dtype)
    n = _size(ctx, m)
    x, info = _solve(ctx, m, _eye(ctx, n, t.dtype, m.shape[:-2]))
    return x, info


@lowers("aten._linalg_check_errors.default")
def linalg_check_errors(ctx, info, api_name, is_matrix):
    """Nothing: torch raised while tracing if the example's info was
    nonzero; at run time tfc returns the inf / NaN results instead."""
    return None


def _diagonal(ctx, lu):
    return [_entry(ctx.b, lu, k, k) for k in range(lu.shape[-1])]


@lowers("aten._linalg_det.default")
def linalg_det(ctx, a):
    """torch.linalg.det / det: the product of U's diagonal, negated for an
    odd number of row swaps; (det, LU, pivots)."""
    b = ctx.b
    t = ctx.out(0)
    m = ctx.tensor(a, t.dtype)
    _size(ctx, m)
    lu, _, pivots, _, det = _eliminate(ctx, m)
    for d in _diagonal(ctx, lu):
        det = b.mul(det, d)
    return b.reshape(det, t.shape), lu, pivots


@lowers("aten._linalg_slogdet.default")
def linalg_slogdet(ctx, a):
    """torch.linalg.slogdet / slogdet / logdet: (sign, log|det|, LU,
    pivots) from U's diagonal: the sum of log|u_kk| (-inf when singular,
    sign 0 then), the sign the swaps' parity times the u_kk's."""
    b = ctx.b
    t = ctx.out(0)
    m = ctx.tensor(a, t.dtype)
    _size(ctx, m)
    lu, _, pivots, _, sign = _eliminate(ctx, m)
    zero = ctx.tensor(0.0, t.dtype)
    total = None
    for d in _diagonal(ctx, lu):
        sign = b.mul(sign, b.select(b.compare("gt", d, zero), ctx.tensor(1.0, t.dtype),
                                    b.select(b.compare("lt", d, zero),
                                             ctx.tensor(-1.0, t.dtype), zero)))
        log = b.unary("log", b.unary("abs", d))
        total = log if total is None else b.add(total, log)
    return (b.reshape(b.stop_gradient(sign), t.shape), b.reshape(total, t.shape), lu, pivots)


@lowers("aten.linalg_lu_factor_ex.default")
def linalg_lu_factor(ctx, a, pivot=True, check_errors=False):
    """torch.linalg.lu_factor / lu_factor_ex: (LU, pivots, info)."""
    m = ctx.tensor(a, ctx.out(0).dtype)
    _size(ctx, m)
    if not pivot:
        ctx.unsupported("LU without pivoting (torch's CPU kernel refuses it too)")
    lu, _, pivots, info, _ = _eliminate(ctx, m)
    return lu, pivots, info


def _unpack(ctx, lu, pivots):
    """(P, L, U) with A = P L U from A's (LU, pivots): P^T is the swaps
    applied to I in order, L the unit lower triangle, U the upper one."""
    b = ctx.b
    n = lu.shape[-1]
    rows, cols = _rows(ctx, n), _cols(ctx, n)
    zero = ctx.tensor(0.0, lu.dtype)
    lower = b.select(b.compare("gt", rows, cols), lu,
                     b.convert(b.compare("eq", rows, cols), lu.dtype))
    upper = b.select(b.compare("le", rows, cols), lu, zero)
    perm = _eye(ctx, n, lu.dtype, lu.shape[:-2])
    for k, p in enumerate(_swaps(ctx, pivots)):
        perm = _swap_rows(ctx, perm, k, p)
    return _mT(b, perm), lower, upper


@lowers("aten.linalg_lu.default")
def linalg_lu(ctx, a, pivot=True):
    """torch.linalg.lu: (P, L, U) of the LU factorization."""
    lu, pivots, _ = linalg_lu_factor(ctx, a, pivot)
    return _unpack(ctx, lu, pivots)


@lowers("aten.lu_unpack.default")
def lu_unpack(ctx, lu, pivots, unpack_data=True, unpack_pivots=True):
    """torch.lu_unpack: (P, L, U) from lu_factor's (LU, pivots); the
    results not unpacked are empty in torch, which tfc does not return."""
    f = ctx.tensor(lu, ctx.out(1).dtype if unpack_data else ctx.out(0).dtype)
    _size(ctx, f)
    p = ctx.b.broadcast_to(ctx.tensor(pivots, "i32"), f.shape[:-1])
    perm, lower, upper = _unpack(ctx, f, p)
    empty = Missing("torch returns an empty tensor here (not unpacked), which tfc does not")
    return (perm if unpack_pivots else empty, lower if unpack_data else empty,
            upper if unpack_data else empty)


@lowers("aten.linalg_lu_solve.default")
def linalg_lu_solve(ctx, lu, pivots, rhs, left=True, adjoint=False):
    """torch.linalg.lu_solve: A X = B from A's (LU, pivots), with A^T when
    adjoint, X A = B (A^T X^T = B^T) when not left."""
    b = ctx.b
    t = ctx.out()
    f, v = ctx.tensor(lu, t.dtype), ctx.tensor(rhs, t.dtype)
    _size(ctx, f)
    p = ctx.tensor(pivots, "i32")
    if not left:
        v, adjoint = _mT(b, v), not adjoint
    batch = tuple(t.shape[:-2])
    f = b.broadcast_to(f, batch + f.shape[-2:])
    p = b.broadcast_to(p, batch + p.shape[-1:])
    v = b.broadcast_to(v, batch + v.shape[-2:])
    x = _lu_solve(ctx, f, p, v, adjoint)
    return x if left else _mT(b, x)


@lowers("aten.linalg_solve_triangular.default")
def linalg_solve_triangular(ctx, a, rhs, upper, left=True, unitriangular=False):
    """torch.linalg.solve_triangular: only A's `upper` (or lower) triangle
    is read; X A = B solved as A^T X^T = B^T."""
    b = ctx.b
    t = ctx.out()
    m, v = ctx.tensor(a, t.dtype), ctx.tensor(rhs, t.dtype)
    _size(ctx, m)
    if not left:
        m, v, upper = _mT(b, m), _mT(b, v), not upper
    m, v = _batched(ctx, m, v)
    x = _substitute(ctx, m, v, upper, unitriangular)
    return x if left else _mT(b, x)


@lowers("aten.triangular_solve.default")
def triangular_solve(ctx, rhs, a, upper=True, transpose=False, unitriangular=False):
    """torch.triangular_solve: (X with op(A) X = B, A broadcast), op(A)
    = A^T when `transpose`."""
    b = ctx.b
    t = ctx.out(0)
    m, v = ctx.tensor(a, t.dtype), ctx.tensor(rhs, t.dtype)
    _size(ctx, m)
    m, v = _batched(ctx, m, v)
    x = _substitute(ctx, _mT(b, m) if transpose else m, v, upper != transpose, unitriangular)
    return x, m


def _cholesky(ctx, a, upper):
    """The lower Cholesky factor L of A (L L^T = A) and info (the 1-based
    column of the first non-positive pivot, 0 if none), from A's lower
    triangle (upper: its upper one, as torch's). Right-looking: column k of
    L is A's column k over sqrt(a_kk), and its outer product leaves the
    rest. The gradient is torch's symmetric one: the triangle read is
    mirrored, and its gradient passed to (A + A^T) / 2."""
    b = ctx.b
    n = a.shape[-1]
    rows, cols = _rows(ctx, n), _cols(ctx, n)
    tri = b.compare("le" if upper else "ge", rows, cols)
    half = b.select(tri, a, ctx.tensor(0.0, a.dtype))
    mirrored = b.select(b.compare("eq", rows, cols), a, b.add(half, _mT(b, half)))
    w = b.straight_through(b.stop_gradient(mirrored),
                           b.mul(b.add(a, _mT(b, a)), ctx.tensor(0.5, a.dtype)))
    zero = ctx.tensor(0.0, a.dtype)
    info = b.splat(0, "i32", a.shape[:-2] + (1, 1))
    out = b.splat(0.0, a.dtype, a.shape)
    for k in range(n):
        pivot = _entry(b, w, k, k)
        # Not positive (or NaN): LAPACK's potrf stops there; tfc goes on (NaN).
        fails = b.select(b.compare("gt", pivot, zero), ctx.tensor(False, "i1"),
                         ctx.tensor(True, "i1"))
        info = b.select(fails, b.select(b.compare("eq", info, ctx.tensor(0, "i32")),
                                        ctx.tensor(k + 1, "i32"), info), info)
        root = b.unary("sqrt", pivot)
        below = _is(ctx, rows, "gt", k)
        column = b.select(below, b.div(b.slice_dim(w, -1, k, k + 1), root), zero)
        out = b.select(_is(ctx, cols, "eq", k),
                       b.select(_is(ctx, rows, "eq", k), root, column), out)
        w = b.sub(w, b.mul(column, _mT(b, column)))
    return out, b.reshape(info, a.shape[:-2])


@lowers("aten.linalg_cholesky_ex.default")
def linalg_cholesky(ctx, a, upper=False, check_errors=False):
    """torch.linalg.cholesky / cholesky_ex: (L, or U = L^T when upper, info)."""
    m = ctx.tensor(a, ctx.out(0).dtype)
    _size(ctx, m)
    factor, info = _cholesky(ctx, m, upper)
    return (_mT(ctx.b, factor) if upper else factor), info


@lowers("aten.cholesky.default")
def cholesky(ctx, a, upper=False):
    """The deprecated torch.cholesky."""
    return linalg_cholesky(ctx, a, upper)[0]


def _cholesky_solve(ctx, factor, v, upper):
    """A^-1 v for A = L L^T (factor L) or U^T U (factor U)."""
    b = ctx.b
    first = _mT(b, factor) if upper else factor           # lower
    return _substitute(ctx, _mT(b, first), _substitute(ctx, first, v, False), True)


@lowers("aten.cholesky_solve.default")
def cholesky_solve(ctx, rhs, factor, upper=False):
    """torch.cholesky_solve(B, L): A^-1 B for A = L L^T (U^T U when
    upper), only the factor's triangle read."""
    t = ctx.out()
    f, v = ctx.tensor(factor, t.dtype), ctx.tensor(rhs, t.dtype)
    _size(ctx, f)
    f, v = _batched(ctx, f, v)
    return _cholesky_solve(ctx, f, v, upper)


@lowers("aten.cholesky_inverse.default")
def cholesky_inverse(ctx, factor, upper=False):
    """torch.cholesky_inverse(L): A^-1 = cholesky_solve(I, L)."""
    t = ctx.out()
    f = ctx.tensor(factor, t.dtype)
    n = _size(ctx, f)
    return _cholesky_solve(ctx, f, _eye(ctx, n, t.dtype, f.shape[:-2]), upper)


# matrix_exp: exp(A) = exp(A / 2^s)^(2^s) with a fixed s and a Taylor
# polynomial of degree EXP_DEGREE for exp(X) - I, in f64.
EXP_SQUARINGS = 10
EXP_DEGREE = 14


@lowers("aten.linalg_matrix_exp.default")
def linalg_matrix_exp(ctx, a):
    """torch.linalg.matrix_exp / torch.matrix_exp of [.., n, n], in f64
    whatever the type (rounded once to it): X = A / 2^10, E = exp(X) - I
    by a degree-14 Taylor polynomial (Horner: 13 matmuls), then 10
    squarings of I + E kept as E <- 2E + E E (no I + tiny cancellation),
    exp(A) = I + E. The truncation is a backward error below
    e ||X||^15 / 15!: under 2e-12 of ||A|| for ||A|| <= 1024 (any
    consistent norm); past it the error grows as (||A|| / 1024)^15
    (5e-9 at 1730, 4e-4 at 4096), even where exp(A) is moderate.
    The gradient is tfc's autodiff of these matmuls (torch's is the exact
    Frechet adjoint; they agree to the same accuracy)."""
    b = ctx.b
    t = ctx.out()
    m = ctx.tensor(a)
    n = _square(ctx, m)
    x = m if m.dtype == "f64" else b.convert(m, "f64")
    x = b.mul(x, ctx.tensor(2.0 ** -EXP_SQUARINGS, "f64"))
    eye = _eye(ctx, n, "f64", m.shape[:-2])
    # exp(X) - I = X (I + X/2 (I + X/3 (... (I + X/14))))
    poly = b.add(eye, b.mul(x, ctx.tensor(1.0 / EXP_DEGREE, "f64")))
    for k in range(EXP_DEGREE - 1, 1, -1):
        poly = b.add(eye, b.mul(b.matmul(x, poly), ctx.tensor(1.0 / k, "f64")))
    e = b.matmul(x, poly)
    for _ in range(EXP_SQUARINGS):
        e = b.add(b.add(e, e), b.matmul(e, e))
    out = b.add(eye, e)
    return out if t.dtype == "f64" else b.convert(out, t.dtype)


def _reflector(ctx, v, k, entries):
    """Householder vector k of LAPACK's compact form: 1 at row k, the
    column `entries` [.., m, 1] below it, 0 above."""
    b = ctx.b
    rows = _rows(ctx, v.shape[-2])
    zero, one = ctx.tensor(0.0, v.dtype), ctx.tensor(1.0, v.dtype)
    return b.select(_is(ctx, rows, "eq", k), one,
                    b.select(_is(ctx, rows, "gt", k), entries, zero))


def _apply_reflector(ctx, x, v, tau):
    """(I - tau v v^T) x for v [.., m, 1], tau [.., 1, 1]."""
    b = ctx.b
    return b.sub(x, b.mul(b.mul(tau, v), b.reduce("sum", b.mul(v, x), [-2], keepdim=True)))


def _householder_q(ctx, vs, taus, m, cols, dt, batch):
    """H_0 H_1 ... H_{k-1} applied to the first `cols` columns of I_m (LAPACK's
    orgqr), the reflectors applied from the last."""
    b = ctx.b
    q = b.broadcast_to(b.convert(b.compare("eq", _rows(ctx, m), _cols(ctx, cols)), dt),
                       batch + (m, cols))
    for v, tau in reversed(list(zip(vs, taus))):
        q = _apply_reflector(ctx, q, v, tau)
    return q


def _householder_qr(ctx, w, dt):
    """LAPACK's geqrf of w [.., m, n] unrolled over its k = min(m, n)
    columns: (reflectors, taus, w) with R in w's upper triangle (below it
    zeros). Column j's reflector (dlarfg): alpha = a_jj, s = |a below j|^2;
    s = 0 leaves the column as is (tau = 0, so R's diagonal may be negative,
    as LAPACK's); else beta = -sign(alpha) sqrt(alpha^2 + s), tau = (beta -
    alpha) / beta, v = (1, below / (alpha - beta)) and R_jj = beta."""
    b = ctx.b
    m, n = w.shape[-2:]
    k_count = min(m, n)
    _unrolled(ctx, w, k_count)
    rows, cols = _rows(ctx, m), _cols(ctx, n)
    zero, one = ctx.tensor(0.0, dt), ctx.tensor(1.0, dt)
    vs, taus = [], []
    for k in range(k_count):
        column = b.slice_dim(w, -1, k, k + 1)
        below = b.select(_is(ctx, rows, "gt", k), column, zero)
        alpha = _entry(b, w, k, k)
        s = b.reduce("sum", b.mul(below, below), [-2], keepdim=True)
        plain = b.compare("eq", s, zero)
        # Guards keep the unused branch finite (its gradient would be NaN).
        norm = b.unary("sqrt", b.select(plain, one, b.add(b.mul(alpha, alpha), s)))
        beta = b.select(b.compare("ge", alpha, zero), b.unary("neg", norm), norm)
        beta = b.select(plain, alpha, beta)
        tau = b.select(plain, zero, b.div(b.sub(beta, alpha), b.select(plain, one, beta)))
        scale = b.div(one, b.select(plain, one, b.sub(alpha, beta)))
        v = _reflector(ctx, w, k, b.mul(below, scale))
        vs.append(v)
        taus.append(tau)
        w = b.select(_is(ctx, cols, "gt", k), _apply_reflector(ctx, w, v, tau), w)
        w = b.select(_is(ctx, cols, "eq", k),
                     b.select(_is(ctx, rows, "eq", k), beta,
                              b.select(_is(ctx, rows, "lt", k), w, zero)), w)
    return vs, taus, w


def _reduced_qr(ctx, w, dt):
    """(Q [.., m, k], R [.., k, n]) of w [.., m, n], k = min(m, n)."""
    m, n = w.shape[-2:]
    vs, taus, w = _householder_qr(ctx, w, dt)
    k_count = min(m, n)
    return (_householder_q(ctx, vs, taus, m, k_count, dt, w.shape[:-2]),
            ctx.b.slice_dim(w, -2, 0, k_count))


@lowers("aten.linalg_qr.default")
def linalg_qr(ctx, a, mode="reduced"):
    """torch.linalg.qr (modes reduced, complete, r): LAPACK's geqrf
    unrolled over the k = min(m, n) columns (_householder_qr), then orgqr
    for Q. Same values as torch's (its R diagonal signs included); rounding
    differs (no blocking, no dnrm2 scaling: entries past 1e154 in f64, 1e19
    in f32 overflow). Gradients are tfc's autodiff of the unrolled form
    (torch's formula is that derivative). mode='r' gives no Q (torch's is
    empty)."""
    dt = ctx.out(1).dtype
    w = ctx.tensor(a, dt)
    if w.rank < 2:
        ctx.unsupported(f"{ctx.name} of a {w.shape} tensor (a matrix is needed)")
    m, n = w.shape[-2:]
    if mode == "complete":
        vs, taus, w = _householder_qr(ctx, w, dt)
        return _householder_q(ctx, vs, taus, m, m, dt, w.shape[:-2]), w
    q, r = _reduced_qr(ctx, w, dt)
    if mode == "r":
        return Missing("torch.linalg.qr(mode='r') returns an empty Q, which tfc does not"), r
    return q, r


@lowers("aten.linalg_lstsq.default")
def linalg_lstsq(ctx, a, rhs, rcond=None, driver=None):
    """torch.linalg.lstsq's solution for a full-rank A [.., m, n] and B
    [.., m, k] (batches broadcast): for m >= n the least-squares solution
    R^-1 Q^T B from A's QR, for m < n the minimum-norm one Q R^-T B from
    A^T's; every driver of torch's gives that solution for a full-rank A.
    A rank-deficient A divides by R's zero diagonal (inf / NaN), where
    torch's gelsy / gelsd / gelss give the minimum-norm least-squares
    solution of the numerical rank. residuals, rank and singular_values
    are not computed (a read of one is refused)."""
    b = ctx.b
    dt = ctx.out(0).dtype
    m_a, v = ctx.tensor(a, dt), ctx.tensor(rhs, dt)
    if m_a.rank < 2 or v.rank < 2:
        ctx.unsupported(f"{ctx.name} of {m_a.shape} and {v.shape} tensors (matrices are needed)")
    batch = tuple(broadcast_shapes(m_a.shape[:-2], v.shape[:-2]))
    m_a = b.broadcast_to(m_a, batch + m_a.shape[-2:])
    v = b.broadcast_to(v, batch + v.shape[-2:])
    m, n = m_a.shape[-2:]
    if m >= n:
        q, r = _reduced_qr(ctx, m_a, dt)
        x = _substitute(ctx, r, b.matmul(_mT(b, q), v), True)
    else:
        q, r = _reduced_qr(ctx, _mT(b, m_a), dt)
        x = b.matmul(q, _substitute(ctx, _mT(b, r), v, False))
    why = "is not computed by tfc (torch.linalg.lstsq's solution is)"
    return (x, Missing(f"lstsq's residuals {why}"), Missing(f"lstsq's rank {why}"),
            Missing(f"lstsq's singular_values {why}"))


@lowers("aten.linalg_householder_product.default")
def linalg_householder_product(ctx, a, tau):
    """torch.linalg.householder_product (orgqr): the first n columns of
    H_0 ... H_{k-1}, H_i = I - tau_i v_i v_i^T with v_i column i of A below
    the diagonal and 1 on it (A [.., m, n], tau [.., k], k <= n <= m)."""
    b = ctx.b
    dt = ctx.out().dtype
    w = ctx.tensor(a, dt)
    t = ctx.tensor(tau, dt)
    m, n = w.shape[-2:]
    k_count = t.shape[-1]
    if k_count > n or n > m:
        ctx.unsupported(f"{ctx.name} of A {w.shape} and tau {t.shape} (k <= n <= m is needed)")
    _unrolled(ctx, w, k_count)
    batch = tuple(broadcast_shapes(w.shape[:-2], t.shape[:-1]))
    w = b.broadcast_to(w, batch + (m, n))
    t = b.broadcast_to(t, batch + (k_count,))
    vs = [_reflector(ctx, w, i, b.slice_dim(w, -1, i, i + 1)) for i in range(k_count)]
    taus = [b.reshape(b.slice_dim(t, -1, i, i + 1), batch + (1, 1)) for i in range(k_count)]
    return _householder_q(ctx, vs, taus, m, n, dt, batch)
