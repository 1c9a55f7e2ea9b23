"""Shape padding (--tfc-pad-shapes) is exact: a GPT with awkward sizes
(vocabulary 1007, width 100, 4 heads of 25, MLP 300, batch x sequence
7 x 33, 2 layers, tied LM head) trained 5 AdamW steps from the same
initialization and batch, padded and unpadded, on the host backend.

Checks, for each padded configuration against the unpadded one of the same
precision:
  - every step's loss within 2e-6 relative (f32; bf16: 2e-4, below);
  - the parameters and optimizer moments after the 5 steps within f32
    reassociation: the padded run's total updates (parameters minus their
    initial values), all parameters together, differ from the unpadded
    run's by at most 1e-3 of their norm, and the moments likewise. Per
    tensor the figure is noisier: a small bias whose gradient, summed over
    the tokens, nearly cancels can differ by 1e-3 on its own.
    Elementwise bounds do not fit Adam: its first step moves every weight
    by lr * g / |g|, so a gradient entry near zero whose last bits change
    with the summation order moves its weight by up to 2 lr, whatever the
    size of the change in g. For the same reason the attention's key bias
    (c_attn.bias[C:2C]) is left out: its exact gradient is zero (adding the
    same q . b_k to every score of a query leaves the softmax unchanged), so
    what Adam does with it is rounding noise in any two runs;
  - bf16: loss 2e-4 relative, updates and moments within 2e-2 normwise: a
    summation-order change that flips one bf16 rounding (2^-8 relative)
    moves the rest of the run by that order (one bias alone can then differ
    by 10%);
and reports which configurations are bit-identical. Padding changes the
summation order only where a GEMM's K grows: the zero products are added
after the real ones, so a BLAS kernel that accumulates k in order gives the
same bits, one that blocks or unrolls K differently for the new size does
not. Measured on the host (OpenBLAS, seeds 1-6): pad=8 is bit-identical
every time; pad=64 never is (updates within 2e-4 normwise); bf16 pad=auto
is in half the seeds (its vocabulary goes 1007 -> 1024, the K of the
backward's logits GEMM). Rows and columns added along M and N never mix
with real ones.

Configurations: f32 with pad=8 and pad=64 (pad=N pads M, N and K of every
GEMM, also where no tensor core wants it), and bf16 with pad=auto for
target sm_90 (K and N to multiples of 8, the vocabulary to 64), whose
kernels the host backend runs (the same host programs a GPU artifact
carries).

Usage: padding.py --tfc-run BIN [--device host|cuda] [--seed N]
Exit 77 when the device is unavailable.
"""
import json
import os
import subprocess
import sys
import tempfile

import torch

import run_numerics
import safetensors_io

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "models"))
import gen_gpt  # noqa: E402

VOCAB, CONTEXT, WIDTH, HEADS, LAYERS, BATCH, MLP = 1007, 33, 100, 4, 2, 7, 300
STEPS = 5
# precision: (loss relative, update normwise, moment normwise)
TOLERANCE = {"f32": (2e-6, 1e-3, 1e-3), "bf16": (2e-4, 2e-2, 2e-2)}


def comparable(key, tensor):
    """`tensor` without the entries whose gradient is exactly zero."""
    if key.endswith("attn.c_attn.bias") or key.startswith(
            tuple(f"h.{i}.attn.c_attn.bias." for i in range(LAYERS))):
        return torch.cat([tensor[:WIDTH], tensor[2 * WIDTH:]])
    return tensor

# (name, precision, pad, target); each is compared with the same precision
# unpadded.
CONFIGS = [
    ("f32 pad=8", "f32", "8", "auto"),
    ("f32 pad=64", "f32", "64", "auto"),
    ("bf16 pad=auto sm_90", "bf16", "auto", "sm_90"),
]


def init(generator):
    """GPT-2's initialization for the model's parameters, and a batch."""
    text = gen_gpt.generate(VOCAB, CONTEXT, WIDTH, HEADS, LAYERS, BATCH, "awkward",
                            "awkward sizes for the padding test", MLP)
    params = {}
    for line in text.splitlines():
        if 'tfc.param = "' not in line:
            continue
        name = line.split('tfc.param = "')[1].split('"')[0]
        dims = [int(d) for d in line.split("tensor<")[1].split("xf32>")[0].split("x")]
        if name.endswith(".bias"):
            params[name] = torch.zeros(dims)
        elif len(dims) == 1:
            params[name] = torch.ones(dims)
        else:
            params[name] = torch.randn(dims, generator=generator) * 0.02
    tokens = torch.randint(0, VOCAB, (BATCH, CONTEXT), generator=generator)
    targets = torch.randint(0, VOCAB, (BATCH, CONTEXT), generator=generator)
    return text, params, {"tokens": tokens, "targets": targets,
                          "lr": torch.tensor(1e-3)}


