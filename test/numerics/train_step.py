"""--tfc-build-train-step end to end: training steps against PyTorch.

adamw: examples/models/mlp.mlir trained 20 steps with AdamW inside ONE
tfc-run process (--train-step, --steps 20: params and optimizer state stay
in the runtime and are updated in place) against torch.optim.AdamW on the
same initial weights and batch; per-step losses must agree to 1e-4
relative, and the final parameters to f32 tolerances.

adafactor: the same with optimizer=adafactor against the reference
transcription of adafactor.py (torch 1.13 has no torch.optim.Adafactor).

loss-scaler: the same model with loss-scaling=true and growth-interval=3,
one tfc-run per step (params and state carried over with --state-out /
--inputs), against torch GradScaler's update rule transcribed below. At
chosen steps the batch holds an inf (or NaN) so the gradients overflow:
those steps must report found_inf, keep every parameter and state
bit-identical, and back the scale off; the scale trajectory must equal the
reference's exactly.

lr-schedule: warmup-cosine and warmup-linear computed on the device from
the step counter (inputs lr, min_lr, warmup_steps, total_steps set once):
the applied_lr output of each step equals the formula below, and 14 steps
(past total_steps: the rate stays at min_lr) equal torch.optim.AdamW with
its group lr set to the same formula before each step.

Usage: train_step.py --tfc-run BIN --model mlp.mlir [--device host|cuda]
       [--case adamw|adafactor|loss-scaler|loss-scaler-bounds|lr-schedule] [--seed N]
Exit codes: 0 pass, 1 mismatch or failure, 77 skipped (device unavailable).
"""
import json
import math
import os
import subprocess
import sys

import torch
import torch.nn.functional as F

import adafactor
import run_numerics
import safetensors_io

STEPS = 20
LR = float(torch.tensor(1e-3, dtype=torch.float32))
PARAMS = {"fc1.weight": (128, 64), "fc1.bias": (128,),
          "fc2.weight": (10, 128), "fc2.bias": (10,)}


def init(seed):
    g = torch.Generator().manual_seed(seed)
    params = {n: (torch.randn(s, generator=g) * 0.1) for n, s in PARAMS.items()}
    batch = {"x": torch.randn(32, 64, generator=g),
             "labels": torch.randint(0, 10, (32,), generator=g)}
    return params, batch


def param_groups(params):
    """tfc's default groups: no weight decay for rank < 2 (biases)."""
    return [{"params": [p for p in params.values() if p.dim() >= 2]},
            {"params": [p for p in params.values() if p.dim() < 2], "weight_decay": 0.0}]


def torch_loss(p, batch):
    h = F.relu(F.linear(batch["x"], p["fc1.weight"], p["fc1.bias"]))
    return F.cross_entropy(F.linear(h, p["fc2.weight"], p["fc2.bias"]), batch["labels"])


def run_tfc(args, workdir, options, feed, steps, state_out=None, entry=None):
    """Runs the train step of `options` `steps` times on `feed` (or, with
    `entry`, that one entry of the program); returns the trace records."""
    inp = os.path.join(workdir, "in.safetensors")
    trace = os.path.join(workdir, "trace.jsonl")
    safetensors_io.save(feed, inp)
    cmd = [args.tfc_run, args.model, "--train-step", options, "--inputs", inp,
           "--steps", str(steps), "--trace", trace, "--device", args.device, "--quiet"]
    if state_out:
        cmd += ["--state-out", state_out]
    if entry:
        cmd += ["--entry", entry]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"tfc-run failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    with open(trace) as f:
        return [json.loads(line) for line in f]


# An element whose gradient was below NOISY_GRAD (10x Adam's eps) at some
# step takes Adam updates set by eps and by the gradient's rounding (a batch
# sum that cancels to ~1e-9, whose f32 value depends on the summation order,
# tfc's not torch's): its update can move by up to ~lr per step (seed
# 988642836: fc1.weight[70, 18], gradient 2e-9, 3e-5 apart after 20 steps).
# Such elements are held to that bound; every other element to f32
# tolerances.
NOISY_GRAD = 1e-7


