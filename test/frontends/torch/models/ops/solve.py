"""Cases for tfc_torch/ops/solve.py's lowerings: LU-based solve, inv, det,
slogdet / logdet, lu_factor and lu_solve; Cholesky, cholesky_solve and
cholesky_inverse; triangular solves; and eigh.py's symmetric
eigendecomposition and svd.py's singular value decomposition on it. Matrices are made of the linear
layer's output so every entry has a gradient; one of each pair has an
anti-diagonal added (partial pivoting swaps rows: det's sign from the
parity)."""
import torch
import torch.nn as nn

from .common import _case, _g, _ramp_sum

CASES = {
    # linalg.solve (matrix B broadcast over A's batch, vector B, left=False),
    # solve_ex's info, inv / inverse, det, slogdet, logdet of a positive
    # and of a negative det (NaN, as torch's), f32 and f64, batched and not.
    "lu-solve-det": _case(lambda h: _lu_forms(h), rows=8, out=8),
    # lu_factor (LU and pivots), lu_solve (adjoint, left=False), linalg.lu
    # and lu_unpack (P weighted, L, U).
    "lu-factor-solve": _case(lambda h: _lu_factor_solve(h), rows=8, out=8),
    # linalg.cholesky (lower, upper, f64), cholesky_ex's info, the deprecated
    # cholesky, cholesky_solve (lower, upper, broadcast B), cholesky_inverse;
    # solve_triangular (upper, lower, left=False, unitriangular; the other
    # triangle holds values that must be ignored), triangular_solve
    # (transpose, broadcast A).
    "cholesky-triangular": _case(lambda h: _cholesky_triangular(h), rows=8, out=8),
    # Singular matrices (forward only): det 0, slogdet (0, -inf), solve_ex's
    # and cholesky_ex's info (nonzero), inv_ex's inf / NaN, a det of rank 3
    # (rounding: near 0).
    "singular-matrices": _case(lambda h: _singular(h), rows=8, out=8),
    # matrix_exp: f32 batched, f64, a skew-symmetric A (exp orthogonal),
    # ||A||_1 near 23 and a skew f64 A near 1070 (the Taylor degree
    # matters), a 1 x 1 and a nilpotent A.
    "matrix-exp": _case(lambda h: _matrix_exp(h), rows=8, out=8),
    # nn.utils.parametrizations.orthogonal of a square Linear (default map:
    # matrix_exp of the skew part of the lower triangle, times its base).
    "orthogonal-square": lambda: _orthogonal(4, 4),
    # linalg.qr: reduced (tall, batched f32), complete (wide f64), and
    # forward only (torch has no gradient there) complete of a tall
    # matrix, mode='r', an upper-triangular A (no reflection: R keeps
    # its negative diagonal, Q = I); householder_product (orgqr).
    "qr-householder": _case(lambda h: _qr_householder(h), rows=8, out=8),
    # linalg.lstsq's solution (from the QR): a batch of tall systems with
    # B broadcast over it, a wide (minimum-norm) f64 system, a vector
    # right-hand side as [m, 1], and the driver named (same solution for a
    # full-rank A). Well conditioned: an identity-like part is added.
    "lstsq": _case(lambda h: _lstsq(h), rows=8, out=8),
    # orthogonal of a non-square Linear (default map: householder_product).
    "orthogonal-wide": lambda: _orthogonal(4, 6),
    # torch.linalg.eigh / eigvalsh (eigh.py's Jacobi, traced in place of
    # LAPACK): a whitening transform V diag(L^-1/2) V^T of a covariance
    # (sign-independent in V), the eigenvalues weighted (each its own
    # gradient), a batch of 2 at odd size 5 in f64 reading the upper
    # triangle of a non-symmetric matrix, eigvalsh's log-determinant.
    "eigh": _case(lambda h: _eigh(h), rows=8, out=8),
    # Singular values and vectors on it (svd.py, Gram matrices in f64):
    # weighted singular values of a tall and a wide matrix, U diag(sqrt s)
    # V^T weighted unevenly (the vectors' gradient), the nuclear and
    # spectral norms, torch.norm(p='nuc'), torch.linalg.norm's matrix forms,
    # pinv, cond, matrix_rank (of a rank-3 product) and torch.svd.
    "svd": _case(lambda h: _svd(h), rows=8, out=8),
}


