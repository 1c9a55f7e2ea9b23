"""Models tfc_torch must refuse, each with the error it must give. The line
that causes the error carries a trailing `# error here` comment (`# error
here (Model)` outside the model's class), which check_errors.py uses to
check the reported source line. The refusals of gradient code (hooks,
autograd.grad and backward in forward, custom autograd Functions whose
backward tfc cannot derive) are in unsupported_gradients.py."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)


class BranchOnValue(Base):
    """Python control flow on a tensor's value."""

    def forward(self, x):
        h = self.fc(x)
        if h.sum() > 0:  # error here
            return h.mean()
        return -h.mean()


class BooleanMask(Base):
    """Boolean-mask indexing whose result is used with its data-dependent
    shape: a running sum along the selected elements mixes them (sums,
    means and elementwise ops of them alone would be fine)."""

    def forward(self, x):
        h = self.fc(x)
        return h[h > 0].cumsum(0).sum()  # error here


class SelectionSize(Base):
    """The number of rows of a masked selection read as a number (the
    trace would keep the example's): torch's kl_div 'batchmean' divides by
    its input's size(0)."""

    def forward(self, x):
        h = self.fc(x)
        sel = h[h[:, 0] > 0]
        return F.kl_div(sel.log_softmax(-1), sel.detach().softmax(-1),  # error here
                        reduction="batchmean")


class SelectionLength(Base):
    """len() of a masked selection."""

    def forward(self, x):
        h = self.fc(x)
        sel = h[h[:, 0] > 0]
        return sel.sum() / len(sel)  # error here


class SelectionTransposed(Base):
    """A size of a tensor that moved a selection's rows out of dim 0."""

    def forward(self, x):
        h = self.fc(x)
        sel = h[h[:, 0] > 0]
        return sel.sum() / sel.T.shape[1]  # error here


class MaskWrittenThroughView(Base):
    """A mask built as constants and then written from data through a
    view: its selection's row count is data, not a constant."""

    def forward(self, x):
        h = self.fc(x)
        keep = torch.zeros(h.shape[0], dtype=torch.bool)
        keep.view(1, -1).copy_((h[:, 0] > 0).view(1, -1))
        sel = h[keep]
        return sel.sum() / sel.shape[0]  # error here


class Unique(Base):
    """unique: the result's shape depends on the data."""

    def forward(self, x):
        h = self.fc(x)
        return torch.unique(h.round()).sum() * h.mean()  # error here


class NumpyInForward(Base):
    """A tensor's values read into numpy (a numpy alignment search): no
    trace records numpy."""

    def forward(self, x):
        h = self.fc(x)
        path = torch.from_numpy((h.detach().numpy() > 0).astype("float32"))  # error here
        return (h * path).sum()


class ReturnsLogits(Base):
    """forward returns logits, not the loss."""

    def forward(self, x):
        return self.fc(x)  # error here


class ComplexLog(Base):
    """A complex op ops/complex.py does not lower (the logarithm of a
    complex tensor; complex rotary embeddings and FFTs are lowered)."""

    def forward(self, x):
        h = self.fc(x)
        z = torch.view_as_complex(h.reshape(h.shape[0], 2, 2))
        return torch.view_as_real(torch.log(z)).sum()  # error here


class ComplexSliceAssignment(Base):
    """A write into a complex tensor through a view of it (torch 1.13's
    make_fx cannot differentiate the complex slice_scatter that updates the
    tensor; the reference FNO code's direct out_ft[..., :modes] = ... is
    written through its real view and imports)."""

    def forward(self, x):
        spectrum = torch.fft.rfft(self.fc(x))
        out = torch.zeros(x.shape[0], 3, dtype=torch.cfloat)
        out[:, 1:][:, :1] = spectrum[:, :1] * 2  # error here
        return torch.fft.irfft(out, n=4).sum()  # (the next reader: named before the sync)


class LongFft(Base):
    """A DFT of a prime size above ops/complex.py's MAX_DFT_SIZE (it has
    no factors to split it into)."""

    def forward(self, x):
        return torch.fft.rfft(self.fc(x), n=1031).abs().mean()  # error here


