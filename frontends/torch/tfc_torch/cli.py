"""tfc-import-torch: a PyTorch model file -> a tfc .mlir module and its
initial weights.

    tfc-import-torch model.py:make_model -o model.mlir --weights w.safetensors
    tfc-import-torch model.py:GPT --example-batch idx=i64[8,64]:256 \\
        --example-batch targets=i64[8,64]:256 -o gpt.mlir

MODEL is FILE.py:NAME, NAME a callable taking no arguments (a factory or a
module class) that returns the nn.Module, or (module, example_batch), or
(module, example_batch, loss_fn). The loss is module(*batch), or
loss_fn(module(*model_args), *batch) with a loss_fn.

--example-batch gives the batch (and overrides one returned by MODEL), as
  * FILE.safetensors   tensors named after forward's arguments;
  * FILE.py:NAME       a callable returning a tuple of tensors;
  * NAME=DTYPE[D0,D1,...][:HIGH], repeatable, one per argument in order:
    random floats N(0, 1), or integers uniform in [0, HIGH) (HIGH default
    2), from --seed. DTYPE: f32 f64 f16 bf16 i64 i32 bool.
"""
import argparse
import importlib.util
import os
import re
import sys

_DTYPES = {"f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16",
           "i64": "int64", "i32": "int32", "bool": "bool"}
_SPEC = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<dtype>[a-z0-9]+)"
                   r"\[(?P<shape>[0-9, ]*)\](?::(?P<high>-?[0-9]+))?$")


class UsageError(Exception):
    """A wrong command line: one line, exit code 2."""


def _load_callable(spec: str, what: str):
    path, sep, name = spec.rpartition(":")
    if not sep or not path.endswith(".py"):
        raise UsageError(f"{what} '{spec}' is not FILE.py:NAME")
    if not os.path.isfile(path):
        raise UsageError(f"{what} file '{path}' does not exist")
    module_name = "tfc_import_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    loader = importlib.util.spec_from_file_location(module_name, os.path.abspath(path))
    module = importlib.util.module_from_spec(loader)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    loader.loader.exec_module(module)
    if not hasattr(module, name):
        raise UsageError(f"{path} defines no '{name}'")
    return getattr(module, name)


def _random_batch(specs, seed):
    import torch
    g = torch.Generator().manual_seed(seed)
    names, tensors = [], []
    for spec in specs:
        m = _SPEC.match(spec.replace(" ", ""))
        if not m or m["dtype"] not in _DTYPES:
            raise UsageError(f"--example-batch '{spec}' is not NAME=DTYPE[D0,D1,...][:HIGH] "
                             f"with DTYPE one of {', '.join(_DTYPES)}")
        shape = [int(s) for s in m["shape"].split(",") if s]
        dtype = getattr(torch, _DTYPES[m["dtype"]])
        if dtype.is_floating_point:
            t = torch.randn(shape, generator=g).to(dtype)
        else:
            high = int(m["high"]) if m["high"] else 2
            t = torch.randint(0, high, shape, generator=g).to(dtype)
        names.append(m["name"])
        tensors.append(t)
    return names, tuple(tensors)


def _batch_from(specs, model, seed):
    """(names or None, tensors) of the --example-batch flags."""
    if len(specs) == 1 and specs[0].endswith(".safetensors"):
        from . import safetensors
        from .batch_layout import _positional_names
        if not os.path.isfile(specs[0]):
            raise UsageError(f"--example-batch file '{specs[0]}' does not exist")
        stored = safetensors.load(specs[0])
        wanted = [n for n in _positional_names(model.forward) if n in stored]
        if not wanted:
            wanted = list(stored)
        return wanted, tuple(stored[n] for n in wanted)
    if len(specs) == 1 and ".py:" in specs[0]:
        made = _load_callable(specs[0], "--example-batch")()
        return None, tuple(made) if isinstance(made, (tuple, list)) else (made,)
    return _random_batch(specs, seed)


