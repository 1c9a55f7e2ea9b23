"""Singular values and vectors in traceable torch ops, used in place of
LAPACK's while tracing (traceable.py): torch.linalg.svd (reduced),
svdvals, torch.svd, the matrix norms built on them (ord 2, -2, 'nuc';
torch.norm(p='nuc'), torch.linalg.norm's matrix forms), cond (ord None / 2),
pinv and matrix_rank.

From the symmetric eigendecomposition of the Gram matrix (eigh.py, in
f64): for A [.., m, n] with n <= m, A^T A = V diag(s^2) V^T, so s is the
square root of its eigenvalues (descending, as torch returns them) and
U = A V / s; for m < n the same on A^T. Gradients follow by the chain rule
through eigh's (torch's formulas) and the products, which for distinct
nonzero singular values are torch's svd gradients. Squaring costs digits
in the small singular values: by the usual perturbation estimate (not a
measurement) the relative error of s_i is about 1e-16 (s_max / s_i)^2
(1e-8 at a condition number of 1e4): fine for the
spectral and nuclear norms and for well-conditioned matrices, not for
nearly singular ones. Up to eigh.MAX_SIZE = 32 columns (rows, for wide
matrices); the signs of the vectors are eigh's convention, not LAPACK's.
"""
import torch

from . import eigh

_ORIGINALS = {}


def _reduced(a, vectors):
    """(U [.., m, k] or None, s [.., k] descending, Vh [.., k, n] or None)."""
    m, n = a.shape[-2], a.shape[-1]
    if n > m:
        u, s, vh = _reduced(a.transpose(-1, -2), vectors)
        return ((vh.transpose(-1, -2), s, u.transpose(-1, -2)) if vectors else (None, s, None))
    # In f64 whatever a's type: a Gram matrix rounded to f32 would lose the
    # small singular values' digits before any decomposition.
    wide = a.double()
    values, v = eigh.decompose(wide.transpose(-1, -2) @ wide, "L", vectors)
    s = torch.sqrt(torch.clamp(values, min=0)).flip(-1)
    if not vectors:
        return None, s.to(a.dtype), None
    v = v.flip(-1)
    u = (wide @ v) / torch.where(s > 0, s, torch.ones_like(s)).unsqueeze(-2)
    return u.to(a.dtype), s.to(a.dtype), v.transpose(-1, -2).to(a.dtype)


def svd(a, full_matrices=True, *, driver=None, out=None):
    """torch.linalg.svd; full_matrices=True only for square matrices (the
    reduced and full forms agree there)."""
    if out is not None:
        raise RuntimeError("linalg.svd: out= is not traced by tfc")
    if full_matrices and a.shape[-1] != a.shape[-2]:
        from .errors import UnsupportedOpError
        raise UnsupportedOpError(
            f"torch.linalg.svd(full_matrices=True) of {tuple(a.shape[-2:])} matrices (tfc "
            "computes the reduced form: pass full_matrices=False)")
    u, s, vh = _reduced(a, True)
    return torch.return_types.linalg_svd((u, s, vh))


def svdvals(a, *, driver=None, out=None):
    if out is not None:
        raise RuntimeError("linalg.svdvals: out= is not traced by tfc")
    return _reduced(a, False)[1]


def torch_svd(a, some=True, compute_uv=True):
    """torch.svd (U, S, V; V not transposed)."""
    if not compute_uv:  # torch's U and V are then zeros of [m, m] and [n, n]
        m, n = a.shape[-2], a.shape[-1]
        s = _reduced(a, False)[1]
        return torch.return_types.svd((a.new_zeros(a.shape[:-2] + (m, m)), s,
                                       a.new_zeros(a.shape[:-2] + (n, n))))
    if not some and a.shape[-1] != a.shape[-2]:
        return _ORIGINALS["torch.svd"](a, some, compute_uv)
    u, s, vh = _reduced(a, True)
    return torch.return_types.svd((u, s, vh.transpose(-1, -2)))


