"""Benchmark: a PyTorch module trained from Python with tfc_torch against
the same module with torch.optim.AdamW in eager PyTorch, same device, same
batches, in one process.

The model is test/frontends/torch/models/nanogpt.py's GPT (nanoGPT's
layout: tied embeddings, pre-LN blocks, GELU MLP, causal attention) at a
size given by the flags (default: vocab 512, context 64, 4 layers, width
128, 4 heads; batch 8). Measured:
- compile: tfc_torch.compile_train_step's wall time cold (empty
  TFC_CACHE_DIR: trace, import, compile, load) and warm (cache hit);
- step: the median of --steps calls after --warmup, tfc (`step(*batch)`:
  batch in, train step, loss read back) and torch (zero_grad, forward,
  backward, AdamW step, loss.item());
- the loss of both after the last step (they train the same model on the
  same data, so they agree to f32 noise).
Prints the figures and writes bench/results/torch-frontend-<device>-<date>.json
(bench_common.report: machine, date, ratio tfc / torch).

Usage: /usr/bin/python3 bench/torch_frontend.py [--device host|cuda] [--steps 30]
"""
import argparse
import copy
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "frontends", "torch"))
sys.path.insert(0, os.path.join(ROOT, "test", "frontends", "torch", "models"))

import torch  # noqa: E402

import tfc_torch  # noqa: E402
from bench_common import RESULTS, report  # noqa: E402
from nanogpt import GPT  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="host", choices=["host", "cuda"])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--vocab", type=int, default=512)
    parser.add_argument("--context", type=int, default=64)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--batch", type=int, default=8)
    args = parser.parse_args()

    torch.manual_seed(0)
    model = GPT(args.vocab, args.context, args.layers, args.width, args.heads)
    g = torch.Generator().manual_seed(1)
    total = args.warmup + args.steps
    batches = [(torch.randint(0, args.vocab, (args.batch, args.context), generator=g),
                torch.randint(0, args.vocab, (args.batch, args.context), generator=g))
               for _ in range(total)]

    with tempfile.TemporaryDirectory(prefix="tfc-bench-cache-") as cache:
        os.environ["TFC_CACHE_DIR"] = cache
        t0 = time.perf_counter()
        step = tfc_torch.compile_train_step(copy.deepcopy(model), batches[0], lr=1e-3,
                                            device=args.device)
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        tfc_torch.compile_train_step(copy.deepcopy(model), batches[0], lr=1e-3,
                                     device=args.device)
        warm = time.perf_counter() - t0

        tfc_times = []
        for i, batch in enumerate(batches):
            t0 = time.perf_counter()
            tfc_loss = step(*batch)
            if i >= args.warmup:
                tfc_times.append(time.perf_counter() - t0)

    reference = copy.deepcopy(model)
    params = list(reference.parameters())
    opt = torch.optim.AdamW([{"params": [p for p in params if p.dim() >= 2],
                              "weight_decay": 0.01},
                             {"params": [p for p in params if p.dim() < 2],
                              "weight_decay": 0.0}], lr=1e-3)
    torch_times = []
    for i, batch in enumerate(batches):
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = reference(*batch)
        loss.backward()
        opt.step()
        torch_loss = loss.item()
        if i >= args.warmup:
            torch_times.append(time.perf_counter() - t0)

    n_params = sum(p.numel() for p in model.parameters())
    tfc_ms = statistics.median(tfc_times) * 1e3
    torch_ms = statistics.median(torch_times) * 1e3
    print(f"nanoGPT, {n_params} parameters, batch {args.batch} x {args.context}; "
          f"compile_train_step cold {cold:.2f} s, warm (cache) {warm:.2f} s; "
          f"final loss tfc {tfc_loss:.6f}, torch {torch_loss:.6f}")
    extra = {
        "model": {"family": "nanogpt", "vocab": args.vocab, "context": args.context,
                  "layers": args.layers, "width": args.width, "heads": args.heads,
                  "batch": args.batch, "parameters": n_params},
        "compile_cold_s": round(cold, 3), "compile_warm_s": round(warm, 3),
        "final_loss_tfc": tfc_loss, "final_loss_torch": torch_loss,
    }
    gpu = step.device.description if args.device == "cuda" else None
    report("torch-frontend AdamW train step (tfc_torch.compile_train_step vs eager "
           "torch.optim.AdamW)", f"torch-frontend-{args.device}", torch.__version__,
           args.steps, torch_ms, tfc_ms, extra, RESULTS, args.device, gpu)


if __name__ == "__main__":
    main()
