"""Exports a PyTorch MLP with dropout for tfc-train.

usage: dropout_model.py DIR  writes DIR/model.mlir (the loss, through
tfc_torch: its dropout keyed by the inputs dropout_seed and dropout_offset),
DIR/w.safetensors (the parameters) and DIR/ex.safetensors (one example of
batch 1, what every draw of tfc-train's data stream then is).
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                *[".."] * 4, "frontends", "torch"))
import tfc_torch  # noqa: E402

torch.manual_seed(3)
nn = torch.nn
model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Dropout(0.5), nn.Linear(64, 4))
d = sys.argv[1]
tfc_torch.export(model, (torch.randn(1, 16), torch.tensor([2])), os.path.join(d, "model.mlir"),
                 weights=os.path.join(d, "w.safetensors"),
                 inputs=os.path.join(d, "ex.safetensors"),
                 loss_fn=lambda out, x, y: nn.functional.cross_entropy(out, y))
