"""Packed sequences (torch.nn.utils.rnn) as masked padded tensors.

`pack_padded_sequence` lays a batch of sequences out by their lengths'
values (`batch_sizes`), and the RNNs walk that layout: nothing a trace of
fixed shapes can record. While tracing (traceable.py installs `replaced`),
a packed sequence keeps its padded tensor instead: the private `_VF` calls
of torch.nn.utils.rnn are replaced, so pack_padded_sequence returns a
PackedSequence whose `data` is the padded batch-first tensor [B, T, ...]
(in the sorted order torch packs, when enforce_sorted=False) and whose
lengths this module keeps; nn.LSTM / nn.GRU / nn.RNN given such a sequence
run their recurrence over all T steps with each sequence's state frozen
past its length (a reverse direction starts at its last valid step) and
zeros as the output there, which is what the packed computation gives; and
pad_packed_sequence returns the padded output with `padding_value` past each
length and the lengths. Sorting, hx and h_n ordering stay torch's own code.
A model that reads such a sequence's `.data` or `.batch_sizes` itself (the
padded layout where torch has the packed one), or rebuilds one from its
fields, is refused.

One difference: without `total_length`, torch pads to the longest length of
the batch (a shape that depends on the values); the trace pads to the
input's length T. An eager run after such a trace checks the example
(tracing.py, `unchecked()`, check=True): a batch whose longest sequence is
shorter than T is refused, asking for total_length. Every later batch is
checked too: the trace marks the node of each such padding's lengths
(MAX_OF_LENGTHS), and `LengthCheck` runs the part of the graph that
computes their maxima from the batch on each call of a compiled step or
forward, before the program runs.
"""
import contextlib
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.utils import rnn as rnn_utils

from .errors import ModelError
from .source import node_frame

# id(padded data) -> (the data, lengths [B] int64), for the sequences
# packed while a `replaced` block runs (the data held, so no other tensor
# takes its id while the block runs).
_LENGTHS = {}
# Whether a trace padded a packed sequence without total_length: the
# example's lengths must then be checked in an eager run (unchecked()).
_UNCHECKED = [False]


# fx node meta key: the node is max(lengths) of a padding without
# total_length, its value the number of steps T the trace pads to (set by
# tracing.py's node hook while MARKING holds T).
MAX_OF_LENGTHS = "tfc_max_of_lengths"
MARKING: list = [None]


def unchecked() -> bool:
    """Whether the last trace padded without total_length (and resets it):
    the caller then runs the model eagerly under replaced(check=True)."""
    flag, _UNCHECKED[0] = _UNCHECKED[0], False
    return flag


def _time_mask(lengths, steps):
    """[B, T] bool: step t of sequence b is inside its length."""
    return torch.arange(steps)[None, :] < lengths[:, None]


class _VF:
    """torch.nn.utils.rnn's `_VF` while tracing: the two packing kernels
    as padded tensors; everything else the real one."""

    def __init__(self, real, check):
        self._real = real
        self._check = check

    def __getattr__(self, name):
        return getattr(self._real, name)

    def _pack_padded_sequence(self, input, lengths, batch_first):
        # A fresh tensor object either way: the same input packed twice with
        # other lengths must not share an entry.
        data = input.view(input.shape) if batch_first else input.transpose(0, 1)
        steps = data.shape[1]
        _LENGTHS[id(data)] = (data, lengths)
        batch_sizes = _time_mask(lengths, steps).sum(0)
        return data, batch_sizes

    def _pad_packed_sequence(self, data, batch_sizes, batch_first, padding_value,
                             max_seq_length):
        held = _LENGTHS.get(id(data))
        if held is None or held[0] is not data:
            return self._real._pad_packed_sequence(data, batch_sizes, batch_first,
                                                   padding_value, max_seq_length)
        lengths = held[1]
        steps = data.shape[1]
        no_total_length = sys._getframe(1).f_locals.get("total_length") is None
        _UNCHECKED[0] |= no_total_length and not self._check
        if self._check and no_total_length and int(lengths.max()) < steps:
            raise ModelError(
                f"pad_packed_sequence without total_length pads to the longest of the "
                f"lengths ({int(lengths.max())} in the example, of {steps} steps): a shape "
                "that depends on the lengths' values",
                hint=f"pass total_length={steps} (the padded input's length)")
        if no_total_length and not self._check:
            # A node nothing reads (the import leaves it out) that
            # LengthCheck computes for each batch.
            MARKING[0] = steps
            try:
                lengths.max()
            finally:
                MARKING[0] = None
        mask = _time_mask(lengths, steps).reshape((data.shape[0], steps) + (1,) * (data.dim() - 2))
        out = torch.where(mask, data, torch.full_like(data, padding_value))
        if max_seq_length > steps:
            out = F.pad(out, (0, 0) * (data.dim() - 2) + (0, max_seq_length - steps),
                        value=padding_value)
        return (out if batch_first else out.transpose(0, 1)), lengths


