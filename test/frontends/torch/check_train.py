"""Training PyTorch modules with tfc from Python (tfc_torch.compile_train_step
and tfc_torch.compile, in process through libtfc_compiler.so and libtfcrt.so)
against torch.optim on the same batches.

Usage: check_train.py [--case NAME ...] [--device host|cuda] [--steps N]
Cases (written here, in train_state.py: model state in forward, train_watch.py:
the module watch, train_sync.py: the module following the step,
train_batches.py: batch names, packed lengths, added losses, and
train_optimizers.py: param groups, the followed optimizer's state):
- <family> (nanogpt, llama, bert, mlp-sequential, mlp-log-softmax; the
  models of models/): N (default 50) AdamW steps on fresh random batches,
  per-step losses within 1e-4 relative of torch.optim.AdamW's (weight decay
  0.1 on parameters of rank >= 2, tfc's default groups: large enough that
  a wrong group fails the check); then
  model.load_state_dict(step.state_dict()) gives parameters within 1e-3 of
  torch's (normwise per tensor: f32 sums in another order drift a little
  over the steps) and tfc_torch.compile of the trained model returns its
  outputs.
- buffers: a conv net with BatchNorm2d (applied twice), BatchNorm1d(momentum=None), a
  spectral_norm layer, InstanceNorm1d(track_running_stats) and a batch norm over rows of
  one buffer (F.batch_norm of a view), 5 AdamW steps: losses, parameters and the buffers the training
  forward updates (running statistics, weight_u / weight_v,
  num_batches_tracked) as torch's, the eval forward after training (torch's
  module and tfc_torch.compile), also with accumulate_steps=2, and save /
  load / load_state_dict of the updated buffers; fusion=False, recompute=cheap,
  recompute=blocks + optimizer_in_backward (as the plain step), bf16 (near it,
  the state f32).
- checkpoint: torch.utils.checkpoint (both forms, checkpoint_sequential)
  traced as a direct call: 4 AdamW steps as torch's on the model without
  checkpointing, also with recompute=blocks.
- forward-state: MoCo's momentum encoders updated in forward (in place
  through .parameters(), and through `.data =`), DINO's center rebound
  (`self.center = ...`), 5 AdamW steps: losses and every state tensor as
  torch's; compiling leaves the module unchanged and warns about a Python
  counter it changed (also one in a helper object: an ImagePool's), and
  about tensors stored outside the buffers (private names too); writes to
  trainable parameters in forward refused.
- held-values: a frozen parameter read with .item() and a buffer mask whose
  selection forward views as N rows: 3 SGD steps as torch's; changing either
  after compiling is refused, as are a forward writing the mask and
  frozen="state".
- outside-values: tensors forward reads that are no parameters or buffers (a
  0-d KL weight attribute, class weights, a teacher hidden in a list, a
  global, a loss_fn module's teacher; tensors read as numbers with .item(),
  float(), int(), .tolist(); class weights rebound on a helper object or a
  class) changed after compiling are errors naming them; loss weights in a
  dict, namespace or helper object, a loss_fn module's and a global warn, as
  do Lightning-style reads through properties and private attributes
  (self.global_step over self._trainer, self.hparams over self._hparams);
  frozen weights put back within float rounding (loralib's merge /
  unmerge) are accepted.
- packed-lengths: pad_packed_sequence without total_length (lengths a batch
  input, or computed in forward from a mask): 2 SGD steps as torch's, then
  a batch whose longest length is shorter than the example's refused at the
  call of the step (parameters kept) and of the compiled forward; with
  total_length any lengths train as torch's, unchecked.
- param-groups: a torch.optim AdamW / SGD instance with param_groups as the
  optimizer (per-group lr and weight decay, an ungrouped parameter frozen),
  also optimizer_in_backward, against the same torch optimizer; refusals.
- f64-rates: an f64 model steps with torch's unrounded rate (SGD momentum, Adam,
  RMSprop, Adam + CosineAnnealingLR at lr 0.01 within 1e-14 of torch's f64 run;
  the warmup-cosine schedule's rate is f64).
- followed-changes: hand edits after compiling of any hyper-parameter but lr, in
  any group of the followed optimizer (betas, eps, maximize, dampening), refused
  at the next call; schedule= beside a torch scheduler refused; a list of
  optimizers (SparseAdam + Adam) refused; save() / load() with a OneCycleLR
  whose state_dict() is loaded resume the run exactly (the optimizer's lrs).
- loop-recipes: accumulate_steps=4 over epochs of 10 micro-batches with
  apply_pending() at each epoch's end as torch's loop, the pending warning,
  save / load mid-window; load_state_dict(strict=False) returns torch's keys, a
  strict mismatch is a RuntimeError; norm_type 2 taken, inf refused; no
  grad_norm; nn.Embedding(max_norm)'s refusal recipe trains as torch's.
- optimizer-state: the torch optimizer a step follows (the eight classes)
  holds the step's state as torch's after 3 steps (its state_dict()); a
  fresh model and optimizer loading it go on as torch's, and so does the
  step after the optimizer's load_state_dict() of it; an optimizer torch
  stepped first is taken over; a step compiled per phase of gradual
  unfreezing (SGD) or freezing (AdamW) trains on as torch's, unfreezing
  under AdamW warns that the new parameters' step count differs; two steps
  of two batch sizes over one model with batch norm and one AdamW, called
  in turn, train as one torch run.
- qat: a prepare_qat'ed conv + linear net (default fbgemm QAT qconfig), 8 AdamW
  steps: losses, parameters and the fused observers' buffers (running min /
  max, scale, zero point) as torch's (step.state_dict() keeps the modules'
  versions, which the observers' load_state_dict reads).
- dict-batch: HF-style batches: a dict of forward's parameter names as
  keyword arguments (None entries constant), called as step(batch) and
  step(**batch), 3 AdamW steps as torch's; forward(**batch); a None
  positional argument; a dict split between forward and loss_fn; compile()
  of a dict batch; the call errors (other keys, a tensor for a None); a
  forward returning a ModelOutput-like dict or a namedtuple holding a 0-d
  loss, without loss_fn, trains on that loss as torch's.
- input-names: batch inputs named like the program's own tensors (a
  super-resolution model's forward(self, lr, hr); step, min_lr,
  warmup_steps, total_steps, loss; a forward's output) renamed with
  "_input": 4 AdamW steps as torch's, a warmup-cosine step, a compiled
  forward.
- random-range: x.random_(low, high) in forward (CRD's AliasMethod): an NCE
  loss over drawn rows trains 2 SGD steps; a compiled forward's random_(3, 9)
  and random_(5) cover their ranges.
- sparse-input: a torch.sparse adjacency as a batch input (pygcn): fed
  densely, 3 SGD steps as torch's; save_feed stores it dense.
- state-names: parameters and buffers named like the program's own tensors
  (step, lr, total_steps, growth_tracker, loss, loss_scale, min_lr; a
  forward's output) renamed in the program only: 3 SGD momentum steps as
  torch's, state_dict and the loads by the module's names, an fp16
  warmup-cosine step near torch's, a compiled forward.
- masked: a masked-LM loss (cross-entropy on the tokens a mask selects),
  node losses on a training mask and rows indexed by torch.where(mask),
  compiled from one batch and trained 6 AdamW steps on batches whose masks
  select other numbers of rows (1 to all but one): losses and parameters as
  torch's; ops on selected rows, assignments and selected sequences (also
  compiled from an example selecting one row) give torch's losses on other
  masks.
- api: SGD with momentum and clipping, gradient accumulation (K=2), the
  learning rate changed between steps, save/load and the optimizer state,
  load_state_dict into a step, frozen parameters (requires_grad=False:
  unchanged, the others as torch's AdamW; with frozen="state" set between
  steps by load_state_dict, as a Polyak update), against torch's recipes;
  bf16 and fp16 steps near f32's; dropout's stream (new masks per call,
  reproducible per seed); lists and dicts of tensors as batch arguments
  (DLRM's per-feature bags); the errors (unknown option, bad value, bad
  batch, a loss_fn not taking (output, *batch)).
Exit codes: 0 pass, 1 failure, 77 device unavailable.
"""
import argparse
import copy
import math
import os
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "frontends", "torch"))
sys.path.insert(0, HERE)

