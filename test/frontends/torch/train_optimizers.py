"""check_train.py's cases on torch optimizers a step follows: param groups
(per-group lr and weight decay, torch schedulers) and the optimizer state
(the followed optimizer's state_dict / load_state_dict in torch's format,
checkpoints, resuming, unfreezing per phase, two steps sharing one
optimizer)."""
import copy
import math
import os
import tempfile
import warnings

import torch

import tfc_torch
from train_helpers import (LOSS_RTOL, MOVED_RTOL, PARAM_RTOL, compare_parameters, expect_error,
                           normwise, rel, train_alongside, verdict)

# A plain tensor a script trains beside the model (CleanRL SAC's log_alpha).
_LOG_ALPHA = torch.zeros(1, requires_grad=True)


def check_param_groups(device):
    """A torch.optim instance with param_groups as compile_train_step's
    optimizer: AdamW (betas, per-group lr and weight decay, a bias decayed
    by its group, a parameter in no group: never updated), Adam (its L2
    decay per group), SGD with Nesterov momentum, RMSprop (centered, with
    momentum), Adagrad (lr_decay, initial accumulator), Adamax, NAdam
    (momentum_decay) and RAdam, 8 steps each against the same torch
    optimizer on a copy (parameters, and the distance each moved), also with
    optimizer_in_backward (AdamW, Adam, SGD); torch lr schedulers (LambdaLR
    warm-up from 0, StepLR, CosineAnnealingLR, OneCycleLR without momentum
    cycling) stepping the optimizer between calls, as torch's; options the
    instance sets, forms tfc has no option for, a scheduler cycling betas
    and one holding the first group at lr 0 while others train, are
    errors."""
    torch.manual_seed(6)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(6, 8), nn.LayerNorm(8), nn.GELU(), nn.Linear(8, 3))

    def loss_fn(out, x, y):
        return torch.nn.functional.cross_entropy(out, y)

    def groups(m):
        return [{"params": [m[0].weight, m[0].bias], "lr": 1e-3, "weight_decay": 0.1},
                {"params": [m[1].weight, m[1].bias], "lr": 3e-3, "weight_decay": 0.0},
                {"params": [m[3].weight], "lr": 1e-2, "weight_decay": 0.05}]

    makers = {"adamw": lambda p: torch.optim.AdamW(p, lr=1e-3, betas=(0.8, 0.95)),
              "adam": lambda p: torch.optim.Adam(p, lr=1e-3, eps=1e-6),   # L2 decay per group
              "sgd": lambda p: torch.optim.SGD(p, lr=1e-3, momentum=0.9, nesterov=True),
              "rmsprop": lambda p: torch.optim.RMSprop(p, lr=1e-3, alpha=0.9, momentum=0.5,
                                                       centered=True, eps=1e-6),
              "adagrad": lambda p: torch.optim.Adagrad(p, lr=1e-2, lr_decay=0.01,
                                                       initial_accumulator_value=0.1),
              "adamax": lambda p: torch.optim.Adamax(p, lr=2e-3, betas=(0.8, 0.99)),
              "nadam": lambda p: torch.optim.NAdam(p, lr=2e-3, momentum_decay=0.01),
              "radam": lambda p: torch.optim.RAdam(p, lr=1e-3, betas=(0.9, 0.9))}
    # Built from plain ops (no update op): optimizer_in_backward refuses them.
    plain = ("rmsprop", "adagrad", "adamax", "nadam", "radam")
    g = torch.Generator().manual_seed(7)
    # 8 steps: RAdam's rectified update (rho_t > 5) runs from step 6.
    data = [(torch.randn(5, 6, generator=g), torch.randint(0, 3, (5,), generator=g))
            for _ in range(8)]
    problems = []
    moved_worst = 0.0
    for (kind, make), extra in [(k, e) for k in makers.items()
                                for e in ({}, {"optimizer_in_backward": True})
                                if not (e and k[0] in plain)]:
        label = f"{kind}{' in backward' if extra else ''}"
        mine, reference = copy.deepcopy(model), copy.deepcopy(model)
        step = tfc_torch.compile_train_step(mine, data[0], loss_fn, device=device,
                                            optimizer=make(groups(mine)), **extra)
        opt = make(groups(reference))
        train_alongside(step, reference, opt, lambda m, b: loss_fn(m(b[0]), *b), data,
                        f"{label}: ", problems)
        trained = step.state_dict()
        compare_parameters(trained, reference, f"{label}: ", problems)
        # The distance each parameter moved, where the parameters' own
        # magnitude does not hide an update's error (a group setting lost).
        for name, p in reference.named_parameters():
            start = dict(model.named_parameters())[name].detach()
            want = p.detach() - start
            if want.abs().max() == 0:
                continue
            e = normwise(trained[name] - start, want)
            moved_worst = max(moved_worst, e)
            if e > MOVED_RTOL:
                problems.append(f"{label}: {name} moved {e:.2e} from torch's move")
        if not torch.equal(trained["3.bias"], model[3].bias.detach()):
            problems.append(f"{label}: 3.bias (in no group) changed")
    # torch.optim.lr_scheduler stepping the optimizer the step was compiled
    # from: each call takes the first group's current lr (the groups keep
    # their factors), so a warm-up from 0, step decays and cosine annealing
    # run as torch's; what the step cannot follow is an error.
    sched = sched_worst = 0
    schedules = {
        "warmup": (lambda p: torch.optim.AdamW(p, lr=1e-3),
                   lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda s: min(1.0, s / 3))),
        "step": (lambda p: torch.optim.SGD(p, lr=1e-2, momentum=0.9),
                 lambda o: torch.optim.lr_scheduler.StepLR(o, 2, gamma=0.3)),
        "cosine": (lambda p: torch.optim.Adam(p, lr=3e-3),
                   lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, 8)),
        "one-cycle": (lambda p: torch.optim.AdamW(p, lr=1e-3),
                      lambda o: torch.optim.lr_scheduler.OneCycleLR(
                          o, max_lr=[1e-2, 3e-2, 1e-1], total_steps=8, cycle_momentum=False))}
    for kind, (make, schedule) in schedules.items():
        mine, reference = copy.deepcopy(model), copy.deepcopy(model)
        mine_opt, opt = make(groups(mine)), make(groups(reference))
        mine_sched, ref_sched = schedule(mine_opt), schedule(opt)
        step = tfc_torch.compile_train_step(mine, data[0], loss_fn, device=device,
                                            optimizer=mine_opt)
        for i, batch in enumerate(data):
            loss = step(*batch)
            opt.zero_grad()
            expected = loss_fn(reference(batch[0]), *batch)
            expected.backward()
            opt.step()
            ref_sched.step()
            mine_sched.step()
            sched_worst = max(sched_worst, rel(loss, expected.item()))
            if not math.isfinite(loss) or rel(loss, expected.item()) > LOSS_RTOL:
                problems.append(f"{kind} schedule step {i}: loss {loss!r}, torch "
                                f"{expected.item()!r}")
        compare_parameters(step.state_dict(), reference, f"{kind} schedule: ", problems)
        sched += 1
    cycled = copy.deepcopy(model)
    cycling = torch.optim.AdamW(groups(cycled), lr=1e-3)
    cycler = torch.optim.lr_scheduler.OneCycleLR(cycling, max_lr=1e-2, total_steps=8)
    step = tfc_torch.compile_train_step(cycled, data[0], loss_fn, device=device,
                                        optimizer=cycling)
    step(*data[0])
    cycling.step()
    cycler.step()
    problem = expect_error(tfc_torch.OptionError, "betas changed", lambda: step(*data[1]))
    if problem:
        problems.append(f"one-cycle with cycle_momentum: {problem}")
    # A per-group schedule holding the first group at 0 while the others
    # train: every group would train at 0 (refused when compiling).
    held = copy.deepcopy(model)
    holding = torch.optim.AdamW(groups(held), lr=1e-3)
    torch.optim.lr_scheduler.LambdaLR(holding, [lambda s: 0.0 if s < 2 else 1.0,
                                                lambda s: 1.0, lambda s: 1.0])
    problem = expect_error(tfc_torch.OptionError, "group 0's lr is 0 while group 1's",
                           lambda: tfc_torch.compile_train_step(held, data[0], loss_fn,
                                                                device=device,
                                                                optimizer=holding))
    if problem:
        problems.append(f"first group held at lr 0: {problem}")
    refusals = [({"lr": 0.1}, "option lr"),
                ({"beta1": 0.5, "optimizer": torch.optim.Adam(model.parameters())}, "beta1"),
                ({"optimizer": torch.optim.AdamW(model.parameters(), amsgrad=True)}, "amsgrad"),
                ({"optimizer": torch.optim.ASGD(model.parameters())}, "ASGD"),
                ({"optimizer": torch.optim.RMSprop(model.parameters(), maximize=True)},
                 "maximize"),
                ({"optimizer": torch.optim.Adam([{"params": [model[0].weight], "eps": 1e-6},
                                                 {"params": [model[3].weight]}])}, "differ in eps"),
                # Built over another copy of the model: it would train nothing.
                ({"optimizer": torch.optim.SGD(copy.deepcopy(model).parameters(), lr=0.1)},
                 "not parameters of the model"),
                # A plain tensor trained beside the model (CleanRL SAC's
                # global log_alpha): named, not taken for another copy.
                ({"optimizer": torch.optim.Adam([*model.parameters(), _LOG_ALPHA])},
                 "it trains a tensor of shape [1], a plain tensor with requires_grad=True")]
    for kwargs, words in refusals:
        kwargs.setdefault("optimizer", torch.optim.SGD(model.parameters(), lr=0.1))
        try:
            tfc_torch.compile_train_step(model, data[0], loss_fn, device=device, **kwargs)
            problems.append(f"{words}: accepted")
        except tfc_torch.OptionError as e:
            if words not in str(e):
                problems.append(f"{words}: message {e}")
    return verdict(problems,
                   f"param-groups: ok (AdamW, Adam, SGD, RMSprop, Adagrad, Adamax, NAdam and "
                   f"RAdam instances with 3 groups, 8 steps: per-group lr and weight decay, an "
                   f"ungrouped parameter frozen, also optimizer_in_backward (AdamW, Adam, SGD); "
                   f"each parameter's move within {moved_worst:.1e} of torch's; {sched} lr "
                   f"schedulers driving the compiled step, losses within {sched_worst:.1e} of "
                   f"torch's; 10 refusals)")


