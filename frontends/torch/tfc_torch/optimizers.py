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
is attached). A parameter in no group is not trained (torch never steps
it): factor 0, decay 0. Settings tfc keeps per step, not per
group (betas, eps, momentum, nesterov, alpha, centered, lr_decay, ...),
must agree across groups; a form tfc has no option for (amsgrad, maximize,
SGD's dampening) is an OptionError naming it.
"""
from typing import Dict, Tuple

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

    def lr_of(g):
        # A scheduler already attached keeps each group's base rate in
        # initial_lr (its lr is the schedule's current one).
        return float(g.get("initial_lr", g["lr"]))
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
    settings: Dict[str, Dict[str, float]] = {}
    for pname, p in model.named_parameters():
        g = groups_of.get(id(p))
        if g is None:
            settings[pname] = {LR_SCALE: 0.0, WEIGHT_DECAY: 0.0}
        else:
            settings[pname] = {LR_SCALE: lr_of(g) / lr_of(first),
                               WEIGHT_DECAY: float(g.get("weight_decay", 0.0))}
    return options, settings
