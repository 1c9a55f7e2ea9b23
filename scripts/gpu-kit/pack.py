"""scripts/gpu-pack: writes the GPU kit, a self-contained directory (under
64 MiB) that checks and benchmarks tfc on a machine with a GPU, CUDA, CMake,
a C++ compiler and PyTorch 2.x but no LLVM/MLIR.

What goes in:
  runtime/ and its unit tests (test/runtime/), built there alone;
  third_party/: nlohmann/json.hpp and GoogleTest's sources (the GPU machine
    has no -dev packages);
  every numerics case of the ctest label `gpu` (the list comes from ctest
    itself, so it is the suite's own), with the torch reference scripts,
    example models and data, and the benches (bench/);
  kit/artifacts/: each compile those cases and benches make, as an artifact
    (kernel CUDA sources compiled there by NVRTC for the GPU's sm_80/sm_90,
    host programs, buffer plan), recorded by running every case once here on
    the host backend through kit/tfc-run (tfc_run_shim.py) in record mode,
    with a fixed seed so the GPU run rebuilds the same inputs;
  kit/cases.json: the command of each case, kit/pack.json: what was packed.

Usage: scripts/gpu-pack DIR [--quick] [--seed N] [--build-dir B] [--force]
  --quick packs a handful of cases (what ctest runs); DIR must not exist
  unless it holds an earlier kit (or --force).
"""
import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import time

KIT_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(KIT_DIR, "..", ".."))
LIMIT_BYTES = 64 << 20
# What --quick keeps of the gpu cases: a forward op, a reduction, gpt-mini's
# loss and gradients, and a training step.
QUICK = ("gpu/numerics/add", "gpu/numerics/layer_norm", "gpu/numerics/gpt-mini-loss",
         "gpu/numerics/gpt-mini-grads", "gpu/numerics/train-step")
# Trees copied as they are (tracked and untracked-but-not-ignored files).
TREES = ("common", "runtime", "test/runtime", "test/numerics", "bench", "examples/models",
         "examples/data")


def log(message):
    print(f"gpu-pack: {message}", flush=True)


def repo_files(tree):
    out = subprocess.run(["git", "-C", REPO, "ls-files", "-co", "--exclude-standard", tree],
                         capture_output=True, text=True, check=True).stdout
    return [f for f in out.splitlines() if os.path.isfile(os.path.join(REPO, f))
            and "__pycache__" not in f and not f.startswith("bench/results/")]


def gpu_cases(build_dir):
    """The numerics tests of label `gpu` as ctest knows them: (name, argv).
    Left out (with a line saying so): those that call a tfc binary other
    than tfc-run (tfc-train compiles in process: it needs libMLIR, which a
    GPU machine lacks, and the kit replays only tfc-run's compiles)."""
    proc = subprocess.run(["ctest", "--show-only=json-v1", "-L", "gpu"], cwd=build_dir,
                          capture_output=True, text=True, check=True)
    bin_dir = os.path.join(os.path.abspath(build_dir), "bin") + os.sep
    cases = []
    for test in json.loads(proc.stdout)["tests"]:
        cmd = test.get("command") or []
        if len(cmd) > 1 and cmd[1].endswith(".py") and "/test/numerics/" in cmd[1]:
            others = [os.path.basename(a) for a in cmd[2:]
                      if a.startswith(bin_dir) and os.path.basename(a) != "tfc-run"]
            if others:
                log(f"left out: {test['name']} (calls {', '.join(others)}, which the kit "
                    "cannot replay)")
                continue
            cases.append((test["name"], cmd))
    return cases


def portable(argv, tfc_run, seed):
    """The case's command with placeholders: {python}, {kit} for the repo
    root, {tfc_run} for the shim, {device}; a fixed --seed."""
    out = ["{python}"]
    args = list(argv[1:])
    i = 0
    while i < len(args):
        a = args[i]
        if a == tfc_run:
            a = "{tfc_run}"
        elif a.startswith(REPO + "/"):
            a = "{kit}/" + a[len(REPO) + 1:]
        elif a == "--device" and i + 1 < len(args):
            out += [a, "{device}"]
            i += 2
            continue
        elif a == "--seed" and i + 1 < len(args):
            i += 2
            continue
        out.append(a)
        i += 1
    return out + ["--seed", str(seed)]


def expand(argv, kit, device, python=sys.executable):
    return [a.replace("{python}", python).replace("{kit}", kit)
             .replace("{tfc_run}", os.path.join(kit, "kit", "tfc-run"))
             .replace("{device}", device) for a in argv]


