"""check_train.py's case on the module following the compiled step
(tfc_torch/module_sync.py): torch code reading the module's parameters and
model state between steps gets the step's trained values, and what it
writes there goes into the step (a DQN target updated through .data,
Polyak averaging, AveragedModel, a hand EMA, NoisyNet's noise reset); and a
GAN's two steps sharing one module (the copy recipe module-changes runs)."""
import copy
import gc
import re
import warnings

import torch
import torch.nn.functional as F

import tfc_torch
from train_helpers import LOSS_RTOL, expect_error, rel, verdict


class _Dqn(torch.nn.Module):
    """CleanRL's DQN loss: a target network `t` read under no_grad, updated
    by the training loop between steps."""

    def __init__(self, frozen_target: bool):
        super().__init__()
        self.q = torch.nn.Linear(4, 3)
        self.t = torch.nn.Linear(4, 3)
        self.t.load_state_dict(self.q.state_dict())
        self.t.requires_grad_(not frozen_target)

    def forward(self, x, a, r):
        with torch.no_grad():
            y = r + 0.9 * self.t(x).max(1).values
        return F.mse_loss(self.q(x).gather(1, a).squeeze(1), y)


class _Noisy(torch.nn.Module):
    """A NoisyNet layer (Rainbow): noise buffers resampled between steps."""

    def __init__(self):
        super().__init__()
        self.mu = torch.nn.Parameter(torch.randn(3, 4))
        self.sigma = torch.nn.Parameter(torch.full((3, 4), 0.1))
        self.register_buffer("eps", torch.randn(3, 4))

    def forward(self, x, y):
        return F.mse_loss(F.linear(x, self.mu + self.sigma * self.eps), y)


class _TaggedParameter(torch.nn.Parameter):
    """A user's Parameter subclass."""


