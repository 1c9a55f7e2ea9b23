"""Cases for tfc_torch/ops/scatter.py's lowerings: scatter_add, scatter,
index_add, integer-indexed assignment (also put, index_copy) and index_fill
(one tfc.embedding_grad each), also as a mixture-of-experts layer's routing,
and scatter_reduce."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import _case, _g

CASES = {
    # Traced indices out of range are a run-time error on the host (torch
    # raises) for the lowerings that select by comparing ids with an iota:
    # gather, take_along_dim, F.one_hot, scatter_ of a value (a one-hot
    # target), scatter_add, scatter_reduce, and the index writes (x[:, i] =
    # v, index_put with accumulate, index_fill) and reads at two index
    # tensors (z[rows, y]: each checked against its dim, as their flat
    # index can land in range); in range, loss and gradients as torch's.
    "index-range": lambda: _index_range(),
    # Scatters and assignments into integer and boolean tensors (computed
    # in f64, exact): DETR's target_classes[idx] = labels, PyG's
    # to_dense_batch mask[idx] = True and degree counts by index_add, EViT's
    # complement_idx by scatter of a value, scatter_add of counts.
    "integer-scatters": lambda: _integer_scatters(),
    # A mixture-of-experts layer: a softmax router's top-2 (topk), one-hot
    # expert masks (F.one_hot, traced as a comparison), tokens gathered per
    # expert and their outputs summed back with index_add.
    "moe-routing": lambda: _moe_routing(),
    # Scatters (one tfc.embedding_grad each): scatter_add into a larger
    # tensor, scatter of values and of a scalar, index_add with a repeated
    # index and alpha, x[idx] = v and x[idx] += v; indices known and traced.
    "scatters": _case(lambda h, ids: _scatters(h, ids),
                      extra=(torch.tensor([[3, 0, 4, 4, 1, 0, 2, 2], [1, 1, 0, 3, 2, 4, 4, 0]]),)),
    # Assignment through indices naming one element twice: the last write
    # wins (torch's CPU loop), every write's values get the element's
    # gradient; known (-1 is row 3) and traced, one index and two; and
    # Tensor.scatter with traced repeated indices along dims 1 and 0.
    "assignment-duplicates": _case(lambda h, ids: _assignment_duplicates(h, ids),
                                   extra=(torch.tensor([2, 0, 2, -3, 1, 0]),)),
    # scatter_reduce in every reduction, with and without self: repeated
    # indices, elements no index names, an index smaller than self outside
    # the dim, traced indices, ties (amax / amin split their gradient, with
    # self when included), zeros in prod (one and two in a group).
    "scatter-reduce": _case(lambda h, ids: _scatter_reduce(h, ids),
                            extra=(torch.tensor([[3, 0, 4, 4, 1, 0, 2, 2], [1, 1, 0, 3, 2, 4, 4, 0]]),)),
    # put (known indices with a negative one, traced ones with duplicates
    # accumulated), index_copy along dims 1 and 0 (known and traced
    # indices), index_fill with a scalar and a traced 0-d value through a
    # repeated and a negative index (the value's gradient counts each
    # filled element once), of an integer tensor, and of a 1-d tensor.
    "fills-copies": _case(lambda h, ids: _fills_copies(h, ids),
                          extra=(torch.tensor([3, 0, 2, 2, 1, 7, 5, 0]),)),
}


class _MoE(nn.Module):
    def __init__(self, width=6, experts=4):
        super().__init__()
        self.router = nn.Linear(width, experts)
        self.experts = nn.ModuleList([nn.Linear(width, width) for _ in range(experts)])

    def forward(self, x):
        probs = self.router(x).softmax(-1)
        weights, chosen = probs.topk(2, dim=-1)
        weights = weights / weights.sum(-1, keepdim=True)
        masks = F.one_hot(chosen, len(self.experts)).sum(1)          # [tokens, experts]
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            gate = (weights * (chosen == e)).sum(-1, keepdim=True)
            out = out.index_add(0, torch.arange(x.shape[0]), expert(x) * gate)
        balance = (masks.float().mean(0) * probs.mean(0)).sum() * len(self.experts)
        return out.pow(2).mean() + 0.01 * balance


def _moe_routing():
    torch.manual_seed(0)
    return _MoE(), (torch.randn(10, 6, generator=_g(1)),)


def _scatters(h, ids):
    rows = torch.tensor([2, 0, 2, 1])
    added = torch.zeros(3, 6, 8).scatter_add(1, ids.view(2, 1, 8).expand(2, 2, 8) + 1,
                                             h.view(2, 2, 8))
    placed = torch.ones(4, 8).scatter(1, torch.tensor([[1, 0, 3, 2, 5, 4, 7, 6]] * 4), h)
    filled = h.scatter(1, ids[:, :4].remainder(8).repeat(2, 1)[:, :1], -0.5)
    summed = torch.zeros(3, 8).index_add(0, rows, h * h, alpha=0.5)
    assigned = torch.zeros(5, 8)
    assigned[torch.tensor([4, 0, -2])] = h[:3] * 2.0
    assigned[ids[0, :2]] += h[1:3]
    assigned[ids[1, 4:6] - 5] = h[2:4] * 0.5      # traced -3 and -1: rows 2 and 4
    return (added.pow(2).sum() + (placed * placed.flip(1)).sum() + filled.pow(3).sum()
            + (summed * torch.arange(24.0).view(3, 8)).sum() + assigned.sin().sum())


def _scatter_reduce(h, ids):
    ramp = torch.arange(1.0, 7.0)
    index = torch.tensor([[0, 0, 2, 5, 2, 0], [1, 1, 1, 1, 4, 4], [3, 0, 3, 0, 3, 3]])
    out = 0
    for i, reduce in enumerate(("sum", "prod", "mean", "amax", "amin")):
        for include_self in (True, False):
            base = h[:3, 2:8] * 0.5 + 0.25
            y = base.scatter_reduce(1, index, h[1:4, :6], reduce, include_self=include_self)
            out = out + (y * ramp).sin().sum() * (i + 1)
            # The index [2, 8] into rows of 3: row 2 untouched.
            z = torch.ones(3, 5).scatter_reduce(1, ids.remainder(5), h[:2], reduce,
                                                include_self=include_self)
            out = out + (z * torch.arange(15.0).view(3, 5)).cos().sum()
            # Along dim 0.
            w = h[:3, :4].scatter_reduce(0, torch.tensor([[2, 0, 0, 1], [2, 2, 0, 1]]), h[2:4, 4:],
                                         reduce, include_self=include_self)
            out = out + w.pow(2).sum()
    # Ties: rounded values (straight through), equal to self or each other.
    r = h + ((h * 2).round() / 2 - h).detach()
    for reduce in ("amax", "amin"):
        for include_self in (True, False):
            y = r[0].scatter_reduce(0, torch.tensor([0, 0, 1, 1, 2, 2, 0, 1]), r[1],
                                    reduce, include_self=include_self)
            out = out + (y * torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])).sum()
    # prod with zeros: one in a group, and two in another.
    zeros = h[3] * torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0])
    p = torch.ones(4).scatter_reduce(0, torch.tensor([0, 0, 1, 2, 2, 3, 3, 1]), zeros, "prod")
    return out + (p * torch.arange(1.0, 5.0)).sum()


def _assignment_duplicates(h, ids):
    rows = torch.zeros(4, 8)
    rows[torch.tensor([3, 0, -1])] = h[:3]
    traced = torch.ones(3, 8)
    traced[ids] = h[:, :1].repeat(2, 8)[:6] * torch.arange(1.0, 7.0).view(6, 1)
    pairs = torch.zeros(4, 8)
    pairs[torch.tensor([1, 2, 1, 1]), torch.tensor([5, 0, 5, -3])] = h[0, :4]
    pairs[ids[:4], ids[2:].remainder(8)] = h[1, 4:] * 2.0
    ramp = torch.arange(32.0).view(4, 8)
    scattered = torch.zeros(4, 3).scatter(1, ids.remainder(3).view(2, 3).repeat(2, 1),
                                          h[:, :3] * 3.0)
    down = torch.zeros(3, 8).scatter(0, ids[:4].remainder(3).view(4, 1).expand(4, 8), h)
    return ((rows * ramp).sin().sum() + (traced * ramp[:3]).cos().sum()
            + (pairs * ramp).pow(2).sum() + (scattered * ramp[:, :3]).sin().sum()
            + (down * ramp[:3]).cos().sum())


def _fills_copies(h, ids):                       # h: [4, 8], ids: [8] in 0..7
    put = h.put(torch.tensor([[0, 9], [-1, 17]]), h[1, :4].view(2, 2) * 2.0)
    summed = h.put(ids[:6] * 4, h[2, :6] * 3.0, accumulate=True)     # 0 twice, 8 twice
    placed = h.put(ids[4:7] + 20, h[3, :3])
    copied = h.index_copy(1, torch.tensor([6, 0, 3]), h[:, :3].flip(1) * 3.0)
    rows = h.index_copy(0, ids[5:7] - 4, h[:2] * 0.5)                   # traced rows 3, 1
    filled = h.index_fill(1, torch.tensor([1, -1, 1]), 1.5)
    held = h.index_fill(1, torch.tensor([2, 5, 2]), h[0, 0] * 2.0)
    traced = h.index_fill(0, ids[2:4] - 1, -0.5)                        # row 1 twice
    counts = torch.arange(32).view(4, 8).index_fill(1, ids[:2], -3).float()
    line = h[0].index_fill(0, ids[:1], h[1, 1])
    return sum((p.sin() * torch.linspace(0.5, 1.5, p.numel()).view(p.shape)).sum()
               for p in (put, summed, placed, copied, rows, filled, held, traced, counts, line))


class _IntegerScatters(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 5)

    def forward(self, x, rows, labels):
        logits = self.fc(x)                                         # [6, 5]
        target = torch.full((6,), 4, dtype=torch.int64)
        target[rows] = labels                                       # DETR: no-object = 4
        mask = torch.zeros(6, dtype=torch.bool)
        mask[rows] = True
        degree = torch.zeros(6, dtype=torch.int64).index_add(0, rows, torch.ones_like(rows))
        counts = torch.zeros(5, dtype=torch.int64).scatter_add(0, labels, torch.ones_like(labels))
        _, top = logits.topk(2, dim=1)
        rest = torch.scatter(torch.arange(5).expand(6, 5), 1, top, 0).sort(1)[0][:, 2:]
        return (F.cross_entropy(logits, target) + (logits * mask[:, None]).sum()
                + (degree.float() * logits[:, 0]).sum() + counts.float().sum()
                + logits.gather(1, rest).sum())


def _integer_scatters():
    torch.manual_seed(0)
    return _IntegerScatters(), (torch.randn(6, 4), torch.tensor([1, 3, 3, 5]),
                                torch.tensor([0, 2, 1, 2]))


_INDEX_FORMS = {
    "gather": lambda z, y: z.log_softmax(1).gather(1, y[:, None]).mean(),
    "take_along_dim": lambda z, y: torch.take_along_dim(z, y[:, None], 1).sum(),
    "one_hot": lambda z, y: (z * F.one_hot(y, 3)).sum(),
    "scatter_value": lambda z, y: (z * torch.zeros_like(z).scatter_(1, y[:, None], 1.0)).sum(),
    "scatter_add": lambda z, y: torch.zeros(6, 3).scatter_add(1, y[:, None], z[:, :1]).pow(2).sum(),
    "scatter_reduce": lambda z, y: torch.zeros(6, 3).scatter_reduce(
        1, y[:, None], z[:, 1:2], "amax", include_self=False).pow(2).sum(),
    "index_put": lambda z, y: _assigned(z, y[3:4]),
    "index_put_accumulate": lambda z, y: z.index_put((torch.arange(6), y), torch.ones(6),
                                                      accumulate=True).pow(2).sum(),
    "index_fill": lambda z, y: z.index_fill(1, y[3:4], 1.0).pow(2).sum(),
    "index_rows_cols": lambda z, y: z[torch.arange(6), y].exp().sum(),
}


def _assigned(z, ids):
    h = z.clone()
    h[:, ids] = 0.5
    return h.pow(2).sum()


class _Indexed(nn.Module):
    def __init__(self, forms):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.forms = forms

    def forward(self, x, y):
        z = self.fc(x)
        return sum(_INDEX_FORMS[f](z, y) for f in self.forms)


def _index_range():
    import tfc_torch
    torch.manual_seed(0)
    x = torch.randn(6, 4, generator=_g(1))
    y = torch.tensor([0, 2, 1, 1, 0, 2])
    for form in _INDEX_FORMS:
        bad = y.clone()
        bad[3] = 3
        step = tfc_torch.compile_train_step(_Indexed([form]), (x, y), device="host",
                                            optimizer="sgd", lr=0.0)
        try:
            loss = step(x, bad)
        except tfc_torch.NativeError as e:
            if "outside [0, 3)" not in str(e):
                raise AssertionError(f"{form}: index 3: {e}")
        else:
            raise AssertionError(f"{form}: index 3 gave the loss {loss}, no error")
    return _Indexed(list(_INDEX_FORMS)), (x, y)
