"""The optimizers --tfc-build-train-step composes of plain tfc ops
(rmsprop, adagrad, adamax, nadam, radam) against torch.optim for 20 steps.

Each case trains a 32x16 matrix and a 48-vector on the loss sum(P * G), whose
gradient is exactly the fed G, with fresh random gradients every step (rows of
different scales): one tfc-run --train-step per step (compiled once, then the
artifact), parameters and optimizer state carried over with --state-out /
--inputs. torch.optim's optimizer (foreach=False, torch 1.13's CPU step) gets
the same initial parameters and gradients, and weight decay on the matrix
only (tfc's default groups: rank < 2 parameters are not decayed). After every
step every parameter and state (named as torch's state_dict: P.square_avg,
P.sum, P.mu_product, ...) must equal torch's under torch.testing's f32
tolerances; the largest normwise errors (max|tfc - torch| / max|torch|) of
the parameters, of their change since step 0 and of the states are printed.
The *-f64 cases train f64 parameters (tfc computes and keeps state in f64)
under torch.testing's f64 tolerances; the *-skip-first cases train with loss
scaling after a first step that the scaler skips (an inf gradient).

Usage: composed_optimizers.py --tfc-run BIN [--device host|cuda] [--case NAME] [--seed N]
Exit codes: 0 pass, 1 mismatch or failure, 77 skipped (device unavailable).
"""
import os
import subprocess
import sys

import torch

import run_numerics
import safetensors_io

STEPS = 20
SHAPES = {"m": (32, 16), "v": (48,)}


def f32(x):
    """The f32 value tfc's runtime learning rate holds for an f32 model;
    torch gets it too (an f64 model's rate is f64: x as it is)."""
    return float(torch.tensor(x, dtype=torch.float32))


# name -> (pass options, torch.optim class, its keyword arguments, lr[, the
# parameters' dtype, default f32]); the weight_decay keyword applies to the
# matrix only.
CASES = {
    "rmsprop": ("optimizer=rmsprop", torch.optim.RMSprop, {}, 1e-2),
    "rmsprop-options": ("optimizer=rmsprop alpha=0.9 eps=1e-6 weight-decay=0.1",
                        torch.optim.RMSprop, {"alpha": 0.9, "eps": 1e-6, "weight_decay": 0.1},
                        3e-3),
    "rmsprop-momentum": ("optimizer=rmsprop momentum=0.9", torch.optim.RMSprop,
                         {"momentum": 0.9}, 1e-3),
    "rmsprop-centered": ("optimizer=rmsprop centered=true momentum=0.5 weight-decay=0.01",
                         torch.optim.RMSprop,
                         {"centered": True, "momentum": 0.5, "weight_decay": 0.01}, 1e-3),
    # eps defaults to torch's 1e-10 for adagrad.
    "adagrad": ("optimizer=adagrad", torch.optim.Adagrad, {}, 1e-2),
    "adagrad-options": ("optimizer=adagrad lr-decay=0.05 initial-accumulator-value=0.5 "
                        "eps=1e-6 weight-decay=0.1", torch.optim.Adagrad,
                        {"lr_decay": 0.05, "initial_accumulator_value": 0.5, "eps": 1e-6,
                         "weight_decay": 0.1}, 5e-2),
    "adamax": ("optimizer=adamax", torch.optim.Adamax, {}, 2e-3),
    "adamax-options": ("optimizer=adamax beta1=0.8 beta2=0.99 eps=1e-3 weight-decay=0.1",
                       torch.optim.Adamax,
                       {"betas": (0.8, 0.99), "eps": 1e-3, "weight_decay": 0.1}, 1e-2),
    "nadam": ("optimizer=nadam", torch.optim.NAdam, {}, 2e-3),
    "nadam-options": ("optimizer=nadam beta1=0.8 beta2=0.99 eps=1e-6 momentum-decay=0.05 "
                      "weight-decay=0.1", torch.optim.NAdam,
                      {"betas": (0.8, 0.99), "eps": 1e-6, "momentum_decay": 0.05,
                       "weight_decay": 0.1}, 1e-2),
    # beta2 0.999: rho_t > 5 from step 6 (the unrectified update before).
    "radam": ("optimizer=radam", torch.optim.RAdam, {}, 1e-3),
    # beta2 0.9: rho_inf = 19 (rho_t > 5 from step 6 as well).
    "radam-options": ("optimizer=radam beta1=0.8 beta2=0.9 eps=1e-6 weight-decay=0.1",
                      torch.optim.RAdam,
                      {"betas": (0.8, 0.9), "eps": 1e-6, "weight_decay": 0.1}, 1e-2),
}