class EmbeddingMaxNorm(nn.Module):
    """nn.Embedding(max_norm=...) renormalizes its weight in place while
    looking rows up."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8, max_norm=1.0)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        ids = (x[:, :3].abs() * 3).long()
        return self.fc(self.emb(ids)).mean()  # error here


class PlainTensorState(nn.Module):
    """Center-loss centers kept as a plain tensor attribute (no buffer),
    updated in place in forward."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)
        self.centers = torch.zeros(3, 3)

    def forward(self, x):
        f = self.fc(x)
        y = torch.tensor([0, 1, 2, 0, 1, 2])
        loss = (f - self.centers[y]).pow(2).mean()
        with torch.no_grad():
            self.centers.mul_(0.5).index_add_(0, y, 0.5 * f)  # error here
        return loss


class PlainHiddenState(nn.Module):
    """A truncated-BPTT hidden state kept as a plain tensor attribute (no
    buffer), the GRU's initial state."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(8, 4)
        self.hidden = torch.zeros(1, 4)

    def forward(self, x):
        out, h = self.rnn(x, self.hidden)  # error here
        self.hidden = h.detach()
        return out.pow(2).mean()


class PlainTensorRebound(nn.Module):
    """A running loss scale kept as a plain tensor attribute (no buffer),
    rebound in forward without any op writing it: torch carries it, a
    compiled step would keep the traced call's value."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)
        self.running = torch.tensor(1.0)

    def forward(self, x):
        loss = self.fc(x).pow(2).mean()
        self.running = 0.5 * self.running + 0.5 * loss.detach()  # error here
        return loss / self.running


class FrozenLeftInForward(nn.Module):
    """A critic frozen in forward for the actor's loss and never unfrozen:
    torch gives it no gradient at all (backward checks the flag), and it
    stays frozen for every later call; tfc refuses rather than train it
    from the ops before the freeze."""

    def __init__(self):
        super().__init__()
        self.critic, self.actor = nn.Linear(8, 1), nn.Linear(8, 8)

    def forward(self, x):
        critic_loss = self.critic(x).pow(2).mean()
        self.critic.requires_grad_(False)  # error here
        return critic_loss - self.critic(torch.tanh(self.actor(x))).mean()


class CopyUnderNoGrad(Base):
    """copy_ under no_grad into a tensor that requires grad: functionalization
    replaces the tensor by the copied value, so nothing is left to route
    the gradient through."""

    def forward(self, x):
        h = self.fc(x)
        with torch.no_grad():
            h.copy_(torch.round(h * 4) / 4)  # error here
        return h.pow(2).mean()


class RandomRRelu(Base):
    """nn.RReLU in training mode draws its slopes from torch's generator."""

    def __init__(self):
        super().__init__()
        self.act = nn.RReLU()

    def forward(self, x):
        return self.act(self.fc(x)).mean()  # error here


class DoubleInterpolation(Base):
    """Bilinear interpolation of a float64 tensor: tfc computes torch's
    index and weight tables as its kernels do for float32."""

    def forward(self, x):
        h = self.fc(x).double().view(1, 1, 6, 4)
        return F.interpolate(h, scale_factor=1.5, mode="bilinear").mean()  # error here


class StridedOutsideView(Base):
    """as_strided of a slice reaching storage outside it: torch reads the
    larger tensor's elements, which the traced slice does not hold."""

    def forward(self, x):
        h = self.fc(x)[:, 1:]
        return h.as_strided((2, 4), (4, 1), 0).sum()  # error here


class OverlappingStridedWrite(Base):
    """An in-place write through an as_strided view whose positions name
    elements twice (as_strided_scatter; torch leaves the winner
    undefined). The error names the write's line, not the later read
    where functionalization emits the scatter."""

    def forward(self, x):
        h = self.fc(x) * 1.0
        h.as_strided((3, 3), (1, 1)).mul_(2.0)  # error here
        return h.sum()


class BetaDraw(Base):
    """mixup's weight drawn from torch.distributions.Beta: torch's own
    _Dirichlet Function underneath, a gamma draw tfc does not have."""

    def forward(self, x):
        lam = torch.distributions.Beta(0.4, 0.4).sample()  # error here
        return self.fc(lam * x + (1 - lam) * x.flip(0)).pow(2).mean()


class PackedWithoutTotalLength(Base):
    """pad_packed_sequence without total_length pads to the longest length
    (2 here, of 3 padded steps): a shape that depends on the lengths'
    values."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(4, 3, batch_first=True)

    def forward(self, x):
        h = self.fc(x).view(2, 3, 4)
        packed = nn.utils.rnn.pack_padded_sequence(h, torch.tensor([2, 1]), batch_first=True)
        out, _ = nn.utils.rnn.pad_packed_sequence(self.rnn(packed)[0], batch_first=True)  # error here
        return out.mean()


class PackedData(Base):
    """Reading a packed sequence's .data (its packed layout depends on the
    lengths' values; tfc keeps it padded while tracing)."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(4, 3, batch_first=True)

    def forward(self, x):
        h = self.fc(x).view(2, 3, 4)
        out, _ = self.rnn(nn.utils.rnn.pack_padded_sequence(h, torch.tensor([3, 2]),
                                                            batch_first=True))
        return out.data.mean()  # error here