def note_gradients(tp, noisy):
    """Adds to `noisy` (name -> bool mask) the elements of `tp` whose
    gradient is nonzero and below NOISY_GRAD now (after a backward; an
    exact zero, a dead ReLU unit's, is exact in both)."""
    for n, p in tp.items():
        small = (p.grad != 0) & (p.grad.abs() < NOISY_GRAD)
        noisy[n] = small if n not in noisy else noisy[n] | small


def compare_params(label, state, tp, noisy=None, noisy_atol=0.0):
    """None when every parameter of `state` equals torch's `tp` to f32
    tolerances of a few steps (the `noisy` elements within noisy_atol),
    else what differs."""
    for n, p in tp.items():
        have, want = state[n], p.detach()
        mask = (noisy or {}).get(n)
        if mask is not None and bool(mask.any()):
            worst = (have - want).abs()[mask].max().item()
            if not worst <= noisy_atol:
                return (f"{label}: {n}: an element with a gradient below {NOISY_GRAD} is "
                        f"{worst:.3g} from torch's (allowed {noisy_atol:.3g})")
            have, want = have[~mask], want[~mask]
        try:
            torch.testing.assert_close(have, want, rtol=1e-4, atol=1e-5)
        except AssertionError as e:
            return f"{label}: {n}: {e}"
    return None


def check_scaler(step, rec, ref, found):
    """The step's found_inf, loss_scale and growth_tracker against the
    GradScaler reference `ref` (already updated for this step)."""
    if rec["found_inf"] != found:
        return f"step {step}: found_inf {rec['found_inf']}, expected {found}"
    if rec["loss_scale"] != float(ref.scale):
        return f"step {step}: loss_scale {rec['loss_scale']} != reference {float(ref.scale)}"
    if rec["growth_tracker"] != ref.tracker:
        return f"step {step}: growth_tracker {rec['growth_tracker']} != {ref.tracker}"
    return None


def check_unchanged(step, before, after, skip=lambda name: False):
    """A skipped step: every tensor of `before` but the scaler's own state
    (and those `skip` names) is bit-identical in `after`."""
    for name, old in before.items():
        if name in ("loss_scale", "growth_tracker") or skip(name):
            continue
        if not torch.equal(after[name], old):
            return f"step {step}: '{name}' changed across a skipped step"
    return None


def schedule_rate(kind, s, lr, min_lr, warmup, total):
    """The rate of the step after `s` steps (passes/training/LearningRate.cpp)."""
    if s < warmup:
        return lr * (s + 1) / warmup
    p = min(max((s - warmup) / max(1, total - warmup - 1), 0.0), 1.0)
    if kind == "warmup-cosine":
        return min_lr + (lr - min_lr) * 0.5 * (1 + math.cos(math.pi * p))
    return lr - (lr - min_lr) * p


def case_lr_schedule(args, workdir, seed):
    params, batch = init(seed)
    lr, min_lr, warmup, total, steps = 2e-3, 2e-4, 3, 10, 14
    for kind in ("warmup-cosine", "warmup-linear"):
        feed = dict(params)
        feed.update(batch)
        feed.update({"lr": torch.tensor(lr), "min_lr": torch.tensor(min_lr),
                     "warmup_steps": torch.tensor(warmup),
                     "total_steps": torch.tensor(total)})
        state_out = os.path.join(workdir, "state.safetensors")
        trace = run_tfc(args, workdir, f"optimizer=adamw schedule={kind}", feed, steps,
                        state_out)
        tp = {n: torch.nn.Parameter(t.clone()) for n, t in params.items()}
        opt = torch.optim.AdamW(param_groups(tp), lr=lr)
        noisy = {}
        for step in range(steps):
            rate = schedule_rate(kind, step, lr, min_lr, warmup, total)
            have = trace[step]["applied_lr"]
            if abs(have - rate) > 2e-6 * rate:
                return f"{kind} step {step + 1}: applied_lr {have} != {rate}"
            for group in opt.param_groups:
                group["lr"] = have  # the f32 rate tfc applied
            opt.zero_grad()
            torch_loss(tp, batch).backward()
            note_gradients(tp, noisy)
            opt.step()
        problem = compare_params(f"{kind} final", safetensors_io.load(state_out), tp, noisy,
                                 lr * steps)
        if problem:
            return problem
    return None


