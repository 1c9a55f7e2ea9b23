"""Training a PyTorch module with tfc from Python: trace, compile in this
process (libtfc_compiler.so) and run the training step with libtfcrt.

    step = tfc_torch.compile_train_step(model, (tokens, targets),
                                        optimizer="adamw", lr=1e-3,
                                        weight_decay=0.01, device="host")
    for tokens, targets in batches:
        loss = step(tokens, targets)         # a float
    model.load_state_dict(step.state_dict())

Parameters and optimizer state live in the runtime between steps; the
module's trained parameters and model state get the program's values when
the caller reads them, and the caller's writes to them go into the program
before its next run (module_sync.py). Changes to the module after
compiling that the program cannot follow (its mode, requires_grad, hooks,
a tensor rebound, the constants written) are errors at the next call
(module_watch.py).
"""
import copy
import inspect
import itertools
import json
import math
import warnings
import weakref
from collections import OrderedDict
from typing import Callable, Dict, Optional, Sequence, Union

import torch
from torch.nn.modules.module import _IncompatibleKeys

from . import compiler, optimizers, safetensors
from .export import import_module
from .options import SCHEDULE_INPUTS, OptionError, compiler_flags
from .runtime import Device, Program
from .errors import ModelError, TracedUpdateWarning
from .module_sync import ModuleSync
from .module_watch import ModuleWatch, within_rounding
from .batch_layout import BatchLayout

# The compiled steps alive and a clock ordering their calls, for the
# shared-parameter warning (TrainStep._check_shared).
_LIVE_STEPS: "weakref.WeakSet[TrainStep]" = weakref.WeakSet()
_CLOCK = itertools.count()

# The metadata save() adds to its file (load() reads it back).
_META_GROUPS = "tfc_torch.param_groups"
_META_PENDING = "tfc_torch.pending_micro_batches"
_META_CALLS = "tfc_torch.calls"

# Each call's dropout draws start this many Philox counters after the last
# call's (a step draws far fewer), so no two calls share a mask.
DROPOUT_OFFSET_STRIDE = 1 << 40


def target_for(device: Device) -> str:
    """The kernel target for a device: host, or the GPU's sm_80/sm_90
    (other GPUs run sm_90's schedules: correct, not tuned)."""
    if device.kind == "host":
        return "host"
    return "sm_80" if "sm_80" in device.description else "sm_90"


