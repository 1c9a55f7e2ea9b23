"""Index expressions torch 1.13 cannot trace, rewritten while tracing.

Writes behind whole dims. torch 1.13's functionalization fails on an
index_put_ whose indices start with a whole dim (`x[:, idx] = v`,
`scores[..., mask] = -inf`, with idx an integer tensor or a boolean mask):
"sym_strides() called on an undefined Tensor" (the None that stands for
the whole dim). The same write through a view that moves the indexed dims
to the front has no such None:

    x[:, ..., idx, ...] = v   <=>   x.permute(indexed dims first)[idx] = v'

where v' is v broadcast to x[:, ..., idx, ...]'s rank and permuted the same
way (its sizes kept: a dim of 1 still broadcasts); tensor indices
separated by a whole dim (x[i, :, j] = v) put their result dims in front,
so there v stays as it is.

Indices that are 0-d integer tensors (`w[:, idx[i]]`, Autoformer's
aggregation over its top delays): torch turns them into Python integers
with .item(), which no trace records. Each becomes a 1-element index
tensor and the dim it adds is squeezed away again (for a write, the value
gets that dim), which selects the same elements by a traced index.

A boolean mask among 0-d integer tensor indices in a write
(PyTorch-YOLOv3's noobj_mask[b[i], ious > t, gj[i], gi[i]] = 0): the
mask's dims are taken whole and the selection written with
torch.where(mask, value, x[...]) (_mask_among_scalars).

A one-row value written through a boolean mask (x[mask] = f(x[mask]) when
the example selects one row) goes to index_put_ itself: torch's setitem
first views the value without its leading 1, which would cut a masked
selection from its rows.

`rewritten()` installs the rewrites of Tensor.__getitem__ /
__setitem__ for the duration of the trace; index expressions of other
forms (ints, steps, newaxis next to tensors) pass through unchanged.
"""
import torch

from . import patching


def _covered(t: torch.Tensor) -> int:
    """The number of dims an index tensor covers: a mask's rank, else 1."""
    return t.dim() if t.dtype in (torch.bool, torch.uint8) else 1


def _is_whole(entry) -> bool:
    return isinstance(entry, slice) and entry == slice(None)


def _entries(x: torch.Tensor, index, dims_of) -> list:
    """The index's entries, an Ellipsis that stands for no dim left out:
    torch tells adjacent index tensors apart after expanding it, so
    x[:, i, ..., j] of a 3-d x has i and j adjacent. `dims_of(entry)`: the
    dims an entry other than an Ellipsis covers."""
    entries = list(index) if isinstance(index, tuple) else [index]
    if any(e is Ellipsis for e in entries):
        named = sum(dims_of(e) for e in entries if e is not Ellipsis)
        if named == x.dim():
            entries = [e for e in entries if e is not Ellipsis]
    return entries


def _dims_of(e) -> int:
    return _covered(e) if isinstance(e, torch.Tensor) else 1


def _plan(x: torch.Tensor, index):
    """(the permutation of x moving the indexed dims first, the index
    tensors, the permutation of the value's dims, or None to keep them)
    when `index` is tensor indices and whole dims (one Ellipsis among
    them) and the tensors do not already index x's leading dims; None for
    any other index. Adjacent tensors put their broadcast result B where
    they stand (the value's B dims move first with them); separated ones
    put B in front already (torch's rule), so the value stays."""
    entries = _entries(x, index, _dims_of)
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


def _is_scalar_index(e) -> bool:
    return (isinstance(e, torch.Tensor) and e.dim() == 0
            and not e.dtype.is_floating_point and e.dtype not in (torch.bool, torch.uint8))


