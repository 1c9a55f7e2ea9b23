"""optimizer=adafactor of --tfc-build-train-step against a reference.

PyTorch 1.13 has no torch.optim.Adafactor, so `reference_step` below
transcribes the algorithm as torch.optim.Adafactor (PyTorch >= 2.5)
documents it (Shazeer & Stern 2018 with torch's lr, weight decay and eps1
conventions; the formula is in docs/training.md) in plain tensor ops. It runs
in float64 and in float32.

Each case trains parameters of ranks 1, 2 and 3 (a batched matrix: factored
over its last two dims) of a loss sum(P * G), whose gradient is exactly the
fed G, for 20 steps with fresh random gradients: one tfc-run --train-step per
step, params and optimizer state carried over with --state-out / --inputs.
After every step the params and states (row_var, col_var, variance) must
equal the float32 reference to RTOL (normwise: max|tfc - ref| / max|ref|);
the error against the float64 reference is printed next to that of the
float32 reference itself.

Usage: adafactor.py --tfc-run BIN [--device host|cuda] [--case NAME] [--seed N]
Exit codes: 0 pass, 1 mismatch or failure, 77 skipped (device unavailable).
"""
import os
import subprocess
import sys

import torch

import run_numerics
import safetensors_io

STEPS = 20
RTOL = 1e-5
SHAPES = {"v": (48,), "m": (32, 16), "b": (3, 8, 12)}


def reference_state(p):
    """Zero state of a parameter, named as torch's state dict."""
    if p.dim() < 2:
        return {"variance": torch.zeros_like(p)}
    rows, cols = list(p.shape), list(p.shape)
    rows[-1] = 1
    cols[-2] = 1
    return {"row_var": p.new_zeros(rows), "col_var": p.new_zeros(cols)}


def reference_step(p, g, state, step, lr, beta2_decay=-0.8, eps1=None, eps2=1e-3,
                   d=1.0, weight_decay=0.0):
    """One Adafactor update of p (in place, returns p) with gradient g; step
    is the count after the increment. Python-float scalars as torch does."""
    if eps1 is None:
        eps1 = torch.finfo(p.dtype).eps
    one_minus_beta2 = step ** beta2_decay
    rho = min(lr, 1 / step ** 0.5)
    alpha = max(eps2, p.norm(2).item() / p.numel() ** 0.5) * rho
    if weight_decay != 0:
        p.mul_(1 - lr * weight_decay)
    if g.dim() > 1:
        row_mean = torch.linalg.vector_norm(g, dim=-1, keepdim=True).square() / g.size(-1)
        state["row_var"].lerp_(row_mean, one_minus_beta2)
        col_mean = torch.linalg.vector_norm(g, dim=-2, keepdim=True).square() / g.size(-2)
        state["col_var"].lerp_(col_mean, one_minus_beta2)
        var = state["row_var"] @ state["col_var"]
        var = var / state["row_var"].mean(dim=-2, keepdim=True).clamp(min=eps1)
    else:
        state["variance"].lerp_(g * g, one_minus_beta2)
        var = state["variance"].clone()
    update = var.clamp(min=eps1 * eps1).rsqrt() * g
    denom = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * d))
    p.add_(update, alpha=-alpha / denom)
    return p


def normwise_error(have, want):
    want = want.to(torch.float64)
    scale = want.abs().max().item()
    err = (have.to(torch.float64) - want).abs().max().item()
    return err / scale if scale > 0 else err


# name -> (pass options, lr, reference keyword arguments, decayed params)
CASES = {
    # torch's defaults: lr 1e-2 caps rho_t at every step.
    "defaults": ("", 1e-2, {}, ()),
    # lr 0.5: rho_t = 1/sqrt(t) from step 5 on; weight decay on the
    # rank >= 2 params only (tfc's default groups); every option changed.
    "options": ("weight-decay=0.1 beta2-decay=-0.5 eps1=1e-6 eps2=1e-2 clip-threshold=2",
                0.5, {"weight_decay": 0.1, "beta2_decay": -0.5, "eps1": 1e-6, "eps2": 1e-2,
                      "d": 2.0}, ("m", "b")),
}


