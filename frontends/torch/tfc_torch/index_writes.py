"""Writes x[:, idx] = v as writes through a permuted view while tracing.

torch 1.13's functionalization fails on an index_put_ whose indices start
with a whole dim (`x[:, idx] = v`, `scores[..., mask] = -inf`, with idx
an integer tensor or a boolean mask): "sym_strides() called on an undefined
Tensor" (the None that stands for the whole dim). The same write through a
view that moves the indexed dims to the front has no such None:

    x[:, ..., idx, ...] = v   <=>   x.permute(indexed dims first)[idx] = v'

where v' is v broadcast to x[:, ..., idx, ...]'s rank and permuted the same
way (its sizes kept: a dim of 1 still broadcasts); tensor indices
separated by a whole dim (x[i, :, j] = v) put their result dims in front,
so there v stays as it is. `rewritten()` installs that rewrite of
Tensor.__setitem__ for the duration of the trace; index expressions of any
other form (ints, steps, newaxis) are passed through unchanged.
"""
import contextlib

import torch


def _covered(t: torch.Tensor) -> int:
    """The number of dims an index tensor covers: a mask's rank, else 1."""
    return t.dim() if t.dtype in (torch.bool, torch.uint8) else 1


def _is_whole(entry) -> bool:
    return isinstance(entry, slice) and entry == slice(None)


def _plan(x: torch.Tensor, index):
    """(the permutation of x moving the indexed dims first, the index
    tensors, the permutation of the value's dims, or None to keep them)
    when `index` is tensor indices and whole dims (one Ellipsis among
    them) and the tensors do not already index x's leading dims; None for
    any other index. Adjacent tensors put their broadcast result B where
    they stand (the value's B dims move first with them); separated ones
    put B in front already (torch's rule), so the value stays."""
    entries = list(index) if isinstance(index, tuple) else [index]
    tensors = [i for i, e in enumerate(entries) if isinstance(e, torch.Tensor)]
    others = [e for i, e in enumerate(entries) if i not in tensors]
    if not tensors or any(not (_is_whole(e) or e is Ellipsis) for e in others) \
            or sum(e is Ellipsis for e in others) > 1:
        return None
    indices = [entries[i] for i in tensors]
    if len(indices) > 1 and any(_covered(t) != 1 for t in indices):
        return None  # a mask with other index tensors: left to torch
    named = len(others) - sum(e is Ellipsis for e in others) + sum(map(_covered, indices))
    if named > x.dim():
        return None
    covered, dim = [], 0  # the dims each entry covers, in order
    for e in entries:
        span = (x.dim() - named) if e is Ellipsis else (
            _covered(e) if isinstance(e, torch.Tensor) else 1)
        if isinstance(e, torch.Tensor):
            covered += range(dim, dim + span)
        dim += span
    if covered == list(range(len(covered))):
        return None  # the leading dims: torch's own path traces
    perm = covered + [d for d in range(x.dim()) if d not in covered]
    if tensors != list(range(tensors[0], tensors[-1] + 1)):
        return perm, indices, None
    b_rank = 1 if _covered(indices[0]) != 1 else len(
        torch.broadcast_shapes(*(tuple(t.shape) for t in indices)))
    before = covered[0]
    rank = x.dim() - len(covered) + b_rank
    value_perm = (list(range(before, before + b_rank)) + list(range(before))
                  + list(range(before + b_rank, rank)))
    return perm, indices, value_perm


def _rewrite(setitem):
    def permuted_setitem(x, index, value):
        plan = _plan(x, index) if isinstance(x, torch.Tensor) else None
        if plan is None:
            return setitem(x, index, value)
        perm, indices, value_perm = plan
        if isinstance(value, torch.Tensor) and value_perm is not None:
            if value.dim() > len(value_perm):
                return setitem(x, index, value)  # torch's own error
            value = value[(None,) * (len(value_perm) - value.dim())].permute(value_perm)
        setitem(x.permute(perm), tuple(indices) if len(indices) > 1 else indices[0], value)
    return permuted_setitem


@contextlib.contextmanager
def rewritten():
    """Tensor.__setitem__ rewritten as the module doc says, meanwhile."""
    saved = torch.Tensor.__dict__.get("__setitem__")
    torch.Tensor.__setitem__ = _rewrite(torch.Tensor.__setitem__)
    try:
        yield
    finally:
        if saved is None:
            del torch.Tensor.__setitem__
        else:
            torch.Tensor.__setitem__ = saved
