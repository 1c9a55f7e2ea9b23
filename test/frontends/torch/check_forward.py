"""The inference-forward import (tfc_torch.export.import_forward): each
model's output, a tensor or a pytree of tensors, imported as `@forward`
with one `{tfc.output = "output"}` / `"output.<i>"` result per leaf, run
by `tfc-run --function forward`, must equal the PyTorch model's output.

Usage: check_forward.py --tfc-run BIN [--case NAME ...] [--device host|cuda]
                        [--keep DIR]
The model families of models/ (nanogpt, llama, bert, the MLP classifiers)
run without their loss: their logits (and hidden states), with and without
pattern recognition ("/decomposed"; with it, the patterns check_models.py
expects but the cross-entropy must fire). Small modules return a tuple, a dict,
integer leaves (argmax, argmin with ties and NaN, a count), uint8 leaves of
a uint8 image input, int16 / int8 leaves of an int16 input, and parameters, inputs and buffers as they are;
plain values among the tensors (nanoGPT's `logits, None` at inference,
numbers, strings) kept as constants, and HF's ModelOutput (a dataclass
subclassing OrderedDict), a dataclass and an OrderedDict subclass rebuilt
as their own classes (these also through tfc_torch.compile). Float outputs must match within 1e-4 of
their largest magnitude (as check_models.py's gradients: f32 sums in
another order than PyTorch's), integer and boolean outputs exactly. The
error cases check the messages for outputs tfc cannot return (objects,
no tensors; pointing at the return that returned them), the hint for a
buffer forward registers, and that the loss import keeps its own. Prints one line per case.
Exit codes: 0 pass, 1 failure, 77 device unavailable.
"""
import dataclasses
import os
import subprocess
import sys
import types
from collections import OrderedDict
from typing import Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_models  # noqa: E402  (sets up the import path of tfc_torch)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from models.ops.gradient import XSoftmax  # noqa: E402

SKIP = 77
RTOL, ATOL = check_models.GRAD_RTOL, 1e-6


# -- the model families without their loss ------------------------------------------------
# Each family's model has its forward up to the loss as a method; it
# replaces forward on the instance (so parameter names, tied weights and
# buffers stay those of the family), and the batch tensors only the loss
# read are dropped.

# family -> (method: the forward without the loss, leading batch tensors it takes)
FAMILY_FORWARDS = {
    "nanogpt": ("logits", 1),
    "llama": ("logits", 1),
    "bert": ("outputs", 3),              # hidden states, pooled, logits
    "mlp-sequential": (None, 1),         # nn.Sequential returns the logits already
    "mlp-log-softmax": ("outputs", 1),   # a list: log-probabilities, regression
}


def load_family(name):
    model, batch, _ = check_models.load_family(name)
    method, argc = FAMILY_FORWARDS[name]
    if method is not None:
        model.forward = getattr(model, method)
    return model.eval(), batch[:argc]


# -- small modules --------------------------------------------------------------------------

def _g(seed):
    return torch.Generator().manual_seed(seed)


class TupleOut(nn.Module):
    """A nested tuple/list of float tensors."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 16)
        self.fc2 = nn.Linear(16, 6)

    def forward(self, x):
        h = F.gelu(self.fc1(x))
        y = self.fc2(h)
        return y, (h.mean(-1), [F.softmax(y, dim=-1), y.sum()])


class DictOut(nn.Module):
    """A dict (keys in insertion order, not sorted) with a nested dict."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(10)
        self.head = nn.Linear(10, 4)

    def forward(self, x, scale):
        h = self.norm(x) * scale
        logits = self.head(h)
        return {"logits": logits, "aux": {"probs": logits.softmax(-1), "h": h},
                "entropy": -(logits.log_softmax(-1) * logits.softmax(-1)).sum(-1)}


