"""A convolutional net whose normalization weights have names a name rule
cannot tell from others (bn, gn, torchvision's downsample.1, a LayerNorm
called `final`), for tfc-train's initialization without --init.

usage: norm_init.py DIR   writes DIR/model.mlir (the loss, through tfc_torch)
                          and DIR/ex.safetensors (8 examples)
"""
import os
import sys

import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), *[".."] * 4)
sys.path.insert(0, os.path.join(ROOT, "frontends", "torch"))

import tfc_torch  # noqa: E402


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.downsample = nn.Sequential(nn.Conv2d(4, 4, 1), nn.BatchNorm2d(4))
        self.gn = nn.GroupNorm(2, 4)
        self.fc = nn.Linear(4 * 4 * 4, 5)
        self.final = nn.LayerNorm(5)

    def forward(self, x):
        h = torch.relu(self.bn(self.conv(x)))
        h = torch.relu(self.gn(self.downsample(h)))
        return self.final(self.fc(h.flatten(1)))


def loss_fn(out, x, labels):
    return torch.nn.functional.cross_entropy(out, labels)


if __name__ == "__main__":
    torch.manual_seed(0)
    directory = sys.argv[1]
    example = (torch.randn(8, 3, 4, 4), torch.randint(0, 5, (8,)))
    tfc_torch.export(Net().train(), example, os.path.join(directory, "model.mlir"),
                     inputs=os.path.join(directory, "ex.safetensors"), loss_fn=loss_fn)
