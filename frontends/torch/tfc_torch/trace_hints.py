"""What tracing failures say: the torch error texts that mean a value was
read (DATA_DEPENDENT_MARKERS) or a derivative taken inside forward
(AUTOGRAD_IN_FORWARD_MARKERS), and the hints for them, the rewrite of a
known idiom when the failing line holds one.
"""
import inspect
import re
from typing import List, Optional, Tuple

import torch

from .source import Frame

DATA_DEPENDENT_MARKERS = (
    "get value out of a tracing tensor",      # torch 1.13 / 2.x real-mode tracing
    "tolist() shouldn't be called on a tensor with unallocated storage",  # torch 1.13
    "split_sizes' (position 2) must be tuple of ints",  # split sizes read from a tensor
    "data-dependent",                          # torch 2.x
    "Data dependent",
    "DataDependentOutputException",
)

# What torch raises for torch.autograd.grad / .backward() / requires_grad_()
# inside a functionalized trace: the tensors there have no grad_fn, and
# functorch refuses requires_grad_() and .backward() of a tensor that has
# one (an FGSM / PGD attack helper's loss.backward(); torch 1.13 and 2.x).
AUTOGRAD_IN_FORWARD_MARKERS = (
    "does not require grad and does not have a grad_fn",
    "call Tensor.requires_grad_() (or perhaps using torch.autograd.functional",
    "backward() called inside a functorch transform",
)
AUTOGRAD_IN_FORWARD_HINT = (
    "write derivatives inside forward with functorch's transforms (torch.func on torch 2), "
    "which tfc traces and differentiates again for training: "
    "u_x = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0] with "
    "u = net(x) becomes u_x = vmap(grad(lambda xi: net(xi).squeeze()))(x) "
    "(from functorch import grad, vmap; jacrev / hessian for whole Jacobians)")


VALUE_READ_HINT = (
    "tfc compiles one static graph per shape: compute both branches and pick "
    "with torch.where / masked_fill, or move the decision out of the model "
    "(e.g. into a constructor argument); a number read from a tensor to compute "
    "with stays a tensor (loss / mask.sum(), not / mask.sum().item()); a size "
    "read from the data (max_len = lengths.max().item() for a padding mask) is "
    "the padded size (x.size(1))")
# (what the failing line holds, the hint for that idiom), first match wins.
_VALUE_READ_IDIOMS = (
    # A NaN guard: if torch.isnan(loss): warnings.warn(...) / raise / print
    ((re.compile(r"\b(?:el)?if\b.*\b(?:isnan|isinf|isfinite)\b"),),
     "the compiled step cannot branch on a value it computes, so a NaN / inf check in forward "
     "cannot warn, print or raise there: drop it from forward and check the loss the step "
     "returns, outside it (loss = step(*batch); if not math.isfinite(float(loss)): ...); with "
     "loss scaling (loss_scaling=True, or fp16) the step itself skips the update of a step "
     "whose gradients are not finite (step.read('found_inf'))"),
    # Logging a value: print(f"{loss.item():.4f}"), log.info("%f", x.item()), tqdm's postfix
    ((re.compile(r"\bprint\(|\blog(?:ger|ging)?\.(?:debug|info|warning|warn|error|critical|"
                 r"exception|log)\(|\bwarnings\.warn\(|\bf[\"']|\.format\(|set_postfix|"
                 r"\.add_scalar\(|\bwandb\.log\("),),
     "a value logged from forward is read while tfc traces, and the compiled step runs no "
     "Python to log it: log it outside the step, from what the step returns (the training "
     "step returns the loss: loss = step(*batch); print(f\"{float(loss):.4f}\")); formatting "
     "a tensor itself (f\"{h}\", print(h)) gives a placeholder text instead of failing"),
    # A metric stored for the training loop to log: self.stats = {"epe": epe.item()},
    # metrics["acc"] = acc.item(), self.history.append(loss.item()) (RAFT's
    # sequence_loss, PPO's approx_kl)
    ((re.compile(r"(?:\bself\.\w+(?:\[[^\]]*\])?\s*=|\w+\[[^\]]*\]\s*=(?!=)|\{[^}]*:|"
                 r"\.append\(|\.update\(|\bdict\().*\.(?:item|tolist)\(\)"),),
     "a metric read as a number in forward for the training loop to log is read while tfc "
     "traces, and the compiled step runs no Python to read it again: keep it a tensor in a "
     "buffer, self.register_buffer('epe', torch.zeros(())) and self.epe.copy_(epe.mean()."
     "detach()) in forward (the training step carries it: step.state_dict()['epe'] after each "
     "step), or compute the metric outside the step (torch.no_grad() on the model, or a "
     "tfc_torch.compile'd forward returning it), and log it there"),
    # A number read to compute with: alpha = self.log_alpha.exp().item() (SAC's
    # temperature in the actor loss)
    ((re.compile(r"^\s*\w+(?:\s*,\s*\w+)*\s*=\s*[^=].*\.item\(\)\s*(?:#.*)?$"),),
     "a number read from a tensor to compute with stays a tensor: .detach() instead of "
     ".item() stops the gradient the same way (alpha = self.log_alpha.exp().detach(); "
     "loss = (alpha * log_prob - q).mean()), and the compiled step computes it at every call "
     "(a number read while tracing would be a constant); a size or a count read from the "
     "data (max_len = lengths.max().item()) is the padded size (x.size(1)) instead"),
    # An assert on a number read from a tensor: assert x.min().item() >= 0
    ((re.compile(r"\bassert\b"),),
     "an assert on tensor values is taken to hold when it tests the tensor itself: assert "
     "(x >= 0).all(), not assert x.min().item() >= 0 (the compiled program has no Python to "
     "stop)"),
    # MoCo / ALBEF / BLIP's queue: ptr = int(self.queue_ptr); queue[:, ptr:ptr + bs] = k.T
    (("ptr",), "a ring buffer's pointer is model state, read at every call: write at the "
     "positions it gives without reading it as a number, idx = (self.queue_ptr + "
     "torch.arange(bs)) % K; self.queue.index_copy_(1, idx, keys.T); "
     "self.queue_ptr.add_(bs).remainder_(K) (the step carries both buffers)"),
    # VITS / ESPnet GAN-TTS slice_segments: x[i, :, ids_str[i]:ids_str[i] + size], a
    # slice whose bound is an element of a tensor.
    ((re.compile(r"\w\[[^\]]*\w\[[^\]]*\]\s*:|:\s*\w+\[[^\]]*\][^\]]*\]"),),
     "a window at a start read from the data is a gather of its positions: "
     "idx = ids_str[:, None] + torch.arange(size); x.gather(2, idx[:, None, :].expand(-1, "
     "x.size(1), -1))"),
    (("segment",), "a window at a start read from the data is a gather of its positions: "
     "idx = start_idxs[:, None] + torch.arange(size); x.gather(2, idx[:, None, :].expand(-1, "
     "x.size(1), -1))"),
    (("pack_padded_sequence", "tolist"), "pass the lengths tensor itself, "
     "pack_padded_sequence(x, lengths, ...): tfc traces packed sequences from it"),
    # The pytorch.org BiLSTM-CRF tutorial's log_sum_exp: vec[0, argmax(vec)]
    (("argmax",), "a log-sum-exp stabilized by its max is torch.logsumexp(vec, dim) (the "
     "BiLSTM-CRF tutorial's log_sum_exp(vec)); an index to pick with stays a tensor: "
     "vec.max(1).values, vec.gather(1, idx)"),
)