import tfc_torch  # noqa: E402
from check_models import FAMILIES, _model_argc, load_family  # noqa: E402
from train_helpers import (LOSS_RTOL, PARAM_RTOL, adamw_groups,  # noqa: E402
                           batches, compare_parameters, expect_error, normwise, random_batch,
                           rel, torch_loss, train_alongside, verdict)
from train_state import (check_buffers, check_checkpoint, check_forward_state,  # noqa: E402
                         check_held_values, check_loop_recipes)
from train_watch import check_module_changes, check_outside_values  # noqa: E402
from train_sync import check_module_sync  # noqa: E402
from train_optimizers import (check_f64_rates, check_followed_changes,  # noqa: E402
                              check_optimizer_state, check_param_groups)
from train_batches import (check_added_loss, check_dict_batch, check_input_names,  # noqa: E402
                           check_packed_lengths, check_random_range, check_sparse_input,
                           check_state_names)

SKIP = 77
def check_family(case, device, steps):
    model, example, loss_fn = load_family(case)
    model.train()
    reference = copy.deepcopy(model)
    lr, wd = 1e-3, 0.1  # decay large enough that a wrong group shows (5e-3 in 50 steps)
    step = tfc_torch.compile_train_step(copy.deepcopy(model), example, loss_fn, device=device,
                                        optimizer="adamw", lr=lr, weight_decay=wd)
    opt = torch.optim.AdamW(adamw_groups(reference, wd), lr=lr)
    worst = 0.0
    for i, batch in enumerate(batches(model, example, loss_fn, steps, seed=7)):
        loss = step(*batch)
        opt.zero_grad()
        expected = torch_loss(reference, batch, loss_fn)
        expected.backward()
        opt.step()
        r = rel(loss, expected.item())
        worst = max(worst, r)
        if not math.isfinite(loss) or r > LOSS_RTOL:
            return f"step {i}: tfc loss {loss!r}, torch {expected.item()!r} (rel {r:.2e})"
    trained = copy.deepcopy(model)
    trained.load_state_dict(step.state_dict())
    for (name, p), q in zip(trained.named_parameters(), reference.parameters()):
        e = normwise(p.detach(), q.detach())
        if e > PARAM_RTOL:
            return f"parameter {name} after {steps} steps: {e:.2e} from torch's"
    # The trained model's inference forward, compiled.
    forward_args = example[:_model_argc(trained, example)] if loss_fn else example
    trained.eval()
    with torch.no_grad():
        want = trained(*forward_args)
    compiled = tfc_torch.compile(trained, forward_args, device=device)
    got = compiled(*forward_args)
    if torch.is_tensor(want):
        e = normwise(got.float(), want.float())
        if e > 1e-5:
            return f"compiled forward: {e:.2e} from the module's output"
    print(f"{case}: ok ({steps} steps, worst loss rel {worst:.1e}, compile "
          f"{step.artifact.wall_ms:.0f} ms{' cached' if step.artifact.cache_hit else ''})")
    return None


