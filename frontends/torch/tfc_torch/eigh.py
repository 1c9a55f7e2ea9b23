"""Symmetric eigendecomposition in traceable torch ops (torch.linalg.eigh,
eigvalsh), used in place of LAPACK's while tracing (traceable.py).

Values: cyclic Jacobi in its parallel (round-robin) order, in f64 whatever
the input's type: each of the n - 1 steps of a sweep rotates n / 2 disjoint
index pairs at once, as J^T A J with J built from one-hot selection
matrices (matmuls only: no gather, no data-dependent control flow), and the
eigenvectors accumulate as V J. A fixed number of sweeps (Jacobi converges
quadratically: 8 + log2 n sweeps reach f64's digits for n <= 32), then the
eigenvalues sorted ascending and the vectors with them, as torch returns
them. Like LAPACK's, the vectors' signs are a convention: each column is
signed so that its largest-magnitude entry is positive, which torch does
not promise to match (losses that use the vectors sign-independently, such
as V diag(f(L)) V^T, agree).

Gradients are torch's formulas (linalg_eigh_backward), passed straight
through the values computed without gradient: dL = diag(V^T dA V) and
dV = V (F o (V^T dA V)) with F_ij = 1 / (L_j - L_i) off the diagonal, as
the derivatives of surrogates built from A with V and L held constant
(tfc_torch::straight_through). Like torch's, they are those of A as given
(its symmetric part), with torch's order: the skew part of V^T gV before
the division by the gaps, so nothing large cancels in f32. The gaps are
those of the eigenvalues in the input's type, which the loss reads too: a
repeated eigenvalue a rounding apart (a rank-deficient covariance plus
eps I) gives the divided differences torch gets. Between eigenvalues equal
in that type (gaps below 1e-10 of the largest) the vectors' part is 0
where the formula divides by zero.
"""
import math

import torch

from .custom_functions import straight_through

MAX_SIZE = 32


