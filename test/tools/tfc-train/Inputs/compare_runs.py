"""Checks that run B (stopped, then resumed) equals run A (uninterrupted).

usage: compare_runs.py DIR_A DIR_B [--any-loss]
Per-step losses and learning rates must be identical (bit-exact: compared
as the printed JSON numbers), and so must the final checkpoint tensors; the
loss must fall from the first step to the last unless --any-loss (runs
whose rate is too small to learn).
"""
import json
import sys


def steps(path):
    with open(path) as f:
        return [(r["step"], r["loss"], r["lr"]) for r in map(json.loads, f)]


a, b = sys.argv[1], sys.argv[2]
sa, sb = steps(a + "/metrics.jsonl"), steps(b + "/metrics.jsonl")
if sa != sb:
    sys.exit("metrics differ:\n%s\n%s" % (sa, sb))
ta = open(a + "/checkpoint/tensors.safetensors", "rb").read()
tb = open(b + "/checkpoint/tensors.safetensors", "rb").read()
if ta != tb:
    sys.exit("final checkpoint tensors differ")
if "--any-loss" not in sys.argv and sa[-1][1] >= sa[0][1]:
    sys.exit("loss did not fall: %s" % sa)
print("identical: %d steps, loss %.4f -> %.4f" % (len(sa), sa[0][1], sa[-1][1]))