def matrix_norm(a, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """torch.linalg.matrix_norm: ord 2, -2 and 'nuc' from the singular
    values, every other ord torch's own (no SVD in them)."""
    if ord not in (2, -2, "nuc") or out is not None:
        return _ORIGINALS["torch.linalg.matrix_norm"](a, ord, dim, keepdim, dtype=dtype, out=out)
    if dtype is not None:
        a = a.to(dtype)
    d0, d1 = (d % a.dim() for d in dim)
    moved = torch.movedim(a, (d0, d1), (-2, -1))
    s = svdvals(moved)
    r = s.sum(-1) if ord == "nuc" else (s[..., 0] if ord == 2 else s[..., -1])
    if keepdim:
        for d in sorted((d0, d1)):
            r = r.unsqueeze(d)
    return r


def norm(a, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """torch.norm: p='nuc' from the singular values, else torch's."""
    if p != "nuc" or out is not None:
        return _ORIGINALS["torch.norm"](a, p, dim, keepdim, out=out, dtype=dtype)
    return matrix_norm(a, "nuc", dim if dim is not None else (-2, -1), keepdim, dtype=dtype)


def linalg_norm(a, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):
    """torch.linalg.norm: a matrix norm of ord 2, -2 or 'nuc' (over `dim`,
    two dims, or a 2-d input's) from the singular values, torch's own for
    every other form."""
    matrix_dims = dim if dim is not None else ((-2, -1) if a.dim() == 2 else None)
    if ord not in (2, -2, "nuc") or out is not None or matrix_dims is None \
            or len(matrix_dims) != 2:
        return _ORIGINALS["torch.linalg.norm"](a, ord, dim, keepdim, out=out, dtype=dtype)
    return matrix_norm(a, ord, tuple(matrix_dims), keepdim, dtype=dtype)


def _cutoff(a, s, atol, rtol):
    """max(atol, rtol * s_max), rtol's default max(m, n) * eps of the type
    when neither is given (torch's pinv and matrix_rank)."""
    if rtol is None:
        rtol = 0.0 if atol else max(a.shape[-2:]) * torch.finfo(a.dtype).eps
    return torch.clamp(rtol * s[..., :1], min=float(atol or 0.0))


def matrix_rank(a, *args, atol=None, rtol=None, hermitian=False, out=None, **kwargs):
    """torch.linalg.matrix_rank: the count of singular values above
    _cutoff's; torch's own for tensor tolerances and the deprecated tol."""
    if args or kwargs or out is not None or hermitian \
            or not isinstance(atol, (type(None), int, float)) \
            or not isinstance(rtol, (type(None), int, float)):
        return _ORIGINALS["torch.linalg.matrix_rank"](a, *args, atol=atol, rtol=rtol,
                                                      hermitian=hermitian, out=out, **kwargs)
    s = svdvals(a)
    return (s > _cutoff(a, s, atol, rtol)).sum(-1)


def cond(a, p=None, *, out=None):
    """torch.linalg.cond for p None / 2 / -2 (ratios of singular values),
    torch's own for the other norms."""
    if p not in (None, 2, -2) or out is not None:
        return _ORIGINALS["torch.linalg.cond"](a, p, out=out)
    s = svdvals(a)
    return s[..., 0] / s[..., -1] if p in (None, 2) else s[..., -1] / s[..., 0]


def pinv(a, *, atol=None, rtol=None, hermitian=False, out=None):
    """torch.linalg.pinv: V diag(1 / s) U^T over the singular values above
    max(atol, rtol * s_max) (rtol's default max(m, n) * eps of the type
    when neither is given, as torch's)."""
    if out is not None or not isinstance(atol, (type(None), int, float)) \
            or not isinstance(rtol, (type(None), int, float)):
        return _ORIGINALS["torch.linalg.pinv"](a, atol=atol, rtol=rtol, hermitian=hermitian, out=out)
    u, s, vh = _reduced(a, True)
    cutoff = _cutoff(a, s, atol, rtol)
    inverse = torch.where(s > cutoff, 1 / torch.where(s > 0, s, torch.ones_like(s)),
                          torch.zeros_like(s))
    return (vh.transpose(-1, -2) * inverse.unsqueeze(-2)) @ u.transpose(-1, -2)


def replacements():
    """(owner, name, replacement) for traceable.REPLACEMENTS; the originals
    kept for the forms these leave to torch."""
    entries = [(torch.linalg, "svd", svd), (torch.linalg, "svdvals", svdvals),
               (torch, "svd", torch_svd), (torch.linalg, "matrix_norm", matrix_norm),
               (torch, "norm", norm), (torch.linalg, "cond", cond), (torch.linalg, "pinv", pinv),
               (torch.linalg, "norm", linalg_norm), (torch.linalg, "matrix_rank", matrix_rank)]
    for owner, name, _ in entries:
        _ORIGINALS.setdefault(f"{owner.__name__}.{name}", getattr(owner, name))
    return entries