def case_adamw(args, workdir, seed):
    params, batch = init(seed)
    feed = dict(params)
    feed.update(batch)
    feed["lr"] = torch.tensor(LR)
    state_out = os.path.join(workdir, "state.safetensors")
    trace = run_tfc(args, workdir, "optimizer=adamw", feed, STEPS, state_out)

    tp = {n: torch.nn.Parameter(t.clone()) for n, t in params.items()}
    opt = torch.optim.AdamW(param_groups(tp), lr=LR)
    noisy = {}
    for step in range(STEPS):
        opt.zero_grad()
        loss = torch_loss(tp, batch)
        loss.backward()
        note_gradients(tp, noisy)
        opt.step()
        have, want = trace[step]["loss"], float(loss)
        if abs(have - want) > 1e-4 * abs(want):
            return f"step {step + 1}: loss {have} != torch {want}"
        if trace[step]["step"] != step + 1:
            return f"step {step + 1}: step counter {trace[step]['step']}"
    problem = compare_params("final", safetensors_io.load(state_out), tp, noisy, LR * STEPS)
    if problem:
        return problem
    if float(trace[-1]["loss"]) >= float(trace[0]["loss"]):
        return "the loss did not fall"
    return None


def case_adafactor(args, workdir, seed):
    """optimizer=adafactor over 20 steps in one process against the
    reference transcription of adafactor.py on torch.autograd's gradients:
    per-step losses to 1e-4 relative, final params and factored state to f32
    tolerances, and the loss falls."""
    lr = float(torch.tensor(1e-2, dtype=torch.float32))
    params, batch = init(seed)
    feed = dict(params)
    feed.update(batch)
    feed["lr"] = torch.tensor(lr)
    state_out = os.path.join(workdir, "state.safetensors")
    trace = run_tfc(args, workdir, "optimizer=adafactor", feed, STEPS, state_out)

    tp = {n: t.clone().requires_grad_() for n, t in params.items()}
    states = {n: adafactor.reference_state(t) for n, t in params.items()}
    for step in range(1, STEPS + 1):
        loss = torch_loss(tp, batch)
        grads = torch.autograd.grad(loss, list(tp.values()))
        with torch.no_grad():
            for (n, p), g in zip(tp.items(), grads):
                adafactor.reference_step(p, g, states[n], step, lr)
        have, want = trace[step - 1]["loss"], float(loss)
        if abs(have - want) > 1e-4 * abs(want):
            return f"step {step}: loss {have} != reference {want}"
    got = safetensors_io.load(state_out)
    for n, p in tp.items():
        for key, want in [(n, p.detach())] + [(f"{n}.{s}", t) for s, t in states[n].items()]:
            try:
                torch.testing.assert_close(got[key], want, rtol=1e-4, atol=1e-5)
            except (AssertionError, KeyError) as e:
                return f"final {key}: {e!r}"
    first, last = float(trace[0]["loss"]), float(trace[-1]["loss"])
    if not last < 0.9 * first:
        return f"the loss did not fall (step 1 {first}, step {STEPS} {last})"
    return None


class GradScalerRule:
    """torch.cuda.amp.GradScaler's update (_amp_update_scale_), in f32."""

    def __init__(self, init_scale, growth, backoff, interval, min_scale=0.0, max_scale=0.0):
        self.scale = torch.tensor(init_scale, dtype=torch.float32)
        self.tracker = 0
        self.growth, self.backoff, self.interval = growth, backoff, interval
        # tfc's bounds (not in GradScaler): 0 means none.
        self.min_scale, self.max_scale = min_scale, max_scale

    def update(self, found_inf):
        if found_inf:
            self.scale = self.scale * self.backoff
            self.tracker = 0
        else:
            successful = self.tracker + 1
            if successful == self.interval:
                self.scale = self.scale * self.growth
                self.tracker = 0
            else:
                self.tracker = successful
        if self.min_scale > 0:
            self.scale = torch.clamp(self.scale, min=self.min_scale)
        if self.max_scale > 0:
            self.scale = torch.clamp(self.scale, max=self.max_scale)