def check_module_sync(device):
    """The module's trained parameters and model state follow the step
    (module_sync.py): torch code reading them between steps gets the trained
    values, and its writes go into the step. Each loop against torch's:
    CleanRL's DQN hard target update (tau=1) and Polyak update through
    .data (target trainable but not optimized; frozen with frozen="state"),
    AveragedModel.update_parameters(model), a hand EMA over parameters(),
    NoisyNet's noise buffers written between steps (frozen="state"). They
    silently used the values the module was compiled with. An in-place
    write through step.state_dict()'s copies warns."""
    import warnings
    from torch.optim.swa_utils import AveragedModel
    problems = []
    g = torch.Generator().manual_seed(31)
    batch = (torch.randn(8, 4, generator=g), torch.randint(0, 3, (8, 1), generator=g),
             torch.randn(8, generator=g))
    for frozen_target, tau in ((False, 1.0), (True, 0.5)):
        torch.manual_seed(32)
        ref = _Dqn(frozen_target)
        mine = copy.deepcopy(ref)
        opt = torch.optim.SGD(ref.q.parameters(), lr=0.5)
        step = tfc_torch.compile_train_step(
            mine, batch, device=device, optimizer=torch.optim.SGD(mine.q.parameters(), lr=0.5),
            frozen="state" if frozen_target else "constant")
        for i in range(5):
            opt.zero_grad()
            want = ref(*batch)
            want.backward()
            opt.step()
            loss = step(*batch)
            if rel(loss, want.item()) > LOSS_RTOL:
                problems.append(f"DQN target update (frozen={frozen_target}, tau={tau}) step {i}:"
                                f" loss {loss} != torch's {want.item()}")
                break
            for m in (ref, mine):
                for t, q in zip(m.t.parameters(), m.q.parameters()):
                    t.data.copy_(tau * q.data + (1 - tau) * t.data)

    # SWA's AveragedModel and a hand EMA over model.parameters().
    torch.manual_seed(33)
    ref = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    mine = copy.deepcopy(ref)
    y = torch.randint(0, 3, (8,), generator=g)
    opt = torch.optim.SGD(ref.parameters(), lr=0.3, momentum=0.9)
    step = tfc_torch.compile_train_step(
        mine, (batch[0], y), lambda out, x, y: F.cross_entropy(out, y), device=device,
        optimizer=torch.optim.SGD(mine.parameters(), lr=0.3, momentum=0.9))
    swa = [AveragedModel(m) for m in (ref, mine)]
    ema = [[p.detach().clone() for p in m.parameters()] for m in (ref, mine)]
    for i in range(4):
        opt.zero_grad()
        F.cross_entropy(ref(batch[0]), y).backward()
        opt.step()
        step(batch[0], y)
        for k, m in enumerate((ref, mine)):
            swa[k].update_parameters(m)
            with torch.no_grad():
                for e, p in zip(ema[k], m.parameters()):
                    e.mul_(0.9).add_(p, alpha=0.1)
    for what, a, b in (("AveragedModel", list(swa[0].module.parameters()),
                        list(swa[1].module.parameters())), ("hand EMA", ema[0], ema[1])):
        err = max((x - z).abs().max().item() for x, z in zip(a, b))
        if err > 1e-5:
            problems.append(f"{what} over model.parameters(): max |diff| {err:.2e} from torch's")

    # NoisyNet: reset_noise() writes the buffers between steps.
    torch.manual_seed(34)
    ref = _Noisy()
    mine = copy.deepcopy(ref)
    data = (torch.randn(5, 4, generator=g), torch.randn(5, 3, generator=g))
    opt = torch.optim.SGD(ref.parameters(), lr=0.1)
    step = tfc_torch.compile_train_step(mine, data, device=device, optimizer="sgd", lr=0.1,
                                        frozen="state")
    for i in range(4):
        opt.zero_grad()
        want = ref(*data)
        want.backward()
        opt.step()
        loss = step(*data)
        if rel(loss, want.item()) > LOSS_RTOL:
            problems.append(f"NoisyNet step {i}: loss {loss} != torch's {want.item()}")
            break
        noise = torch.randn(3, 4, generator=g)
        for m in (ref, mine):
            m.eps.copy_(noise)

    # step.state_dict() holds copies: written in place and not loaded, warned.
    torch.manual_seed(35)
    m = _Dqn(True)
    step = tfc_torch.compile_train_step(m, batch, device=device, optimizer="sgd", lr=0.1,
                                        frozen="state")
    step(*batch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sd = step.state_dict()
        sd["t.bias"].lerp_(sd["q.bias"], 0.5)
        step.load_state_dict(sd)
        step(*batch)
        sd = step.state_dict()
        sd["t.bias"].lerp_(sd["q.bias"], 0.5)
        step(*batch)
    texts = [str(w.message) for w in caught if "written in place and not loaded" in
             str(w.message)]
    if len(texts) != 1:
        problems.append(f"state_dict() written in place: {len(texts)} warnings (want 1, for the "
                        "write not loaded back)")

    # A forward compiled after training (the module untouched since) starts
    # from the trained values; a step deleted (a fit() function returned)
    # leaves them in the module.
    torch.manual_seed(36)
    for how in ("compiled forward", "step deleted"):
        model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8),
                                    torch.nn.Linear(8, 3))
        step = tfc_torch.compile_train_step(
            model, (batch[0], y), lambda out, x, y: F.cross_entropy(out, y), device=device,
            optimizer="adam", lr=0.1)
        for _ in range(3):
            step(batch[0], y)
        want = step.state_dict()
        if how == "step deleted":
            del step
            gc.collect()
            got = model.state_dict()
            if any(not torch.equal(got[k], v) for k, v in want.items()):
                problems.append("a deleted step left the module's values stale")
            continue
        twin = copy.deepcopy(model)
        twin.load_state_dict(want)
        fast = tfc_torch.compile(model.eval(), (batch[0],), device=device)
        err = (fast(batch[0]) - twin.eval()(batch[0])).abs().max().item()
        if err > 1e-5:
            problems.append(f"a forward compiled after training: max |diff| {err:.2e} from "
                            "the trained module's")
    # A parameter rebound to the step's value, and one of a Parameter
    # subclass (whose class cannot be swapped: filled in after every run),
    # are kept in step too.
    model = torch.nn.Linear(4, 3)
    model.bias = _TaggedParameter(model.bias.detach().clone())
    step = tfc_torch.compile_train_step(
        model, (batch[0], y), lambda out, x, y: F.cross_entropy(out, y), device=device,
        optimizer="sgd", lr=0.5)
    step(batch[0], y)
    model.weight = torch.nn.Parameter(step.state_dict()["weight"].clone())
    step(batch[0], y)
    with torch.no_grad():
        model.bias.mul_(0.5)
    want = step.state_dict()["bias"] * 0.5
    step.lr = 0.0          # the next call leaves what it took in
    step(batch[0], y)
    if not torch.equal(model.weight.detach(), step.state_dict()["weight"]):
        problems.append("a parameter rebound to the step's value is no longer kept in step")
    if not torch.equal(step.state_dict()["bias"], want):
        problems.append("a Parameter subclass: its write was not taken by the step")
    step.lr = 0.5
    step(batch[0], y)
    if not torch.equal(model.bias.detach(), step.state_dict()["bias"]):
        problems.append("a Parameter subclass: not kept in step")
    _check_eval_forward(device, problems)
    _check_eager_optimizer_step(device, problems)
    _check_set_and_shapes(device, problems)
    _check_held_aliases(device, problems)
    _check_gan_frozen_state(device, problems)
    return verdict(problems,
                   "module-sync: ok (DQN hard and Polyak target updates through .data, "
                   "AveragedModel and a hand EMA over parameters(), NoisyNet buffers set between "
                   "steps: 4-5 steps as torch's; a state_dict() copy written in place warned; a "
                   "forward compiled after training and a deleted step's module hold the "
                   "trained values; a forward compiled before training evaluates with the "
                   "trained values between steps; the followed Adam stepped eagerly between "
                   "steps, with a scheduler made before or after compiling, as torch's; set_() between steps "
                   "taken; a resized parameter and step.load_state_dict of another shape "
                   "refused as torch's, an int64 value cast; aliases of the parameters held "
                   "across steps (views, .data, detach(); a WGAN clip list) read and write "
                   "the trained values)")


