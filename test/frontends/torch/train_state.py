"""check_train.py's cases on model state the training forward touches:
buffers it updates (batch / instance norm statistics, spectral norm),
state changed inside forward (momentum encoders, a rebound center, Python
attributes and draws), torch.utils.checkpoint traced as a call, training
loop recipes around a step, and state held as constants (buffers and frozen
parameters read as numbers or masks: held-values)."""
import copy
import math
import os
import random
import tempfile

import torch
import torch.nn.functional as F

import tfc_torch
from train_helpers import (LOSS_RTOL, PARAM_RTOL, adamw_groups, compare_parameters,
                           expect_error, normwise, rel, train_alongside, verdict)


class _BufferNet(torch.nn.Module):
    """A small conv net whose training forward updates buffers: BatchNorm2d
    and BatchNorm1d (momentum=None: the cumulative average) running
    statistics and num_batches_tracked, spectral norm's power iteration
    (weight_u, weight_v), InstanceNorm1d's running statistics
    (track_running_stats: ATen updates them through a temporary) and a
    domain-specific batch norm's (rows of one buffer, F.batch_norm of a
    view)."""

    def __init__(self):
        super().__init__()
        nn = torch.nn
        # No bias before a batch norm: its true gradient is 0, and Adam
        # would amplify the rounding noise of both sides.
        self.conv = nn.Conv2d(3, 4, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(4, momentum=0.3)
        self.fc = nn.utils.spectral_norm(nn.Linear(4 * 4 * 4, 6, bias=False))
        self.bn1 = nn.BatchNorm1d(6, momentum=None)  # the cumulative average
        self.out = nn.Linear(6, 2)
        # Affine-free, and no bias before the batch norm (as above).
        self.inorm = nn.InstanceNorm1d(4, track_running_stats=True, momentum=0.2)
        self.fc2 = nn.Linear(4 * 16, 3, bias=False)
        self.register_buffer("domain_mean", torch.zeros(2, 3))
        self.register_buffer("domain_var", torch.ones(2, 3))
        self.out2 = nn.Linear(3, 2)

    def forward(self, x):
        h = torch.relu(self.bn(self.conv(x)))
        h = self.bn(h * 0.5 + 0.25)  # applied again: a second update, from the first
        g = self.fc2(self.inorm(h.flatten(2) + 1.0).flatten(1))  # statistics away from 0
        g = F.batch_norm(g, self.domain_mean[1], self.domain_var[1], training=self.training,
                         momentum=0.1)
        return (self.out(torch.relu(self.bn1(self.fc(h.flatten(1)))))
                + self.out2(torch.relu(g)))


def check_buffers(device):
    """5 AdamW steps of _BufferNet against torch.optim.AdamW: losses,
    parameters and the updated buffers (running statistics, weight_u /
    weight_v, num_batches_tracked) after the steps, the trained model's
    eval forward (torch, and tfc_torch.compile); with accumulate_steps=2
    every micro-batch updates the statistics (as torch's forwards do);
    save / load and load_state_dict carry them."""
    torch.manual_seed(5)
    model = _BufferNet().train()
    # Buffers away from their defaults, so a step that ignores them shows.
    with torch.no_grad():
        model.bn.running_mean.uniform_(-1, 1)
        model.bn.running_var.uniform_(0.5, 2)
    x, y = torch.randn(8, 3, 4, 4), torch.randn(8, 2)

    def loss_fn(out, x, y):
        return torch.nn.functional.mse_loss(out, y)

    g = torch.Generator().manual_seed(11)
    data = [(torch.randn(8, 3, 4, 4, generator=g), torch.randn(8, 2, generator=g))
            for _ in range(5)]
    buffers = [k for k, _ in model.named_buffers()]
    problems = []

    def compare(label, step, reference):
        trained = copy.deepcopy(model)
        trained.load_state_dict(step.state_dict())
        for (name, p), q in zip(trained.named_parameters(), reference.parameters()):
            e = normwise(p.detach(), q.detach())
            if e > PARAM_RTOL:
                problems.append(f"{label}: parameter {name}: {e:.2e} from torch's")
        ref_buffers = dict(reference.named_buffers())
        for name, value in trained.named_buffers():
            want = ref_buffers[name]
            if not want.is_floating_point():
                if not torch.equal(value, want):
                    problems.append(f"{label}: {name} {value.tolist()}, torch's "
                                    f"{want.tolist()}")
                continue
            e = normwise(value, want)
            if e > 1e-4:
                problems.append(f"{label}: buffer {name}: {e:.2e} from torch's")
        return trained

    # Plain steps.
    reference = copy.deepcopy(model)
    step = tfc_torch.compile_train_step(copy.deepcopy(model), (x, y), loss_fn, device=device,
                                        optimizer="adamw", lr=1e-2, weight_decay=0.1)
    opt = torch.optim.AdamW(adamw_groups(reference, 0.1), lr=1e-2)
    for i, (bx, by) in enumerate(data):
        loss = step(bx, by)
        opt.zero_grad()
        expected = loss_fn(reference(bx), bx, by)
        expected.backward()
        opt.step()
        if not math.isfinite(loss) or rel(loss, expected.item()) > LOSS_RTOL:
            problems.append(f"step {i}: loss {loss!r}, torch {expected.item()!r}")
    plain = step.state_dict()
    if sorted(plain) != sorted(model.state_dict()):
        problems.append(f"state_dict keys {sorted(step.state_dict())}")
    if any(k in step.optimizer_state_dict() for k in buffers):
        problems.append("model state listed in optimizer_state_dict()")
    trained = compare("adamw", step, reference)
    for name in ("bn.running_mean", "bn.running_var", "fc.weight_u", "inorm.running_var",
                 "domain_mean"):
        if torch.equal(dict(trained.named_buffers())[name], dict(model.named_buffers())[name]):
            problems.append(f"{name} did not move")
    trained.eval()
    reference.eval()
    with torch.no_grad():
        want, got = reference(x), trained(x)
        compiled = tfc_torch.compile(trained, (x,), device=device)(x)
    for label, value in (("eval forward", got), ("compiled eval forward", compiled)):
        e = normwise(value, want)
        if e > 1e-5:
            problems.append(f"{label} after training: {e:.2e} from torch's")

    # save / load / load_state_dict carry the model state.
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "step.safetensors")
        saved = step.state_dict()
        step.save(path)
        step(*data[0])
        step.load(path)
        after = step.state_dict()
        moved = [k for k in buffers if not torch.equal(after[k], saved[k])]
        if moved:
            problems.append(f"load() did not restore {moved}")
        fresh = dict(model.state_dict())
        step.load_state_dict(fresh)
        if not torch.equal(step.state_dict()["bn.running_var"], fresh["bn.running_var"]):
            problems.append("load_state_dict did not set bn.running_var")

    # The step's options keep the state: f32 ones as the plain step (the
    # same arithmetic in another grouping: measured bit-identical), bf16
    # near it with its state f32 (spectral norm's power iteration runs its
    # matrix-vector products as bf16 GEMMs: weight_u / weight_v measured
    # 2.8e-2 from f32's, the running statistics 2e-3).
    for options, tol in (({"fusion": False}, 1e-6), ({"recompute": "cheap"}, 1e-6),
                         ({"recompute": "blocks", "optimizer_in_backward": True}, 1e-6),
                         ({"precision": "bf16", "loss_scaling": True}, 6e-2)):
        other = tfc_torch.compile_train_step(copy.deepcopy(model), (x, y), loss_fn,
                                             device=device, optimizer="adamw", lr=1e-2,
                                             weight_decay=0.1, **options)
        for bx, by in data:
            other(bx, by)
        got = other.state_dict()
        for name in buffers:
            if got[name].dtype != plain[name].dtype:
                problems.append(f"{options}: {name} is {got[name].dtype}")
            elif plain[name].is_floating_point():
                e = normwise(got[name], plain[name])
                if e > tol:
                    problems.append(f"{options}: {name} {e:.2e} from the plain step's")
            elif not torch.equal(got[name], plain[name]):
                problems.append(f"{options}: {name} {got[name].tolist()}")
        if options.get("precision") == "bf16":
            if other.read("bn.running_var").dtype != torch.float32:
                problems.append("bf16: the program's bn.running_var is not f32")

    # Accumulation: two micro-batches (halves) per optimizer step; torch's
    # forward on each half updates the statistics.
    reference = copy.deepcopy(model)
    step = tfc_torch.compile_train_step(copy.deepcopy(model), (x[:4], y[:4]), loss_fn,
                                        device=device, optimizer="adamw", lr=1e-2,
                                        weight_decay=0.1, accumulate_steps=2)
    opt = torch.optim.AdamW(adamw_groups(reference, 0.1), lr=1e-2)
    for i, (bx, by) in enumerate(data):
        opt.zero_grad()
        for half in (slice(0, 4), slice(4, 8)):
            loss = step(bx[half], by[half])
            expected = loss_fn(reference(bx[half]), bx[half], by[half])
            (expected / 2).backward()
            if not math.isfinite(loss) or rel(loss, expected.item()) > LOSS_RTOL:
                problems.append(f"accumulate step {i}: loss {loss!r}, torch "
                                f"{expected.item()!r}")
        opt.step()
    compare("accumulate_steps=2", step, reference)
    return verdict(problems,
                   "buffers: ok (batch norm 2d/1d running statistics, spectral norm weight_u/v, "
                   "instance norm and domain batch norm statistics, num_batches_tracked: 5 AdamW "
                   "steps, accumulation, fusion=False, recompute, optimizer_in_backward, bf16, "
                   "eval forward, save/load)")


