"""Cases for tfc_torch/ops/order.py's lowerings (kthvalue, median, nanmedian,
mode) and the quantile / nanquantile replacements (traceable.py): ranks from
every pair's comparison, ties, NaNs, awkward sizes."""
import torch

from .common import _case

NAN = float("nan")


def _rounded(h):
    """h rounded to halves, its gradient h's (straight through): ties whose
    gradient goes where the index says."""
    return h + ((h * 2).round() / 2 - h).detach()


def _with_nans(h):
    """h with NaNs at known places: one row all NaN, others partly."""
    mask = torch.zeros(h.shape, dtype=torch.bool)
    mask[0, 1] = mask[0, 4] = mask[2, :] = mask[3, 6] = True
    return torch.where(mask, torch.full_like(h, NAN), h)


def _order_statistics(h):
    ramp = torch.linspace(0.5, 1.5, 7)
    k = h.kthvalue(1, dim=1).values.sum() + h.kthvalue(3, dim=1).values.pow(2).sum()
    k = k + (h.kthvalue(5, dim=0, keepdim=True).values * ramp).sum()
    top = h.kthvalue(7, dim=-1)
    k = k + (top.values * top.indices).sum()
    med = h.median(dim=1)                             # 7: the 4th
    even = h[:, :6].median(dim=1)                     # 6: the lower, 3rd
    cols = h.median(dim=0, keepdim=True)              # 5: the 3rd
    m = (med.values * torch.arange(5.0)).sum() + even.values.exp().sum() + (cols.values * ramp).sum()
    m = m + h.gather(1, even.indices.unsqueeze(1)).pow(2).sum()
    # median() of every element: the gradient spreads over ties.
    r = _rounded(h)
    spread = r.median() * 3 + r[:2].median() + (h * 4).round().int().median() * h.sum()
    return k + m + spread


def _nan_statistics(h):
    x = _with_nans(h)
    nm = x.nanmedian(dim=1)                           # row 2 all NaN: NaN
    cols = x.nanmedian(dim=0)
    rows = x.median(dim=1)                            # NaN where the row has one
    # (Not the all-NaN row's index: torch's quickselect leaves some NaN's.)
    return (torch.nan_to_num(nm.values, 0.0).pow(2).sum() + nm.indices[[0, 1, 3, 4]].sum()
            + (cols.values * torch.linspace(0.5, 1.5, 7)).sum()
            + h.gather(1, rows.indices.unsqueeze(1)).sum() + rows.indices.sum()
            + torch.nan_to_num(rows.values, 0.0).sum()
            + x.nanmedian() * 2 + x[3:].nanmedian() + x.median().isnan() * h.sum()
            + h.kthvalue(2, dim=1).indices.sum())


def _modes(h):
    r = _rounded(h)
    mode = r.mode(dim=1)
    cols = r.mode(dim=0, keepdim=True)
    ints = (h * 2).round().long().mode(dim=1)
    return ((mode.values * torch.arange(5.0)).sum() + mode.indices.sum()
            + (cols.values * torch.linspace(0.5, 1.5, 7)).pow(2).sum() + cols.indices.sum()
            + (ints.values * ints.indices).sum())


def _modes_long(h):
    """mode over rows of 5000 (sorted, tfc.sort): values only carry a
    gradient through a detached copy, as torch's index among equal values
    is its unstable sort's (no fixed occurrence to compare)."""
    r = (h * 3).round()
    rows = r.mode(dim=1)
    cols = r.t().mode(dim=0, keepdim=True)
    ints = (h * 2).round().long().mode(dim=-1)
    found = (r.gather(1, rows.indices.unsqueeze(1)).squeeze(1) == rows.values).sum()
    with_nans = torch.where(h > 2.5, torch.full_like(h, NAN), r).mode(dim=1).values
    return (h.sum(1) * (rows.values * torch.arange(1.0, 4.0)).detach()).sum() + found * h.mean() \
        + (cols.values * 1.5).detach().sum() * h.std() + ints.values.sum() * h.max() \
        + with_nans.sum()


def _quantiles(h, q):
    x = _with_nans(h)
    r = _rounded(h)
    out = 0
    for i, mode in enumerate(("linear", "lower", "higher", "midpoint", "nearest")):
        w = float(i + 1)
        out = out + (torch.quantile(h, 0.3, dim=1, interpolation=mode) * w).sum()
        out = out + (r.quantile(torch.tensor([0.0, 0.25, 0.5, 0.625, 1.0]), dim=0, keepdim=True,
                                interpolation=mode) * w).sin().sum()
        out = out + torch.nanquantile(x, 0.75, dim=1, interpolation=mode).nan_to_num(0.0).sum() * w
        out = out + x.nanquantile(q, dim=0, interpolation=mode).pow(2).sum()
        out = out + torch.quantile(h[:3], q, interpolation=mode).sum() * w
    with_nan = torch.quantile(x, 0.5, dim=1)          # NaN where the row has one
    return out + torch.nan_to_num(with_nan, 0.0).sum() + torch.nanquantile(x, 0.4) * 3


CASES = {
    # kthvalue (first, middle, last; keepdim; its indices), median along
    # either dim (odd and even lengths: torch's lower median) and its
    # indices, median() of every element whose gradient spreads evenly
    # over ties, of integers.
    "order-statistics": _case(_order_statistics, rows=5, out=7),
    # nanmedian along dims and of every element (an all-NaN row: NaN),
    # median where a row has a NaN (NaN, the NaN's index), kthvalue indices.
    "nan-medians": _case(_nan_statistics, rows=5, out=7),
    # mode: the smallest of the most frequent values, the index of its last
    # occurrence (the gradient goes there), of integers. (Not with NaNs:
    # torch sorts the row with `<`, which NaN leaves in no consistent order.)
    "modes": _case(_modes, rows=5, out=7),
    # mode over rows of 5000 floats, columns and integers (longer than
    # MAX_RANK_SIZE: the runs of the sorted row are counted), with NaNs
    # among the numbers; the index is checked to hold the value.
    "modes-long": _case(_modes_long, rows=3, out=5000),
    # torch.quantile / nanquantile (replaced while tracing: torch checks q's
    # range with .item()) in every interpolation mode: scalar and 1-d q,
    # q computed in the model (a batch input), dims, keepdim, every element,
    # ties, NaN rows (quantile: NaN; nanquantile: of the numbers, an
    # all-NaN row NaN).
    "quantiles": _case(_quantiles, rows=5, out=7, extra=(torch.tensor([0.1, 0.5, 0.95]),)),
}
