"""Cases for gradient control, which has no lowering file of its own (the
importer, tracing.py and no_grad_writes.py, with ops/elementwise.py's
detach): frozen parameters, detached and no_grad / inference_mode values as
constants (tfc.stop_gradient), and in-place writes under no_grad as
straight-through (tfc.straight_through)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import _case, _g

CASES = {
    # A frozen layer (requires_grad=False) is a constant: no gradient.
    "frozen-parameters": lambda: _frozen(),
    # Gradient control: detach and no_grad / inference_mode values are
    # constants to the gradient (tfc.stop_gradient); without it these
    # gradients differ from torch's by about their own size. Ops with
    # several results under no_grad (var_mean, topk: their outputs picked
    # by getitem nodes) used to fail the import with an IndexError.
    "detach-no-grad": _case(lambda h: _detached(h)),
    # An in-place op under no_grad on a tensor that requires grad keeps its
    # history: the new value, the gradient as through the identity
    # (tfc.straight_through). F.cosine_similarity clamps its squared norms
    # so in C++; the others write the whole tensor, a view of a 3-d
    # linear's output, and a column through a view of it.
    "no-grad-writes": lambda: _no_grad_writes(),
}


class _FrozenLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
        self.net[0].weight.requires_grad_(False)

    def forward(self, x):
        return self.net(x).pow(2).mean()


def _frozen():
    torch.manual_seed(0)
    return _FrozenLayer(), (torch.randn(4, 6, generator=_g(1)),)


class _NoGradWrites(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)

    def forward(self, x):
        h = self.fc(x)  # [2, 3, 8]: a view of the GEMM's [6, 8]
        g = h * 1.5
        with torch.no_grad():
            h.clamp_(-0.4, 0.6)
            h.mul_(2.0)
            g[:, 0].clamp_(max=0.1)
            peak = g.abs().amax()
        sim = F.cosine_similarity(h[..., :4], g[..., 4:], dim=-1)
        return (1.0 - sim).sum() + (h * h).sum() + (g.pow(2) * peak).sum()


def _no_grad_writes():
    torch.manual_seed(0)
    return _NoGradWrites(), (torch.randn(2, 3, 6, generator=_g(1)),)


def _detached(h):
    with torch.no_grad():
        scale = h.abs().mean(0)
        above = h > scale
        spread, centre = torch.var_mean(h, 0)
        top, where = h.topk(2, 1)
    with torch.inference_mode():
        shift = (h * 0.0 + 1.0).sum()
    target = (h * 0.5 + 1.0).detach()
    return (F.mse_loss(h, target) + (h * scale).sum() + (h * above).mean()
            + (h * h.detach()).sum() * 0.1 + shift * 0.01
            + ((h - centre) / (spread + 1).sqrt()).pow(2).sum() * 0.1
            + (h.gather(1, where) * top).sum() * 0.1)
