"""tfc_torch's errors for models it cannot import: each names the problem
(the aten op, or what in the model's Python is data-dependent), points at
the model's source line (file:line and the code) and says what to change.
Also its warning for in-place buffer updates the compiled program does
not carry out (batch norm's running statistics, spectral norm's power
iteration in a forward import): named, and the module left unchanged by
the import; a loss import carries them as model state instead (also a
batch norm applied twice).

Usage: check_errors.py   (no tfc build needed; exit 0 pass, 1 failure)
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "frontends", "torch"))
MODEL_DIR = os.path.join(HERE, "models")
# The model files, by module name (unsupported_gradients imports Base from
# unsupported).
MODEL_FILES = ("unsupported", "unsupported_gradients")

# model class -> (exception class name, substrings the message must hold)
CASES = {
    "BranchOnValue": ("DataDependentError", ["control flow depends on a tensor's value",
                                             "if h.sum() > 0", "torch.where"]),
    "BooleanMask": ("DataDependentError", ["aten.index.Tensor selects a data-dependent number",
                                           "aten.cumsum.default needs that number",
                                           "h[h > 0].cumsum(0).sum()", "treat its rows apart",
                                           "torch.where(mask, x, 0)"]),
    "SelectionSize": ("DataDependentError", ["number of rows of a masked selection",
                                             "arithmetic on its size", "F.kl_div(",
                                             "mask.sum()"]),
    "SelectionLength": ("DataDependentError", ["number of rows of a masked selection",
                                               "len() of it", "/ len(sel)", "mask.sum()"]),
    "SelectionTransposed": ("DataDependentError", ["number of rows of a masked selection",
                                                   "moved its rows out of dim 0",
                                                   "sel.T.shape[1]"]),
    "MaskWrittenThroughView": ("DataDependentError", ["number of rows of a masked selection",
                                                      "arithmetic on its size",
                                                      "sel.sum() / sel.shape[0]"]),
    "SelectionViewRows": ("DataDependentError", ["number of rows of a masked selection",
                                                 "view with 6 as dim 0",
                                                 "dist[is_pos].view(6, -1)",
                                                 "dist.masked_fill(~is_pos, float('-inf'))"]),
    "QueuePointer": ("DataDependentError", ["control flow depends on a tensor's value",
                                            "ptr = int(self.queue_ptr)",
                                            "self.queue.index_copy_(1, idx, keys.T)",
                                            "self.queue_ptr.add_(bs).remainder_(K)"]),
    "PackedLengthsList": ("DataDependentError", ["control flow depends on a tensor's value",
                                                 "lengths.tolist()",
                                                 "pack_padded_sequence(x, lengths, ...)"]),
    "FunctionAttributeCache": ("ModelError", ["keeps a tensor it created across calls",
                                              "idx[idx >= starts] += 1",
                                              "call the model once eagerly"]),
    "SliceAtTensorStart": ("DataDependentError", ["control flow depends on a tensor's value",
                                                  "h[i, ids[i]:ids[i] + 2]", "x.gather(2"]),
    "TutorialLogSumExp": ("DataDependentError", ["control flow depends on a tensor's value",
                                                 "return idx.item()", "torch.logsumexp"]),
    "Unique": ("DataDependentError", ["aten._unique2.default", "depends on tensor values",
                                      "torch.unique(h.round())"]),
    "NumpyInForward": ("DataDependentError", ["reads a tensor's values into numpy (.numpy())",
                                              "h.detach().numpy()", "torch ops"]),
    "GradientHook": ("ModelError", ["gradient hooks on fc.weight", "max_grad_norm"]),
    "ReturnsLogits": ("ModelError", ["returns tensor<6x4xf32>, not a scalar loss", "loss_fn"]),
    "ComplexLog": ("UnsupportedOpError", ["unsupported PyTorch op aten.log.default",
                                          "complex operand", "torch.log(z)",
                                          "torch.view_as_real(z)"]),
    "ComplexSliceAssignment": ("ModelError", ["in-place write into a complex tensor",
                                              "torch.cat with zeros", "irfft"]),
    "ComplexMaskedSelection": ("UnsupportedOpError", ["aten.index.Tensor", "complex tensor",
                                                      "torch.view_as_real(z)[mask]"]),
    "LongFft": ("UnsupportedOpError", ["unsupported PyTorch op aten._fft_r2c.default",
                                       "a DFT of size 1031", "no factors",
                                       "torch.fft.rfft(self.fc(x), n=1031)"]),
    "EmbeddingMaxNorm": ("ModelError", ["nn.Embedding / F.embedding with max_norm",
                                        "in place", "self.emb(ids)", "drop max_norm"]),
    "ClippingBackward": ("ModelError", ["torch.autograd.Function", "ClippedGradient",
                                        "not linear in the gradient",
                                        "ClippedGradient.apply(self.fc(x))"]),
    "PackedData": ("ModelError", ["reads a packed sequence's .data", "pad_packed_sequence",
                                  "out.data.mean()"]),
    "PackedWithoutTotalLength": ("ModelError", ["pad_packed_sequence without total_length",
                                                "2 in the example, of 3 steps",
                                                "total_length=3"]),
    "CustomFunction": ("ModelError", ["torch.autograd.Function", "MixingBackward",
                                      "elementwise backward only",
                                      "MixingBackward.apply(self.fc(x))"]),
    "LowerBoundAboveExample": ("ModelError", ["torch.autograd.Function", "_LowerBound",
                                              "not m * grad_output", "drawn at random"]),
    "WideClippingBackward": ("ModelError", ["torch.autograd.Function", "_WideClip",
                                            "not m * grad_output"]),
    "AffineBackward": ("ModelError", ["torch.autograd.Function", "DecayingGradient",
                                      "affine backward", "((1 - mask) * w).pow(2).sum()",
                                      "DecayingGradient.apply(self.fc.weight)"]),
    "ClippedStepSize": ("ModelError", ["ClippedStepGradient", "not the sum of c * grad_output",
                                       "ClippedStepGradient.apply(self.fc.weight, self.alpha)"]),
    "BetaDraw": ("ModelError", ["Beta or Dirichlet draw", "no gamma-distributed", "torch.rand",
                                "torch.distributions.Beta(0.4, 0.4).sample()"]),
    "FunctionInTransform": ("ModelError", ["NegatedGradient", "inside a functorch transform",
                                           "NegatedGradient.apply(self.fc(row))"]),
    "PlainTensorRequiresGrad": ("ModelError", ["the tensor w that requires grad",
                                               "no nn.Parameter", "nn.Parameter(w)",
                                               "register it as a buffer"]),
    "GlobalRequiresGrad": ("ModelError", ["the tensor", "LOG_ALPHA that requires grad",
                                          "no nn.Parameter", "nn.Parameter(w)"]),
    "SeedInForward": ("ModelError", ["seeds torch's generator (torch.manual_seed)",
                                     "repeats the same draws", "seed once outside the model",
                                     "batch input"]),
    "CopyUnderNoGrad": ("ModelError", ["in-place copy_ under torch.no_grad()",
                                       "requires grad", "h = h + (new - h).detach()"]),
    "RandomRRelu": ("UnsupportedOpError", ["aten.rrelu_with_noise.default", "random slopes",
                                           "self.act(self.fc(x))", "model.eval()"]),
    "DoubleInterpolation": ("UnsupportedOpError", ["aten.upsample_bilinear2d.vec",
                                                   "interpolation of a float64 tensor",
                                                   "F.interpolate(h, scale_factor=1.5",
                                                   "x.float()"]),
    "UnsizedObserver": ("UnsupportedOpError", [
        "aten._fused_moving_avg_obs_fq_helper_functional.default",
        "buffers are not sized yet", "run the prepared model once in PyTorch"]),
    "NonFusedFakeQuant": ("ModelError", ["non-fused FakeQuantize",
                                         "MovingAverageMinMaxObserver",
                                         "FusedMovingAvgObsFakeQuantize"]),
    "LearnableFakeQuant": ("ModelError", ["_LearnableFakeQuantize",
                                          "_fake_quantize_learnable_per_tensor_affine"]),
    "StridedOutsideView": ("UnsupportedOpError", ["aten.as_strided.default",
                                                  "storage that the input tensor does not cover",
                                                  "h.as_strided((2, 4), (4, 1), 0)",
                                                  ".contiguous()"]),
    "OverlappingStridedWrite": ("UnsupportedOpError", ["aten.as_strided_scatter.default",
                                                       "name some elements more than once"]),
    "AutogradGradInForward": ("ModelError", ["forward takes a derivative with torch.autograd",
                                             "u_x = torch.autograd.grad(u, x",
                                             "u_x = vmap(grad(lambda xi: net(xi).squeeze()))(x)",
                                             "torch.func"]),
    "AutogradGradOfParameter": ("ModelError", ["forward takes a derivative with torch.autograd",
                                               "torch.autograd.grad(loss, self.fc.weight",
                                               "functorch", "grad(lambda w:",
                                               "functional_call(self.learner"]),
    "TorchvisionOp": ("UnsupportedOpError", ["torchvision.roi_align"]),
    "PlainTensorState": ("ModelError", ["plain tensor attribute centers", "in place",
                                         "self.centers.mul_(0.5)",
                                         "self.register_buffer('centers', tensor)"]),
    "PlainHiddenState": ("ModelError", ["plain tensor attribute hidden", "nn.GRU",
                                         "self.rnn(x, self.hidden)",
                                         "self.register_buffer('hidden', tensor)"]),
    "PlainTensorRebound": ("ModelError", ["plain tensor attribute running",
                                           "carries from call to call",
                                           "self.running = 0.5 * self.running",
                                           "self.register_buffer('running', tensor)"]),
    "TensorHookInForward": ("ModelError", ["Tensor.register_hook in forward",
                                            "h.register_hook(lambda g: g * 0.1)",
                                            "custom torch.autograd.Function"]),
    "FrozenLeftInForward": ("ModelError", ["sets requires_grad=False on trainable parameters",
                                            "leaves them frozen",
                                            "freeze them before compiling"]),
    "GeneratorDraw": ("ModelError", ["explicit torch.Generator", "drop generator="]),
    "HessianOfScaled": ("ModelError", ["forward-mode differentiation", "jacrev(jacrev(f))"]),
    "LossInputGradient": ("UnsupportedOpError", [
        "aten.binary_cross_entropy_backward.default", "derivative taken inside forward",
        "not those of other layers or losses"]),
    "BackwardInForward": ("ModelError", ["forward takes a derivative with torch.autograd",
                                         ".backward()", "grad(lambda xa:"]),
    "HeldFlagThenBranch": ("DataDependentError", ["control flow depends on a tensor's value",
                                                  "if torch.any(h > 5)"]),
    "ParameterViewZeroed": ("ModelError", ["writes a trainable parameter in place: 'fc.weight'",
                                           "self.fc.weight.data[:, -1].zero_()"]),
    "FlagInitialized": ("ModelError", ["writes a trainable parameter in place: 'loc'",
                                       "reading the value of initialized",
                                       "data-dependent initialization",
                                       "run one batch eagerly before compiling"]),
    "SparseBuiltInForward": ("ModelError", ["forward builds a tensor without dense storage",
                                            "torch.sparse_coo_tensor(edges", "index_put(",
                                            "pass the sparse tensor as a batch argument"]),
    "RealQuantizeRoundTrip": ("ModelError", ["forward quantizes with aten.quantize_per_tensor",
                                             "0.05, 0, torch.quint8)",
                                             "torch.fake_quantize_per_tensor_affine(x, scale"]),
    "LearnedScalarArgument": ("DataDependentError", ["add takes a Python number", "alpha=",
                                                     "torch.add(x, y, alpha=s) is x + s * y"]),
    "IfAfterAssert": ("DataDependentError", ["control flow depends on a tensor's value",
                                             "if (h > 100).any()", "torch.where"]),
    "NanGuardWarns": ("DataDependentError", ["control flow depends on a tensor's value",
                                             "if torch.isnan(loss)", "cannot branch",
                                             "math.isfinite(float(loss))", "found_inf"]),
    "LoggedItem": ("DataDependentError", ["control flow depends on a tensor's value",
                                          "loss.item():.4f", "log it outside the step",
                                          "placeholder"]),
    "MetricsItem": ("DataDependentError", ["control flow depends on a tensor's value",
                                           "self.stats = {", "register_buffer('epe'",
                                           "step.state_dict()['epe']"]),
    "ItemToComputeWith": ("DataDependentError", ["control flow depends on a tensor's value",
                                                 "log_alpha.exp().item()",
                                                 "self.log_alpha.exp().detach()"]),
    "ReversibleFunction": ("ModelError", ["Function '_Reversible'", "runs torch's autograd "
                                          "itself", "torch.utils.checkpoint.checkpoint",
                                          "y1 = x1 + f(x2)"]),
    "LazyUninitialized": ("ModelError", ["lazy module 'fc' (LazyLinear) has no parameters",
                                         "self.fc(x)", "run one forward eagerly"]),
    "LazyBufferUninitialized": ("ModelError", ["lazy module 'bn' (LazyBatchNorm1d) has no "
                                               "parameters or buffers yet", "self.bn(",
                                               "run one forward eagerly"]),
}


def marked_lines():
    """class name -> "file:line" of its `# error here` comments (and of
    `# error here (ClassName)` comments elsewhere): the error may point at
    any of them (torch versions differ in where they stop)."""
    found = {}
    for module in MODEL_FILES:
        path, current = os.path.join(MODEL_DIR, module + ".py"), None
        with open(path) as f:
            for number, line in enumerate(f, start=1):
                if line.startswith("class "):
                    current = line.split()[1].split("(")[0]
                if "# error here" in line:
                    # "# error here (Model)": a line outside the model's class.
                    named = line.split("# error here", 1)[1].strip()
                    key = named.strip("()") if named.startswith("(") else current
                    found.setdefault(key, []).append(f"{path}:{number}")
    return found


def check_update_warnings():
    """(name, problem or None) per model: a forward import (import_forward)
    of training-mode batch norm or spectral norm warns with the buffers they
    update (it does not carry them) and leaves them as they were; a loss
    import carries them as model state (tfc.state arguments, their updates
    returned after the loss) and does not warn, a batch norm applied twice
    included (its second update starts from the first); eval-mode batch
    norm does not warn."""
    import warnings
    import torch
    import torch.nn as nn
    import tfc_torch
    from tfc_torch.export import import_forward

    def norm_net(norm):
        return nn.Sequential(nn.Linear(4, 4), norm, nn.Flatten(0))

    class Twice(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc, self.bn = nn.Linear(4, 4), nn.BatchNorm1d(4)

        def forward(self, x):
            return self.bn(self.fc(self.bn(x))).flatten()

    def loss(model, batch):
        return tfc_torch.import_module(model, batch, loss_fn=lambda out, x: out.pow(2).sum())

    batch = (torch.randn(5, 4),)
    spectral = nn.Sequential(nn.utils.spectral_norm(nn.Linear(4, 3)), nn.Flatten(0))
    # (name, model, import, substrings of the warning (none: no warning),
    #  the state arguments the import must have)
    cases = [("BatchNormTrainForward", norm_net(nn.BatchNorm1d(4)).train(),
              import_forward,
              ["'1.running_mean'", "'1.running_var'", "'1.num_batches_tracked'",
               "forward import"], []),
             ("SpectralNormTrainForward", spectral.train(), import_forward,
              ["'0.weight_u'", "'0.weight_v'"], []),
             ("BatchNormTrainLoss", norm_net(nn.BatchNorm1d(4)).train(), loss, [],
              ["1.running_mean", "1.running_var", "1.num_batches_tracked"]),
             ("SpectralNormTrainLoss", spectral.train(), loss, [],
              ["0.weight_u", "0.weight_v"]),
             ("BatchNormTwiceLoss", Twice().train(), loss, [],
              ["bn.running_mean", "bn.running_var", "bn.num_batches_tracked"]),
             ("BatchNormEval", norm_net(nn.BatchNorm1d(4)).eval(), loss, [], [])]
    results = []
    for name, model, importer, needles, state in cases:
        before = {k: v.clone() for k, v in model.state_dict().items()}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exported = importer(model, batch)
        texts = [str(w.message) for w in caught
                 if issubclass(w.category, tfc_torch.TracedUpdateWarning)]
        problem = None
        if needles and not texts:
            problem = "no TracedUpdateWarning"
        elif not needles and texts:
            problem = f"unexpected warning: {texts[0]}"
        elif texts and any(n not in texts[0] for n in needles):
            problem = f"warning lacks {[n for n in needles if n not in texts[0]]}: {texts[0]}"
        if not problem and list(exported.state) != state:
            problem = f"model state {list(exported.state)}, expected {state}"
        missing = [k for k in state if f'{{tfc.state = "{k}"}}' not in exported.mlir
                   or f'{{tfc.update = "{k}"}}' not in exported.mlir]
        if missing and not problem:
            problem = f"no tfc.state argument / tfc.update result for {missing}"
        changed = [k for k, v in model.state_dict().items() if not torch.equal(v, before[k])]
        if changed and not problem:
            problem = f"importing changed the module's {changed}"
        results.append((name, problem))
    return results


def check_format_warnings():
    """(name, problem or None): a model that formats traced tensors to log
    them (print, an f-string for a log call whose level is off) imports,
    with one TracedUpdateWarning per line that formats one, at that line."""
    import inspect
    import logging
    import warnings
    import torch
    import torch.nn as nn
    import tfc_torch

    log = logging.getLogger("check_errors.format")
    log.setLevel(logging.WARNING)

    class Logged(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            h = self.fc(x)
            log.debug(f"h = {h}, again {h}")
            for _ in range(2):
                log.debug("h[0] = %s", str(h[0]))
            return h.pow(2).mean()

    lines, first = inspect.getsourcelines(Logged.forward)
    expected = sorted(first + i for i, line in enumerate(lines) if "log.debug" in line)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            tfc_torch.import_module(Logged(), (torch.randn(3, 4),))
        except tfc_torch.FrontendError as e:
            return [("FormattedTensors", f"raised {type(e).__name__}: {e}")]
    found = sorted(w.lineno for w in caught if issubclass(w.category, tfc_torch.TracedUpdateWarning)
                   and "logging in forward shows no values" in str(w.message)
                   and w.filename == __file__)
    problem = None if found == expected else f"warnings at lines {found}, expected {expected}"
    return [("FormattedTensors", problem)]


def check_empty_batch():
    """(name, problem or None): an example batch of 0 samples is a
    ModelError naming the input and its shape at import (it used to import
    and then fail inside the compiler: reductions over empty tensors)."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import tfc_torch

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, x, y):
            return F.cross_entropy(self.fc(x), y, reduction="sum")

    try:
        tfc_torch.import_module(Classifier(), (torch.randn(0, 4), torch.zeros(0, dtype=torch.long)))
        return [("EmptyBatch", "imported without an error")]
    except tfc_torch.ModelError as e:
        needles = ["input x has shape [0, 4]", "empty batch", "skip empty batches"]
        missing = [n for n in needles if n not in str(e)]
        return [("EmptyBatch", f"message lacks {missing}: {e}" if missing else None)]


