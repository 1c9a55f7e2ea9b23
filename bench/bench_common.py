"""Shared pieces of the host benchmarks: machine facts, the tfc-run timing
call and the JSON record (with machine and date) under bench/results/."""
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "..", "examples", "models", "gpt-mini.mlir")
RESULTS = os.path.join(HERE, "results")
sys.path.insert(0, os.path.join(HERE, "..", "test", "numerics"))

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


def time_tfc(tfc_run, model, feed, repeat, extra_args=()):
    """Median ms of `repeat` runs of tfc-run's entry (after one warm-up) and
    the loss it wrote; raises RuntimeError with tfc-run's message on failure."""
    with tempfile.TemporaryDirectory(prefix="tfc-bench-") as d:
        inputs, out = os.path.join(d, "in.safetensors"), os.path.join(d, "out.safetensors")
        timing = os.path.join(d, "timing.json")
        safetensors_io.save(feed, inputs)
        proc = subprocess.run([tfc_run, model, *extra_args, "--inputs", inputs, "--outputs", out,
                               "--device", "host", "--repeat", str(repeat),
                               "--timing-json", timing, "--quiet"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"tfc-run failed: {proc.stderr.strip()}")
        with open(timing) as f:
            median_ms = json.load(f)["median_ms"]
        return median_ms, safetensors_io.load(out)["loss"].item()


def report(benchmark, slug, torch_version, repeat, torch_ms, tfc_ms, extra, out_dir,
           device="host", gpu=None):
    """Prints the comparison and writes bench/results/<slug>-<date>.json;
    `gpu` names the GPU when `device` is cuda."""
    ratio = tfc_ms / torch_ms
    machine = {"cpu": cpu_name(), "cores": os.cpu_count(), "os": platform.platform()}
    if gpu:
        machine["gpu"] = gpu
    record = {
        "benchmark": benchmark, "date": datetime.date.today().isoformat(),
        "device": device, "machine": machine,
        "torch": torch_version, "repeat": repeat,
        "torch_median_ms": round(torch_ms, 3), "tfc_median_ms": round(tfc_ms, 3),
        "ratio_tfc_over_torch": round(ratio, 3), "target_ratio": 1.5, **extra,
    }
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{slug}-{record['date']}.json")
    with open(path, "w") as f:
        json.dump(record, f, indent=2)
    print(f"{benchmark} ({gpu or record['machine']['cpu']}, {os.cpu_count()} cores)")
    print(f"  torch {torch_version}: {torch_ms:8.2f} ms (median of {repeat})")
    print(f"  tfc {device:<10}: {tfc_ms:8.2f} ms (median of {repeat})")
    print(f"  ratio tfc/torch: {ratio:.2f} (target <= 1.5)  -> {path}")
