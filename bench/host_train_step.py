"""Benchmark: one gpt-mini training step (forward, backward, AdamW update) on
the host backend vs the same model and torch.optim.AdamW in PyTorch 1.13 with
OpenBLAS, on the same machine, in one run.

Prints median step times and their ratio (tfc / torch; target <= 1.5) and
writes a JSON record under bench/results/. Usage:
  /usr/bin/python3 bench/host_train_step.py --tfc-run build/bin/tfc-run [--repeat 20]
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "numerics"))

import torch  # noqa: E402

import gpt_mini_model  # noqa: E402
import safetensors_io  # noqa: E402


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfc-run", required=True)
    ap.add_argument("--model", default=os.path.join(HERE, "..", "examples", "models", "gpt-mini.mlir"))
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
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
        want = gpt_mini_model.loss(weights, tokens, targets)
        want.backward()
        opt.step()
        if i:
            times.append(time.perf_counter() - t0)
    torch_ms = statistics.median(times) * 1e3

    with tempfile.TemporaryDirectory(prefix="tfc-bench-") as d:
        feed, out = os.path.join(d, "in.safetensors"), os.path.join(d, "out.safetensors")
        timing = os.path.join(d, "timing.json")
        safetensors_io.save({**params, "tokens": tokens, "targets": targets,
                             "lr": torch.tensor(1e-4)}, feed)
        proc = subprocess.run([args.tfc_run, args.model, "--train-step",
                               "optimizer=adamw weight-decay=0.01", "--inputs", feed,
                               "--outputs", out, "--device", "host",
                               "--repeat", str(args.repeat), "--timing-json", timing,
                               "--quiet"], capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"tfc-run failed: {proc.stderr.strip()}", file=sys.stderr)
            return 1
        with open(timing) as f:
            tfc_ms = json.load(f)["median_ms"]
        got = safetensors_io.load(out)["loss"]

    ratio = tfc_ms / torch_ms
    record = {
        "benchmark": "gpt-mini training step (AdamW), host",
        "date": datetime.date.today().isoformat(),
        "machine": {"cpu": cpu_name(), "cores": os.cpu_count(), "os": platform.platform()},
        "torch": torch.__version__, "repeat": args.repeat,
        "torch_median_ms": round(torch_ms, 3), "tfc_median_ms": round(tfc_ms, 3),
        "ratio_tfc_over_torch": round(ratio, 3), "target_ratio": 1.5,
        "loss_tfc_after_warmup_and_repeats": got.item(),
    }
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"host-train-step-{record['date']}.json")
    with open(path, "w") as f:
        json.dump(record, f, indent=2)
    print(f"gpt-mini training step (AdamW) on host ({record['machine']['cpu']}, {os.cpu_count()} cores)")
    print(f"  torch {torch.__version__}: {torch_ms:8.2f} ms (median of {args.repeat})")
    print(f"  tfc host      : {tfc_ms:8.2f} ms (median of {args.repeat})")
    print(f"  ratio tfc/torch: {ratio:.2f} (target <= 1.5)  -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
