"""Traceable forms of torch functions that make_fx cannot trace, used in
their place while tracing (tracing.py installs them).

torch.quantile / nanquantile (functions and Tensor methods) check
`0 <= q <= 1` with .item(), which no trace can read; F.embedding_bag calls
aten._embedding_bag, whose autograd torch 1.13's make_fx trips over. The
replacements compute the same values from ops the frontend lowers, and
autograd through them gives torch's gradients. F.embedding is wrapped to
refuse max_norm by name. F.one_hot (num_classes given) and
F.gaussian_nll_loss check index ranges / variance signs with values
(.item(), torch.any), torch.cov / corrcoef the degrees of freedom: their
replacements compute the same without the value checks (see each).
F.ctc_loss's list lengths become tensors. Batch norm's forward with
momentum=None reads num_batches_tracked's value: its replacement updates the
running statistics with tensor ops. torch.utils.checkpoint (both forms, and
checkpoint_sequential, which calls it) calls the checkpointed function
directly: its values and gradients are the function's, and what it saves
memory on is tfc's recompute option. nn.AdaptiveLogSoftmaxWithLoss's
forward gathers rows per cluster with nonzero: its replacement runs every
cluster on all rows and selects. torch.linalg.eigh / eigvalsh are
eigh.py's Jacobi decomposition, torch.linalg.svd / svdvals / pinv / cond,
torch.svd and the spectral and nuclear norms svd.py's on it. torch.ao.quantization's non-fused
FakeQuantize (Python observers, whose forward branches on buffer values) and
_LearnableFakeQuantize are refused by name. An error a replacement raises
without a source line gets the model's line from tracing.py."""
import math

import torch
import torch.ao.quantization
import torch.ao.quantization._learnable_fake_quantize
import torch.nn.functional as F
import torch.utils.checkpoint

from . import eigh, grad_flags, module_state, svd
from .errors import DataDependentError, ModelError
from .source import stack_frame

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(x, q, dim, keepdim, interpolation, ignore_nan, name):
    """torch 1.13's quantile computation: the row sorted (NaN last), the
    rank q * (n - 1) of each quantile (a row with a NaN: the last, so the
    result is NaN; nanquantile: n counts the numbers, an all-NaN row rank
    0), rounded per `interpolation`, the sorted values at the ranks below
    and above, interpolated with lerp."""
    if not isinstance(x, torch.Tensor) or x.dtype not in (torch.float32, torch.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"{name}() interpolation must be one of {', '.join(_INTERPOLATIONS)}. "
                         f"Got {interpolation}")
    if x.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    checked = not isinstance(q, torch.Tensor)
    if checked:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        q = torch.tensor(q, dtype=x.dtype)
    elif q.dim() > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    qs = q.to(x.dtype).reshape(-1)                            # [Q]
    if dim is None:
        rows, out_dims = x.reshape(-1), [1] * x.dim() if keepdim else []
    else:
        d = dim % max(x.dim(), 1)
        rows = x.movedim(d, -1) if x.dim() else x.reshape(1)
        out_dims = list(x.shape)
        if out_dims:
            if keepdim:
                out_dims[d] = 1
            else:
                del out_dims[d]
    ordered = rows.sort(dim=-1).values                        # [..., n]
    n = ordered.shape[-1]
    lead = ordered.shape[:-1]
    nans = ordered.isnan()
    if ignore_nan:
        ranks = qs * (nans.logical_not().sum(-1, keepdim=True) - 1)
        ranks = ranks.masked_fill(ranks < 0, 0)
    else:
        ranks = (qs * (n - 1)).expand(lead + (qs.numel(),))
        ranks = ranks.masked_fill(nans.any(-1, keepdim=True), n - 1)
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    ranks = ranks.expand(lead + (qs.numel(),))
    below = ranks.long()
    values = ordered.gather(-1, below)                        # [..., Q]
    if interpolation in ("linear", "midpoint"):
        weights = torch.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        values = values.lerp(ordered.gather(-1, ranks.ceil().long()), weights)
    if not checked:
        # q computed in the model: NaN where torch raises.
        valid = (qs >= 0) & (qs <= 1)
        values = torch.where(valid, values, torch.full_like(values, math.nan))
    values = values.reshape(out_dims + [qs.numel()])
    return values.squeeze(-1) if q.dim() == 0 else values.movedim(-1, 0)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    if out is not None:
        raise RuntimeError("tfc_torch traces quantile without out=")
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    if out is not None:
        raise RuntimeError("tfc_torch traces nanquantile without out=")
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


