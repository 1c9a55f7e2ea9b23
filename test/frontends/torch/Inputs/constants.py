"""A model whose constants are computed at trace time (folded by the
importer): a sinusoidal table expanded over the batch and made contiguous,
a bias-like row repeated along a middle dim, and a small table."""
import torch


class Constants(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(64, 64)

    def forward(self, x):                         # x: [32, 64]
        table = torch.arange(64.0).mul(0.1).sin().expand(32, 64).contiguous()
        rows = torch.arange(32.0)[:, None, None].repeat(1, 4, 16).reshape(32, 64)
        small = torch.tensor([1.0, -2.0, 0.5, 3.0]).repeat(16)
        return ((self.lin(x) + table) * rows + small).pow(2).mean()


def make():
    torch.manual_seed(0)
    return Constants(), (torch.randn(32, 64),)