def case_loss_scaler(args, workdir, seed):
    bad = {3: float("inf"), 4: float("inf"), 9: float("nan")}
    return scaler_trajectory(args, workdir, seed, bad, interval=3)


def case_loss_scaler_bounds(args, workdir, seed):
    """A run of overflows stops at min-scale; clean steps stop at max-scale."""
    bad = {1: float("inf"), 2: float("nan"), 3: float("inf"), 4: float("inf")}
    return scaler_trajectory(args, workdir, seed, bad, interval=2,
                             min_scale=256.0, max_scale=2048.0)


def scaler_trajectory(args, workdir, seed, bad, interval, min_scale=0.0, max_scale=0.0):
    """12 steps with inf/NaN injected at the steps in `bad`: the scale and
    tracker follow the transcribed GradScaler rule, skipped steps change
    nothing, clean steps equal torch's AdamW on the unscaled gradients."""
    params, batch = init(seed)
    options = (f"optimizer=adamw loss-scaling=true init-scale=1024 growth-interval={interval}"
               f" min-scale={min_scale} max-scale={max_scale}")
    ref = GradScalerRule(1024.0, 2.0, 0.5, interval, min_scale, max_scale)
    seen = set()
    tp = {n: torch.nn.Parameter(t.clone()) for n, t in params.items()}
    opt = torch.optim.AdamW(param_groups(tp), lr=LR)
    noisy = {}
    carried = dict(params)  # params and state after the previous step
    state_out = os.path.join(workdir, "state.safetensors")
    for step in range(1, 13):
        x = batch["x"].clone()
        if step in bad:
            x[0, 0] = bad[step]
        feed = dict(carried)
        feed.update({"x": x, "labels": batch["labels"], "lr": torch.tensor(LR)})
        rec = run_tfc(args, workdir, options, feed, 1, state_out)[0]
        after = safetensors_io.load(state_out)

        found = step in bad
        scale_used = float(ref.scale)
        if not found:
            opt.zero_grad()
            loss = torch_loss(tp, batch)
            (loss * scale_used).backward()
            for p in tp.values():
                p.grad.mul_(1.0 / scale_used)
            note_gradients(tp, noisy)
            opt.step()
        ref.update(found)
        seen.add(float(ref.scale))
        problem = check_scaler(step, rec, ref, found)
        if not problem and found:
            problem = check_unchanged(step, carried, after)
        if problem:
            return problem
        if found:
            if "step" in carried and rec["step"] != int(carried["step"]):
                return f"step {step}: step counter advanced on a skipped step"
        else:
            want = float(loss)
            if abs(rec["loss"] - want) > 1e-4 * abs(want):
                return f"step {step}: loss {rec['loss']} != torch {want}"
            problem = compare_params(f"step {step}", after, tp, noisy, LR * (step + 1))
            if problem:
                return problem
        carried = after
    for bound in (min_scale, max_scale):
        if bound > 0 and bound not in seen:
            return f"the trajectory never reached the bound {bound}: the case tests nothing"
    return None


CASES = {"adamw": case_adamw, "adafactor": case_adafactor, "loss-scaler": case_loss_scaler,
         "lr-schedule": case_lr_schedule,
         "loss-scaler-bounds": case_loss_scaler_bounds}


def main():
    args, seed = run_numerics.start("train-step", [("--case", {"action": "append"})])
    if args is None:
        return seed
    return run_numerics.run_cases("train-step", CASES, args.case,
                                  lambda case, workdir: CASES[case](args, workdir, seed))


if __name__ == "__main__":
    sys.exit(main())
