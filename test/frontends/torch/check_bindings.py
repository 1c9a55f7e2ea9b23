"""Which batch tensors forward gets with a loss_fn (batch_layout.py): the
loss is loss_fn(model(*batch[:k]), *batch), torch's `loss_fn(model(x), y)`.
forward gets its parameters without default; one with a default (a
seq2seq's target=None, an LSTM's hidden=None, TSLib's mask=None) only the
batch tensor that loss_fn's parameters or input_names name as it, and a
tensor that could fill it with no name saying anything warns
(BatchBindingWarning). Each case traces a loss (tfc_torch.import_module) and
checks what forward received, the inputs' names and the warnings.

Usage: check_bindings.py   (no tfc build needed; exit 0 pass, 1 failure)
"""
import functools
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "frontends", "torch"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import tfc_torch  # noqa: E402
from tfc_torch.batch_layout import BatchBindingWarning  # noqa: E402

SEEN = {}


class Seq2Seq(nn.Module):
    """Teacher forcing when given a target (the probe's forecaster)."""

    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(1, 8)
        self.out = nn.Linear(8, 1)

    def forward(self, x, target=None):
        SEEN["target"] = target is not None
        h = torch.zeros(x.shape[0], 8)
        inp, preds = x[:, -1:], []
        for t in range(3):
            h = self.cell(inp, h)
            p = self.out(h)
            preds.append(p)
            inp = target[:, t:t + 1] if target is not None else p
        return torch.cat(preds, 1)


class LSTMForecaster(nn.Module):
    """The tutorial forecaster: forward(x, hidden=None)."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(1, 8, batch_first=True)
        self.fc = nn.Linear(8, 1)

    def forward(self, x, hidden=None):
        SEEN["hidden"] = hidden is not None
        out, _ = self.lstm(x, hidden)
        return self.fc(out[:, -1])


class Masked(nn.Module):
    """TSLib's forward(x_enc, x_mark_enc, mask=None)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x_enc, x_mark_enc, mask=None):
        SEEN["mask"] = mask is not None
        h = self.fc(x_enc + x_mark_enc)
        return h if mask is None else h * mask


def _seq():
    g = torch.Generator().manual_seed(1)
    return Seq2Seq(), (torch.randn(4, 6, generator=g), torch.randn(4, 3, generator=g))


def _lstm():
    g = torch.Generator().manual_seed(2)
    return LSTMForecaster(), (torch.randn(4, 5, 1, generator=g), torch.randn(4, 1, generator=g))


def _masked(with_mask=True):
    g = torch.Generator().manual_seed(3)
    b = [torch.randn(2, 4, generator=g), torch.randn(2, 4, generator=g)]
    if with_mask:
        b.append(torch.ones(2, 3))
    return Masked(), tuple(b + [torch.randn(2, 3, generator=g)])


def _bilinear():
    g = torch.Generator().manual_seed(4)
    return nn.Bilinear(4, 4, 3), tuple(torch.randn(2, n, generator=g) for n in (4, 4, 3))


def mse(out, *batch):
    return F.mse_loss(out, batch[-1])