def example_batch():
    return (torch.randn(6, 8, generator=torch.Generator().manual_seed(0)),)


class UnsizedObserver(Base):
    """A per-channel fused observer (QAT weights) before its first
    observation: its min_val / max_val buffers are still empty (torch
    sizes them then), so the model state has no static shape."""

    def __init__(self):
        super().__init__()
        from torch.ao.quantization.fake_quantize import default_fused_per_channel_wt_fake_quant
        self.weight_fake_quant = default_fused_per_channel_wt_fake_quant()

    def forward(self, x):
        w = self.weight_fake_quant(self.fc.weight)  # error here
        return F.linear(x, w, self.fc.bias).mean()


class NonFusedFakeQuant(Base):
    """torch.ao.quantization's non-fused FakeQuantize: Python observers that
    branch on buffer values."""

    def __init__(self):
        super().__init__()
        from torch.ao.quantization import FakeQuantize, MovingAverageMinMaxObserver
        self.act_fake_quant = FakeQuantize(observer=MovingAverageMinMaxObserver, quant_min=0,
                                           quant_max=255)

    def forward(self, x):
        return self.act_fake_quant(self.fc(x)).mean()  # error here


class LearnableFakeQuant(Base):
    """torch.ao.quantization's _LearnableFakeQuantize module: flags read by
    value, parameters written in place."""

    def __init__(self):
        super().__init__()
        from torch.ao.quantization import MovingAverageMinMaxObserver
        from torch.ao.quantization._learnable_fake_quantize import _LearnableFakeQuantize
        self.act_fake_quant = _LearnableFakeQuantize(observer=MovingAverageMinMaxObserver,
                                                     quant_min=0, quant_max=255)

    def forward(self, x):
        return self.act_fake_quant(self.fc(x)).mean()  # error here


class TorchvisionOp(Base):
    """torchvision.ops.roi_align (a two-stage detector's head) has no
    lowering; the error points at the model's call, not into
    torchvision/ops."""

    def forward(self, x):
        from torchvision.ops import roi_align
        maps = self.fc(x).view(1, 1, 6, 4)
        boxes = torch.tensor([[0.0, 0.5, 0.5, 3.0, 4.0]])
        return roi_align(maps, boxes, output_size=2, aligned=True).sum()  # error here


class GeneratorDraw(Base):
    """A random draw with an explicit torch.Generator: make_fx cannot take
    one; tfc draws its own stream."""

    def __init__(self):
        super().__init__()
        self.g = torch.Generator().manual_seed(0)

    def forward(self, x):
        noise = torch.randn(x.shape, generator=self.g)  # error here
        return self.fc(x + noise).pow(2).mean()


class SelectionViewRows(Base):
    """A view of a masked selection with a number as dim 0 (ReID hard
    mining: dist[is_pos].view(N, -1), the positives of each row as its
    columns); a torch function mode of tfc's own between the model and the
    size check must not hide the call."""

    def forward(self, x):
        h = self.fc(x)
        dist = torch.cdist(h, h)
        is_pos = torch.eye(6, dtype=torch.bool) | (dist < dist.mean())
        return dist[is_pos].view(6, -1).max(1)[0].mean()  # error here


class QueuePointer(Base):
    """MoCo's key queue: its pointer buffer read as a number to slice the
    queue, then advanced (model state, a new value every call)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("queue", torch.randn(4, 12))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))

    def forward(self, x):
        q = self.fc(x)
        loss = (q @ self.queue).logsumexp(1).mean()
        with torch.no_grad():
            ptr = int(self.queue_ptr)  # error here
            self.queue[:, ptr:ptr + q.shape[0]] = q.T
            self.queue_ptr[0] = (ptr + q.shape[0]) % 12
        return loss


class PackedLengthsList(Base):
    """pack_padded_sequence given the lengths as a list read from a tensor."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(8, 4, batch_first=True)

    def forward(self, x):
        h = x.view(2, 3, 8)
        lengths = (h.abs().sum(2) > 0).sum(1)
        packed = nn.utils.rnn.pack_padded_sequence(h, lengths.tolist(), batch_first=True)  # error here
        return self.rnn(packed)[1].sum()


