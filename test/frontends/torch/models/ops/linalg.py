"""Cases for tfc_torch/ops/linalg.py's lowerings: the matrix products (matmul
with broadcast batches and vectors, baddbmm, addbmm, einsum, dot, vdot,
outer, bilinear forms), dist and renorm, trace, rot90, block_diag and
cartesian_prod, pdist, cross products, cov and corrcoef; cdist is checked with the losses (loss.py)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import _case, _g, _ramp_sum

CASES = {
    "matmul-forms": lambda: _matmuls(),
    # torch.sparse.mm and torch.spmm with a sparse normalized adjacency
    # known at trace time (LightGCN: propagation layers averaged, a BPR
    # loss), kept as a sparse buffer and as a plain attribute; tfc emits it
    # dense.
    "sparse-mm": lambda: _light_gcn(),
    # nn.Bilinear (bias, no bias, 3-d inputs), F.bilinear, addbmm with
    # beta / alpha, vdot.
    "bilinear-forms": lambda: _bilinear_forms(),
    # dist of orders 2, 3, 1, 0.5, 0, inf (ties split the gradient) and -inf,
    # at zero distance (gradient 0, as torch's); renorm of orders 2, 1, 3
    # with a zero slice and slices under maxnorm.
    "dist-renorm": _case(lambda h: _dist_renorm(h), rows=5),
    # trace (non-square), rot90 (k = 1, 2, 3, -1, other dims), block_diag of
    # 0-d, 1-d and 2-d blocks, cartesian_prod.
    "matrix-shapes": _case(lambda h: _matrix_shapes(h), rows=5, out=7),
    # F.pdist of orders 2, 1, inf, 0.5, 3 (f64) with two equal rows (zero
    # distance: gradient 0); cross / linalg.cross along the last, a middle
    # and the first dim, broadcast operands; cov (correction 1 and 0,
    # fweights and aweights, 1-d input) and corrcoef, replaced while tracing.
    "distances-covariance": _case(lambda h: _distances_covariance(h), rows=5, out=6),
    # addmv and addr with beta / alpha, broadcast inputs, beta = 0 with a NaN
    # input (ignored, as torch's), integers.
    "addmv-addr": _case(lambda h: _addmv_addr(h), rows=5),
    # torch.cdist of more than 25 rows (its matrix-product form,
    # _euclidean_dist): 2-d, batched with a broadcast batch, f64, and
    # integer-valued rows equal in pairs (zero distance: gradient 0).
    "euclidean-dist": _case(lambda h: _euclidean_dist(h), rows=5),
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


class _BilinearForms(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 7)
        self.bilinear = nn.Bilinear(7, 5, 3)
        self.plain = nn.Bilinear(5, 5, 4, bias=False)
        self.w = nn.Parameter(torch.randn(2, 7, 7))

    def forward(self, x):                                   # [3, 4, 6]
        h = self.fc(x)                                      # [3, 4, 7]
        a = self.bilinear(h, h[..., 1:6].flip(1))           # [3, 4, 3]
        b = self.plain(h[0, :, :5], h[1, :, 2:])            # [4, 4]
        c = F.bilinear(h[2], h[1], self.w)                  # [4, 2]
        d = torch.addbmm(h[0, 0, :3], h, h.transpose(1, 2)[..., :3], beta=0.5, alpha=-1.5)
        e = torch.addbmm(self.w[0, :, :4], h.transpose(1, 2), h[:, :, :4])   # [7, 4]
        return _ramp_sum([a, b, c, d, e]) + torch.vdot(h[0, 0], h[1, 2])


def _bilinear_forms():
    torch.manual_seed(0)
    return _BilinearForms(), (torch.randn(3, 4, 6, generator=_g(1)),)


def _dist_renorm(h):
    ties = (h * 2).round() / 2 + (h - h.detach())           # h's gradient, tied values
    d = (torch.dist(h[0], h[1]) + torch.dist(h[0], h[1:3], 3) + torch.dist(h[2], h[3], 1)
         + torch.dist(h[1], h[2], 0.5) + torch.dist(h[0], h[4], 0).detach() * h[0, 0]
         + torch.dist(ties[0], ties[1] * 0, float("inf"))
         + torch.dist(ties[2], -ties[2].flip(0), float("-inf"))
         + torch.dist(h[3], h[3].detach()) + torch.dist(h[4], h[4].detach(), 3))
    zeroed = h * (torch.arange(5.) != 2)[:, None]           # row 2 is zero
    r = (torch.renorm(zeroed, 2, 0, 1.5) + torch.renorm(zeroed, 1, 0, 2.0).pow(2)
         + torch.renorm(zeroed * 0.5, 3, 0, 1.0).sin())
    return d + _ramp_sum([r, torch.renorm(h, 2, 1, 0.7)])


def _matrix_shapes(h):                                      # [5, 7]
    cube = h.view(5, 7, 1) * torch.linspace(-1, 1, 3)       # [5, 7, 3]
    # Not a tall matrix: torch 1.13's trace backward is wrong there (ops/linalg.py).
    return (torch.trace(h) + torch.trace(h[:, 2:]) * 0.5
            + _ramp_sum([torch.rot90(h), torch.rot90(h, 2), torch.rot90(h, 3, (1, 0)),
                         torch.rot90(cube, -1, (0, 2)), torch.rot90(h, 4),
                         torch.block_diag(h[0, 0], h[1, :3], h[2:4, :2], h[:1, 3:]),
                         torch.cartesian_prod(h[0, :2], h[1, :3], h[2, 1:3])]))


def _distances_covariance(h):                       # h: [5, 6]
    twins = torch.cat([h[:3], h[:2]])                # rows 3, 4 repeat rows 0, 1
    loss = _ramp_sum([F.pdist(twins), F.pdist(h, p=1), F.pdist(h, p=float("inf")),
                      F.pdist(h, p=0.5), F.pdist(h[:, :2].double(), p=3).float()])
    loss = loss + _ramp_sum([torch.cross(h[:, :3], h[:, 3:], dim=1).flatten(),
                             torch.linalg.cross(h[:4].view(4, 2, 3)[:, :1], h[1:].view(4, 2, 3)
                                                ).flatten(),
                             torch.cross(h.t()[:3], h.t()[3:], dim=0).flatten()])
    weights = torch.tensor([0.5, 1.5, 2.0, 0.25, 1.0, 3.0])
    counts = torch.tensor([1, 2, 0, 3, 1, 1])
    return loss + _ramp_sum([torch.cov(h).flatten(), torch.corrcoef(h * h.flip(0)).flatten(),
                             torch.cov(h, correction=0, fweights=counts, aweights=weights).flatten(),
                             torch.cov(h[0]).view(1), h.cov(correction=2, aweights=weights).flatten(),
                             h.t().corrcoef().flatten()])


def _euclidean_dist(h):                               # h: [5, 8]
    big = torch.cat([h, h * 0.5, h.flip(0), h - 1, h.sin(), h.cos()])        # [30, 8]
    ints = torch.arange(-45.0, 45.0).view(30, 3) % 7 - 3                      # rows repeat
    exact = ints + (big[:, :3] - big[:, :3].detach())                         # grad flows
    batched = torch.cdist(big.view(3, 10, 8).repeat(1, 3, 1), h[:2].unsqueeze(0))
    return _ramp_sum([torch.cdist(big, h), torch.cdist(h[:3], big), batched.flatten(1),
                      torch.cdist(exact, exact), torch.cdist(big.double(), big[:4].double() * 2
                                                            ).float()])


def _addmv_addr(h):                                   # h: [5, 8]
    nan = torch.full((5,), float("nan"))
    traced_zero = (h[0, 0] * 0).long()   # integer operands computed in the graph, not folded
    parts = [torch.addmv(h[:, 0], h, h[1], beta=0.5, alpha=-2.0), torch.addmv(h[0, :1], h, h[2]),
             torch.addmv(nan, h, h[3], beta=0), torch.addr(h[:3, :4], h[0, :3], h[1, 4:],
                                                           beta=2.0, alpha=0.5),
             torch.addr(h[0], h[:, 1], h[2]).flatten(), torch.addr(nan.view(5, 1), h[:, 2], h[3],
                                                                   beta=0).flatten(),
             torch.addr(torch.ones(2, 3, dtype=torch.long), torch.arange(2) + traced_zero,
                        torch.arange(3) - 1, beta=3, alpha=2).flatten().float()]
    return _ramp_sum([p.flatten() for p in parts])


class _LightGCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(6, 3)
        a = (torch.rand(6, 6, generator=_g(3)) < 0.5).float()
        a = a + a.t()
        d = a.sum(1).clamp(min=1).pow(-0.5)
        self.register_buffer("adj", (d[:, None] * a * d[None, :]).to_sparse())
        self.adj_attr = self.adj.clone()

    def forward(self, users, pos, neg):
        layers, h = [self.emb.weight], self.emb.weight
        h = torch.sparse.mm(self.adj, h)        # aten._sparse_addmm
        layers.append(h)
        h = torch.spmm(self.adj_attr, h)        # aten.mm of a sparse constant
        layers.append(h)
        out = torch.stack(layers, 1).mean(1)
        score = (out[users] * out[pos]).sum(-1) - (out[users] * out[neg]).sum(-1)
        return -F.logsigmoid(score).mean()


def _light_gcn():
    torch.manual_seed(0)
    return _LightGCN(), (torch.tensor([0, 1, 2]), torch.tensor([3, 4, 5]),
                         torch.tensor([5, 3, 4]))
