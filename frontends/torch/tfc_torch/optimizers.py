"""A torch.optim optimizer as compile_train_step's options.

`compile_train_step(model, args, optimizer=torch.optim.AdamW(groups, ...))`
takes the optimizer a PyTorch training script already builds: its class
names tfc's optimizer (AdamW, Adam, SGD, RMSprop, Adagrad, Adamax, NAdam,
RAdam), its hyper-parameters become the
options, and its param_groups become per-parameter settings in the
compiled step (the argument attributes tfc.lr_scale and tfc.weight_decay,
docs/training.md): each group's learning rate as a factor on the first
group's (a schedule then scales every group alike, as torch's schedulers
do) and its weight decay on every parameter of the group, biases included,
exactly as torch applies it (rates from `initial_lr` when a torch scheduler
is attached; Follower then gives each call the first group's current rate,
so the scheduler drives the compiled step). A parameter in no group is not
trained (torch never steps it): factor 0, decay 0. Settings tfc keeps per step, not per
group (betas, eps, momentum, nesterov, alpha, centered, lr_decay, ...),
must agree across groups; a form tfc has no option for (amsgrad, maximize,
SGD's dampening) is an OptionError naming it, and so is a change of any of
them in any group after compiling. The step starts from the
optimizer's state and shares it from then on (Link): the optimizer's
state_dict() holds the step's moments and counts in torch's form, its
load_state_dict() sets them, and steps compiled from one optimizer train
as one.
"""
import math
import os
import sys
import types
import warnings
import weakref
from typing import Dict, List, Optional, Tuple

import torch

from .options import OptionError

# torch class -> (tfc optimizer, {group key: tfc option}, {group key: the
# value tfc requires}).
_OPTIMIZERS = {
    torch.optim.AdamW: ("adamw", {"betas": "betas", "eps": "eps"},
                        {"amsgrad": False, "maximize": False}),
    torch.optim.Adam: ("adam", {"betas": "betas", "eps": "eps"},
                       {"amsgrad": False, "maximize": False, "decoupled_weight_decay": False}),
    torch.optim.SGD: ("sgd", {"momentum": "momentum", "nesterov": "nesterov"},
                      {"dampening": 0, "maximize": False}),
    torch.optim.RMSprop: ("rmsprop", {"alpha": "alpha", "eps": "eps", "momentum": "momentum",
                                      "centered": "centered"}, {"maximize": False}),
    torch.optim.Adagrad: ("adagrad", {"lr_decay": "lr_decay", "eps": "eps",
                                      "initial_accumulator_value": "initial_accumulator_value"},
                          {"maximize": False}),
    torch.optim.Adamax: ("adamax", {"betas": "betas", "eps": "eps"}, {"maximize": False}),
    torch.optim.NAdam: ("nadam", {"betas": "betas", "eps": "eps",
                                  "momentum_decay": "momentum_decay"},
                        {"maximize": False, "decoupled_weight_decay": False}),
    torch.optim.RAdam: ("radam", {"betas": "betas", "eps": "eps"},
                        {"maximize": False, "decoupled_weight_decay": False}),
}
# torch >= 2.0 forms NAdam's next momentum product without 1.13's extra
# factor mu_t: the compiled step follows the torch that built the optimizer.
_TORCH2 = int(torch.__version__.split(".")[0]) >= 2

# Group keys Follower follows (lr) or checks on their own (weight_decay, and
# initial_lr, which a scheduler sets), and those that choose an
# implementation, not the arithmetic.
_FOLLOWED = {"lr", "weight_decay", "initial_lr"}
_NOT_ARITHMETIC = {"foreach", "capturable", "differentiable", "fused"}
_CYCLING_HINT = ("a scheduler cycling momentum / betas (OneCycleLR, CyclicLR): "
                 "cycle_momentum=False")

LR_SCALE = "tfc.lr_scale"
WEIGHT_DECAY = "tfc.weight_decay"


def _global_names(model: torch.nn.Module, tensors) -> List[str]:
    """Names of `tensors` in the globals the model's code reads
    ('__main__.log_alpha'), else their shapes."""
    from .custom_functions import code_globals
    names = []
    for t in tensors:
        found = next((f"{space.get('__name__', '?')}.{key}" for space in code_globals(model)
                      for key, value in list(space.items()) if value is t), None)
        names.append(f"'{found}'" if found else f"a tensor of shape {list(t.shape)}")
    return names