def _refuse_max_norm(what):
    raise ModelError(
        f"{what} with max_norm renormalizes the looked-up rows of the weight in place "
        "(under no_grad, before the lookup), which a trace cannot record",
        hint="drop max_norm (emb.max_norm = None) before compiling and renormalize the "
             "rows each batch looks up in the step's copy of the weight before calling it: "
             "sd = step.state_dict(); with torch.no_grad(): torch.embedding_renorm_("
             "sd['emb.weight'], ids, max_norm, 2.0); step.load_state_dict(sd); step(ids, ...) "
             "(the module's own weight is not the step's); for a compiled forward, renormalize "
             "every row of the module's weight once before compiling (ids = "
             "torch.arange(num_embeddings))")


_EMBEDDING = F.embedding


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """F.embedding, refusing max_norm with an error that names it (torch's
    in-place renormalization of the weight fails inside make_fx with a
    message about leaf Variables)."""
    if max_norm is not None:
        _refuse_max_norm("nn.Embedding / F.embedding")
    return _EMBEDDING(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq,
                      sparse)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2.0,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """F.embedding_bag from embedding lookups: a bag's rows weighted by
    whether they belong to it (not padding_idx, times per_sample_weights)
    and summed, or averaged over its count, or their first largest element
    per column (torch's max keeps the first; its gradient goes there
    alone). An empty bag gives zeros. 2-d input: one bag per row. 1-d input
    with offsets: bag b holds positions offsets[b] <= j < the next offset
    (the input's end for the last, unless include_last_offset), a [bags,
    n] membership matrix compared from `offsets` in the graph, so offsets
    computed by the model need no data-dependent shape."""
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         f"is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, got {mode}")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}'). Please open a feature request on GitHub.")
    if scale_grad_by_freq:
        raise ModelError("F.embedding_bag / nn.EmbeddingBag with scale_grad_by_freq=True is not "
                         "imported (tfc does not reproduce torch's gradient for it)",
                         hint="drop scale_grad_by_freq, or look the rows up with "
                              "nn.Embedding(scale_grad_by_freq=True) and reduce the bags "
                              "yourself")
    if padding_idx is not None:
        if not -weight.size(0) <= padding_idx < weight.size(0):
            raise AssertionError("padding_idx must be within the number of embeddings")
        padding_idx %= weight.size(0)
    if max_norm is not None:
        _refuse_max_norm("F.embedding_bag / nn.EmbeddingBag")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences.")
        rows = _EMBEDDING(input, weight)   # [B, L, D]
        member = torch.ones(input.shape, dtype=torch.bool, device=input.device)
        if padding_idx is not None:
            member = member & (input != padding_idx)
    elif input.dim() == 1:
        if offsets is None or offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor when input is 1D")
        bags = offsets.numel() - (1 if include_last_offset else 0)
        starts = offsets[:bags]
        if include_last_offset:
            ends = offsets[1:bags + 1]
        else:
            ends = torch.cat([offsets[1:bags], torch.full((1,), input.numel(),
                                                          dtype=offsets.dtype,
                                                          device=offsets.device)])
        positions = torch.arange(input.numel(), device=input.device)
        member = (positions >= starts.unsqueeze(1)) & (positions < ends.unsqueeze(1))  # [B, n]
        if padding_idx is not None:
            member = member & (input != padding_idx)
        rows = _EMBEDDING(input, weight)   # [n, D]
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    counts = member.sum(-1, keepdim=True)                                          # [B, 1]
    if mode == "max":
        if input.dim() == 1:
            rows = rows.unsqueeze(0)
        masked = torch.where(member.unsqueeze(-1), rows, torch.full_like(rows, -math.inf))
        picked = masked.gather(-2, masked.argmax(-2, keepdim=True)).squeeze(-2)   # [B, D]
        return torch.where(counts > 0, picked, torch.zeros_like(picked))
    weights = member.to(weight.dtype)
    if per_sample_weights is not None:
        weights = weights * per_sample_weights.to(weight.dtype)
    if input.dim() == 1:
        total = weights @ rows
    else:
        total = (weights.unsqueeze(-1) * rows).sum(-2)
    if mode == "mean":
        total = total / counts.clamp(min=1).to(weight.dtype)
    return total