class _CriticLoss(torch.nn.Module):
    def __init__(self, g, d):
        super().__init__()
        self.G, self.D = g, d

    def forward(self, real, z):
        return self.D(self.G(z).detach()).mean() - self.D(real).mean()


class _GeneratorLoss(torch.nn.Module):
    def __init__(self, g, d):
        super().__init__()
        self.G, self.D = g, d

    def forward(self, z):
        return -self.D(self.G(z)).mean()


def _check_gan_frozen_state(device, problems):
    """pix2pix's recipe with frozen="state": the discriminator frozen
    (set_requires_grad(netD, False)) while the generator step is compiled,
    2 critic steps per generator step, no copying between the steps: the
    generator step reads the critic step's D and the critic step the
    generator step's G, and the module ends with the trained D, as torch's
    loop (before, the module got the generator step's untrained copy of D)."""
    torch.manual_seed(12)
    g, d = torch.nn.Linear(4, 2), torch.nn.Linear(2, 1)
    rg, rd = copy.deepcopy(g), copy.deepcopy(d)
    gen = torch.Generator().manual_seed(13)
    real, z = torch.randn(8, 2, generator=gen), torch.randn(8, 4, generator=gen)
    d_step = tfc_torch.compile_train_step(_CriticLoss(g, d), (real, z), device=device,
                                          optimizer=torch.optim.SGD(d.parameters(), lr=0.1),
                                          frozen="state")
    d.requires_grad_(False)
    g_step = tfc_torch.compile_train_step(_GeneratorLoss(g, d), (z,), device=device,
                                          optimizer=torch.optim.SGD(g.parameters(), lr=0.1),
                                          frozen="state")
    d.requires_grad_(True)
    d_opt, g_opt = torch.optim.SGD(rd.parameters(), lr=0.1), torch.optim.SGD(rg.parameters(),
                                                                               lr=0.1)
    worst = 0.0
    for i in range(6):
        critic = i % 3 != 2
        got = d_step(real, z) if critic else g_step(z)
        opt = d_opt if critic else g_opt
        opt.zero_grad()
        want = _CriticLoss(rg, rd)(real, z) if critic else _GeneratorLoss(rg, rd)(z)
        want.backward()
        opt.step()
        worst = max(worst, rel(got, want.item()))
    if worst > LOSS_RTOL:
        problems.append(f"GAN under frozen=\"state\": losses {worst:.2e} from torch's")
    for name, mine, ref in (("D", d, rd), ("G", g, rg)):
        if not torch.allclose(mine.weight.detach(), ref.weight, rtol=1e-5, atol=1e-6):
            problems.append(f"GAN under frozen=\"state\": the module's {name} is not torch's")