class _ModelState:
    """How a traced module's state_dict maps onto a program's tensors."""

    def __init__(self, model: torch.nn.Module, exported, program: Program):
        state_dict = model.state_dict()
        self.keys = list(state_dict.keys())
        # The modules' versions: load_state_dict hands them to each module's
        # _load_from_state_dict (observers read their buffers' names by it).
        self.metadata = copy.deepcopy(getattr(state_dict, "_metadata", None))
        self.aliases = dict(exported.aliases)          # tied name -> argument name
        self.params = list(exported.params)            # argument names
        self.dtypes = {n: t.dtype for n, t in exported.params.items()}
        self.in_program = set(program.names("param"))
        self.initial = {n: t.detach().clone() for n, t in exported.params.items()}
        # Model state: buffers the training forward updates (tfc.state
        # arguments named as in the state_dict), which the program holds.
        self.state = {n: t.detach().clone() for n, t in exported.state.items()}
        # The model state the program never writes (frozen="state"): set by
        # the caller only, so the step holding it is no source of its values.
        self.unwritten = set(exported.unwritten_state)
        self.buffers = {k: v.detach().clone() for k, v in model.state_dict().items()
                        if self.argument(k) is None and self.state_name(k) is None}
        # The buffers (and frozen parameters) the program reads, folded in;
        # the others (an EMA copy kept beside the model) are only carried.
        self.constants = set(exported.buffers)
        # The tensors from outside the module's tables folded in (a plain
        # tensor attribute, a global, a hidden teacher's parameters).
        self.outside = list(exported.outside)

    def state_name(self, key: str) -> Optional[str]:
        """The model-state argument `key` names (itself or the tied one)."""
        name = self.aliases.get(key, key)
        return name if name in self.state else None

    def set_initial_state(self, program: Program) -> None:
        """Sets the model state to the module's buffers at compile time."""
        for name, value in self.state.items():
            program.set(name, value)

    def argument(self, key: str) -> Optional[str]:
        """The parameter argument `key` names (itself or the tied one)."""
        name = self.aliases.get(key, key)
        return name if name in self.initial else None

    def state_dict(self, program: Program) -> "OrderedDict[str, torch.Tensor]":
        values = {}
        for name in self.params:
            if name in self.in_program:
                values[name] = program.get(name).to(self.dtypes[name])
            else:  # not read by the loss: never updated
                values[name] = self.initial[name].clone()
        out = OrderedDict()
        for key in self.keys:
            arg, state = self.argument(key), self.state_name(key)
            if arg is not None:
                out[key] = values[arg]
            elif state is not None:
                out[key] = program.get(state).to(self.state[state].dtype)
            else:
                out[key] = self.buffers[key].clone()
        if self.metadata is not None:
            out._metadata = copy.deepcopy(self.metadata)
        return out

    @staticmethod
    def _constant_changed(key: str, program: Program) -> str:
        """The error for a state_dict whose `key` differs from the constant
        the program folded in: a training step's or a compiled forward's."""
        if not {"train_step", "accumulate_step"} & set(program.entries):
            return (f"buffer or frozen parameter '{key}' differs from the compiled forward's: "
                    "a compiled forward (tfc_torch.compile) holds the buffers it reads (batch "
                    "norm's running statistics) and parameters with requires_grad=False as "
                    "constants, and load_state_dict sets its parameters only; to evaluate "
                    "newer ones, load them into the module and compile the forward again "
                    "(model.load_state_dict(step.state_dict()); model.eval(); "
                    "fast = tfc_torch.compile(model, example))")
        return (f"buffer or frozen parameter '{key}' differs from the compiled program's: "
                "buffers and parameters with requires_grad=False are constants of the "
                "compiled step; compile again to change them, or for a frozen network "
                "updated between steps (an EMA target) compile the step with "
                "frozen=\"state\"")

    def load_state_dict(self, program: Program, state: Dict[str, torch.Tensor],
                        strict: bool) -> "_IncompatibleKeys":
        """Sets what `state` holds; as torch's Module.load_state_dict,
        returns (missing_keys, unexpected_keys) and, when strict, raises a
        RuntimeError naming them if either is not empty."""
        expected = set(self.keys)
        missing = [k for k in self.keys if k not in state]
        unexpected = [k for k in state if k not in expected]
        owner = ("TrainStep" if {"train_step", "accumulate_step"} & set(program.entries)
                 else "CompiledModule")

        def size_mismatch(key, value, want):
            # torch's RuntimeError and wording
            return RuntimeError(
                f"Error(s) in loading state_dict for {owner}:\n\tsize mismatch for {key}: "
                f"copying a param with shape {value.shape} from checkpoint, the shape in "
                f"current model is {want.shape}.")
        if strict and (missing or unexpected):
            lines = [f"Error(s) in loading state_dict for {owner}:"]
            for what, keys in (("Missing", missing), ("Unexpected", unexpected)):
                if keys:
                    lines.append(f"\t{what} key(s) in state_dict: "
                                 + ", ".join(f'"{k}"' for k in keys) + ".")
            raise RuntimeError("\n".join(lines))
        checked, model_state = {}, {}
        for key, value in state.items():
            arg = self.argument(key)
            if arg is None and self.state_name(key) is not None:
                name = self.state_name(key)
                if tuple(value.shape) != tuple(self.state[name].shape):
                    raise size_mismatch(key, value, self.state[name])
                model_state[name] = value.detach().to(self.state[name].dtype)
                continue
            if arg is None:
                if key not in self.buffers:
                    continue
                if self.aliases.get(key, key) not in self.constants:
                    self.buffers[key] = value.detach().clone()   # not read: carried along
                elif not within_rounding(value, self.buffers[key]):
                    raise ValueError(self._constant_changed(key, program))
                continue
            if arg in checked and not torch.equal(checked[arg], value):
                raise ValueError(f"'{key}' is tied to '{arg}' but holds a different value")
            checked[arg] = value.detach()
            if tuple(value.shape) != tuple(self.initial[arg].shape):
                raise size_mismatch(key, value, self.initial[arg])
            if value.dtype != self.initial[arg].dtype and not value.is_floating_point():
                # torch's load copies into the parameter, casting (an int64 tensor)
                checked[arg] = checked[arg].to(self.initial[arg].dtype)
        for arg, value in checked.items():
            if arg in self.in_program:
                program.set(arg, value)
            else:
                self.initial[arg] = value.clone()
        for name, value in model_state.items():
            program.set(name, value)
        return _IncompatibleKeys(missing, unexpected)


def default_seed() -> int:
    """A random stream's seed drawn from torch's default generator: runs
    seeded with torch.manual_seed differ by seed and repeat with it, and two
    compiled programs draw different streams."""
    return int(torch.randint(0, 2 ** 62, (), dtype=torch.int64))


class _BatchFeed:
    """Sets one call's batch on a program: the batch tensors by name (the
    import drops those the model never reads) and the dropout stream's
    inputs (the seed, and an offset that moves on with every call)."""

    def __init__(self, model, example_args, loss_fn, input_names, program: Program,
                 seed: Optional[int] = None, check: Optional[Callable] = None):
        self.layout = BatchLayout.of(model, example_args, loss_fn, input_names)
        self.names = self.layout.leaf_names()
        self.program = program
        self.check = check      # Exported.batch_check
        self.calls = 0
        if "dropout_seed" in program.bindings:  # constant: set once
            if seed is None:
                seed = default_seed()
            program.set("dropout_seed", torch.tensor(seed, dtype=torch.int64))

    def __call__(self, batch, named: Optional[Dict] = None) -> None:
        leaves = self.layout.flatten(batch, named)
        if self.check is not None:
            self.check(leaves)
        for name, value in zip(self.names, leaves):
            if name in self.program.bindings:
                self.program.set(name, value)
        if "dropout_offset" in self.program.bindings:
            self.program.set("dropout_offset", torch.tensor(
                self.calls * DROPOUT_OFFSET_STRIDE, dtype=torch.int64))
        self.calls += 1