def _torch_state_problems(got, want, label):
    """A followed optimizer's state_dict()['state'] against torch's: the
    same entries and keys, the step counts in torch's form, the tensors
    within PARAM_RTOL normwise."""
    problems = []
    if sorted(got) != sorted(want):
        return [f"{label}: entries {sorted(got)}, torch's {sorted(want)}"]
    for index, entry in want.items():
        mine = got[index]
        if sorted(mine) != sorted(entry):
            problems.append(f"{label}: entry {index} keys {sorted(mine)}, torch's {sorted(entry)}")
            continue
        for key, value in entry.items():
            if key == "step":
                if type(mine[key]) is not type(value) or float(mine[key]) != float(value):
                    problems.append(f"{label}: entry {index} step {mine[key]!r}, torch's "
                                    f"{value!r}")
            elif value is not None and normwise(mine[key], value) > PARAM_RTOL:
                problems.append(f"{label}: entry {index} {key} "
                                f"{normwise(mine[key], value):.2e} from torch's")
    return problems


def _check_phases(model, loss_fn, data, makers, torch_step, device):
    """Gradual unfreezing and freezing, a step compiled per phase from one
    torch optimizer (as the docs advise): the parameters training on keep
    their state (moments, counts). SGD with momentum unfreezing the first
    layer, AdamW freezing it: 3 + 3 steps as torch's. AdamW unfreezing:
    its new parameters' count differs from the others', a StepCountWarning,
    the head trained on as torch's."""
    import warnings
    problems = []
    for kind, first, second in (("sgd", False, True), ("adamw", True, False),
                                ("adamw", False, True)):
        label = f"{kind} {'unfreezing' if second else 'freezing'}"
        mine, reference = copy.deepcopy(model), copy.deepcopy(model)
        mine_opt, opt = makers[kind](mine.parameters()), makers[kind](reference.parameters())
        caught = []
        for phase, trains in enumerate((first, second)):
            for m in (mine, reference):
                m[0].requires_grad_(trains)
            # Frozen, no gradient (torch 1.13's zero_grad() leaves a zero
            # one, which AdamW would go on decaying).
            reference[0].weight.grad = reference[0].bias.grad = None
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                step = tfc_torch.compile_train_step(mine, data[0], loss_fn, device=device,
                                                    optimizer=mine_opt)
            caught += [w for w in seen if issubclass(w.category,
                                                     tfc_torch.optimizers.StepCountWarning)]
            exact = not (kind == "adamw" and second and phase == 1)
            if exact:
                train_alongside(step, reference, opt, torch_step, data[3 * phase:3 * phase + 3],
                                f"{label} phase {phase}: ", problems)
            else:
                for batch in data[3:]:
                    step(*batch)
                    opt.zero_grad()
                    torch_step(reference, batch).backward()
                    opt.step()
                head = dict(reference.named_parameters())["2.weight"]
                moved = normwise(step.state_dict()["2.weight"], head.detach())
                if moved > MOVED_RTOL * 10:
                    problems.append(f"{label}: the head {moved:.2e} from torch's")
            mine.load_state_dict(step.state_dict())
        if exact:
            compare_parameters(step.state_dict(), reference, f"{label}: ", problems)
        if bool(caught) == exact:
            problems.append(f"{label}: {len(caught)} StepCountWarning")
        elif caught and "0.weight" not in str(caught[0].message):
            problems.append(f"{label}: warning {caught[0].message}")
    return problems