class _MomentumNet(torch.nn.Module):
    """Self-supervised training code that updates state inside forward:
    MoCo's momentum encoders (`k`, updated in place through .parameters();
    `k2`, through `.data =` as MoCo's official code), DINO's center (a
    buffer rebound: `self.center = ...`) and a Python step counter."""

    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.q = nn.Linear(6, 4)
        self.k = nn.Linear(6, 4)
        self.k2 = nn.Linear(6, 4)
        for p in list(self.k.parameters()) + list(self.k2.parameters()):
            p.requires_grad = False
        self.register_buffer("center", torch.zeros(4))
        self.calls = 0
        self.jitter = 0.0
        self._rng = random.Random(5)  # a generator of its own (NeMo's SpecAugment)

    def forward(self, x):
        self.calls += 1
        self.jitter = random.random()  # a host draw: warned about, not used
        self._rng.random()  # so is a draw from its own generator
        with torch.no_grad():
            for pq, pk in zip(self.q.parameters(), self.k.parameters()):
                pk.mul_(0.8).add_(pq.detach(), alpha=0.2)
            for pq, pk in zip(self.q.parameters(), self.k2.parameters()):
                pk.data = pk.data * 0.7 + pq.data * 0.3
            teacher = torch.softmax((self.k(x) + self.k2(x) - self.center) / 0.5, -1)
        loss = -(teacher * torch.log_softmax(self.q(x) / 0.2, -1)).sum(-1).mean()
        with torch.no_grad():
            self.center = self.center * 0.9 + self.k(x).mean(0) * 0.1
        return loss


