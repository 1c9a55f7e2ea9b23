"""gpt-mini's loss computed by tfc-run equals PyTorch's for the same weights
and batch. Usage: gpt_mini_loss.py --tfc-run BIN --model gpt-mini.mlir
[--device host|cuda] [--seed N]. Exit 77 when the device is unavailable."""
import os
import subprocess
import sys
import tempfile

import run_numerics


def main():
    args, seed = run_numerics.start("gpt-mini loss")
    if args is None:
        return seed
    import torch
    import gpt_mini_model
    import safetensors_io
    g = torch.Generator().manual_seed(seed)
    params = gpt_mini_model.init_parameters(g)
    tokens, targets = gpt_mini_model.random_batch(g)
    with torch.no_grad():
        want = gpt_mini_model.loss(params, tokens, targets)
    with tempfile.TemporaryDirectory(prefix="tfc-gpt-mini-") as d:
        feed, out = os.path.join(d, "in.safetensors"), os.path.join(d, "out.safetensors")
        safetensors_io.save({**params, "tokens": tokens, "targets": targets}, feed)
        proc = subprocess.run([args.tfc_run, args.model, "--inputs", feed, "--outputs", out,
                               "--device", args.device], capture_output=True, text=True)
        print(proc.stdout.strip())
        if proc.returncode != 0:
            print(f"tfc-run failed: {proc.stderr.strip()}")
            return 1
        got = safetensors_io.load(out)["loss"]
    print(f"loss: tfc {got.item():.7f}  torch {want.item():.7f}")
    try:
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    except AssertionError as e:
        print(f"FAIL: {e}")
        return 1
    print("gpt-mini loss matches PyTorch")
    return 0


if __name__ == "__main__":
    sys.exit(main())
