"""Benchmark: one gpt-mini training step (forward, backward, AdamW update) by
tfc and by the same model with torch.optim.AdamW in PyTorch, on the same
device (host: PyTorch 1.13 + OpenBLAS on the CPU; cuda: the GPU), in one run.

tfc side: `tfc-train` on synthetic data for --steps steps, as a user runs it
(per step: a fresh batch, the train step, the loss read back); the step time
is the median over the steps after the first (which includes warm-up), and
the memory anatomy comes from the run's memory.json. torch side: the median
of --steps steps after one warm-up (torch.cuda.synchronize around each on a
GPU). Prints step times, tokens/s, their ratio (tfc / torch; target <= 1.5)
and the memory anatomy, and writes bench/results/train-step-<device>-<date>.json.

Usage: /usr/bin/python3 bench/train_step.py --tfc-train build/bin/tfc-train
           [--device host|cuda] [--steps 30]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import bench_common
import torch

import gpt_mini_model

TOKENS_PER_STEP = gpt_mini_model.BATCH * gpt_mini_model.CONTEXT


def torch_step_ms(device, steps):
    g = torch.Generator().manual_seed(0)
    params = gpt_mini_model.init_parameters(g)
    tokens, targets = gpt_mini_model.random_batch(g)
    tokens, targets = tokens.to(device), targets.to(device)
    weights = {k: v.to(device).requires_grad_(True) for k, v in params.items()}
    opt = torch.optim.AdamW(weights.values(), lr=1e-4, weight_decay=0.01)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    times = []
    for i in range(steps + 1):  # the first step is a warm-up
        sync()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        gpt_mini_model.loss(weights, tokens, targets).backward()
        opt.step()
        sync()
        if i:
            times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def tfc_run(tfc_train, model, device, steps):
    """(median step ms, memory anatomy) of a tfc-train run."""
    with tempfile.TemporaryDirectory(prefix="tfc-bench-train-") as out:
        proc = subprocess.run([tfc_train, model, "--data", "synthetic:copy", "--steps", str(steps),
                               "--optimizer", "adamw", "--lr", "1e-4", "--device", device,
                               "--out", out, "--log-every", str(steps)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"tfc-train failed: {proc.stderr.strip()[-2000:]}")
        with open(os.path.join(out, "metrics.jsonl")) as f:
            records = [json.loads(line) for line in f]
        with open(os.path.join(out, "memory.json")) as f:
            memory = json.load(f)
    step_ms = [TOKENS_PER_STEP / r["tokens_per_s"] * 1e3 for r in records[1:]]
    return statistics.median(step_ms), memory


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfc-train", required=True)
    ap.add_argument("--model", default=bench_common.MODEL)
    ap.add_argument("--device", choices=["host", "cuda"], default="host")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--out", default=bench_common.RESULTS)
    args = ap.parse_args()
    if args.steps < 2:
        ap.error("--steps must be at least 2")
    gpu = None
    if args.device == "cuda":
        if not torch.cuda.is_available():
            print("no CUDA device for PyTorch: nothing to compare on a GPU", file=sys.stderr)
            return 1
        gpu = torch.cuda.get_device_name()
    else:
        torch.set_num_threads(os.cpu_count())
    torch_ms = torch_step_ms("cuda" if gpu else "cpu", args.steps)
    try:
        tfc_ms, memory = tfc_run(args.tfc_train, args.model, args.device, args.steps)
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1
    extra = {"tokens_per_step": TOKENS_PER_STEP,
             "tfc_tokens_per_s": round(TOKENS_PER_STEP / tfc_ms * 1e3),
             "torch_tokens_per_s": round(TOKENS_PER_STEP / torch_ms * 1e3),
             "tfc_memory": memory}
    bench_common.report(f"gpt-mini training step (AdamW), {args.device}",
                        f"train-step-{args.device}", torch.__version__, args.steps,
                        torch_ms, tfc_ms, extra, args.out, device=args.device, gpu=gpu)
    print(f"  tokens/s: tfc {extra['tfc_tokens_per_s']}, torch {extra['torch_tokens_per_s']}")
    parts = ", ".join(f"{k} {v / 2**20:.2f} MiB" for k, v in memory["bytes"].items())
    print(f"  tfc memory: {parts}; {memory['bytes_per_param']:.2f} bytes/param "
          "(weights + gradients + optimizer state)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
