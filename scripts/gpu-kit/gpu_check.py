"""gpu-check: runs the GPU kit (see README.md) on this machine.

1. builds the runtime alone (CMake, no LLVM/MLIR) into KIT/build and runs its
   unit tests and, on cuda, its gpu tests (ctest -L "unit|gpu");
2. runs every packed numerics case on --device (cuda by default) through
   kit/tfc-run in replay mode: tfcrt-run on the recorded artifact, the torch
   reference computed by the same script on this machine;
3. runs the benches: each kernel's bandwidth against a device copy (gpt-mini
   forward and AdamW train step, gpt2-small train step, with the cold and
   warm kernel-compile times) and the train step against PyTorch eager
   (fused AdamW and bf16 autocast on cuda) and torch.compile, in the same
   run (gpt-mini; gpt2-small without torch.compile);
4. writes one JSON (machine, build, every case's status and time, the
   benches' records) and prints a summary. Exit 0 when nothing failed.

Usage: gpu-check [--device cuda|host] [--out FILE] [--quick] [--case NAME]
                 [--bench NAME | --benches-only | --cases-only] [--skip-build]
                 [--jobs N]
                 [--cmake-arg=-DX=Y]
"""
import argparse
import concurrent.futures
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time

SKIP = 77


def log(message):
    print(f"gpu-check: {message}", flush=True)


def run(cmd, timeout=None, **kw):
    t0 = time.time()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
        rc, out = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as e:
        rc, out = 124, f"timed out after {timeout} s\n{e.stdout or ''}{e.stderr or ''}"
    return rc, out, round(time.time() - t0, 2)


def build_runtime(kit, build, device, cmake_args):
    """Configures, builds and unit-tests the runtime; returns its record."""
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    jobs = str(min(os.cpu_count() or 1, 32))
    record = {"cmake_args": cmake_args}
    rc, out, secs = run(["cmake", "-S", os.path.join(kit, "runtime"), "-B", build, *gen,
                         "-DCMAKE_BUILD_TYPE=Release", *cmake_args])
    record["configure"] = {"rc": rc, "seconds": secs, "tail": out[-1500:]}
    if rc != 0:
        return record, False
    cuda_line = re.search(r"tfcrt cuda backend: (.*)", out)
    record["cuda_backend"] = cuda_line.group(1) if cuda_line else "?"
    rc, out, secs = run(["cmake", "--build", build, "-j", jobs])
    record["build"] = {"rc": rc, "seconds": secs, "tail": out[-3000:] if rc else ""}
    if rc != 0:
        return record, False
    labels = "unit|gpu" if device == "cuda" else "unit"
    rc, out, secs = run(["ctest", "-L", labels, "-j", jobs, "--output-on-failure"], cwd=build,
                        timeout=1800)
    summary = re.search(r"(\d+)% tests passed, (\d+) tests failed out of (\d+)", out)
    record["tests"] = {"rc": rc, "seconds": secs, "labels": labels,
                       "summary": summary.group(0) if summary else out[-500:],
                       "skipped": len(re.findall(r"\*\*\*Skipped", out)),
                       "failed": re.findall(r"\d+ - (\S+) \(Failed\)", out),
                       "tail": out[-4000:] if rc else ""}
    return record, True


def machine_facts(tfcrt_run, device):
    facts = {"os": platform.platform(), "cpu_cores": os.cpu_count()}
    rc, out, _ = run([tfcrt_run, "--probe-device", device])
    facts["tfc_device"] = out.strip() if rc == 0 else None
    rc, out, _ = run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                      "--format=csv,noheader"]) if shutil.which("nvidia-smi") else (1, "", 0)
    if rc == 0:
        facts["nvidia_smi"] = out.strip()
    rc, out, _ = run([sys.executable, "-c",
                      "import torch, json; print(json.dumps({'torch': torch.__version__, "
                      "'cuda': torch.version.cuda, 'gpu': torch.cuda.get_device_name() "
                      "if torch.cuda.is_available() else None}))"])
    if rc == 0:
        facts.update(json.loads(out.strip().splitlines()[-1]))
    return facts


def expand(argv, kit, device):
    return [a.replace("{python}", sys.executable).replace("{kit}", kit)
             .replace("{tfc_run}", os.path.join(kit, "kit", "tfc-run"))
             .replace("{device}", device) for a in argv]