def from_torch(optimizer: torch.optim.Optimizer, model: torch.nn.Module
               ) -> Tuple[Dict[str, object], Dict[str, Dict[str, float]]]:
    """(options, {parameter name: {attribute: value}}) of `optimizer`."""
    kind = type(optimizer)
    if kind not in _OPTIMIZERS:
        raise OptionError(f"optimizer {kind.__name__}: tfc compiles torch.optim.AdamW, Adam, "
                          "SGD, RMSprop, Adagrad, Adamax, NAdam and RAdam instances (or pass "
                          "optimizer= by name: adamw, adam, sgd, rmsprop, adagrad, adamax, "
                          "nadam, radam, adafactor, adamw8bit)")
    name, shared, required = _OPTIMIZERS[kind]
    groups = optimizer.param_groups

    lr_of = _base_lr
    first = groups[0]
    options: Dict[str, object] = {"optimizer": name, "lr": lr_of(first)}
    if name == "nadam" and _TORCH2:
        options["nadam_fixed_product"] = True
    for key, option in shared.items():
        values = {repr(g.get(key)) for g in groups}
        if len(values) > 1:
            raise OptionError(f"optimizer {kind.__name__}: its param_groups differ in {key} "
                              f"({', '.join(sorted(values))}); tfc sets {key} per step, "
                              "per group only lr and weight_decay")
        options[option] = first[key]
    for key, want in required.items():
        for g in groups:
            if key in g and g[key] != want:
                raise OptionError(f"optimizer {kind.__name__}: {key}={g[key]!r} has no tfc "
                                  f"form (tfc trains with {key}={want!r})")
    if lr_of(first) <= 0:
        raise OptionError(f"optimizer {kind.__name__}: the first group's lr must be > 0 "
                          "(the others are factors of it)")
    groups_of = {}
    for g in groups:
        for p in g["params"]:
            groups_of[id(p)] = g
    own = {id(p) for p in model.parameters()}
    foreign = [p for p in groups_of if p not in own]
    plain = [p for g in groups for p in g["params"]
             if id(p) not in own and not isinstance(p, torch.nn.Parameter)]
    if plain:
        names = _global_names(model, plain)
        shown = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
        raise OptionError(f"optimizer {kind.__name__}: it trains {shown}, a plain tensor with "
                          "requires_grad=True that is no parameter of the model (CleanRL SAC's "
                          "log_alpha = torch.zeros(1, requires_grad=True)): the compiled step "
                          "trains the module's parameters only",
                          hint="make it a parameter of the model (self.log_alpha = "
                               "nn.Parameter(torch.zeros(1)), read as self.log_alpha in "
                               "forward), then build the optimizer over model.parameters()")
    if foreign or not own & set(groups_of):
        what = (f"{len(foreign)} of its tensors are not parameters of the model" if foreign
                else "it holds none of the model's parameters")
        raise OptionError(f"optimizer {kind.__name__}: {what} (an optimizer built for "
                          "another copy of the model, e.g. before copy.deepcopy?)",
                          hint="build the optimizer over the parameters of the module passed "
                               "to compile_train_step")
    settings: Dict[str, Dict[str, float]] = {}
    for pname, p in model.named_parameters():
        g = groups_of.get(id(p))
        if g is None:
            settings[pname] = {LR_SCALE: 0.0, WEIGHT_DECAY: 0.0}
        else:
            settings[pname] = {LR_SCALE: lr_of(g) / lr_of(first),
                               WEIGHT_DECAY: float(g.get("weight_decay", 0.0))}
    return options, settings