class LengthCheck:
    """Checks each call's batch against the paddings traced without
    total_length: the part of the traced graph that computes max(lengths)
    of each, run eagerly on the batch (placeholders in the trace's order:
    parameters, buffers, batch leaves), must give the T the trace padded
    to, or torch's output would be shorter than the program's."""

    def __init__(self, gm: torch.fx.GraphModule, marks, values):
        self.module = gm
        self.steps = [n.meta[MAX_OF_LENGTHS] for n in marks]
        self.frames = [node_frame(n) for n in marks]
        self.values = values      # buffers' values; None for parameters and the batch
        self.first_input = next(i for i, v in enumerate(values) if v is INPUT)

    def __call__(self, leaves) -> None:
        args = list(self.values[:self.first_input]) + list(leaves)
        with torch.no_grad():
            found = self.module(*args)
        for longest, steps, frame in zip(found, self.steps, self.frames):
            longest = int(longest)
            if longest != steps:
                raise ModelError(
                    f"pad_packed_sequence without total_length pads to the longest of the "
                    f"lengths, {longest} in this batch, where the compiled program pads to "
                    f"{steps} (the example's longest): its output would be shorter in torch",
                    frame, f"pass total_length={steps} (the padded input's length) to "
                    "pad_packed_sequence")


# LengthCheck's marker of a batch leaf's place among the placeholders.
INPUT = object()


def length_check(gm: torch.fx.GraphModule, placeholders) -> "LengthCheck | None":
    """The per-call check of the paddings a trace made without
    total_length (their max(lengths) nodes, MAX_OF_LENGTHS), over
    `placeholders` (tracing.Placeholder, one per placeholder node, in
    order); None when there are none or their lengths are constants (the
    eager run checked the example's)."""
    marks = [n for n in gm.graph.nodes if MAX_OF_LENGTHS in n.meta]
    if not marks:
        return None
    needed, stack = set(), list(marks)
    while stack:
        n = stack.pop()
        if n not in needed:
            needed.add(n)
            stack.extend(n.all_input_nodes)
    nodes = [n for n in gm.graph.nodes if n.op == "placeholder"]
    roles = dict(zip(nodes, placeholders))
    read = [roles[n] for n in nodes if n in needed]
    if not any(ph.role == "input" for ph in read):
        return None
    random = [n for n in needed if isinstance(n.target, torch._ops.OpOverload)
              and torch.Tag.nondeterministic_seeded in n.target.tags]
    if random or any(ph.role == "param" for ph in read):
        steps = marks[0].meta[MAX_OF_LENGTHS]
        raise ModelError("pad_packed_sequence without total_length pads to the longest of "
                         "lengths computed from the parameters or random draws: tfc cannot "
                         "check them for each batch", node_frame(marks[0]),
                         f"pass total_length={steps} (the padded input's length)")
    graph, env = torch.fx.Graph(), {}
    for n in gm.graph.nodes:
        if n.op == "placeholder" or n in needed:
            env[n] = graph.node_copy(n, lambda m: env[m])
    graph.output(tuple(env[m] for m in marks))
    values = [INPUT if ph.role == "input" else
              (ph.tensor.detach().clone() if ph.role == "buffer" and n in needed
               else None)
              for n, ph in zip(nodes, placeholders)]
    return LengthCheck(torch.fx.GraphModule(gm, graph), marks, values)


_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
_OWN_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


class _PaddedPackedSequence(rnn_utils.PackedSequence):
    """A PackedSequence whose `data` is the padded batch (this module's):
    torch's own code and this module read its fields; a model that reads
    `.data` or `.batch_sizes` itself would get the padded layout where torch
    gives the packed one, so it is refused."""

    def _field(self, index, name):
        caller = sys._getframe(2).f_code.co_filename
        path = os.path.abspath(caller)
        if not (path.startswith(_TORCH_DIR) or path.startswith(_OWN_DIR)):
            raise ModelError(f"the model reads a packed sequence's .{name}: tfc keeps packed "
                             "sequences padded while tracing (their packed layout depends on "
                             "the lengths' values)",
                             hint="read the output of pad_packed_sequence instead")
        return tuple.__getitem__(self, index)

    @property
    def data(self):
        return self._field(0, "data")

    @property
    def batch_sizes(self):
        return self._field(1, "batch_sizes")


