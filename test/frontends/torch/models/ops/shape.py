"""Cases for tfc_torch/ops/shape.py's lowerings: views, reshapes and
transposes, slicing, concatenation, padding and repetition, tril / triu, slice
assignment, gathers by index, flip / roll / diagonal, in-place writes through
diagonals and as_strided views, and Tensor.unfold's sliding windows."""
import torch
import torch.nn.functional as F

from .common import _case, _ramp_sum

CASES = {
    # Values computed from constants only, read as numbers while tracing:
    # Transformer-XL's `if attn_mask.any().item()` on a mask built from
    # shapes, Deformable DETR's spatial_shapes tensor as split sizes, a
    # sampler's torch.linspace(...).int().tolist(), DINO's multi-crop
    # groups (unique_consecutive counts, cumsum) as list bounds.
    "constant-values": lambda: _constant_values(),
    "shapes": _case(lambda h: (h.view(2, 2, 8).transpose(0, 2).reshape(8, 4).t()
                               .unsqueeze(0).squeeze(0).permute(1, 0).flatten() * torch.arange(32.0)
                               ).sum()),
    "slicing": _case(lambda h: (h[1:3, ::2].sum() + h[:, -1].sum() * 2 + h[2].sum()
                                + torch.cat([h[:, :3], h[:, 5:]], dim=1).pow(2).sum()
                                + torch.stack([h[0], h[1]], dim=1).exp().sum()
                                + sum(p.mean() for p in h.split(3, dim=1))
                                + sum(p.sum() for p in h.chunk(2, dim=0))
                                + sum(p.max() for p in h.unbind(0)) + h.narrow(1, 2, 3).sum())),
    # cat with operands of no elements: a decoder's output accumulator
    # started as torch.zeros(B, 0, C) and grown per step, the legacy 1-d
    # empty tensor, an empty slice of a traced value through an op
    # (GPT-NeoX's pass-through part x[..., rotary_ndims:] at rotary_pct=1),
    # assignments into empty slices (torchvision Swin's shift mask on a
    # non-square map: nothing written).
    "cat-empty": _case(lambda h: _cat_empty(h)),
    "pad-repeat": _case(lambda h: (F.pad(h, (1, 2, 0, 1), value=0.5).pow(2).sum()
                                   + F.pad(h, (-1, -2)).sum() + h.repeat(2, 3).sigmoid().sum()
                                   + h.expand(3, 4, 8).tanh().sum())),
    # torch.diag of a vector (offsets 0, 2, -1; integers) and of a matrix
    # (offsets 0, 3, -2, non-square); narrow_copy with a negative start.
    "diag-narrow-copy": _case(lambda h: _diag_narrow_copy(h)),
    "tril-triu": _case(lambda h: (h.view(4, 8)[:, :4].tril().pow(2).sum()
                                  + h[:, 4:].triu(1).exp().sum()), out=8),
    "slice-assign": _case(lambda h: _slice_assign(h)),
    # Strided slice assignment: an interleaved sinusoidal encoding of
    # times from the data (pe[..., 0::2] = sin, pe[..., 1::2] = cos),
    # K + I through K.view(-1, m * m)[:, ::m + 1] += 1 (torch's own
    # LowRankMultivariateNormal), a negative-free step with an end short of
    # the dim and a step past it.
    "strided-slice-assign": _case(lambda h: _strided_slice_assign(h)),
    # Gathers too large for a one-hot selection, by linear offsets: a knn
    # gather of point features expanded over the queries (read in the
    # unexpanded features), a gather along a middle dim of a plain tensor
    # and one along a broadcast dim (repeated ids: the gradient sums).
    "gather-large": lambda: _gather_large(),
    "gather-index": _case(lambda h, idx, rows: (h.gather(1, idx).pow(2).sum()
                                                + h.index_select(1, idx[0]).sum()
                                                + h[rows].exp().sum() + h[:, idx[1]].sum()
                                                + h[rows, 2:5].tanh().sum()
                                                + h[:, torch.tensor([-1, 0, -3])].sum()),
                          extra=(torch.tensor([[0, 3], [7, 1], [2, 2], [5, 6]]),
                                 torch.tensor([[3, 0], [1, 1], [2, 0]]))),
    # Data movement composed from slices and gathers (ops/shape.py).
    "flip-roll-diagonal": _case(lambda h: ((h.flip(0) * h).sum() + (h.flip(0, 1)[:, :3] ** 2).sum()
                                           + (torch.roll(h, 3, 1) * h).sum()
                                           + (torch.roll(h, (1, -2), (0, 1)) * h).sum()
                                           + (torch.roll(h, 5) * h).sum()
                                           + (torch.diagonal(h) ** 2).sum()
                                           + torch.diagonal(h, 2).sum() + torch.diagonal(h, -1).sum() * 3
                                           + torch.diagonal(h.view(2, 2, 8), 1, 1, 2).pow(2).sum())),
    # Sliding windows (Tensor.unfold: one strided slice per offset),
    # overlapping and not, as local attention takes its key windows.
    "unfold-windows": _case(lambda h: ((h.unfold(1, 3, 2).pow(2).sum(-1) * torch.arange(3.0)).sum()
                                       + h.unfold(0, 2, 1).sin().sum()
                                       + h.view(2, 2, 8).unfold(2, 4, 4).prod(-1).sum())),
    # Selections whose count is known at trace time (torch.combinations
    # selects its index grids with a constant triangular mask), and index
    # tables of pairs: combinations with and without replacement, of
    # traced values and of indices (x[i] * x[j] over pairs), triu / tril
    # indices, cartesian_prod, x[known mask].
    "combinations": _case(lambda h: _combinations(h)),
    # as_strided as a gather of storage positions: overlapping windows
    # (repeated elements sum their gradients), a storage offset, a zero
    # stride, a transposed view (positions in its base's storage), a slice
    # whose positions stay inside it, torch.as_strided, a 0-d result.
    "as-strided": _case(lambda h: _as_strided(h)),
    # In-place writes through diagonals (diagonal_scatter): Barlow Twins'
    # loss as published (torch.diagonal(c).add_(-1).pow_(2) and pow_ on
    # its off-diagonal view), a batched diagonal above the main one, one
    # below it over dims (0, 2), torch.diagonal_scatter over (2, 0) of a
    # non-square slice. Gradients reach the diagonal's source and the rest.
    "diagonal-writes": _case(lambda h: _diagonal_writes(h)),
    # fill_diagonal_ (as_strided_scatter): SimCLR's similarity matrix with
    # -inf on its diagonal into cross_entropy, a tall matrix with
    # wrap=True (the diagonal restarts below the square), a wide one, and
    # an in-place product through as_strided (every other element of two
    # rows). (torch 1.13's own torch.as_strided_scatter has a wrong
    # gradient for its input, so the case writes through the view.)
    "fill-diagonal": _case(lambda h, labels: _fill_diagonal(h, labels),
                           extra=(torch.tensor([2, 0, 3, 1]),)),
}