def refuse_several(optimizers) -> None:
    """OptionError for optimizer= a list or tuple (one torch optimizer per
    part of the model, SparseAdam's recipe for nn.Embedding(sparse=True)):
    a compiled step follows one optimizer."""
    names = [type(o).__name__ if isinstance(o, torch.optim.Optimizer) else repr(o)
             for o in optimizers]
    sparse = [n for n in names if n == "SparseAdam"]
    hint = ("build one optimizer over all the parameters, with a param group per part for "
            "its own lr and weight_decay (torch.optim.Adam([{'params': emb.parameters(), "
            "'lr': ...}, {'params': rest}]))")
    if sparse:
        hint += ("; SparseAdam has no tfc form: tfc computes a sparse=True embedding's "
                 "gradient densely, so Adam over it updates every row's moments, where "
                 "SparseAdam updates only the rows a batch looks up (SGD and Adagrad give "
                 "the same results from dense gradients as from sparse ones)")
    raise OptionError(f"optimizer=[{', '.join(names)}]: a compiled step follows one torch "
                      f"optimizer, not a list of {len(names)}"
                      + (" (and SparseAdam is not supported)" if sparse else ""), hint=hint)


class Follower:
    """Keeps a compiled step on the torch optimizer it was built from, the
    way a training script drives that optimizer: a learning-rate scheduler
    (StepLR, LambdaLR warm-up, CosineAnnealingLR, OneCycleLR's rates)
    changes its param_groups' lr between steps, and each call of the step
    takes the first group's current rate (`lr()`). What the compiled step
    cannot follow is an OptionError at that call, not a silent difference:
    groups whose rates stop being the compiled factors of the first's,
    changed weight decays, any other hyper-parameter torch reads changed in
    any group (OneCycleLR's cycle_momentum changes betas / momentum; a hand
    edit of eps, maximize, dampening), added groups, and with a schedule
    computed on the device (schedule=) any change of the rate."""

    def __init__(self, optimizer: torch.optim.Optimizer, device_schedule: bool = False):
        self.optimizer = optimizer
        groups = optimizer.param_groups
        first = _base_lr(groups[0])
        # Every hyper-parameter torch reads from a group (its defaults' keys)
        # but lr and weight_decay, in every group: the step applies the
        # values it was compiled with (keys a script adds to its groups,
        # such as a name or an lr_scale, are not torch's and not watched).
        self.watched = sorted(set(optimizer.defaults) - _FOLLOWED - _NOT_ARITHMETIC)
        self.settings = [{key: repr(g.get(key)) for key in self.watched} for g in groups]
        self.factors = [_base_lr(g) / first for g in groups]
        self.decays = [g.get("weight_decay") for g in groups]
        self.last: Optional[float] = None
        # schedule= (warmup-cosine, warmup-linear) computes the rate on the
        # device from the peak lr: a torch schedule on top would multiply.
        self.device_schedule = device_schedule
        self.compiled_lr = float(groups[0]["lr"])

    def _refuse(self, what: str, hint: str, since: str = " since compile_train_step"):
        raise OptionError(f"optimizer {type(self.optimizer).__name__}: {what}{since}; the "
                          "compiled step follows its first group's lr only", hint=hint)

    def lr(self) -> Optional[float]:
        """The first group's lr when it changed since the last call (None
        otherwise), after checking that the rest still holds."""
        groups = self.optimizer.param_groups
        if len(groups) != len(self.factors):
            self._refuse("param groups were added", "build the optimizer with all its groups "
                         "before compiling")
        for i, (g, settings) in enumerate(zip(groups, self.settings)):
            for key, want in settings.items():
                if repr(g.get(key)) != want:
                    hint = ("the compiled step applies the hyper-parameters it was compiled "
                            "with (per group only lr and weight_decay differ): set them "
                            "before compiling, or compile again from this optimizer (the new "
                            "step goes on from its state)")
                    if key in ("betas", "momentum"):
                        hint += "; " + _CYCLING_HINT
                    self._refuse(f"group {i}'s {key} changed ({want} -> {g.get(key)!r})", hint)
        first = float(groups[0]["lr"])
        if self.device_schedule and first != self.compiled_lr:
            self._refuse(f"the first group's lr changed ({self.compiled_lr:g} -> {first:g}) "
                         "while the compiled step computes its own schedule (schedule=): "
                         "both schedules would apply", "schedule the rate in one place: "
                         "compile without schedule= (the step follows the torch scheduler), "
                         "or drop the torch scheduler", since="")
        for i, (g, factor, decay) in enumerate(zip(groups, self.factors, self.decays)):
            if g.get("weight_decay") != decay:
                self._refuse(f"group {i}'s weight_decay changed", "keep weight decays fixed")
            if first == 0 and float(g["lr"]) != 0:
                self._refuse(f"group 0's lr is 0 while group {i}'s is {float(g['lr']):g} (a "
                             "per-group schedule holding the first group)",
                             "each group's lr is compiled as a fixed factor of the first "
                             "group's, so every group would train at 0: to hold parameters "
                             "still while others train, freeze them (requires_grad_(False)) "
                             "and compile a step per phase from this optimizer (the next "
                             "phase's step goes on from its state), or schedule every group "
                             "alike", since="")
            if first > 0 and not math.isclose(float(g["lr"]) / first, factor, rel_tol=1e-9,
                                              abs_tol=1e-12):
                self._refuse(f"group {i}'s lr is no longer {factor:g} x the first group's",
                             "the step compiles each group's lr as a fixed factor of the first "
                             "group's: schedule every group alike (one lambda for all), and "
                             "when a recipe sets per-group rates itself (layer-wise lr decay: "
                             "group['lr'] = lr * group['lr_scale']), set them once before "
                             "compiling, so the factors are compiled in")
        if first == self.last:
            return None
        self.last = first
        return first

    def stepped(self) -> None:
        """The compiled step applied an optimizer update: counted on the
        optimizer as torch's own step() counts it, so an lr scheduler sees
        a stepped optimizer (torch 1.13's `_step_count`, which its
        `_with_counter` wrapper advances; 2.x's `_opt_called`) and does not
        warn that scheduler.step() came before optimizer.step()."""
        optimizer = self.optimizer
        optimizer._step_count = getattr(optimizer, "_step_count", 0) + 1
        optimizer._opt_called = True