def check_forward_state(device):
    """5 AdamW steps of _MomentumNet against torch: losses, trained
    parameters, the momentum encoders and the center as torch's; compiling
    leaves the user's module as it was (its frozen weights, its center and
    its counter, with a TracedUpdateWarning naming the counter); writes to
    trainable parameters in forward are refused by name."""
    import warnings
    torch.manual_seed(7)
    model = _MomentumNet()
    g = torch.Generator().manual_seed(3)
    data = [torch.randn(5, 6, generator=g) for _ in range(5)]
    before = copy.deepcopy(model.state_dict())
    reference = copy.deepcopy(model)
    problems = []
    drawn, own = random.getstate(), model._rng.getstate()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step = tfc_torch.compile_train_step(model, (data[0],), device=device,
                                            optimizer="adamw", lr=1e-2)
    for text in ("attributes calls (was 0), jitter (was 0.0)", "draws from random",
                 "the generator _rng (Random)"):
        if not any(text in str(w.message) for w in caught):
            problems.append(f"no warning with '{text}': "
                            f"{[str(w.message)[:80] for w in caught]}")
    if random.getstate() != drawn or model._rng.getstate() != own:
        problems.append("compiling consumed draws of Python's random or the module's own")
    if model.calls != 0 or any(not torch.equal(v, before[k])
                               for k, v in model.state_dict().items()):
        problems.append("compiling changed the user's module")
    opt = torch.optim.AdamW(reference.q.parameters(), lr=1e-2)
    for i, x in enumerate(data):
        loss = step(x)
        opt.zero_grad()
        expected = reference(x)
        expected.backward()
        opt.step()
        if not math.isfinite(loss) or rel(loss, expected.item()) > LOSS_RTOL:
            problems.append(f"step {i}: loss {loss!r}, torch {expected.item()!r}")
    state = step.state_dict()
    for name, want in reference.state_dict().items():
        if name not in state:
            problems.append(f"{name} missing from state_dict()")
        elif normwise(state[name], want) > PARAM_RTOL:
            problems.append(f"{name}: {normwise(state[name], want):.2e} from torch's")

    class Rebinds(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.ones(3))

        def forward(self, x):
            self.w = torch.nn.Parameter(self.w * 0.5)
            return (x * self.w).sum()

    class SetsData(Rebinds):
        def forward(self, x):
            self.w.data = self.w.data.clamp(-0.5, 0.5)
            return (x * self.w).sum()

    class ClampsInPlace(Rebinds):
        def forward(self, x):
            with torch.no_grad():
                self.w.clamp_(-0.5, 0.5)
            return (x * self.w).sum()
    for cls, text in ((Rebinds, "replaces the trainable parameter 'w'"),
                      (SetsData, "sets the trainable parameter 'w' through .data"),
                      (ClampsInPlace, "writes a trainable parameter in place")):
        problem = expect_error(tfc_torch.ModelError, text, lambda: tfc_torch.compile_train_step(
            cls(), (torch.ones(3),), device=device))
        if problem:
            problems.append(f"{cls.__name__}: {problem}")
    problems += _check_stored_tensors(device)
    problems += _check_fused_parameters(device)
    return verdict(problems,
                   "forward-state: ok (MoCo momentum encoders through .parameters() and .data, "
                   "DINO's center rebound, 5 AdamW steps as torch's; the user's module unchanged, "
                   "the counter warned about; trainable parameters written in forward refused; "
                   "tensors stored outside the buffers put back and warned about, a buffer's "
                   "carried; nn.Parameter made in forward a new leaf, as torch's)")


