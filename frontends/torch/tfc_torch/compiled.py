"""A module's inference forward compiled with tfc and run with libtfcrt.

    fast = tfc_torch.compile(model, (tokens,), device="host")
    logits = fast(tokens)            # CPU torch tensors, model's output structure

The forward is traced once for the example batch's shapes and dtypes (tfc
compiles static shapes); the module's parameters are copied in at compile
time, and `load_state_dict` replaces them later (e.g. after training with
compile_train_step).
"""
from typing import Dict, Optional, Sequence

import torch

from . import compiler
from .export import import_forward
from .module_watch import ModuleWatch
from .options import compiler_flags
from .runtime import Device, Program
from .train import _BatchFeed, _ModelState, target_for


class CompiledModule:
    """The compiled forward of a module: call it like the module."""

    def __init__(self, model: torch.nn.Module, example_args: Sequence[torch.Tensor],
                 device: str, input_names, options: Dict):
        self.device = Device(device)
        flags = compiler_flags(options, False, target_for(self.device))
        self.exported = import_forward(model, example_args, input_names=input_names)
        flags.append("--function=forward")
        self.artifact = compiler.compile_source(self.exported.mlir, flags,
                                                f"{type(model).__name__}.mlir")
        self.program = Program(self.device, self.artifact.directory)
        self._feed = _BatchFeed(model, example_args, None, input_names, self.program,
                                check=self.exported.batch_check)
        self.outputs = list(self.exported.outputs)
        self._model = _ModelState(model, self.exported, self.program)
        for arg in self._model.params:
            if arg in self._model.in_program:
                self.program.set(arg, self._model.initial[arg])
        # The parameters a compiled step trains are taken from the module
        # at each call (module_sync: a train / eval loop).
        self._watch = ModuleWatch(model, self._model, self.program, forward=True)

    def __call__(self, *batch: torch.Tensor, **named: torch.Tensor):
        self._watch.check()
        self._feed(batch, named)
        self.program.run("forward")
        return self.exported.rebuild_output([self.program.get(name) for name in self.outputs])

    def state_dict(self):
        return self._model.state_dict(self.program)

    def load_state_dict(self, state: Dict[str, torch.Tensor], strict: bool = True):
        """Replaces the parameters (e.g. with a TrainStep's state_dict());
        returns torch's (missing_keys, unexpected_keys)."""
        return self._model.load_state_dict(self.program, state, strict)


def compile(model: torch.nn.Module, example_args: Sequence[torch.Tensor], *,
            device: str = "host", input_names: Optional[Sequence[str]] = None,
            **options) -> CompiledModule:
    """Traces `model(*example_args)` (or `model(**example_args)` for a dict
    batch of forward's parameter names: batch_layout.py) and compiles it
    for `device` ("host", "cuda" or "auto"). Options: precision (f32, tf32, bf16, fp16), pad
    (auto, none, N), fusion (bool); an unknown one raises OptionError."""
    return CompiledModule(model, example_args, device, input_names, dict(options))