def cov(input, *, correction=1, fweights=None, aweights=None):
    """torch.cov as torch 1.13's at::cov computes it (observations in the
    columns, weighted mean, mm of the centred rows over the degrees of
    freedom), without its value checks: fweights' sign and integrality and
    aweights' sign are not checked (torch raises), and degrees of freedom
    <= 0 divide by zero (inf / NaN, as torch after its warning)."""
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got "
                           f"an input with {input.dim()} dimensions")
    rows = input.view(1, -1) if input.dim() < 2 else input
    n = rows.size(1)
    w = None
    for weights, name in ((fweights, "fweights"), (aweights, "aweights")):
        if weights is None:
            continue
        if weights.dim() > 1 or weights.numel() != n:
            raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions and "
                               f"{n} elements, got shape {tuple(weights.shape)}")
        if name == "fweights" and weights.is_floating_point():
            raise RuntimeError("cov(): expected fweights to have integral dtype")
        if name == "aweights" and not weights.is_floating_point():
            raise RuntimeError("cov(): expected aweights to have floating point dtype")
        w = weights if w is None else w * weights
    if w is None:
        mean = rows.mean(1)
        dof = torch.tensor(float(n - correction), dtype=mean.dtype)
    else:
        w = w.to(rows.dtype)
        total = w.sum()
        mean = (rows * w).sum(1) / total
        dof = total - (correction * (w * aweights).sum() / total if aweights is not None
                       else correction)
    dof = torch.where(dof <= 0, torch.zeros_like(dof), dof)
    centred = rows - mean.unsqueeze(1)
    weighted = centred if w is None else centred * w
    return (centred @ weighted.t() / dof).squeeze()


def corrcoef(input):
    """torch.corrcoef from the replacement cov: the covariance over the
    outer product of the standard deviations, clipped to [-1, 1]."""
    c = cov(input)
    if c.dim() == 0:
        return c / c
    std = torch.diagonal(c).sqrt()
    return (c / std.unsqueeze(1) / std.unsqueeze(0)).clip(-1, 1)


_ONE_HOT = F.one_hot