class _WeightedLoss(torch.nn.Module):
    """cross-entropy scaled by a learned weight (a loss with parameters)."""

    def __init__(self):
        super().__init__()
        self.log_weight = torch.nn.Parameter(torch.zeros(()))

    def forward(self, out, x, y):
        return torch.nn.functional.cross_entropy(out, y) * self.log_weight.exp()


def _reload_batch_norm_forward(device):
    """fast.load_state_dict(step.state_dict()) of a batch norm model's
    compiled eval forward after a training step."""
    nn = torch.nn
    model = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.Linear(6, 2))
    x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
    step = tfc_torch.compile_train_step(
        model, (x, y), lambda out, x, y: torch.nn.functional.cross_entropy(out, y),
        device=device, optimizer="sgd", lr=0.1)
    model.eval()
    fast = tfc_torch.compile(model, (x,), device=device)
    model.train()
    step(x, y)
    fast.load_state_dict(step.state_dict())


def check_api(device, steps):
    model, example, loss_fn = load_family("mlp-sequential")
    problems = []

    # SGD + momentum + clipping, lr changed half way, vs torch.
    ref = copy.deepcopy(model)
    step = tfc_torch.compile_train_step(copy.deepcopy(model), example, loss_fn, device=device,
                                        optimizer="sgd", lr=0.05, momentum=0.9,
                                        max_grad_norm=0.5)
    opt = torch.optim.SGD(ref.parameters(), lr=0.05, momentum=0.9)
    for i, batch in enumerate(batches(model, example, loss_fn, 20, seed=3)):
        if i == 10:
            step.lr = 0.02
            for group in opt.param_groups:
                group["lr"] = 0.02
        loss = step(*batch)
        opt.zero_grad()
        expected = torch_loss(ref, batch, loss_fn)
        expected.backward()
        torch.nn.utils.clip_grad_norm_(ref.parameters(), 0.5)
        opt.step()
        if not rel(loss, expected.item()) <= LOSS_RTOL:
            problems.append(f"sgd step {i}: {loss} vs {expected.item()}")
            break

    # Value clipping, then norm clipping (clip_grad_value_ and
    # clip_grad_norm_ in that order), AdamW, vs torch; parameters compared.
    ref = copy.deepcopy(model)
    clipped = tfc_torch.compile_train_step(copy.deepcopy(model), example, loss_fn,
                                           device=device, optimizer="adamw", lr=1e-2,
                                           weight_decay=0.0, clip_grad_value=0.02,
                                           max_grad_norm=0.05)
    opt = torch.optim.AdamW(ref.parameters(), lr=1e-2, weight_decay=0.0)
    for i, batch in enumerate(batches(model, example, loss_fn, 8, seed=4)):
        loss = clipped(*batch)
        opt.zero_grad()
        expected = torch_loss(ref, batch, loss_fn)
        expected.backward()
        torch.nn.utils.clip_grad_value_(ref.parameters(), 0.02)
        torch.nn.utils.clip_grad_norm_(ref.parameters(), 0.05)
        opt.step()
        if not rel(loss, expected.item()) <= LOSS_RTOL:
            problems.append(f"clip_grad_value step {i}: {loss} vs {expected.item()}")
            break
    compare_parameters(clipped.state_dict(), ref, "clip_grad_value: ", problems)

    # Resuming a run torch trained: its parameters and its AdamW's
    # state_dict() (per-parameter moments and step counts) loaded into a
    # fresh step, which then goes on as torch does; by name and from the
    # instance (two parameter groups: the order is the groups').
    for by_instance in (False, True):
        ref = copy.deepcopy(model)
        groups = ([{"params": list(ref.parameters())[::2]},
                   {"params": list(ref.parameters())[1::2]}] if by_instance
                  else ref.parameters())
        opt = torch.optim.AdamW(groups, lr=1e-2, weight_decay=0.0)
        data = list(batches(model, example, loss_fn, 6, seed=5))
        for batch in data[:3]:
            opt.zero_grad()
            torch_loss(ref, batch, loss_fn).backward()
            opt.step()
        mine = copy.deepcopy(model)
        optimizer = (torch.optim.AdamW([{"params": list(mine.parameters())[::2]},
                                        {"params": list(mine.parameters())[1::2]}],
                                       lr=1e-2, weight_decay=0.0)
                     if by_instance else "adamw")
        kw = {} if by_instance else {"lr": 1e-2, "weight_decay": 0.0}
        resumed = tfc_torch.compile_train_step(mine, example, loss_fn, device=device,
                                               optimizer=optimizer, **kw)
        resumed.load_state_dict(ref.state_dict())
        resumed.load_optimizer_state_dict(opt.state_dict())
        label = f"resumed from torch ({'instance' if by_instance else 'by name'}): "
        train_alongside(resumed, ref, opt, lambda m, b: torch_loss(m, b, loss_fn), data[3:],
                        label, problems)
        compare_parameters(resumed.state_dict(), ref, label, problems)

    # save / load: a second step resumes exactly where the first is.
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "state.safetensors")
        step.save(path)
        again = tfc_torch.compile_train_step(copy.deepcopy(model), example, loss_fn,
                                             device=device, optimizer="sgd", lr=0.02,
                                             momentum=0.9, max_grad_norm=0.5)
        again.load(path)
        batch = next(batches(model, example, loss_fn, 1, seed=11))
        a, b = step(*batch), again(*batch)
        if a != b:
            problems.append(f"resumed step: loss {b} != {a}")
        state = step.optimizer_state_dict()
        if "step" not in state or int(state["step"]) != 21:
            problems.append(f"optimizer state: step = {state.get('step')}")
        again.load_optimizer_state_dict(state)
        again.load_state_dict(step.state_dict())
        if step(*batch) != again(*batch):
            problems.append("load_state_dict + load_optimizer_state_dict: steps differ")

    # Accumulation: K=2 micro-batches per AdamW step, torch's recipe.
    ref = copy.deepcopy(model)
    acc = tfc_torch.compile_train_step(copy.deepcopy(model), example, loss_fn, device=device,
                                       lr=1e-2, accumulate_steps=2)
    opt = torch.optim.AdamW(adamw_groups(ref, 0.01), lr=1e-2)
    for i, batch in enumerate(batches(model, example, loss_fn, 8, seed=5)):
        loss = acc(*batch)
        expected = torch_loss(ref, batch, loss_fn)
        (expected / 2).backward()
        if i % 2 == 1:
            opt.step()
            opt.zero_grad()
        if not rel(loss, expected.item()) <= LOSS_RTOL:
            problems.append(f"accumulate micro-batch {i}: {loss} vs {expected.item()}")
            break

    # Frozen parameters (requires_grad=False): constants of the step, as
    # torch's optimizer skips them (no gradient); the others follow AdamW.
    frozen = copy.deepcopy(model)
    frozen_name, first = next(frozen.named_parameters())
    first.requires_grad_(False)
    ref = copy.deepcopy(frozen)
    fstep = tfc_torch.compile_train_step(copy.deepcopy(frozen), example, loss_fn, device=device,
                                         lr=1e-2)
    opt = torch.optim.AdamW(adamw_groups(ref, 0.01), lr=1e-2)
    train_alongside(fstep, ref, opt, lambda m, b: torch_loss(m, b, loss_fn),
                    batches(model, example, loss_fn, 5, seed=17), "frozen ", problems)
    trained = fstep.state_dict()
    for name, q in ref.named_parameters():
        if name == frozen_name:
            if not torch.equal(trained[name], first.detach()):
                problems.append(f"frozen parameter {name} changed")
        elif normwise(trained[name], q.detach()) > PARAM_RTOL:
            problems.append(f"{name} next to a frozen parameter: "
                            f"{normwise(trained[name], q.detach()):.2e}")
    changed = {k: v.clone() for k, v in trained.items()}
    changed[frozen_name] += 1.0
    err = expect_error(ValueError, "frozen parameter", lambda: fstep.load_state_dict(changed))
    if err:
        problems.append(err)
    # frozen="state": the frozen parameter is model state that
    # load_state_dict sets between steps (a target network's Polyak
    # update), with the step's results as torch's after each update.
    sstep = tfc_torch.compile_train_step(copy.deepcopy(frozen), example, loss_fn, device=device,
                                         lr=1e-2, frozen="state")
    ref = copy.deepcopy(frozen)
    opt = torch.optim.AdamW(adamw_groups(ref, 0.01), lr=1e-2)

    def polyak():
        moved = sstep.state_dict()
        moved[frozen_name] = moved[frozen_name] * 0.9 + 0.05
        sstep.load_state_dict(moved)
        with torch.no_grad():
            dict(ref.named_parameters())[frozen_name].mul_(0.9).add_(0.05)
    train_alongside(sstep, ref, opt, lambda m, b: torch_loss(m, b, loss_fn),
                    batches(model, example, loss_fn, 4, seed=19), "frozen='state' ", problems,
                    after=polyak)
    if normwise(sstep.state_dict()[frozen_name],
                dict(ref.named_parameters())[frozen_name].detach()) > 1e-6:
        problems.append("frozen='state': the updated frozen parameter is not torch's")
    err = expect_error(tfc_torch.OptionError, "frozen='states'", lambda: tfc_torch.compile_train_step(
        copy.deepcopy(frozen), example, loss_fn, device=device, frozen="states"))
    if err:
        problems.append(err)

    # Mixed precision from Python: bf16 follows f32 within bf16's rounding,
    # fp16 turns loss scaling on (the scaler's state exists).
    batch = next(batches(model, example, loss_fn, 1, seed=13))
    f32 = tfc_torch.compile_train_step(copy.deepcopy(model), example, loss_fn, device=device)
    base = [f32(*batch) for _ in range(3)]
    for precision in ("bf16", "fp16"):
        mixed = tfc_torch.compile_train_step(copy.deepcopy(model), example, loss_fn,
                                             device=device, precision=precision)
        got = [mixed(*batch) for _ in range(3)]
        if not max(rel(a, b) for a, b in zip(got, base)) <= 2e-2:
            problems.append(f"{precision}: losses {got} vs f32 {base}")
        if precision == "fp16" and "loss_scale" not in mixed.optimizer_state_dict():
            problems.append("fp16: no loss scaler state")

    # Dropout: each call draws new masks (the offset moves on), same seed
    # and calls give the same losses.
    gpt, gpt_batch, _ = load_family("nanogpt-dropout")
    losses = []
    for _ in range(2):
        drop = tfc_torch.compile_train_step(copy.deepcopy(gpt), gpt_batch, device=device, lr=0.0,
                                            seed=5)
        losses.append([drop(*gpt_batch) for _ in range(2)])
    if losses[0] != losses[1] or losses[0][0] == losses[0][1]:
        problems.append(f"dropout stream: {losses}")
    # Without a seed option the stream's seed comes from torch's generator:
    # torch.manual_seed repeats it, another seed or a second step differs.
    # load() resumes the stream after the restored steps (same seed).
    unseeded = []
    for s in (1, 1, 2):
        torch.manual_seed(s)
        drop = tfc_torch.compile_train_step(copy.deepcopy(gpt), gpt_batch, device=device, lr=0.0)
        unseeded.append(drop(*gpt_batch))
    if unseeded[0] != unseeded[1] or unseeded[0] == unseeded[2]:
        problems.append(f"seed from torch's generator: losses {unseeded}")
    first = tfc_torch.compile_train_step(copy.deepcopy(gpt), gpt_batch, device=device, lr=0.0,
                                         seed=9)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "state.safetensors")
        first(*gpt_batch)
        first.save(path)
        went_on = [first(*gpt_batch) for _ in range(2)]
        again = tfc_torch.compile_train_step(copy.deepcopy(gpt), gpt_batch, device=device,
                                             lr=0.0, seed=9)
        again.load(path)
        resumed = [again(*gpt_batch) for _ in range(2)]
    if resumed != went_on:
        problems.append(f"stream after load: {resumed} != {went_on}")

    # Errors name what is wrong.
    make = lambda **kw: tfc_torch.compile_train_step(  # noqa: E731
        copy.deepcopy(model), example, loss_fn, device=device, **kw)
    make_with = lambda fn: tfc_torch.compile_train_step(  # noqa: E731
        copy.deepcopy(model), example, fn, device=device)
    for err in [
        expect_error(tfc_torch.OptionError, "unknown option 'learning_rate'",
                     lambda: make(learning_rate=1e-3)),
        expect_error(tfc_torch.OptionError, "adamx", lambda: make(optimizer="adamx")),
        expect_error(tfc_torch.OptionError, "beta2", lambda: make(betas=(0.9, 1.5))),
        expect_error(tfc_torch.OptionError, "momentum=", lambda: make(momentum="high")),
        expect_error(tfc_torch.OptionError, "total_steps",
                     lambda: make(schedule="warmup-cosine")),
        expect_error(tfc_torch.OptionError, "precision", lambda: make(precision="fp8")),
        expect_error(tfc_torch.OptionError, "clip-grad-value", lambda: make(clip_grad_value=-1.0)),
        # A negative or non-finite learning rate (torch.optim refuses one
        # too), given as an option or set between steps.
        expect_error(tfc_torch.OptionError, "lr=-1.0", lambda: make(lr=-1.0)),
        expect_error(tfc_torch.OptionError, "min_lr=nan", lambda: make(min_lr=float("nan"))),
        expect_error(tfc_torch.OptionError, "lr=inf", lambda: setattr(step, "lr", float("inf"))),
        expect_error(ValueError, "shape", lambda: step(example[0][:2], example[1])),
        expect_error(TypeError, "expected 2 batch tensors", lambda: step(example[0])),
        expect_error(ValueError, "smaller last batch", lambda: step(example[0][:2], example[1])),
        expect_error(RuntimeError, "Missing key(s)", lambda: step.load_state_dict({})),
        # loss_fn is called as loss_fn(output, *batch): a loss module
        # (input, target) or a lambda of another arity is refused so.
        expect_error(tfc_torch.ModelError, "loss_fn is called as loss_fn(output, *batch)",
                     lambda: tfc_torch.compile_train_step(copy.deepcopy(model), example,
                                                          torch.nn.CrossEntropyLoss())),
        expect_error(tfc_torch.ModelError, "which <lambda>(out, y) does not take",
                     lambda: make_with(lambda out, y: out.sum())),
        # A compiled eval forward folds batch norm's statistics in: loading
        # trained ones says to compile it again (not the step's frozen=).
        expect_error(ValueError, "compile the forward again",
                     lambda: _reload_batch_norm_forward(device)),
        expect_error(tfc_torch.OptionError, "unknown option 'optimizer'",
                     lambda: tfc_torch.compile(model, example[:1], optimizer="sgd")),
        # A TorchScript submodule (RWKV's default JIT) cannot be traced.
        expect_error(tfc_torch.ModelError, "submodule '0' is a TorchScript module",
                     lambda: tfc_torch.compile_train_step(
                         torch.nn.Sequential(torch.jit.script(copy.deepcopy(model[0])),
                                             *list(model)[1:]),
                         example, loss_fn, device=device)),
        # A loss module with trainable parameters (a margin head, learned
        # loss weights) would be constants of the trace: refused.
        expect_error(tfc_torch.ModelError, "loss_fn (_WeightedLoss) has trainable parameters",
                     lambda: tfc_torch.compile_train_step(copy.deepcopy(model), example,
                                                          _WeightedLoss(), device=device)),
    ]:
        if err:
            problems.append(err)

    # The module's mode is the program's: a step called after model.eval()
    # is an error, not a training step in the traced mode.
    moded = copy.deepcopy(model)
    mstep = tfc_torch.compile_train_step(moded, example, loss_fn, device=device, lr=1e-2)
    moded.eval()
    err = expect_error(tfc_torch.ModelError, "train / eval mode changed", lambda: mstep(*example))
    if err:
        problems.append(err)
    moded.train()
    mstep(*example)

    # Batch arguments that are lists and dicts of tensors (DLRM's
    # per-feature offsets and indices): one input per leaf, fed from each
    # call's batch of the same structure, trained as torch's.
    class Bags(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bags = torch.nn.ModuleList([torch.nn.EmbeddingBag(10, 3) for _ in range(2)])
            self.top = torch.nn.Linear(6 + 2, 1)

        def forward(self, dense, feats, target):
            pooled = [bag(f["idx"], f["off"]) for bag, f in zip(self.bags, feats)]
            out = self.top(torch.cat(pooled + [dense], 1)).squeeze(1)
            return torch.nn.functional.binary_cross_entropy_with_logits(out, target)

    def bag_batch(g):
        feats = [{"idx": torch.randint(0, 10, (5,), generator=g), "off": torch.tensor([0, 2])}
                 for _ in range(2)]
        return torch.randn(2, 2, generator=g), feats, torch.rand(2, generator=g)
    g = torch.Generator().manual_seed(23)
    bags = Bags()
    ref = copy.deepcopy(bags)
    bstep = tfc_torch.compile_train_step(copy.deepcopy(bags), bag_batch(g), device=device,
                                         optimizer="sgd", lr=0.1)
    opt = torch.optim.SGD(ref.parameters(), lr=0.1)
    train_alongside(bstep, ref, opt, lambda m, b: m(*b), [bag_batch(g) for _ in range(3)],
                    "list / dict batch: ", problems)
    if "feats.3" not in bstep.exported.inputs:
        problems.append(f"list / dict batch inputs: {list(bstep.exported.inputs)}")
    d, feats, t = bag_batch(g)
    err = expect_error(TypeError, "structure", lambda: bstep(d, feats[:1], t))
    if err:
        problems.append(err)
    return verdict(problems,
                   "api: ok (sgd + clipping + lr change, save/load, optimizer state, "
                   "accumulation, frozen parameters, bf16/fp16, dropout stream, list / dict "
                   "batches, errors)")


def check_no_gradient(device):
    """Parameters no gradient reaches (an unused pooler, a head read only
    under torch.no_grad) are skipped as torch's optimizers skip a .grad of
    None: no weight decay, no momentum, left exactly as compiled; the
    others train as torch's (SGD with momentum and decay, AdamW, also with
    max_grad_norm and in backward; 5 steps)."""
    nn = torch.nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Linear(6, 8)
            self.head = nn.Linear(8, 3)
            self.pooler = nn.Linear(8, 8)    # unused: BERT's pooler in MLM
            self.teacher = nn.Linear(8, 3)   # read under no_grad only

        def forward(self, x, y):
            h = torch.tanh(self.body(x))
            with torch.no_grad():
                target = self.teacher(h).softmax(-1)
            logp = self.head(h).log_softmax(-1)
            return (torch.nn.functional.nll_loss(logp, y)
                    - 0.1 * (target * logp).sum(-1).mean())

    torch.manual_seed(11)
    model = Model()
    g = torch.Generator().manual_seed(12)
    data = [(torch.randn(5, 6, generator=g), torch.randint(0, 3, (5,), generator=g))
            for _ in range(5)]
    makers = {"sgd": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.1),
              "adamw": lambda p: torch.optim.AdamW(p, lr=1e-2, weight_decay=0.1)}
    problems = []
    for kind, make in makers.items():
        for extra in ({}, {"optimizer_in_backward": True}):
            label = f"{kind}{' in backward' if extra else ''}: "
            mine, reference = copy.deepcopy(model), copy.deepcopy(model)
            step = tfc_torch.compile_train_step(mine, data[0], device=device,
                                                optimizer=make(mine.parameters()), **extra)
            train_alongside(step, reference, make(reference.parameters()),
                            lambda m, b: m(*b), data, label, problems)
            compare_parameters(step.state_dict(), reference, label, problems)
            names = set(step.optimizer_state_dict())
            if any(n.startswith(("pooler.", "teacher.")) for n in names):
                problems.append(f"{label}optimizer state for a parameter without gradient")
    step = tfc_torch.compile_train_step(copy.deepcopy(model), data[0], device=device,
                                        max_grad_norm=0.5, decay_all=True)
    for batch in data:
        step(*batch)
    trained = step.state_dict()
    for name, p in model.named_parameters():
        if name.startswith(("pooler.", "teacher.")) and not torch.equal(trained[name], p.detach()):
            problems.append(f"adamw by name: {name} changed")
    return verdict(problems,
                   "no-gradient: ok (an unused and a no_grad-only layer untouched; SGD / AdamW, "
                   "also in backward, as torch's; AdamW by name with max_grad_norm leaves them as "
                   "compiled)")


