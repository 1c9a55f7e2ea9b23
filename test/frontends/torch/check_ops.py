"""The frontend's aten lowerings one group at a time: each module of the
models/ops/ package (one file per lowering file of tfc_torch/ops/) is
imported and run by `tfc-run --grad`; its loss and every gradient must equal
torch.autograd's (rtol 1e-5 for the loss, 1e-4 of the largest magnitude for
each gradient; NaN equals NaN, in the loss as at the same positions of a
gradient, so that cases of NaN inputs check where torch's gradient is NaN
and where it is not), and the patterns listed in the package's PATTERNS must be
recognized; importing under torch.no_grad() must give the same module.

Usage: check_ops.py --tfc-run BIN [--case NAME ...] [--device host|cuda]
Exit codes: 0 pass, 1 failure, 77 device unavailable.
"""
import argparse
import importlib.util
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_models  # noqa: E402  (sets up the import path of tfc_torch)


def load_cases():
    """(CASES, PATTERNS) of the models/ops/ package (its groups merged)."""
    package = os.path.join(HERE, "models", "ops")
    spec = importlib.util.spec_from_file_location("frontend_ops", os.path.join(package, "__init__.py"),
                                                  submodule_search_locations=[package])
    module = importlib.util.module_from_spec(spec)
    sys.modules["frontend_ops"] = module  # for the groups' relative imports
    spec.loader.exec_module(module)
    return module.CASES, module.PATTERNS


def check(name, factory, tfc_run, device, workdir, patterns):
    import torch
    import tfc_torch
    model, batch = factory()
    stem = os.path.join(workdir, name)
    exported = tfc_torch.export(model, batch, stem + ".mlir")
    # The caller's grad mode does not matter: only the model's own no_grad
    # regions are constants (an import under `with torch.no_grad():`).
    with torch.no_grad():
        tfc_torch.export(model, batch, stem + "-no-grad.mlir")
    with open(stem + ".mlir") as a, open(stem + "-no-grad.mlir") as b:
        if a.read() != b.read():
            return "importing under torch.no_grad() gives another module"
    for pattern, count in patterns.get(name, {}).items():
        if exported.patterns.get(pattern, 0) != count:
            return f"pattern {pattern} fired {exported.patterns.get(pattern, 0)} times, expected {count}"
    feed = stem + "-in.safetensors"
    exported.save_feed(feed)
    want_loss, want_grads = check_models.torch_loss_and_grads(model, batch, None)
    if len(exported.params) != len(want_grads):
        return (f"{len(exported.params)} parameter arguments for {len(want_grads)} "
                "trainable parameters")
    check_models.run_tfc(tfc_run, stem + ".mlir", feed, stem + "-out.safetensors", device, grad=True)
    got = tfc_torch.safetensors.load(stem + "-out.safetensors")
    problems = []
    loss = got["loss"]
    # Flattened: allclose with equal_nan does not broadcast a 0-d loss
    # against a [1, 1] one (loss-one-element).
    if not torch.allclose(loss.double().reshape(-1), want_loss.double().reshape(-1),
                          rtol=check_models.LOSS_RTOL, atol=check_models.LOSS_ATOL,
                          equal_nan=True):
        problems.append(f"loss {loss.item()} != {want_loss.item()}")
    worst = 0.0
    for pname, want in zip(exported.params, want_grads):
        have = got[f"grad.{pname}"]
        err, scale, ok = check_models.grad_error(have, want)
        worst = max(worst, err / (scale + check_models.GRAD_ATOL / check_models.GRAD_RTOL))
        if not ok:
            problems.append(f"gradient of {pname}: max |diff| {err:.3e} (max |grad| {scale:.3e})")
    print(f"  {name}: loss |diff| {abs(loss.item() - want_loss.item()):.2e}, "
          f"worst gradient max|diff| / (max|grad| + 1e-3) {worst:.2e}")
    return "; ".join(problems) or None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tfc-run", required=True)
    ap.add_argument("--case", action="append")
    ap.add_argument("--device", default="host")
    args = ap.parse_args()
    if check_models.device_missing(args.tfc_run, args.device):
        return check_models.SKIP
    cases, patterns = load_cases()
    failures = 0
    with tempfile.TemporaryDirectory(prefix="tfc-frontend-ops-") as workdir:
        for name in args.case or cases:
            if name not in cases:
                print(f"unknown case '{name}' (known: {', '.join(cases)})")
                return 1
            try:
                problem = check(name, cases[name], args.tfc_run, args.device, workdir, patterns)
            except Exception as e:  # noqa: BLE001 - report and go on
                problem = f"{type(e).__name__}: {e}"
            print(f"{'FAIL' if problem else 'ok  '} {name}" + (f": {problem}" if problem else ""))
            failures += bool(problem)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