def _svd(h):                                             # h: [8, 8]
    tall, wide = h[:, :6], h[:5, :]
    u, s, vh = torch.linalg.svd(tall, full_matrices=False)
    ut, st, vt = torch.svd(wide)
    return ((s * torch.arange(6.0)).sum() + (st * torch.linspace(1, 2, 5)).sum()
            + (u @ torch.diag(s.sqrt()) @ vh * torch.arange(48.0).view(8, 6)).sum() * 0.01
            + (ut @ torch.diag(st) @ vt.t() * torch.arange(40.0).view(5, 8)).sum() * 0.01
            + torch.linalg.matrix_norm(tall, "nuc") + torch.linalg.matrix_norm(wide, 2)
            + torch.norm(wide, p="nuc") + torch.linalg.svdvals(wide).pow(2).sum()
            + torch.linalg.pinv(tall).pow(2).sum() * 0.1 + torch.linalg.cond(tall) * 0.1
            + torch.linalg.norm(tall, 2) + torch.linalg.norm(wide, "nuc")
            + torch.linalg.norm(h.view(2, 4, 8), -2, dim=(1, 2)).sum()
            + torch.linalg.norm(wide) * torch.linalg.matrix_rank(tall[:, :3] @ wide[:3, :6]))


def _eigh(h):                                            # h: [8, 8]
    cov = h.t() @ h / 8 + 0.1 * torch.eye(8)
    values, vectors = torch.linalg.eigh(cov)
    white = vectors @ torch.diag(values.rsqrt()) @ vectors.t()
    pair = h[:, :5].double().reshape(2, 4, 5)
    sym = pair.transpose(-1, -2) @ pair + torch.tril(pair[:, :, :5].sum(1, keepdim=True)
                                                       .expand(2, 5, 5), -1)
    upper, basis = torch.linalg.eigh(sym, UPLO="U")
    proj = basis @ torch.diag_embed(upper.tanh()) @ basis.transpose(-1, -2)
    # A weighting that is not symmetric, so the eigenvectors' gradient
    # (its divided differences) shows; a symmetric one cancels part of it.
    # A matrix that is not symmetric (eigh reads its lower triangle; the
    # gradient is that of its symmetric part, as torch's), its vectors in
    # an uneven product; a covariance of 4 samples in 8 dimensions plus
    # 0.1 I (the eigenvalue 0.1 four times, apart by f32 rounding only),
    # whitened: divided differences over gaps of an ulp, as torch's.
    skew_l, skew_v = torch.linalg.eigh(h + 0.3 * h.t())
    rank = h[:4].t() @ h[:4] / 4 + 0.1 * torch.eye(8)
    rl, rv = torch.linalg.eigh(rank)
    return ((skew_v @ torch.diag(skew_l.tanh()) @ skew_v.t() * torch.arange(64.0).view(8, 8)).sum()
            * 0.01 + (h @ rv @ torch.diag(rl.rsqrt()) @ rv.t()).pow(2).mean()
            + (h @ white).pow(2).mean() + (values * torch.arange(8.0)).sum()
            + (white * torch.arange(64.0).view(8, 8)).sum() * 0.01
            + torch.linalg.eigvalsh(cov).log().sum() + proj.pow(2).sum().float()
            + (upper * torch.linspace(-1, 1, 5, dtype=torch.float64)).sum().float())


