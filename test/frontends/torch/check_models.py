"""Models written in PyTorch, imported with tfc_torch, run by tfc-run: the
loss (forward) and every parameter's gradient (`tfc-run --grad`, mapped
back by argument order = named_parameters order) equal PyTorch's.

Usage: check_models.py --tfc-run BIN [--case NAME ...] [--device host|cuda]
                       [--keep DIR]
Each case traces one model family of models/ (nanogpt, llama, bert, the MLP
classifiers), once with pattern recognition (tfc.rms_norm,
tfc.cross_entropy, tfc.attention, ...) and once without ("/decomposed",
which runs the decomposed forms: nll_loss as a one-hot selection,
attention as matmul/softmax/matmul, RMSNorm from pow/mean/rsqrt). The
loss must match within rtol 1e-5; each gradient within 1e-4 of its
largest magnitude (f32 sums in another order than PyTorch's). nanoGPT with
dropout is checked against its own decomposed import instead (tfc's masks
are not torch's).
Exit codes: 0 pass, 1 failure, 77 device unavailable.
"""
import argparse
import importlib.util
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "frontends", "torch"))

SKIP = 77
LOSS_RTOL, LOSS_ATOL = 1e-5, 1e-6
GRAD_RTOL, GRAD_ATOL = 1e-4, 1e-7


def error_and_scale(have, want):
    """(max |have - want|, max |want| over its finite elements). NaN-aware:
    a NaN or infinity in one tensor where the other has no equal value is
    an infinite error, matching NaNs and equal infinities none. (The plain
    (have - want).abs().max() is NaN for one NaN, and NaN > tolerance is
    false: a NaN gradient used to pass every check here.)"""
    import torch
    have, want = have.double(), want.double()
    if have.numel() == 0:
        return 0.0, 0.0
    finite = want[want.isfinite()]
    scale = finite.abs().max().item() if finite.numel() else 0.0
    if bool((have.isnan() != want.isnan()).any()):
        return math.inf, scale
    same = (have == want) | have.isnan()
    return torch.where(same, torch.zeros_like(have), (have - want).abs()).max().item(), scale


def grad_error(have, want):
    """The error of a gradient, error_and_scale's, and whether it is within
    GRAD_RTOL of the largest magnitude (plus GRAD_ATOL)."""
    err, scale = error_and_scale(have, want)
    return err, scale, err <= GRAD_RTOL * scale + GRAD_ATOL

# case -> (file in models/, factory, patterns the import must recognize)
FAMILIES = {
    "nanogpt": ("nanogpt.py", "make_model", {"attention": 2, "cross_entropy": 1}),
    "llama": ("llama.py", "make_model", {"rms_norm": 5, "attention": 2, "cross_entropy": 1}),
    "bert": ("bert.py", "make_model", {"cross_entropy": 1, "gelu": 1, "attention": 2}),
    "mlp-sequential": ("mlp.py", "make_sequential", {"cross_entropy": 1}),
    "mlp-log-softmax": ("mlp.py", "make_log_softmax", {"cross_entropy": 1}),
}
CASES = sorted(FAMILIES) + sorted(f"{f}/decomposed" for f in FAMILIES)
# Dropout draws tfc's Philox stream, not torch's: these families are checked
# against their own decomposed import (tfc.dropout of the probabilities
# must equal tfc.attention's dropout, draw for draw).
SELF_CHECKED = {
    "nanogpt-dropout": ("nanogpt.py", "make_model_with_dropout", {"attention": 2, "dropout": 7}),
}
CASES += sorted(SELF_CHECKED)