def _unscalared(x: torch.Tensor, index):
    """(the index with its 0-d integer tensors as 1-element ones, the dim of
    the result they add) when every tensor index is such a 0-d integer
    tensor and the others are whole dims, steps of slices or Ellipsis;
    None otherwise."""
    entries = _entries(x, index, lambda e: 1)
    tensors = [i for i, e in enumerate(entries) if isinstance(e, torch.Tensor)]
    if not tensors or not all(_is_scalar_index(entries[i]) for i in tensors):
        return None
    if any(not (isinstance(e, slice) or e is Ellipsis) for i, e in enumerate(entries)
           if i not in tensors) or sum(e is Ellipsis for e in entries) > 1:
        return None
    named = len(entries) - sum(e is Ellipsis for e in entries)
    if named > x.dim():
        return None
    adjacent = tensors == list(range(tensors[0], tensors[-1] + 1))
    at = 0
    if adjacent:
        for e in entries[:tensors[0]]:
            at += (x.dim() - named) if e is Ellipsis else 1
    new = tuple(e.reshape(1) if i in tensors else e for i, e in enumerate(entries))
    return new, at


def _value_over(value: torch.Tensor, before: int, after: int, k: int):
    """`value` of x[index] (dims: `before`, the mask's N selected elements,
    `after`: torch's setitem takes the 0-d indices as Python integers, so
    the mask is the one index tensor and N stands where it does) laid over
    the selection without the mask (dims: `before`, the mask's `k`,
    `after`), or None when it varies along N."""
    labels = ["b"] * before + ["n"] + ["a"] * after
    shape = list(value.shape)
    while len(shape) > len(labels) and shape[0] == 1:
        shape.pop(0)
    if len(shape) > len(labels):
        return None
    labels = labels[len(labels) - len(shape):]
    if "n" in labels:
        if shape[labels.index("n")] != 1:
            return None
        del shape[labels.index("n")]
        labels.remove("n")
    front = labels.count("b")
    return value.reshape(shape[:front] + [1] * k + shape[front:])


def _mask_among_scalars(x: torch.Tensor, index, value):
    """For `x[index] = value` with one boolean mask among 0-d integer
    tensors, whole dims, slices and an Ellipsis (PyTorch-YOLOv3's
    noobj_mask[b[i], ious > t, gj[i], gi[i]] = 0): (the index with the
    mask's dims taken whole, the new values of that selection: `value`
    where the mask holds, the old ones elsewhere), or None. torch turns the
    0-d indices into Python integers with .item() and the mask into its
    true coordinates (nonzero), neither of which a trace records; the
    selection without the mask has static dims, its mask dims where the
    mask's entry stands (0-d indices take their dims away). The value must
    not vary along the selected elements (a number, a 0-d tensor, a row
    over the other dims: _value_over)."""
    entries = _entries(x, index, _dims_of)
    tensors = [i for i, e in enumerate(entries) if isinstance(e, torch.Tensor)]
    masks = [i for i in tensors if entries[i].dtype in (torch.bool, torch.uint8)]
    if len(masks) != 1 or len(tensors) < 2 or entries[masks[0]].dim() == 0 or \
            not all(_is_scalar_index(entries[i]) for i in tensors if i != masks[0]):
        return None
    if any(not (isinstance(e, slice) or e is Ellipsis) for i, e in enumerate(entries)
           if i not in tensors) or sum(e is Ellipsis for e in entries) > 1:
        return None
    at = masks[0]
    mask = entries[at]
    named = sum(_dims_of(e) for e in entries if e is not Ellipsis)
    if named > x.dim():
        return None
    start = sum((x.dim() - named) if e is Ellipsis else 1
                for e in entries[:at] if not isinstance(e, torch.Tensor))
    new = tuple(entries[:at]) + (slice(None),) * mask.dim() + tuple(entries[at + 1:])
    selected = x[new]     # Tensor.__getitem__ as rewritten: the 0-d indices traced
    after = selected.dim() - start - mask.dim()
    if tuple(selected.shape[start:start + mask.dim()]) != tuple(mask.shape):
        return None       # torch's own error
    if isinstance(value, torch.Tensor):
        value = _value_over(value, start, after, mask.dim())
        if value is None:
            return None   # a value along the selected elements: left to torch
        value = value.to(selected.dtype)
    elif isinstance(value, (bool, int, float)):
        value = torch.full((), value, dtype=selected.dtype)
    else:
        return None
    mask = mask.bool().reshape(tuple(mask.shape) + (1,) * after)
    return new, torch.where(mask, value, selected)


