"""Helpers shared by the groups of cases: _g (a seeded generator), Lambda
(a linear layer whose output a function turns into the loss), _case (a
factory of a Lambda and its batch) and _ramp_sum (the weighted sum conv.py's
and resample.py's cases reduce their outputs to)."""
import torch
import torch.nn as nn


def _g(seed):
    return torch.Generator().manual_seed(seed)


class Lambda(nn.Module):
    """A linear layer whose output `fn(h, *batch)` turns into the loss."""

    def __init__(self, fn, width=6, out=8):
        super().__init__()
        self.fc = nn.Linear(width, out)
        self.fn = fn

    def forward(self, x, *rest):
        return self.fn(self.fc(x), *rest)


def _case(fn, rows=4, width=6, out=8, extra=()):
    def make():
        torch.manual_seed(0)
        x = torch.randn(rows, width, generator=_g(1))
        return Lambda(fn, width, out), (x, *extra)
    return make


def _ramp_sum(parts):
    """sum of sin(part) weighted along its last dim (every position's
    gradient differs)."""
    return sum((p.sin() * torch.linspace(0.5, 1.5, p.shape[-1])).sum() for p in parts)