def _plain(value) -> bool:
    """Whether a group's value is stored as JSON and read back as it was
    (a tuple comes back a list: restore_group_settings makes it one)."""
    if isinstance(value, (tuple, list)):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, str))


def group_settings(optimizer: torch.optim.Optimizer) -> List[Dict[str, object]]:
    """The param_groups' entries but their parameters (what torch's
    state_dict() saves of them: lr, initial_lr, betas, ...), those of plain
    values."""
    return [{k: v for k, v in g.items() if k != "params" and _plain(v)}
            for g in optimizer.param_groups]


def check_group_count(optimizer: torch.optim.Optimizer, groups, path: str) -> None:
    if len(groups) != len(optimizer.param_groups):
        raise ValueError(f"{path} holds {len(groups)} param_groups of a torch optimizer, the "
                         f"{type(optimizer).__name__} the step follows has "
                         f"{len(optimizer.param_groups)}")


def restore_group_settings(optimizer: torch.optim.Optimizer, groups) -> None:
    """Sets the param_groups' entries from group_settings()'s, as torch's
    load_state_dict() does (the lr a scheduler reached comes back)."""
    for group, saved in zip(optimizer.param_groups, groups):
        for key, value in saved.items():
            if isinstance(value, list) and not isinstance(group.get(key), list):
                value = tuple(value)
            group[key] = value


def _base_lr(group) -> float:
    """A group's base rate: initial_lr when a scheduler is attached (its lr
    is the schedule's current one)."""
    return float(group.get("initial_lr", group["lr"]))


class StepCountWarning(UserWarning):
    """The torch optimizer a compiled step takes its state from counts
    different numbers of steps for the parameters the step trains (some
    unfrozen since, or never stepped): the step keeps one count for all."""


# The torch optimizers compiled steps follow, each with its Link.
_LINKS: "weakref.WeakKeyDictionary[torch.optim.Optimizer, Link]" = weakref.WeakKeyDictionary()


def link(optimizer: torch.optim.Optimizer) -> "Link":
    """The Link of `optimizer` (made, and its state_dict / load_state_dict /
    step taken over, on first use)."""
    found = _LINKS.get(optimizer)
    if found is None:
        found = _LINKS[optimizer] = Link(optimizer)
        optimizer.state_dict = types.MethodType(_followed_state_dict, optimizer)
        optimizer.load_state_dict = types.MethodType(_followed_load_state_dict, optimizer)
        optimizer.step = types.MethodType(_followed_step(optimizer), optimizer)
    return found