def _cat_empty(h):                                  # h: [4, 8]
    outs = torch.zeros(4, 0, 2)
    for t in range(3):
        outs = torch.cat([outs, h[:, None, 2 * t:2 * t + 2].sin()], 1)
    legacy = torch.cat([h.new_zeros(0), h[0], h.new_zeros(0)])
    rotated, passed = h[..., :8], h[..., 8:]
    neox = torch.cat([rotated.flip(-1) * 2.0, passed * 3.0], -1)
    mask = h.new_zeros((4, 8))
    count = 0
    for rows in ((0, -4), (-4, -0), (-0, None)):       # no shift along rows: two empty
        for cols in ((0, -4), (-4, -2), (-2, None)):
            mask[rows[0]:rows[1], cols[0]:cols[1]] = count
            count += 1
    return outs.pow(2).sum() + legacy.exp().sum() + (neox * h).sum() + (mask * h).sum()


def _as_strided(h):
    ramp = torch.linspace(0.5, 1.5, 3)
    windows = h.reshape(-1).as_strided((30, 3), (1, 1))        # sliding windows
    return ((windows.sin() * ramp).sum() + (h.as_strided((3, 3), (2, 1), 1) ** 2).sum()
            + (torch.as_strided(h, (2, 3, 2), (9, 1, 0), 4) * torch.arange(12.0).view(2, 3, 2)
               ).exp().sum()
            + (h.t().as_strided((4, 3), (1, 9), 2) * ramp).tanh().sum()
            + (h[:, 2:].as_strided((3, 4), (8, 1)) * torch.arange(4.0)).sum()
            + h.as_strided((), (), 13) * 3)