def check_qat(device):
    """8 AdamW steps of a prepare_qat'ed conv + linear net (default fbgemm
    QAT qconfig: fused moving-average observers, per-channel symmetric
    weights) against torch.optim.AdamW: per-step losses, then parameters
    and the observers' buffers (running min / max, scale, zero point) as
    torch's; the enable flags stay constants."""
    import check_ops  # loads models/ops/ as the package frontend_ops
    check_ops.load_cases()
    qmod = sys.modules["frontend_ops"].quantize
    model, (x, y) = qmod.make_qat_net(seed=3)
    g = torch.Generator().manual_seed(13)
    # Batches of growing spread: the running ranges and qparams keep moving.
    data = [(torch.randn(4, 3, 6, 6, generator=g) * (1 + 0.2 * i),
             torch.randint(0, 5, (4,), generator=g)) for i in range(8)]
    observed = [k for k in dict(model.named_buffers())
                if k.endswith(("min_val", "max_val", "scale", "zero_point"))]
    problems = []
    reference = copy.deepcopy(model)
    step = tfc_torch.compile_train_step(copy.deepcopy(model), (x, y), device=device,
                                        optimizer="adamw", lr=1e-2, weight_decay=0.1)
    opt = torch.optim.AdamW(adamw_groups(reference, 0.1), lr=1e-2)
    train_alongside(step, reference, opt, lambda m, b: m(*b), data, "", problems)
    trained = copy.deepcopy(model)
    trained.load_state_dict(step.state_dict())
    compare_parameters(step.state_dict(), reference, "", problems)
    got, want = dict(trained.named_buffers()), dict(reference.named_buffers())
    start = dict(model.named_buffers())
    for name in observed:
        if want[name].is_floating_point():
            e = normwise(got[name], want[name])
            if e > 1e-5:
                problems.append(f"buffer {name}: {e:.2e} from torch's")
        elif not torch.equal(got[name], want[name]):
            problems.append(f"{name} {got[name].tolist()}, torch's {want[name].tolist()}")
        if name.endswith("min_val") and torch.equal(got[name], start[name]):
            problems.append(f"{name} did not move")
    return verdict(problems,
                   f"qat: ok ({len(data)} AdamW steps of a prepare_qat'ed conv + linear net: "
                   f"losses, parameters and {len(observed)} observer buffers (running min/max, "
                   f"scale, zero_point) as torch's)")


