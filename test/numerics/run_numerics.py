"""Runs tfc's forward ops against PyTorch 1.13 (CPU) on fresh random inputs.

For each case of forward_ops.py and each dtype: writes the one-op function
and its inputs (safetensors), runs `tfc-run` on it, and compares every output
with PyTorch's under torch.testing's default tolerances for the dtype (scaled
by the case's factor for reductions and multi-kernel decompositions).

Usage: run_numerics.py --tfc-run BIN [--case NAME ...] [--dtype f32 ...]
                       [--device host|cuda] [--seed N]
Exit codes: 0 pass, 1 mismatch or failure, 77 skipped (device unavailable).
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

# torch and the cases are imported after the device probe: skipping a gpu
# test costs no torch import.

# torch.testing.assert_close defaults (rtol, atol) per dtype.
# Integer dtypes (the bitwise cases) compare exactly.
TOLERANCES = {"f32": (1.3e-6, 1e-5), "f64": (1e-7, 1e-7), "bf16": (1.6e-2, 1e-5), "i32": (0, 0), "i64": (0, 0)}
SKIP = 77


def probe_device(tfc_run, device):
    if device == "host":
        return True, ""
    proc = subprocess.run([tfc_run, "--probe-device", device], capture_output=True, text=True)
    return proc.returncode == 0, (proc.stderr or proc.stdout).strip()


def start(name, extra_arguments=(), model=True):
    """The preamble of the model-level numerics scripts: parses --tfc-run,
    --model (unless `model` is false), --device, --seed (plus
    `extra_arguments`, (flag, kwargs) pairs), probes the device, and picks
    and prints the seed. Returns (args, seed), or (None, SKIP) when the
    device is unavailable."""
    ap = argparse.ArgumentParser(description=name)
    ap.add_argument("--tfc-run", required=True)
    if model:
        ap.add_argument("--model", required=True)
    ap.add_argument("--device", default="host")
    ap.add_argument("--seed", type=int)
    for flag, kwargs in extra_arguments:
        ap.add_argument(flag, **kwargs)
    args = ap.parse_args()
    ok, why = probe_device(args.tfc_run, args.device)
    if not ok:
        print(f"SKIP: device '{args.device}' unavailable: {why}")
        return None, SKIP
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    print(f"{name} seed {seed} (rerun with --seed {seed})")
    return args, seed


def run_cases(name, cases, selected, run, default=None):
    """The case loop of the model-level numerics scripts: runs `run(case,
    workdir)` (None when it passes, else what went wrong) for each name in
    `selected` (or `default`, or every case of `cases` sorted) in one
    temporary directory, printing ok/FAIL per case; a RuntimeError is a
    failure. Returns the exit code: 1 on an unknown case or any failure."""
    failures = 0
    with tempfile.TemporaryDirectory(prefix=f"tfc-{name}-") as workdir:
        for case in selected or default or sorted(cases):
            if case not in cases:
                print(f"unknown case '{case}' (known: {', '.join(sorted(cases))})")
                return 1
            try:
                problem = run(case, workdir)
            except RuntimeError as e:
                problem = str(e)
            print(f"{'FAIL' if problem else 'ok  '} {case}" + (f": {problem}" if problem else ""))
            failures += bool(problem)
    return 1 if failures else 0


def run_case(tfc_run, case, dtype, device, seed, workdir):
    import torch
    import safetensors_io
    g = torch.Generator().manual_seed(seed)
    text, inputs, expected = case.build(dtype, g)
    model = os.path.join(workdir, f"{case.name}-{dtype}.mlir")
    feed = os.path.join(workdir, f"{case.name}-{dtype}-in.safetensors")
    got_path = os.path.join(workdir, f"{case.name}-{dtype}-out.safetensors")
    with open(model, "w") as f:
        f.write(text)
    safetensors_io.save(inputs, feed)
    cmd = [tfc_run, model, "--function", "f", "--inputs", feed, "--outputs", got_path,
           "--device", device, "--quiet"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return f"tfc-run failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}"
    got = safetensors_io.load(got_path)
    rtol, atol = TOLERANCES[dtype]
    for i, want in enumerate(expected):
        name = f"out{i}"
        if name not in got:
            return f"output {name} missing (got {sorted(got)})"
        have = got[name]
        if have.dtype != want.dtype or tuple(have.shape) != tuple(want.shape):
            return (f"{name}: got {have.dtype}{list(have.shape)}, "
                    f"want {want.dtype}{list(want.shape)}")
        try:
            if want.is_floating_point():
                torch.testing.assert_close(have, want, rtol=rtol * case.tol, atol=atol * case.tol)
            else:
                torch.testing.assert_close(have, want, rtol=0, atol=0)
        except AssertionError as e:
            return f"{name}: {e}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tfc-run", required=True)
    ap.add_argument("--case", action="append")
    ap.add_argument("--dtype", action="append")
    ap.add_argument("--device", default="host")
    ap.add_argument("--seed", type=int)
    args = ap.parse_args()

    ok, why = probe_device(args.tfc_run, args.device)
    if not ok:
        print(f"SKIP: device '{args.device}' unavailable: {why}")
        return SKIP
    import forward_ops
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    print(f"numerics seed {seed} (rerun with --seed {seed})")
    cases = [c for c in forward_ops.CASES if not args.case or c.name in args.case]
    if not cases:
        print(f"no case named {args.case}", file=sys.stderr)
        return 1
    failures = 0
    with tempfile.TemporaryDirectory(prefix="tfc-numerics-") as workdir:
        for case in cases:
            for dtype in case.dtypes:
                if args.dtype and dtype not in args.dtype:
                    continue
                error = run_case(args.tfc_run, case, dtype, args.device, seed, workdir)
                status = "ok" if error is None else "FAIL"
                print(f"{status:4} {case.name} {dtype}" + ("" if error is None else f": {error}"))
                failures += error is not None
    print(f"{failures} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