def _check_eval_forward(device, problems):
    """A train / eval loop: a forward compiled before training (or at the
    first evaluation) evaluates with the values the step trained so far at
    each call, also after torch code read the module in between; a
    constant of the forward the step updates (batch norm's running
    statistics) is an error saying to compile the forward again. The
    forward kept its compile-time weights silently (probe AK 1)."""
    g = torch.Generator().manual_seed(41)
    x, y = torch.randn(6, 4, generator=g), torch.randn(6, 2, generator=g)
    torch.manual_seed(41)
    net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    fast = tfc_torch.compile(net, (x,), device=device)
    step = tfc_torch.compile_train_step(net, (x, y), lambda out, x, y: F.mse_loss(out, y),
                                        device=device, optimizer="adam", lr=0.05)
    seen = []
    for epoch in range(4):
        step(x, y)
        if epoch == 2:
            net(x)             # torch code reads the module in between
        got = fast(x)
        twin = copy.deepcopy(net)
        twin.load_state_dict(step.state_dict())
        err = (got - twin(x)).abs().max().item()
        seen.append(F.mse_loss(got, y).item())
        if err > 1e-5:
            problems.append(f"eval forward after step {epoch + 1}: max |diff| {err:.2e} from the "
                            "trained module's")
    if len(set(seen)) != len(seen):
        problems.append(f"eval forward: losses {seen} repeat (the compile-time weights)")
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8),
                                torch.nn.Linear(8, 2))
    fast = tfc_torch.compile(model.eval(), (x,), device=device)
    step = tfc_torch.compile_train_step(model.train(), (x, y),
                                        lambda out, x, y: F.mse_loss(out, y),
                                        device=device, optimizer="sgd", lr=0.1)
    step(x, y)
    try:
        model.eval()
        fast(x)
        problems.append("eval forward: batch norm statistics the step updated were not refused")
    except tfc_torch.ModelError as e:
        if "compile the forward again" not in str(e):
            problems.append(f"eval forward, batch norm statistics: unclear error: {e}")


def _check_eager_optimizer_step(device, problems):
    """The followed torch optimizer stepped eagerly between compiled steps
    (the epoch's smaller last batch, which the step refuses, run in torch):
    its step starts from the state the compiled steps left and they go on
    from its, as torch's run; a scheduler made before or after compiling
    counts the steps (no 'optimizer.step() overridden' warning). Its moments
    and count never reached the step (probe AK 7: counts 3 vs 6)."""
    import warnings

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 2)

        def forward(self, x, y):
            return F.mse_loss(self.fc(x), y)
    g = torch.Generator().manual_seed(43)
    full = (torch.randn(6, 4, generator=g), torch.randn(6, 2, generator=g))
    last = (torch.randn(3, 4, generator=g), torch.randn(3, 2, generator=g))

    def run(compiled, scheduler_first):
        torch.manual_seed(43)
        model = Net()
        opt = torch.optim.Adam(model.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, 2, 0.5) if scheduler_first else None
        step = (tfc_torch.compile_train_step(model, full, optimizer=opt, device=device)
                if compiled else None)
        sched = sched or torch.optim.lr_scheduler.StepLR(opt, 2, 0.5)
        losses = []
        for _ in range(3):
            if compiled:
                losses.append(step(*full))
            else:
                opt.zero_grad()
                loss = model(*full)
                loss.backward()
                opt.step()
                losses.append(loss.item())
            opt.zero_grad()
            model(*last).backward()
            opt.step()
            sched.step()
        counts = [int(s["step"]) for s in opt.state_dict()["state"].values()]
        return losses, counts
    for scheduler_first in (True, False):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got, counts = run(True, scheduler_first)
        want, want_counts = run(False, scheduler_first)
        if rel(got[-1], want[-1]) > LOSS_RTOL or counts != want_counts:
            problems.append(f"an eager optimizer.step() between steps (scheduler made "
                            f"{'before' if scheduler_first else 'after'} compiling): losses "
                            f"{got}, counts {counts}; torch's {want}, {want_counts}")
        texts = [str(w.message) for w in caught if "optimizer.step()" in str(w.message)]
        if texts:
            problems.append(f"an eager optimizer.step() between steps: warned {texts[0][:80]}")


