"""Tensors known at trace time (buffers, tensors built in forward from
constants, anything computed only from those) as tfc ops.

A known tensor is emitted in the cheapest form that is exact:
  * a splat constant when all elements are equal;
  * `tfc.iota` when it counts 0, 1, 2, ... along one dimension (position
    ids);
  * an iota comparison (and a select of two splats) when it is a
    triangular matrix of two values along its last two dimensions, e.g. a
    causal mask (tril of ones, `== 0` of it, or an additive 0/-inf mask),
    so no T x T table is stored;
  * otherwise a dense literal, bit-exact (hexadecimal for all but tiny
    tensors).
"""
from typing import Optional, Tuple

import torch

from . import dtypes
from .builder import Builder
from .ir import TensorType, Value

_LIST_LIMIT = 16  # tensors up to this many elements are printed as lists


class Known:
    """A tensor whose value is known at trace time."""

    def __init__(self, tensor: torch.Tensor):
        self.tensor = tensor

    def __repr__(self):
        return f"Known({tuple(self.tensor.shape)}, {self.tensor.dtype})"


def iota_dim(t: torch.Tensor) -> Optional[int]:
    """The dimension along which integer tensor `t` counts 0, 1, 2, ...
    (equal across all other dimensions), or None."""
    if t.is_floating_point() or t.dtype == torch.bool or t.dim() == 0:
        return None
    for d in range(t.dim()):
        if t.shape[d] < 2:
            continue
        shape = [1] * t.dim()
        shape[d] = t.shape[d]
        ramp = torch.arange(t.shape[d], dtype=t.dtype).view(shape)
        if torch.equal(t, ramp.expand(t.shape)):
            return d
    return None


def triangular(t: torch.Tensor) -> Optional[Tuple[int, object, object]]:
    """(k, a, b) when `t[..., i, j]` is `a` for `j - i <= k` and `b`
    otherwise, the same in every leading index; None otherwise."""
    if t.dim() < 2 or t.shape[-1] < 2 or t.shape[-2] < 2:
        return None
    m = t.reshape(-1, t.shape[-2], t.shape[-1])
    if not all(torch.equal(m[0], m[i]) for i in range(1, m.shape[0])):
        return None
    m = m[0]
    if m.is_floating_point() and bool(torch.isnan(m).any()):
        return None
    rows, cols = m.shape
    a = m[rows - 1, 0]
    k = int((m[0] == a).to(torch.int64).sum().item()) - 1  # row 0: a for j <= k
    if k < 0 or k >= cols - 1:
        return None
    others = m[m != a]
    if others.numel() == 0:
        return None
    b = others[0]
    lower = torch.ones(rows, cols, dtype=torch.bool).tril(k)
    want = torch.where(lower, a.expand(rows, cols), b.expand(rows, cols))
    return (k, a.item(), b.item()) if torch.equal(want, m) else None


def dense_text(t: torch.Tensor, dtype: str) -> str:
    """The dense attribute text of `t` (element type `dtype`)."""
    t = t.detach().contiguous()  # (numpy() refuses a tensor that requires grad)
    if t.numel() <= _LIST_LIMIT or dtype == "i1":
        def nest(x):
            if isinstance(x, list):
                return "[" + ", ".join(nest(e) for e in x) + "]"
            return dtypes.element_text(x, dtype)
        return f"dense<{nest(t.tolist())}>"
    if dtype in ("f16", "bf16"):
        raw = t.view(torch.int16).numpy().tobytes()
    else:
        raw = t.numpy().tobytes()
    return f'dense<"0x{raw.hex().upper()}">'


def materialize(b: Builder, t: torch.Tensor, dtype: Optional[str] = None) -> Value:
    """Emits the known tensor `t` (converted to element type `dtype`); a
    sparse one (a graph's adjacency on the module, read by torch.spmm) as
    its dense values: tfc has no sparse tensors."""
    if t.layout != torch.strided:
        t = t.to_dense()
    if t.dtype in (torch.int8, torch.int16):  # held as i32 (importer.NARROW_INTEGERS)
        t = t.to(torch.int32)
    if dtype is not None and dtypes.tfc_dtype(t.dtype) != dtype:
        t = t.to(dtypes.torch_dtype(dtype))
    dtype = dtypes.tfc_dtype(t.dtype)
    shape = tuple(t.shape)
    flat = t.reshape(-1)
    if flat.numel() == 0:
        raise ValueError("empty tensors have no tfc form")
    first = flat[0]
    # (torch.equal takes -0.0 for 0.0: a splat also needs one sign.)
    if torch.equal(flat, first.expand_as(flat)) and (
            not t.is_floating_point() or bool((flat.signbit() == first.signbit()).all())):
        return b.splat(first.item(), dtype, shape)
    d = iota_dim(t)
    if d is not None:
        return b.iota(shape, d, dtype)
    tri = triangular(t)
    if tri is not None:
        k, a, c = tri
        rows, cols = shape[-2:]
        i = b.iota((rows, cols), 0)
        j = b.iota((rows, cols), 1)
        lower = b.compare("le", b.sub(j, i), b.splat(k, "i64"))
        if dtype == "i1":
            mask = lower if a else b.compare("gt", b.sub(j, i), b.splat(k, "i64"))
        else:
            mask = b.select(lower, b.splat(a, dtype), b.splat(c, dtype))
        lead = shape[:-2]
        if all(s == 1 for s in lead):
            return b.reshape(mask, shape)
        return b.broadcast_to(mask, shape)
    compact = broadcast_base(t)
    if compact is not None:
        return b.broadcast_to(materialize(b, compact), shape)
    return b.dense(dense_text(t, dtype), TensorType(shape, dtype))


def broadcast_base(t: torch.Tensor) -> Optional[torch.Tensor]:
    """The smallest tensor that broadcasts to `t` (size 1 along every dim
    `t` is constant along: an expanded row, a bias repeated over the batch),
    or None when there is none or `t` is small enough to print whole: such a
    constant is stored once and broadcast, not written out at full size."""
    if t.numel() <= _LIST_LIMIT:
        return None
    compact = t
    for d in range(t.dim()):
        if compact.shape[d] > 1 and torch.equal(compact, compact.narrow(d, 0, 1).expand_as(compact)):
            compact = compact.narrow(d, 0, 1)
    return compact.contiguous() if compact.numel() < t.numel() else None