# The train step's variants the GPU run times beside the default AdamW step:
# what fusion buys, mixed precision and activation recompute cost on a GPU.
TRAIN_STEP_VARIANTS = ("fusion=none;precision=bf16;precision=fp16;recompute=cheap;"
                       "recompute=blocks")


# gpt2-small's step beside them: GPT-2 small (124M parameters, vocab 50304,
# context 1024) is where kernels move enough bytes to approach the copy rate
# and GEMMs dominate; bf16 against torch.autocast. Left out of --quick packs
# (recording runs it on this host: minutes).
GPT2_SMALL = "{kit}/examples/models/gpt2-small.mlir"
GPT2_SMALL_VARIANTS = "precision=bf16;fusion=none"


def bench_commands(quick=False):
    """The benches gpu-check runs: (name, argv, the flag that sets how long
    they run, its value for a full run, for a quick one); without the
    gpt2-small ones when `quick`."""
    gpt2 = [] if quick else [
        ("kernel-bandwidth-gpt2-small-train-step",
         ["{python}", "{kit}/bench/kernel_bandwidth.py", "--tfc-run", "{tfc_run}",
          "--model", GPT2_SMALL, "--train-step", "optimizer=adamw weight-decay=0.01",
          "--device", "{device}", "--out", "{kit}/results"], "--repeat", 5, 1),
        # The A/B of row kernels' load-ahead (the default unrolls by 4):
        # the cross-entropy kernel's bandwidth against the run above.
        ("kernel-bandwidth-gpt2-small-train-step-row-unroll-1",
         ["{python}", "{kit}/bench/kernel_bandwidth.py", "--tfc-run", "{tfc_run}",
          "--model", GPT2_SMALL, "--train-step",
          "optimizer=adamw weight-decay=0.01 row-unroll=1", "--label", "row-unroll-1",
          "--device", "{device}", "--out", "{kit}/results"], "--repeat", 5, 1),
        ("train-step-gpt2-small",
         ["{python}", "{kit}/bench/train_step.py", "--tfc-run", "{tfc_run}",
          "--preset", "gpt2-small", "--no-compile", "--variants", GPT2_SMALL_VARIANTS,
          "--device", "{device}", "--out", "{kit}/results"], "--steps", 10, 2),
    ]
    return [
        ("kernel-bandwidth-forward",
         ["{python}", "{kit}/bench/kernel_bandwidth.py", "--tfc-run", "{tfc_run}",
          "--device", "{device}", "--out", "{kit}/results"], "--repeat", 20, 2),
        ("kernel-bandwidth-train-step",
         ["{python}", "{kit}/bench/kernel_bandwidth.py", "--tfc-run", "{tfc_run}",
          "--train-step", "optimizer=adamw weight-decay=0.01",
          "--device", "{device}", "--out", "{kit}/results"], "--repeat", 20, 2),
        ("train-step",
         ["{python}", "{kit}/bench/train_step.py", "--tfc-run", "{tfc_run}",
          "--variants", TRAIN_STEP_VARIANTS,
          "--device", "{device}", "--out", "{kit}/results"], "--steps", 30, 3),
    ] + gpt2


def set_shebang(script, python=sys.executable):
    """Points the shim's first line at this Python: the numerics scripts run
    it as an executable, and `env python3` may find a slow wrapper (pyenv)
    or none. gpu-check does the same with its own Python."""
    with open(script) as f:
        lines = f.read().split("\n", 1)
    with open(script, "w") as f:
        f.write(f"#!{python}\n" + lines[1])
    os.chmod(script, 0o755)


def host_only_artifacts(root, names):
    """The artifacts among `names` with a kernel that has no CUDA source."""
    bad = []
    for name in names:
        with open(os.path.join(root, name, "manifest.json")) as f:
            kernels = json.load(f).get("kernels", [])
        if any("cuda" not in k for k in kernels):
            with open(os.path.join(root, name, "kit.json")) as f:
                info = json.load(f)
            bad.append(f"{name} ({info['model']})")
    return bad