class _FusedInForward(torch.nn.Module):
    """A linear layer and a batch norm fused in the training forward with
    torch.nn.utils.fusion.fuse_linear_bn_weights, which returns
    nn.Parameters: new leaves in torch, so no gradient reaches the linear
    layer's and the batch norm's parameters they are made of (the layer
    before them, `inp`, trains)."""

    def __init__(self):
        super().__init__()
        self.inp = torch.nn.Linear(4, 4)
        self.lin = torch.nn.Linear(4, 3)
        self.bn = torch.nn.BatchNorm1d(3).eval()

    def forward(self, x):
        from torch.nn.utils.fusion import fuse_linear_bn_weights
        bn = self.bn
        w, b = fuse_linear_bn_weights(self.lin.weight, self.lin.bias, bn.running_mean,
                                      bn.running_var, bn.eps, bn.weight, bn.bias)
        return F.linear(torch.tanh(self.inp(x)), w * 2, b).pow(2).mean()


def _check_fused_parameters(device) -> list:
    """3 SGD steps of _FusedInForward as torch's: the fused layer's
    parameters stay (before the fix tfc passed the gradient through the
    nn.Parameter made in forward and trained them: lin.weight 3.9e-1 off)."""
    problems = []
    torch.manual_seed(6)
    model = _FusedInForward()
    reference = copy.deepcopy(model)
    g = torch.Generator().manual_seed(2)
    data = [(torch.randn(5, 4, generator=g),) for _ in range(3)]
    step = tfc_torch.compile_train_step(model, data[0], device=device, optimizer="sgd", lr=0.5)
    opt = torch.optim.SGD(reference.parameters(), lr=0.5)
    train_alongside(step, reference, opt, lambda m, b: m(*b), data, "fused: ", problems)
    compare_parameters(step.state_dict(), reference, "fused: ", problems)
    return problems


STORED = []  # a module-level log forward appends to (_Stores)


class _Meter:
    """An AverageMeter as training scripts write it."""

    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, v, n=1):
        self.sum += v * n
        self.count += n


class _Pool:
    """CycleGAN's ImagePool: a counter beside the list it counts."""

    def __init__(self):
        self.num_imgs, self.images = 0, []


class _Stores(torch.nn.Module):
    """Forward storing tensors for the training loop to read: a new
    attribute, one that was None, a submodule's new attribute, a list a
    forward hook fills, an AverageMeter's sum and a module-level list; and a
    buffer it rebinds (the way to keep such a value)."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)
        self.sub = torch.nn.Identity()
        self.was_none = None
        self.feats = []
        self.meter = _Meter()
        self.pool = _Pool()
        self._logged = {}
        self.register_buffer("kept", torch.zeros(5))
        self.lin.register_forward_hook(lambda m, i, o: self.feats.append(o.detach()))

    def forward(self, x):
        out = self.lin(x)
        mask = (out.softmax(1).max(1)[0] > 0.4).float().detach()
        self.last_mask = mask
        self.was_none = mask.sum()
        self.sub.feat = out.detach()
        self.meter.update(mask.mean())
        for row in out:
            self.pool.num_imgs += 1
            self.pool.images.append(row.detach())
        self._logged["mask"] = mask.sum()   # Lightning's self.log into a private dict
        STORED.append(mask.sum())
        self.kept = mask
        return out.pow(2).mean()


def _keeping(features: dict):
    """A forward hook storing its module's output in `features` (the
    feature-extraction tutorials' get_activation)."""
    def hook(module, inputs, output):
        features["sub"] = output.detach()
    return hook