def train(args, model, feed, workdir, name, precision, pad, target):
    trace = os.path.join(workdir, name.replace(" ", "_") + ".jsonl")
    state = os.path.join(workdir, name.replace(" ", "_") + ".safetensors")
    cmd = [args.tfc_run, model, "--train-step", "optimizer=adamw", "--precision", precision,
           "--pad", pad, "--target", target, "--device", args.device, "--inputs", feed,
           "--steps", str(STEPS), "--trace", trace, "--state-out", state, "--quiet"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{name}: tfc-run failed: {proc.stderr.strip()}")
    with open(trace) as f:
        losses = [json.loads(line)["loss"] for line in f]
    return losses, safetensors_io.load(state)


def compare(name, precision, base, padded, initial):
    """Returns the failures of `padded` against `base` (losses, state)."""
    loss_rtol, update_rtol, moment_rtol = TOLERANCE[precision]
    failures = []
    (l0, s0), (l1, s1) = base, padded
    worst_loss = max(abs(a - b) / abs(b) for a, b in zip(l1, l0))
    print(f"  {name}: losses {['%.7f' % x for x in l1]}, max rel diff {worst_loss:.2e}")
    if len(l1) != STEPS or worst_loss > loss_rtol:
        failures.append(f"{name}: a step's loss differs by {worst_loss:.2e} relative "
                        f"(> {loss_rtol})")
    identical = l0 == l1
    worst_update = worst_moment = 0.0
    diffs = {"update": [], "moment": []}
    norms = {"update": [], "moment": []}
    for key, want in s0.items():
        if ".bf16" in key or ".f16" in key:
            continue  # a 16-bit weight copy: the parameter's, padded or not
        got = s1[key]
        if not want.is_floating_point():
            if not torch.equal(got, want):
                failures.append(f"{name}: {key} differs")
            continue
        identical &= torch.equal(got, want)
        diff = comparable(key, got.double() - want.double())
        kind = "update" if key in initial else "moment"
        reference = (comparable(key, want.double() - initial[key].double())
                     if key in initial else comparable(key, want.double()))
        diffs[kind].append(diff.flatten())
        norms[kind].append(reference.flatten())
    for kind, rtol in (("update", update_rtol), ("moment", moment_rtol)):
        err = (torch.cat(diffs[kind]).norm() / torch.cat(norms[kind]).norm()).item()
        if kind == "update":
            worst_update = err
        else:
            worst_moment = err
        if not err <= rtol:  # a NaN fails too
            failures.append(f"{name}: all {kind}s together differ by {err:.2e} of "
                            f"their norm (> {rtol})")
    print(f"    after {STEPS} steps: updates within {worst_update:.2e}, moments within "
          f"{worst_moment:.2e} (normwise); bit-identical: {'yes' if identical else 'no'}")
    return failures


def main():
    args, seed = run_numerics.start("padding", model=False)
    if args is None:
        return seed
    text, params, batch = init(torch.Generator().manual_seed(seed))
    failures = []
    with tempfile.TemporaryDirectory(prefix="tfc-padding-") as d:
        model = os.path.join(d, "awkward.mlir")
        with open(model, "w") as f:
            f.write(text)
        feed = os.path.join(d, "in.safetensors")
        safetensors_io.save({**params, **batch}, feed)
        bases = {}
        for name, precision, pad, target in CONFIGS:
            key = (precision, target)
            if key not in bases:
                bases[key] = train(args, model, feed, d, f"{precision} {target} pad=none",
                                   precision, "none", target)
                print(f"{precision} unpadded ({target}): losses "
                      f"{['%.7f' % x for x in bases[key][0]]}")
            failures += compare(name, precision, bases[key],
                                train(args, model, feed, d, name, precision, pad, target),
                                params)
    for f in failures:
        print("FAIL " + f)
    print("padding: " + ("FAILED" if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