def one_hot(tensor, num_classes=-1):
    """F.one_hot with a given class count, as a comparison with arange:
    torch's checks the indices' range with .item(), which a trace cannot
    do; here a zero read through an embedding lookup of the indices in a
    [num_classes, 1] table is added, whose run-time range check (tfc's host
    embedding kernel) refuses an index outside [0, num_classes) as torch
    does (on the GPU such an index gives a row of zeros). Without
    num_classes the count is the data's largest index: a
    DataDependentError."""
    if num_classes < 0:
        raise DataDependentError(
            "F.one_hot without num_classes takes the class count from the largest index "
            "(a value of the data), which a trace records as a constant", stack_frame(),
            "pass num_classes=")
    classes = torch.arange(num_classes, device=tensor.device, dtype=tensor.dtype)
    table = torch.zeros(num_classes, 1, device=tensor.device)
    checked = F.embedding(tensor.reshape(-1), table).sum().mul(0).to(torch.int64)
    return (tensor.unsqueeze(-1) == classes).to(torch.int64) + checked


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """F.gaussian_nll_loss as torch 1.13 computes it, without its check
    `if torch.any(var < 0): raise`, which reads values: a negative entry of
    var becomes NaN instead, so the loss is NaN where torch raises. The
    shape and reduction checks stay (they raise while tracing)."""
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = torch.unsqueeze(var, -1)
        elif not (input.size()[:-1] == var.size()[:-1] and var.size(-1) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = torch.where(var < 0, torch.full_like(var, math.nan), var)
    var = var.clone()
    with torch.no_grad():
        var.clamp_(min=eps)  # NaN stays NaN
    loss = 0.5 * (torch.log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


_CTC_LOSS = F.ctc_loss


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """F.ctc_loss with list lengths passed as tensors: given lists, torch
    1.13 builds the tensor its mean reduction divides by inside the op,
    where make_fx records no values (tracing fails on an unallocated
    tensor). The values are the same."""
    def as_tensor(lengths):
        if isinstance(lengths, torch.Tensor):
            return lengths
        return torch.tensor(lengths, dtype=torch.long, device=log_probs.device)
    return _CTC_LOSS(log_probs, targets, as_tensor(input_lengths), as_tensor(target_lengths),
                     blank=blank, reduction=reduction, zero_infinity=zero_infinity)


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """torch.istft of a complex spectrogram (..., n_fft // 2 + 1 or n_fft,
    frames): torch 1.13 checks the window envelope (NOLA) with a value
    read, which no trace records. The same computation in traceable ops:
    each frame's inverse FFT times the window, overlap-added (F.fold),
    cut to the centered (or `length`) extent and divided by the overlapped
    squared window. A window whose envelope is 0 somewhere gives inf / NaN
    there where torch raises."""
    if not input.is_complex():
        raise ModelError("torch.istft of a real tensor (the deprecated (..., 2) layout): "
                         "tfc takes the complex form",
                         hint="pass torch.view_as_complex(x) (or torch.complex(re, im))")
    if return_complex:
        raise ModelError("torch.istft(return_complex=True): tfc computes the real signal",
                         hint="return_complex=False (a onesided spectrogram)")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if window is None:
        window = torch.ones(win, dtype=input.real.dtype)
    if win < n_fft:
        left = (n_fft - win) // 2
        window = F.pad(window, (left, n_fft - win - left))
    batch = input.shape[:-2]
    spectrum = input.reshape((-1,) + tuple(input.shape[-2:]))
    # A two-sided spectrum is read as Hermitian, as torch's real output
    # does: its first n_fft // 2 + 1 bins.
    spectrum = spectrum[:, :n_fft // 2 + 1]
    norm = "ortho" if normalized else "backward"
    frames = torch.fft.irfft(spectrum, n_fft, dim=1, norm=norm) * window.view(1, n_fft, 1)
    count = frames.shape[-1]
    expected = n_fft + hop * (count - 1)
    signal = F.fold(frames, (1, expected), (1, n_fft), stride=(1, hop)).reshape(-1, expected)
    squares = (window * window).view(1, n_fft, 1).expand(1, n_fft, count)
    envelope = F.fold(squares, (1, expected), (1, n_fft), stride=(1, hop)).reshape(expected)
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = expected - n_fft // 2 if center else expected
    kept = min(end, expected)
    signal = signal[:, start:kept] / envelope[start:kept]
    if end > expected:
        signal = F.pad(signal, (0, end - expected))
    return signal.reshape(tuple(batch) + (signal.shape[-1],))


def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    """Tensor.new_tensor (pytorch-fm's embeddings, Dreamer's free nats):
    torch 1.13's functionalization fails on it ("DispatchKey Functionalize
    doesn't correspond to a device"). The same tensor by torch.tensor (a
    tensor `data`: its values copied, detached), with self's dtype and
    device by default."""
    dtype = self.dtype if dtype is None else dtype
    device = self.device if device is None else device
    if isinstance(data, torch.Tensor):
        out = data.detach().clone().to(dtype=dtype, device=device)
    else:
        out = torch.tensor(data, dtype=dtype, device=device)
    return out.requires_grad_() if requires_grad else out


_NEW = torch.Tensor.new


def new(self, *args, device=None):
    """The legacy constructor Tensor.new (reid-strong-baseline's
    `dist.new().resize_as_(dist).fill_(1)`, `x.new(B, C).zero_()`,
    `x.data.new(size)`), which torch 1.13's functionalization fails on like
    new_tensor. The same tensor by the other constructors, as torch parses
    the arguments: sizes (ints, or one torch.Size) are new_empty (zeroed
    while tracing), a sequence of numbers new_tensor's values, a tensor of
    self's dtype a differentiable alias of it, nothing an empty tensor."""
    device = self.device if device is None else device
    if not args:
        return self.new_empty((0,), device=device)
    if len(args) == 1 and isinstance(args[0], torch.Tensor):
        other = args[0]
        if other.dtype != self.dtype:
            raise TypeError(f"Tensor.new of a {other.dtype} tensor from a {self.dtype} one")
        return other.view_as(other)
    if len(args) == 1 and isinstance(args[0], torch.Size):
        return self.new_empty(args[0], device=device)
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return self.new_empty(args, device=device)
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return self.new_tensor(args[0], device=device)
    return _NEW(self, *args, device=device)


def _number_as_tensor(tensor, number):
    """A Python bool / int operand of a bitwise op as a 0-d tensor of the
    dtype torch's promotion gives the pair, so the result is torch's."""
    if isinstance(tensor, torch.Tensor) and isinstance(number, int):  # bool is an int
        return torch.tensor(number, dtype=torch.result_type(tensor, number), device=tensor.device)
    return number


def _bitwise_method(name):
    """Tensor's `name` (`m ^ 1`, `m | 0`, `m.bitwise_xor_(True)`) with a
    number operand as a tensor: torch 1.13's make_fx fails on the Scalar
    overloads of bitwise_xor / or ("Expected a value of type 'Tensor' for
    argument 'other'") and the frontend lowers the Tensor ones (& with a
    number too)."""
    original = getattr(torch.Tensor, name)

    def method(self, other, *args, **kwargs):
        return original(self, _number_as_tensor(self, other), *args, **kwargs)
    method.__name__ = name
    return method


def _bitwise_function(name):
    """torch.bitwise_and / or / xor likewise (either operand a number)."""
    original = getattr(torch, name)

    def function(input, other, *args, **kwargs):
        return original(_number_as_tensor(other, input), _number_as_tensor(input, other),
                        *args, **kwargs)
    function.__name__ = name
    return function


_BITWISE = ("and", "or", "xor")


_REQUIRES_GRAD_ = torch.Tensor.requires_grad_


def requires_grad_(self, requires_grad=True):
    """functorch refuses any requires_grad_ while tracing. Of a tensor that
    needs no gradient, requires_grad_(False) (the Annotated Transformer's
    positional-encoding buffer slice) does nothing in torch: here that call
    returns the tensor. requires_grad_(True) of a traced tensor (HF's
    enable_input_require_grads hook on the frozen input embeddings, for
    PEFT's LoRA with checkpointing) is autograd's bookkeeping, which tfc's
    own differentiation has no use for: the tensor, flagged so that reading
    requires_grad answers True as in torch (grad_flags.py). Of a trainable
    parameter in a traced forward, either call is torch's freeze and
    unfreeze (grad_flags.set_requires_grad). Any other call is torch's (a
    torch.autograd.grad after it fails as before)."""
    if grad_flags.set_requires_grad(self, bool(requires_grad)):
        return self
    if not requires_grad and not self.requires_grad:
        return self
    if requires_grad and torch._is_functional_tensor(self):
        grad_flags.mark_trainable([self], parameters=False)
        return self
    return _REQUIRES_GRAD_(self, requires_grad)


_BATCH_NORM_FORWARD = torch.nn.modules.batchnorm._BatchNorm.forward


def batch_norm_forward(self, input):
    """_BatchNorm.forward; with momentum=None in training (the cumulative
    average), torch's forward reads 1 / float(num_batches_tracked), which no
    trace records. Here the factor is that tensor's reciprocal, the batch
    normalized by its own statistics (F.batch_norm without running
    statistics) and the running statistics updated as ATen's
    native_batch_norm does: running = (1 - f) * running + f * batch
    statistic, the variance unbiased."""
    if not (self.training and self.track_running_stats and self.momentum is None
            and self.num_batches_tracked is not None and self.running_mean is not None
            and self.running_var is not None):
        return _BATCH_NORM_FORWARD(self, input)
    self._check_input_dim(input)
    self.num_batches_tracked.add_(1)
    out = F.batch_norm(input, None, None, self.weight, self.bias, True, 0.0, self.eps)
    with torch.no_grad():
        dims = [0] + list(range(2, input.dim()))
        x = input.to(self.running_mean.dtype)
        mean, var = x.mean(dims), x.var(dims, unbiased=True)
        factor = 1.0 / self.num_batches_tracked.to(self.running_mean.dtype)
        self.running_mean.copy_(self.running_mean * (1 - factor) + mean * factor)
        self.running_var.copy_(self.running_var * (1 - factor) + var * factor)
    return out


_F_BATCH_NORM = F.batch_norm
_F_INSTANCE_NORM = F.instance_norm


def _update_running(running, statistic, momentum):
    """running <- (1 - momentum) * running + momentum * statistic, written
    in place so functionalization records it (also through a view)."""
    running.copy_(running * (1 - momentum) + statistic.to(running.dtype) * momentum)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """F.batch_norm. torch 1.13's functionalization does not record
    native_batch_norm's in-place update of its running statistics; the
    import carries it for statistics that are model state themselves (a
    BatchNorm module's buffers), but a view of a buffer (domain-specific
    batch norm's self.running_mean[domain]) or a temporary would lose it.
    Those are updated here as ATen does (the variance unbiased), after the
    batch is normalized by its own statistics."""
    if not (training and running_mean is not None and running_var is not None
            and momentum is not None) or (module_state.is_state(running_mean)
                                          and module_state.is_state(running_var)):
        return _F_BATCH_NORM(input, running_mean, running_var, weight, bias, training,
                             momentum, eps)
    out = _F_BATCH_NORM(input, None, None, weight, bias, True, 0.0, eps)
    with torch.no_grad():
        dims = [0] + list(range(2, input.dim()))
        x = input.to(running_mean.dtype)
        _update_running(running_mean, x.mean(dims), momentum)
        _update_running(running_var, x.var(dims, unbiased=True), momentum)
    return out


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """F.instance_norm; with running statistics (track_running_stats) in
    training, ATen updates them through a repeated temporary, an update
    the trace loses (batch_norm above): here the running statistics move
    by the instances' mean statistics, as ATen's (the per-instance
    variance unbiased)."""
    if running_mean is None or running_var is None:
        return _F_INSTANCE_NORM(input, running_mean, running_var, weight, bias,
                                use_input_stats, momentum, eps)
    if not use_input_stats:
        # Normalized by the running statistics (eval): ATen copies them
        # back unchanged through its temporary, which would read as an
        # update; the same arithmetic without it.
        shape = (1, -1) + (1,) * (input.dim() - 2)
        out = (input - running_mean.view(shape)) * torch.rsqrt(running_var.view(shape) + eps)
        if weight is not None:
            out = out * weight.view(shape)
        if bias is not None:
            out = out + bias.view(shape)
        return out
    out = _F_INSTANCE_NORM(input, None, None, weight, bias, True, momentum, eps)
    with torch.no_grad():
        dims = list(range(2, input.dim()))
        x = input.to(running_mean.dtype)
        _update_running(running_mean, x.mean(dims).mean(0), momentum)
        _update_running(running_var, x.var(dims, unbiased=True).mean(0), momentum)
    return out


class _DirectCheckpointFunction:
    """torch.utils.checkpoint's reentrant Function (checkpoint(...,
    use_reentrant=True), the 1.13 default): the function's forward, whose
    ops tfc differentiates as checkpoint's recompute would. Unlike torch's,
    the function's parameters get their gradients also when no tensor input
    requires one (torch then gives them none and warns "None of the inputs
    have requires_grad=True"): a trace does not see requires_grad, and the
    gradients are what such a model means."""

    @staticmethod
    def apply(function, preserve_rng_state, *args):
        return function(*args)


def _checkpoint_without_reentrant(function, preserve_rng_state=True, *args, **kwargs):
    """checkpoint(..., use_reentrant=False): the function itself (torch
    1.13 implements it with saved-tensor hooks, which make_fx cannot
    trace)."""
    return function(*args, **kwargs)


def adaptive_log_softmax_forward(self, input_, target_):
    """nn.AdaptiveLogSoftmaxWithLoss.forward: torch gathers each cluster's
    rows with nonzero (a shape that depends on the targets); here every
    cluster's tail runs on all rows and each row takes its target's
    log-probability from its own cluster (the same values and gradients,
    more arithmetic in the tails). Targets out of range, which torch
    refuses by value, give the head's last cluster entry instead."""
    from torch.nn.modules.adaptive import _ASMoutput
    batched = input_.dim() == 2
    if not batched:
        input_, target_ = input_.unsqueeze(0), target_.unsqueeze(0)
    if input_.dim() != 2 or target_.dim() != 1 or input_.size(0) != target_.size(0):
        return _ADAPTIVE_FORWARD(self, input_, target_)
    head_logprob = F.log_softmax(self.head(input_), dim=1)
    shortlist = self.shortlist_size
    output = head_logprob.gather(1, target_.clamp(max=shortlist - 1).unsqueeze(1)).squeeze(1)
    cutoffs = [0] + self.cutoffs
    for i in range(1, len(cutoffs) - 1):
        low, high = cutoffs[i], cutoffs[i + 1]
        inside = (target_ >= low) & (target_ < high)
        relative = (target_ - low).clamp(0, high - low - 1)
        cluster = F.log_softmax(self.tail[i - 1](input_), dim=1)
        value = head_logprob[:, shortlist + i - 1] + cluster.gather(1, relative.unsqueeze(1)) \
            .squeeze(1)
        output = torch.where(inside, value, output)
    loss = (-output).mean()
    return _ASMoutput(output if batched else output.squeeze(0), loss)


_ADAPTIVE_FORWARD = torch.nn.AdaptiveLogSoftmaxWithLoss.forward


# (owner, attribute name, replacement) while tracing.
def fake_quantize_forward(self, X):
    """FakeQuantize.forward (and that of subclasses keeping it), refused by
    name: it tests observer_enabled / fake_quant_enabled and its Python
    observers test their running min / max with bool(), which no trace can
    read (FusedMovingAvgObsFakeQuantize, the default QAT qconfigs' module,
    is one traceable op: ops/quantize.py)."""
    def name(module):  # functional_call's stand-in classes derive from the module's
        return next(c.__name__ for c in type(module).__mro__
                    if not c.__name__.startswith("StatelessReplacer"))
    raise ModelError(
        f"torch.ao.quantization's non-fused {name(self)} (Python observer "
        f"{name(self.activation_post_process)}) branches on its buffers' values "
        "(observer_enabled, the running min / max), which a trace cannot record",
        hint="use the fused fake quantizer: torch.ao.quantization.get_default_qat_qconfig("
             "backend) (version 1, FusedMovingAvgObsFakeQuantize), or a QConfig of "
             "FusedMovingAvgObsFakeQuantize.with_args(...) with the same observer arguments")


def learnable_fake_quantize_forward(self, X):
    """_LearnableFakeQuantize.forward, refused by name: it tests its
    static_enabled / fake_quant_enabled buffers' values and writes its
    scale and zero-point parameters in place (clamp_, zero_())."""
    raise ModelError(
        "torch.ao.quantization's _LearnableFakeQuantize branches on its buffers' values "
        "(static_enabled, fake_quant_enabled) and writes its scale / zero_point parameters "
        "in place, which a trace cannot record",
        hint="call torch._fake_quantize_learnable_per_tensor_affine(x, scale, zero_point, "
             "quant_min, quant_max, grad_factor) (or _per_channel_affine) in forward, with "
             "scale and zero_point as parameters")


def register_hook(self, hook):
    """Tensor.register_hook in forward (h.register_hook(lambda g: g * 0.1)
    to slow a branch's gradient, a clamp of it), refused by name: the hook
    changes the gradient of every use of the tensor, and tfc derives the
    gradients itself and runs no Python during the step. Ignored, it would
    train on other gradients (a guard `if h.requires_grad:` reads True
    while tracing, as in torch: grad_flags.py)."""
    raise ModelError(
        "Tensor.register_hook in forward: the hook changes the gradient of the tensor, and tfc "
        "derives the gradients itself and runs no Python hook during the step, so it would "
        "train on other gradients",
        hint="scale or mask the gradient with a custom torch.autograd.Function whose backward is "
             "elementwise (return grad_output * m), applied to the tensor; a clamp of the "
             "gradient has no such form")


def retain_grad(self):
    """Tensor.retain_grad() in forward: it only keeps a non-leaf's .grad
    after backward for the user to read, which a compiled step never
    exposes; a no-op (torch's own check reads the traced tensor's real
    requires_grad, false while tracing)."""


_RANDOM_ = torch.Tensor.random_


def random_(self, *args, **kwargs):
    """Tensor.random_(low, high) / random_(high) (CRD's AliasMethod draw):
    torch 1.13's make_fx writes aten.random_.from's argument `from`, a
    Python keyword, into the code it generates (a SyntaxError). From 0 it
    is random_(high) (aten.random_.to, whose fill of a tensor made from
    constants torch 1.13 leaves in place, lowered as such); from another
    low the same draw as randint_like, copied in. Other forms (random_()
    to the type's largest value, a generator) are torch's."""
    if kwargs or len(args) != 2 or not all(isinstance(a, int) for a in args):
        return _RANDOM_(self, *args, **kwargs)
    if args[0] == 0:
        return _RANDOM_(self, args[1])
    return self.copy_(torch.randint_like(self, *args))


REPLACEMENTS = [
    (torch.Tensor, "random_", random_),
    (torch.Tensor, "register_hook", register_hook),
    (torch.Tensor, "retain_grad", retain_grad),
    (torch, "quantile", quantile),
    (torch, "nanquantile", nanquantile),
    (torch.Tensor, "quantile", lambda self, *a, **k: quantile(self, *a, **k)),
    (torch.Tensor, "nanquantile", lambda self, *a, **k: nanquantile(self, *a, **k)),
    (F, "embedding_bag", embedding_bag),
    (F, "embedding", embedding),
    (F, "one_hot", one_hot),
    (F, "gaussian_nll_loss", gaussian_nll_loss),
    (F, "ctc_loss", ctc_loss),
    (torch, "istft", istft),
    (torch.Tensor, "new_tensor", new_tensor),
    (torch.Tensor, "new", new),
    *[(torch.Tensor, name, _bitwise_method(name))
      for op in _BITWISE for name in (f"__{op}__", f"__r{op}__", f"__i{op}__", f"bitwise_{op}",
                                      f"bitwise_{op}_")],
    *[(torch, f"bitwise_{op}", _bitwise_function(f"bitwise_{op}")) for op in _BITWISE],
    (torch.Tensor, "requires_grad_", requires_grad_),
    (torch.Tensor, "istft", lambda self, *a, **k: istft(self, *a, **k)),
    (torch, "cov", cov),
    (torch, "corrcoef", corrcoef),
    (torch.Tensor, "cov", lambda self, *a, **k: cov(self, *a, **k)),
    (torch.Tensor, "corrcoef", lambda self: corrcoef(self)),
    (torch.nn.modules.batchnorm._BatchNorm, "forward", batch_norm_forward),
    (F, "batch_norm", batch_norm),
    (F, "instance_norm", instance_norm),
    (torch.nn.AdaptiveLogSoftmaxWithLoss, "forward", adaptive_log_softmax_forward),
    # Module globals that checkpoint() looks up when called, so a model that
    # imported checkpoint by name takes them too.
    (torch.utils.checkpoint, "CheckpointFunction", _DirectCheckpointFunction),
    (torch.utils.checkpoint, "_checkpoint_without_reentrant", _checkpoint_without_reentrant),
    # LAPACK's symmetric eigendecomposition as unrolled Jacobi (eigh.py).
    (torch.linalg, "eigh", eigh.eigh),
    (torch.linalg, "eigvalsh", eigh.eigvalsh),
    # ... and the singular value decompositions on it (svd.py).
    *svd.replacements(),
    (torch.ao.quantization.FakeQuantize, "forward", fake_quantize_forward),
    (torch.ao.quantization._learnable_fake_quantize._LearnableFakeQuantize, "forward",
     learnable_fake_quantize_forward),
]