class NAdamFixedProduct(torch.optim.NAdam):
    """torch.optim.NAdam as torch >= 2.0 steps it: the next momentum product
    is mu_product * mu_{t+1} (torch 1.13 multiplies by mu_t once more). On
    this torch, a transcription of its single-tensor step with that one
    change; on torch >= 2.0, torch's own."""

    @torch.no_grad()
    def step(self, closure=None):
        if int(torch.__version__.split(".")[0]) >= 2:
            return super().step(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                state = self.state[p]
                if not state:
                    state["step"] = torch.tensor(0.0)
                    state["mu_product"] = torch.ones((), dtype=torch.float32)
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                t = state["step"].item()
                grad = p.grad
                if group["weight_decay"] != 0:
                    grad = grad.add(p, alpha=group["weight_decay"])
                psi = group["momentum_decay"]
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (t * psi)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((t + 1) * psi)))
                state["mu_product"] *= mu
                product = state["mu_product"]
                product_next = product * mu_next
                state["exp_avg"].mul_(beta1).add_(grad, alpha=1 - beta1)
                state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                denom = state["exp_avg_sq"].div(1 - beta2 ** t).sqrt().add_(group["eps"])
                lr = group["lr"]
                p.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - product.item())))
                p.addcdiv_(state["exp_avg"], denom,
                           value=(-lr * mu_next) / (1.0 - product_next.item()))


# nadam-fixed-product=true: the torch >= 2.0 form.
CASES["nadam-fixed-product"] = ("optimizer=nadam nadam-fixed-product=true beta1=0.8 "
                                "momentum-decay=0.05 weight-decay=0.1", NAdamFixedProduct,
                                {"betas": (0.8, 0.999), "momentum_decay": 0.05,
                                 "weight_decay": 0.1}, 1e-2)
# The same with f64 parameters: tfc computes and keeps the state in f64 (NAdam's
# mu_product stays f32, as torch's); torch.testing's f64 tolerances.
for _name in ("rmsprop-centered", "adagrad-options", "adamax-options", "nadam-options",
              "radam-options"):
    CASES[_name + "-f64"] = CASES[_name] + (torch.float64,)
# With loss scaling and a first step that the scaler skips (an inf gradient):
# the state torch initializes to non-zero values is still read right.
for _name in ("adagrad-options", "nadam"):
    _options, *_rest = CASES[_name]
    CASES[_name + "-skip-first"] = (_options + " loss-scaling=true", *_rest)


def build_mlir(element):
    args, body, terms = [], [], []
    scalar = f"tensor<{element}>"
    for name, shape in SHAPES.items():
        t = "tensor<" + "".join(f"{d}x" for d in shape) + f"{element}>"
        dims = ", ".join(str(i) for i in range(len(shape)))
        args.append(f'%{name}: {t} {{tfc.param = "{name}"}}')
        args.append(f'%g{name}: {t} {{tfc.input = "g{name}"}}')
        body.append(f"  %pg{name} = tfc.mul %{name}, %g{name} : {t}, {t}")
        body.append(f"  %s{name} = tfc.reduce_sum %pg{name} dims [{dims}] : {t} -> {scalar}")
        terms.append(f"%s{name}")
    body.append(f"  %sum = tfc.add {terms[0]}, {terms[1]} : {scalar}, {scalar}")
    return (f"func.func @loss({', '.join(args)}) -> {scalar} {{\n" + "\n".join(body) +
            f"\n  return %sum : {scalar}\n}}\n")


def normwise_error(have, want):
    want = want.to(torch.float64)
    scale = want.abs().max().item()
    err = (have.to(torch.float64) - want).abs().max().item()
    return err / scale if scale > 0 else err