def _ordered(t):
    """t's rows weighted by position, its columns told apart (the order
    of the combinations matters)."""
    cols = [t[:, k] * (k + 1) + k for k in range(t.shape[1])]
    return (torch.stack(cols, 1).sin().prod(-1) * torch.arange(1.0, t.shape[0] + 1)).sum()


def _combinations(h):
    ramp = torch.linspace(0.5, 1.5, 8)
    pairs = torch.combinations(torch.arange(4), 2)                    # [6, 2]
    gram = (h[pairs[:, 0]] * h[pairs[:, 1]] * ramp).sum(-1)            # x[i] . x[j]
    upper = torch.triu_indices(4, 8, 1)
    lower = torch.tril_indices(4, 8, -2)
    return ((gram.sin() * torch.arange(6.0)).sum() + _ordered(torch.combinations(h[0], 2))
            + _ordered(torch.combinations(h[1, :5], 2, with_replacement=True))
            + _ordered(torch.combinations(h[2, :5], 3))
            + (h[upper[0], upper[1]] * torch.arange(22.0)).sum() + h[lower[0], lower[1]].exp().sum()
            + _ordered(torch.cartesian_prod(h[3, :3], h[0, 5:], h[1, :2]))
            + (h[torch.ones(4, 8).tril(-1).bool()] * torch.arange(6.0)).sum())


def _slice_assign(h):
    z = h.clone()
    z[:, 0] = 0.0
    z[1:3, 2:5] = h[1:3, 2:5] * 2
    z += 1
    return (z * h).sum()


def _strided_slice_assign(h):                      # h: [4, 8]
    t = h[:, :3].sigmoid() * 10                       # times [4, 3]
    div = torch.exp(torch.arange(0, 6, 2) * (-2.0))
    pe = torch.zeros(4, 3, 6)
    pe[..., 0::2] = torch.sin(t.unsqueeze(-1) * div)
    pe[..., 1::2] = torch.cos(t.unsqueeze(-1) * div)
    k = h.view(2, 4, 4) @ h.view(2, 4, 4).transpose(-1, -2)
    k.view(-1, 16)[:, ::5] += 1
    z = h.clone()
    z[1:, 1:7:3] = h[:3, :2].exp()
    z[::2, 5::4] *= -2.0
    return _ramp_sum([pe.flatten(1), k.flatten(1), z])


def _diag_narrow_copy(h):                            # h: [4, 8]
    w = torch.linspace(0.5, 1.5, 8)
    made = [torch.diag(h[0]), torch.diag(h[1, :5], 2), torch.diag(h[2, :3], -1),
            torch.diag(torch.arange(3) - 1 + (h[0, 0] * 0).long()).float()]
    taken = [torch.diag(h[:, :4]), torch.diag(h, 3), torch.diag(h.t(), -2),
             torch.narrow_copy(h.detach(), 1, -5, 3).flatten(),     # torch 1.13: no derivative
             torch.narrow_copy(h.detach(), 0, 1, 2).flatten()]
    return (sum((m.sin() * w[:m.shape[1]]).sum() for m in made)
            + sum((t.cos() * torch.linspace(1.0, 2.0, t.numel())).sum() for t in taken))


def _off_diagonal(c):                                # Barlow Twins' helper
    n = c.shape[0]
    return c.flatten()[:-1].view(n - 1, n + 1)[:, 1:].flatten()


