"""The frontend's entry points: trace, import, run the passes, print, and
write the weights.

    exported = tfc_torch.import_module(model, example_args)   # in memory
    tfc_torch.export(model, example_args, "model.mlir", weights="w.safetensors")
    exported = import_forward(model, example_args)   # the inference forward
"""
import os
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch
import torch.utils._pytree as pytree

from . import dtypes, outputs, safetensors
from .importer import import_traced
from .ir import Function
from .passes import run_pipeline
from .printer import print_function
from .python_values import properties_read
from .tracing import trace


@dataclass
class Exported:
    """An imported model: its tfc function (text and IR) and the tensors
    its arguments bind to, by name."""
    mlir: str
    function: Function
    params: "OrderedDict[str, torch.Tensor]"   # argument order = state_dict order
    inputs: "OrderedDict[str, torch.Tensor]"   # the example batch
    aliases: Dict[str, str] = field(default_factory=dict)  # tied name -> param name
    buffers: List[str] = field(default_factory=list)       # folded into constants
    patterns: Dict[str, int] = field(default_factory=dict)  # pass -> rewrites
    # The function's results by name, in order: ["loss"] for a loss import;
    # "output" or "output.<i>" (its tfc.output names) for import_forward.
    outputs: List[str] = field(default_factory=lambda: ["loss"])
    # import_forward: the TreeSpec of the model's output (outputs.py;
    # `rebuild_output` of the results in `outputs` order rebuilds it, with
    # the leaves of `output_constants` by flat index: None, numbers,
    # strings the trace saw); None for a loss.
    output_spec: Optional[pytree.TreeSpec] = None
    # Model state of a loss import: the buffers its training forward updates
    # (batch norm's running statistics, spectral norm's weight_u / weight_v,
    # num_batches_tracked), `tfc.state` arguments whose new values the
    # function returns after the loss ({tfc.update}), with their values at
    # import time, by state_dict name.
    state: "OrderedDict[str, torch.Tensor]" = field(default_factory=OrderedDict)
    # Tensors from outside the module's tables folded into constants
    # (importer.Imported.outside).
    outside: List[torch.Tensor] = field(default_factory=list)
    # Checks a call's batch leaves before a compiled program runs (the
    # lengths of packed sequences padded without total_length), or None.
    batch_check: Optional[Callable] = None
    # Parameters and buffers named like a tensor of the program's own
    # (options.RESERVED_NAMES: a buffer `step`), renamed in it: program
    # name -> state_dict name (`aliases` maps the state_dict name back).
    renamed: Dict[str, str] = field(default_factory=dict)
    # import_forward: the output's constant leaves by flat index (see
    # output_spec).
    output_constants: Dict[int, Any] = field(default_factory=dict)
    # import_forward: outputs of int8 / int16 leaves, i32 in the program,
    # by name, with the dtype `rebuild_output` casts them back to.
    narrow_outputs: Dict[str, torch.dtype] = field(default_factory=dict)
    # The model state (of `state`) the program passes through unwritten:
    # frozen="state" parameters and buffers forward does not write, which
    # only the caller sets between steps (load_state_dict, a write into the
    # module); another step training them (a GAN's other network) holds
    # their values (module_sync).
    unwritten_state: List[str] = field(default_factory=list)

    def rebuild_output(self, results: Sequence[torch.Tensor]):
        """The forward's output structure from its results (`outputs`
        order): tensors, containers of the model's own classes, and the
        constant leaves put back."""
        results = [r.to(self.narrow_outputs[n]) if n in self.narrow_outputs else r
                   for n, r in zip(self.outputs, results)]
        return outputs.rebuild(self.output_spec, results, self.output_constants)

    def save(self, path: str) -> None:
        with open(path, "w") as f:
            f.write(self.mlir)

    def _tensors(self, *groups) -> "OrderedDict[str, torch.Tensor]":
        """The tensors by name as the program's arguments hold them (int8 /
        int16 batch inputs as int32)."""
        return OrderedDict((k, v.detach().to(torch.int32) if v.dtype in (torch.int8, torch.int16)
                            else v.detach()) for group in groups for k, v in group.items())

    def save_weights(self, path: str) -> None:
        """The parameters (one tensor per `tfc.param` argument) and the
        model state (one per `tfc.state` argument)."""
        safetensors.save(self._tensors(self.params, self.state), path)

    def save_feed(self, path: str) -> None:
        """Everything a run of the exported function reads: the parameters,
        the model state and the example batch (tfc-run --inputs)."""
        safetensors.save(self._tensors(self.params, self.state, self.inputs), path)

    def save_inputs(self, path: str) -> None:
        """The example batch (one tensor per `tfc.input` argument)."""
        safetensors.save(self._tensors(self.inputs), path)


