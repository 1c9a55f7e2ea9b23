"""Differential testing of kernel fusion on random training graphs.

For every seed, random_graph.generate(seed) builds a @loss function; its
gradient program (--tfc-autodiff: the loss and one gradient per parameter),
or for every third seed a training step with an optimizer picked by the
seed (two steps; parameters and optimizer state compared too), is compiled
twice, with fusion (the default) and with fusion=none, and both run on the
host backend from the same seeded inputs. The host interpreter
computes every op the same way whatever the grouping (no reassociation), so
every output must be bit-identical (NaNs equal).

Besides, every --nvrtc-every'th graph's fused CUDA kernels go through NVRTC
and ptxas for sm_80 and sm_90 (tfc-nvrtc-check: no failures, no spills
under register pressure, i.e. while a kernel uses every register its
launch bounds leave; the saves around a slow-path call of a kernel with
registers to spare are notes; spills of kernels that compute in f64 are
reported, not failed: IEEE f64
division and square root are calls to slow-path routines, and ptxas spills
the doubles live across them, which no register budget of the emitter
prevents; f64 is tfc's reference precision, not a training one), and
every --emulate-every'th graph's fused kernels (those holding several ops)
run in CPU emulation (the CUDA source compiled with
test/codegen/cuda/emulation/cuda_emulation.h) against the same kernel run by
the host interpreter, within torch.testing tolerances (reductions in the
kernels' warp order reassociate sums). An f32 output outside them passes
when it is as close as the host's to the same kernel computed in f64 (within
a factor of two): cancellation amplifies a reassociated sum's rounding past
any elementwise tolerance (seed 927640: a layer_norm gradient of rows with
rstd ~ 1/sqrt(eps), emulation and host both 1.3e-5 of the row's maximum
from f64).

A failure prints the seed and the command that reproduces it:
  random_graph.py SEED > g.mlir; fuzz_fusion.py ... --seed SEED --count 1

usage: fuzz_fusion.py --bin DIR [--count N] [--seed S] [--jobs J]
                      [--nvrtc-every K] [--emulate-every M]
                      [--cuda-include DIR] [--ptxas PATH] [--keep DIR]
"""
import argparse
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import random_graph  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(HERE), "numerics"))
from safetensors_io import load_raw  # noqa: E402

EMULATION = os.path.join(os.path.dirname(HERE), "codegen", "cuda", "emulation")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def describe_difference(a_path, b_path, name):
    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "numerics"))
    import safetensors_io
    a = safetensors_io.load(a_path)[name]
    b = safetensors_io.load(b_path)[name]
    if a.shape != b.shape or a.dtype != b.dtype:
        return f"{name}: {a.dtype}{list(a.shape)} vs {b.dtype}{list(b.shape)}"
    if a.is_floating_point():
        diff = (a.double() - b.double()).abs()
        nan = torch.isnan(a) != torch.isnan(b)
        diff[torch.isnan(diff)] = 0
        return (f"{name}: max |fused - unfused| = {diff.max().item():.3g}, "
                f"{int((diff > 0).sum())} elements differ, {int(nan.sum())} NaN mismatches")
    return f"{name}: {int((a != b).sum())} elements differ"


def same_bits(a_path, b_path):
    """None if equal (NaN payloads aside), else the first differing output."""
    a, b = load_raw(a_path), load_raw(b_path)
    if a.keys() != b.keys():
        return f"outputs {sorted(a)} vs {sorted(b)}"
    for name in sorted(a):
        if a[name] == b[name]:
            continue
        # Differing bytes may still be NaNs with other payloads.
        import torch
        sys.path.insert(0, os.path.join(os.path.dirname(HERE), "numerics"))
        import safetensors_io
        x = safetensors_io.load(a_path)[name]
        y = safetensors_io.load(b_path)[name]
        if x.shape == y.shape and x.dtype == y.dtype and x.is_floating_point():
            both = torch.isnan(x) & torch.isnan(y)
            if torch.equal(torch.where(both, 0, x.double()), torch.where(both, 0, y.double())):
                continue
        return describe_difference(a_path, b_path, name)
    return None


# --- CPU emulation of one fused kernel ------------------------------------

# A kernel's in_place pairs are dropped: the emulation runs it with separate
# buffers (the emulation tests check in-place execution itself). Its schedule
# is dropped too: re-lowering the one-kernel program schedules it again, for
# the same default target.
KERNEL_RE = re.compile(r"^  tfcrt\.kernel @(\w+) (\w+) \((.*?)\) -> (.*?)"
                       r"(?: in_place \[[-0-9, ]*\])?(?: schedule <[^<>]*>)? \{$")