def _followed_step(optimizer: torch.optim.Optimizer):
    """torch's step() of an optimizer compiled steps follow, run eagerly
    between them (an epoch's smaller last batch, which the compiled step
    refuses): it starts from the moments and step counts the steps left,
    and the steps go on from what it leaves, as one torch run would. The
    step in force is wrapped: a scheduler's counting wrapper (its
    `_with_counter` mark kept, so a later scheduler does not wrap again)
    or the class's."""
    previous = optimizer.__dict__.get("step")

    def step(self, *args, **kwargs):
        found = _LINKS.get(self)
        if found is not None:
            found.flush()
        if previous is not None:
            out = previous(*args, **kwargs)
        else:
            out = type(self).step(self, *args, **kwargs)
        if found is not None:
            found.loaded()
        return out
    if getattr(previous, "_with_counter", False):
        step._with_counter = True
    return step


def _followed_state_dict(self):
    """torch's state_dict() of an optimizer compiled steps follow, with the
    state (moments, step counts) the steps left."""
    found = _LINKS.get(self)
    if found is not None:
        found.flush()
        holder = found._holder() if found._holder is not None else None
        if holder is not None:
            holder._warn_pending("the optimizer's state")
    return type(self).state_dict(self)


def _followed_load_state_dict(self, state_dict):
    """torch's load_state_dict(); the compiled steps following the
    optimizer take the loaded state before their next step."""
    type(self).load_state_dict(self, state_dict)
    found = _LINKS.get(self)
    if found is not None:
        found.loaded()


class Link:
    """One torch optimizer and the compiled steps that follow it, with one
    optimizer state between them, as torch keeps it: the optimizer's own
    `state` (what its state_dict() saves and load_state_dict() restores,
    per parameter in torch's form) and the steps' programs. The holder is
    the step whose program holds the newest state (the last to run); its
    state goes into `optimizer.state` when that is read (state_dict()), when
    another step following the optimizer runs or is compiled; a step takes
    `optimizer.state` in (TrainStep._read_torch_state) when it is compiled
    and, before it runs, when the state changed since (another step ran, or
    load_state_dict()). Reading `optimizer.state` directly sees the state as
    of the last of those. Two steps following one optimizer train one model
    (a smaller last batch, length buckets, two tasks sharing an encoder):
    before a step runs or is read, it also takes the parameters and model
    state the other trains from the program of the one that ran last."""

    def __init__(self, optimizer: torch.optim.Optimizer):
        self._optimizer = weakref.ref(optimizer)
        self._holder = None        # weakref to a step, or None: optimizer.state is the newest
        self._last_run = None      # weakref to the step that ran last
        self.version = 0           # bumped whenever optimizer.state changes

    @property
    def optimizer(self) -> torch.optim.Optimizer:
        return self._optimizer()

    def flush(self) -> None:
        """Writes the holder's state into the optimizer's, if it ran since."""
        holder = self._holder() if self._holder is not None else None
        if holder is None or not holder._opt_dirty:
            return
        holder._write_torch_state(self.optimizer)
        holder._opt_dirty = False
        self.version += 1
        holder._opt_version = self.version

    def loaded(self) -> None:
        """The optimizer's state was set from outside (load_state_dict)."""
        self._holder = None
        self.version += 1

    def pull(self, step) -> None:
        """Brings `step`'s program to the newest state: the optimizer's, and
        the parameters (and model state) of the step following the
        optimizer that ran last, if it ran since `step` took them in."""
        self.flush()
        if step._opt_version != self.version:
            step._read_torch_state(self.optimizer)
            step._opt_version = self.version
        self._take_parameters(step)

    def _take_parameters(self, step) -> None:
        last = self._last_run() if self._last_run is not None else None
        if last is not None and last is not step and last._last_call > step._synced_at:
            step._take_parameters(last)

    def attach(self, step) -> None:
        """A step compiled from the optimizer starts from its state."""
        step._opt_dirty = False
        step._opt_version = -1
        self.pull(step)

    def hold(self, step) -> None:
        """`step` takes state of its own in (load, a state dict): its
        program holds the newest state."""
        if self._holder is None or self._holder() is not step:
            self.pull(step)
            self._holder = weakref.ref(step)
        else:
            self._take_parameters(step)
        step._opt_dirty = True

    def ran(self, step) -> None:
        """`step` is about to run: it holds the newest state and parameters."""
        self.hold(step)
        self._last_run = weakref.ref(step)