def _diagonal_writes(h):                             # h: [4, 8]
    c = h[:, :4].t() @ h[:, 4:] / 4                  # the cross-correlation matrix
    on_diag = torch.diagonal(c).add_(-1).pow_(2).sum()
    off_diag = _off_diagonal(c).pow_(2).sum()
    x = h.view(2, 4, 4) * 1.5
    torch.diagonal(x, 1, 1, 2).mul_(h[:2, :3].exp())          # batched, above the diagonal
    y = h.view(4, 2, 4) - 0.5
    torch.diagonal(y, -1, 0, 2).sub_(h[1, 3:6].view(1, 3))   # [2, 3] below, dims (0, 2)
    z = torch.diagonal_scatter(h.view(2, 4, 4)[:, :3], h[1:, 6:].sin(), -1, 2, 0)  # [3, 2]
    return (on_diag + 0.005 * off_diag + _ramp_sum([x.flatten(1), y.flatten(1), z.flatten(1)]))


def _fill_diagonal(h, labels):                      # h: [4, 8]
    z = F.normalize(h, dim=1)
    sim = z @ z.t() / 0.5
    sim.fill_diagonal_(float("-inf"))
    tall = h.view(8, 4)[:7, :3].clone()
    tall.fill_diagonal_(2.0, wrap=True)               # rows 0-2 and 4-6
    wide = h[:3, :6] * 1.0
    wide.fill_diagonal_(-1.0)
    picked = h * 1.0
    picked.as_strided((2, 4), (8, 2), 1).mul_(h[:2, 4:].cos())   # every other element
    return (F.cross_entropy(sim, labels)
            + _ramp_sum([tall.t(), wide, picked]))


class _GatherLarge(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 8)
        self.w = torch.nn.Parameter(torch.randn(2, 700, 5))

    def forward(self, x):
        n = x.shape[1]
        idx = torch.cdist(x, x).topk(16, dim=-1, largest=False)[1]
        f = self.lin(x)
        g = torch.gather(f.unsqueeze(1).expand(-1, n, -1, -1), 2,
                         idx.unsqueeze(-1).expand(-1, -1, -1, 8))
        ids = (torch.arange(2 * 1300 * 5).reshape(2, 1300, 5) * 7919) % 700
        h = self.w.gather(1, ids)
        wide = self.w[:, :1].expand(2, 700, 5)
        k = wide.gather(1, ids[:, :, :1].expand(2, 1300, 5) % 3 * 0)
        return g.max(2)[0].sin().sum() + _ramp_sum([h]) + k.pow(2).sum()


def _gather_large():
    torch.manual_seed(0)
    return _GatherLarge(), (torch.rand(1, 300, 3),)


class _ConstantValues(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.nvec = torch.tensor([2, 2])    # a plain tensor attribute (cleanrl's nvec)

    def forward(self, x, small):
        mask = torch.triu(x.new_ones(4, 4), diagonal=1).bool()
        if mask.any().item():
            x = x.masked_fill(mask, 0.0)
        shapes = torch.as_tensor([(2, 2), (3, 4)], dtype=torch.long)
        parts = self.lin(x).reshape(-1).split([int(h * w) for h, w in shapes], 0)
        times = list(reversed(torch.linspace(-1, 3, steps=3).int().tolist()))
        halves = x[0].split(self.nvec.tolist())
        crops = [x, x * 2.0, small]
        ends = torch.cumsum(torch.unique_consecutive(
            torch.tensor([c.shape[-1] for c in crops]), return_counts=True)[1], 0)
        start, pooled = 0, []
        for end in ends:
            pooled.append(torch.cat(crops[start:end]).mean())
            start = end
        return (sum(p.sin().sum() for p in parts) + sum(times) * x.sum()
                + torch.stack(pooled).sum() + halves[1].exp().sum())


def _constant_values():
    torch.manual_seed(0)
    return _ConstantValues(), (torch.randn(4, 4), torch.randn(4, 2))
