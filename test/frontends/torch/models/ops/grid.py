"""Cases for tfc_torch/ops/grid.py's lowerings: F.affine_grid (2-d and 3-d,
align_corners both ways, a size-1 dim) and F.grid_sample (bilinear,
nearest and bicubic, padding modes zeros / border / reflection,
align_corners both ways, 2-d and 3-d), with gradients to the input and the
grid."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import _g, _ramp_sum

CASES = {
    # Affine grids from a learned theta: 2-d [N, H, W, 2] and 3-d [N, D, H,
    # W, 3], align_corners both ways, sizes 1 (torch's base line is 0).
    "affine-grid": lambda: _affine_grid(),
    # grid_sample of a learned input at learned positions reaching outside
    # [-1, 1] and at fixed ones on pixel centers, the border, nearest's
    # half-way ties: bilinear, nearest and bicubic (taps past the border,
    # each clipped or reflected) with every padding mode, align_corners both
    # ways; 3-d bilinear and nearest (also at half-way ties: torch 1.13
    # rounds them away from zero there).
    "grid-sample": lambda: _grid_sample(),
}


class _AffineGrid(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 6)
        self.fc3 = nn.Linear(5, 12)

    def forward(self, x):                                   # [2, 5]
        theta = self.fc(x).view(2, 2, 3)
        theta3 = self.fc3(x).view(2, 3, 4)
        return _ramp_sum([F.affine_grid(theta, (2, 1, 4, 5), align_corners=False),
                          F.affine_grid(theta, (2, 3, 3, 1), align_corners=True),
                          F.affine_grid(theta, (2, 1, 1, 6), align_corners=False),
                          F.affine_grid(theta3, (2, 1, 3, 2, 4), align_corners=False),
                          F.affine_grid(theta3, (2, 1, 2, 3, 3), align_corners=True)])


def _affine_grid():
    torch.manual_seed(0)
    return _AffineGrid(), (torch.randn(2, 5, generator=_g(1)),)


class _GridSample(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 1)
        self.where = nn.Linear(4, 2)
        self.conv3 = nn.Conv3d(2, 2, 1)

    def forward(self, x, at):                               # [2, 2, 4, 5], [2, 3, 4]
        image = self.conv(x)                                # [2, 3, 4, 5]
        learned = torch.tanh(self.where(at)) * 1.4          # [2, 3, 2], some outside [-1, 1]
        # Pixel centers and corners, the border, half-way points (nearest's
        # ties) and far outside, for H = 4, W = 5 either way of align_corners.
        fixed = torch.tensor([[-1.0, -1.0], [1.0, 1.0], [-0.75, 0.5], [0.2, -0.25],
                              [0.0, 0.0], [1.1, -1.3], [-3.0, 2.5], [0.6, 0.75]])
        grid = torch.cat([learned, fixed.expand(2, 8, 2)], 1).view(2, 1, 11, 2)
        parts = []
        for mode in ("bilinear", "nearest", "bicubic"):
            for padding in ("zeros", "border", "reflection"):
                for corners in (False, True):
                    parts.append(F.grid_sample(image, grid, mode, padding, corners))
        volume = self.conv3(x.view(2, 2, 2, 2, 5))          # [2, 2, 2, 2, 5]
        grid3 = torch.cat([learned, learned[..., :1] * 0.5], -1).view(2, 1, 3, 1, 3)
        parts.append(F.grid_sample(volume, grid3, "bilinear", "zeros", False))
        parts.append(F.grid_sample(volume, grid3, "bilinear", "reflection", True))
        parts.append(F.grid_sample(volume, grid3, "nearest", "border", False))
        # 3-d nearest at half-way points of every dim, either way of
        # align_corners (torch 1.13's 3-d kernel rounds them away from
        # zero, its 2-d one to even): rows 1, 2, 3 and 4 of 5 (x), -1 and 1
        # of 2 (y, z), some outside.
        ties = torch.tensor([[-0.75, 0.0, 0.0], [0.25, -1.0, 1.0], [0.75, 1.0, -1.0],
                             [-0.25, 0.0, 0.5]]).expand(2, 4, 3).reshape(2, 1, 2, 2, 3)
        for padding in ("zeros", "border"):
            for corners in (False, True):
                parts.append(F.grid_sample(volume, ties, "nearest", padding, corners))
        return _ramp_sum(parts)


def _grid_sample():
    torch.manual_seed(0)
    return _GridSample(), (torch.randn(2, 2, 4, 5, generator=_g(1)),
                           torch.randn(2, 3, 4, generator=_g(2)))
