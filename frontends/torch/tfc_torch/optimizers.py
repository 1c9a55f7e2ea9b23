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
SGD's dampening) is an OptionError naming it.
"""
import math
from typing import Dict, Optional, Tuple

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

LR_SCALE = "tfc.lr_scale"
WEIGHT_DECAY = "tfc.weight_decay"


def _stepped(state) -> bool:
    """Whether a parameter's optimizer state holds earlier steps (Adagrad
    fills its accumulator when built: step 0 is a fresh state)."""
    step = state.get("step")
    if step is not None:
        return float(step) > 0
    return bool(state)


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
    if any(_stepped(state) for state in optimizer.state.values()):
        raise OptionError(f"optimizer {kind.__name__}: it has state (moments, step counts) from "
                          "earlier steps, which tfc does not take over: pass a fresh optimizer "
                          "(and TrainStep.load_optimizer_state_dict for tfc's own state)")
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


class Follower:
    """Keeps a compiled step on the torch optimizer it was built from, the
    way a training script drives that optimizer: a learning-rate scheduler
    (StepLR, LambdaLR warm-up, CosineAnnealingLR, OneCycleLR's rates)
    changes its param_groups' lr between steps, and each call of the step
    takes the first group's current rate (`lr()`). What the compiled step
    cannot follow is an OptionError at that call, not a silent difference:
    groups whose rates stop being the compiled factors of the first's,
    changed weight decays, changed per-step settings (OneCycleLR's
    cycle_momentum changes betas / momentum), added groups."""

    def __init__(self, optimizer: torch.optim.Optimizer):
        self.optimizer = optimizer
        _, shared, _ = _OPTIMIZERS[type(optimizer)]
        groups = optimizer.param_groups
        first = _base_lr(groups[0])
        self.shared = {key: repr(groups[0].get(key)) for key in shared}
        self.factors = [_base_lr(g) / first for g in groups]
        self.decays = [g.get("weight_decay") for g in groups]
        self.last: Optional[float] = None

    def _refuse(self, what: str, hint: str):
        raise OptionError(f"optimizer {type(self.optimizer).__name__}: {what} since "
                          "compile_train_step; the compiled step follows its first group's "
                          "lr only", hint=hint)

    def lr(self) -> Optional[float]:
        """The first group's lr when it changed since the last call (None
        otherwise), after checking that the rest still holds."""
        groups = self.optimizer.param_groups
        if len(groups) != len(self.factors):
            self._refuse("param groups were added", "build the optimizer with all its groups "
                         "before compiling")
        for key, want in self.shared.items():
            if repr(groups[0].get(key)) != want:
                self._refuse(f"{key} changed ({want} -> {groups[0].get(key)!r})",
                             "a scheduler cycling momentum / betas (OneCycleLR, "
                             "CyclicLR): cycle_momentum=False")
        first = float(groups[0]["lr"])
        for i, (g, factor, decay) in enumerate(zip(groups, self.factors, self.decays)):
            if g.get("weight_decay") != decay:
                self._refuse(f"group {i}'s weight_decay changed", "keep weight decays fixed")
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


def _base_lr(group) -> float:
    """A group's base rate: initial_lr when a scheduler is attached (its lr
    is the schedule's current one)."""
    return float(group.get("initial_lr", group["lr"]))