def _check_set_and_shapes(device, problems):
    """p.set_(t) between steps (no torch function in torch 1.13: it was
    ignored unless something read the module first) is taken by the next
    step; a parameter resized through .data is a ModelError saying to
    compile again (it gave the batch-padding advice); step.load_state_dict
    of another shape is torch's RuntimeError (was a ValueError) and an
    int64 value is cast, as torch's load (was a TypeError)."""
    g = torch.Generator().manual_seed(47)
    x, y = torch.randn(6, 4, generator=g), torch.randn(6, 2, generator=g)
    torch.manual_seed(47)
    model = torch.nn.Linear(4, 2)
    twin = copy.deepcopy(model)
    loss_fn = lambda out, x, y: F.mse_loss(out, y)   # noqa: E731
    step = tfc_torch.compile_train_step(model, (x, y), loss_fn, device=device,
                                        optimizer="sgd", lr=0.1)
    opt = torch.optim.SGD(twin.parameters(), lr=0.1)
    step(x, y)
    opt.zero_grad()
    F.mse_loss(twin(x), y).backward()
    opt.step()
    new = torch.linspace(-1.0, 1.0, 8).reshape(2, 4)
    with torch.no_grad():
        model.weight.set_(new.clone())
        twin.weight.set_(new.clone())
    got, want = step(x, y), F.mse_loss(twin(x), y).item()
    if rel(got, want) > LOSS_RTOL:
        problems.append(f"set_() between steps: loss {got}, torch's {want}")
    sd = step.state_dict()
    bad = dict(sd, weight=torch.zeros(3, 4))
    err = expect_error(RuntimeError, "size mismatch for weight", lambda: step.load_state_dict(bad))
    if err:
        problems.append(f"step.load_state_dict of another shape: {err}")
    ints = dict(sd, weight=torch.arange(8).reshape(2, 4))
    step.load_state_dict(ints)
    if not torch.equal(step.state_dict()["weight"], torch.arange(8.0).reshape(2, 4)):
        problems.append("step.load_state_dict of an int64 tensor: not cast as torch's")
    model.weight.data = torch.zeros(3, 4)
    err = expect_error(Exception, "compile the step again", lambda: step(x, y))
    if err:
        problems.append(f"a parameter resized through .data: {err}")


def _check_held_aliases(device, problems):
    """Tensors sharing the parameters' storage that the caller holds across
    steps (a view, .data, detach() taken before compiling; a WGAN clip list
    of .data taken after) see the trained values and their writes reach the
    step, as torch's; once they are gone, the module is lazy again (nothing
    copied per step). Reads saw the compile-time values and writes were
    lost (probe AK 9: max |w| 0.25 vs torch's 0.05)."""
    g = torch.Generator().manual_seed(53)
    x, y = torch.randn(6, 4, generator=g), torch.randn(6, 2, generator=g)
    torch.manual_seed(53)
    model = torch.nn.Linear(4, 2)
    twin = copy.deepcopy(model)
    loss_fn = lambda out, x, y: F.mse_loss(out, y)   # noqa: E731
    row, data, det = model.weight[0], model.weight.data, [p.detach() for p in model.parameters()]
    step = tfc_torch.compile_train_step(model, (x, y), loss_fn, device=device,
                                        optimizer="sgd", lr=0.5)
    opt = torch.optim.SGD(twin.parameters(), lr=0.5)
    clip = [p.data for p in model.parameters()]      # WGAN's, kept for the run
    twin_clip = [p.data for p in twin.parameters()]
    for i in range(4):
        got = step(x, y)
        opt.zero_grad()
        loss = F.mse_loss(twin(x), y)
        loss.backward()
        opt.step()
        if rel(got, loss.item()) > LOSS_RTOL:
            problems.append(f"held aliases, step {i}: loss {got}, torch's {loss.item()}")
        for a, b in zip(clip, twin_clip):
            a.clamp_(-0.05, 0.05)
            b.clamp_(-0.05, 0.05)
    want = twin.weight.detach()
    for what, alias in (("a view", row), (".data", data[0]), ("detach()", det[0][0])):
        if not torch.equal(alias, want[0]):
            problems.append(f"{what} held from before compiling: not the trained values")
    del row, data, det, clip, twin_clip, a, b, alias
    gc.collect()
    step(x, y)
    if not step._sync.asleep:
        problems.append("held aliases gone: the module is still kept current after each step")


