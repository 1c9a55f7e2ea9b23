"""Benchmark: gpt-mini forward (loss) on the host backend vs the same model in
PyTorch 1.13 with OpenBLAS, on the same machine, in one run.

Prints median times and their ratio (tfc / torch; target <= 1.5) and writes a
JSON record under bench/results/. Usage:
  /usr/bin/python3 bench/host_forward.py --tfc-run build/bin/tfc-run [--repeat 20]
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
    times = []
    with torch.no_grad():
        gpt_mini_model.loss(params, tokens, targets)  # warm-up
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            want = gpt_mini_model.loss(params, tokens, targets)
            times.append(time.perf_counter() - t0)
    torch_ms = statistics.median(times) * 1e3
    try:
        tfc_ms, got = bench_common.time_tfc(
            args.tfc_run, args.model, {**params, "tokens": tokens, "targets": targets}, args.repeat)
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1
    bench_common.report("gpt-mini forward (loss), host", "host-forward", torch.__version__,
                        args.repeat, torch_ms, tfc_ms,
                        {"loss_tfc": got, "loss_torch": want.item()}, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