def _check_rate(name: str, value) -> None:
    """A learning rate is a finite number >= 0 (torch.optim refuses a
    negative one too; a negative rate would climb the loss silently)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = None
    if isinstance(value, bool) or number is None or not math.isfinite(number) or number < 0:
        raise OptionError(f"option {name}={value!r}: expected a finite number >= 0")


def _check_norm_type(value) -> None:
    """norm_type (clip_grad_norm_'s): the step clips by the global 2-norm
    only, so 2 is the one value taken."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != 2:
        raise OptionError(f"option norm_type={value!r}: the compiled step clips by the global "
                          "2-norm of the gradients only (max_grad_norm: clip_grad_norm_ with "
                          "norm_type=2)", hint="drop norm_type, or clip each element with "
                                               "clip_grad_value")


class AccumulationWarning(UserWarning):
    """Parameters or optimizer state read from a step with accumulate_steps=K
    while micro-batches it ran are not applied yet (fewer than K since the
    last optimizer step): TrainStep.apply_pending() applies them."""


class TrainStep:
    """A compiled training step of a module, with its parameters and
    optimizer state in the runtime. Call it with a batch (the example
    batch's shapes and dtypes) to run one step; it returns the loss.

    With accumulate_steps=K, each call runs one micro-batch and every K-th
    call also applies the optimizer step (torch's recipe of K backward passes
    of loss / K, then one optimizer.step()); apply_pending() applies a
    partial window (an epoch's last micro-batches)."""

    def __init__(self, model: torch.nn.Module, example_args: Sequence[torch.Tensor],
                 loss_fn: Optional[Callable], device: str, input_names, options: Dict,
                 param_settings: Optional[Dict[str, Dict[str, float]]] = None):
        seed = options.pop("seed", None)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise OptionError(f"option seed={seed!r}: expected an integer")
        _check_norm_type(options.pop("norm_type", 2.0))
        frozen = options.pop("frozen", "constant")
        if frozen not in ("constant", "state"):
            raise OptionError(f"option frozen={frozen!r}: expected 'constant' or 'state'")
        inputs = {k: options.pop(k) for k in list(options) if k in SCHEDULE_INPUTS}
        for key in ("lr", "min_lr"):
            if key in inputs:
                _check_rate(key, inputs[key])
        if "betas" in options:
            betas = options.pop("betas")
            if not (isinstance(betas, (tuple, list)) and len(betas) == 2):
                raise OptionError(f"option betas={betas!r}: expected (beta1, beta2)")
            options.setdefault("beta1", betas[0])
            options.setdefault("beta2", betas[1])
        for key, value in inputs.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise OptionError(f"option {key}={value!r}: expected a number")
        schedule = options.get("schedule", "constant")
        if schedule != "constant" and inputs.get("total_steps", 0) <= 0:
            raise OptionError(f"schedule={schedule!r} needs total_steps > 0 "
                              "(and warmup_steps, min_lr as wanted)")
        self.device = Device(device)
        flags = compiler_flags(options, True, target_for(self.device))
        self.exported = import_module(model, example_args, loss_fn, input_names=input_names,
                                      param_settings=param_settings,
                                      frozen_state=frozen == "state",
                                      added_loss_weight=options.get("accumulate_steps") or 1)
        name = f"{type(model).__name__}.mlir"
        self.artifact = compiler.compile_source(self.exported.mlir, flags, name)
        self.program = Program(self.device, self.artifact.directory)
        self._feed = _BatchFeed(model, example_args, loss_fn, input_names, self.program,
                                seed, self.exported.batch_check)
        self._model = _ModelState(model, self.exported, self.program)
        for arg in self._model.params:
            if arg in self._model.in_program:
                self.program.set(arg, self._model.initial[arg])
        self._model.set_initial_state(self.program)
        self._watch = ModuleWatch(model, self._model, self.program, loss_fn)
        self._track_shared_parameters(model, param_settings)
        # The module's trained parameters and model state follow the
        # program's, and the caller's writes to them go into it (module_sync).
        self._sync = ModuleSync(model, self._model, self.program, self._trains)
        self._watch.managed, self._watch.rebound = self._sync.keys, self._sync.rebind
        self._param_names = {id(p): n for n, p in model.named_parameters()}
        self._schedule = dict(SCHEDULE_INPUTS)
        self._schedule.update(inputs)
        for key, value in self._schedule.items():
            if key in self.program.bindings:
                self.program.set(key, value)
        self.accumulate_steps = self.artifact.accumulate_steps
        self._micro = 0
        # The torch optimizer the step was compiled from, whose lr it
        # follows (optimizers.Follower) and whose state it shares
        # (optimizers.Link); None for an optimizer by name.
        self._follower: Optional[optimizers.Follower] = None
        self._link: Optional[optimizers.Link] = None
        self._opt_dirty = False     # ran since its state went into the optimizer's
        self._opt_version = -1      # the Link's version its program holds

    def _track_shared_parameters(self, model: torch.nn.Module, settings) -> None:
        """Records what this step reads and trains, for _check_shared."""
        self._reads = {id(p): n for n, p in model.named_parameters()}
        self._buffer_keys = {id(b): n for n, b in model.named_buffers()}
        self._trains = {id(p) for n, p in model.named_parameters() if p.requires_grad and (
            settings is None or settings[n][optimizers.LR_SCALE] != 0.0)}
        self._last_call = -1
        self._synced_at = next(_CLOCK)   # compiled, or loaded a state_dict
        self._warned_shared = False
        _LIVE_STEPS.add(self)

    def _check_shared(self) -> None:
        """Warns (once) when another live step that trains parameters this
        one reads ran since this one last took parameters in (compiled or
        load_state_dict): each step holds its own copy, so this one computes
        with stale values (a GAN's generator step training against the
        discriminator it was compiled with)."""
        if self._warned_shared:
            return
        for other in list(_LIVE_STEPS):
            if other is self or other._last_call < self._synced_at:
                continue
            shared = [n for i, n in self._reads.items() if i in other._trains]
            if shared:
                self._warned_shared = True
                theirs = [other._reads[i] for i in self._reads if i in other._trains]
                warnings.warn(
                    f"parameters {', '.join(shared[:4])}{', ...' if len(shared) > 4 else ''} "
                    "are trained by another compiled step, which ran since this step took "
                    "them in: each step holds its own copy, so this one computes with the "
                    "values it was compiled with (a GAN's generator step against a stale "
                    "discriminator); before each call, copy across the values of the "
                    "network the other step trains, and only those (all of its state_dict "
                    "would put back this step's stale copy of the network this step trains, "
                    "undoing updates when one step runs several times in a row, WGAN's 5 "
                    f"critic steps): {_copy_recipe(theirs)}, or compile "
                    "one step over the whole loss; two steps training the same parameters (a "
                    "smaller last batch, length buckets) share them and their optimizer state "
                    "when both are compiled with optimizer= one torch optimizer instance",
                    TracedUpdateWarning, stacklevel=3)
                return

    def _take_parameters(self, other: "TrainStep") -> None:
        """Copies from `other`'s program the parameters it trains and the
        model state it updates that this step holds too (two steps following
        one torch optimizer: optimizers.Link); when none is left out (one
        this step folded in as a constant), this step is in sync with it."""
        left = []
        for key, tensor_id in [(n, i) for i, n in self._reads.items() if i in other._trains]:
            mine = self._model.argument(key)
            theirs = other._model.argument(other._reads[tensor_id])
            if mine in self._model.in_program and theirs in other._model.in_program:
                self.program.set(mine, other.program.get(theirs))
            else:
                left.append(key)
        for tensor_id, key in self._buffer_keys.items():
            other_key = other._buffer_keys.get(tensor_id)
            theirs = None if other_key is None else other._model.state_name(other_key)
            if theirs is None:
                continue
            mine = self._model.state_name(key)
            if mine is None:
                left.append(key)
            else:
                self.program.set(mine, other.program.get(theirs))
        if not left:
            self._synced_at = next(_CLOCK)

    @property
    def lr(self) -> float:
        return float(self._schedule["lr"])

    @lr.setter
    def lr(self, value: float) -> None:
        """Changes the (peak) learning rate for the following steps."""
        _check_rate("lr", value)
        self.program.set("lr", float(value))
        self._schedule["lr"] = float(value)

    def _before_run(self) -> None:
        """What every run of the program does first: the followed torch
        optimizer's rate taken, the module's changes checked (and taken
        in), the linked optimizer told, shared parameters checked."""
        if self._follower is not None:
            lr = self._follower.lr()
            if lr is not None:
                self.lr = lr
        self._watch.check()
        if self._link is not None:
            self._link.ran(self)
        self._check_shared()
        self._last_call = next(_CLOCK)

    def __call__(self, *batch: torch.Tensor, **named: torch.Tensor) -> float:
        self._before_run()
        self._feed(batch, named)
        if self.accumulate_steps > 1:
            self.program.run("accumulate_step")
            loss = float(self.program.get("loss"))
            self._micro += 1
            if self._micro == self.accumulate_steps:
                self.program.run("apply_step")
                self._micro = 0
                self._stepped()
            return loss
        self.program.run("train_step")
        self._stepped()
        return float(self.program.get("loss"))

    def _stepped(self) -> None:
        """After an optimizer update: the followed torch optimizer counts it."""
        if self._follower is not None:
            self._follower.stepped()

    @property
    def pending(self) -> int:
        """The micro-batches run since the last optimizer step (0 to
        accumulate_steps - 1), not applied yet."""
        return self._micro

    def apply_pending(self) -> int:
        """With accumulate_steps=K, applies the optimizer step to the
        micro-batches run since the last one, as torch's loop steps on a
        partial last window (an epoch whose length is not a multiple of K:
        `if (i + 1) % K == 0 or i + 1 == len(loader): optimizer.step()`).
        Each micro-batch's gradient was scaled by 1 / K (torch's `loss / K`),
        so the step applies their sum / K, as that recipe does. Returns how
        many micro-batches it applied (0: none pending, no step taken)."""
        pending = self._micro
        if not pending:
            return 0
        self._before_run()
        self.program.run("apply_step")
        self._micro = 0
        self._stepped()
        return pending

    def _warn_pending(self, what: str) -> None:
        """AccumulationWarning when `what` is read with micro-batches
        pending."""
        if self._micro:
            count = f"{self._micro} micro-batch{'es' if self._micro != 1 else ''}"
            warnings.warn(
                f"{what} read with {count} pending (accumulate_steps={self.accumulate_steps}): "
                f"the gradients of the {count} run since the last optimizer step are "
                "accumulated, not applied; at the end of an epoch whose length is not a "
                "multiple of accumulate_steps, call step.apply_pending() first (torch's loop "
                "steps on the partial last window)", AccumulationWarning, stacklevel=3)

    def read(self, name: str) -> torch.Tensor:
        """Any tensor of the program by name: a parameter, an optimizer state
        (e.g. "w.exp_avg", "step", "loss_scale") or an output of the last
        step (e.g. "found_inf", "applied_lr")."""
        if name in ("grad_norm", "total_norm") and name not in self.program.bindings:
            raise KeyError(f"the program has no tensor '{name}': the compiled step does not "
                           "return the total gradient norm (clip_grad_norm_'s result); it "
                           "clips by it on the device (max_grad_norm) without handing it out")
        return self.program.get(name)

    def state_dict(self) -> "OrderedDict[str, torch.Tensor]":
        """The module's state_dict with the trained parameters and the
        buffers the training forward updates as the steps left them (batch
        norm's running statistics, spectral norm's weight_u / weight_v;
        other buffers as compiled); `model.load_state_dict(step.state_dict())`
        takes it."""
        if self._link is not None:
            self._link.pull(self)      # another step following the optimizer ran last
        self._warn_pending("the parameters")
        return self._model.state_dict(self.program)

    def load_state_dict(self, state: Dict[str, torch.Tensor], strict: bool = True):
        """Sets the parameters and the updated buffers (model state) from a
        module state_dict (optimizer state is kept, as torch's module
        load_state_dict keeps the optimizer's). Returns torch's
        (missing_keys, unexpected_keys); strict=True raises a RuntimeError
        when either is not empty, as torch's does."""
        keys = self._model.load_state_dict(self.program, state, strict)
        self._synced_at = next(_CLOCK)
        return keys

    def optimizer_state_dict(self) -> "OrderedDict[str, torch.Tensor]":
        """The optimizer's (and loss scaler's) state tensors by name (the
        model's updated buffers are in state_dict())."""
        if self._link is not None:
            self._link.pull(self)
        self._warn_pending("the optimizer state")
        return OrderedDict((n, self.program.get(n)) for n in self._optimizer_state())

    def _optimizer_state(self):
        return [n for n in self.program.names("state") if n not in self._model.state]

    def load_optimizer_state_dict(self, state: Dict) -> None:
        """Sets the optimizer state from optimizer_state_dict()'s form, or
        from a torch optimizer's state_dict() (resuming a run torch
        trained): its per-parameter entries by the optimizer's parameter
        order (the torch optimizer the step was compiled from, or for an
        optimizer by name one built over model.parameters()), their names
        torch's (exp_avg, momentum_buffer, ...); its per-parameter step
        counts, which must agree, become the step's one count; parameters
        torch holds no state for keep theirs. Its param_groups'
        hyper-parameters are not read (the step's own apply)."""
        if isinstance(state, dict) and "state" in state and "param_groups" in state:
            state = self._from_torch_optimizer_state(state)
        names = self._optimizer_state()
        missing = [n for n in names if n not in state]
        unexpected = [n for n in state if n not in names]
        if missing or unexpected:
            raise KeyError(f"optimizer state mismatch: missing {missing}, unexpected {unexpected}")
        if self._link is not None:
            self._link.hold(self)      # the optimizer's state_dict() then reads it
        for n in names:
            self.program.set(n, state[n])

    def _from_torch_optimizer_state(self, torch_state: Dict) -> Dict[str, torch.Tensor]:
        """optimizer_state_dict()'s form of a torch optimizer's state_dict()."""
        if self._follower is not None:
            order = [self._param_names.get(id(p)) for g in self._follower.optimizer.param_groups
                     for p in g["params"]]
        else:
            order = list(self._param_names.values())
        count = sum(len(g["params"]) for g in torch_state["param_groups"])
        if count != len(order):
            raise ValueError(f"the torch optimizer state holds {count} parameters, the "
                             f"compiled step's optimizer {len(order)}")
        out = {n: self.program.get(n) for n in self._optimizer_state()}
        entries = [(order[int(index)], entry) for index, entry in torch_state["state"].items()]
        steps = {float(e["step"]) for _, e in entries if e.get("step") is not None}
        if len(steps) > 1:
            raise ValueError(f"the torch optimizer's parameters took different numbers of steps "
                             f"({sorted(steps)[:4]}); the compiled step keeps one count")
        self._take_torch_entries(entries, out)
        if steps and "step" in out:
            out["step"] = torch.tensor(int(steps.pop()), dtype=out["step"].dtype)
        elif "step" in out:
            out["step"] = self._count_without_steps(entries)
        return out

    def _count_without_steps(self, entries) -> torch.Tensor:
        """The step count for torch state that keeps none (SGD): 0 when it
        holds no buffers (torch's next step starts them), else at least 1
        (tfc.sgd starts the momentum buffer at step 1, ignoring it)."""
        held = any(v is not None for _, e in entries for k, v in e.items() if k != "step")
        return torch.tensor(max(int(self.program.get("step")), 1) if held else 0)

    def _state_by_parameter(self) -> Dict[str, Dict[str, str]]:
        """{program parameter name: {torch state key: optimizer state
        tensor}} ("w.exp_avg" is w's exp_avg; torch's keys have no dots)."""
        if getattr(self, "_by_parameter", None) is None:
            self._by_parameter = {}
            for n in self._optimizer_state():
                param, _, key = n.rpartition(".")
                if param:
                    self._by_parameter.setdefault(param, {})[key] = n
        return self._by_parameter

    def _program_parameter(self, name: Optional[str]) -> Optional[str]:
        """The program's name of the module parameter `name`."""
        return None if name is None else self._model.aliases.get(name, name)

    def _take_torch_entries(self, entries, out: Dict[str, torch.Tensor]) -> None:
        """Sets `out` (optimizer state by program name) from torch's
        per-parameter entries [(module parameter name, {key: value})]."""
        by_param, unknown = self._state_by_parameter(), []
        for name, entry in entries:
            param = self._program_parameter(name)
            for key, value in entry.items():
                if key == "step" or value is None:
                    continue
                state = by_param.get(param, {}).get(key)
                if state is None:
                    unknown.append(f"{param}.{key}")
                    continue
                dtype = self.program.bindings[state].dtype
                out[state] = torch.as_tensor(value).detach().to(dtype)
        if unknown:
            raise KeyError(f"torch optimizer state the compiled step has no state for: "
                           f"{unknown[:6]} (its state: {self._optimizer_state()[:6]}...)")

    def _write_torch_state(self, optimizer: torch.optim.Optimizer) -> None:
        """Writes this step's optimizer state into `optimizer.state`, torch's
        per-parameter entries (cast to each parameter's dtype and device, as
        torch's load_state_dict casts them), for the parameters it trains;
        the others' entries stay."""
        by_param = self._state_by_parameter()
        names = self.program.names("state")
        count = int(self.program.get("step")) if "step" in names else None
        with_step = optimizers.step_form(optimizer) is not None and count is not None
        for p in optimizers.parameters_in_order(optimizer):
            keys = by_param.get(self._program_parameter(self._param_names.get(id(p))))
            if not keys:
                continue
            entry = optimizer.state[p]
            if with_step:
                entry["step"] = optimizers.step_value(optimizer, count, entry.get("step"))
            for key, state in keys.items():
                value = self.program.get(state)
                if value.is_floating_point() and p.is_floating_point():
                    value = value.to(p.dtype)
                entry[key] = value.to(p.device)

    def _read_torch_state(self, optimizer: torch.optim.Optimizer) -> None:
        """Sets this step's optimizer state from `optimizer.state`: the
        parameters it trains take their entries, those without one start
        afresh (as torch's would), and the step count is theirs (one count
        for all: optimizers.warn_step_counts says when theirs differ)."""
        by_param = self._state_by_parameter()
        out, entries, counts = {}, [], {}
        for p in optimizers.parameters_in_order(optimizer):
            name = self._param_names.get(id(p))
            keys = by_param.get(self._program_parameter(name))
            if not keys:
                continue
            entry = optimizer.state.get(p) or {}
            for key, state in keys.items():
                if entry.get(key) is None:
                    b = self.program.bindings[state]
                    out[state] = optimizers.fresh_value(optimizer, key, b.shape, b.dtype)
            entries.append((name, entry))
            step = entry.get("step")
            counts[name] = int(step) if step is not None else 0
        self._take_torch_entries(entries, out)
        if counts and "step" in self.program.names("state"):
            if optimizers.step_form(optimizer) is not None:
                out["step"] = torch.tensor(optimizers.warn_step_counts(optimizer, counts))
            else:
                out["step"] = self._count_without_steps(entries)
        for state, value in out.items():
            self.program.set(state, value)

    def save(self, path: str) -> None:
        """Parameters, model state (updated buffers) and optimizer state to
        one safetensors file; with them, in its metadata, what resuming
        needs besides: the param_groups' hyper-parameters of the torch
        optimizer the step follows (the lr its scheduler set, as torch's
        optimizer.state_dict() saves them), the micro-batches accumulated
        since the last optimizer step and the calls so far (the random
        stream's position)."""
        if self._link is not None:
            self._link.pull(self)
        self.program.save(path, ("param", "state"))
        extra = {}
        if self._follower is not None:
            extra[_META_GROUPS] = json.dumps(optimizers.group_settings(self._follower.optimizer))
        if self._micro:
            extra[_META_PENDING] = str(self._micro)
        if self._feed.calls != self._calls_of_steps():
            extra[_META_CALLS] = str(self._feed.calls)
        if extra:
            safetensors.add_metadata(path, extra)

    def _calls_of_steps(self) -> int:
        """The calls a run of the restored step count made, when every
        window was whole and no step was skipped."""
        if "step" not in self.program.names("state"):
            return self._feed.calls
        return int(self.program.get("step")) * self.accumulate_steps

    def load(self, path: str) -> None:
        """Restores a file written by save() (exactly these tensors), and
        with them the param_groups' hyper-parameters of the torch optimizer
        the step follows (its lr: a scheduler whose state_dict() is loaded
        goes on from there, as after torch's optimizer.load_state_dict()) and
        the micro-batches pending. The random stream resumes after the
        restored calls' draws."""
        meta = safetensors.metadata(path)
        groups = json.loads(meta[_META_GROUPS]) if _META_GROUPS in meta else None
        if self._follower is not None and groups is not None:
            optimizers.check_group_count(self._follower.optimizer, groups, path)
        pending = int(meta.get(_META_PENDING, 0))
        if pending >= self.accumulate_steps:
            raise ValueError(f"{path} was saved with {pending} micro-batches pending, this "
                             f"step applies every {self.accumulate_steps} (compile it with the "
                             "accumulate_steps of the step that saved it)")
        if self._link is not None:
            self._link.hold(self)      # the optimizer's state_dict() then reads it
        self.program.restore(path, ("param", "state"))
        self._micro = pending
        self._feed.calls = (int(meta[_META_CALLS]) if _META_CALLS in meta
                            else self._calls_of_steps())
        if self._follower is None:
            return
        if groups is not None:
            optimizers.restore_group_settings(self._follower.optimizer, groups)
            return
        warnings.warn(
            f"{path} holds no param_groups of a torch optimizer (saved by a step compiled "
            "with an optimizer by name, or by an older tfc_torch): the "
            f"{type(self._follower.optimizer).__name__}'s lr stays the one it has now, not "
            "the one its scheduler had reached; load a checkpoint of optimizer.state_dict() "
            "into it to resume the schedule", UserWarning, stacklevel=2)


def _copy_recipe(keys: Sequence[str]) -> str:
    """GAN steps' copy of the parameters `keys` (the other step's names of
    them) from the step that trains them: filtered by their submodule's
    prefix, or by name when they share none."""
    parts = [k.split(".")[:-1] for k in keys]
    common = parts[0]
    for p in parts[1:]:
        n = 0
        while n < min(len(common), len(p)) and common[n] == p[n]:
            n += 1
        common = common[:n]
    if common:
        test = f"k.startswith({'.'.join(common) + '.'!r})"
    elif len(keys) <= 4:
        test = f"k in {set(keys)!r}"
    else:
        test = "k in <the other network's keys>"
    return ("step.load_state_dict({k: v for k, v in other_step.state_dict().items() if "
            f"{test}}}, strict=False)")


def check_loss_fn(example_args, loss_fn: Optional[Callable]) -> None:
    """ModelError, before tracing, for a loss_fn that cannot be called as
    loss_fn(output, *batch) (a loss module such as nn.CrossEntropyLoss(),
    taking (input, target); a lambda of another arity)."""
    if loss_fn is None or not isinstance(example_args, (tuple, list)) or \
            (len(example_args) == 1 and isinstance(example_args[0], dict)):
        return   # a dict batch: batch_layout checks what forward and loss_fn take
    target = loss_fn.forward if isinstance(loss_fn, torch.nn.Module) else loss_fn
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):   # a builtin, a C function: tracing says
        return
    count = len(example_args)
    try:
        signature.bind(*range(count + 1))
    except TypeError as e:
        what = (f"loss module {type(loss_fn).__name__}{signature}"
                if isinstance(loss_fn, torch.nn.Module)
                else f"{getattr(loss_fn, '__name__', type(loss_fn).__name__)}{signature}")
        raise ModelError(f"loss_fn is called as loss_fn(output, *batch): the model's output, "
                         f"then the batch's {count} argument{'s' if count != 1 else ''} "
                         f"({count + 1} in all), which {what} does not take ({e})",
                         hint="take the batch after the output, e.g. for a batch (x, y) and "
                              "criterion = nn.CrossEntropyLoss(): loss_fn=lambda out, x, y: "
                              "criterion(out, y)") from None