def _check_two_shapes(device):
    """Two steps (batches of 16 and a smaller last batch of 10) compiled
    from one model and one AdamW, called in turn with nothing copied
    between them: losses, parameters, batch norm's running statistics and
    the optimizer's state_dict() as torch's, and no warning."""
    import warnings
    torch.manual_seed(13)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.BatchNorm1d(16), nn.Linear(16, 3))
    reference = copy.deepcopy(model)

    def loss_fn(out, x, y):
        return torch.nn.functional.cross_entropy(out, y)

    g = torch.Generator().manual_seed(14)
    data = [(torch.randn(n, 6, generator=g), torch.randint(0, 3, (n,), generator=g))
            for n in (16, 16, 10, 16, 10, 16, 16, 10)]
    mine_opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    opt = torch.optim.AdamW(reference.parameters(), lr=1e-2)
    problems = []
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        steps = {n: tfc_torch.compile_train_step(model, data[i], loss_fn, device=device,
                                                 optimizer=mine_opt)
                 for n, i in ((16, 0), (10, 2))}
        for i, batch in enumerate(data):
            loss = steps[len(batch[0])](*batch)
            opt.zero_grad()
            expected = loss_fn(reference(batch[0]), *batch)
            expected.backward()
            opt.step()
            if rel(loss, expected.item()) > LOSS_RTOL:
                problems.append(f"two shapes step {i}: loss {loss}, torch {expected.item()}")
        # The batch of 16's step did not run last: it reads the other's.
        state = steps[16].state_dict()
    warned = [str(w.message)[:80] for w in seen if "tfc" in w.category.__module__]
    if warned:
        problems.append(f"two shapes: warnings {warned}")
    compare_parameters(state, reference, "two shapes: ", problems)
    for key in ("2.running_mean", "2.running_var"):
        e = normwise(state[key], reference.state_dict()[key])
        if e > PARAM_RTOL:
            problems.append(f"two shapes: {key} {e:.2e} from torch's")
    problems += _torch_state_problems(mine_opt.state_dict()["state"],
                                      opt.state_dict()["state"], "two shapes")
    return problems


