"""Benchmark: one training step (forward, backward, AdamW update) of a GPT of
examples/models/gen_gpt.py's family (--preset gpt-mini, default, or
gpt2-small) by tfc and by the same model with torch.optim.AdamW in PyTorch,
on the same device (host: PyTorch 1.13 + OpenBLAS on the CPU; cuda: the
GPU), in one run.

tfc side, one of:
  --tfc-train: `tfc-train` on synthetic data for --steps steps, as a user runs
    it (per step: a fresh batch, the train step, the loss read back); the
    step time is the median over the steps after the first (which includes
    warm-up), and the memory anatomy comes from the run's memory.json;
  --tfc-run: the AdamW train step run --steps times by `tfc-run --repeat` (or
    the GPU kit's tfcrt-run) on one batch, the median step time (what the GPU
    kit measures, where tfc-train cannot run: it needs the compiler). With
    --variants, the same step compiled with further pipeline options, each
    timed the same way and set against the default step: e.g.
    "fusion=none;precision=bf16;recompute=cheap" (what fusion, mixed
    precision and activation recompute cost or save on this device).
torch side: the median of --steps steps after warm-up (torch.cuda.synchronize
around each on a GPU) of torch.optim.AdamW in eager mode; on a GPU also with
AdamW(fused=True) (the reference the ratio uses when it exists) and, where
torch.compile exists, of the compiled forward+backward with the fused
optimizer (--no-compile skips it: inductor takes minutes on gpt2-small), and
the eager step under torch.autocast(bfloat16) with fused AdamW (what
torch.amp does by hand; tfc's `precision=bf16` variant is its counterpart).
Prints step times, tokens/s, the ratio (tfc / torch; target <= 1.5) and the
memory anatomy, and writes bench/results/train-step-<device>-<date>.json
(train-step-gpt2-small-<device>-<date>.json for gpt2-small).

Usage: /usr/bin/python3 bench/train_step.py (--tfc-train build/bin/tfc-train |
           --tfc-run build/bin/tfc-run) [--device host|cuda] [--steps 30]
           [--preset gpt-mini|gpt2-small] [--variants ...] [--no-compile]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import bench_common
import torch

import gpt_mini_model



def torch_step_ms(device, steps, fused=False, compiled=False, cfg=gpt_mini_model.GPT_MINI,
                  autocast=None):
    """Median ms of a torch AdamW step of the GPT `cfg` (default gpt-mini)
    after warm-up; `autocast` (a dtype) runs forward and loss under
    torch.autocast on the device."""
    g = torch.Generator().manual_seed(0)
    params = gpt_mini_model.init_parameters(g, cfg)
    tokens, targets = gpt_mini_model.random_batch(g, cfg)
    tokens, targets = tokens.to(device), targets.to(device)
    weights = {k: v.to(device).requires_grad_(True) for k, v in params.items()}
    opt = torch.optim.AdamW(weights.values(), lr=1e-4, weight_decay=0.01,
                            **({"fused": True} if fused else {}))
    def loss_fn(w, x, y):
        return gpt_mini_model.loss(w, x, y, cfg)
    if compiled:
        loss_fn = torch.compile(loss_fn)
    if autocast is not None:
        plain = loss_fn

        def loss_fn(w, x, y):
            with torch.autocast(device, dtype=autocast):
                return plain(w, x, y)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    times = []
    warmup = 3 if compiled else 1
    for i in range(steps + warmup):
        sync()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss_fn(weights, tokens, targets).backward()
        opt.step()
        sync()
        if i >= warmup:
            times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def torch_variants(device, steps, cfg, compile_too=True):
    """{variant: median ms} of the torch steps this torch and device have."""
    out = {"eager": torch_step_ms(device, steps, cfg=cfg)}
    if device == "cuda":
        try:
            out["eager_fused_adamw"] = torch_step_ms(device, steps, fused=True, cfg=cfg)
        except (TypeError, RuntimeError) as e:  # torch without fused AdamW
            print(f"  (no fused AdamW: {e})")
        try:
            out["autocast_bf16_fused_adamw"] = torch_step_ms(device, steps, fused=True, cfg=cfg,
                                                             autocast=torch.bfloat16)
        except (TypeError, RuntimeError) as e:
            print(f"  (no bf16 autocast with fused AdamW: {e})")
        if compile_too and hasattr(torch, "compile"):
            try:
                out["compiled_fused_adamw"] = torch_step_ms(device, steps, fused=True,
                                                            compiled=True, cfg=cfg)
            except Exception as e:  # noqa: BLE001 - an inductor failure is a finding, not fatal
                print(f"  (torch.compile failed: {type(e).__name__}: {str(e)[:300]})")
    return out


TRAIN_OPTIONS = "optimizer=adamw weight-decay=0.01"


def write_inputs(path, cfg):
    """The train step's inputs (seeded parameters, one batch, lr) as
    safetensors at `path`, written once for every tfc variant."""
    g = torch.Generator().manual_seed(0)
    tokens, targets = gpt_mini_model.random_batch(g, cfg)
    feed = {**gpt_mini_model.init_parameters(g, cfg), "tokens": tokens, "targets": targets,
            "lr": torch.tensor(1e-4, dtype=torch.float32)}
    bench_common.safetensors_io.save(feed, path)


def tfc_run_step_ms(tfc_run, model, device, steps, inputs, options=TRAIN_OPTIONS):
    """Median ms of the train step (pipeline `options`) run by tfc-run
    --repeat on the safetensors `inputs`."""
    with tempfile.TemporaryDirectory(prefix="tfc-bench-train-") as d:
        timing = os.path.join(d, "timing.json")
        proc = subprocess.run([tfc_run, model, "--train-step", options,
                               "--inputs", inputs, "--device", device, "--repeat", str(steps),
                               "--timing-json", timing, "--quiet"], capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"tfc-run failed: {proc.stderr.strip()[-2000:]}")
        with open(timing) as f:
            return json.load(f)["median_ms"]


def tfc_run(tfc_train, model, device, steps, tokens_per_step):
    """(median step ms, memory anatomy) of a tfc-train run."""
    with tempfile.TemporaryDirectory(prefix="tfc-bench-train-") as out:
        proc = subprocess.run([tfc_train, model, "--data", "synthetic:copy", "--steps", str(steps),
                               "--optimizer", "adamw", "--lr", "1e-4", "--device", device,
                               "--out", out, "--log-every", str(steps)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"tfc-train failed: {proc.stderr.strip()[-2000:]}")
        with open(os.path.join(out, "metrics.jsonl")) as f:
            records = [json.loads(line) for line in f]
        with open(os.path.join(out, "memory.json")) as f:
            memory = json.load(f)
    step_ms = [tokens_per_step / r["tokens_per_s"] * 1e3 for r in records[1:]]
    return statistics.median(step_ms), memory


def main():
    ap = argparse.ArgumentParser()
    tool = ap.add_mutually_exclusive_group(required=True)
    tool.add_argument("--tfc-train")
    tool.add_argument("--tfc-run")
    ap.add_argument("--preset", choices=sorted(gpt_mini_model.PRESETS), default="gpt-mini",
                    help="the GPT: its torch model and, without --model, "
                         "examples/models/<preset>.mlir")
    ap.add_argument("--model", help="the tfc model (default: the preset's)")
    ap.add_argument("--no-compile", action="store_true",
                    help="skip the torch.compile reference")
    ap.add_argument("--device", choices=["host", "cuda"], default="host")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--out", default=bench_common.RESULTS)
    ap.add_argument("--variants", default="",
                    help="with --tfc-run: ';'-separated pipeline options added to the "
                         "AdamW step, each timed too (e.g. 'fusion=none;precision=bf16')")
    args = ap.parse_args()
    if args.steps < 2:
        ap.error("--steps must be at least 2")
    cfg = gpt_mini_model.PRESETS[args.preset]
    model = args.model or os.path.join(os.path.dirname(bench_common.MODEL), f"{args.preset}.mlir")
    tokens_per_step = cfg.batch * cfg.context
    variant_options = [v.strip() for v in args.variants.split(";") if v.strip()]
    if variant_options and not args.tfc_run:
        ap.error("--variants needs --tfc-run")
    gpu = None
    if args.device == "cuda":
        if not torch.cuda.is_available():
            print("no CUDA device for PyTorch: nothing to compare on a GPU", file=sys.stderr)
            return 1
        gpu = torch.cuda.get_device_name()
    else:
        torch.set_num_threads(os.cpu_count())
    variants = torch_variants("cuda" if gpu else "cpu", args.steps, cfg, not args.no_compile)
    reference = "eager_fused_adamw" if "eager_fused_adamw" in variants else "eager"
    memory = None
    try:
        if args.tfc_train:
            tfc_ms, memory = tfc_run(args.tfc_train, model, args.device, args.steps,
                                     tokens_per_step)
            tfc_variants = {}
        else:
            with tempfile.TemporaryDirectory(prefix="tfc-bench-inputs-") as d:
                inputs = os.path.join(d, "in.safetensors")
                write_inputs(inputs, cfg)
                tfc_ms = tfc_run_step_ms(args.tfc_run, model, args.device, args.steps, inputs)
                tfc_variants = {v: tfc_run_step_ms(args.tfc_run, model, args.device, args.steps,
                                                   inputs, f"{TRAIN_OPTIONS} {v}")
                                for v in variant_options}
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1
    extra = {"tfc_measured_by": "tfc-train" if args.tfc_train else "tfc-run --repeat",
             "torch_reference": reference,
             "torch_variants_ms": {k: round(v, 3) for k, v in variants.items()},
             "ratio_tfc_over_torch_variants": {k: round(tfc_ms / v, 3) for k, v in variants.items()},
             "model": os.path.basename(model), "config": cfg._asdict(),
             "tokens_per_step": tokens_per_step,
             "tfc_tokens_per_s": round(tokens_per_step / tfc_ms * 1e3),
             "torch_tokens_per_s": round(tokens_per_step / variants[reference] * 1e3)}
    if tfc_variants:
        extra["tfc_variants_ms"] = {k: round(v, 3) for k, v in tfc_variants.items()}
        extra["tfc_variants_over_default"] = {k: round(v / tfc_ms, 3)
                                              for k, v in tfc_variants.items()}
    if memory:
        extra["tfc_memory"] = memory
    slug = "train-step" + ("" if args.preset == "gpt-mini" else f"-{args.preset}")
    bench_common.report(f"{args.preset} training step (AdamW), {args.device}",
                        f"{slug}-{args.device}", torch.__version__, args.steps,
                        variants[reference], tfc_ms, extra, args.out, device=args.device, gpu=gpu)
    print(f"  tokens/s: tfc {extra['tfc_tokens_per_s']}, torch {extra['torch_tokens_per_s']}")
    for name, ms in variants.items():
        print(f"  torch {name}: {ms:.2f} ms (tfc/torch {tfc_ms / ms:.2f})")
    for name, ms in tfc_variants.items():
        print(f"  tfc {name}: {ms:.2f} ms ({ms / tfc_ms:.2f}x the default step)")
    if memory:
        parts = ", ".join(f"{k} {v / 2**20:.2f} MiB" for k, v in memory["bytes"].items())
        print(f"  tfc memory: {parts}; {memory['bytes_per_param']:.2f} bytes/param "
              "(weights + gradients + optimizer state)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