def _qr_householder(h):
    tall = h[:6].reshape(2, 6, 4)
    q, r = torch.linalg.qr(tall)
    qc, rc = torch.linalg.qr(h[5:8, :5].double(), mode="complete")
    fixed = tall[1].detach()
    qt, rt = torch.linalg.qr(fixed, mode="complete")
    _, rr = torch.linalg.qr(fixed * 2, mode="r")
    qu, ru = torch.linalg.qr(torch.triu(h[:4, 4:]).detach() - torch.eye(4))
    product = torch.linalg.householder_product(h[:6, 2:6], h[6, :3].tanh() + 1)
    parts = [q.flatten(1), r.flatten(1), qc.float(), rc.float(), qt, rt, rr, qu, ru, product]
    return _ramp_sum(parts)


def _lstsq(h):
    eye = torch.eye(6, 4)
    tall = h[:6].reshape(2, 6, 4) * 0.3 + eye * 2
    x = torch.linalg.lstsq(tall, h[6:, 2:].reshape(1, 6, 2)).solution
    wide = (h[:3, :7] * 0.3 + torch.eye(3, 7) * 2).double()
    xw = torch.linalg.lstsq(wide, h[3:6, 5:].double(), driver="gelsd").solution
    xv = torch.linalg.lstsq(tall[0], h[7, 2:].unsqueeze(1)).solution
    return _ramp_sum([x.flatten(1), xw.float(), xv])


class _Orthogonal(nn.Module):
    def __init__(self, width, out):
        super().__init__()
        self.fc = nn.utils.parametrizations.orthogonal(nn.Linear(width, out))
        self.head = nn.Linear(out, 3)

    def forward(self, x):
        return (self.head(self.fc(x).tanh()) ** 2).mean()


def _orthogonal(width, out):
    torch.manual_seed(0)
    return _Orthogonal(width, out), (torch.randn(6, width, generator=_g(1)),)


def _matrix_exp(h):
    a = h[:4].reshape(2, 4, 4)
    skew = (a[0] - a[0].mT) * 2
    big = a[1].double() * 6                        # ||A||_1 ~ 23
    nilpotent = torch.triu(a[0], 1)
    # ||A||_1 ~ 1070, exp(A) orthogonal: the Taylor degree matters (6 fails).
    spin = (a[1] - a[1].mT).double() * 400
    parts = [torch.matrix_exp(a).flatten(1), torch.linalg.matrix_exp(a[1].double()).float(),
             torch.matrix_exp(skew), torch.matrix_exp(big).float() * 0.1,
             torch.matrix_exp(h[4:6, :1].reshape(2, 1, 1)).view(1, 2),
             torch.linalg.matrix_exp(nilpotent), torch.matrix_exp(spin).float()]
    return _ramp_sum(parts)


def _matrices(h):
    """[2, 4, 4] matrices from h [8, 8]: the first with an anti-diagonal
    added and a zero first entry (elimination without pivoting divides by
    0), the second with a diagonal."""
    a = h[:4].reshape(2, 4, 4) * (torch.arange(32) != 0).view(2, 4, 4)
    return a + torch.stack([torch.eye(4).flip(0), torch.eye(4)]) * 2


def _lu_forms(h):
    a = _matrices(h)
    b = h[4:].reshape(2, 4, 4)[:, :, :3]
    sol = torch.linalg.solve(a, b[0])                            # B broadcast
    x, info = torch.linalg.solve_ex(a.double(), h[4, :4].double())   # vector B
    right = torch.linalg.solve(a[0], h[4:7, :4], left=False)     # X A = B
    sign, logdet = torch.linalg.slogdet(a)
    parts = [sol.flatten(1), x.float(), right, torch.linalg.inv(a).flatten(1),
             torch.inverse(a[1].double()).float(), torch.linalg.det(a).view(1, 2),
             torch.det(a[0].double()).float().view(1), (sign * logdet).view(1, 2),
             torch.logdet(a[1]).view(1)]
    return _ramp_sum(parts) + info.float().sum() * h[0, 0]