def _parser():
    ap = argparse.ArgumentParser(
        prog="tfc-import-torch",
        description="Trace a PyTorch model's loss into a tfc .mlir module (function @loss) "
                    "and write its initial weights as safetensors.",
        epilog=__doc__.split("\n\n", 2)[2] if __doc__.count("\n\n") >= 2 else None,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", nargs="?", help="FILE.py:NAME returning the model (see below)")
    ap.add_argument("-o", "--output", help="the .mlir file to write ('-': stdout)")
    ap.add_argument("--weights", help="write the initial parameters here (safetensors)")
    ap.add_argument("--example-batch", action="append", default=[], metavar="SPEC",
                    help="the example batch (see below); repeatable")
    ap.add_argument("--batch-out", metavar="FILE",
                    help="write the example batch here (safetensors)")
    ap.add_argument("--feed", metavar="FILE",
                    help="write parameters, model state and example batch in one "
                         "safetensors file (what `tfc-run --inputs` takes)")
    ap.add_argument("--function", default="loss", help="name of the function (default: loss)")
    ap.add_argument("--input-names", help="comma-separated names of the batch tensors")
    ap.add_argument("--seed", type=int, default=0, help="seed of random example batches (0)")
    ap.add_argument("--no-patterns", action="store_true",
                    help="keep decomposed forms (no rms_norm/cross_entropy/attention)")
    ap.add_argument("--no-locations", action="store_true",
                    help="omit the MLIR locations pointing at the Python source")
    ap.add_argument("--list-ops", action="store_true",
                    help="print the supported aten ops and exit")
    return ap


def main(argv=None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    prog = "tfc-import-torch"
    try:
        import tfc_torch
        if args.list_ops:
            print("\n".join(tfc_torch.supported_ops()))
            return 0
        if not args.model or not args.output:
            raise UsageError("MODEL and -o OUTPUT are required (see --help)")
        import torch
        made = _load_callable(args.model, "MODEL")()
        model, batch, loss_fn = made, None, None
        if isinstance(made, (tuple, list)):
            model = made[0]
            batch = tuple(made[1]) if len(made) > 1 and made[1] is not None else None
            loss_fn = made[2] if len(made) > 2 else None
        if not isinstance(model, torch.nn.Module):
            raise UsageError(f"{args.model} returned a {type(model).__name__}, not an nn.Module")
        names = args.input_names.split(",") if args.input_names else None
        if args.example_batch:
            spec_names, batch = _batch_from(args.example_batch, model, args.seed)
            names = names or spec_names
        if batch is None:
            raise UsageError(f"{args.model} returned no example batch: pass --example-batch")
        exported = tfc_torch.import_module(model, batch, loss_fn, input_names=names,
                                           function_name=args.function,
                                           patterns=not args.no_patterns,
                                           locations=not args.no_locations)
    except UsageError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    except ImportError as e:
        print(f"{prog}: cannot import {e.name or e} (run it with a Python that has torch, "
              f"e.g. /usr/bin/python3)", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - FrontendError and the user's own exceptions
        from tfc_torch import FrontendError
        if isinstance(e, FrontendError):
            lines = str(e).splitlines()
            print(f"{prog}: error: {lines[0]}", file=sys.stderr)
            for line in lines[1:]:
                print(line, file=sys.stderr)
            return 1
        raise
    if args.output == "-":
        sys.stdout.write(exported.mlir)
    else:
        exported.save(args.output)
    if args.weights:
        exported.save_weights(args.weights)
    if args.batch_out:
        exported.save_inputs(args.batch_out)
    if args.feed:
        exported.save_feed(args.feed)
    fired = ", ".join(f"{k} {v}" for k, v in exported.patterns.items()
                      if v and k not in ("canonicalize", "legalize"))
    written = ["stdout" if args.output == "-" else args.output]
    written += [p for p in (args.weights, args.batch_out, args.feed) if p]
    print(f"{prog}: wrote {', '.join(written)}: @{args.function} with "
          f"{len(exported.params)} parameters, inputs {', '.join(exported.inputs)}"
          + (f"; patterns: {fired}" if fired else ""), file=sys.stderr)
    return 0