def _tutorial_argmax(vec):
    _, idx = torch.max(vec, 1)
    return idx.item()  # error here (TutorialLogSumExp)


def _cached_arange(n):
    """fairseq's buffered_arange: a tensor cached on the function itself."""
    if not hasattr(_cached_arange, "buf"):
        _cached_arange.buf = torch.LongTensor()
    if n > _cached_arange.buf.numel():
        _cached_arange.buf.resize_(n)
        torch.arange(n, out=_cached_arange.buf)
    return _cached_arange.buf[:n]


class FunctionAttributeCache(Base):
    """wav2vec's negative sampling through buffered_arange: the trace fills
    the cache with a traced tensor, which the run after the trace meets
    (torch's INTERNAL ASSERT before); the cache is taken back."""

    def forward(self, x):
        h = self.fc(x)
        with torch.no_grad():
            starts = _cached_arange(h.size(0))
            idx = torch.randint(0, h.size(0) - 1, (h.size(0),))
            idx[idx >= starts] += 1  # error here
        return h[idx].sum()


class SliceAtTensorStart(Base):
    """VITS's slice_segments: a window of each row at a start drawn as a
    tensor, sliced with it read as a number."""

    def forward(self, x):
        h = self.fc(x)
        ids = torch.randint(0, 2, (h.size(0),))
        rows = [h[i, ids[i]:ids[i] + 2] for i in range(h.size(0))]  # error here
        return torch.stack(rows).sum()


class TutorialLogSumExp(Base):
    """The pytorch.org BiLSTM-CRF tutorial's log_sum_exp: the max picked by
    an index read as a number."""

    def forward(self, x):
        vec = self.fc(x)[:1]
        max_score = vec[0, _tutorial_argmax(vec)]
        broadcast = max_score.view(1, -1).expand(1, vec.size(1))
        return max_score + torch.log(torch.sum(torch.exp(vec - broadcast)))


class HeldFlagThenBranch(Base):
    """A legal read of a constant flag buffer (`if not self.initted:`,
    folded), then a branch on the data (lucidrains' expire_codes_): the
    error is at the branch, not at the flag read of the trace again
    without held values."""

    def __init__(self):
        super().__init__()
        self.register_buffer("initted", torch.tensor([True]))

    def forward(self, x):
        if not self.initted:
            raise RuntimeError("not initialized")
        h = self.fc(x)
        if torch.any(h > 5):  # error here
            h = h * 0
        return h.pow(2).mean()


class ParameterViewZeroed(Base):
    """A view of a parameter's .data zeroed in forward (pytorch-vqvae's
    GatedMaskedConv2d.make_causal): functionalization refuses the write
    after the call; the error names the parameter and the line."""

    def forward(self, x):
        self.fc.weight.data[:, -1].zero_()  # error here
        return self.fc(x).pow(2).mean()


class FlagInitialized(Base):
    """Glow's ActNorm compiled before its first eager call: a flag buffer
    read, then a data-dependent initialization writing the parameters."""

    def __init__(self):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(4))
        self.register_buffer("initialized", torch.tensor(0, dtype=torch.uint8))

    def forward(self, x):
        h = self.fc(x)
        if self.initialized.item() == 0:
            with torch.no_grad():
                self.loc.data.copy_(-h.mean(0))  # error here
            self.initialized.fill_(1)
        return (h + self.loc).pow(2).mean()


class PlainTensorRequiresGrad(Base):
    """functorch's model ensembling: weights kept on the module as plain
    tensors made to require grad (`p.requires_grad_()`), no nn.Parameter: a
    training import would read them as constants (it crashed in
    constants.dense_text, or gave 'nothing to train')."""

    def __init__(self):
        super().__init__()
        self.w = torch.randn(4, 8).requires_grad_()

    def forward(self, x):
        return (self.fc(x) @ self.w).pow(2).mean()  # error here


# CleanRL SAC's temperature: a global leaf trained by its own optimizer.
LOG_ALPHA = torch.zeros(1, requires_grad=True)


class GlobalRequiresGrad(Base):
    """A global tensor that requires grad read in forward (CleanRL SAC's
    log_alpha packaged into one loss): a training import folded it into a
    constant silently, so alpha never adapted."""

    def forward(self, x):
        logp = -self.fc(x).pow(2).sum(1)
        return (-LOG_ALPHA.exp() * (logp.detach() + 2.0)).mean()  # error here