def _lu_factor_solve(h):
    a = _matrices(h)
    b = h[4:].reshape(2, 4, 4)
    lu, pivots = torch.linalg.lu_factor(a)
    lu64, pivots64 = torch.linalg.lu_factor(a[0].double())
    parts = [lu.flatten(1), pivots.float() * h[5, :4], torch.linalg.lu_solve(lu, pivots, b),
             torch.linalg.lu_solve(lu, pivots, b, adjoint=True).flatten(1),
             torch.linalg.lu_solve(lu, pivots, b[:, :3], left=False).flatten(1),
             torch.linalg.lu_solve(lu64, pivots64, b[1].double()).float()]
    perm, low, up = torch.linalg.lu(a.roll(1, -2))           # P is not P^T
    perm64, low64, up64 = torch.lu_unpack(*torch.linalg.lu_factor(a[1].roll(1, 0).double()))
    parts += [(perm * b[:, :1]).flatten(1), low.flatten(1), up.flatten(1),
              (perm64 * b[0].double()).float(), low64.float(), up64.float()]
    return _ramp_sum(parts)


def _cholesky_triangular(h):
    a = h[:4].reshape(2, 4, 4)
    spd = a @ a.mT + torch.eye(4)
    b = h[4:].reshape(2, 4, 4)
    low = torch.linalg.cholesky(spd)
    up, info = torch.linalg.cholesky_ex(spd[1].double(), upper=True)
    tri = a + 2 * torch.eye(4)                    # both triangles hold values
    # The triangle torch does not read gets half the symmetric gradient.
    ignored = [torch.linalg.cholesky(spd[0] + torch.triu(b[0], 1)),
               torch.linalg.cholesky(spd[1] + torch.tril(b[1], -1), upper=True)]
    parts = ignored + [low.flatten(1), up.float(), torch.cholesky(spd[0]),
             torch.cholesky_solve(b, low).flatten(1),
             torch.cholesky_solve(b[0].double(), up, upper=True).float(),
             torch.cholesky_inverse(low[0]),
             torch.linalg.solve_triangular(tri, b, upper=True).flatten(1),
             torch.linalg.solve_triangular(tri[0], b, upper=False).flatten(1),
             torch.linalg.solve_triangular(tri, b[:, :2], upper=True, left=False).flatten(1),
             torch.linalg.solve_triangular(tri.double(), b.double(), upper=False,
                                           unitriangular=True).float().flatten(1),
             torch.triangular_solve(b, tri[1], transpose=True)[0].flatten(1),
             torch.triangular_solve(b[0], tri, upper=False)[0].flatten(1)]
    return _ramp_sum(parts) + info.float() * h[0, 0]


def _singular(h):
    a = h[:4].reshape(2, 4, 4)
    rank3 = torch.cat([a[:, :3], a[:, :1] + a[:, 2:3]], 1).detach()   # row 3 = row 0 + row 2
    zero_col = a.detach() * (torch.arange(4) != 1)                       # column 1 is 0
    det = torch.linalg.det(zero_col)
    sign, logdet = torch.linalg.slogdet(zero_col)
    _, solved = torch.linalg.solve_ex(zero_col, a[:, :, :1].detach())
    x, _ = torch.linalg.inv_ex(zero_col)
    _, not_pd = torch.linalg.cholesky_ex(-zero_col @ zero_col.mT)
    # torch factors A^T for solve_ex's info (4 here), tfc A (2): only "nonzero" is compared.
    flags = torch.cat([det, sign, (logdet == float("-inf")).float(), (solved != 0).float(),
                       (~x.isfinite()).any(-1).any(-1).float(), not_pd.float(),
                       (torch.linalg.det(rank3).abs() < 1e-5).float()])
    return (flags * h.flatten()[:flags.numel()]).sum() + h.sum()
