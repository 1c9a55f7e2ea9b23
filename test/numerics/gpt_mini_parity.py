"""Parity: gpt-mini trained 100 steps with AdamW by tfc (host, f32) and by
the same model in plain PyTorch 1.13 (gpt_mini_model.py, torch.optim.AdamW)
from the same initial weights (read from safetensors) and the same batches, with
the default parameter groups (no weight decay for biases and norm weights):
per-step losses must agree to 1e-4 relative.

Batches are windows of the bundled text (examples/data/tiny-prose.txt, byte
tokens) drawn from a seeded generator, a new batch every step, so the loss
falls. tfc runs one `tfc-run --train-step` per step, carrying parameters and
optimizer state with --state-out / --inputs.

Usage: gpt_mini_parity.py --tfc-run BIN --model gpt-mini.mlir --data FILE
       [--steps 100] [--device host|cuda] [--seed N]
Exit codes: 0 pass, 1 mismatch or failure, 77 skipped (device unavailable).
"""
import json
import os
import subprocess
import sys
import tempfile

import run_numerics

LR, WEIGHT_DECAY = 1e-3, 0.01


def main():
    args, seed = run_numerics.start("gpt-mini parity", [("--data", {"required": True}), ("--steps", {"type": int, "default": 100})])
    if args is None:
        return seed
    import torch
    import gpt_mini_model as m
    import safetensors_io
    g = torch.Generator().manual_seed(seed)
    params = m.init_parameters(g)
    with open(args.data, "rb") as f:
        text = torch.tensor(list(f.read()), dtype=torch.int64)

    def batch():
        starts = torch.randint(0, len(text) - m.CONTEXT - 1, (m.BATCH,), generator=g)
        windows = torch.stack([text[s:s + m.CONTEXT + 1] for s in starts.tolist()])
        return windows[:, :-1].contiguous(), windows[:, 1:].contiguous()

    weights = {n: torch.nn.Parameter(t.clone()) for n, t in params.items()}
    # tfc's default parameter groups: no decay for biases and norm weights.
    opt = torch.optim.AdamW(
        [{"params": [p for p in weights.values() if p.dim() >= 2]},
         {"params": [p for p in weights.values() if p.dim() < 2], "weight_decay": 0.0}],
        lr=LR, weight_decay=WEIGHT_DECAY)
    lr = torch.tensor(LR, dtype=torch.float32)
    options = f"optimizer=adamw weight-decay={WEIGHT_DECAY}"
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="tfc-parity-") as d:
        feed_path, state_path = os.path.join(d, "in.safetensors"), os.path.join(d, "state.safetensors")
        trace = os.path.join(d, "trace.jsonl")
        carried = dict(params)  # the initial weights, from safetensors like every later step
        for step in range(1, args.steps + 1):
            tokens, targets = batch()
            opt.zero_grad(set_to_none=True)
            loss = m.loss(weights, tokens, targets)
            loss.backward()
            opt.step()
            want = loss.item()

            safetensors_io.save({**carried, "tokens": tokens, "targets": targets, "lr": lr}, feed_path)
            proc = subprocess.run([args.tfc_run, args.model, "--train-step", options,
                                   "--inputs", feed_path, "--steps", "1", "--trace", trace,
                                   "--state-out", state_path, "--device", args.device, "--quiet"],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                print(f"FAIL step {step}: tfc-run failed: {proc.stderr.strip()[-2000:]}")
                return 1
            with open(trace) as f:
                got = json.loads(f.readline())["loss"]
            carried = safetensors_io.load(state_path)
            rel = abs(got - want) / abs(want)
            worst = max(worst, rel)
            if step == 1 or step % 10 == 0:
                print(f"step {step:3}: tfc {got:.6f}  torch {want:.6f}  rel {rel:.1e}")
            if not rel <= 1e-4:
                print(f"FAIL step {step}: loss {got} vs torch {want} (rel {rel:.2e} > 1e-4)")
                return 1
    print(f"{args.steps} steps: per-step losses agree, worst relative difference {worst:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