def save(result, ok, device, out_path):
    """Summarizes RESULT and writes it to OUT_PATH; returns the failures.

    Called after every case and bench, so a run stopped part way (a lent
    machine's time limit) still leaves the JSON of what it finished."""
    failed = [c["name"] for c in result.get("cases", []) if c["status"] == "fail"]
    failed += [f"bench {b['name']}" for b in result.get("benches", []) if b["rc"] != 0]
    tests = result.get("runtime", {}).get("tests", {})
    if not ok or tests.get("rc", 0) != 0:
        failed.append("runtime build/tests")
    if ok and not result.get("machine", {}).get("tfc_device"):
        failed.append(f"device '{device}' unavailable")
    cases = result.get("cases", [])
    result["summary"] = {"cases": len(cases),
                         "passed": sum(c["status"] == "pass" for c in cases),
                         "skipped": sum(c["status"] == "skip" for c in cases),
                         "failed": failed}
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    with open(out_path + ".tmp", "w") as f:
        json.dump(result, f, indent=1)
    os.replace(out_path + ".tmp", out_path)
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kit", required=True)
    ap.add_argument("--device", choices=["cuda", "host"], default="cuda")
    ap.add_argument("--out")
    ap.add_argument("--quick", action="store_true", help="skip the benches' long runs")
    ap.add_argument("--case", action="append", help="run only these cases (and no benches)")
    ap.add_argument("--bench", action="append",
                    help="run only these benches (and no cases); see kit/cases.json")
    ap.add_argument("--benches-only", action="store_true",
                    help="run every bench and no case (a short GPU session's first call)")
    ap.add_argument("--cases-only", action="store_true",
                    help="run every case and no bench (after a --benches-only run)")
    ap.add_argument("--skip-build", action="store_true", help="reuse KIT/build as it is")
    ap.add_argument("--jobs", type=int, default=1,
                    help="run this many cases at once (the benches always run alone)")
    ap.add_argument("--cmake-arg", action="append", default=[],
                    help="pass to the runtime's cmake configure, e.g. -DTFCRT_OPENBLAS=OFF")
    args = ap.parse_args()
    kit = os.path.abspath(args.kit)
    build = os.path.join(kit, "build")
    with open(os.path.join(kit, "kit", "pack.json")) as f:
        pack = json.load(f)
    with open(os.path.join(kit, "kit", "cases.json")) as f:
        plan = json.load(f)
    date = datetime.date.today().isoformat()
    out_path = args.out or os.path.join(kit, "results", f"gpu-check-{args.device}-{date}.json")
    result = {"date": date, "device": args.device, "kit": pack}

    log(f"building the runtime in {build}")
    if args.skip_build and os.path.exists(os.path.join(build, "bin", "tfcrt-run")):
        ok = True
        result["runtime"] = {"skipped_build": True}
    else:
        result["runtime"], ok = build_runtime(kit, build, args.device, args.cmake_arg)
    tfcrt_run = os.path.join(build, "bin", "tfcrt-run")
    if not ok:
        log("the runtime did not build: see the JSON")
    else:
        t = result["runtime"].get("tests", {})
        log(f"runtime tests ({t.get('labels')}): {t.get('summary')}")
        result["machine"] = machine_facts(tfcrt_run, args.device)
        log(f"device: {result['machine'].get('tfc_device')}")
    save(result, ok, args.device, out_path)

    # The scripts run kit/tfc-run as an executable: let it use this Python.
    shim = os.path.join(kit, "kit", "tfc-run")
    with open(shim) as f:
        body = f.read().split("\n", 1)[1]
    with open(shim, "w") as f:
        f.write(f"#!{sys.executable}\n" + body)
    os.chmod(shim, 0o755)

    cache = os.path.join(kit, "cache")
    shutil.rmtree(cache, ignore_errors=True)  # the first compile of each kernel is cold
    env = dict(os.environ, TFC_KIT_MODE="replay", TFC_KIT_TFCRT_RUN=tfcrt_run,
               TFC_KIT_ARTIFACTS=os.path.join(kit, "kit", "artifacts"), TFC_CACHE_DIR=cache)
    if (args.case or args.cases_only) and (args.bench or args.benches_only):
        ap.error("--case/--cases-only run cases only; --bench/--benches-only run benches only")
    known = {b["name"] for b in plan["benches"]}
    for name in args.bench or []:
        if name not in known:
            ap.error(f"no bench '{name}' in this kit: {', '.join(sorted(known))}")
    cases = [] if args.bench or args.benches_only else \
        [c for c in plan["cases"] if not args.case or c["name"] in args.case]
    result["cases"] = []

    def run_case(case):
        rc, out, secs = run(expand(case["argv"], kit, args.device), timeout=1800, env=env, cwd=kit)
        status = "pass" if rc == 0 else "skip" if rc == SKIP else "fail"
        seed = re.search(r"seed (\d+)", out)
        return {"name": case["name"], "status": status, "rc": rc, "seconds": secs,
                "seed": int(seed.group(1)) if seed else None,
                "output": out[-6000:] if status != "pass" else out[-800:]}

    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for i, record in enumerate(pool.map(run_case, cases if ok else [])):
            result["cases"].append(record)
            log(f"[{i + 1}/{len(cases)}] {record['status']:4} {record['name']} "
                f"({record['seconds']:.1f} s)")
            save(result, ok, args.device, out_path)

    result["benches"] = []
    for bench in ([] if args.case or args.cases_only or not ok else
                  [b for b in plan["benches"] if not args.bench or b["name"] in args.bench]):
        argv = expand(bench["argv"], kit, args.device) + [
            bench["scale_flag"], str(bench["quick" if args.quick else "full"])]
        rc, out, secs = run(argv, timeout=3600, env=env, cwd=kit)
        result["benches"].append({"name": bench["name"], "rc": rc, "seconds": secs, "output": out[-6000:]})
        log(f"bench {bench['name']}: {'ok' if rc == 0 else 'FAILED'} ({secs:.1f} s)")
        print(out.strip()[-2500:])
        save(result, ok, args.device, out_path)
    records = {}
    results_dir = os.path.join(kit, "results")
    for name in sorted(os.listdir(results_dir)) if os.path.isdir(results_dir) else []:
        if name.endswith(".json") and not name.startswith("gpu-check-"):
            with open(os.path.join(results_dir, name)) as f:
                records[name] = json.load(f)
    result["bench_records"] = records
    failed = save(result, ok, args.device, out_path)
    s = result["summary"]
    log(f"{s['passed']}/{s['cases']} cases passed, {s['skipped']} skipped, "
        f"{len(failed)} failures{': ' + ', '.join(failed) if failed else ''} -> {out_path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
