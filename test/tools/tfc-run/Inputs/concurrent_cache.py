"""Processes compiling the same model into one TFC_CACHE_DIR at once.

usage: concurrent_cache.py TFC_RUN MODEL WORK [--procs N] [--rounds R]
Each round starts N `tfc-run MODEL --seed 1` processes together on a fresh
shared cache; every one must succeed and write outputs bit-identical to a
run with a private cache, and afterwards the cache must hold exactly one
complete artifact (no temporary directories left). A second wave on the
warm cache must hit it and agree again.
"""
import argparse
import os
import shutil
import subprocess
import sys


def run_all(cmds, env):
    procs = [subprocess.Popen(c, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for c in cmds]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        results.append((p.returncode, out, err))
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tfc_run")
    ap.add_argument("model")
    ap.add_argument("work")
    ap.add_argument("--procs", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)

    def command(out):
        return [args.tfc_run, args.model, "--seed", "1", "--device", "host", "--outputs", out]

    ref = os.path.join(args.work, "ref.safetensors")
    env = dict(os.environ, TFC_CACHE_DIR=os.path.join(args.work, "private"))
    rc, _, err = run_all([command(ref)], env)[0]
    if rc != 0:
        sys.exit("reference run failed: " + err)
    expected = open(ref, "rb").read()

    for r in range(args.rounds):
        cache = os.path.join(args.work, "shared%d" % r)
        env = dict(os.environ, TFC_CACHE_DIR=cache)
        for wave in ("cold", "warm"):
            outs = [os.path.join(args.work, "r%d-%s-%d.safetensors" % (r, wave, i))
                    for i in range(args.procs)]
            for i, (rc, out, err) in enumerate(run_all([command(o) for o in outs], env)):
                if rc != 0:
                    sys.exit("round %d %s process %d failed (%d): %s" % (r, wave, i, rc, err))
                if open(outs[i], "rb").read() != expected:
                    sys.exit("round %d %s process %d: outputs differ from the reference"
                             % (r, wave, i))
            entries = sorted(os.listdir(os.path.join(cache, "artifacts")))
            if len(entries) != 1 or not os.path.exists(
                    os.path.join(cache, "artifacts", entries[0], "manifest.sha256")):
                sys.exit("round %d %s: cache artifacts are %s, expected one complete entry"
                         % (r, wave, entries))
    print("concurrent cache: %d rounds of %d processes, cold and warm: all identical"
          % (args.rounds, args.procs))


main()
