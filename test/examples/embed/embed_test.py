"""examples/embed end to end: builds the C example against the runtime that
test/runtime/standalone installed (find_package(tfcrt)), shared and static,
compiles gpt-mini's AdamW training step to an artifact (tfc-opt
--tfc-train-pipeline | tfc-translate --emit-artifact), runs the example 50
steps on the host from GPT-2-style initial weights and a batch of the bundled
text, and checks that its per-step losses and final weights equal what
`tfc-run --train-step` computes from the same .mlir, weights and batch (the
same kernels on the same backend: bit-identical, although the installed
runtime's host kernels are built for the x86-64 baseline and tfc-run's for
x86-64-v3, see runtime/src/host/HostIsa.h).

Usage: embed_test.py --tfc-opt BIN --tfc-translate BIN --tfc-run BIN
                     --prefix DIR --repo DIR --work DIR [--seed N]
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys

STEPS = 50
OPTIONS = "optimizer=adamw weight-decay=0.01"


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n"
                           f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return proc.stdout


def main():
    ap = argparse.ArgumentParser()
    for flag in ("--tfc-opt", "--tfc-translate", "--tfc-run", "--prefix", "--repo", "--work"):
        ap.add_argument(flag, required=True)
    ap.add_argument("--seed", type=int)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    print(f"embed example seed {seed} (rerun with --seed {seed})")
    sys.path.insert(0, os.path.join(args.repo, "test", "numerics"))
    import torch
    import gpt_mini_model as m
    import safetensors_io

    work = args.work
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    model = os.path.join(args.repo, "examples", "models", "gpt-mini.mlir")

    # Build the example against the installed package.
    build = os.path.join(work, "build")
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    run(["cmake", "-S", os.path.join(args.repo, "examples", "embed"), "-B", build, *gen,
         f"-DCMAKE_PREFIX_PATH={args.prefix}", "-DCMAKE_BUILD_TYPE=Release"])
    run(["cmake", "--build", build])

    # The training-step artifact, compiled ahead of time.
    artifact = os.path.join(work, "artifact")
    exec_ir = run([args.tfc_opt, model, f"--tfc-train-pipeline={OPTIONS}"])
    run([args.tfc_translate, "--emit-artifact", "-o", artifact], input=exec_ir)

    g = torch.Generator().manual_seed(seed)
    weights = m.init_parameters(g)
    with open(os.path.join(args.repo, "examples", "data", "tiny-prose.txt"), "rb") as f:
        text = torch.tensor(list(f.read()), dtype=torch.int64)
    starts = torch.randint(0, len(text) - m.CONTEXT - 1, (m.BATCH,), generator=g)
    windows = torch.stack([text[s:s + m.CONTEXT + 1] for s in starts.tolist()])
    batch = {"tokens": windows[:, :-1].contiguous(), "targets": windows[:, 1:].contiguous(),
             "lr": torch.tensor(1e-3, dtype=torch.float32)}
    paths = {k: os.path.join(work, f"{k}.safetensors") for k in ("weights", "batch", "both")}
    safetensors_io.save(weights, paths["weights"])
    safetensors_io.save(batch, paths["batch"])
    safetensors_io.save({**weights, **batch}, paths["both"])

    # tfc-run: JIT-compiles the same train step and runs it.
    trace = os.path.join(work, "trace.jsonl")
    state = os.path.join(work, "tfc-run-state.safetensors")
    run([args.tfc_run, model, "--train-step", OPTIONS, "--inputs", paths["both"],
         "--steps", str(STEPS), "--trace", trace, "--state-out", state,
         "--device", "host", "--quiet"])
    with open(trace) as f:
        want = [json.loads(line)["loss"] for line in f]
    want_weights = safetensors_io.load(state)

    failures = 0
    for exe in ("embed-train", "embed-train-static"):
        out = os.path.join(work, f"{exe}.safetensors")
        log = run([os.path.join(build, exe), artifact, paths["weights"], paths["batch"], out,
                   "--device", "host", "--steps", str(STEPS)])
        got = [float(line.split()[3]) for line in log.splitlines() if line.startswith("step ")]
        problem = None
        if len(got) != STEPS:
            problem = f"printed {len(got)} losses, expected {STEPS}:\n{log}"
        elif any(float(torch.tensor(a, dtype=torch.float32)) != float(torch.tensor(b, dtype=torch.float32))
                 for a, b in zip(got, want)):
            i = next(i for i, (a, b) in enumerate(zip(got, want)) if a != b)
            problem = f"step {i + 1}: loss {got[i]!r}, tfc-run {want[i]!r}"
        else:
            trained = safetensors_io.load(out)
            for name, w in weights.items():
                if not torch.equal(trained[name], want_weights[name]):
                    problem = f"trained '{name}' differs from tfc-run's"
                    break
                if torch.equal(trained[name], w):
                    problem = f"'{name}' did not change in {STEPS} steps"
                    break
        print(f"{'FAIL' if problem else 'ok  '} {exe}: loss {got[0]:.4f} -> {got[-1]:.4f}"
              if not problem else f"FAIL {exe}: {problem}")
        failures += bool(problem)
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RuntimeError as e:
        print(f"FAIL: {e}")
        sys.exit(1)
