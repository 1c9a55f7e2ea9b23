"""Resampling along the trailing spatial dims of [N, C, *spatial] tensors
(1-3 dims, with or without the batch dim where torch allows it):

  * reflection and replication padding: the kept part of the input (a
    slice: negative padding crops) concatenated with the mirrored rows next
    to each border (a gather of those few rows, reversed) or with the edge
    row broadcast;

Each gather is a tfc.embedding of constant ids (its gradient the
deterministic scatter-add): the work grows with the output, never with
in x out.
"""
import torch

from ..constants import Known
from ..registry import lowers
from .shape import index_select


def _gather(ctx, v, dim, ids):
    """v's rows `ids` (a list of ints) along `dim`."""
    if list(ids) == list(range(v.shape[dim])):
        return v
    return index_select(ctx, v, dim, Known(torch.tensor(ids, dtype=torch.int64)))


# -- padding modes ---------------------------------------------------------------------------

def _mirrored(ctx, v, dim, start, stop):
    """Rows [start, stop) of `dim` in reverse order."""
    return _gather(ctx, v, dim, list(range(stop - 1, start - 1, -1)))


def _pad_dim(ctx, v, dim, low, high, reflect):
    """One dim padded by torch's reflection (the border row not repeated)
    or replication rule. A negative amount crops the input on that side;
    the other side's padding still mirrors or repeats the input's own
    border rows (torch's index rule)."""
    b = ctx.b
    n = v.shape[dim]
    parts = []
    if low > 0:
        parts.append(_mirrored(ctx, v, dim, 1, low + 1) if reflect else
                     b.broadcast_to(b.slice_dim(v, dim, 0, 1),
                                    v.shape[:dim] + (low,) + v.shape[dim + 1:]))
    start, stop = max(-low, 0), n - max(-high, 0)
    if stop > start:
        parts.append(b.slice_dim(v, dim, start, stop))
    if high > 0:
        parts.append(_mirrored(ctx, v, dim, n - 1 - high, n - 1) if reflect else
                     b.broadcast_to(b.slice_dim(v, dim, n - 1, n),
                                    v.shape[:dim] + (high,) + v.shape[dim + 1:]))
    return b.concat(parts, dim)


@lowers("aten.reflection_pad1d.default", "aten.reflection_pad2d.default",
        "aten.reflection_pad3d.default", "aten.replication_pad1d.default",
        "aten.replication_pad2d.default", "aten.replication_pad3d.default")
def pad_mode(ctx, x, padding):
    """F.pad(mode="reflect" / "replicate"): `padding` is (left, right) of
    the last dim, then of the one before, ..., as constant_pad_nd's."""
    v = ctx.tensor(x)
    reflect = ctx.name.startswith("aten.reflection")
    for i in range(len(padding) // 2):
        v = _pad_dim(ctx, v, v.rank - 1 - i, padding[2 * i], padding[2 * i + 1], reflect)
    return v