def _header(model_name: str, exported: Exported) -> List[str]:
    floats = sum(t.numel() for t in exported.params.values())
    lines = [f"Imported from PyTorch {torch.__version__} by tfc_torch: {model_name}.",
             f"{len(exported.params)} parameters ({floats} elements), named as in the "
             "module's state_dict;"]
    batch = ", ".join(f"{k} {list(v.shape)} {str(v.dtype).replace('torch.', '')}"
                      for k, v in exported.inputs.items())
    lines.append(f"batch inputs: {batch}.")
    tied = ", ".join(f"{a} = {n}" for a, n in exported.aliases.items()
                     if exported.renamed.get(n) != a)
    if tied:
        lines.append(f"tied parameters (one argument): {tied}.")
    if exported.renamed:
        renamed = ", ".join(f"{n} as {a}" for a, n in exported.renamed.items())
        lines.append(f"named as the program names tensors of its own, so renamed: {renamed}.")
    if exported.buffers:
        lines.append(f"buffers folded into constants: {', '.join(exported.buffers)}.")
    if exported.state:
        lines.append("buffers the training forward updates (tfc.state, new values returned "
                     f"after the loss): {', '.join(exported.state)}.")
    if exported.output_spec is not None:
        results = ", ".join(f"{name} {list(v.shape)} {dtypes.torch_dtype(v.dtype)}"
                            .replace("torch.", "")
                            for name, v in zip(exported.outputs, exported.function.returns))
        lines.append(f"outputs: {results}.")
    fired = ", ".join(f"{k} {v}" for k, v in exported.patterns.items()
                      if v and k not in ("canonicalize", "legalize"))
    if fired:
        lines.append(f"recognized patterns: {fired}.")
    return lines


def import_module(model: torch.nn.Module, example_args: Sequence[torch.Tensor],
                  loss_fn: Optional[Callable] = None, input_names: Optional[Sequence[str]] = None,
                  function_name: str = "loss", patterns: bool = True,
                  locations: bool = True,
                  param_settings: Optional[Dict[str, Dict[str, float]]] = None,
                  frozen_state: bool = False, added_loss_weight: float = 1.0) -> Exported:
    """Traces `model` (forward returns the loss, or `loss_fn(model(*args),
    *args)` does) and imports it as the tfc function `@function_name`.
    `patterns=False` keeps decomposed forms (no rms_norm / cross_entropy /
    attention / gelu recognition); `locations=False` omits the MLIR
    locations that point at the Python source; `param_settings` gives
    parameters (by name) their group settings (optimizers.py: tfc.lr_scale,
    tfc.weight_decay); `frozen_state` makes parameters with
    requires_grad=False model state (`tfc.state` arguments, set between
    steps) instead of constants; `added_loss_weight`: see trace()."""
    with properties_read(model, loss_fn):   # what the module watch follows
        traced = trace(model, example_args, loss_fn, input_names, frozen_state=frozen_state,
                       added_loss_weight=added_loss_weight)
    return _import(traced, function_name, patterns, locations, param_settings)


def import_forward(model: torch.nn.Module, example_args: Sequence[torch.Tensor],
                   input_names: Optional[Sequence[str]] = None,
                   function_name: str = "forward", patterns: bool = True,
                   locations: bool = True) -> Exported:
    """Traces the inference forward `model(*example_args)` and imports it as
    the tfc function `@function_name`: its output (a tensor, or a tuple /
    list / dict / dataclass tree of tensors) becomes one result per tensor
    leaf, in torch.utils._pytree.tree_flatten order, named by `{tfc.output =
    "output"}` for a single tensor, else "output.<i>" with i the leaf's flat
    index (`exported.outputs`); leaves that are None, numbers or strings
    are constants (`exported.output_constants`), and
    `exported.rebuild_output(results)` rebuilds the structure. Parameters and inputs
    are as for import_module. Call model.eval() first for inference
    (dropout off, batch norm on its running statistics)."""
    with properties_read(model):
        traced = trace(model, example_args, None, input_names, forward=True)
    return _import(traced, function_name, patterns, locations)


def _import(traced, function_name: str, patterns: bool, locations: bool,
            param_settings=None) -> Exported:
    """Imports a trace (loss or forward), runs the passes and prints it."""
    imported = import_traced(traced, function_name)
    for arg in imported.function.arguments:
        key = traced.user_name(arg.key)   # param_settings has the module's names
        if arg.role == "param" and param_settings and key in param_settings:
            arg.settings = dict(param_settings[key])
    stats = run_pipeline(imported.function, patterns)
    exported = Exported("", imported.function, imported.params, imported.inputs,
                        imported.aliases, imported.buffers, stats, list(imported.outputs),
                        traced.output_spec, imported.state, imported.outside)
    exported.output_constants = dict(traced.output_constants)
    exported.narrow_outputs = dict(imported.narrow_outputs)
    exported.batch_check = traced.batch_check
    exported.renamed = dict(traced.renamed)
    holders = [n for n in traced.graph_module.graph.nodes if n.op == "placeholder"]
    exported.unwritten_state = [ph.key for n, ph in zip(holders, traced.placeholders)
                                if n in traced.carried and traced.carried[n] is None
                                and ph.key in exported.state]
    imported.function.comments = _header(traced.model_name, exported)
    exported.mlir = print_function(imported.function, locations)
    return exported


def export(model: torch.nn.Module, example_args: Sequence[torch.Tensor], path: str,
           weights: Optional[str] = None, loss_fn: Optional[Callable] = None,
           inputs: Optional[str] = None, **options) -> Exported:
    """Writes the tfc module of `model`'s loss to `path`, its initial
    parameters to `weights` and the example batch to `inputs` (safetensors)
    when given; returns the Exported model. Options as import_module."""
    exported = import_module(model, example_args, loss_fn, **options)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    exported.save(path)
    if weights:
        exported.save_weights(weights)
    if inputs:
        exported.save_inputs(inputs)
    return exported