class _Gan(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.G, self.D = torch.nn.Linear(4, 2), torch.nn.Linear(2, 1)


class _GanCriticLoss(torch.nn.Module):
    def __init__(self, gan):
        super().__init__()
        self.m = gan

    def forward(self, real, z):
        return self.m.D(self.m.G(z).detach()).mean() - self.m.D(real).mean()


class _GanGeneratorLoss(torch.nn.Module):
    def __init__(self, gan):
        super().__init__()
        self.m = gan

    def forward(self, z):
        return -self.m.D(self.m.G(z)).mean()


def check_gan_recipe(device, problems) -> None:
    """The copy across a GAN's two steps that the stale-parameters warning
    gives (taken from its text, as a user would) trains as torch's loop
    with 2 critic steps per generator step: copying all of the other
    step's state_dict would undo the first critic step of each pair."""
    torch.manual_seed(3)
    gan = _Gan()
    g = torch.Generator().manual_seed(4)
    data = [(torch.randn(8, 2, generator=g) + 3, torch.randn(8, 4, generator=g))
            for _ in range(6)]

    def make(m):
        return (tfc_torch.compile_train_step(_GanCriticLoss(m), data[0], device=device,
                                             optimizer=torch.optim.SGD(m.D.parameters(), lr=0.1)),
                tfc_torch.compile_train_step(_GanGeneratorLoss(m), data[0][1:], device=device,
                                             optimizer=torch.optim.SGD(m.G.parameters(), lr=0.1)))
    # The recipes, from the warnings of a pair of steps called unsynced.
    d_step, g_step = make(copy.deepcopy(gan))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d_step(*data[0])
        g_step(*data[0][1:])
        d_step(*data[0])
    recipes = [re.search(r"(step\.load_state_dict\(\{.*?\}, strict=False\))", str(w.message))
               for w in caught if "trained by another compiled step" in str(w.message)]
    if len(recipes) != 2 or None in recipes:
        problems.append(f"GAN recipe: no copy recipe in the warnings {caught}")
        return
    copy_into_g, copy_into_d = [compile(r.group(1), "recipe", "eval") for r in recipes]
    reference, model = copy.deepcopy(gan), copy.deepcopy(gan)
    d_step, g_step = make(model)
    d_opt = torch.optim.SGD(reference.D.parameters(), lr=0.1)
    g_opt = torch.optim.SGD(reference.G.parameters(), lr=0.1)
    worst = 0.0
    for i, (real, z) in enumerate(data):
        generator_turn = i % 3 == 2    # 2 critic steps, then 1 generator step
        step, other, recipe = ((g_step, d_step, copy_into_g) if generator_turn
                               else (d_step, g_step, copy_into_d))
        eval(recipe, {"step": step, "other_step": other})
        got = step(z) if generator_turn else step(real, z)
        opt = g_opt if generator_turn else d_opt
        opt.zero_grad()
        want = (_GanGeneratorLoss(reference)(z) if generator_turn
                else _GanCriticLoss(reference)(real, z))
        want.backward()
        opt.step()
        worst = max(worst, abs(got - want.item()) / max(abs(want.item()), 1e-6))
    trained = dict(d_step.state_dict())
    trained.update({k: v for k, v in g_step.state_dict().items() if k.startswith("m.G.")})
    for key, want in reference.state_dict().items():
        if not torch.allclose(trained["m." + key], want, rtol=1e-5, atol=1e-6):
            problems.append(f"GAN recipe (2 critic steps per generator step): {key} differs "
                            "from torch's")
    if worst > LOSS_RTOL:
        problems.append(f"GAN recipe (2 critic steps per generator step): losses {worst:.2e} "
                        "from torch's")