class IntegerOut(nn.Module):
    """Integer leaves: argmax / argmin along a dim (ties pick the first,
    NaN counts as the largest and the smallest), over all elements, keepdim,
    and a count; max/min(dim), topk (largest and smallest) and a stable
    sort (values and indices, same ties and NaN); the float logits beside
    them."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 5)

    def forward(self, x, scores):
        logits = self.fc(x)
        # torch's topk orders ties as its partial sort leaves them: no ties.
        distinct = torch.where(scores.isnan(), scores, scores + torch.arange(5.0) * 0.01)
        return (logits, scores.argmax(-1), scores.argmin(dim=0), scores.argmax(),
                scores.argmin(1, keepdim=True), (logits > 0).sum(-1), logits > 0,
                scores.max(dim=-1), scores.min(dim=0, keepdim=True),
                distinct.topk(3), distinct.topk(2, dim=0, largest=False),
                torch.sort(scores, dim=1, stable=True),
                torch.sort(scores, dim=0, descending=True, stable=True))


class Uint8Image(nn.Module):
    """uint8 in and out (an image's pixels): the input returned as it is,
    arithmetic wrapping modulo 256 as torch's (tfc computes uint8 in i32),
    a float result converted back, a sum (int64), a constant."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, img):
        y = (self.fc(img.float() / 255) * 255).clamp(0, 255).byte()
        return (y, img, img + 100, img * 3 - 7, (img * 2).sum(),
                torch.tensor([1, 2], dtype=torch.uint8))


class Int16Pcm(nn.Module):
    """int16 in and out (16-bit PCM audio): tfc computes int8 / int16 in
    i32, wrapping into their range as torch's (pcm + 20000, pcm * 3,
    -(-32768) and abs(-32768) stay -32768, a cast to int8), a float result
    converted back, a floor division and a sum (int64)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, pcm):
        y = (self.fc(pcm.float() / 32768) * 1000).to(torch.int16)
        # (Read as floats: an int16 output is cast back, which would hide a
        # missing wrap.)
        wrapped = torch.stack([pcm + 20000, pcm * 3, -pcm, pcm.abs(), pcm.to(torch.int8)])
        return (y, pcm, wrapped.float(), pcm // 7, (pcm * 2).sum(), pcm.to(torch.int8))


def _pcm():
    pcm = torch.randint(-32768, 32768, (4, 3), generator=_g(11), dtype=torch.int16)
    pcm[0, 0] = -32768
    return pcm


class RequiresGradReads(nn.Module):
    """requires_grad read in forward: an imported forward computes no
    gradient, so every read answers false, as under torch.no_grad() (the
    reference's mode); each flag would double a term."""

    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(3, 3).requires_grad_(False)
        self.head = nn.Linear(3, 3)

    def forward(self, x):
        f = self.backbone(x)
        h = self.head(f)
        z = torch.zeros_like(h)
        return (f * 2 if f.requires_grad else f) + (h * 2 if h.requires_grad else h) + \
            (z + 1 if z.requires_grad else z)


class _SortWithIndices(torch.autograd.Function):
    """Two differentiable outputs (Reformer's ReverseSort has two)."""

    @staticmethod
    def forward(ctx, x, y):
        order = x.argsort(-1)
        ctx.save_for_backward(order)
        return x.gather(-1, order), y.gather(-1, order)

    @staticmethod
    def backward(ctx, gx, gy):
        (order,) = ctx.saved_tensors
        back = order.argsort(-1)
        return gx.gather(-1, back), gy.gather(-1, back)


class CustomFunctionForward(nn.Module):
    """An imported forward runs no backward: Functions whose backward a
    training import refuses (mixing elements, several differentiable
    outputs) give their forward values (they were refused here too)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x, mask):
        h = self.fc(x)
        sorted_h, sorted_x = _SortWithIndices.apply(h, x)
        return XSoftmax.apply(h, mask, -1), sorted_h - sorted_x


def _integer_batch():
    x = torch.randn(4, 6, generator=_g(7))
    scores = torch.tensor([[1.0, 3.0, 3.0, 0.0, -1.0],
                           [2.0, 2.0, 2.0, 2.0, 2.0],
                           [0.0, float("nan"), 5.0, -7.0, -7.0],
                           [-1.0, -4.0, 0.5, 0.5, -4.0]])
    return x, scores


class Passthrough(nn.Module):
    """Outputs that are no op's result: an input, a parameter, a buffer
    (folded: a constant), an input twice, and a computed value."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 3)
        self.register_buffer("table", torch.arange(6.0).view(2, 3))

    def forward(self, x, tokens):
        return {"x": x, "weight": self.fc.weight, "table": self.table, "y": self.fc(x),
                "tokens": tokens, "again": x}


class Identity(nn.Module):
    """forward returns its input: the single output "output"."""

    def forward(self, x):
        return x


class ParamOnly(nn.Module):
    """forward returns a parameter (its input unused)."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3, 4, generator=_g(9)))

    def forward(self, x):
        return self.w


class Resample(nn.Module):
    """ops/resample.py's values: interpolation on awkward sizes (7 -> 16,
    5 -> 3, scale factors 1.7 and 1.1), every mode, an infinity (torch's
    NaN where a row is weighed by 0), padding modes, adaptive pooling,
    pixel and channel shuffles (channel_shuffle has no derivative in torch
    1.13, so check_ops cannot cover it)."""

    def forward(self, x, inf):                          # [2, 4, 7, 5], [1, 1, 4, 5]
        up = F.interpolate
        v = x.view(2, 2, 2, 7, 5)
        return (up(x, size=(16, 3)), up(x, scale_factor=(1.1, 1.7)),
                up(x, size=(3, 16), mode="nearest-exact"), up(v, scale_factor=1.7),
                up(x[:, :, 0], size=16, mode="linear"),
                up(x, size=(16, 3), mode="bilinear", align_corners=True),
                up(x, scale_factor=1.7, mode="bilinear"),
                up(v, size=(3, 8, 4), mode="trilinear"), up(x, size=(16, 3), mode="bicubic"),
                up(x, scale_factor=1.7, mode="bicubic", align_corners=True),
                up(inf, size=(4, 3), mode="bilinear"), up(inf, size=(4, 7), mode="bicubic"),
                F.pad(x, (4, 2, 1, 6), mode="reflect"),
                F.pad(v, (1, 2, 3, 0, 2, 1), mode="replicate"),
                F.adaptive_avg_pool2d(x, (3, 4)), F.adaptive_max_pool2d(x, (4, 3)),
                F.adaptive_avg_pool3d(v, (1, 3, 2)), F.pixel_shuffle(x, 2),
                F.pixel_unshuffle(x[..., :6, :4], 2), F.channel_shuffle(x, 2),
                nn.ChannelShuffle(2)(v))


def _resample_batch():
    inf = torch.zeros(1, 1, 4, 5)
    inf[0, 0, 1, 2] = float("inf")
    return torch.randn(2, 4, 7, 5, generator=_g(10)), inf


# case -> factory of (model, example batch, the output names expected)
class TorchTransformer(nn.Module):
    """torch's own blocks in eval mode, where they would take their fused
    inference fast paths (_transformer_encoder_layer_fwd,
    _native_multi_head_attention): the trace must record the standard ops."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        self.attn = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x):
        h = self.encoder(x)
        out, weights = self.attn(h, h, h)
        return out, weights


class LogitsAndLoss(nn.Module):
    """nanoGPT / minGPT at inference: `logits, loss = model(idx)` with the
    loss None when no targets are given; plain values beside the tensors
    (a number, a string, a bool, a dtype) come back as the trace saw them."""

    def __init__(self):
        super().__init__()
        self.lm_head = nn.Linear(4, 5)

    def forward(self, idx, targets=None):
        logits = self.lm_head(idx)
        loss = None if targets is None else F.cross_entropy(logits, targets)
        return logits, loss, {"n": idx.shape[0], "tag": "lm", "ok": True,
                              "dtype": logits.dtype, "scale": 0.5}


@dataclasses.dataclass
class ClsOutput(OrderedDict):
    """HF's ModelOutput form: a dataclass subclassing OrderedDict whose
    dict holds the fields that are not None."""
    loss: Optional[torch.Tensor] = None
    logits: Optional[torch.Tensor] = None
    hidden_states: Optional[Tuple[torch.Tensor, ...]] = None

    def __post_init__(self):
        for key, value in vars(self).items():
            if value is not None:
                self[key] = value


@dataclasses.dataclass
class Detections:
    """A plain dataclass with a field the constructor does not take."""
    boxes: torch.Tensor
    scores: torch.Tensor
    count: int = 0
    label: str = dataclasses.field(default="", init=False)


class Features(OrderedDict):
    """An OrderedDict subclass (torchvision's IntermediateLayerGetter
    returns an OrderedDict; subclasses add methods)."""

    def first(self):
        return next(iter(self.values()))


class StructuredOut(nn.Module):
    """HF- and detection-style outputs rebuilt as their own classes."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        h = self.fc(x)
        det = Detections(h[:, :2], h.softmax(-1), count=x.shape[0])
        det.label = "cls"
        return (ClsOutput(logits=h, hidden_states=(x, h.tanh())), det,
                Features([("p2", h * 2), ("p3", None)]))


def _small_cases():
    return {
        "tuple": lambda: (TupleOut(), (torch.randn(3, 10, generator=_g(1)),)),
        "dict": lambda: (DictOut(), (torch.randn(2, 5, 10, generator=_g(2)),
                                     torch.rand(2, 5, 1, generator=_g(3)) + 0.5)),
        "integer": lambda: (IntegerOut(), _integer_batch()),
        "passthrough": lambda: (Passthrough(), (torch.randn(4, 5, generator=_g(4)),
                                                torch.randint(0, 9, (4, 2), generator=_g(5)))),
        "identity": lambda: (Identity(), (torch.randn(2, 3, generator=_g(6)),)),
        "param": lambda: (ParamOnly(), (torch.randn(2, 3, generator=_g(8)),)),
        "torch-transformer": lambda: (TorchTransformer(),
                                      (torch.randn(2, 5, 8, generator=_g(9)),)),
        "resample": lambda: (Resample(), _resample_batch()),
        "requires-grad-reads": lambda: (RequiresGradReads(),
                                        (torch.randn(2, 3, generator=_g(11)),)),
        "custom-function-forward": lambda: (CustomFunctionForward(), (
            torch.randn(3, 6, generator=_g(14)), torch.tensor([[1, 1, 1, 0, 0, 0], [1] * 6,
                                                               [1, 0, 1, 0, 1, 1]]))),
        "constant-leaves": lambda: (LogitsAndLoss(), (torch.randn(2, 4, generator=_g(12)),)),
        "structured": lambda: (StructuredOut(), (torch.randn(3, 4, generator=_g(13)),)),
        "uint8": lambda: (Uint8Image(), (torch.randint(0, 256, (4, 3), generator=_g(10),
                                                       dtype=torch.uint8),)),
        "int16": lambda: (Int16Pcm(), (_pcm(),)),
    }


SMALL = _small_cases()
RUN_CASES = (sorted(FAMILY_FORWARDS) + sorted(f"{f}/decomposed" for f in FAMILY_FORWARDS)
             + sorted(SMALL))


def model_for(case):
    name = case.split("/")[0]
    torch.manual_seed(0)
    if name in FAMILY_FORWARDS:
        return load_family(name)
    model, batch = SMALL[name]()
    return model.eval(), batch


def compare(name, got, want):
    """None when tfc's output `got` equals torch's `want`, else how not."""
    if got is None:
        return f"{name} missing from tfc-run's outputs"
    if tuple(got.shape) != tuple(want.shape) or got.dtype != want.dtype:
        return (f"{name} is {got.dtype} {list(got.shape)}, torch's "
                f"{want.dtype} {list(want.shape)}")
    if not want.is_floating_point():
        if not torch.equal(got, want):
            return f"{name} differs: {got.tolist()} != {want.tolist()}"
        return None
    err, scale = check_models.error_and_scale(got, want)  # NaN-aware
    if not err <= RTOL * scale + ATOL:
        return f"{name}: max |diff| {err:.3e} (max |value| {scale:.3e})"
    return None


# Cases also run through tfc_torch.compile (in process), its output
# compared with the module's: classes, constants and values.
COMPILED = {"constant-leaves", "structured", "dict", "int16"}


def same_structure(got, want, what):
    """[] when `got` has `want`'s structure (the same classes, container by
    container, and the same constant leaves), else the problem."""
    import tfc_torch
    got_leaves, got_spec = tfc_torch.outputs.flatten(got)
    want_leaves, want_spec = tfc_torch.outputs.flatten(want)
    if got_spec != want_spec:
        return [f"{what} has the structure {got_spec}, the model's {want_spec}"]

    def classes(x):
        out = [torch.Tensor if isinstance(x, torch.Tensor) else type(x)]
        if isinstance(x, dict):
            out += [c for v in x.values() for c in classes(v)]
        elif isinstance(x, (list, tuple)):
            out += [c for v in x for c in classes(v)]
        elif dataclasses.is_dataclass(x):
            out += [c for f in dataclasses.fields(x) for c in classes(getattr(x, f.name))]
        return out
    if classes(got) != classes(want):
        return [f"{what} is made of {classes(got)}, the model's of {classes(want)}"]
    for i, (g, w) in enumerate(zip(got_leaves, want_leaves)):
        if not isinstance(w, torch.Tensor) and (type(g) is not type(w) or g != w):
            return [f"{what}: leaf {i} is {g!r}, the model's {w!r}"]
    if isinstance(want, dict) and list(got.keys()) != list(want.keys()):
        return [f"{what}: its dict holds {list(got)}, the model's {list(want)}"]
    return []


def check_run(case, tfc_run, device, workdir):
    import tfc_torch
    from tfc_torch.export import import_forward
    patterns = not case.endswith("/decomposed")
    model, batch = model_for(case)
    with torch.no_grad():
        want = model(*batch)
    # tfc_torch.outputs flattens dataclasses and dict subclasses too, and
    # keeps the leaves that are no tensors as constants.
    all_leaves, want_spec = tfc_torch.outputs.flatten(want)
    constants = {i: x for i, x in enumerate(all_leaves) if not isinstance(x, torch.Tensor)}
    want_leaves = [x for x in all_leaves if isinstance(x, torch.Tensor)]
    exported = import_forward(model, batch, patterns=patterns)

    # The API: names, structure, arguments as for the loss import.
    names = (["output"] if isinstance(want, torch.Tensor)
             else [f"output.{i}" for i in range(len(all_leaves)) if i not in constants])
    if exported.outputs != names:
        return f"outputs {exported.outputs}, expected {names}"
    if exported.output_spec != want_spec:
        return f"output_spec {exported.output_spec} != the model's {want_spec}"
    header = [line for line in exported.mlir.splitlines() if line.startswith("func.func")][0]
    if not header.startswith("func.func @forward("):
        return f"the function is not @forward: {header}"
    for name in names:
        if f'{{tfc.output = "{name}"}}' not in exported.mlir:
            return f'no {{tfc.output = "{name}"}} result in the module'
    state = model.state_dict()
    for key, tensor in exported.params.items():
        if key not in state or not torch.equal(state[key], tensor):
            return f"parameter {key} is not the state_dict's"
        if f'{{tfc.param = "{key}"}}' not in exported.mlir:
            return f"parameter {key} has no tfc.param argument"
    family = case.split("/")[0]
    if patterns and family in check_models.FAMILIES:
        # What the loss import recognizes, but the loss's cross-entropy.
        expected = {k: v for k, v in check_models.FAMILIES[family][2].items()
                    if k != "cross_entropy"}
        for pattern, count in expected.items():
            if exported.patterns.get(pattern, 0) != count:
                return (f"pattern {pattern} fired {exported.patterns.get(pattern, 0)} times, "
                        f"expected {count}")
    if family == "nanogpt":
        if exported.aliases != {"lm_head.weight": "transformer.wte.weight"}:
            return f"nanoGPT's tied embedding: aliases {exported.aliases}"
        if "transformer.h.0.attn.bias" not in exported.buffers:
            return f"nanoGPT's causal-mask buffers are not folded: {exported.buffers}"

    stem = os.path.join(workdir, case.replace("/", "-"))
    exported.save(stem + ".mlir")
    feed = stem + "-in.safetensors"
    exported.save_feed(feed)
    out = stem + "-out.safetensors"
    cmd = [tfc_run, stem + ".mlir", "--function", "forward", "--device", device,
           "--inputs", feed, "--outputs", out, "--quiet"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return f"tfc-run failed: {proc.stderr.strip()[-2000:]}"
    got = tfc_torch.safetensors.load(out)
    if set(got) != set(names):
        return f"tfc-run wrote {sorted(got)}, expected {names}"
    # int8 / int16 outputs are i32 in the program (tfc-run writes them so).
    got = {n: g.to(exported.narrow_outputs[n]) if n in exported.narrow_outputs else g
           for n, g in got.items()}
    problems = [p for p in (compare(n, got.get(n), w) for n, w in zip(names, want_leaves)) if p]
    rebuilt = exported.rebuild_output([got[n] for n in names])
    problems += same_structure(rebuilt, want, "rebuild_output of tfc-run's results")
    if case in COMPILED:
        # tfc_torch.compile: the module's own output classes and constants.
        out = tfc_torch.compile(model, batch, device=device)(*batch)
        problems += same_structure(out, want, "tfc_torch.compile's output")
        problems += [p for p in (compare(f"compiled {n}", g, w) for n, g, w in zip(
            names, [x for x in tfc_torch.outputs.flatten(out)[0]
                    if isinstance(x, torch.Tensor)], want_leaves)) if p]
    kinds = sorted({str(w.dtype).replace("torch.", "") for w in want_leaves})
    print(f"  {case}: {len(names)} output(s) ({', '.join(kinds)}), "
          f"{len(exported.params)} params, inputs {', '.join(exported.inputs) or '-'}")
    return "; ".join(problems) or None


# -- errors ----------------------------------------------------------------------------------

class ReturnsObject(nn.Module):
    """An object that is no container tfc rebuilds (nor a plain value)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x), types.SimpleNamespace(y=x)  # error here