def _rewrite_get(getitem):
    def unscalared_getitem(x, index):
        plan = _unscalared(x, index) if isinstance(x, torch.Tensor) else None
        if plan is None:
            return getitem(x, index)
        new, at = plan
        return getitem(x, new).squeeze(at)
    return unscalared_getitem


def _one_row_masked_write(x, index, value) -> bool:
    """Whether `x[index] = value` is x[mask] = v for one boolean mask over
    x's leading dims and a v of the selection's rank whose rows dim is 1."""
    entries = list(index) if isinstance(index, tuple) else [index]
    if len(entries) != 1 or not isinstance(x, torch.Tensor) or \
            not isinstance(value, torch.Tensor):
        return False
    mask = entries[0]
    return (isinstance(mask, torch.Tensor) and mask.dtype == torch.bool and mask.dim() >= 1
            and value.dim() == x.dim() - mask.dim() + 1 and value.shape[0] == 1)


def _complex_write(x, index, value):
    """x[index] = value for a complex x as the same write into its real
    view, (torch.view_as_real(x), index and a trailing whole dim, the
    value's real view): torch 1.13 cannot trace slice_scatter (a slice
    assignment, FITS' xf[:, k:] = 0) or copy into a complex tensor that
    needs a gradient, nor does tfc lower every complex write."""
    entries = index if isinstance(index, tuple) else (index,)
    if not any(e is Ellipsis for e in entries):
        entries += (Ellipsis,)
    real = torch.view_as_real(x)
    if isinstance(value, torch.Tensor):
        value = torch.view_as_real(value.to(x.dtype).resolve_conj())
    elif isinstance(value, (bool, int, float, complex)):
        value = torch.tensor([complex(value).real, complex(value).imag], dtype=real.dtype)
    else:
        return None
    return real, entries + (slice(None),), value


def _rewrite(setitem):
    def permuted_setitem(x, index, value):
        if isinstance(x, torch.Tensor) and x.is_complex() and x.dtype != torch.complex32:
            written = _complex_write(x, index, value)
            if written is not None:
                permuted_setitem(*written)
                # A write through a view of a complex tensor updates that
                # tensor by a complex slice_scatter, which torch 1.13 may
                # refuse: synced now, the refusal names this line, not
                # the next line reading the tensor.
                source = getattr(x, "_tfc_alias_of", None)
                if isinstance(source, torch.Tensor) and torch._is_functional_tensor(source):
                    torch._sync(source)
                return None
        if isinstance(x, torch.Tensor):
            masked = _mask_among_scalars(x, index, value)
            if masked is not None:
                return permuted_setitem(x, *masked)
            scalar = _unscalared(x, index)
            if scalar is not None:
                index, at = scalar
                if isinstance(value, torch.Tensor):
                    # x[index]'s rank before the rewrite: each 0-d index
                    # takes a dim away.
                    rank = x.dim() - sum(isinstance(e, torch.Tensor) for e in index)
                    if value.dim() > rank - at:
                        value = value.unsqueeze(value.dim() - (rank - at))
        if _one_row_masked_write(x, index, value):
            # x[mask] = v with v of one row: torch's setitem views v without
            # its leading 1 first, which would cut a selection of the mask
            # (x[mask] = f(x[mask]) when one row is selected) from its rows;
            # index_put_ broadcasts v itself.
            x.index_put_((index if isinstance(index, torch.Tensor) else index[0],), value)
            return None
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


def rewritten():
    """Tensor.__getitem__ / __setitem__ rewritten as the module doc says,
    meanwhile (a context manager)."""
    return patching.replaced(torch.Tensor,
                             __getitem__=_rewrite_get(torch.Tensor.__getitem__),
                             __setitem__=_rewrite(torch.Tensor.__setitem__))