def value_read_hint(frame: Optional[Frame]) -> str:
    """The hint for a tensor's value read as a Python value at `frame`:
    the rewrite of a known idiom found in its line or function, else the
    general one."""
    where = f"{frame.function} {frame.code}" if frame is not None else ""
    code = frame.code if frame is not None else ""
    for needles, hint in _VALUE_READ_IDIOMS:
        if all(n.search(code if n.pattern.startswith("^") else where)
               if isinstance(n, re.Pattern) else n in where for n in needles):
            return hint
    return VALUE_READ_HINT


# torch.autograd.grad with respect to parameters (MAML's inner step).
_PARAMETER_GRAD_HINT = (
    "take a gradient with respect to parameters with functorch's grad of a function of "
    "them, which tfc traces and differentiates again (MAML's second order): g = grad(lambda "
    "w: F.mse_loss(xs @ w.t(), ys))(self.w); for a submodule's, g = grad(lambda p: "
    "loss_fn(functional_call(self.learner, p, (xs,)), ys))(dict(self.learner."
    "named_parameters())) (from functorch import grad; torch.func on torch 2)")


# loss.backward() in forward to read an input's .grad (FGSM / PGD).
_BACKWARD_HINT = (
    "take the input gradient an attack reads from x_adv.grad with functorch's grad of the "
    "loss as a function of the input, which tfc traces and differentiates again: "
    "g = grad(lambda xa: F.cross_entropy(self.net(xa), y))(x_adv); x_adv = (x + eps * "
    "g.sign()).detach() (from functorch import grad; torch.func on torch 2)")


def autograd_hint(frame: Optional[Frame]) -> str:
    """The functorch form of the torch.autograd call at `frame`: of a
    gradient with respect to parameters when its inputs name some, of an
    input's .grad after .backward()."""
    code = frame.code if frame is not None else ""
    if ".backward(" in code:
        return _BACKWARD_HINT
    _, found, call = code.partition("autograd.grad(")
    arguments, depth = [""], 0
    for c in call if found else "":
        depth += (c in "([{") - (c in ")]}")
        if depth < 0:
            break
        if c == "," and depth == 0:
            arguments.append("")
        else:
            arguments[-1] += c
    inputs = arguments[1] if len(arguments) > 1 else ""
    if any(w in inputs for w in ("self.", "param", "weight")):
        return _PARAMETER_GRAD_HINT
    return AUTOGRAD_IN_FORWARD_HINT


# torch's text for a lazy module's parameter before its first call.
UNINITIALIZED_MARKER = "uninitialized parameter"
LAZY_HINT = ("run one forward eagerly (model(example)) before compiling, to materialize lazy "
             "modules")


def uninitialized_lazy_modules(model: torch.nn.Module) -> List[Tuple[str, str]]:
    """(name, class name) of `model`'s lazy modules (nn.LazyLinear,
    LazyConv2d, ...) whose parameters are not materialized yet (never called)."""
    from torch.nn.modules.lazy import LazyModuleMixin
    return [(name, type(module).__name__) for name, module in model.named_modules()
            if isinstance(module, LazyModuleMixin) and module.has_uninitialized_params()]


def lazy_module_frame(model: torch.nn.Module, names: List[str]) -> Optional[Frame]:
    """The line of the model's forward that uses the first of the lazy
    modules `names` (self.<its attribute of the model>), else forward's
    first line; None without its source."""
    forward = type(model).forward
    try:
        file = inspect.getsourcefile(forward)
        lines, first = inspect.getsourcelines(forward)
    except (TypeError, OSError):
        return None
    if not file:
        return None
    attribute = names[0].split(".")[0] if names else ""  # "": the model itself
    use = re.compile(rf"\bself\.{re.escape(attribute)}\b") if attribute else None
    for offset, line in enumerate(lines):
        if use is not None and use.search(line) and not line.lstrip().startswith("#"):
            return Frame(file, first + offset, forward.__name__, line.strip())
    return Frame(file, first, forward.__name__, lines[0].strip())
