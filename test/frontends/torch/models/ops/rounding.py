"""Cases for tfc_torch/ops/rounding.py's lowerings: the piecewise-constant
floor, ceil, trunc and round (half to even) with their zero gradients, and
frac, and round to decimals (torch.special.round)."""
import torch

from .common import _case

CASES = {
    # Piecewise-constant rounding: values (ties to even, signed zeros) and
    # zero gradients; frac passes the gradient through.
    "rounding": _case(lambda h: ((torch.floor(h * 3) + torch.ceil(h * 3) + torch.trunc(h * 3)
                                  + torch.round(h * 3) + torch.frac(h * 3)) * h).sum()
                      + (torch.round(torch.arange(-10, 11) * 0.25 + h.sum() * 0)
                         * torch.arange(1, 22)).sum()
                      + (1.0 / (torch.ceil(h * 0 - 0.5) + torch.trunc(h * 0 - 0.5))).clamp(-1, 1).sum()
                      # beyond 2^23 every f32 is an integer: still a zero gradient
                      + (torch.floor(h * 1e8) * 1e-8).sum()),
    # round(x, decimals): ties at the scaled value (0.125 -> 0.12, 0.375 ->
    # 0.38, 25 -> 20 for decimals=-1), signed zeros (atan2 with -1 shows
    # them), f64 and bf16 (scaled in f32), overflow of x * 10^d to inf, and
    # zero gradients.
    "round-decimals": _case(lambda h: _round_decimals(h)),
}


def _round_decimals(h):
    ties = torch.arange(-12, 13) * 0.125 + h.sum() * 0
    tens = torch.arange(-12, 13) * 5.0 + h.sum() * 0
    parts = [torch.round(h * 3, decimals=1), torch.round(ties, decimals=2),
             torch.special.round(h * 7, decimals=2), torch.round(tens, decimals=-1),
             torch.round(h * 300, decimals=-2), torch.round(h.double() * 3, decimals=3).float(),
             torch.round((h * 3).bfloat16(), decimals=1).float(), torch.round(h, decimals=0),
             # 10^400 is inf (x * inf, then inf / inf: NaN), 10^-400 too
             torch.round(h, decimals=400).nan_to_num(7.0),
             torch.round(h, decimals=-400).nan_to_num(5.0),
             torch.atan2(torch.round(h * 1e-3, decimals=1), torch.tensor(-1.0)),
             torch.round(h * 1e35, decimals=5).clamp(-1, 1)]
    return sum(((p * h.sum()) * torch.linspace(0.5, 1.5, p.shape[-1])).sum() for p in parts)