def _check_stored_tensors(device) -> list:
    """Compiling _Stores (a train step and a forward; with a hook filling a
    dict it closes over) leaves none of the tensors its trace stored on the
    user's objects (before the fix they
    held traced tensors, numpy reading garbage from them) and warns naming
    each; the step carries the buffer forward rebinds as torch does."""
    import warnings
    problems = []
    torch.manual_seed(4)
    x = torch.randn(5, 4)
    for what in ("step", "forward"):
        model = _Stores()
        features = {}
        model.lin.register_forward_hook(_keeping(features))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if what == "step":
                run = tfc_torch.compile_train_step(model, (x,), device=device,
                                                   optimizer="sgd", lr=0.1)
            else:
                run = tfc_torch.compile(model.eval(), (x,), device=device)
        text = " ".join(str(w.message) for w in caught)
        for name in ("last_mask", "was_none", "sub.feat", "feats", "meter.sum",
                     "train_state.STORED", "features", "register_buffer", "pool.images",
                     "_logged", "pool.num_imgs (was 0)"):
            if name not in text:
                problems.append(f"{what}: no warning naming {name}: {text[:300]}")
        left = {"last_mask": hasattr(model, "last_mask"), "was_none": model.was_none is not None,
                "sub.feat": hasattr(model.sub, "feat"), "feats": model.feats != [],
                "meter": (model.meter.sum, model.meter.count) != (0.0, 0), "STORED": STORED != [],
                "pool": (model.pool.num_imgs, model.pool.images) != (0, []),
                "_logged": model._logged != {},
                "features": features != {}}
        if any(left.values()):
            problems.append(f"{what}: compiling left stored values on the user's objects: "
                            f"{[k for k, v in left.items() if v]}")
        del STORED[:]
        if what == "step":
            want = (model.lin(x).softmax(1).max(1)[0] > 0.4).float()
            run(x)
            if not torch.equal(run.state_dict()["kept"].cpu(), want):
                problems.append(f"the step's kept {run.state_dict()['kept']}, torch's {want}")
    return problems


class CheckpointFunction(torch.autograd.Function):
    """openai's activation checkpoint (guided / latent diffusion, Stable
    Diffusion's use_checkpoint=True), as those repositories write it."""

    @staticmethod
    def forward(ctx, run_function, length, *args):
        ctx.run_function = run_function
        ctx.input_tensors = list(args[:length])
        ctx.input_params = list(args[length:])
        with torch.no_grad():
            return ctx.run_function(*ctx.input_tensors)

    @staticmethod
    def backward(ctx, *output_grads):
        ctx.input_tensors = [x.detach().requires_grad_(True) for x in ctx.input_tensors]
        with torch.enable_grad():
            out = ctx.run_function(*[x.view_as(x) for x in ctx.input_tensors])
        grads = torch.autograd.grad(out, ctx.input_tensors + ctx.input_params, output_grads,
                                    allow_unused=True)
        return (None, None) + grads


class _CheckpointNet(torch.nn.Module):
    """Blocks under torch.utils.checkpoint, in both forms (use_reentrant
    False with a keyword-free extra argument, True), a checkpoint_sequential
    over a Sequential, openai's CheckpointFunction, and a block imported by
    name; `plain` calls the same blocks directly (the reference)."""

    def __init__(self, plain=False):
        super().__init__()
        nn = torch.nn
        self.a, self.b = nn.Linear(6, 12), nn.Linear(12, 6)
        self.seq = nn.Sequential(nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 6), nn.GELU())
        self.norm = nn.LayerNorm(6)
        self.last = nn.Linear(6, 6)
        self.plain = plain

    def block(self, x, scale):
        return x + self.b(torch.nn.functional.gelu(self.a(self.norm(x)))) * scale

    def forward(self, x):
        from torch.utils.checkpoint import checkpoint, checkpoint_sequential
        if self.plain:
            return self.last(self.seq(self.block(self.block(x, 0.5), 2.0)))
        h = checkpoint(self.block, x, 0.5, use_reentrant=False)
        h = checkpoint(self.block, h, 2.0, use_reentrant=True)
        h = checkpoint_sequential(self.seq, 2, h)
        return CheckpointFunction.apply(self.last, 1, h, *self.last.parameters())