class Wrapper(nn.Module):
    """A wrapper passing its arguments on: forward(self, *args, **kwargs)."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, *args, **kwargs):
        return self.inner(*args, **kwargs)


def _wrapped_seq():
    model, batch = _seq()
    return Wrapper(model), batch


def _logits():
    g = torch.Generator().manual_seed(5)
    return nn.Linear(4, 3), (torch.randn(2, 4, generator=g),
                             (torch.rand(2, 3, generator=g) > 0.5).float())


def _classes():
    g = torch.Generator().manual_seed(6)
    return nn.Linear(4, 3), (torch.randn(2, 4, generator=g), torch.tensor([0, 2]))


def weighted(out, x, y, w=None):
    return F.mse_loss(out * (1 if w is None else w), y)


def _weighted():
    g = torch.Generator().manual_seed(7)
    return nn.Linear(4, 3), tuple(torch.randn(2, n, generator=g) for n in (4, 3, 3))


# name -> (factory, loss_fn, input_names, what forward must receive
#          {parameter: passed}, the inputs' names, whether it warns)
CASES = {
    "target-not-named": (_seq, lambda out, x, y: F.mse_loss(out, y), None,
                         {"target": False}, ["x", "y"], False),
    "target-named": (_seq, lambda out, x, target: F.mse_loss(out, target), None,
                     {"target": True}, ["x", "target"], False),
    "target-in-input-names": (_seq, mse, ["x", "target"], {"target": True},
                              ["x", "target"], False),
    "target-unnamed-warns": (_seq, mse, None, {"target": False}, ["x", "arg1"], True),
    "lstm-hidden-not-named": (_lstm, lambda out, x, y: F.mse_loss(out, y), None,
                              {"hidden": False}, ["x", "y"], False),
    "mask-named": (_masked, lambda out, x_enc, x_mark_enc, mask, y: F.mse_loss(out, y), None,
                   {"mask": True}, ["x_enc", "x_mark_enc", "mask", "y"], False),
    "mask-unnamed-warns": (lambda: _masked(False), mse, None, {"mask": False},
                           ["x_enc", "x_mark_enc", "arg2"], True),
    "required-unnamed": (_bilinear, mse, None, {}, ["input1", "input2", "arg2"], False),
    # forward(self, *args) gets the batch less the trailing tensors loss_fn
    # reads (the target stayed in: teacher forcing), all of them with a
    # warning when loss_fn's reads cannot be told (*batch).
    "varargs-target-read-by-loss": (_wrapped_seq, lambda out, x, y: F.mse_loss(out, y), None,
                                    {"target": False}, ["x", "y"], False),
    "varargs-loss-unknown-warns": (_wrapped_seq, mse, None, {"target": True},
                                   ["arg0", "arg1"], True),
    # A loss_fn parameter with a default filled by a batch tensor, named so
    # in input_names: taken as meant.
    "loss-default-named": (_weighted, weighted, ["x", "y", "w"], {}, ["x", "y", "w"], False),
}

# name -> (factory, loss_fn, input_names, what the ModelError must say):
# a torch loss given as loss_fn, called loss_fn(out, x, y), would take x as
# its target and y as its weight (F.binary_cross_entropy_with_logits gave
# 0.327 for torch's 0.691).
ERRORS = {
    "loss-optional-weight": (_logits, F.binary_cross_entropy_with_logits, None,
                             ["'weight'", "batch tensor 1",
                              "lambda out, x, y: F.binary_cross_entropy_with_logits(out, y)"]),
    "loss-partial": (_classes, functools.partial(F.cross_entropy, label_smoothing=0.1), None,
                     ["'weight'", "lambda out, x, y: F.cross_entropy(out, y)"]),
    "loss-default-unnamed": (_weighted, weighted, None, ["'w'", "batch tensor 2"]),
}


def check(name, factory, loss_fn, names, received, inputs, warns):
    torch.manual_seed(0)
    model, batch = factory()
    SEEN.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exported = tfc_torch.import_module(model, batch, loss_fn, input_names=names)
    problems = []
    for param, passed in received.items():
        if SEEN.get(param) != passed:
            problems.append(f"forward's {param} {'was not' if passed else 'was'} passed")
    if list(exported.inputs) != inputs:
        problems.append(f"inputs {list(exported.inputs)}, expected {inputs}")
    binding = [w for w in caught if issubclass(w.category, BatchBindingWarning)]
    if warns and not (len(binding) == 1 and os.path.samefile(binding[0].filename, __file__)):
        problems.append("no BatchBindingWarning at this file's line: "
                        f"{[(str(w.message), w.filename) for w in binding]}")
    if not warns and binding:
        problems.append(f"warned: {binding[0].message}")
    if warns and binding:
        param = next(iter(received))
        text = str(binding[0].message)
        if name.startswith("varargs"):
            param = "*args"   # the wrapper's parameter, not the inner one's
        if f"'{param}'" not in text or "loss_fn(model(x), y)" not in text:
            problems.append(f"the warning does not name '{param}': {text}")
    return problems


def check_error(name, factory, loss_fn, names, needles):
    torch.manual_seed(0)
    model, batch = factory()
    try:
        tfc_torch.import_module(model, batch, loss_fn, input_names=names)
    except tfc_torch.ModelError as e:
        text = f"{e}"
        return [f"the error lacks {n!r}: {text}" for n in needles if n not in text]
    return ["imported without an error"]


def main():
    failures = 0
    for name, case in CASES.items():
        try:
            problems = check(name, *case)
        except tfc_torch.FrontendError as e:
            problems = [f"{type(e).__name__}: {str(e).splitlines()[0]}"]
        failures += bool(problems)
        print(f"{'FAIL' if problems else 'ok  '} {name}" +
              (f": {'; '.join(problems)}" if problems else ""))
    for name, case in ERRORS.items():
        problems = check_error(name, *case)
        failures += bool(problems)
        print(f"{'FAIL' if problems else 'ok  '} {name}" +
              (f": {'; '.join(problems)}" if problems else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