def _packed_sequence_init(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    """torch.nn.utils.rnn._packed_sequence_init, making the padded kind."""
    return _PaddedPackedSequence(data, batch_sizes, sorted_indices, unsorted_indices)


def _invert_permutation(permutation):
    """torch.nn.utils.rnn.invert_permutation without its integer scatter:
    the inverse of a permutation is its argsort."""
    return None if permutation is None else torch.argsort(permutation)


def _cell(mode, x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr):
    """One step of an LSTM / GRU / RNN cell as torch defines it."""
    gi = F.linear(x, w_ih, b_ih)
    gh = F.linear(h, w_hh, b_hh)
    if mode == "LSTM":
        i, f, g, o = (gi + gh).chunk(4, 1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return (F.linear(h, w_hr) if w_hr is not None else h), c
    if mode == "GRU":
        ir, iz, inn = gi.chunk(3, 1)
        hr, hz, hn = gh.chunk(3, 1)
        r, z = torch.sigmoid(ir + hr), torch.sigmoid(iz + hz)
        n = torch.tanh(inn + r * hn)
        return (1 - z) * n + z * h, c
    return (torch.tanh(gi + gh) if mode == "RNN_TANH" else torch.relu(gi + gh)), c


def _masked_recurrence(module, data, lengths, h0, c0):
    """The RNN over padded [B, T, I] data with per-sequence lengths:
    (output [B, T, D * P], h_n, c_n)."""
    steps = data.shape[1]
    mask = _time_mask(lengths, steps)
    directions = 2 if module.bidirectional else 1
    layer_input, hs, cs = data, [], []
    for layer in range(module.num_layers):
        outputs = []
        for d in range(directions):
            suffix = f"_l{layer}" + ("_reverse" if d else "")
            weights = [getattr(module, f"{kind}{suffix}", None)
                       for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")]
            h = h0[layer * directions + d]
            c = c0[layer * directions + d] if c0 is not None else None
            out = [None] * steps
            for t in (range(steps) if d == 0 else range(steps - 1, -1, -1)):
                h_new, c_new = _cell(module.mode, layer_input[:, t], h, c, *weights)
                keep = mask[:, t, None]
                h = torch.where(keep, h_new, h)
                if c is not None:
                    c = torch.where(keep, c_new, c)
                out[t] = torch.where(keep, h, torch.zeros_like(h))
            outputs.append(torch.stack(out, 1))
            hs.append(h)
            cs.append(c)
        layer_input = torch.cat(outputs, -1) if directions == 2 else outputs[0]
        if module.dropout and module.training and layer + 1 < module.num_layers:
            layer_input = F.dropout(layer_input, module.dropout, True)
    return layer_input, torch.stack(hs), (torch.stack(cs) if c0 is not None else None)


def _rnn_forward(original):
    """nn.LSTM / GRU / RNN forward: a sequence packed while tracing runs the
    masked recurrence, anything else the module's own forward."""
    def forward(self, input, hx=None):
        if not isinstance(input, _PaddedPackedSequence):
            return original(self, input, hx)
        data, batch_sizes, sorted_indices, unsorted_indices = input
        held = _LENGTHS.get(id(data))
        if held is None or held[0] is not data:
            raise ModelError("a packed sequence rebuilt from its fields (PackedSequence(f(p.data), "
                             "...), .to(), ...) while tracing: tfc keeps packed sequences padded",
                             hint="apply f before packing, or to pad_packed_sequence's output")
        lengths = held[1]
        lstm = self.mode == "LSTM"
        rows = self.num_layers * (2 if self.bidirectional else 1)
        if hx is None:
            size = self.proj_size if getattr(self, "proj_size", 0) > 0 else self.hidden_size
            h0 = torch.zeros(rows, data.shape[0], size, dtype=data.dtype)
            c0 = torch.zeros(rows, data.shape[0], self.hidden_size, dtype=data.dtype) \
                if lstm else None
        else:
            hx = self.permute_hidden(hx, sorted_indices)
            h0, c0 = hx if lstm else (hx, None)
        out, h_n, c_n = _masked_recurrence(self, data, lengths, h0, c0)
        _LENGTHS[id(out)] = (out, lengths)
        packed = _PaddedPackedSequence(out, batch_sizes, sorted_indices, unsorted_indices)
        hidden = (h_n, c_n) if lstm else h_n
        return packed, self.permute_hidden(hidden, unsorted_indices)
    return forward


@contextlib.contextmanager
def replaced(check: bool = False):
    """Packed sequences as masked padded tensors while tracing (check=False)
    or while the eager run checks the example (check=True)."""
    real, invert, init = rnn_utils._VF, rnn_utils.invert_permutation, \
        rnn_utils._packed_sequence_init
    classes = (torch.nn.LSTM, torch.nn.GRU, torch.nn.RNN)
    originals = [cls.__dict__["forward"] for cls in classes]
    rnn_utils._VF = _VF(real, check)
    rnn_utils.invert_permutation = _invert_permutation
    rnn_utils._packed_sequence_init = _packed_sequence_init
    for cls, original in zip(classes, originals):
        cls.forward = _rnn_forward(original)
    try:
        yield
    finally:
        rnn_utils._VF, rnn_utils.invert_permutation = real, invert
        rnn_utils._packed_sequence_init = init
        for cls, original in zip(classes, originals):
            cls.forward = original
        _LENGTHS.clear()