def kernels_of(lowered):
    """(name, kind, input types, output types, body lines) of every
    tfcrt.kernel of a lowered module."""
    out, lines = [], lowered.split("\n")
    i = 0
    while i < len(lines):
        m = KERNEL_RE.match(lines[i])
        if not m:
            i += 1
            continue
        name, kind, ins, outs = m.groups()
        outs = outs.strip()
        if outs.startswith("("):
            outs = outs[1:-1]
        body = []
        i += 1
        while not lines[i].startswith("  }"):
            body.append(lines[i])
            i += 1
        out.append((name, kind, split_types(ins), split_types(outs), body))
    return out


def split_types(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def kernel_module(kind, ins, outs, body):
    """A @kernel function holding the kernel as one tfc.fusion (generic form),
    so --tfc-lower-to-exec (fusion=none leaves it whole) gives a one-kernel
    program with inputs in0.. and outputs out0.."""
    args = ", ".join(f'%i{k}: {t} {{tfc.input = "in{k}"}}' for k, t in enumerate(ins))
    operands = ", ".join(f"%i{k}" for k in range(len(ins)))
    text = "\n".join(body).replace("tfcrt.yield", "tfc.yield")
    res = f"%r:{len(outs)}" if len(outs) > 1 else "%r"
    rets = ", ".join(f"%r#{k}" for k in range(len(outs))) if len(outs) > 1 else "%r"
    return (f"func.func @kernel({args}) -> ({', '.join(outs)}) {{\n"
            f'  {res} = "tfc.fusion"({operands}) <{{kind = #tfc<kernel_kind {kind}>}}> ({{\n'
            f"{text}\n"
            f"  }}) : ({', '.join(ins)}) -> ({', '.join(outs)})\n"
            f"  return {rets} : {', '.join(outs)}\n}}\n")


TORCH_DTYPES = None


def parse_type(t):
    global TORCH_DTYPES
    import torch
    if TORCH_DTYPES is None:
        TORCH_DTYPES = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16,
                        "bf16": torch.bfloat16, "i1": torch.bool, "i32": torch.int32,
                        "i64": torch.int64, "ui8": torch.uint8}
    inner = t[len("tensor<"):-1]
    parts = inner.split("x")
    return TORCH_DTYPES[parts[-1]], tuple(int(p) for p in parts[:-1])


class KernelRunError(Exception):
    """A one-kernel program that did not lower, translate or run."""


def run_kernel_on_host(args, kdir, kind, ins, outs, body, inputs):
    """Writes the kernel as a one-kernel module in kdir, lowers it
    (fusion=none keeps the kernel whole), and runs it by the host
    interpreter on inputs (in0, in1, ...). Returns (the lowered program,
    the outputs out0, out1, ...); raises KernelRunError."""
    import safetensors_io
    os.makedirs(kdir, exist_ok=True)
    model = os.path.join(kdir, "kernel.mlir")
    with open(model, "w") as f:
        f.write(kernel_module(kind, ins, outs, body))
    lowered = run([os.path.join(args.bin, "tfc-opt"), model,
                   "--tfc-lower-to-exec=function=kernel fusion=none"])
    if lowered.returncode != 0:
        raise KernelRunError(f"lowering its one-kernel program failed:\n{lowered.stderr[-1500:]}")
    art = os.path.join(kdir, "artifact")
    wrote = run([os.path.join(args.bin, "tfc-translate"), "--emit-artifact", "-o", art],
                input=lowered.stdout)
    if wrote.returncode != 0:
        raise KernelRunError(f"artifact: {wrote.stderr[-1500:]}")
    feed, got = os.path.join(kdir, "in.safetensors"), os.path.join(kdir, "host.safetensors")
    safetensors_io.save(inputs, feed)
    ran = run([os.path.join(args.bin, "tfc-run"), art, "--device", "host", "--inputs", feed,
               "--outputs", got, "--quiet"])
    if ran.returncode != 0:
        raise KernelRunError(f"host run failed: {ran.stderr[-1500:]}")
    return lowered.stdout, safetensors_io.load(got)


