"""check_train.py's cases on model state the training forward touches:
buffers it updates (batch / instance norm statistics, spectral norm),
state changed inside forward (momentum encoders, a rebound center, Python
attributes and draws) and torch.utils.checkpoint traced as a call."""
import copy
import math
import os
import random
import tempfile
import types

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
    return verdict(problems,
                   "forward-state: ok (MoCo momentum encoders through .parameters() and .data, "
                   "DINO's center rebound, 5 AdamW steps as torch's; the user's module unchanged, "
                   "the counter warned about; trainable parameters written in forward refused)")


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


class _Annealed(torch.nn.Module):
    """A VAE-style loss whose KL weight `beta` the training loop anneals, a
    temperature buffer, and a layer a WGAN loop would clip."""

    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Linear(4, 6)
        self.dec = torch.nn.Linear(6, 4)
        self.beta = 0.1
        self.register_buffer("tau", torch.tensor(2.0))
        # Not read by forward (an EMA copy kept beside the model, LDM's
        # LitEma): free to change between calls.
        self.register_buffer("shadow", torch.zeros(4))

    def forward(self, x):
        h = self.enc(x)
        return F.mse_loss(self.dec(torch.tanh(h / self.tau)), x) + self.beta * h.pow(2).mean()


def _error_after_change(run, model, change, data, text):
    """Runs the compiled `run` on data[0], applies `change` to `model`, and
    expects the calls on the other batches to raise a ModelError with
    `text` (None when they do)."""
    run(*data[0])
    change(model)

    def calls():
        for batch in data[1:]:
            run(*batch)
    return expect_error(tfc_torch.ModelError, text, calls)