def check_checkpoint(device):
    """torch.utils.checkpoint traces as a direct call: 4 AdamW steps of
    _CheckpointNet through compile_train_step against torch on the same
    model without checkpointing (torch.autograd.grad refuses a reentrant
    checkpoint, and its values are the function's anyway): losses and
    parameters as torch's, also with recompute=blocks."""
    torch.manual_seed(3)
    model = _CheckpointNet()
    g = torch.Generator().manual_seed(4)
    data = [(torch.randn(5, 6, generator=g), torch.randn(5, 6, generator=g)) for _ in range(4)]

    def loss_fn(out, x, y):
        return torch.nn.functional.mse_loss(out, y)

    problems = []
    for options in ({}, {"recompute": "blocks"}):
        reference = _CheckpointNet(plain=True)
        reference.load_state_dict(model.state_dict())
        step = tfc_torch.compile_train_step(copy.deepcopy(model), data[0], loss_fn, device=device,
                                            optimizer="adamw", lr=1e-2, **options)
        opt = torch.optim.AdamW(adamw_groups(reference, 0.01), lr=1e-2, weight_decay=0.01)
        train_alongside(step, reference, opt, lambda m, b: loss_fn(m(b[0]), *b), data,
                        f"{options}: ", problems)
        compare_parameters(step.state_dict(), reference, f"{options}: ", problems)
    return verdict(problems,
                   "checkpoint: ok (use_reentrant False and True, checkpoint_sequential, openai's "
                   "CheckpointFunction: 4 AdamW steps as torch without checkpointing, also "
                   "recompute=blocks)")


def _partial_windows(device, problems):
    """accumulate_steps=4 over epochs of 10 micro-batches, torch's loop
    stepping on each epoch's partial last window (step.apply_pending()):
    parameters as torch's; the parameters read with micro-batches pending
    warn; save() / load() in the middle of a window resume it exactly."""
    import warnings
    torch.manual_seed(11)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    g = torch.Generator().manual_seed(12)
    loader = [(torch.randn(8, 8, generator=g), torch.randint(0, 4, (8,), generator=g))
              for _ in range(10)]

    def loss_fn(out, x, y):
        return F.cross_entropy(out, y)

    def compiled():
        return tfc_torch.compile_train_step(copy.deepcopy(model), loader[0], loss_fn,
                                            device=device, optimizer="sgd", lr=0.1,
                                            momentum=0.9, accumulate_steps=4)
    reference = copy.deepcopy(model)
    opt = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    step = compiled()
    applied = []
    for epoch in range(2):
        for i, (x, y) in enumerate(loader):
            step(x, y)
            (loss_fn(reference(x), x, y) / 4).backward()
            if (i + 1) % 4 == 0 or i + 1 == len(loader):
                opt.step()
                opt.zero_grad()
        if epoch == 0:
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                step.state_dict()
            if not any(issubclass(w.category, tfc_torch.AccumulationWarning)
                       and "apply_pending" in str(w.message) for w in seen):
                problems.append("state_dict() with 2 micro-batches pending: no "
                                "AccumulationWarning")
        applied.append((step.pending, step.apply_pending(), step.apply_pending()))
    if applied != [(2, 2, 0)] * 2:
        problems.append(f"(pending, apply_pending(), again) per epoch: {applied}")
    compare_parameters(step.state_dict(), reference, "partial windows: ", problems)

    # Saved with 2 micro-batches pending: the loaded step applies after 2 more.
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "step.safetensors")
        step = compiled()
        for batch in loader[:6]:
            step(*batch)
        step.save(path)
        for batch in loader[6:]:
            step(*batch)
        step.apply_pending()
        resumed = compiled()
        resumed.load(path)
        for batch in loader[6:]:
            resumed(*batch)
        resumed.apply_pending()
        halves = tfc_torch.compile_train_step(copy.deepcopy(model), loader[0], loss_fn,
                                              device=device, optimizer="sgd", lr=0.1,
                                              momentum=0.9, accumulate_steps=2)
        err = expect_error(ValueError, "saved with 2 micro-batches pending",
                           lambda: halves.load(path))
        if err:
            problems.append(f"load() into accumulate_steps=2: {err}")
    went_on, back = step.state_dict(), resumed.state_dict()
    if any(not torch.equal(went_on[k], back[k]) for k in went_on):
        problems.append("load() of a step saved with micro-batches pending: parameters differ "
                        "from the uninterrupted run's")


