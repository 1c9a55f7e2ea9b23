"""Benchmark: what kernel fusion buys on the host backend, and tfc against
PyTorch 1.13 + OpenBLAS on a larger GPT, in one run on one machine.

For gpt-mini and for a larger GPT of examples/models/gen_gpt.py's family
(vocab 2048, context 256, width 512, 8 heads, 4 layers, batch 4), the AdamW
train step (weight decay 0.01) is compiled twice, with fusion (the default)
and with fusion=none, and each is run by `tfc-run --repeat` on the host
backend from the same parameters and batch: the median step time of each, the
speedup of fusion (issue 9's target for gpt-mini: >= 1.3x) and each variant's
launches and non-GEMM MiB moved (`tfc-opt --tfc-kernel-report`). Next to
them, the same step in eager PyTorch with torch.optim.AdamW on the same CPU
threads (median after warm-up). Writes bench/results/host-fusion-<date>.json.

usage: /usr/bin/python3 bench/host_fusion.py --bin build/bin [--steps 10]
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

import importlib.util

import bench_common
import torch

import gpt_mini_model

HERE = os.path.dirname(os.path.abspath(__file__))
# bench/train_step.py by path: bench_common puts test/numerics, which has a
# train_step.py of its own, first on sys.path.
_spec = importlib.util.spec_from_file_location("bench_train_step",
                                               os.path.join(HERE, "train_step.py"))
train_step = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(train_step)
GEN_GPT = os.path.join(HERE, "..", "examples", "models", "gen_gpt.py")
OPTIMIZER = train_step.TRAIN_OPTIONS
MODELS = {
    "gpt-mini": gpt_mini_model.GPT_MINI,
    "gpt-4x512": gpt_mini_model.Config(vocab=2048, context=256, width=512, heads=8, layers=4,
                                       batch=4),
}
TOTALS = re.compile(r"totals @train_step: (\d+) launches of (\d+) kernels.*?(\d+) GEMMs, "
                    r"(\d+) copies; moved ([0-9.]+) MiB non-GEMM")


def write_model(cfg, path):
    proc = subprocess.run([sys.executable, GEN_GPT, "--vocab", str(cfg.vocab), "--context",
                           str(cfg.context), "--width", str(cfg.width), "--heads", str(cfg.heads),
                           "--layers", str(cfg.layers), "--batch", str(cfg.batch), "-o", path],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"gen_gpt.py failed: {proc.stderr.strip()}")


def kernel_report(bindir, model, fusion):
    """(launches, kernels, GEMMs, copies, MiB) of the train step."""
    lowered = subprocess.run([os.path.join(bindir, "tfc-opt"), model,
                              f"--tfc-train-pipeline={OPTIMIZER} fusion={fusion}"],
                             capture_output=True, text=True)
    if lowered.returncode != 0:
        raise RuntimeError(f"tfc-opt failed: {lowered.stderr.strip()[-2000:]}")
    report = subprocess.run([os.path.join(bindir, "tfc-opt"), "--tfc-kernel-report"],
                            input=lowered.stdout, capture_output=True, text=True)
    m = TOTALS.search(report.stderr + report.stdout)
    if not m:
        raise RuntimeError(f"no totals in the kernel report:\n{report.stderr[-2000:]}")
    launches, kernels, gemms, copies, mib = m.groups()
    return {"launches": int(launches), "kernels": int(kernels), "gemms": int(gemms),
            "copies": int(copies), "non_gemm_mib": float(mib)}


def tfc_step_ms(bindir, model, cfg, fusion, steps):
    """Median ms of the train step run by tfc-run --repeat."""
    g = torch.Generator().manual_seed(0)
    params = gpt_mini_model.init_parameters(g, cfg)
    tokens, targets = gpt_mini_model.random_batch(g, cfg)
    feed = {**params, "tokens": tokens, "targets": targets,
            "lr": torch.tensor(1e-4, dtype=torch.float32)}
    with tempfile.TemporaryDirectory(prefix="tfc-bench-fusion-") as d:
        inputs, timing = os.path.join(d, "in.safetensors"), os.path.join(d, "timing.json")
        bench_common.safetensors_io.save(feed, inputs)
        proc = subprocess.run([os.path.join(bindir, "tfc-run"), model, "--train-step", OPTIMIZER,
                               "--fusion", fusion, "--inputs", inputs, "--device", "host",
                               "--repeat", str(steps), "--timing-json", timing, "--quiet"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"tfc-run failed: {proc.stderr.strip()[-2000:]}")
        with open(timing) as f:
            return json.load(f)["median_ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="directory of tfc-opt and tfc-run")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--models", default=",".join(MODELS),
                    help=f"comma-separated subset of {', '.join(MODELS)}")
    ap.add_argument("--out", default=bench_common.RESULTS)
    args = ap.parse_args()
    if args.steps < 2:
        ap.error("--steps must be at least 2")
    names = args.models.split(",")
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        ap.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(MODELS)}")
    torch.set_num_threads(os.cpu_count())
    results = {}
    with tempfile.TemporaryDirectory(prefix="tfc-bench-models-") as d:
        for name in names:
            cfg = MODELS[name]
            model = os.path.join(d, f"{name}.mlir")
            try:
                write_model(cfg, model)
                row = {"config": cfg._asdict()}
                for fusion in ("all", "none"):
                    print(f"{name}: tfc fusion={fusion} ...", flush=True)
                    row[f"tfc_{fusion}"] = {"step_median_ms": round(
                        tfc_step_ms(args.bin, model, cfg, fusion, args.steps), 3),
                        **kernel_report(args.bin, model, fusion)}
            except RuntimeError as e:
                print(e, file=sys.stderr)
                return 1
            print(f"{name}: torch eager AdamW ...", flush=True)
            row["torch_eager_ms"] = round(train_step.torch_step_ms("cpu", args.steps, cfg=cfg), 3)
            row["fusion_speedup"] = round(row["tfc_none"]["step_median_ms"]
                                          / row["tfc_all"]["step_median_ms"], 3)
            row["ratio_tfc_over_torch"] = round(row["tfc_all"]["step_median_ms"]
                                                / row["torch_eager_ms"], 3)
            results[name] = row
    record = {"benchmark": "host: AdamW train step with and without fusion, and PyTorch eager",
              "date": datetime.date.today().isoformat(),
              "machine": {"cpu": bench_common.cpu_name(), "cores": os.cpu_count()},
              "torch": torch.__version__, "steps": args.steps,
              "target_fusion_speedup_gpt_mini": 1.3, "models": results}
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"host-fusion-{record['date']}.json")
    with open(path, "w") as f:
        json.dump(record, f, indent=2)
    print(f"host train step, {record['machine']['cpu']}, {os.cpu_count()} cores, "
          f"median of {args.steps}:")
    for name, r in results.items():
        a, n = r["tfc_all"], r["tfc_none"]
        print(f"  {name}: tfc fused {a['step_median_ms']:.1f} ms ({a['launches']} launches, "
              f"{a['non_gemm_mib']:.1f} MiB), fusion=none {n['step_median_ms']:.1f} ms "
              f"({n['launches']} launches, {n['non_gemm_mib']:.1f} MiB): {r['fusion_speedup']:.2f}x; "
              f"torch eager {r['torch_eager_ms']:.1f} ms (tfc/torch {r['ratio_tfc_over_torch']:.2f})")
    print(f"  -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