def emulate_kernel(args, workdir, seed, index, kernel, int_range):
    """Runs one fused kernel in CPU emulation and on the host interpreter;
    returns None or a failure message."""
    import torch
    sys.path.insert(0, EMULATION)
    import check_numerics
    name, kind, ins, outs, body = kernel
    kdir = os.path.join(workdir, f"k{index}")
    gen = torch.Generator().manual_seed(seed * 1000 + index)
    inputs = {}
    for k, t in enumerate(ins):
        dtype, shape = parse_type(t)
        if dtype.is_floating_point:
            x = torch.randn(shape, generator=gen, dtype=torch.float64).to(dtype)
        elif dtype == torch.bool:
            x = torch.randint(0, 2, shape, generator=gen).bool()
        else:
            x = torch.randint(0, int_range, shape, generator=gen).to(dtype)
        inputs[f"in{k}"] = x
    try:
        lowered, host = run_kernel_on_host(args, kdir, kind, ins, outs, body, inputs)
    except KernelRunError as e:
        return f"kernel {name}: {e}"
    source = run([os.path.join(args.bin, "tfc-translate"), "--emit-cuda"], input=lowered)
    if source.returncode != 0:
        return f"kernel {name}: tfc-translate --emit-cuda failed:\n{source.stderr[-1500:]}"

    class Args:
        translate = None
        cuda_include = args.cuda_include
        cxx = args.cxx
        pch_dir = args.pch_dir
    runner = check_numerics.Runner(Args)
    text = source.stdout
    start = text.index("// ===== kernel k0:")
    runner.sources = {"kernel.mlir": text[start:]}
    try:
        emulated = runner.run("kernel.mlir", "k0", [inputs[f"in{k}"] for k in range(len(ins))],
                              [parse_type(t) for t in outs])
    except RuntimeError as e:
        return f"kernel {name}: emulation failed: {str(e)[-2000:]}"
    # An output is only as exact as the narrowest float the kernel computes
    # in: an f64 result of f32 math (an optimizer's f32 statistics applied to
    # an f64 parameter) carries the f32 rounding of a reassociated sum.
    body_text = "\n".join(body) + " ".join(ins)
    narrowest = ("16" if re.search(r"x?(b?f16)>", body_text) else
                 "32" if re.search(r"x?f32>", body_text) else "64")
    reference = None  # the kernel run in f64 on the host, when it is needed
    for k, (e, t) in enumerate(zip(emulated, outs)):
        h = host[f"out{k}"]
        try:
            if not e.dtype.is_floating_point:
                torch.testing.assert_close(e, h, rtol=0, atol=0)
            elif e.dtype in (torch.bfloat16, torch.float16) or narrowest == "16":
                # One 16-bit rounding of a value that reassociated.
                torch.testing.assert_close(e.double(), h.double(), rtol=1.6e-2, atol=1e-2,
                                           equal_nan=True)
            elif e.dtype == torch.float32 or narrowest == "32":
                try:
                    torch.testing.assert_close(e.double(), h.double(), rtol=1e-4, atol=1e-4,
                                               equal_nan=True)
                except AssertionError:
                    # Cancellation can amplify the rounding of a reassociated
                    # sum far past any elementwise tolerance (a layer_norm
                    # gradient of rows with rstd ~ 1/sqrt(eps)); then the two
                    # f32 kernels are judged by their distance to the kernel
                    # computed in f64.
                    if narrowest != "32":
                        raise
                    if reference is None:
                        reference = f64_reference(args, kdir, kind, ins, outs, body, inputs)
                    if reference is None:
                        raise
                    check_as_accurate(e, h, reference[f"out{k}"])
            else:
                torch.testing.assert_close(e, h, rtol=1e-9, atol=1e-9, equal_nan=True)
        except AssertionError as err:
            return f"kernel {name} output {k} ({t}): emulation vs host: {err}"
    return None


def f64_reference(args, kdir, kind, ins, outs, body, inputs):
    """The outputs of the kernel with every f32 tensor made f64, run by the
    host interpreter on the same inputs widened; None where that program
    does not compile or run (then the f32 comparison's failure stands)."""
    import torch
    widen = lambda text: re.sub(r"(tensor<(?:\d+x)*)f32>", r"\1f64>", text)
    wide = {n: x.double() if x.dtype == torch.float32 else x for n, x in inputs.items()}
    try:
        return run_kernel_on_host(args, os.path.join(kdir, "f64"), kind,
                                  [widen(t) for t in ins], [widen(t) for t in outs],
                                  [widen(line) for line in body], wide)[1]
    except KernelRunError:
        return None