class _MaxNormEmbedding(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(20, 8, max_norm=1.0)
        self.fc = torch.nn.Linear(8, 3)

    def forward(self, ids, y):
        return F.cross_entropy(self.fc(self.emb(ids).mean(1)), y)


def check_loop_recipes(device):
    """Recipes of torch training loops around a step: accumulation windows
    cut short at an epoch's end (_partial_windows); a partial checkpoint
    loaded with strict=False returning torch's (missing_keys,
    unexpected_keys), a strict mismatch a RuntimeError; clip_grad_norm_'s
    norm_type (2 taken, inf refused naming it) and the total norm, which
    the step does not return (a KeyError saying so); nn.Embedding(max_norm)
    refused with a hint whose recipe (renormalize the step's copy of the
    looked-up rows before each call) trains as torch's module does."""
    problems = []
    _partial_windows(device, problems)

    torch.manual_seed(13)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))
    batch = (torch.randn(8, 4), torch.randint(0, 2, (8,)))

    def loss_fn(out, x, y):
        return F.cross_entropy(out, y)
    step = tfc_torch.compile_train_step(copy.deepcopy(model), batch, loss_fn, device=device,
                                        optimizer="sgd", lr=0.1, max_grad_norm=1.0,
                                        norm_type=2)
    step(*batch)
    head = {k: v for k, v in model.state_dict().items() if k.startswith("2.")}
    keys = step.load_state_dict(dict(head, extra=torch.zeros(1)), strict=False)
    if (list(keys.missing_keys), list(keys.unexpected_keys)) != (["0.weight", "0.bias"],
                                                                  ["extra"]):
        problems.append(f"load_state_dict(strict=False) returned {keys!r}")
    if not torch.equal(step.state_dict()["2.weight"], model[2].weight.detach()):
        problems.append("load_state_dict(strict=False) did not set 2.weight")
    fast = tfc_torch.compile(copy.deepcopy(model).eval(), batch[:1], device=device)
    keys = fast.load_state_dict(dict(head, extra=torch.zeros(1)), strict=False)
    if keys is None or list(keys.unexpected_keys) != ["extra"]:
        problems.append(f"a compiled forward's load_state_dict(strict=False) returned {keys!r}")
    for err in [
        expect_error(RuntimeError, 'Missing key(s) in state_dict: "0.weight", "0.bias"',
                     lambda: step.load_state_dict(head)),
        expect_error(tfc_torch.OptionError, "norm_type=inf", lambda: tfc_torch.compile_train_step(
            copy.deepcopy(model), batch, loss_fn, device=device, max_grad_norm=1.0,
            norm_type=math.inf)),
        expect_error(KeyError, "does not return the total gradient norm",
                     lambda: step.read("grad_norm")),
    ]:
        if err:
            problems.append(err)

    # nn.Embedding(max_norm): the refusal's recipe, against torch's module.
    torch.manual_seed(14)
    embed = _MaxNormEmbedding()
    g = torch.Generator().manual_seed(15)
    data = [(torch.randint(0, 20, (8, 6), generator=g), torch.randint(0, 3, (8,), generator=g))
            for _ in range(4)]
    recipe = "step.load_state_dict(sd)"
    err = expect_error(tfc_torch.ModelError, recipe, lambda: tfc_torch.compile_train_step(
        copy.deepcopy(embed), data[0], device=device))
    if err:
        problems.append(f"Embedding(max_norm): {err}")
    reference = copy.deepcopy(embed)
    with torch.no_grad():
        embed.emb.weight.mul_(3.0)       # rows longer than max_norm
        reference.emb.weight.mul_(3.0)
    embed.emb.max_norm = None
    opt = torch.optim.AdamW(reference.parameters(), lr=1e-2)
    step = tfc_torch.compile_train_step(embed, data[0], device=device,
                                        optimizer=torch.optim.AdamW(embed.parameters(), lr=1e-2))

    def renormalized(ids, y):
        sd = step.state_dict()
        with torch.no_grad():
            torch.embedding_renorm_(sd["emb.weight"], ids, 1.0, 2.0)
        step.load_state_dict(sd)
        return step(ids, y)
    train_alongside(renormalized, reference, opt, lambda m, b: m(*b), data,
                    "Embedding(max_norm) recipe: ", problems)
    compare_parameters(step.state_dict(), reference, "Embedding(max_norm) recipe: ", problems)
    return verdict(problems,
                   "loop-recipes: ok (accumulation windows cut at epoch ends with apply_pending "
                   "as torch's loop, the pending warning, save / load mid-window; "
                   "load_state_dict(strict=False) keys, strict RuntimeError; norm_type; "
                   "grad_norm; Embedding(max_norm)'s recipe as torch's)")


class _Held(torch.nn.Module):
    """Values forward reads from the module as constants: RotatE's margin,
    a frozen parameter read with .item(), and NT-Xent's positives mask, a
    buffer whose selection forward views as N rows. `writes`: forward also
    updates the mask buffer (model state)."""

    def __init__(self, writes=False):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.gamma = torch.nn.Parameter(torch.tensor([6.0]), requires_grad=False)
        self.register_buffer("pos", torch.eye(6, dtype=torch.bool).roll(3, 1))
        self.writes = writes

    def forward(self, x):
        z = F.normalize(self.lin(x), dim=1)
        sim = z @ z.t()
        pos = sim[self.pos].view(z.shape[0], 1)
        if self.writes:
            self.pos.copy_(self.pos.roll(1, 0))
        return (self.gamma.item() - pos).pow(2).mean() + sim.mean()


