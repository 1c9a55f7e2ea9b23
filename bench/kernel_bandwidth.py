"""Benchmark: each kernel's achieved bandwidth against a device-to-device
copy, on the GPU (or any backend given with --device), for a model's forward
pass or (--train-step OPTIONS) a whole training step (--model, default
gpt-mini).

Runs `tfc-run --profile` (each step timed alone, median of --repeat runs),
prints the kernels grouped by kind and the cold and warm kernel-compile
times, and writes a JSON record with the device name and date under
bench/results/ (kernel-bandwidth[-<model>][-train-step]-<device>-<date>.json,
the model named unless it is gpt-mini). Usage:
  /usr/bin/python3 bench/kernel_bandwidth.py --tfc-run build/bin/tfc-run [--device cuda]
      [--train-step "optimizer=adamw"] [--label NAME]
An A/B of a schedule choice runs it twice, e.g. with --train-step
"optimizer=adamw row-unroll=1" --label row-unroll-1 against the default.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfc-run", required=True)
    ap.add_argument("--model", default=os.path.join(HERE, "..", "examples", "models", "gpt-mini.mlir"))
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--train-step", help="profile the training step of these options")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--label", default="",
                    help="appended to the record's file name (an A/B variant, e.g. row-unroll-1)")
    args = ap.parse_args()

    probe = subprocess.run([args.tfc_run, "--probe-device", args.device], capture_output=True, text=True)
    if probe.returncode != 0:
        print(f"skipped: device '{args.device}' unavailable: {probe.stderr.strip()}")
        return 0
    device = probe.stdout.strip()
    with tempfile.TemporaryDirectory(prefix="tfc-bw-") as d:
        table = os.path.join(d, "profile.json")
        step = ["--train-step", args.train_step] if args.train_step else []
        proc = subprocess.run([args.tfc_run, args.model, *step, "--seed", "0", "--int-range", "64",
                               "--device", args.device, "--profile", str(args.repeat),
                               "--profile-json", table, "--quiet"], capture_output=True, text=True,
                              # An empty kernel cache, so "first" is a cold compile.
                              env=dict(os.environ, TFC_CACHE_DIR=os.path.join(d, "kernel-cache")))
        if proc.returncode != 0:
            print(f"tfc-run failed: {proc.stderr.strip()}", file=sys.stderr)
            return 1
        with open(table) as f:
            profile = json.load(f)

    copy = profile["copy"]["gbps"]
    kernels = [s for s in profile["steps"] if s["kind"] not in ("gemm", "copy")]
    by_kind = {}
    for s in kernels:
        by_kind.setdefault(s["kind"], []).append(s)
    what = f"train step ({args.train_step})" if args.train_step else "forward"
    model = os.path.splitext(os.path.basename(args.model))[0]
    print(f"{model} {what} kernels on {device}: device copy {copy:.1f} GB/s")
    for label, c in (profile.get("compile") or {}).items():
        print(f"  kernel compile ({label}): {c['kernels']} kernels ({c['distinct']} distinct) "
              f"in {c['wall_ms']:.0f} ms on {c['threads']} threads, {c['compiled']} compiled, "
              f"{c['cache_hits']} cached")
    for kind, steps in sorted(by_kind.items()):
        total_bytes = sum(s["bytes"] for s in steps)
        total_ms = sum(s["median_ms"] for s in steps)
        bw = total_bytes / total_ms / 1e6 if total_ms else 0
        print(f"  {kind:17} {len(steps):3} kernels  {total_ms:8.3f} ms  {bw:8.1f} GB/s "
              f"({100 * bw / copy if copy else 0:5.1f}% of copy)")
    gemm_ms = sum(s["median_ms"] for s in profile["steps"] if s["kind"] == "gemm")
    print(f"  gemm              {sum(1 for s in profile['steps'] if s['kind'] == 'gemm'):3} calls    {gemm_ms:8.3f} ms")

    record = {"benchmark": f"{model} {what} kernel bandwidth vs device copy",
              "date": datetime.date.today().isoformat(), "device": device,
              "repeat": args.repeat, "compile": profile.get("compile"),
              "copy": profile["copy"], "steps": profile["steps"]}
    os.makedirs(args.out, exist_ok=True)
    slug = "".join(c if c.isalnum() else "-" for c in args.device)
    kind = "-train-step" if args.train_step else ""
    named = "" if model == "gpt-mini" else f"-{model}"
    label = f"-{args.label}" if args.label else ""
    path = os.path.join(args.out,
                        f"kernel-bandwidth{named}{kind}{label}-{slug}-{record['date']}.json")
    with open(path, "w") as f:
        json.dump(record, f, indent=2)
    print(f"-> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