def check_optimizer_state(device):
    """The optimizer state of the torch optimizer a step follows, as torch
    keeps it: for each of the eight classes, 3 steps, then the optimizer's
    state_dict() (the usual checkpoint {"optimizer": opt.state_dict()}) holds
    torch's entries (moments, step counts in torch's form); a fresh model
    and optimizer that load it compile a step that goes on as torch's (3
    more steps); the followed optimizer's load_state_dict() of an earlier
    state takes a live step back to it."""
    torch.manual_seed(11)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))

    def loss_fn(out, x, y):
        return torch.nn.functional.cross_entropy(out, y)

    g = torch.Generator().manual_seed(12)
    data = [(torch.randn(5, 6, generator=g), torch.randint(0, 3, (5,), generator=g))
            for _ in range(6)]
    makers = {"adamw": lambda p: torch.optim.AdamW(p, lr=1e-2),
              "adam": lambda p: torch.optim.Adam(p, lr=1e-2, weight_decay=0.01),
              "sgd": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
              "rmsprop": lambda p: torch.optim.RMSprop(p, lr=1e-2, momentum=0.5, centered=True),
              "adagrad": lambda p: torch.optim.Adagrad(p, lr=0.1, lr_decay=0.01,
                                                       initial_accumulator_value=0.1),
              "adamax": lambda p: torch.optim.Adamax(p, lr=1e-2),
              "nadam": lambda p: torch.optim.NAdam(p, lr=1e-2),
              "radam": lambda p: torch.optim.RAdam(p, lr=1e-2)}
    problems = []
    torch_step = lambda m, b: loss_fn(m(b[0]), *b)  # noqa: E731
    for kind, make in makers.items():
        mine, reference = copy.deepcopy(model), copy.deepcopy(model)
        mine_opt, opt = make(mine.parameters()), make(reference.parameters())
        step = tfc_torch.compile_train_step(mine, data[0], loss_fn, device=device,
                                            optimizer=mine_opt)
        train_alongside(step, reference, opt, torch_step, data[:3], f"{kind}: ", problems)
        checkpoint = copy.deepcopy(mine_opt.state_dict())
        at_checkpoint = step.state_dict()
        problems += _torch_state_problems(checkpoint["state"], opt.state_dict()["state"], kind)
        # Resuming: a fresh model and optimizer load the checkpoint.
        resumed = copy.deepcopy(model)
        resumed.load_state_dict(step.state_dict())
        resumed_opt = make(resumed.parameters())
        resumed_opt.load_state_dict(checkpoint)
        again = tfc_torch.compile_train_step(resumed, data[0], loss_fn, device=device,
                                             optimizer=resumed_opt)
        for label in ("resumed", "after load_state_dict"):
            ahead = copy.deepcopy(reference)
            ahead_opt = make(ahead.parameters())
            ahead_opt.load_state_dict(opt.state_dict())
            train_alongside(again, ahead, ahead_opt, torch_step, data[3:], f"{kind} {label}: ",
                            problems)
            problems += _torch_state_problems(resumed_opt.state_dict()["state"],
                                              ahead_opt.state_dict()["state"], f"{kind} {label}")
            # load_state_dict() of the followed optimizer sets the live
            # step's state: back to the checkpoint, the step goes on as
            # torch's from there again.
            again.load_state_dict(at_checkpoint)
            resumed_opt.load_state_dict(checkpoint)
    # An optimizer torch stepped (a run torch started): the step goes on
    # from its state.
    for kind in ("sgd", "adamw"):
        mine, reference = copy.deepcopy(model), copy.deepcopy(model)
        mine_opt, opt = makers[kind](mine.parameters()), makers[kind](reference.parameters())
        for batch in data[:2]:
            for m, o in ((mine, mine_opt), (reference, opt)):
                o.zero_grad()
                torch_step(m, batch).backward()
                o.step()
        mine.zero_grad()
        step = tfc_torch.compile_train_step(mine, data[0], loss_fn, device=device,
                                            optimizer=mine_opt)
        train_alongside(step, reference, opt, torch_step, data[2:], f"torch-stepped {kind}: ",
                        problems)
        problems += _torch_state_problems(mine_opt.state_dict()["state"],
                                          opt.state_dict()["state"], f"torch-stepped {kind}")
    problems += _check_phases(model, loss_fn, data, makers, torch_step, device)
    problems += _check_two_shapes(device)
    return verdict(problems, "optimizer-state: ok (AdamW, Adam, SGD, RMSprop, Adagrad, Adamax, "
                             "NAdam, RAdam followed 3 steps: the optimizer's state_dict() holds "
                             "torch's state; resumed from it, 3 steps as torch's; its "
                             "load_state_dict() sets a live step's; SGD, AdamW stepped by torch "
                             "first go on as torch's; a step per phase of unfreezing (SGD) and "
                             "freezing (AdamW) as torch's, unfreezing under AdamW warns; two "
                             "steps of two batch sizes in turn as one torch step)")