class _RingQueue(torch.nn.Module):
    """MoCo's key queue in the form the error at int(self.queue_ptr)
    recommends: written at (ptr + arange(bs)) % K, the pointer advanced in
    place, both buffers model state."""

    def __init__(self, k=10):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.k = k
        self.register_buffer("queue", F.normalize(torch.randn(4, k), dim=0))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))

    def forward(self, x):
        q = F.normalize(self.lin(x), dim=1)
        loss = torch.logsumexp(q @ self.queue.clone().detach() / 0.07, 1).mean()
        with torch.no_grad():
            idx = (self.queue_ptr + torch.arange(x.shape[0])) % self.k
            self.queue.index_copy_(1, idx, q.T)
            self.queue_ptr.add_(x.shape[0]).remainder_(self.k)
        return loss


def check_held_values(device):
    """Buffers and frozen parameters forward never writes are constants
    whose values the trace may read (a frozen parameter's .item(), a buffer
    mask's row count): 3 SGD steps as torch's; changing either after
    compiling is a ModelError naming it (.item() leaves no use of the
    parameter in the program, which must still count it as read); a
    forward that writes the mask, or frozen="state", is refused."""
    g = torch.Generator().manual_seed(31)
    data = [(torch.randn(6, 4, generator=g),) for _ in range(4)]
    problems = []
    torch.manual_seed(31)
    model = _Held()
    reference = copy.deepcopy(model)

    def alongside(step, reference, batches, label):
        # SGD steps of the compiled step and torch side by side, losses
        # within 1e-5 (relative past 1).
        opt = torch.optim.SGD(reference.parameters(), lr=0.1)
        for i, batch in enumerate(batches):
            loss = step(*batch)
            opt.zero_grad()
            want = reference(*batch)
            want.backward()
            opt.step()
            if abs(loss - want.item()) > 1e-5 * max(1.0, abs(want.item())):
                problems.append(f"{label}step {i}: loss {loss}, torch {want.item()}")

    step = tfc_torch.compile_train_step(model, data[0], device=device, optimizer="sgd", lr=0.1)
    alongside(step, reference, data[:3], "")

    def changed(change, text):
        m = _Held()
        run = tfc_torch.compile_train_step(m, data[0], device=device, optimizer="sgd", lr=0.1)
        run(*data[0])
        change(m)
        return expect_error(tfc_torch.ModelError, text,
                            lambda: [run(*batch) for batch in data[1:]])

    def changed_at_next_call(change, text):
        # Changed after call 2: call 3 is none of the 1, 2, 4, 8, ... full
        # comparisons, yet a held constant is compared at every call.
        m = _Held()
        run = tfc_torch.compile_train_step(m, data[0], device=device, optimizer="sgd", lr=0.1)
        run(*data[0])
        run(*data[1])
        change(m)
        return expect_error(tfc_torch.ModelError, text, lambda: run(*data[2]))

    def set_gamma(m):
        with torch.no_grad():
            m.gamma.fill_(7.0)

    def set_pos(m):
        m.pos[0, 1] = True
    problems += [e for e in (
        changed(set_gamma, "parameter 'gamma' of the module was changed"),
        changed(lambda m: m.gamma.data.fill_(7.0), "parameter 'gamma' of the module holds"),
        changed_at_next_call(lambda m: m.gamma.data.fill_(7.0),
                             "parameter 'gamma' of the module holds"),
        changed(set_pos, "buffer 'pos' of the module was changed")) if e]
    # The ring-buffer form of MoCo's queue (the hint of a pointer read):
    # 5 SGD steps, the pointer wrapping around, as torch's.
    torch.manual_seed(32)
    ring = _RingQueue()
    reference = copy.deepcopy(ring)
    step = tfc_torch.compile_train_step(ring, data[0], device=device, optimizer="sgd", lr=0.1)
    alongside(step, reference, data + data[:1], "ring queue ")
    state = step.state_dict()
    if not torch.allclose(state["queue"], reference.queue, atol=1e-5) \
            or not torch.equal(state["queue_ptr"], reference.queue_ptr):
        problems.append("ring queue: the queue or its pointer differ from torch's")
    for model, options in ((_Held(writes=True), {}), (_Held(), {"frozen": "state"})):
        e = expect_error(tfc_torch.DataDependentError, ": model state, which forward writes",
                         lambda: tfc_torch.compile_train_step(model, data[0], device=device,
                                                              **options))
        if e:
            problems.append(e)
    return verdict(problems, "held-values: ok (a frozen parameter's .item() and a buffer mask's "
                             "row count: 3 SGD steps as torch's; changes after compiling "
                             "refused; a written mask and frozen='state' refused; MoCo's "
                             "ring-buffer queue: 5 SGD steps as torch's)")
