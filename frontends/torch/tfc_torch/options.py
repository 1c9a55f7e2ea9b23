"""Compilation options from Python keywords: one table that maps each
keyword of `compile_train_step` / `compile` to the compiler option it sets,
so the Python API mirrors --tfc-train-pipeline (passes/training/Passes.td,
passes/Pipelines.h) and a wrong keyword or value is an OptionError naming it.

Values are checked for their Python type here; ranges (betas in [0, 1), a
known optimizer, ...) are the compiler's to check, and its message names the
option too.
"""
from typing import Dict, List, Tuple

from .native import NativeError


class OptionError(NativeError, ValueError):
    """An unknown option, or a value of the wrong type or out of range."""


# keyword -> (option of --tfc-train-pipeline, Python type)
TRAIN_STEP_OPTIONS: Dict[str, Tuple[str, type]] = {
    "optimizer": ("optimizer", str),          # adamw, adam, sgd, adafactor, adamw8bit,
                                              # rmsprop, adagrad, adamax, nadam, radam
    "beta1": ("beta1", float),
    "beta2": ("beta2", float),
    "eps": ("eps", float),
    "weight_decay": ("weight-decay", float),  # default: the optimizer's torch default
    "decay_all": ("decay-all", bool),         # default: no decay for rank < 2
    "block_size": ("block-size", int),
    "momentum": ("momentum", float),
    "nesterov": ("nesterov", bool),
    "alpha": ("alpha", float),                # rmsprop
    "centered": ("centered", bool),           # rmsprop
    "lr_decay": ("lr-decay", float),          # adagrad
    "initial_accumulator_value": ("initial-accumulator-value", float),  # adagrad
    "momentum_decay": ("momentum-decay", float),  # nadam
    "nadam_fixed_product": ("nadam-fixed-product", bool),  # nadam as torch >= 2.0
    "beta2_decay": ("beta2-decay", float),
    "eps1": ("eps1", float),
    "eps2": ("eps2", float),
    "clip_threshold": ("clip-threshold", float),
    "max_grad_norm": ("max-grad-norm", float),
    "clip_grad_value": ("clip-grad-value", float),
    "schedule": ("schedule", str),            # constant, warmup-cosine, warmup-linear
    "loss_scaling": ("loss-scaling", bool),
    "init_scale": ("init-scale", float),
    "growth_factor": ("growth-factor", float),
    "backoff_factor": ("backoff-factor", float),
    "growth_interval": ("growth-interval", int),
    "min_scale": ("min-scale", float),
    "max_scale": ("max-scale", float),
    "accumulate_steps": ("accumulate-steps", int),
    "recompute": ("recompute", str),          # none, cheap, blocks
    "optimizer_in_backward": ("optimizer-in-backward", bool),
}

# Options of every compilation (tfc-run's flags): keyword -> (flag, type).
COMMON_OPTIONS: Dict[str, Tuple[str, type]] = {
    "precision": ("precision", str),          # f32, tf32, bf16, fp16
    "pad": ("pad", str),                      # auto, none or N
    "fusion": ("fusion", bool),
}

# The learning-rate schedule's runtime inputs (set on the program, not
# compiled in): keyword -> default.
SCHEDULE_INPUTS: Dict[str, float] = {"lr": 1e-3, "min_lr": 0.0, "warmup_steps": 0,
                                     "total_steps": 0}

# Names the compiled program gives to tensors of its own, which no batch
# input, parameter or buffer of the user's may take (the runtime binds by
# name; tracing renames such a tensor in the program: _unreserved for a
# batch input, _program_names for a parameter or buffer): the schedule's
# inputs above (passes/training/LearningRate.cpp, scheduleInputs, all of
# them whatever the schedule) and the other arguments the training step's
# stages add (passes/training/StepForm.h: kStepState, and under loss
# scaling (fp16) kLossScaleState, kGrowthTrackerState), the results
# (StepForm.h: kLossOutput, kFoundInfOutput; LearningRate.h:
# kAppliedLrOutput; the forward's "output", importer.output_names) and the
# importer's inputs of the random stream (ops/random.py). The names the
# stages derive from a parameter's ("<param>.exp_avg", "<param>.grad_accum",
# precision's weight copies) extend a parameter's name, which no other
# state_dict name can (a module has no parameter and submodule of one name).
RESERVED_NAMES = frozenset(SCHEDULE_INPUTS) | frozenset((
    "step", "loss_scale", "growth_tracker", "loss", "found_inf", "applied_lr", "output",
    "dropout_seed", "dropout_offset"))


def _render(keyword: str, value, kind: type) -> str:
    if kind is bool:
        if not isinstance(value, bool):
            raise OptionError(f"option {keyword}={value!r}: expected True or False")
        return "true" if value else "false"
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise OptionError(f"option {keyword}={value!r}: expected an integer")
        return str(value)
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise OptionError(f"option {keyword}={value!r}: expected a number")
        return repr(float(value))
    if keyword == "pad" and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value or any(c.isspace() for c in value):
        raise OptionError(f"option {keyword}={value!r}: expected a word")
    return value


def known(tables) -> List[str]:
    return sorted(k for t in tables for k in t)


def compiler_flags(options: Dict[str, object], train_step: bool, target: str) -> List[str]:
    """The compiler flags for `options` (keywords of TRAIN_STEP_OPTIONS when
    `train_step`, and COMMON_OPTIONS); an unknown keyword is an OptionError
    listing the known ones."""
    tables = [COMMON_OPTIONS] + ([TRAIN_STEP_OPTIONS] if train_step else [])
    step_options, flags = [], [f"--target={target}"]
    for keyword, value in options.items():
        if keyword in COMMON_OPTIONS:
            flag, kind = COMMON_OPTIONS[keyword]
            text = _render(keyword, value, kind)
            if keyword == "fusion":  # a bool in Python, all|none for the compiler
                text = "all" if text == "true" else "none"
            flags.append(f"--{flag}={text}")
        elif train_step and keyword in TRAIN_STEP_OPTIONS:
            option, kind = TRAIN_STEP_OPTIONS[keyword]
            step_options.append(f"{option}={_render(keyword, value, kind)}")
        else:
            raise OptionError(f"unknown option {keyword!r} (known: {', '.join(known(tables))}"
                              + (", lr, min_lr, warmup_steps, total_steps, betas"
                                 if train_step else "") + ")")
    if train_step:
        flags.append("--train-step=" + " ".join(step_options))
    return flags
