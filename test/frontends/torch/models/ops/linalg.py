"""Cases for tfc_torch/ops/linalg.py's lowerings: the matrix products (matmul
with broadcast batches and vectors, baddbmm, einsum, dot, outer); cdist is
checked with the losses (loss.py)."""
import torch
import torch.nn as nn

from .common import _g

CASES = {
    "matmul-forms": lambda: _matmuls(),
}


class _Matmuls(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Parameter(torch.randn(2, 3, 4))
        self.b = nn.Parameter(torch.randn(4, 5))
        self.v = nn.Parameter(torch.randn(4))
        self.c = nn.Parameter(torch.randn(2, 3, 5))

    def forward(self, x):
        y = self.a @ self.b                               # broadcast batch matmul
        z = torch.baddbmm(self.c, self.a, self.b.expand(2, 4, 5), beta=0.5, alpha=2.0)
        w = torch.einsum("bij,jk->bik", self.a, self.b)
        u = self.a @ self.v                               # matrix @ vector
        d = torch.dot(self.v, self.v)
        o = torch.outer(self.v, self.v)
        return (y * z).sum() + w.sum() + u.sum() + d + o.sum() + (x @ self.b).sum()


def _matmuls():
    torch.manual_seed(0)
    return _Matmuls(), (torch.randn(3, 4, generator=_g(1)),)
