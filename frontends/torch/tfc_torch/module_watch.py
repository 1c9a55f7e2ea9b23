"""What a caller changes on a compiled module between calls, which the
compiled program cannot follow: it was traced once, and it holds its own
parameters and state (the module is read when compiling and written only
when the caller loads step.state_dict() into it).

ModuleWatch, checked at every call of a TrainStep or CompiledModule
(errors unless said otherwise):

- the modules' train / eval mode (the program keeps the traced mode);
- requires_grad of a parameter (freezing or unfreezing after compiling:
  the program trains what was trainable when it was compiled): a
  TracedUpdateWarning (once per step), as a GAN's steps toggle it on
  purpose around compiling each;
- forward hooks and forward pre-hooks added or removed;
- a parameter or buffer changed in place (with torch.no_grad(): p.clamp_(),
  tau.fill_(), a scheduler writing a buffer) or rebound (model.tau = ...):
  its version counter or identity moved. It is accepted when the module now
  holds the program's current value (model.load_state_dict(step.state_dict())
  to evaluate mid-training) or the compiled one; anything else is an error,
  since the program would silently keep computing with its own copy;
- writes through .data, which move no version counter (WGAN's weight
  clipping p.data.clamp_()): the values are compared with the compiled ones
  at calls 1, 2, 4, 8, ... (a full read of the module's tensors each time,
  log2(calls) times in all);
- plain Python attributes (a KL-annealing beta, a temperature) whose value
  changed: a TracedUpdateWarning, once per attribute, since the trace baked
  in the value it saw if forward read it (tfc cannot tell whether it did).
"""
import warnings
from typing import Dict, List, Tuple

import torch

from .errors import ModelError, TracedUpdateWarning

_PLAIN = (bool, int, float)
_RECOMPILE = ("compile again after the change (model.load_state_dict(step.state_dict()) "
              "first carries the trained values over)")


def _tables(model: torch.nn.Module):
    """(state_dict key, owner module, table name, local name) of every
    parameter and buffer, tied names included."""
    out = []
    for prefix, module in model.named_modules(remove_duplicate=False):
        where = prefix + "." if prefix else ""
        for table in ("_parameters", "_buffers"):
            for local, t in getattr(module, table).items():
                if t is not None:
                    out.append((where + local, module, table, local))
    return out


