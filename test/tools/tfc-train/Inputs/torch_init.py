"""A PyTorch model trained by tfc-train from its own initialization (--init).

usage: torch_init.py export DIR   writes DIR/model.mlir (the loss, through
                                  tfc_torch), DIR/w.safetensors (parameters
                                  and buffers) and DIR/ex.safetensors (the one
                                  example tfc-train draws every step)
       torch_init.py check DIR RUN STEPS LR
                                  trains the same model STEPS steps of SGD
                                  (lr LR) in torch and compares the losses in
                                  RUN/metrics.jsonl and the parameters and
                                  buffers in RUN/checkpoint with torch's

The model's training forward updates buffers (BatchNorm2d running statistics
and num_batches_tracked, spectral norm's weight_u / weight_v), started away
from torch's defaults, so a run that ignored the file's state or
initialization shows. One example of batch 1 (the batch norm reduces over
the 4x4 positions): every draw of tfc-train's data stream is that example,
so torch's trajectory is known without tfc-train's random draws.
"""
import json
import os
import sys

import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), *[".."] * 4)
sys.path.insert(0, os.path.join(ROOT, "frontends", "torch"))

import tfc_torch  # noqa: E402
from tfc_torch import safetensors  # noqa: E402


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4, momentum=0.2)
        self.fc = nn.utils.spectral_norm(nn.Linear(4 * 4 * 4, 5))

    def forward(self, x):
        return self.fc(torch.relu(self.bn(self.conv(x))).flatten(1))


def loss_fn(out, x, labels):
    return torch.nn.functional.cross_entropy(out, labels)


def setup():
    torch.manual_seed(7)
    model = Net().train()
    with torch.no_grad():
        model.bn.running_mean.uniform_(-1, 1)
        model.bn.running_var.uniform_(0.5, 2)
        model.bn.weight.uniform_(0.5, 1.5)
    x = torch.randn(1, 3, 4, 4)
    labels = torch.tensor([3])
    return model, (x, labels)


def export(directory):
    model, example = setup()
    tfc_torch.export(model, example, os.path.join(directory, "model.mlir"),
                     weights=os.path.join(directory, "w.safetensors"),
                     inputs=os.path.join(directory, "ex.safetensors"), loss_fn=loss_fn)


def check(directory, run, steps, lr):
    model, (x, labels) = setup()
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn(model(x), x, labels)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    logged = [json.loads(line)["loss"] for line in open(os.path.join(run, "metrics.jsonl"))]
    problems = []
    if len(logged) != steps:
        problems.append(f"{len(logged)} logged steps, expected {steps}")
    for i, (a, b) in enumerate(zip(logged, losses)):
        if abs(a - b) > 1e-5 * max(1.0, abs(b)):
            problems.append(f"step {i + 1}: loss {a} vs torch {b}")
    saved = safetensors.load(os.path.join(run, "checkpoint", "tensors.safetensors"))
    expected = dict(model.named_parameters())
    expected.update(model.named_buffers())
    for name, want in expected.items():
        got = saved.get(name)
        if got is None:
            problems.append(f"checkpoint lacks {name}")
            continue
        want = want.detach().to(got.dtype)
        err = float((got - want).abs().max()) if want.numel() else 0.0
        if err > 1e-5 * max(1.0, float(want.abs().max())):
            problems.append(f"{name}: max difference {err:.2e} from torch's")
    for p in problems:
        print("FAIL", p)
    if problems:
        sys.exit(1)
    print(f"as torch: {steps} steps, {len(expected)} parameters and buffers")


if __name__ == "__main__":
    if sys.argv[1] == "export":
        export(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