def build_mlir():
    args, body, terms = [], [], []
    for name, shape in SHAPES.items():
        t = "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"
        dims = ", ".join(str(i) for i in range(len(shape)))
        args.append(f'%{name}: {t} {{tfc.param = "{name}"}}')
        args.append(f'%g{name}: {t} {{tfc.input = "g{name}"}}')
        body.append(f"  %pg{name} = tfc.mul %{name}, %g{name} : {t}, {t}")
        body.append(f"  %s{name} = tfc.reduce_sum %pg{name} dims [{dims}] : {t} -> tensor<f32>")
        terms.append(f"%s{name}")
    acc = terms[0]
    for i, term in enumerate(terms[1:]):
        body.append(f"  %acc{i} = tfc.add {acc}, {term} : tensor<f32>, tensor<f32>")
        acc = f"%acc{i}"
    return (f"func.func @loss({', '.join(args)}) -> tensor<f32> {{\n" + "\n".join(body) +
            f"\n  return {acc} : tensor<f32>\n}}\n")


def run_case(args, case, seed, workdir):
    options, lr, kw, decayed = CASES[case]
    lr = float(torch.tensor(lr, dtype=torch.float32))  # the f32 runtime input
    model = os.path.join(workdir, "adafactor.mlir")
    with open(model, "w") as f:
        f.write(build_mlir())
    g = torch.Generator().manual_seed(seed)
    init = {n: torch.randn(s, generator=g) for n, s in SHAPES.items()}
    refs = {dt: {n: p.to(dt).clone() for n, p in init.items()}
            for dt in (torch.float32, torch.float64)}
    states = {dt: {n: reference_state(p) for n, p in refs[dt].items()} for dt in refs}
    carried = dict(init)
    state_out = os.path.join(workdir, "state.safetensors")
    worst = {"tfc-f32": 0.0, "tfc-f64": 0.0, "f32-f64": 0.0}
    for step in range(1, STEPS + 1):
        # Rows of different scales, so the factored estimate is not flat.
        grads = {n: torch.randn(s, generator=g) * torch.rand(s[:-1] + (1,), generator=g) * 3
                 if len(s) > 1 else torch.randn(s, generator=g) for n, s in SHAPES.items()}
        feed = dict(carried)
        feed.update({f"g{n}": gr for n, gr in grads.items()})
        feed["lr"] = torch.tensor(lr, dtype=torch.float32)
        inp = os.path.join(workdir, "in.safetensors")
        safetensors_io.save(feed, inp)
        cmd = [args.tfc_run, model, "--train-step", f"optimizer=adafactor {options}".strip(),
               "--inputs", inp, "--steps", "1", "--state-out", state_out,
               "--device", args.device, "--quiet"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            return f"step {step}: tfc-run failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}"
        got = safetensors_io.load(state_out)
        for dt in refs:
            for n, p in refs[dt].items():
                # Both references use the epsilon of tfc's f32 parameters.
                step_kw = {"eps1": torch.finfo(torch.float32).eps, **kw}
                if n not in decayed:
                    step_kw["weight_decay"] = 0.0
                reference_step(p, grads[n].to(dt), states[dt][n], step, lr, **step_kw)
        if "step" not in got or int(got["step"]) != step:
            return f"step {step}: step counter {got.get('step')}"
        for n in SHAPES:
            pairs = [(n, refs[torch.float32][n], refs[torch.float64][n])]
            pairs += [(f"{n}.{s}", states[torch.float32][n][s], states[torch.float64][n][s])
                      for s in states[torch.float32][n]]
            for key, want32, want64 in pairs:
                have = got.get(key)
                if have is None:
                    return f"step {step}: '{key}' missing from the state"
                if have.shape != want32.shape or have.dtype != torch.float32:
                    return f"step {step}: '{key}' is {have.dtype} {tuple(have.shape)}"
                e32 = normwise_error(have, want32)
                worst["tfc-f32"] = max(worst["tfc-f32"], e32)
                worst["tfc-f64"] = max(worst["tfc-f64"], normwise_error(have, want64))
                worst["f32-f64"] = max(worst["f32-f64"], normwise_error(want32, want64))
                if not e32 <= RTOL:
                    return f"step {step}: '{key}' differs from the f32 reference by {e32:.3g} (> {RTOL})"
        carried = got
    print(f"     {case}: max normwise rel. error tfc vs f32 ref {worst['tfc-f32']:.2e}, "
          f"tfc vs f64 ref {worst['tfc-f64']:.2e}, f32 ref vs f64 ref {worst['f32-f64']:.2e}")
    return None


def main():
    args, seed = run_numerics.start("adafactor", [("--case", {"action": "append"})],
                                    model=False)
    if args is None:
        return seed
    return run_numerics.run_cases("adafactor", CASES, args.case,
                                  lambda case, workdir: run_case(args, case, seed, workdir))


if __name__ == "__main__":
    sys.exit(main())
