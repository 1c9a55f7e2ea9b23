"""Cases for tfc_torch/ops/reduction.py's lowerings: sums, means, extrema, var
/ std, logsumexp and vector norms, reductions of boolean-mask selections,
prod, any / all, the index-selecting max / min(dim), topk and sort, the scans
(cumsum, cumprod, cummax / cummin, logcumsumexp), nansum / nanmean, aminmax
and bucketize / searchsorted."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import _case, _g

CASES = {
    # histc (no gradient, as torch's): bins from the data's extremes (min
    # == max), a given range with elements outside it, on its edges and NaN
    # (bin 0, as torch 1.13's CPU kernel), a constant input (range widened
    # by 1), f64, an element torch's rounding of the bin formula places.
    "histc": _case(lambda h: _histc(h)),
    "reductions": _case(lambda h: (h.sum(0).mean() + h.mean(dim=1, keepdim=True).sum()
                                   + h.amax(dim=1).sum() + h.amin(dim=0).sum() + h.max()
                                   + h.min() + h.max(dim=1).values.sum()
                                   + torch.logsumexp(h, dim=1).sum())),
    "var-std-norm": _case(lambda h: (h.var(dim=1).sum() + h.std(dim=0, unbiased=False).sum()
                                     + h.var() + torch.linalg.vector_norm(h, dim=1).sum()
                                     + h.norm(p=1) + torch.linalg.vector_norm(h, ord=float("inf")))),
    "masked-reductions": _case(lambda h: (h[h > 0].sum() + h[h[:, 0] > 0].mean()
                                          + torch.masked_select(h, h < 0.1).mean())),
    # Reductions composed from tfc ops (ops/reduction.py).
    "reductions-composed": _case(lambda h: (h.prod(1).sum() + (h * 0.5 + 1).prod() + h.prod(0, keepdim=True).sum()
                                            + (h * (h > 0).any(1, keepdim=True)).sum()
                                            + (h * (h > -1).all(0)).sum() + (h * (h > 0).any()).sum()
                                            + torch.std_mean(h, 1)[0].sum() + torch.std_mean(h, 0)[1].sum()
                                            + h.cumsum(1).pow(2).mean() + h.cumsum(0).sum()
                                            + h.norm(p=3, dim=1).sum() + h.norm(p=float("-inf"))),
                                 rows=5, out=7),
    # Position ids from an attention mask (HF style): an integer cumsum.
    "cumsum-positions": lambda: _positions(),
    # Index-selecting reductions: max/min(dim) values and indices, topk
    # (largest and smallest) and sort, whose gradient goes to the selected
    # element alone; relu's zeros make ties, which pick the first index
    # (amax splits a tie's gradient evenly, max(dim) does not).
    "selections": _case(lambda h: _selections(h)),
    # Sorts of long rows by rank (n x n comparisons): MAE's random masking
    # (argsort of 196 noise values, keep the first 49, argsort again to
    # restore the order), stable sorts of 200 values with ties, NaN, +-inf
    # and signed zeros both ways, an integer and a uint8 sort, a stable
    # argsort, topk of 100 of 300.
    "sort-long": lambda: _sort_long(),
    # Rows longer than MAX_SORT_SIZE (4096) sort with tfc.sort: a Lovasz
    # hinge over the 2x48x48 pixel errors of a batch (descending, with the
    # labels gathered by the permutation), a global magnitude threshold
    # (kthvalue of 6000 |weights|, values and index, the gradient to the
    # element picked), median(dim) and quantile over 3000 / 6000 values,
    # median() / nanmedian() of every element and nanmedian / nanquantile
    # along rows of 4992 with NaNs, stable sorts of 5000 values both ways
    # with NaN, +-inf, signed zeros and ties, 5000 signed zeros and NaNs descending (signs and indices in
    # stable order), an integer sort, an argsort, topk of 100 of 4982 and of
    # the 50 smallest of 5000.
    "sort-op": lambda: _sort_op(),
    # aminmax (values; torch 1.13 cannot differentiate it), nansum and
    # nanmean over NaNs, cumprod with zeros and negative values, cummax /
    # cummin with ties and NaN (values and indices), logcumsumexp with ties
    # and -inf after finite values.
    "more-reductions": lambda: _more_reductions(),
    # bucketize / searchsorted: ties with the boundaries, duplicate
    # boundaries, NaN, right / side, out_int32, a sorter, a 2-d sequence.
    "bucketize": _case(lambda h: _bucketize(h)),
    # count_nonzero over all dims and over dims (zeros from relu, NaN
    # counted, a boolean input) scaling the loss.
    "count-nonzero": _case(lambda h: _count_nonzero(h)),
    # Norms and standard deviations that are exactly 0 get gradient 0, as
    # torch's norm_backward / std_backward mask it (sqrt's derivative was
    # inf * 0 = NaN): pairwise distances with their zero diagonal (also
    # masked out), F.normalize of zero rows, std of a constant channel,
    # orders 2, 3, 0.5 and inf.
    "norms-at-zero": _case(lambda h: _norms_at_zero(h)),
    # A sort whose results are read only as a prefix along the sorted dim
    # (PointNet++'s ball query: group_idx.sort(-1)[0][:, :, :nsample]) picks
    # those elements (k picks) instead of ranking n x n: integer ids with
    # ties, float values descending with their indices, ties in index order.
    "sort-prefix": lambda: _sort_prefix(),
    # Class counts with bincount(labels, minlength=C) weighting a
    # cross-entropy (inverse frequency), and summed weights per class.
    "bincount": lambda: _bincount(),
}


class _Positions(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos = nn.Embedding(9, 6)
        self.fc = nn.Linear(6, 6)

    def forward(self, x, mask):
        positions = (mask.long().cumsum(-1) - 1).clamp(min=0)
        return (self.fc(x) * self.pos(positions)).sum()


def _positions():
    torch.manual_seed(0)
    mask = torch.tensor([[0, 0, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 0, 0, 0]])
    return _Positions(), (torch.randn(2, 8, 6, generator=_g(1)), mask)


def _selections(h):
    r = F.relu(h - 0.3)
    top = torch.topk(r, 3, dim=1)
    low = torch.topk(h, 2, dim=0, largest=False)
    srt = torch.sort(h * torch.tensor([1.0, -1.0, 1.0, 0.0]).view(4, 1), dim=0, descending=True)
    mx, mi = r.max(dim=1)
    nn_, ni = h.min(dim=0, keepdim=True)
    weights = torch.arange(1.0, 9.0)
    return ((top.values * torch.tensor([3.0, 2.0, 1.0])).sum() + (top.indices * r[:, :3]).sum()
            + low.values.pow(2).sum() + (srt.values * weights).sum() + (srt.indices * h).sum()
            + (mx * mi).sum() + mx.pow(2).sum() + (nn_ * ni).sum() + r.max(0)[0].sum())


class _SortLong(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        p = torch.randn(3, 200, generator=_g(2))
        p[0, :6] = torch.tensor([float("nan"), 1.0, 1.0, float("inf"), float("-inf"),
                                 float("nan")])
        p[1, :4] = torch.tensor([0.0, -0.0, 2.0, 2.0])
        p[2] = p[2].round()  # many ties
        self.p = nn.Parameter(p)

    def forward(self, x, noise, w):
        shuffle = torch.argsort(noise, dim=1)
        restore = torch.argsort(shuffle, dim=1)
        kept = self.fc(torch.gather(x, 1, shuffle[:, :49, None].expand(-1, -1, 4)))
        full = torch.cat([kept, torch.zeros(2, 147, 4)], 1)
        full = torch.gather(full, 1, restore[:, :, None].expand(-1, -1, 4))
        up, i_up = torch.sort(self.p * 1.0, dim=1, stable=True)
        down, i_down = torch.sort(self.p.t() * 1.0, dim=0, descending=True, stable=True)
        ints, i_ints = torch.sort((self.p[2] * 1.0).long(), stable=True)
        top, i_top = (self.p[1] * 2.0).topk(100)
        order = torch.argsort(self.p[2] * 1.0, stable=True, descending=True)
        small, _ = torch.sort((self.p[2] * 1.0).clamp(0, 3).to(torch.uint8), stable=True)
        finite = torch.nan_to_num(torch.cat([up, down.t()]), nan=7.0, posinf=9.0, neginf=-9.0)
        return ((full.pow(2) * torch.arange(196.0).view(1, 196, 1)).mean()
                + (finite * w.repeat(2, 1)).sum() + ((i_up + i_down.t()).float() * w).sum()
                + ((ints + i_ints).float() * w[0]).sum() + (top * w[0, :100]).sum()
                + (i_top.float() * w[1, :100]).sum() + (order.float() * w[2]).sum()
                + (small.float() * w[1]).sum())


def _lovasz_grad(gt_sorted):
    gts = gt_sorted.sum()
    inter = gts - gt_sorted.float().cumsum(0)
    union = gts + (1 - gt_sorted).float().cumsum(0)
    jaccard = 1.0 - inter / union
    return torch.cat([jaccard[:1], jaccard[1:] - jaccard[:-1]])


class _SortOp(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 1, 3, padding=1)
        p = torch.randn(2, 5000, generator=_g(11))
        p[0, :8] = torch.tensor([float("nan"), 1.0, 1.0, float("inf"), float("-inf"),
                                 float("nan"), 0.0, -0.0])
        p[0, 4990:] = torch.tensor([-0.0, 0.0, 1.0, 1.0, float("nan")] * 2)
        p[1] = (p[1] * 2.0).round()  # many ties
        self.p = nn.Parameter(p)
        self.w = nn.Parameter(torch.randn(6000, generator=_g(12)))

    def forward(self, x, labels, ramp):
        logits, labels = self.conv(x).view(-1), labels.view(-1)
        errors = 1.0 - logits * (2.0 * labels.float() - 1.0)
        errors_sorted, perm = torch.sort(errors, dim=0, descending=True)
        loss = torch.dot(F.relu(errors_sorted), _lovasz_grad(labels[perm]))
        k = self.w.abs().kthvalue(4200)
        loss = loss + 3.0 * k.values + k.indices.float() * 1e-3
        med = self.w.view(2, 3000).median(dim=1)
        loss = loss + (med.values * torch.tensor([1.0, -2.0])).sum() + med.indices.sum() * 1e-3
        loss = loss + torch.quantile(self.w, 0.3) * 2.0
        # median() / nanmedian() of every element, nanmedian(dim) and
        # nanquantile(dim) of long rows with NaNs (no ties: torch's index
        # among tied elements is its quickselect's).
        loss = loss + torch.median(self.w) * 3.0 + torch.median(self.p[0, 8:4990])
        rows = torch.cat([self.p[0:1, 8:], self.w[None, :4992]])
        holey = rows.masked_fill(rows.abs() > 1.5, float("nan"))
        nm = holey.nanmedian(dim=1)
        loss = (loss + torch.nanmedian(holey) * 2.0 + (nm.values * torch.tensor([1.0, -1.5])).sum()
                + nm.indices.sum() * 1e-3 + torch.nanquantile(holey, 0.7, dim=1).sum())
        up, i_up = torch.sort(self.p * 1.0, dim=1, stable=True)
        down, i_down = torch.sort(self.p.t() * 1.0, dim=0, descending=True, stable=True)
        ints, i_ints = torch.sort((self.p[1] * 1.0).long(), stable=True)
        order = torch.argsort(self.p[1] * 1.0, stable=True, descending=True)
        # topk of values without ties (torch 1.13's CPU topk is not stable).
        top, i_top = (self.p[0, 8:4990] * 2.0).topk(100)
        low, i_low = self.p[0].topk(50, largest=False)
        finite = torch.nan_to_num(torch.cat([up, down.t()]), nan=7.0, posinf=9.0, neginf=-9.0)
        # Signed zeros (and NaN from NaN and inf) in their stable order: the
        # sign of each sorted zero shows in atan2(z, -1) = +-pi.
        z, i_z = torch.sort(self.p[0] * 0.0, descending=True, stable=True)
        return (loss + (finite * ramp.repeat(2, 1)).sum()
                + ((i_up + i_down.t()).float() * ramp).sum() * 1e-3
                + ((ints + i_ints).float() * ramp[0]).sum() * 1e-3
                + (order.float() * ramp[1]).sum() * 1e-3
                + (top * ramp[0, :100]).sum() + (i_top.float() * ramp[1, :100]).sum() * 1e-3
                + (torch.nan_to_num(low, neginf=-9.0) * ramp[1, :50]).sum()
                + (i_low.float() * ramp[0, :50]).sum() * 1e-3
                + (torch.atan2(torch.nan_to_num(z, nan=5.0), torch.tensor(-1.0)) * ramp[0]).sum()
                + (i_z.float() * ramp[1]).sum() * 1e-3)


def _sort_op():
    torch.manual_seed(0)
    return _SortOp(), (torch.randn(2, 3, 48, 48, generator=_g(13)),
                       torch.randint(0, 2, (2, 48, 48), generator=_g(14)),
                       torch.randn(2, 5000, generator=_g(15)))


def _sort_long():
    return _SortLong(), (torch.randn(2, 196, 4, generator=_g(3)),
                         torch.rand(2, 196, generator=_g(4)),
                         torch.randn(3, 200, generator=_g(5)))


class _MoreReductions(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        nan = float("nan")
        # Ties, zeros, negative values and NaN in exact places.
        self.p = nn.Parameter(torch.tensor([[1.0, 3.0, 3.0, 2.0, 3.0, -1.0, 0.0, 0.0],
                                            [0.0, -2.0, 0.5, 0.0, -3.0, 4.0, -0.5, 2.0],
                                            [-1.0, -1.0, 2.0, -1.0, 5.0, 5.0, -2.0, 1.5]]))
        self.register_buffer("holes", torch.tensor([[False] * 8, [False, False, True, False,
                                                                  False, True, False, False],
                                                    [True] + [False] * 7]))
        self.nan = nan

    def forward(self, x):
        h = self.fc(x)                                            # [4, 8]
        w = torch.linspace(-1.0, 2.0, 8)
        holey = h.masked_fill(h > 0.6, self.nan)
        loss = torch.nansum(holey) + (torch.nansum(holey, 1) * w[:4]).sum()
        loss = loss + (torch.nanmean(holey, 0) * w).sum() + torch.nanmean(holey)
        low, high = torch.aminmax(h.detach(), dim=1)
        lo_all, hi_all = torch.aminmax(h.detach())
        loss = loss + (h * low[:, None]).sum() + (h.t() * high).sum() + h.sum() * (hi_all - lo_all)
        loss = loss + (torch.cumprod(h, 1) * w).sum() + torch.cumprod(h, 0).pow(2).sum()
        loss = loss + (torch.cumprod(self.p, 1) * w).sum() + torch.cumprod(self.p, 0).sum()
        p = self.p.masked_fill(self.holes, self.nan)
        values, indices = torch.cummax(p, 1)
        least, where = torch.cummin(p, 1)
        loss = loss + (torch.nan_to_num(values) * w).sum() + (torch.nan_to_num(least) * w).pow(2).sum()
        loss = loss + (h[:3] * (indices + 2 * where)).sum()
        loss = loss + (torch.cummax(h, 0).values * w).sum() + torch.cummin(h, 1)[0].sum()
        gaps = torch.cat([h[:, :3], torch.full((4, 1), float("-inf")), h[:, 3:]], 1)
        loss = loss + (torch.logcumsumexp(gaps, 1) * torch.linspace(-1.0, 2.0, 9)).sum()
        loss = loss + (torch.logcumsumexp(self.p, 1) * w).sum() + torch.logcumsumexp(h, 0).sum()
        return loss


def _more_reductions():
    torch.manual_seed(0)
    return _MoreReductions(), (torch.randn(4, 6, generator=_g(1)),)


def _bucketize(h):
    q = (h * 4.0).round() / 4.0                 # multiples of 1/4: ties with the boundaries
    q = q.masked_fill(h > 1.2, float("nan"))
    bounds = torch.tensor([-0.5, -0.25, 0.0, 0.0, 0.25, 0.5])
    left = torch.bucketize(q, bounds)
    right = torch.bucketize(q, bounds, right=True, out_int32=True)
    rows = torch.tensor([[-1.0, 0.0, 0.25, 1.0], [-0.5, -0.5, 0.0, 0.5],
                         [0.0, 0.25, 0.25, 0.75], [-0.25, 0.0, 0.5, 2.0]])
    placed = torch.searchsorted(rows, q, side="right")
    shuffled = torch.tensor([0.25, -0.5, 0.5, 0.0, -0.25])
    sorted_by = torch.searchsorted(shuffled, q.contiguous(), sorter=torch.tensor([1, 4, 3, 0, 2]))
    return ((left * h).sum() + (right * h.pow(2)).sum() + (placed * h).sum()
            + (sorted_by * h * torch.linspace(-1.0, 1.0, 8)).sum())


def _count_nonzero(h):
    r = F.relu(h - 0.2)
    nan = torch.where(torch.arange(8) == 3, torch.tensor(float("nan")), r.detach())
    return ((r * torch.count_nonzero(r, 1)[:, None]).sum() + h.sum() * torch.count_nonzero(r)
            + (h * torch.count_nonzero(nan, (0,))).sum() + h.mean() * torch.count_nonzero(h > 0)
            + (h[:, :2] * torch.count_nonzero(r.view(4, 2, 4), (0, 2))).sum())


def _histc(h):                                        # h: [4, 8]
    one = 1 + h.detach().sum() * 0
    edges = torch.tensor([-1.0, 1.0, 0.5, float("nan"), -1.0000001, 0.0]) * one
    counts = [torch.histc(h, 5), torch.histc(h, bins=7, min=-1.0, max=1.0),
              torch.histc(torch.cat([h.flatten(), edges]), 4, -1.0, 1.0),
              torch.histc(h * 0 + 2.0, 3),
              torch.histc(h.double() * 2.0, 6, min=-3.0, max=2.5).float(),
              torch.histc(h[0], 3, min=0.5, max=0.5),                 # min == max: data's
              # (x - min) / (max - min) * bins is 9.99999 (bin 9), (x - min) * bins / .. 10
              torch.histc(torch.tensor([0.7168835401535034]) + h[0, :1].detach() * 0, 18,
                          -0.8421103358268738, 1.9640786776542662)]
    return sum((c * torch.linspace(1.0, 2.0, c.numel())).sum() for c in counts) + h.pow(2).sum()


def _norms_at_zero(h):
    p = h[:, :3].reshape(2, 2, 3)
    d = torch.norm(p[:, :, None] - p[:, None], dim=-1)
    masked = d.masked_fill(torch.eye(2, dtype=torch.bool), 0.0)
    rows = h * (torch.arange(h.shape[0]) < 2).float()[:, None]
    constant = torch.cat([h, h[:, :1] * 0 + 1], -1)
    return (d.sum() + masked.sum() + F.normalize(rows, dim=-1).sin().sum()
            + torch.linalg.vector_norm(rows, 3, dim=1).sum() + rows.norm(0.5, dim=1).sum()
            + rows.norm(float("inf"), dim=1).sum() + constant.std(dim=0).sum()
            + torch.std_mean(constant, dim=0)[0].sum())


class _SortPrefix(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.linspace(0.5, 1.5, 3))

    def forward(self, xyz):
        b, n, _ = xyz.shape
        group_idx = torch.arange(n).view(1, 1, n).repeat([b, 8, 1])
        group_idx[torch.cdist(xyz[:, :8], xyz) ** 2 > 0.3] = n
        group_idx = group_idx.sort(dim=-1)[0][:, :, :5].clamp(max=n - 1)
        g = torch.gather(xyz.unsqueeze(1).expand(-1, 8, -1, -1), 2,
                         group_idx.unsqueeze(-1).expand(-1, -1, -1, 3))
        scores = (xyz * self.w).sum(-1)
        top = scores.round(decimals=1).sort(dim=1, descending=True)[0]    # ties
        at = scores.sort(dim=1, descending=True)[1]   # torch's order of ties is its own
        return ((g * self.w).max(2)[0].sum() + (top[:, :4] * torch.arange(4.0)).sum()
                + at[:, :3].float().sum())


def _sort_prefix():
    torch.manual_seed(0)
    return _SortPrefix(), (torch.rand(2, 40, 3, generator=_g(1)),)


class _Bincount(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 5)

    def forward(self, x, y, w):
        counts = torch.bincount(y, minlength=5).float()
        weight = counts.sum() / (5 * counts.clamp(min=1))
        per_class = y.bincount(weights=w, minlength=5)
        return (F.cross_entropy(self.fc(x), y, weight=weight)
                + (self.fc(x).sum(0) * per_class).mean())


def _bincount():
    torch.manual_seed(0)
    return _Bincount(), (torch.randn(8, 4, generator=_g(1)),
                         torch.tensor([0, 1, 1, 3, 3, 3, 0, 2]), torch.rand(8, generator=_g(2)))