def _other_masks(example, g, i):
    """Batch i like `example` with its boolean masks redrawn: one selected
    row (i = 0), all rows but one (i = 1), else random."""
    batch = list(random_batch(example, g))
    for m, t in enumerate(example):
        if t.dtype == torch.bool:
            keep = torch.rand(t.shape, generator=g) < 0.5
            if i < 2:
                keep = torch.full(t.shape, i == 1)
                keep.view(-1)[3] = i == 0
            batch[m] = keep
    return tuple(batch)


def check_masked(device):
    """Masked selections (x[mask], nonzero's indices) are compiled for any
    mask. The models of models/ops/masked.py's masked-lm, masked-node-losses,
    masked-where-indices and masked-margin cases (the ArcFace margin's
    writes at y[i, labels[i]], also compiled from an example selecting
    every row), compiled from their example batch, are
    trained 6 AdamW steps on batches whose masks select other numbers of
    rows (one row, all but one, random): losses and parameters as torch's.
    The row-op, assignment, MoE-routing and sequence cases (views, slices,
    moments, masks the model computes), compiled (tfc_torch.compile) from their
    example and from one selecting a single row, give torch's loss on 6
    such batches (NaN where torch's is: the variance of one row)."""
    from models.ops import masked
    problems = []
    for name, factory in (("masked-lm", masked._mlm), ("masked-node-losses", masked._nodes),
                          ("masked-where-indices", masked._where),
                          ("masked-margin", masked._margin(keep=True)),
                          ("masked-margin, every row in the example",
                           masked._margin(all_rows=True, keep=True))):
        model, example = factory()
        reference = copy.deepcopy(model)
        step = tfc_torch.compile_train_step(copy.deepcopy(model), example, device=device,
                                            optimizer="adamw", lr=1e-2, weight_decay=0.0)
        opt = torch.optim.AdamW(reference.parameters(), lr=1e-2, weight_decay=0.0)
        g = torch.Generator().manual_seed(7)
        data = [_other_masks(example, g, i) for i in range(6)]
        train_alongside(step, reference, opt, lambda m, b: m(*b), data, f"{name}: ", problems)
        compare_parameters(step.state_dict(), reference, f"{name}: ", problems)
    for name, factory in (("masked-row-ops", masked._rows), ("masked-assignments", masked._assign),
                          ("masked-moe-routing", masked._moe),
                          ("masked-write-by-label", masked._write_by_label),
                          ("masked-sequences", masked._sequences()),
                          ("masked-sequences, one row in the example", masked._sequences(1))):
        model, example = factory()
        compiled = tfc_torch.compile(model, example, device=device)
        g = torch.Generator().manual_seed(8)
        for i in range(6):
            batch = _other_masks(example, g, i)
            loss, want = compiled(*batch).item(), model(*batch).item()
            if not (math.isnan(loss) and math.isnan(want)) and rel(loss, want) > LOSS_RTOL:
                problems.append(f"{name}: batch {i}: loss {loss!r}, torch {want!r}")
    return verdict(problems,
                   "masked: ok (masked-LM, node losses, where-indices and ArcFace margins (also "
                   "from an all-rows example) trained 6 AdamW steps on masks selecting other "
                   "numbers of rows as torch's; row ops, assignments and sequences, also compiled "
                   "from one selected row, give torch's losses on 6 other masks)")


