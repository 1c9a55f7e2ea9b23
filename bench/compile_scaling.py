"""Benchmark: how `tfc-opt --tfc-train-pipeline` compile time grows with the
size of the model. Real models have 500-1500 parameter tensors (ResNet-152,
48-layer GPTs); a pass that walks every argument or op per parameter makes
their compile take minutes.

Generated models, each at the sizes given (--sizes, default 250,500,1000,2000):
  sep:    N parameters of 8 floats, each summed, the sums added up in a chain
          (per-parameter work, N optimizer updates);
  concat: N parameters concatenated and summed (one op reading them all);
  mlp:    N/2 linear layers of 16 units with a bias each and a tanh (N
          parameters, the shape of a deep real model: GEMMs, epilogues);
  chain:  one parameter and a chain of 5N elementwise ops (a long program).
For each model and size: the CPU time (user + system) and wall time of the
pipeline run single-threaded (--mlir-disable-threading; the median of
--repeat runs), the passes that took most of it (--mlir-timing) and the
growth exponent of the CPU time against the previous size (1 = linear,
2 = quadratic). A pass's time includes the verifier run after it
(--no-verify leaves the verifier out, to see the passes' own cost). The CPU time is what a shared machine disturbs least; the
numbers are this machine's, shared or not: say which when quoting them.
--json writes bench/results/compile-scaling-<date>.json.

usage: /usr/bin/python3 bench/compile_scaling.py --bin build/bin
           [--models sep,concat,mlp,chain] [--sizes 250,500,1000,2000]
           [--repeat 1] [--timeout 300] [--no-verify] [--json]
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import bench_common

# A line of --mlir-timing's report: the wall time (the last column) and the name.
PASS_LINE = re.compile(r"^(?:\s*[0-9.]+ \(\s*[0-9.]+%\))*\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(\S.*)$")


def sep_model(n):
    args = ", ".join(f'%p{i}: tensor<8xf32> {{tfc.param = "p{i}"}}' for i in range(n))
    lines = [f"func.func @loss({args}) -> tensor<f32> {{"]
    for i in range(n):
        lines.append(f"  %s{i} = tfc.reduce_sum %p{i} dims [0] : tensor<8xf32> -> tensor<f32>")
    acc = "%s0"
    for i in range(1, n):
        lines.append(f"  %a{i} = tfc.add {acc}, %s{i} : tensor<f32>, tensor<f32>")
        acc = f"%a{i}"
    lines += [f"  return {acc} : tensor<f32>", "}"]
    return "\n".join(lines) + "\n"


def concat_model(n):
    args = ", ".join(f'%p{i}: tensor<8xf32> {{tfc.param = "p{i}"}}' for i in range(n))
    operands = ", ".join(f"%p{i}" for i in range(n))
    types = ", ".join(["tensor<8xf32>"] * n)
    return (f"func.func @loss({args}) -> tensor<f32> {{\n"
            f"  %c = tfc.concat {operands} dim 0 : {types} -> tensor<{8 * n}xf32>\n"
            f"  %l = tfc.reduce_sum %c dims [0] : tensor<{8 * n}xf32> -> tensor<f32>\n"
            f"  return %l : tensor<f32>\n}}\n")


def mlp_model(n):
    layers = max(1, n // 2)
    args = []
    for i in range(layers):
        args.append(f'%w{i}: tensor<16x16xf32> {{tfc.param = "l{i}.weight"}}')
        args.append(f'%b{i}: tensor<16xf32> {{tfc.param = "l{i}.bias"}}')
    args.append('%x: tensor<4x16xf32> {tfc.input = "x"}')
    lines = [f"func.func @loss({', '.join(args)}) -> tensor<f32> {{"]
    h = "%x"
    for i in range(layers):
        lines.append(f"  %m{i} = tfc.matmul {h}, %w{i} transpose_b : tensor<4x16xf32>, "
                     f"tensor<16x16xf32> -> tensor<4x16xf32>")
        lines.append(f"  %y{i} = tfc.add %m{i}, %b{i} : tensor<4x16xf32>, tensor<16xf32>")
        lines.append(f"  %h{i} = tfc.tanh %y{i} : tensor<4x16xf32>")
        h = f"%h{i}"
    lines += [f"  %l = tfc.reduce_sum {h} dims [0, 1] : tensor<4x16xf32> -> tensor<f32>",
              "  return %l : tensor<f32>", "}"]
    return "\n".join(lines) + "\n"


def chain_model(n):
    ops = 5 * n
    lines = ['func.func @loss(%w: tensor<4x8xf32> {tfc.param = "w"}) -> tensor<f32> {']
    unary = ["relu", "sigmoid", "tanh", "exp"]
    h = "%w"
    for i in range(ops):
        if i % 2:
            lines.append(f"  %h{i} = tfc.mul {h}, %w : tensor<4x8xf32>, tensor<4x8xf32>")
        else:
            lines.append(f"  %h{i} = tfc.{unary[(i // 2) % 4]} {h} : tensor<4x8xf32>")
        h = f"%h{i}"
    lines += [f"  %l = tfc.reduce_sum {h} dims [0, 1] : tensor<4x8xf32> -> tensor<f32>",
              "  return %l : tensor<f32>", "}"]
    return "\n".join(lines) + "\n"


MODELS = {"sep": sep_model, "concat": concat_model, "mlp": mlp_model, "chain": chain_model}


def compile_once(tfc_opt, path, timeout, verify=True):
    """(wall s, CPU s, {pass: s}) of one single-threaded pipeline run (the
    CPU time, user + system, is what a shared machine disturbs least);
    None on timeout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    try:
        proc = subprocess.run([tfc_opt, path, "--tfc-train-pipeline", "--mlir-timing",
                               "--mlir-disable-threading", "-o", os.devnull,
                               *([] if verify else ["--verify-each=false"])],
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise RuntimeError(f"tfc-opt failed on {path}: {proc.stderr.strip()[-2000:]}")
    passes = {}
    for line in proc.stderr.splitlines():
        m = PASS_LINE.match(line)
        if m and m.group(2).strip() not in ("Total", "'func.func' Pipeline", "Rest"):
            name = m.group(2).strip()
            passes[name] = passes.get(name, 0.0) + float(m.group(1))
    return wall, cpu, passes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("--models", default="sep,concat,mlp,chain")
    ap.add_argument("--sizes", default="250,500,1000,2000")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-verify", action="store_true",
                    help="skip the verifier after each pass (--verify-each=false), to see "
                         "the passes' own cost")
    args = ap.parse_args()
    tfc_opt = os.path.join(args.bin, "tfc-opt")
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory(prefix="tfc-compile-scaling-") as d:
        os.environ.setdefault("TFC_CACHE_DIR", os.path.join(d, "cache"))
        for model in args.models.split(","):
            previous = None
            for n in sizes:
                path = os.path.join(d, f"{model}{n}.mlir")
                with open(path, "w") as f:
                    f.write(MODELS[model](n))
                runs = [compile_once(tfc_opt, path, args.timeout, not args.no_verify)
                        for _ in range(args.repeat)]
                if any(r is None for r in runs):
                    print(f"{model:6} n={n:5}  > {args.timeout:.0f} s (timed out)", flush=True)
                    rows.append({"model": model, "n": n, "cpu_seconds": None})
                    break
                wall = statistics.median(r[0] for r in runs)
                cpu = statistics.median(r[1] for r in runs)
                passes = runs[0][2]
                top = sorted(passes.items(), key=lambda kv: -kv[1])[:3]
                growth = ""
                if previous and previous[1] > 0.05:
                    growth = "growth n^%.2f" % (math.log(cpu / previous[1]) /
                                                math.log(n / previous[0]))
                print(f"{model:6} n={n:5}  cpu {cpu:7.2f} s  wall {wall:7.2f} s  {growth:12}  " +
                      ", ".join(f"{name} {t:.2f}" for name, t in top), flush=True)
                rows.append({"model": model, "n": n, "cpu_seconds": round(cpu, 3),
                             "wall_seconds": round(wall, 3),
                             "top_passes": {name: round(t, 3) for name, t in top}})
                previous = (n, cpu)
    if args.json:
        record = {"benchmark": "compile-scaling", "date": datetime.date.today().isoformat(),
                  "machine": {"cpu": bench_common.cpu_name(), "cores": os.cpu_count(),
                              "os": platform.platform()},
                  "repeat": args.repeat, "verify_each": not args.no_verify, "rows": rows}
        os.makedirs(bench_common.RESULTS, exist_ok=True)
        out = os.path.join(bench_common.RESULTS,
                           f"compile-scaling-{record['date']}.json")
        with open(out, "w") as f:
            json.dump(record, f, indent=2)
            f.write("\n")
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