def check_as_accurate(emulated, host, reference):
    """Raises AssertionError unless the emulated f32 output is as close to
    the f64 reference as the host's f32 output is, within a factor of two
    (NaNs and infinities must match the host's)."""
    import torch
    e, h, r = emulated.double(), host.double(), reference.double()
    finite = torch.isfinite(h) & torch.isfinite(r)
    torch.testing.assert_close(torch.where(finite, 0.0, e), torch.where(finite, 0.0, h),
                               rtol=0, atol=0, equal_nan=True)
    # A NaN where the host has a number is an infinite error.
    err_e = (e - r).abs().nan_to_num(nan=float("inf"), posinf=float("inf"))[finite].max().item() \
        if finite.any() else 0.0
    err_h = (h - r).abs()[finite].max().item() if finite.any() else 0.0
    scale = r.abs()[finite].max().item() if finite.any() else 0.0
    if err_e > 2 * err_h + 1e-6 * scale:
        raise AssertionError(f"emulation is further from the f64 kernel than the host: "
                             f"max error {err_e:.3g} vs the host's {err_h:.3g} "
                             f"(outputs up to {scale:.3g})")


# --- one graph -------------------------------------------------------------

TRAIN_OPTIONS = ("optimizer=adamw", "optimizer=adam weight-decay=0.01",
                 "optimizer=sgd momentum=0.9", "optimizer=sgd",
                 "optimizer=adamw max-grad-norm=1", "optimizer=adamw loss-scaling=true",
                 "optimizer=adafactor", "optimizer=adamw8bit block-size=64")