def compile_train_step(model: torch.nn.Module, example_args: Sequence[torch.Tensor],
                       loss_fn: Optional[Callable] = None, *, device: str = "host",
                       optimizer: Union[str, torch.optim.Optimizer] = "adamw",
                       lr: Optional[float] = None,
                       input_names: Optional[Sequence[str]] = None, **options) -> TrainStep:
    """Traces `model`'s loss on `example_args` (forward returns the scalar
    loss, or `loss_fn(model(*args), *args)` does), compiles its training step
    and loads it on `device` ("host", "cuda" or "auto").

    Options mirror --tfc-train-pipeline's, in Python spelling (see
    tfc_torch.options): optimizer, betas / beta1 / beta2, eps, weight_decay,
    decay_all, momentum, nesterov, the optimizers' own (alpha, centered,
    lr_decay, initial_accumulator_value, momentum_decay, ...),
    max_grad_norm (norm_type 2 only), schedule with lr, min_lr,
    warmup_steps, total_steps, loss_scaling and the scaler's options,
    accumulate_steps, precision, pad, recompute, optimizer_in_backward,
    fusion; seed keys the random stream of dropout and the other draws
    (tfc's Philox draws, not torch's; by default drawn from torch's
    generator, so torch.manual_seed repeats a run and two compiled steps
    draw differently; load() resumes it after the restored steps); frozen="state" keeps parameters with requires_grad=False as
    model state that load_state_dict sets between steps (a target network's
    Polyak update) instead of constants folded into the program (the
    default, frozen="constant"). Defaults are the pipeline's (AdamW with torch's defaults; weight
    decay 0.01 for parameters of rank >= 2 only, unless decay_all=True) and
    lr=1e-3 (torch.optim.AdamW's). An unknown option or a bad value raises
    OptionError naming it.

    `optimizer` may also be the torch.optim instance a training script
    builds (AdamW, Adam, SGD, RMSprop, Adagrad, Adamax, NAdam, RAdam): its
    hyper-parameters are the options (lr and the optimizer's own options may
    then not be given) and its param_groups become per-parameter
    learning-rate factors and weight decays (optimizers.py); each call then
    takes the first group's current lr, so a torch.optim.lr_scheduler
    stepping that optimizer drives the compiled step (a change the step
    cannot follow, e.g. OneCycleLR cycling betas, is an OptionError). The
    step starts from that optimizer's state and shares it: its
    state_dict() holds the step's moments and counts in torch's form, its
    load_state_dict() sets them (optimizers.Link)."""
    check_loss_fn(example_args, loss_fn)
    if isinstance(optimizer, (list, tuple)):
        optimizers.refuse_several(optimizer)
    if isinstance(optimizer, torch.optim.Optimizer):
        taken, settings = optimizers.from_torch(optimizer, model)
        betas = taken.pop("betas", None)
        if betas is not None:
            taken["beta1"], taken["beta2"] = float(betas[0]), float(betas[1])
        given = set(options) | ({"lr"} if lr is not None else set())
        clash = sorted(given & (set(taken) | {"betas", "weight_decay", "decay_all"}))
        if clash:
            raise OptionError(f"option {', '.join(clash)}: given by the "
                              f"{type(optimizer).__name__} instance (its param_groups)")
        schedule = options.get("schedule", "constant")
        if schedule != "constant" and "initial_lr" in optimizer.param_groups[0]:
            raise OptionError(f"option schedule={schedule!r}: the {type(optimizer).__name__} "
                              "instance has a torch.optim.lr_scheduler, whose rate the "
                              "compiled step follows; both schedules would apply",
                              hint="schedule the rate in one place: drop schedule= (and "
                                   "warmup_steps, total_steps, min_lr), or the torch "
                                   "scheduler")
        options = dict(options, **taken)
        step = TrainStep(model, example_args, loss_fn, device, input_names, options, settings)
        step._follower = optimizers.Follower(optimizer, device_schedule=schedule != "constant")
        lr = step._follower.lr()    # checked now: a scheduler may have set it already
        if lr is not None:
            step.lr = lr
        step._link = optimizers.link(optimizer)
        step._link.attach(step)     # its state (a checkpoint's, another step's) to start from
        return step
    options = dict(options, optimizer=optimizer, lr=1e-3 if lr is None else lr)
    return TrainStep(model, example_args, loss_fn, device, input_names, options)