class SparseBuiltInForward(Base):
    """A sparse adjacency built in forward (a GCN from its edge list):
    torch 1.13 cannot trace it; the hint builds it dense or passes it in."""

    def forward(self, x):
        edges = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 0]])
        adj = torch.sparse_coo_tensor(edges, torch.ones(4), (6, 6))  # error here
        return torch.sparse.mm(adj, self.fc(x)).pow(2).mean()


class RealQuantizeRoundTrip(Base):
    """int8 emulation by a real quantize / dequantize round trip (a
    quint8 tensor in between) with a straight-through estimator."""

    def forward(self, x):
        q = torch.quantize_per_tensor(x.detach(), 0.05, 0, torch.quint8)  # error here
        xq = q.dequantize()
        return self.fc(x + (xq - x).detach()).pow(2).mean()


class SeedInForward(Base):
    """A fixed perturbation: torch.manual_seed inside forward (under
    fork_rng) repeats torch's draw every call; the compiled program would
    draw a new one each call."""

    def forward(self, x):
        with torch.random.fork_rng():
            torch.manual_seed(123)  # error here
            d = torch.randn_like(x)
        return self.fc(x + 0.5 * d).pow(2).mean()


class IfAfterAssert(Base):
    """An `if` on a tensor's value right after an assert: only the assert
    statement's own bool() is taken to hold; this one was traced as True
    (silently: h * 0.0 for data where torch never takes the branch)."""

    def forward(self, x):
        h = self.fc(x)
        assert h.dim() == 2
        if (h > 100).any():  # error here
            h = h * 0.0
        return h.pow(2).mean()


class NanGuardWarns(Base):
    """A NaN guard that warns from forward: the step cannot branch on the
    loss; the hint says to check the returned loss (loss scaling skips
    non-finite steps) rather than about torch.where."""

    def forward(self, x):
        loss = self.fc(x).pow(2).mean()
        if torch.isnan(loss):  # error here
            import warnings
            warnings.warn("NaN loss")
        return loss


class LoggedItem(Base):
    """A loss value printed from forward: .item() stays refused, with a
    hint about logging outside the step."""

    def forward(self, x):
        loss = self.fc(x).pow(2).mean()
        print(f"loss {loss.item():.4f}")  # error here
        return loss


class LazyUninitialized(nn.Module):
    """A lazy module never called before compiling: its parameters have no
    shape to trace (torch's text spoke of load_state_dict)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.LazyLinear(4)

    def forward(self, x):
        return self.fc(x).pow(2).mean()  # error here


class LazyBufferUninitialized(nn.Module):
    """A lazy batch norm never called: its running statistics are
    uninitialized buffers too (torch's ValueError escaped from cloning
    them)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)
        self.bn = nn.LazyBatchNorm1d(affine=False)

    def forward(self, x):
        return self.bn(self.fc(x)).pow(2).mean()  # error here


class LearnedScalarArgument(Base):
    """A learned 0-d tensor given where aten takes a number (add's alpha):
    aten reads it as a number in C++, which no trace can hold; the error
    names the argument (it spoke of an if / .item() the line lacks)."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(0.5))

    def forward(self, x):
        h = self.fc(x)
        return torch.add(h, h.tanh(), alpha=self.scale).pow(2).mean()  # error here


class MetricsItem(Base):
    """Metrics read with .item() into a dict for the training loop to log
    (RAFT's sequence_loss): the hint says to keep them in a buffer or
    compute them outside the step (it gave the control-flow hint)."""

    def forward(self, x):
        h = self.fc(x)
        loss = h.pow(2).mean()
        self.stats = {"mean": h.mean().item(), "loss": loss.item()}  # error here
        return loss


class ItemToComputeWith(Base):
    """A number read with .item() to compute with (SAC's alpha =
    log_alpha.exp().item()): the hint names .detach()."""

    def __init__(self):
        super().__init__()
        self.log_alpha = nn.Parameter(torch.tensor(-1.0))

    def forward(self, x):
        alpha = self.log_alpha.exp().item()  # error here
        return (alpha * self.fc(x)).pow(2).mean()


class ComplexMaskedSelection(Base):
    """A boolean-mask selection of complex values (a data-dependent number
    of rows): refused by name with the real-view form (it was an
    AttributeError inside the import)."""

    def forward(self, x):
        spectrum = torch.fft.rfft(self.fc(x))
        strong = spectrum[spectrum.real > 0.1]  # error here
        return (strong * 1j).abs().sum()