def train_options(seed):
    """Every third graph is compiled as a training step (two steps run, the
    parameters and state compared too), with an optimizer picked by seed;
    the others as their gradient program."""
    if seed % 3 != 0:
        return None
    return TRAIN_OPTIONS[(seed // 3) % len(TRAIN_OPTIONS)]

def check_graph(job):
    args, seed = job
    try:
        return check_graph_or_raise(args, seed)
    except Exception as e:  # a crash of the checker is a failure of the seed
        import traceback
        return seed, f"checker crashed: {traceback.format_exc()[-3000:]}", []


# --tfc-step-gradients' refusal of a loss that no gradient reaches a
# parameter from.
NOTHING_TO_TRAIN = "no gradient reaches any tfc.param argument"


def check_graph_or_raise(args, seed):
    text, int_range = random_graph.generate(seed)
    workdir = tempfile.mkdtemp(prefix=f"tfc-fuzz-{seed}-", dir=args.tmp)
    env = dict(os.environ, TFC_CACHE_DIR=os.path.join(workdir, "cache"))
    model = os.path.join(workdir, "graph.mlir")
    with open(model, "w") as f:
        f.write(text)
    notes = []
    train = train_options(seed)
    try:
        outs = {}
        for mode in ("all", "none"):
            out = os.path.join(workdir, f"{mode}.safetensors")
            state = os.path.join(workdir, f"{mode}-state.safetensors")

            def tfc_run(what):
                return run([os.path.join(args.bin, "tfc-run"), model, *what, "--fusion", mode,
                            "--device", "host", "--seed", str(seed), "--int-range",
                            str(int_range), "--outputs", out, "--quiet"], env=env)
            ran = tfc_run(["--train-step", train, "--steps", "2", "--state-out", state]
                          if train else ["--grad"])
            if ran.returncode != 0 and train and NOTHING_TO_TRAIN in ran.stderr:
                # No parameter gets a gradient (the generator's loss reads
                # none): a training step refuses it; its gradient is checked.
                train = None
                ran = tfc_run(["--grad"])
            if ran.returncode != 0:
                return seed, f"fusion={mode}: tfc-run failed: {ran.stderr.strip()[-2000:]}", notes
            outs[mode] = (out, state)
        for k in range(2 if train else 1):
            diff = same_bits(outs["all"][k], outs["none"][k])
            if diff:
                return seed, f"host results differ with fusion: {diff}", notes
        if train:
            notes.append(f"train-step {train}")

        want_nvrtc = args.nvrtc_every and seed % args.nvrtc_every == 0 and args.ptxas
        want_emu = args.emulate_every and seed % args.emulate_every == 0 and args.cuda_include
        if want_nvrtc or want_emu:
            pipeline = (f"--tfc-train-pipeline={train}" if train
                        else "--tfc-lower-to-exec=autodiff=true")
            lowered = run([os.path.join(args.bin, "tfc-opt"), model, pipeline])
            if lowered.returncode != 0:
                return seed, f"tfc-opt failed: {lowered.stderr[-2000:]}", notes
        if want_nvrtc:
            checked = run([os.path.join(args.bin, "tfc-nvrtc-check"), "--exec-only",
                           "--ptxas", args.ptxas, "--cuda-include", args.cuda_include, "-"],
                          input=lowered.stdout)
            if checked.returncode != 0:
                bad = [l for l in checked.stdout.split("\n") + checked.stderr.split("\n")
                       if l.startswith("FAIL") or "error" in l]
                f64 = {k[0] for k in kernels_of(lowered.stdout) if "f64" in " ".join(k[2] + k[3])}
                spill = re.compile(r"^FAIL (\w+) \(sm_\d+\): \d+ bytes of register spills$")
                spilled = [spill.match(l) for l in bad]
                if not bad or not all(m and m.group(1) in f64 for m in spilled):
                    return seed, "NVRTC: " + "; ".join(bad[:6]), notes
                f64_spills = sorted({m.group(1) for m in spilled})
                notes.append(f"nvrtc, f64 spills in {', '.join(f64_spills)}")
            else:
                notes.append("nvrtc")
        if want_emu:
            fused = [k for k in kernels_of(lowered.stdout)
                     if sum(1 for l in k[4] if " = tfc." in l) > 1]
            for index, kernel in enumerate(fused):
                error = emulate_kernel(args, workdir, seed, index, kernel, int_range)
                if error:
                    return seed, error, notes
            notes.append(f"emulated {len(fused)}")
        return seed, None, notes
    finally:
        if args.keep and os.path.isdir(workdir):
            dest = os.path.join(args.keep, f"seed-{seed}")
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(workdir, dest, ignore=shutil.ignore_patterns("cache"))
        shutil.rmtree(workdir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="directory of tfc-run, tfc-opt, ...")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=None,
                    help="first seed (default: random, printed)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--nvrtc-every", type=int, default=0)
    ap.add_argument("--emulate-every", type=int, default=0)
    ap.add_argument("--cuda-include", default=None)
    ap.add_argument("--ptxas", default=None)
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--keep", default=None, help="keep failing graphs' files here")
    ap.add_argument("--tmp", default=None)
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--xfail", type=int, action="append", default=[],
                    help="a seed with a known, tracked failure: reported as "
                         "'xfail', not counted (an xfail seed that passes is "
                         "an error: drop it from the list)")
    args = ap.parse_args()
    if args.nvrtc_every and not (args.ptxas and args.cuda_include and
                                 os.path.exists(os.path.join(args.bin, "tfc-nvrtc-check"))):
        print("nvrtc: skipped (no tfc-nvrtc-check, ptxas or CUDA include directory)")
        args.nvrtc_every = 0
    if args.emulate_every and not (args.cuda_include and
                                   os.path.exists(os.path.join(args.cuda_include, "cuda_fp16.h"))):
        print("emulation: skipped (no CUDA include directory)")
        args.emulate_every = 0
    args.pch_dir = None
    if args.emulate_every:
        sys.path.insert(0, EMULATION)
        import check_numerics
        pch = tempfile.TemporaryDirectory(prefix="tfc-emu-pch-", dir=args.tmp)
        args.pch_dir = check_numerics.precompile_header(args.cxx, args.cuda_include, pch.name)
    first = args.seed if args.seed is not None else int.from_bytes(os.urandom(3), "little")
    print(f"seeds {first}..{first + args.count - 1} "
          f"(rerun one: --seed S --count 1; see it: random_graph.py S)", flush=True)
    keep_all, args.keep = args.keep, None
    jobs = [(args, s) for s in range(first, first + args.count)]
    failures, started = [], time.time()
    with multiprocessing.Pool(args.jobs) as pool:
        for done, (seed, error, notes) in enumerate(pool.imap(check_graph, jobs), 1):
            if args.quiet and done % 100 == 0:
                print(f"{done} graphs, {len(failures)} failures, {time.time() - started:.0f} s",
                      flush=True)
            if error and seed in args.xfail:
                print(f"xfail seed {seed} (known): {error.splitlines()[0]}", flush=True)
            elif not error and seed in args.xfail:
                failures.append(seed)
                print(f"FAIL seed {seed}: passes but is listed as --xfail", flush=True)
            elif error:
                failures.append(seed)
                print(f"FAIL seed {seed}: {error}", flush=True)
                if keep_all:
                    a = argparse.Namespace(**vars(args))
                    a.keep = keep_all
                    check_graph((a, seed))
            elif not args.quiet:
                print(f"ok   seed {seed}" + (f" ({', '.join(notes)})" if notes else ""),
                      flush=True)
    print(f"{args.count} graphs in {time.time() - started:.0f} s, {len(failures)} failures"
          + (f": seeds {' '.join(map(str, failures))}" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
