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
        if f"'{param}'" not in text or "loss_fn(model(x), y)" not in text:
            problems.append(f"the warning does not name '{param}': {text}")
    return problems


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
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
