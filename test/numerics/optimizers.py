"""tfc.adamw / tfc.adam / tfc.sgd against torch.optim for 20 steps.

Each case is a function of one optimizer op over two parameters of different
shapes (so one multi_tensor kernel per parameter runs). tfc-run runs it once
per step; its outputs (parameters and state) are fed back as the next step's
inputs, with the step count after the increment and the learning rate as 0-d
runtime tensors. PyTorch's optimizer (foreach=False, as 1.13 defaults on CPU)
gets the same initial parameters and the same random gradients. Parameters
and state are compared after every step with torch.testing's f32 tolerances.

Usage: optimizers.py --tfc-run BIN [--device host|cuda] [--case NAME] [--seed N]
Exit codes: 0 pass, 1 mismatch or failure, 77 skipped (device unavailable).
"""
import os
import subprocess
import sys

import torch

import run_numerics
import safetensors_io

STEPS = 20
SHAPES = [(32, 16), (48,)]
# The learning rate is a runtime f32 tensor; torch gets the same f32 value.
LR = float(torch.tensor(3e-3, dtype=torch.float32))


def ttype(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


# name -> (torch optimizer factory, tfc op text builder, state names)
def adamw_case(attrs, **kw):
    def op(i, t):
        return (f"  %p{i}n, %m{i}n, %v{i}n = tfc.adamw %p{i}, %g{i}, %m{i}, %v{i}, %lr, %step {attrs}"
                f" : {t}, {t}, tensor<f32>", [f"%p{i}n", f"%m{i}n", f"%v{i}n"])
    return (lambda ps: torch.optim.AdamW(ps, lr=LR, **kw), op, ["m", "v"],
            {"m": "exp_avg", "v": "exp_avg_sq"})


def adam_case(attrs, **kw):
    def op(i, t):
        return (f"  %p{i}n, %m{i}n, %v{i}n = tfc.adam %p{i}, %g{i}, %m{i}, %v{i}, %lr, %step {attrs}"
                f" : {t}, {t}, tensor<f32>", [f"%p{i}n", f"%m{i}n", f"%v{i}n"])
    return (lambda ps: torch.optim.Adam(ps, lr=LR, **kw), op, ["m", "v"],
            {"m": "exp_avg", "v": "exp_avg_sq"})


def sgd_case(attrs, momentum=0.0, **kw):
    def op(i, t):
        if momentum:
            return (f"  %p{i}n, %b{i}n = tfc.sgd %p{i}, %g{i}, %lr, %step momentum_buffer(%b{i} : {t})"
                    f" {attrs} : {t}, {t}, tensor<f32>", [f"%p{i}n", f"%b{i}n"])
        return (f"  %p{i}n = tfc.sgd %p{i}, %g{i}, %lr, %step {attrs} : {t}, {t}, tensor<f32>",
                [f"%p{i}n"])
    return (lambda ps: torch.optim.SGD(ps, lr=LR, momentum=momentum, **kw), op,
            ["b"] if momentum else [], {"b": "momentum_buffer"})


CASES = {
    "adamw": adamw_case("", weight_decay=1e-2),
    "adamw-options": adamw_case("beta1 8.000000e-01 beta2 9.900000e-01 eps 1.000000e-06 "
                                "weight_decay 1.000000e-01 maximize",
                                betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, maximize=True),
    "adam": adam_case(""),
    "adam-l2": adam_case("weight_decay 1.000000e-02", weight_decay=1e-2),
    "sgd": sgd_case(""),
    "sgd-momentum": sgd_case("momentum 9.000000e-01 dampening 1.000000e-01 weight_decay 1.000000e-02",
                             momentum=0.9, dampening=0.1, weight_decay=1e-2),
    "sgd-nesterov": sgd_case("momentum 9.000000e-01 nesterov weight_decay 1.000000e-04",
                             momentum=0.9, nesterov=True, weight_decay=1e-4),
}


def build_mlir(case):
    _, op, state, _ = CASES[case]
    args, body, results = [], [], []
    for i, shape in enumerate(SHAPES):
        t = ttype(shape)
        args.append(f"%p{i}: {t} {{tfc.input = \"p{i}\"}}")
        args.append(f"%g{i}: {t} {{tfc.input = \"g{i}\"}}")
        for s in state:
            args.append(f"%{s}{i}: {t} {{tfc.input = \"{s}{i}\"}}")
        text, outs = op(i, t)
        body.append(text)
        results += [(o, t) for o in outs]
    args += ['%lr: tensor<f32> {tfc.input = "lr"}', '%step: tensor<i64> {tfc.input = "step"}']
    ret = ", ".join(o for o, _ in results)
    types = ", ".join(t for _, t in results)
    return (f"func.func @f({', '.join(args)}) -> ({types}) {{\n" + "\n".join(body) +
            f"\n  return {ret} : {types}\n}}\n")


def run_case(tfc_run, case, device, seed, workdir):
    make_opt, _, state, torch_state = CASES[case]
    g = torch.Generator().manual_seed(seed)
    params = [torch.nn.Parameter(torch.randn(s, generator=g)) for s in SHAPES]
    opt = make_opt(params)
    model = os.path.join(workdir, f"{case}.mlir")
    with open(model, "w") as f:
        f.write(build_mlir(case))
    feed = {f"p{i}": p.detach().clone() for i, p in enumerate(params)}
    for i, s in enumerate(SHAPES):
        for name in state:
            # Adam's moments start at zero; the SGD buffer's initial contents
            # are ignored on step 1 (torch clones d_p), so feed garbage.
            feed[f"{name}{i}"] = torch.zeros(s) if name != "b" else torch.full(s, float("nan"))
    artifact = os.path.join(workdir, f"{case}-artifact")
    for step in range(1, STEPS + 1):
        grads = [torch.randn(s, generator=g) for s in SHAPES]
        for p, gr in zip(params, grads):
            p.grad = gr.clone()
        opt.step()
        for i, gr in enumerate(grads):
            feed[f"g{i}"] = gr
        feed["lr"] = torch.tensor(LR, dtype=torch.float32)
        feed["step"] = torch.tensor(step, dtype=torch.int64)
        inp = os.path.join(workdir, "in.safetensors")
        out = os.path.join(workdir, "out.safetensors")
        safetensors_io.save(feed, inp)
        # Compile once (step 1), then run the saved artifact.
        src = model if step == 1 else artifact
        cmd = [tfc_run, src, "--inputs", inp, "--outputs", out, "--device", device, "--quiet"]
        if step == 1:
            cmd += ["--function", "f", "--emit-artifact", artifact]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            return f"step {step}: tfc-run failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}"
        got = safetensors_io.load(out)
        k = 0
        for i, p in enumerate(params):
            names = [("p", p.detach())] + [(s, opt.state[p][torch_state[s]]) for s in state]
            for name, want in names:
                have = got.get(f"out{k}")
                k += 1
                if have is None:
                    return f"step {step}: output out{k - 1} missing"
                try:
                    torch.testing.assert_close(have, want)
                except AssertionError as e:
                    return f"step {step}: {name}{i}: {e}"
                feed[f"{name}{i}"] = have
    return None


def main():
    args, seed = run_numerics.start("optimizers", [("--case", {"action": "append"})],
                                    model=False)
    if args is None:
        return seed
    return run_numerics.run_cases(
        "optimizers", CASES, args.case,
        lambda case, workdir: run_case(args.tfc_run, case, args.device, seed, workdir))


if __name__ == "__main__":
    sys.exit(main())