def _schedule(n):
    """The round-robin pairings of n indices (n even): n - 1 steps of n / 2
    disjoint pairs covering every pair once."""
    players = list(range(n))
    steps = []
    for _ in range(n - 1):
        steps.append([(min(players[i], players[n - 1 - i]), max(players[i], players[n - 1 - i]))
                      for i in range(n // 2)])
        players = [players[0], players[-1]] + players[1:-1]
    return steps


def _selections(pairs, size, n, dtype):
    """One-hot [size, k] matrices picking the first and second index of
    each pair that lies inside the real n (pairs with the padding index of
    odd n are left out)."""
    inside = [(p, q) for p, q in pairs if q < n]
    sp = torch.zeros(size, len(inside), dtype=dtype)
    sq = torch.zeros(size, len(inside), dtype=dtype)
    for k, (p, q) in enumerate(inside):
        sp[p, k] = 1.0
        sq[q, k] = 1.0
    return sp[:n], sq[:n]


def _jacobi(a):
    """(eigenvalues [.., n], eigenvectors [.., n, n]) of the symmetric f64
    matrices a, unsorted."""
    n = a.shape[-1]
    eye = torch.eye(n, dtype=a.dtype)
    v = eye.expand(a.shape).clone()
    size = n + n % 2
    sweeps = 8 + max(1, math.ceil(math.log2(n)))
    steps = [_selections(pairs, size, n, a.dtype) for pairs in _schedule(size)]
    for _ in range(sweeps):
        for sp, sq in steps:
            if sp.shape[1] == 0:
                continue
            app = ((a @ sp) * sp).sum(-2)                 # [.., k]: a[p, p]
            aqq = ((a @ sq) * sq).sum(-2)
            apq = ((a @ sq) * sp).sum(-2)
            # The rotation zeroing a[p, q]: tan from the stable root.
            zero = apq == 0
            theta = (aqq - app) / torch.where(zero, torch.ones_like(apq), 2 * apq)
            t = torch.sign(theta) / (theta.abs() + torch.sqrt(theta * theta + 1))
            t = torch.where(zero | (theta == 0), torch.where(zero, torch.zeros_like(t),
                                                             torch.ones_like(t)), t)
            c = 1 / torch.sqrt(t * t + 1)
            s = t * c
            j = (eye + (sp * (c - 1).unsqueeze(-2)) @ sp.transpose(-1, -2)
                 + (sq * (c - 1).unsqueeze(-2)) @ sq.transpose(-1, -2)
                 + (sp * s.unsqueeze(-2)) @ sq.transpose(-1, -2)
                 - (sq * s.unsqueeze(-2)) @ sp.transpose(-1, -2))
            a = j.transpose(-1, -2) @ a @ j
            v = v @ j
    return torch.diagonal(a, dim1=-2, dim2=-1), v


def decompose(a, uplo="L", vectors=True):
    """(eigenvalues ascending, eigenvectors or None) of the symmetric
    matrices `a` [.., n, n] (the triangle `uplo` read), with torch's
    gradients; n <= MAX_SIZE."""
    n = a.shape[-1]
    if a.dim() < 2 or a.shape[-2] != n:
        raise RuntimeError(f"linalg.eigh: expected square matrices, got {tuple(a.shape)}")
    from .errors import UnsupportedOpError
    if n > MAX_SIZE:
        raise UnsupportedOpError(f"torch.linalg.eigh of {n} x {n} matrices (tfc's Jacobi "
                                 f"decomposition is unrolled up to {MAX_SIZE} x {MAX_SIZE})")
    if a.dtype not in (torch.float32, torch.float64):
        raise UnsupportedOpError(f"torch.linalg.eigh of {a.dtype} matrices (tfc decomposes "
                                 "float32 and float64 ones, as torch's CPU kernels)")
    with torch.no_grad():
        w = a.detach().double()
        tri = torch.tril(w) if uplo.upper() == "L" else torch.triu(w)
        sym = tri + tri.transpose(-1, -2) - torch.diag_embed(torch.diagonal(w, dim1=-2, dim2=-1))
        values, vecs = _jacobi(sym)
        order = torch.argsort(values, dim=-1)
        values = torch.gather(values, -1, order)
        vecs = torch.gather(vecs, -1, order.unsqueeze(-2).expand(vecs.shape))
        big = torch.argmax(vecs.abs(), dim=-2, keepdim=True)
        vecs = vecs * torch.sign(torch.gather(vecs, -2, big))
        values, vecs = values.to(a.dtype), vecs.to(a.dtype)
        if vectors:
            # [i, j] = 1 / (L_j - L_i) from the eigenvalues the model reads
            # (its type: a loss's f(L_i) - f(L_j) and this gap then round
            # alike, as torch's); 0 on the diagonal and between equal
            # eigenvalues (gaps below 1e-10 of the largest magnitude), where
            # the formula divides by zero (see above).
            gaps = values.unsqueeze(-2) - values.unsqueeze(-1)
            scale = values.abs().amax(-1, keepdim=True).unsqueeze(-1)
            apart = gaps.abs() > 1e-10 * torch.clamp(scale, min=torch.finfo(a.dtype).tiny)
            f = torch.where(apart, 1 / torch.where(apart, gaps, torch.ones_like(gaps)),
                            torch.zeros_like(gaps))
    # V^T sym(A) V, live in a: torch's backward takes the symmetric part of
    # A's gradient (the skew part of V^T gV), as this surrogate's does.
    m = vecs.transpose(-1, -2) @ ((a + a.transpose(-1, -2)) / 2) @ vecs
    values_out = straight_through(values, torch.diagonal(m, dim1=-2, dim2=-1))
    if not vectors:
        return values_out, None
    # F o m is antisymmetric (m symmetric): taking its skew part changes no
    # value but puts torch's skew(V^T gV) before F in the backward, so the
    # large F o sym(V^T gV) is never formed and cancelled in f32.
    fm = f * m
    return values_out, straight_through(vecs, vecs + vecs @ ((fm - fm.transpose(-1, -2)) / 2))


def eigh(a, UPLO="L", *, out=None):
    if out is not None:
        raise RuntimeError("linalg.eigh: out= is not traced by tfc")
    values, vectors = decompose(a, UPLO, True)
    return torch.return_types.linalg_eigh((values, vectors))


def eigvalsh(a, UPLO="L", *, out=None):
    if out is not None:
        raise RuntimeError("linalg.eigvalsh: out= is not traced by tfc")
    return decompose(a, UPLO, False)[0]
