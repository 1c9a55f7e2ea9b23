"""Cases for tfc_torch/ops/scatter.py's lowerings (one tfc.embedding_grad
each): scatter_add, scatter, index_add and integer-indexed assignment, also as
a mixture-of-experts layer's routing."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import _case, _g

CASES = {
    # A mixture-of-experts layer: a softmax router's top-2 (topk), one-hot
    # expert masks (F.one_hot, traced as a comparison), tokens gathered per
    # expert and their outputs summed back with index_add.
    "moe-routing": lambda: _moe_routing(),
    # Scatters (one tfc.embedding_grad each): scatter_add into a larger
    # tensor, scatter of values and of a scalar, index_add with a repeated
    # index and alpha, x[idx] = v and x[idx] += v; indices known and traced.
    "scatters": _case(lambda h, ids: _scatters(h, ids),
                      extra=(torch.tensor([[3, 0, 4, 4, 1, 0, 2, 2], [1, 1, 0, 3, 2, 4, 4, 0]]),)),
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