def check_derivative_warnings():
    """A custom Function traced through its forward (its backward is the
    forward's derivative on the example and on random draws: a softmax's)
    warns once, naming it; one whose backward agrees with the derivative
    on the example only (the gradient scaled by a 0-d batch argument of
    1.0, masked where |x| > 1 on a small example) is imported with its own
    backward, without the warning (it was traced through its forward, and
    later scales or larger values got the identity's gradient)."""
    import warnings
    import torch
    import torch.nn as nn
    import tfc_torch

    class Softmax(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = torch.softmax(x, -1)
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, grad):
            out, = ctx.saved_tensors
            return out * (grad - (grad * out).sum(-1, keepdim=True))

    class ScaleGrad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(scale)
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            scale, = ctx.saved_tensors
            return grad * scale, None

    class ClipIdentity(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * (x.abs() <= 1).to(grad.dtype)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x, scale):
            h = self.fc(x)
            return (Softmax.apply(h).pow(2).sum() + ScaleGrad.apply(h, scale).pow(2).sum()
                    + ClipIdentity.apply(h * 1e-3).sum())

    g = torch.Generator().manual_seed(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tfc_torch.import_module(Net(), (torch.randn(3, 4, generator=g), torch.tensor(1.0)))
    named = [str(w.message).split("'")[1].split(".")[-1] for w in caught
             if w.category.__name__ == "CustomFunctionWarning"]
    return [("CustomFunctionWarning", None if named == ["Softmax"] else
             f"warned of {named}, expected of Softmax alone")]


def check_batch_name_clash():
    """(name, problem or None): a batch tensor named like a buffer (a
    flattened BERT port's token_type_ids) is a ModelError whose hint names
    the option and the calls that take it, with names that work."""
    import torch
    import torch.nn as nn
    import tfc_torch

    class Port(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.lin = nn.Embedding(2, 4), nn.Linear(4, 1)
            self.register_buffer("token_type_ids", torch.zeros(1, 8, dtype=torch.long))

        def forward(self, x, token_type_ids):
            return self.lin(x + self.tok(token_type_ids)).pow(2).mean()

    batch = (torch.randn(2, 8, 4), torch.ones(2, 8, dtype=torch.long))
    try:
        tfc_torch.import_module(Port(), batch)
        return [("BatchNameClash", "imported without an error")]
    except tfc_torch.ModelError as e:
        text = f"{e} {e.hint}"
        needles = ["'token_type_ids' is also the name of a parameter or buffer",
                   "compile_train_step", "input_names=['x', 'batch_token_type_ids']"]
        missing = [n for n in needles if n not in text]
        if missing:
            return [("BatchNameClash", f"message lacks {missing}: {text}")]
    names = list(tfc_torch.import_module(Port(), batch,
                                         input_names=["x", "batch_token_type_ids"]).inputs)
    return [("BatchNameClash", None if names == ["x", "batch_token_type_ids"]
             else f"the suggested names gave inputs {names}")]


def main():
    import torch
    import tfc_torch
    sys.path.insert(0, MODEL_DIR)
    loaded = [importlib.import_module(module) for module in MODEL_FILES]
    models = loaded[0]
    lines = marked_lines()
    failures = 0
    for name, (kind, needles) in CASES.items():
        torch.manual_seed(0)  # the same weights every run (masks computed from them)
        model = next(getattr(m, name) for m in loaded if hasattr(m, name))()
        problem = None
        try:
            tfc_torch.import_module(model, models.example_batch())
            problem = "imported without an error"
        except tfc_torch.FrontendError as e:
            text = str(e)
            if type(e).__name__ != kind:
                problem = f"raised {type(e).__name__}, expected {kind}: {text}"
            missing = [n for n in needles if n not in text]
            if missing and not problem:
                problem = f"message lacks {missing}: {text}"
            where = lines[name]
            if not problem and (e.frame is None or f"{e.frame.file}:{e.frame.line}" not in where):
                problem = f"points at {e.frame}, expected {' or '.join(where)}: {text}"
            if not problem:
                print(f"  {name}: {text.splitlines()[0]}")
        if name == "FunctionAttributeCache" and not problem and \
                hasattr(models._cached_arange, "buf"):
            problem = "the traced tensor stayed in the function's cache"
        print(f"{'FAIL' if problem else 'ok  '} {name}" + (f": {problem}" if problem else ""))
        failures += bool(problem)
    for name, problem in check_update_warnings() + check_format_warnings() + \
            check_empty_batch() + check_batch_name_clash() + check_derivative_warnings():
        print(f"{'FAIL' if problem else 'ok  '} {name}" + (f": {problem}" if problem else ""))
        failures += bool(problem)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