def run_case(args, case, seed, workdir):
    options, optim, kw, lr, *rest = CASES[case]
    dtype = rest[0] if rest else torch.float32
    lr = lr if dtype == torch.float64 else f32(lr)
    model = os.path.join(workdir, "model.mlir")
    with open(model, "w") as f:
        f.write(build_mlir("f64" if dtype == torch.float64 else "f32"))
    artifact = os.path.join(workdir, f"{case}-artifact")
    g = torch.Generator().manual_seed(seed)
    params = {n: torch.nn.Parameter(torch.randn(s, generator=g, dtype=dtype))
              for n, s in SHAPES.items()}
    groups = [{"params": [params["m"]]},
              {"params": [params["v"]], "weight_decay": 0.0}]
    opt = optim(groups, lr=lr, foreach=False, **kw)
    carried = {n: p.detach().clone() for n, p in params.items()}
    initial = {n: p.detach().to(torch.float64) for n, p in params.items()}
    state_out = os.path.join(workdir, "state.safetensors")
    worst = {"params": 0.0, "moved": 0.0, "state": 0.0}
    compiled = False

    def run_tfc(grads):
        """One train step of tfc on `carried` (compiled once, then the
        artifact); returns the state written, or the failure as a str."""
        nonlocal compiled
        feed = dict(carried)
        feed.update({f"g{n}": gr for n, gr in grads.items()})
        feed["lr"] = torch.tensor(lr, dtype=dtype)  # the rate's type is the model's
        inp = os.path.join(workdir, "in.safetensors")
        safetensors_io.save(feed, inp)
        cmd = [args.tfc_run, artifact if compiled else model, "--inputs", inp, "--steps", "1",
               "--state-out", state_out, "--device", args.device, "--quiet"]
        if not compiled:
            cmd += ["--train-step", options, "--emit-artifact", artifact]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            return f"tfc-run failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}"
        compiled = True
        return safetensors_io.load(state_out)

    if case.endswith("-skip-first"):
        # The loss scaler skips a first step with an inf gradient: the step
        # count stays 0, so the next step is the first again and reads the
        # state torch starts from (sum = initial accumulator, mu_product = 1)
        # though the skipped step left the zero-filled state as it was.
        bad = {n: torch.zeros(s, dtype=dtype) for n, s in SHAPES.items()}
        bad["v"][3] = float("inf")
        got = run_tfc(bad)
        if isinstance(got, str):
            return f"skipped step: {got}"
        if int(got["step"]) != 0 or float(got["loss_scale"]) != 32768:
            return (f"skipped step: step {int(got['step'])}, loss scale "
                    f"{float(got['loss_scale'])} (want 0 and 32768)")
        carried = got
    for step in range(1, STEPS + 1):
        grads = {n: (torch.randn(s, generator=g) * torch.rand(s[:-1] + (1,), generator=g) * 3
                     if len(s) > 1 else torch.randn(s, generator=g)).to(dtype)
                 for n, s in SHAPES.items()}
        for n, p in params.items():
            p.grad = grads[n].clone()
        opt.step()
        got = run_tfc(grads)
        if isinstance(got, str):
            return f"step {step}: {got}"
        if "step" not in got or int(got["step"]) != step:
            return f"step {step}: step counter {got.get('step')}"
        for n, p in params.items():
            pairs = [(n, p.detach())]
            pairs += [(f"{n}.{key}", value) for key, value in opt.state[p].items()
                      if key != "step"]
            for key, want in pairs:
                have = got.get(key)
                if have is None:
                    return f"step {step}: '{key}' missing from the state ({sorted(got)})"
                if have.shape != want.shape or have.dtype != want.dtype:
                    return (f"step {step}: '{key}' is {have.dtype} {tuple(have.shape)}, torch's "
                            f"{want.dtype} {tuple(want.shape)}")
                kind = "params" if key == n else "state"
                worst[kind] = max(worst[kind], normwise_error(have, want))
                if key == n:
                    # The distance moved so far, where the rounding of the
                    # parameters themselves does not hide the update's error.
                    moved = normwise_error(have.to(torch.float64) - initial[n],
                                           want.to(torch.float64) - initial[n])
                    worst["moved"] = max(worst["moved"], moved)
                try:
                    torch.testing.assert_close(have, want)
                except AssertionError as e:
                    return f"step {step}: '{key}': {e}"
        carried = got
    print(f"     {case}: max normwise rel. error vs torch.optim over {STEPS} steps: params "
          f"{worst['params']:.2e}, their change since step 0 {worst['moved']:.2e}, "
          f"state {worst['state']:.2e}")
    return None


def main():
    args, seed = run_numerics.start("composed_optimizers", [("--case", {"action": "append"})],
                                    model=False)
    if args is None:
        return seed
    return run_numerics.run_cases("composed_optimizers", CASES, args.case,
                                  lambda case, workdir: run_case(args, case, seed, workdir))


if __name__ == "__main__":
    sys.exit(main())