def check_module_changes(device):
    """Changes to the module after compiling that the compiled program cannot
    follow are caught at the next call (module_watch.py): an annealed Python
    attribute and requires_grad toggled warn once; a buffer written in
    place, a parameter clamped under no_grad or through .data (WGAN's
    clipping, caught at the backoff value check) and a hook added are
    ModelErrors, in a train step and a compiled forward alike. Loading the step's own values
    into the module (evaluating mid-training) is no change: the steps go on
    as an uninterrupted twin's."""
    import warnings
    torch.manual_seed(21)
    model = _Annealed()
    g = torch.Generator().manual_seed(22)
    data = [(torch.randn(5, 4, generator=g),) for _ in range(6)]
    problems = []

    def make(m):
        return tfc_torch.compile_train_step(m, data[0], device=device, optimizer="sgd", lr=0.1)

    # Syncing the module from the step between calls is accepted.
    mine, twin = copy.deepcopy(model), copy.deepcopy(model)
    step, twin_step = make(mine), make(twin)
    for i, batch in enumerate(data):
        loss, want = step(*batch), twin_step(*batch)
        if loss != want:
            problems.append(f"synced step {i}: loss {loss} != {want}")
        mine.load_state_dict(step.state_dict())

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = copy.deepcopy(model)
        step = make(m)
        step(*data[0])
        m.beta = 0.5
        step(*data[1])
        step(*data[2])
        m.dec.bias.requires_grad_(False)
        step(*data[3])
        step(*data[4])
    texts = [str(w.message) for w in caught
             if issubclass(w.category, tfc_torch.TracedUpdateWarning)]
    if (len(texts) != 2 or "attribute beta changed" not in texts[0]
            or "requires_grad of parameters dec.bias changed" not in texts[1]):
        problems.append(f"annealed beta, frozen bias: warnings {texts}")

    # Using the module while the step holds newer parameters (an evaluation,
    # timm's ModelEmaV2 reading model.state_dict()) warns once; after
    # model.load_state_dict(step.state_dict()) it does not.
    for sync in (False, True):
        m = copy.deepcopy(model)
        step = make(m)
        for batch in data[:2]:
            step(*batch)
        if sync:
            m.load_state_dict(step.state_dict())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m.enc(data[0][0])
            m.dec.state_dict()
            m(data[0][0])
        stale = [w for w in caught if "the ones it was compiled with" in str(w.message)]
        if len(stale) != (0 if sync else 1):
            problems.append(f"stale module reads (synced={sync}): {len(stale)} warnings")

    # Two steps over one module (a GAN's): the one whose parameters the
    # other trains warns once when it runs with stale copies, and not when
    # the caller copies them across before each call.
    class _Pair(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.g, self.d = torch.nn.Linear(4, 4), torch.nn.Linear(4, 1)

        def forward(self, x):
            return x

    for sync in (False, True):
        pair = _Pair()

        def d_loss(out, x, pair=pair):
            return pair.d(x).mean() - pair.d(pair.g(x).detach()).mean()

        def g_loss(out, x, pair=pair):
            return -pair.d(pair.g(x)).mean()

        d_step = tfc_torch.compile_train_step(
            pair, data[0], lambda o, x: d_loss(o, x), device=device,
            optimizer=torch.optim.SGD(pair.d.parameters(), lr=0.1))
        g_step = tfc_torch.compile_train_step(
            pair, data[0], lambda o, x: g_loss(o, x), device=device,
            optimizer=torch.optim.SGD(pair.g.parameters(), lr=0.1))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for batch in data[:3]:
                d_step(*batch)
                if sync:
                    g_step.load_state_dict({k: v for k, v in d_step.state_dict().items()
                                            if k.startswith("d.")}, strict=False)
                g_step(*batch)
                if sync:
                    d_step.load_state_dict({k: v for k, v in g_step.state_dict().items()
                                            if k.startswith("g.")}, strict=False)
        texts = [str(w.message) for w in caught
                 if "trained by another compiled step" in str(w.message)]
        if len(texts) != (0 if sync else 2):
            problems.append(f"two steps over one module (sync={sync}): warnings {texts}")

    def changed(change, text, compiled=False):
        m = copy.deepcopy(model)
        run = (tfc_torch.compile(m, data[0], device=device) if compiled else make(m))
        return _error_after_change(run, m, change, data, text)

    def clamp_no_grad(m):
        with torch.no_grad():
            m.enc.weight.clamp_(-0.01, 0.01)

    m = copy.deepcopy(model)
    step = make(m)
    for batch in data[:3]:
        step(*batch)
        m.shadow.mul_(0.9).add_(1.0)
    step.load_state_dict(m.state_dict())   # the shadow's new value carried, not refused
    if not torch.equal(step.state_dict()["shadow"], m.shadow):
        problems.append("an unread buffer's value was not carried by load_state_dict")
    for err in [
        changed(lambda m: m.tau.fill_(1.0), "buffer 'tau' of the module was changed"),
        changed(lambda m: m.tau.fill_(1.0), "buffer 'tau' of the module was changed", True),
        changed(clamp_no_grad, "parameter 'enc.weight' of the module was changed"),
        changed(lambda m: m.dec.weight.data.clamp_(-0.01, 0.01),
                "parameter 'dec.weight' of the module holds other values"),
        changed(lambda m: m.enc.register_forward_hook(lambda mod, i, o: o * 2),
                "forward hooks or forward pre-hooks"),
    ]:
        if err:
            problems.append(err)
    return verdict(problems,
                   "module-changes: ok (syncing from the step accepted; an annealed attribute and "
                   "a frozen bias warned once; buffer writes, clamps under no_grad and through "
                   ".data and hooks refused, also in a compiled forward)")


# A module-level tensor forward reads (check_outside_values).
_GLOBAL_SCALE = torch.tensor(1.0)


class _Outside(torch.nn.Module):
    """A loss reading tensors that are no parameters or buffers (a KL weight
    kept as a 0-d tensor attribute, cross-entropy class weights, a teacher
    hidden from .parameters() in a list, a module-level tensor), loss
    weights in a dict and a config namespace, and a frozen layer."""

    def __init__(self, teacher):
        super().__init__()
        self.enc = torch.nn.Linear(4, 3)
        self.frozen = torch.nn.Linear(4, 3).requires_grad_(False)
        self.beta = torch.tensor(0.1)
        self.class_w = torch.tensor([1.0, 2.0, 0.5])
        self._teacher = [teacher]
        self.loss_weights = {"l2": 0.01}
        self.cfg = types.SimpleNamespace(kd=0.5)

    def forward(self, x, y):
        z = self.enc(x) + self.frozen(x)
        with torch.no_grad():
            t = self._teacher[0](x)
        return (F.cross_entropy(z, y, weight=self.class_w)
                + self.beta * _GLOBAL_SCALE * z.pow(2).mean() + self.cfg.kd * F.mse_loss(z, t)
                + self.loss_weights["l2"] * self.enc.weight.pow(2).sum())


class _Distill(torch.nn.Module):
    """A distillation loss_fn module holding a frozen teacher."""

    def __init__(self, teacher):
        super().__init__()
        self.teacher = teacher.requires_grad_(False)

    def forward(self, logits, x, y):
        with torch.no_grad():
            t = self.teacher(x)
        return F.kl_div(F.log_softmax(logits, -1), F.softmax(t, -1), reduction="batchmean")


# Module-level values forward reads as Python numbers (_check_number_reads).
_GLOBAL_TEMPERATURE = torch.tensor(1.0)
_GLOBAL_WEIGHT = 1.0


class _LossWeights:
    """A plain helper object (no namespace, no dataclass) holding a loss
    weight and class weights."""

    def __init__(self):
        self.aux = 0.5
        self.class_w = torch.tensor([1.0, 2.0, 0.5])


class _NumberReads(torch.nn.Module):
    """Tensors that are no parameters or buffers read as Python numbers (a
    temperature with .item(), a scale with float(), topk's k with int(),
    split sizes with .tolist(), a global with .item()), a number held by a
    helper object and a global number, class weights held by the helper
    and as a class attribute."""
    shared_w = torch.tensor([1.0, 1.0, 2.0])

    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Linear(4, 3)
        self.tau = torch.tensor(2.0)
        self.scale = torch.tensor(1.5)
        self.k = torch.tensor(2)
        self.sizes = torch.tensor([1, 2])
        self.helper = _LossWeights()

    def forward(self, x, y):
        z = self.enc(x)
        a, b = torch.split(z, self.sizes.tolist(), 1)
        return (F.cross_entropy(z / self.tau.item(), y, weight=self.helper.class_w)
                * float(self.scale)
                + z.topk(int(self.k), 1).values.pow(2).mean() * self.helper.aux
                + F.cross_entropy(z, y, weight=self.shared_w) / _GLOBAL_TEMPERATURE.item()
                + (a.pow(2).mean() + b.abs().mean()) * _GLOBAL_WEIGHT)


class _TemperedLoss(torch.nn.Module):
    """A loss_fn module reading its buffer with .item(), weighted by a
    number attribute (annealed between epochs)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("tau", torch.tensor(2.0))
        self.w = 1.0

    def forward(self, logits, x, y):
        return F.cross_entropy(logits / self.tau.item(), y) * self.w


def _closed_over_weights():
    """A module whose class is defined in a function, forward closing over
    class weights, and a function rebinding them (nonlocal)."""
    w = torch.tensor([1.0, 2.0, 0.5])

    class Closed(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = torch.nn.Linear(4, 3)

        def forward(self, x, y):
            return F.cross_entropy(self.enc(x), y, weight=w)

    def rebind():
        nonlocal w
        w = torch.ones(3)
    return Closed(), rebind


def _check_number_reads(data, make):
    """Values forward reads as Python numbers, changed after compiling:
    tensors (attributes, a global, a loss_fn's buffer) are ModelErrors
    naming them, as are class weights rebound on a helper object, as a
    class attribute or in a closure; numbers of a helper object, a global and a loss_fn
    module warn. The problems found."""
    import warnings
    global _GLOBAL_WEIGHT
    problems = []
    m = _NumberReads()
    want = m(*data[0]).item()
    got = make(m)(*data[0])
    if abs(got - want) > 1e-5 * abs(want):
        problems.append(f"number reads: loss {got} != torch's {want}")

    def changed(change, text, compiled=False):
        m = _NumberReads()
        run = make(m, compiled=compiled)
        run(*data[0])
        change(m)
        return expect_error(tfc_torch.ModelError, text, lambda: run(*data[1]))

    def temperature(m):
        _GLOBAL_TEMPERATURE.fill_(2.0)

    def shared(m):
        _NumberReads.shared_w = torch.ones(3)
    errors = [
        changed(lambda m: m.tau.fill_(0.5), "tensor 'model.tau' was changed"),
        changed(lambda m: m.tau.fill_(0.5), "tensor 'model.tau' was changed", True),
        changed(lambda m: m.scale.mul_(2.0), "tensor 'model.scale' was changed"),
        changed(lambda m: m.k.fill_(3), "tensor 'model.k' was changed"),
        changed(lambda m: m.sizes.copy_(torch.tensor([2, 1])), "tensor 'model.sizes' was"),
        changed(temperature, "tensor 'train_state._GLOBAL_TEMPERATURE' was changed"),
        changed(lambda m: setattr(m.helper, "class_w", torch.ones(3)),
                "tensor 'model.helper.class_w' was changed"),
        changed(shared, "tensor '_NumberReads.shared_w' was changed"),
    ]
    _GLOBAL_TEMPERATURE.fill_(1.0)
    _NumberReads.shared_w = torch.tensor([1.0, 1.0, 2.0])
    student, tempered = torch.nn.Linear(4, 3), _TemperedLoss()
    step = make(student, tempered)
    step(*data[0])
    tempered.tau.fill_(0.5)
    errors.append(expect_error(tfc_torch.ModelError, "tensor 'loss_fn.tau' was changed",
                               lambda: step(*data[1])))
    closed, rebind = _closed_over_weights()
    step = make(closed)
    step(*data[0])
    rebind()
    errors.append(expect_error(tfc_torch.ModelError, "Closed.forward.<closure 0>' was changed",
                               lambda: step(*data[1])))
    problems += [e for e in errors if e]

    m, tempered = _NumberReads(), _TemperedLoss()
    step, loss_step = make(m), make(torch.nn.Linear(4, 3), tempered)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step(*data[0])
        loss_step(*data[0])
        m.helper.aux, tempered.w, _GLOBAL_WEIGHT = 1.0, 3.0, 2.0
        for _ in range(2):
            step(*data[1])
            loss_step(*data[1])
    _GLOBAL_WEIGHT = 1.0
    texts = sorted(str(w.message)[:60] for w in caught
                   if issubclass(w.category, tfc_torch.TracedUpdateWarning))
    # Once each (the loss_fn step's code names no global).
    if (len(texts) != 3 or "attribute helper.aux changed" not in texts[0]
            or "attribute loss_fn.w changed" not in texts[1]
            or "global train_state._GLOBAL_WEIGHT changed" not in texts[2]):
        problems.append(f"numbers of a helper, a loss_fn and a global: warnings {texts}")
    return problems


def check_outside_values(device):
    """Values the trace folds in from outside the module's tables
    (module_watch.py): tensors that are no parameters or buffers changed
    after compiling (in place, through .data, rebound; a plain attribute, a
    hidden teacher, a global, a loss_fn module's teacher) are ModelErrors
    naming them, in a train step and a compiled forward; loss weights in a
    dict and a namespace warn as plain attributes do; a frozen weight and a
    hidden teacher's weight put back within float rounding (loralib's
    merge on eval(), unmerge on train()) are accepted and the steps go on
    as an untouched twin's, while a change of 1e-4 is refused."""
    import warnings
    torch.manual_seed(23)
    teacher = torch.nn.Linear(4, 3).requires_grad_(False)
    g = torch.Generator().manual_seed(24)
    data = [(torch.randn(6, 4, generator=g), torch.randint(0, 3, (6,), generator=g))
            for _ in range(5)]
    problems = []

    def make(m, loss_fn=None, compiled=False):
        if compiled:
            return tfc_torch.compile(m.eval(), data[0], device=device)
        return tfc_torch.compile_train_step(m, data[0], loss_fn, device=device,
                                            optimizer="sgd", lr=0.1)

    def changed(change, text, compiled=False):
        m = _Outside(copy.deepcopy(teacher))
        return _error_after_change(make(m, compiled=compiled), m, change, data, text)

    def scale_teacher(m):
        with torch.no_grad():
            m._teacher[0].weight.mul_(2.0)

    def scale_global(m):
        _GLOBAL_SCALE.fill_(2.0)

    errors = [
        changed(lambda m: m.beta.add_(0.5), "tensor 'model.beta' was changed"),
        changed(lambda m: m.beta.add_(0.5), "tensor 'model.beta' was changed", True),
        changed(lambda m: setattr(m.beta, "data", m.beta.data * 2), "'model.beta' was changed"),
        changed(lambda m: setattr(m, "class_w", torch.ones(3)), "'model.class_w' was changed"),
        changed(lambda m: setattr(m, "class_w", None), "'model.class_w' was changed"),
        changed(scale_teacher, "tensor 'model._teacher[0].weight' was changed"),
        changed(scale_global, "tensor 'train_state._GLOBAL_SCALE' was changed"),
    ]
    _GLOBAL_SCALE.fill_(1.0)
    student, distill = torch.nn.Linear(4, 3), _Distill(copy.deepcopy(teacher))
    step = make(student, distill)
    step(*data[0])
    with torch.no_grad():
        distill.teacher.bias.add_(1.0)
    errors.append(expect_error(tfc_torch.ModelError, "tensor 'loss_fn.teacher.bias' was changed",
                               lambda: step(*data[1])))
    problems += [e for e in errors if e]
    problems += _check_number_reads(data, make)

    # Rebinding to equal values is no change; loss weights in containers warn.
    m = _Outside(copy.deepcopy(teacher))
    step = make(m)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step(*data[0])
        m.class_w = m.class_w.clone()
        m.loss_weights["l2"] = 0.1
        m.cfg.kd = 1.0
        step(*data[1])
        step(*data[2])
    texts = sorted(str(w.message) for w in caught
                   if issubclass(w.category, tfc_torch.TracedUpdateWarning))
    if (len(texts) != 2 or "attribute cfg.kd changed" not in texts[0]
            or "attribute loss_weights['l2'] changed" not in texts[1]):
        problems.append(f"loss weights in a namespace and a dict: warnings {texts}")

    # Put back within float rounding: accepted, the program keeps its values.
    mine, twin = _Outside(copy.deepcopy(teacher)), None
    twin = copy.deepcopy(mine)
    step, twin_step = make(mine), make(twin)
    merged = torch.randn(3, 4, generator=g) * 0.37
    with torch.no_grad():
        for w in (mine.frozen.weight, mine._teacher[0].weight):
            before = w.clone()
            w.data += merged
            w.data -= merged
            if torch.equal(w, before) or not torch.allclose(w, before, rtol=0, atol=1e-6):
                problems.append("the merge round trip does not leave a rounding difference")
    for i, batch in enumerate(data):
        loss, want = step(*batch), twin_step(*batch)
        if loss != want:
            problems.append(f"after a rounding round trip, step {i}: loss {loss} != {want}")
    state = step.state_dict()
    state["frozen.weight"] = mine.frozen.weight.detach().clone()  # one rounding step off
    try:
        step.load_state_dict(state)
    except ValueError as e:
        problems.append(f"load_state_dict after a rounding round trip: {e}")
    if step(*data[0]) != twin_step(*data[0]):
        problems.append("load_state_dict after a rounding round trip changed the step")
    for text, weight in (("parameter 'frozen.weight'", lambda m: m.frozen.weight),
                         ("tensor 'model._teacher[0].weight'", lambda m: m._teacher[0].weight)):
        def nudge(m, weight=weight):
            with torch.no_grad():
                weight(m)[0, 0] += 1e-4
        err = changed(nudge, text)
        if err:
            problems.append(err)
    return verdict(problems,
                   "outside-values: ok (a tensor attribute changed in place, through .data and "
                   "rebound, a hidden teacher, a global and a loss_fn's teacher refused, also in a "
                   "compiled forward; so are tensors read as numbers (.item(), float(), int(), "
                   ".tolist() of attributes, a global, a loss_fn's buffer) and tensors rebound on "
                   "a helper object or a class; dict, namespace, helper, loss_fn and global "
                   "numbers warned; rounding round trips accepted, a 1e-4 change refused)")


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
