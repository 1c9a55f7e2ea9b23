"""Benchmark: one gpt-mini training step (forward, backward, AdamW update) on
the host backend vs the same model and torch.optim.AdamW in PyTorch 1.13 with
OpenBLAS, on the same machine, in one run.

Prints median step times and their ratio (tfc / torch; target <= 1.5) and
writes a JSON record under bench/results/. Usage:
  /usr/bin/python3 bench/host_train_step.py --tfc-run build/bin/tfc-run [--repeat 20]
"""
import argparse
import os
import statistics
import sys
import time

import bench_common
import torch

import gpt_mini_model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfc-run", required=True)
    ap.add_argument("--model", default=bench_common.MODEL)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--out", default=bench_common.RESULTS)
    args = ap.parse_args()

    g = torch.Generator().manual_seed(0)
    params = gpt_mini_model.init_parameters(g)
    tokens, targets = gpt_mini_model.random_batch(g)
    torch.set_num_threads(os.cpu_count())
    weights = {k: v.clone().requires_grad_(True) for k, v in params.items()}
    opt = torch.optim.AdamW(weights.values(), lr=1e-4, weight_decay=0.01)
    times = []
    for i in range(args.repeat + 1):  # the first step is a warm-up
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        gpt_mini_model.loss(weights, tokens, targets).backward()
        opt.step()
        if i:
            times.append(time.perf_counter() - t0)
    torch_ms = statistics.median(times) * 1e3
    feed = {**params, "tokens": tokens, "targets": targets, "lr": torch.tensor(1e-4)}
    try:
        tfc_ms, _ = bench_common.time_tfc(args.tfc_run, args.model, feed, args.repeat,
                                          ("--train-step", "optimizer=adamw weight-decay=0.01"))
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1
    bench_common.report("gpt-mini training step (AdamW), host", "host-train-step",
                        torch.__version__, args.repeat, torch_ms, tfc_ms, {}, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