def check_followed_changes(device):
    """What the step cannot follow of the torch optimizer it was compiled
    from is refused, never silently ignored: a hand edit after compiling of
    any hyper-parameter but lr in any group (betas or eps of the second
    group, maximize of the first, SGD's dampening of the second); a device
    schedule (schedule=) next to a torch scheduler, or a rate changed by
    hand under one; a list of optimizers (SparseAdam + Adam). And save() /
    load() carry the optimizer's param_groups: resumed from a fresh
    optimizer and OneCycleLR whose state_dict() is loaded, the steps equal
    the uninterrupted run's (the first resumed one at the rate the
    scheduler had reached, not its initial one)."""
    torch.manual_seed(8)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(6, 8), nn.LayerNorm(8), nn.Linear(8, 3))

    def loss_fn(out, x, y):
        return torch.nn.functional.cross_entropy(out, y)

    def groups(m):
        return [{"params": [m[0].weight, m[2].weight], "weight_decay": 0.05},
                {"params": [m[0].bias, m[1].weight, m[1].bias, m[2].bias],
                 "weight_decay": 0.0}]
    g = torch.Generator().manual_seed(9)
    data = [(torch.randn(5, 6, generator=g), torch.randint(0, 3, (5,), generator=g))
            for _ in range(10)]
    problems = []

    def compile_from(optimizer, m=None, **kw):
        return tfc_torch.compile_train_step(m if m is not None else copy.deepcopy(model),
                                            data[0], loss_fn, device=device,
                                            optimizer=optimizer, **kw)
    edits = [(torch.optim.AdamW, {}, 1, "betas", (0.5, 0.9)),
             (torch.optim.AdamW, {}, 1, "eps", 1e-3),
             (torch.optim.Adam, {}, 0, "maximize", True),
             (torch.optim.SGD, {"momentum": 0.9}, 1, "dampening", 0.5)]
    for kind, kw, index, key, value in edits:
        m = copy.deepcopy(model)
        opt = kind(groups(m), lr=1e-2, **kw)
        step = compile_from(opt, m)
        step(*data[0])
        opt.param_groups[index][key] = value
        err = expect_error(tfc_torch.OptionError, f"group {index}'s {key} changed",
                           lambda: step(*data[1]))
        if err:
            problems.append(f"{kind.__name__} {key} edited in group {index}: {err}")

    # schedule= computes the rate on the device: a torch scheduler too
    # would multiply the two.
    m = copy.deepcopy(model)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
    torch.optim.lr_scheduler.LambdaLR(opt, lambda k: 0.5 ** k)
    err = expect_error(tfc_torch.OptionError, "schedule='warmup-cosine'", lambda: compile_from(
        opt, m, schedule="warmup-cosine", warmup_steps=2, total_steps=6))
    if err:
        problems.append(f"schedule= with a torch scheduler: {err}")
    m = copy.deepcopy(model)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
    step = compile_from(opt, m, schedule="warmup-cosine", warmup_steps=2, total_steps=6)
    step(*data[0])
    opt.param_groups[0]["lr"] = 5e-4
    err = expect_error(tfc_torch.OptionError, "both schedules would apply",
                       lambda: step(*data[1]))
    if err:
        problems.append(f"lr set by hand under schedule=: {err}")

    # One optimizer per part (SparseAdam's recipe for sparse embeddings).
    m = copy.deepcopy(model)
    pair = [torch.optim.SparseAdam(m[0].parameters(), lr=1e-2),
            torch.optim.Adam(m[2].parameters(), lr=1e-2)]
    err = expect_error(tfc_torch.OptionError, "follows one torch optimizer, not a list of 2 "
                       "(and SparseAdam is not supported)", lambda: compile_from(pair, m))
    if err:
        problems.append(f"a list of optimizers: {err}")

    # Resuming with save() / load() and the scheduler's state_dict().
    def fresh():
        m = copy.deepcopy(model)
        opt = torch.optim.AdamW(groups(m), lr=3e-3)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=[1e-2, 2e-2], total_steps=10,
                                                    cycle_momentum=False)
        return m, opt, sched
    m, opt, sched = fresh()
    step = compile_from(opt, m)
    full = []
    for batch in data:
        full.append(step(*batch))
        sched.step()
    m, opt, sched = fresh()
    step = compile_from(opt, m)
    for batch in data[:5]:
        step(*batch)
        sched.step()
    reached = [grp["lr"] for grp in opt.param_groups]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "step.safetensors")
        step.save(path)
        saved = sched.state_dict()
        m, opt, sched = fresh()
        sched.load_state_dict(saved)
        step = compile_from(opt, m)
        step.load(path)
    if [grp["lr"] for grp in opt.param_groups] != reached:
        problems.append(f"load(): the optimizer's lrs {[grp['lr'] for grp in opt.param_groups]}"
                        f", saved {reached}")
    resumed = []
    for batch in data[5:]:
        resumed.append(step(*batch))
        sched.step()
    if resumed != full[5:]:
        problems.append(f"save / load with OneCycleLR: losses {resumed} != {full[5:]}")

    # The compiled step counts its updates on the optimizer as torch's
    # step() does: a scheduler made before or after compiling, stepped
    # after each call (and with accumulation after each applied window),
    # sees a stepped optimizer and gives no "lr_scheduler.step() before
    # optimizer.step()" warning.
    for before, accumulate in ((True, 1), (False, 1), (True, 2)):
        m = copy.deepcopy(model)
        opt = torch.optim.SGD(m.parameters(), lr=1e-2)
        if before:
            sched = torch.optim.lr_scheduler.StepLR(opt, 2)
        step = compile_from(opt, m, **({"accumulate_steps": accumulate}
                                       if accumulate > 1 else {}))
        if not before:
            sched = torch.optim.lr_scheduler.StepLR(opt, 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for i, batch in enumerate(data[:4]):
                step(*batch)
                if (i + 1) % accumulate == 0:
                    sched.step()
        said = [str(w.message) for w in caught if "optimizer.step()" in str(w.message)]
        if said or getattr(opt, "_step_count", None) != 4 // accumulate:
            problems.append(f"scheduler made {'before' if before else 'after'} compiling, "
                            f"accumulate_steps={accumulate}: step count "
                            f"{getattr(opt, '_step_count', None)} (want {4 // accumulate}), "
                            f"warnings {said}")
    return verdict(problems,
                   "followed-changes: ok (hand edits of betas / eps / maximize / dampening in "
                   "any group refused; schedule= beside a torch scheduler refused; a list of "
                   "optimizers refused; save / load with OneCycleLR resumes the run exactly; "
                   "a scheduler sees the optimizer stepped, no step-order warning)")


def check_f64_rates(device):
    """An f64 model steps with torch's unrounded learning rate: the step's
    rates (lr, and the schedule computed from them) are f64 when the model
    has f64 parameters. SGD with momentum, Adam and RMSprop at lr 0.01
    (not an f32 number), Adam under a CosineAnnealingLR and the built-in
    warmup-cosine schedule, 4 steps each against torch.optim in f64:
    parameters within 1e-14 relative (the rounded f32 rate drifted 5e-10
    per step)."""
    problems = []

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(6, 4).double()

        def forward(self, x):
            return self.fc(x).sin().pow(2).mean()

    x = torch.randn(5, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    makers = {
        "sgd-momentum": lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9),
        "adam": lambda p: torch.optim.Adam(p, lr=0.01),
        "rmsprop": lambda p: torch.optim.RMSprop(p, lr=0.01),
        "adam-cosine": lambda p: torch.optim.Adam(p, lr=0.01),
    }
    for name, make in makers.items():
        torch.manual_seed(0)
        model = Net()
        ref = copy.deepcopy(model)
        opt, ref_opt = make(model.parameters()), make(ref.parameters())
        sched = ref_sched = None
        if name == "adam-cosine":
            sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3)
            ref_sched = torch.optim.lr_scheduler.CosineAnnealingLR(ref_opt, T_max=3)
        step = tfc_torch.compile_train_step(model, (x,), optimizer=opt, device=device)
        for _ in range(4):
            step(x)
            ref_opt.zero_grad()
            ref(x).backward()
            ref_opt.step()
            for s in (sched, ref_sched):
                if s is not None:
                    s.step()
        got = step.state_dict()
        for key, want in ref.state_dict().items():
            if normwise(got[key], want) > 1e-14:
                problems.append(f"{name}: {key} off by {normwise(got[key], want):.1e} "
                                "(normwise)")
    torch.manual_seed(0)
    model = Net()
    step = tfc_torch.compile_train_step(model, (x,), optimizer="adamw", lr=0.01,
                                        schedule="warmup-cosine", warmup_steps=2,
                                        total_steps=6, device=device)
    step(x)
    applied = step.read("applied_lr")
    if applied.dtype != torch.float64 or float(applied) != 0.005:
        problems.append(f"warmup-cosine's first rate is {applied!r}, not f64 0.005")
    return verdict(problems, "  f64-rates: ok (SGD momentum, Adam, RMSprop, Adam + "
                             "CosineAnnealingLR at lr 0.01 within 1e-14 of torch's f64 run; "
                             "warmup-cosine's rate f64)")