CASES = sorted(FAMILIES) + ["added-loss", "api", "buffers", "checkpoint", "dict-batch",
                            "f64-rates", "followed-changes", "forward-state",
                            "held-values",
                            "input-names", "loop-recipes",
                            "masked", "module-changes", "module-sync", "no-gradient",
                            "optimizer-state",
                            "outside-values",
                            "packed-lengths", "param-groups", "qat", "random-range",
                            "sparse-input", "state-names"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", choices=CASES)
    parser.add_argument("--device", default="host", choices=["host", "cuda"])
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()
    torch.manual_seed(0)
    if args.device == "cuda":
        try:
            tfc_torch.runtime.Device("cuda")
        except tfc_torch.NativeError as e:
            print(f"skipped: {e}")
            return SKIP
    failures = 0
    for case in args.case or CASES:
        if case == "added-loss":
            problem = check_added_loss(args.device)
        elif case == "api":
            problem = check_api(args.device, args.steps)
        elif case == "buffers":
            problem = check_buffers(args.device)
        elif case == "checkpoint":
            problem = check_checkpoint(args.device)
        elif case == "dict-batch":
            problem = check_dict_batch(args.device)
        elif case == "f64-rates":
            problem = check_f64_rates(args.device)
        elif case == "followed-changes":
            problem = check_followed_changes(args.device)
        elif case == "forward-state":
            problem = check_forward_state(args.device)
        elif case == "held-values":
            problem = check_held_values(args.device)
        elif case == "input-names":
            problem = check_input_names(args.device)
        elif case == "loop-recipes":
            problem = check_loop_recipes(args.device)
        elif case == "masked":
            problem = check_masked(args.device)
        elif case == "module-changes":
            problem = check_module_changes(args.device)
        elif case == "module-sync":
            problem = check_module_sync(args.device)
        elif case == "outside-values":
            problem = check_outside_values(args.device)
        elif case == "no-gradient":
            problem = check_no_gradient(args.device)
        elif case == "optimizer-state":
            problem = check_optimizer_state(args.device)
        elif case == "packed-lengths":
            problem = check_packed_lengths(args.device)
        elif case == "param-groups":
            problem = check_param_groups(args.device)
        elif case == "qat":
            problem = check_qat(args.device)
        elif case == "random-range":
            problem = check_random_range(args.device)
        elif case == "sparse-input":
            problem = check_sparse_input(args.device)
        elif case == "state-names":
            problem = check_state_names(args.device)
        else:
            problem = check_family(case, args.device, args.steps)
        if problem:
            print(f"{case}: FAIL: {problem}")
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