def load_family(name):
    """(model, example batch, loss_fn or None) of a family."""
    file, factory, _ = FAMILIES.get(name) or SELF_CHECKED[name]
    spec = importlib.util.spec_from_file_location(f"models_{file[:-3]}",
                                                  os.path.join(HERE, "models", file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    made = getattr(module, factory)()
    return made[0], tuple(made[1]), (made[2] if len(made) > 2 else None)


def torch_loss_and_grads(model, batch, loss_fn):
    import torch
    model.zero_grad()
    out = model(*batch) if loss_fn is None else loss_fn(
        model(*batch[:_model_argc(model, batch)]), *batch)
    params = [p for _, p in model.named_parameters() if p.requires_grad]  # frozen: constants
    for p in params:
        p.grad = None
    # backward(), not autograd.grad: torch.utils.checkpoint's reentrant form
    # (densenet's memory_efficient blocks) refuses the latter.
    out.backward()
    grads = [torch.zeros_like(p) if p.grad is None else p.grad.clone() for p in params]
    for p in params:
        p.grad = None
    return out.detach(), grads


def _model_argc(model, batch):
    from tfc_torch.batch_layout import _accepts
    n = _accepts(model.forward)
    return len(batch) if n is None else min(n, len(batch))


def run_tfc(tfc_run, model_path, feed, out, device, grad):
    cmd = [tfc_run, model_path, "--inputs", feed, "--outputs", out, "--device", device, "--quiet"]
    if grad:
        cmd.append("--grad")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"tfc-run{' --grad' if grad else ''} failed: {proc.stderr.strip()[-2000:]}")


def tfc_loss_and_grads(tfc_run, exported, stem, device):
    """Runs `tfc-run --grad` on an export: (loss, gradients in order)."""
    import tfc_torch
    exported.save(stem + ".mlir")
    feed = stem + "-in.safetensors"
    exported.save_feed(feed)
    run_tfc(tfc_run, stem + ".mlir", feed, stem + "-grad.safetensors", device, grad=True)
    got = tfc_torch.safetensors.load(stem + "-grad.safetensors")
    return got["loss"], [got[f"grad.{name}"] for name in exported.params]


def check_self(case, tfc_run, device, workdir):
    """A dropout model: patterns on against patterns off, both in tfc."""
    import tfc_torch
    model, batch, loss_fn = load_family(case)
    stem = os.path.join(workdir, case)
    fused = tfc_torch.import_module(model, batch, loss_fn)
    for name, count in SELF_CHECKED[case][2].items():
        if fused.patterns.get(name, 0) != count:
            return f"pattern {name} fired {fused.patterns.get(name, 0)} times, expected {count}"
    plain = tfc_torch.import_module(model, batch, loss_fn, patterns=False)
    loss_a, grads_a = tfc_loss_and_grads(tfc_run, fused, stem + "-fused", device)
    loss_b, grads_b = tfc_loss_and_grads(tfc_run, plain, stem + "-plain", device)
    print(f"  {case}: loss fused {loss_a.item():.8f} decomposed {loss_b.item():.8f}")
    if not abs(loss_a.item() - loss_b.item()) <= LOSS_RTOL * abs(loss_b.item()) + LOSS_ATOL:
        return f"loss {loss_a.item()} != {loss_b.item()}"
    for name, a, b in zip(fused.params, grads_a, grads_b):
        if not grad_error(a, b)[2]:
            return f"gradient of {name} differs between the fused and decomposed imports"
    return None


def check(case, tfc_run, device, workdir):
    """None when the case passes, else what differs."""
    if case in SELF_CHECKED:
        return check_self(case, tfc_run, device, workdir)
    import torch
    import tfc_torch
    family = case.split("/")[0]
    patterns = not case.endswith("/decomposed")
    model, batch, loss_fn = load_family(family)
    stem = os.path.join(workdir, case.replace("/", "-"))
    exported = tfc_torch.export(model, batch, stem + ".mlir", loss_fn=loss_fn, patterns=patterns)
    expected = FAMILIES[family][2] if patterns else {}
    for name, count in expected.items():
        if exported.patterns.get(name, 0) != count:
            return f"pattern {name} fired {exported.patterns.get(name, 0)} times, expected {count}"
    feed = stem + "-in.safetensors"
    exported.save_feed(feed)
    want_loss, want_grads = torch_loss_and_grads(model, batch, loss_fn)

    run_tfc(tfc_run, stem + ".mlir", feed, stem + "-fwd.safetensors", device, grad=False)
    got = tfc_torch.safetensors.load(stem + "-fwd.safetensors")
    loss = got["loss"]
    problems = []
    loss_diff = abs(loss.item() - want_loss.item())
    print(f"  {case}: loss tfc {loss.item():.8f} torch {want_loss.item():.8f} |diff| {loss_diff:.2e}")
    if not torch.allclose(loss.double(), want_loss.double(), rtol=LOSS_RTOL, atol=LOSS_ATOL):
        problems.append(f"loss {loss.item()} != {want_loss.item()}")

    run_tfc(tfc_run, stem + ".mlir", feed, stem + "-grad.safetensors", device, grad=True)
    got = tfc_torch.safetensors.load(stem + "-grad.safetensors")
    worst, worst_name = 0.0, ""
    names = list(exported.params)
    if len(names) != len(want_grads):
        return f"{len(names)} parameter arguments for {len(want_grads)} parameters"
    for name, want in zip(names, want_grads):
        have = got.get(f"grad.{name}")
        if have is None or tuple(have.shape) != tuple(want.shape):
            problems.append(f"gradient of {name} missing or misshapen")
            continue
        err, scale, ok = grad_error(have, want)
        rel = err / (scale + GRAD_ATOL / GRAD_RTOL)
        if rel > worst:
            worst, worst_name = rel, name
        if not ok:
            problems.append(f"gradient of {name}: max |diff| {err:.3e} (max |grad| {scale:.3e})")
    print(f"  {case}: {len(names)} gradients, worst max|diff| / (max|grad| + 1e-3) "
          f"{worst:.2e} ({worst_name})")
    return "; ".join(problems) or None


def device_missing(tfc_run, device) -> bool:
    """Whether `device` (not the host) cannot be opened; prints the SKIP
    line the drivers exit 77 after."""
    if device == "host":
        return False
    probe = subprocess.run([tfc_run, "--probe-device", device], capture_output=True, text=True)
    if probe.returncode == 0:
        return False
    print(f"SKIP: device '{device}' unavailable: {(probe.stderr or probe.stdout).strip()}")
    return True


def run_cases(description, cases, check_case, prefix):
    """The drivers' main: --tfc-run BIN [--case NAME ...] [--device D]
    [--keep DIR]; probes a non-host device (exit 77 when it is missing),
    runs `check_case(case, tfc_run, device, workdir)` (None: pass, else what
    differs) for the chosen cases, prints one line each, exits 1 on any
    failure."""
    ap = argparse.ArgumentParser(description=description.splitlines()[0])
    ap.add_argument("--tfc-run", required=True)
    ap.add_argument("--case", action="append")
    ap.add_argument("--device", default="host")
    ap.add_argument("--keep", help="write the .mlir and safetensors files here")
    args = ap.parse_args()
    if device_missing(args.tfc_run, args.device):
        return SKIP
    failures = 0
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        workdir = args.keep or tmp
        os.makedirs(workdir, exist_ok=True)
        for case in args.case or cases:
            if case not in cases:
                print(f"unknown case '{case}' (known: {', '.join(cases)})")
                return 1
            try:
                problem = check_case(case, args.tfc_run, args.device, workdir)
            except Exception as e:  # noqa: BLE001 - report and go on
                problem = f"{type(e).__name__}: {e}"
            print(f"{'FAIL' if problem else 'ok  '} {case}" + (f": {problem}" if problem else ""))
            failures += bool(problem)
    return 1 if failures else 0


def main():
    return run_cases(__doc__, CASES, check, "tfc-frontend-")


if __name__ == "__main__":
    sys.exit(main())