def tree_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def main():
    ap = argparse.ArgumentParser(description="Writes the GPU kit (see scripts/gpu-kit/README.md).")
    ap.add_argument("dir")
    ap.add_argument("--quick", action="store_true", help="pack a handful of cases (ctest)")
    ap.add_argument("--seed", type=int, default=1, help="the seed of every case (default 1)")
    ap.add_argument("--build-dir", default=os.environ.get("BUILD_DIR", os.path.join(REPO, "build")))
    ap.add_argument("--force", action="store_true", help="replace DIR whatever it holds")
    args = ap.parse_args()
    kit = os.path.abspath(args.dir)
    tfc_run = os.path.join(os.path.abspath(args.build_dir), "bin", "tfc-run")
    if not os.access(tfc_run, os.X_OK):
        log(f"no tfc-run in {args.build_dir}/bin: run ./scripts/build first")
        return 1
    if os.path.exists(kit):
        if not (args.force or os.path.exists(os.path.join(kit, "kit", "pack.json"))):
            log(f"'{kit}' exists and holds no kit: choose a new directory or pass --force")
            return 1
        shutil.rmtree(kit)
    start = time.time()

    # Sources, scripts and header-only dependencies.
    for tree in TREES:
        for f in repo_files(tree):
            dst = os.path.join(kit, f)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(os.path.join(REPO, f), dst)
    shutil.copytree("/usr/include/nlohmann", os.path.join(kit, "third_party", "include", "nlohmann"))
    shutil.copytree("/usr/src/googletest", os.path.join(kit, "third_party", "googletest"),
                    ignore=shutil.ignore_patterns("*.pyc", "__pycache__"))
    os.makedirs(os.path.join(kit, "kit", "artifacts"))
    shutil.copy2(os.path.join(KIT_DIR, "tfc_run_shim.py"), os.path.join(kit, "kit", "tfc-run"))
    set_shebang(os.path.join(kit, "kit", "tfc-run"))
    shutil.copy2(os.path.join(KIT_DIR, "gpu_check.py"), os.path.join(kit, "kit", "gpu_check.py"))
    shutil.copy2(os.path.join(KIT_DIR, "gpu-check"), os.path.join(kit, "gpu-check"))
    shutil.copy2(os.path.join(KIT_DIR, "README.md"), os.path.join(kit, "README.md"))

    # Record every case's compiles by running it here on the host.
    cases = gpu_cases(args.build_dir)
    if args.quick:
        cases = [c for c in cases if c[0] in QUICK]
    if not cases:
        log(f"ctest in {args.build_dir} lists no gpu numerics cases")
        return 1
    env = dict(os.environ, TFC_KIT_MODE="record", TFC_KIT_TFC_RUN=tfc_run,
               TFC_KIT_ARTIFACTS=os.path.join(kit, "kit", "artifacts"))
    records = []
    commands = [{"name": name.replace("gpu/numerics/", "numerics/"),
                 "argv": portable(cmd, tfc_run, args.seed)} for name, cmd in cases]
    benches = [{"name": name, "argv": argv, "scale_flag": flag, "full": full, "quick": quick}
               for name, argv, flag, full, quick in bench_commands(args.quick)]
    for i, item in enumerate(commands + benches):
        log(f"[{i + 1}/{len(commands) + len(benches)}] recording {item['name']}")
        argv = item["argv"] + ([item["scale_flag"], str(item["quick"])] if "scale_flag" in item else [])
        t0 = time.time()
        proc = subprocess.run(expand(argv, kit, "host"), capture_output=True, text=True,
                              env=env, cwd=kit)
        if proc.returncode != 0:
            log(f"{item['name']} failed on the host while recording ({proc.returncode}):\n"
                f"{(proc.stdout + proc.stderr)[-3000:]}")
            return 1
        records.append(dict(item, record_s=round(time.time() - t0, 1)))
    shutil.rmtree(os.path.join(kit, "results"), ignore_errors=True)

    artifacts = sorted(os.listdir(os.path.join(kit, "kit", "artifacts")))
    host_only = host_only_artifacts(os.path.join(kit, "kit", "artifacts"), artifacts)
    if host_only:
        log(f"{len(host_only)} recorded artifacts have kernels without a CUDA source (compiled "
            f"for target=host), which a GPU cannot run: {', '.join(host_only[:5])}")
        return 1
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "-C", REPO, "status", "--porcelain"], capture_output=True,
                                text=True).stdout.strip())
    with open(os.path.join(kit, "kit", "cases.json"), "w") as f:
        json.dump({"cases": records[:len(commands)], "benches": records[len(commands):]}, f, indent=1)
    size = tree_bytes(kit)
    pack = {"date": datetime.date.today().isoformat(), "commit": commit, "dirty": dirty,
            "quick": args.quick, "seed": args.seed, "cases": len(commands),
            "benches": len(benches), "artifacts": len(artifacts), "bytes": size}
    with open(os.path.join(kit, "kit", "pack.json"), "w") as f:
        json.dump(pack, f, indent=1)
    log(f"{len(commands)} cases, {len(benches)} benches, {len(artifacts)} artifacts, "
        f"{size / 2**20:.1f} MiB in {kit} ({time.time() - start:.0f} s)")
    if size >= LIMIT_BYTES:
        log(f"the kit is {size / 2**20:.1f} MiB, over the 64 MiB limit")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