class ReturnsObjectTwoReturns(nn.Module):
    """Two returns: the error points at the one whose form fits the
    output (a dict of these keys)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        if x.shape[0] > 100:
            return None
        return {"y": self.fc(x), "extra": self.fc}  # error here


class ReturnsNothing(nn.Module):
    def forward(self, x):
        return ()  # error here


class CacheBufferInForward(nn.Module):
    """x-transformers' AlibiPositionalBias: a None buffer that forward
    registers on its first call (a cache): the hint is to call the model
    once eagerly, not to register zeros (which breaks `exists(self.bias)`)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.register_buffer("bias", None, persistent=False)

    def forward(self, x):
        if self.bias is None:
            self.register_buffer("bias", -torch.arange(4.0), persistent=False)
        return self.fc(x + self.bias)


class LossOfTuple(nn.Module):
    """The loss import of a module returning two values keeps its error."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        h = self.fc(x)
        return h.sum(), h.mean()


def _def_line(cls):
    import inspect
    lines, first = inspect.getsourcelines(cls.forward)
    marked = [i for i, line in enumerate(lines) if "# error here" in line]
    return first + marked[0] if marked else first  # else the def line


# case -> (model class, loss import?, error class name, substrings, expected line or None)
ERROR_CASES = {
    "error/object": (ReturnsObject, False, "ModelError",
                     ["output output.1 is a SimpleNamespace, not a tensor",
                      "return the tensors an object holds"], _def_line(ReturnsObject)),
    "error/object-two-returns": (ReturnsObjectTwoReturns, False, "ModelError",
                                 ["output output.1 is a Linear, not a tensor"],
                                 _def_line(ReturnsObjectTwoReturns)),
    "error/nothing": (ReturnsNothing, False, "ModelError", ["returns no tensors"],
                      _def_line(ReturnsNothing)),
    "error/cache-buffer": (CacheBufferInForward, False, "ModelError",
                           ["sets buffer bias (None before)",
                            "call the model once eagerly before compiling"], None),
    "error/loss-of-tuple": (LossOfTuple, True, "ModelError",
                            ["the traced function returns 2 values; it must return the "
                             "scalar loss alone", "loss_fn=lambda out, *args: out[i]"], None),
}


def check_error(case):
    import tfc_torch
    from tfc_torch.export import import_forward
    cls, loss, kind, needles, line = ERROR_CASES[case]
    x = torch.randn(3, 4, generator=_g(0))
    try:
        if loss:
            tfc_torch.import_module(cls(), (x,))
        else:
            import_forward(cls(), (x,))
    except tfc_torch.FrontendError as e:
        text = str(e)
        if type(e).__name__ != kind:
            return f"raised {type(e).__name__}, expected {kind}: {text}"
        missing = [n for n in needles if n not in text]
        if missing:
            return f"message lacks {missing}: {text}"
        if line is not None:
            where = f"{os.path.abspath(__file__)}:{line}"
            if e.frame is None or f"{os.path.abspath(e.frame.file)}:{e.frame.line}" != where:
                return f"points at {e.frame}, expected {where}: {text}"
        print(f"  {case}: {text.splitlines()[0]}")
        return None
    return "imported without an error"


CASES = RUN_CASES + sorted(ERROR_CASES)


def check_case(case, tfc_run, device, workdir):
    if case in ERROR_CASES:
        return check_error(case)
    return check_run(case, tfc_run, device, workdir)


def main():
    return check_models.run_cases(__doc__, CASES, check_case, "tfc-forward-")


if __name__ == "__main__":
    sys.exit(main())