def parameters_in_order(optimizer: torch.optim.Optimizer) -> List[torch.Tensor]:
    """The optimizer's parameters in its state_dict's order."""
    return [p for g in optimizer.param_groups for p in g["params"]]


# torch class -> whether its state holds a per-parameter step count, and
# that count's form (an int, a 0-d tensor): read from one step of the class.
_STEP_FORMS: Dict[type, object] = {}


def step_form(optimizer: torch.optim.Optimizer):
    """A sample of the per-parameter "step" value `optimizer`'s class keeps
    (None for a class that keeps none, such as SGD)."""
    kind = type(optimizer)
    if kind not in _STEP_FORMS:
        dummy = torch.zeros(1, requires_grad=True)
        dummy.grad = torch.zeros(1)
        defaults = {k: v for k, v in optimizer.defaults.items()
                    if k not in ("foreach", "capturable", "fused", "differentiable")}
        try:
            sample = kind([dummy], **defaults)
            sample.step()
            _STEP_FORMS[kind] = sample.state[dummy].get("step")
        except Exception:   # a torch whose class wants more: its 1.13 form
            _STEP_FORMS[kind] = None if kind is torch.optim.SGD else torch.tensor(0.0)
    return _STEP_FORMS[kind]


def step_value(optimizer: torch.optim.Optimizer, count: int, existing=None):
    """`count` in the form of the optimizer's per-parameter step (that of
    `existing`, the entry's value, when it has one)."""
    form = existing if existing is not None else step_form(optimizer)
    if isinstance(form, torch.Tensor):
        return torch.tensor(float(count), dtype=form.dtype, device=form.device).reshape(
            form.shape)
    return int(count)


def counts_steps(optimizer: torch.optim.Optimizer) -> bool:
    """Whether the update depends on the step count (bias corrections,
    Adagrad's lr_decay), so that parameters which took other numbers of
    steps than the others are updated otherwise than by torch."""
    kind = type(optimizer)
    if kind is torch.optim.Adagrad:
        return any(g.get("lr_decay", 0) for g in optimizer.param_groups)
    return kind in (torch.optim.AdamW, torch.optim.Adam, torch.optim.Adamax,
                    torch.optim.NAdam, torch.optim.RAdam)


def fresh_value(optimizer: torch.optim.Optimizer, key: str, shape, dtype) -> torch.Tensor:
    """A state tensor as torch starts it (before any step)."""
    value = 0.0
    if key == "sum":          # Adagrad's accumulator
        value = optimizer.param_groups[0].get("initial_accumulator_value", 0.0)
    elif key == "mu_product":   # NAdam's momentum product
        value = 1.0
    return torch.full(tuple(shape), float(value), dtype=dtype)


def warn_step_counts(optimizer: torch.optim.Optimizer, counts: Dict[str, int]) -> int:
    """The one count a compiled step keeps for parameters whose torch
    counts are `counts` (parameter name -> steps): the largest, with a
    StepCountWarning when they differ and the update depends on it."""
    top = max(counts.values())
    behind = sorted(n for n, c in counts.items() if c != top)
    if behind and counts_steps(optimizer):
        names = ", ".join(behind[:4]) + (", ..." if len(behind) > 4 else "")
        warnings.warn(
            f"the torch {type(optimizer).__name__}'s parameters took different numbers of "
            f"steps: {names} {'has' if len(behind) == 1 else 'have'} "
            f"{min(counts[n] for n in behind)} (e.g. unfrozen since), the others {top}; the "
            f"compiled step keeps one step count for all, {top}, so their bias corrections go "
            f"on from step {top + 1} where torch's start from their own count (their first "
            "updates differ from torch's; the others' are torch's)", StepCountWarning,
            stacklevel=_caller_level())
    return top


def _caller_level() -> int:
    """warnings.warn's stacklevel of the first caller outside tfc_torch
    (compile_train_step's or the step call's line)."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level
