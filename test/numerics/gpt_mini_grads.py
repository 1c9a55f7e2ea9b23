"""gpt-mini's gradients computed by tfc (--tfc-autodiff through `tfc-run
--grad`) equal torch.autograd's for the same weights and batch.

Usage: gpt_mini_grads.py --tfc-run BIN --model gpt-mini.mlir
[--device host|cuda] [--seed N]. Exit 77 when the device is unavailable.
The loss must match as gpt_mini_loss.py checks it; every parameter's
gradient must match in f32 up to rtol 1e-4 relative to the gradient's
largest magnitude (a tied weight sums two paths, attention sums 64 keys:
the summation order differs from PyTorch's, so elementwise rtol alone is
too strict for tiny entries).
"""
import os
import subprocess
import sys
import tempfile

import torch

import gpt_mini_model
import run_numerics
import safetensors_io


def main():
    args, seed = run_numerics.start("gpt-mini grads")
    if args is None:
        return seed
    g = torch.Generator().manual_seed(seed)
    params = gpt_mini_model.init_parameters(g)
    tokens, targets = gpt_mini_model.random_batch(g)
    leaves = {k: v.clone().requires_grad_(True) for k, v in params.items()}
    want_loss = gpt_mini_model.loss(leaves, tokens, targets)
    want_grads = torch.autograd.grad(want_loss, list(leaves.values()))
    with tempfile.TemporaryDirectory(prefix="tfc-gpt-mini-grads-") as d:
        feed, out = os.path.join(d, "in.safetensors"), os.path.join(d, "out.safetensors")
        safetensors_io.save({**params, "tokens": tokens, "targets": targets}, feed)
        proc = subprocess.run([args.tfc_run, args.model, "--grad", "--inputs", feed,
                               "--outputs", out, "--device", args.device, "--quiet"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"tfc-run failed: {proc.stderr.strip()}")
            return 1
        got = safetensors_io.load(out)
    failures = 0
    loss = got["loss"]
    print(f"loss: tfc {loss.item():.7f}  torch {want_loss.item():.7f}")
    try:
        torch.testing.assert_close(loss, want_loss.detach(), rtol=1e-5, atol=1e-6)
    except AssertionError as e:
        print(f"FAIL loss: {e}")
        failures += 1
    # Gradients are named grad.<state dict key>.
    for name, want in zip(leaves, want_grads):
        have = got.get(f"grad.{name}")
        if have is None or tuple(have.shape) != tuple(want.shape):
            print(f"FAIL {name}: missing or misshapen output grad.{name}")
            failures += 1
            continue
        scale = want.abs().max().item()
        err = (have - want).abs().max().item()
        ok = err <= 1e-4 * scale + 1e-7
        print(f"{'ok  ' if ok else 'FAIL'} {name}: max |diff| {err:.3e}, max |grad| {scale:.3e}")
        failures += not ok
    print(f"{failures} failed" if failures else "gpt-mini gradients match torch.autograd")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