class ModuleWatch:
    """The module as compiled; check() raises or warns about changes."""

    def __init__(self, model: torch.nn.Module, model_state, program):
        """Only the tensors the program reads are watched (model_state's
        arguments, state and folded constants): the module's others (an EMA
        copy kept beside the model) are free to change."""
        self.model = model
        self.model_state = model_state
        self.program = program
        self.modes = [m.training for m in model.modules()]
        ms = model_state
        self.entries: List[Tuple[str, torch.nn.Module, str, str]] = _tables(model)

        def read_by_program(key: str) -> bool:
            arg = ms.argument(key)
            return ((arg is not None and arg in ms.in_program) or ms.state_name(key) is not None
                    or ms.aliases.get(key, key) in ms.constants)
        # The tensors whose writes are checked: those the program reads.
        self.read = {e[0] for e in self.entries if read_by_program(e[0])}
        self.seen: Dict[str, Tuple[torch.Tensor, int, bool]] = {}
        for key, module, table, local in self.entries:
            t = getattr(module, table)[local]
            self.seen[key] = (t, t._version, t.requires_grad)
        # Tensors accepted as synced from the program: no longer compared
        # with their compiled values.
        self.synced = set()
        self.hooks = self._hooks()
        self.attributes = self._attributes()
        self.warned = set()
        self.calls = 0

    def _hooks(self):
        def users(hooks):
            return tuple(k for k, f in hooks.items() if not getattr(f, "tfc_internal", False))
        return [(prefix, users(m._forward_hooks), users(m._forward_pre_hooks))
                for prefix, m in self.model.named_modules(remove_duplicate=False)]

    def _attributes(self):
        out = {}
        for prefix, m in self.model.named_modules(remove_duplicate=False):
            for key, value in vars(m).items():
                if not key.startswith("_") and key != "training" and isinstance(value, _PLAIN):
                    out[(prefix, key)] = value
        return out

    def check(self) -> None:
        self.calls += 1
        if [m.training for m in self.model.modules()] != self.modes:
            traced = "train" if self.modes[0] else "eval"
            raise ModelError(
                f"the module's train / eval mode changed since it was compiled (traced in "
                f"{traced} mode): the compiled program keeps the mode it was traced in "
                "(dropout, batch norm's statistics)",
                hint="set the mode before compiling and keep it (model.train() for "
                     "compile_train_step, model.eval() for tfc_torch.compile), or compile "
                     "one program per mode")
        toggled = []
        for key, module, table, local in self.entries:
            t = getattr(module, table).get(local)
            t0, version, trainable = self.seen[key]
            if table == "_parameters" and t is not None and t.requires_grad != trainable:
                toggled.append(key)
            if (t is t0 and t._version == version) or key not in self.read:
                continue
            if t is None or not self._holds_known_value(key, t):
                what = "parameter" if table == "_parameters" else "buffer"
                raise ModelError(
                    f"{what} '{key}' of the module was changed since it was compiled (in "
                    "place or rebound): the compiled program holds its own copy and keeps "
                    "computing with it", hint=self._hint(key))
            self.seen[key] = (t, t._version, t.requires_grad)
            self.synced.add(key)
        if toggled and "requires_grad" not in self.warned:
            # A warning, not an error: freezing the other network while
            # compiling each of a GAN's steps toggles it on purpose.
            self.warned.add("requires_grad")
            warnings.warn(
                f"requires_grad of parameters {', '.join(toggled[:4])}"
                f"{', ...' if len(toggled) > 4 else ''} changed since the module was compiled: "
                "the compiled step keeps training the parameters that were trainable when it "
                "was compiled; to freeze or unfreeze (gradual unfreezing), " + _RECOMPILE,
                TracedUpdateWarning, stacklevel=3)
        if self.calls & (self.calls - 1) == 0:
            self._compare_values()
        if self._hooks() != self.hooks:
            raise ModelError(
                "forward hooks or forward pre-hooks of the module were added or removed since "
                "it was compiled: the compiled program runs the hooks it traced",
                hint=_RECOMPILE)
        for (prefix, key), value in self._attributes().items():
            old = self.attributes.get((prefix, key), value)
            if old != value and (prefix, key) not in self.warned:
                self.warned.add((prefix, key))
                where = prefix + "." if prefix else ""
                warnings.warn(
                    f"attribute {where}{key} changed since the module was compiled ({old!r} -> "
                    f"{value!r}): if forward reads it, the compiled program keeps {old!r} (a "
                    "trace bakes Python values in); keep a value that changes between calls "
                    "in a 0-d tensor batch argument, or compile again", TracedUpdateWarning,
                    stacklevel=3)

    def _holds_known_value(self, key: str, t: torch.Tensor) -> bool:
        """Whether `t` equals the program's current value of `key` (a sync
        from the step) or the compiled one."""
        current = self._program_value(key)
        if current is not None and _equal(t, current):
            return True
        compiled = self._compiled_value(key)
        return compiled is not None and _equal(t, compiled)

    def _program_value(self, key: str):
        ms = self.model_state
        arg, state = ms.argument(key), ms.state_name(key)
        name = arg if arg is not None and arg in ms.in_program else state
        if name is None:
            return None
        return self.program.get(name)

    def _compiled_value(self, key: str):
        """The value compiled in (the model state's copies of the module)."""
        ms = self.model_state
        arg, state = ms.argument(key), ms.state_name(key)
        if arg is not None:
            return ms.initial[arg]
        if state is not None:
            return ms.state[state]
        return ms.buffers.get(key)

    def _compare_values(self) -> None:
        for key, module, table, local in self.entries:
            if key in self.synced or key not in self.read:
                continue
            want = self._compiled_value(key)
            t = getattr(module, table).get(local)
            if want is None or t is None or _equal(t, want):
                continue
            what = "parameter" if table == "_parameters" else "buffer"
            raise ModelError(
                f"{what} '{key}' of the module holds other values than when it was compiled "
                "(written through .data, e.g. weight clipping p.data.clamp_()): the compiled "
                "program holds its own copy and keeps computing with it", hint=self._hint(key))

    def _hint(self, key: str) -> str:
        """How to change `key` between calls: through the step for what it
        holds as arguments (parameters, carried state); a constant of the
        program (a frozen parameter, a buffer) must become state first."""
        ms = self.model_state
        if ms.argument(key) is not None or ms.state_name(key) is not None:
            return ("change it through the step (sd = step.state_dict(); ...; "
                    "step.load_state_dict(sd)), e.g. weight clipping: "
                    "sd[name].clamp_(-c, c); or " + _RECOMPILE)
        return ("it is a constant of the compiled program: for a frozen network updated "
                "between steps (an EMA target, a momentum teacher) compile with "
                "frozen=\"state\" and set it with step.load_state_dict(...); pass another value "
                "that changes between calls as a batch argument (a 0-d tensor); or " + _RECOMPILE)


def _equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    """a (the module's tensor) equals b in a's dtype (a program's f32 master
    copy of a 16-bit parameter rounds to it)."""
    a, b = a.detach().cpu(), b.detach().to(a.dtype).cpu()
    if a.shape != b.shape:
        return False
    if a.is_floating_point():  # NaN equals NaN here: an unchanged NaN is no change
        return bool(torch.allclose(a, b, rtol=0.0, atol=0.0, equal_nan=True))
    return bool(torch.equal(a, b))
