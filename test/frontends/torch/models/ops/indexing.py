"""Cases for tfc_torch/ops/indexing.py's lowerings: advanced indexing and
indexed assignment with integer index tensors, writes behind whole dims
(index_rewrites.py), 0-d tensor indices, boolean masks known at trace time
at any position, masked_scatter. Masked selections of traced masks are
masked.py's cases."""
import torch

from .common import _case, _ramp_sum

CASES = {
    # repeat_interleave(counts, output_size=N): a graph batch's node-to-
    # graph ids from per-graph node counts (empty graphs included), then a
    # per-graph sum by index_add.
    "repeat-interleave-counts": lambda: _repeat_interleave_counts(),
    # torch.empty filled row by row in forward (RNN tutorials, LRU ports):
    # folded to zeros, not to the uninitialized memory torch.empty returned
    # (each import differed: check's no_grad import compares the texts).
    "empty-filled": lambda: _empty_filled(),
    # Advanced indexing with several index tensors: the last valid token of
    # each sequence (logits[arange(b), lengths], lengths a batch input with
    # -1 among them), adjacent index tensors in the middle (x[:, i, j]) and
    # separated ones (x[i, :, j], whose dims go in front), broadcasting
    # ([2, 1] with [3]), repeated and negative indices, known and traced.
    "advanced-indexing": _case(lambda h, lengths, cols: _advanced_indexing(h, lengths, cols),
                               extra=(torch.tensor([3, -1]), torch.tensor([[1], [-2]]))),
    # Indexed assignment with several index tensors: known and traced
    # indices (negative among them), accumulate with repeated indices,
    # a dim taken whole between the index tensors and in front of them.
    "advanced-assignment": _case(lambda h, rows, cols: _advanced_assignment(h, rows, cols),
                                 extra=(torch.tensor([1, 0, -1]), torch.tensor([[2], [-1]]))),
    # Indexed writes behind whole dims, as statements (tfc_torch's
    # index_rewrites.py: torch 1.13's functionalization fails on them as
    # written): x[:, i] = v with v varying along i and broadcasting,
    # x[..., i] += scalar, adjacent (x[:, i, j]) and separated (x[i, :, j])
    # index tensors, masks known at trace time and computed from the data
    # behind whole dims (scalar and broadcast values), traced indices.
    "index-writes": _case(lambda h, cols, mask: _index_writes(h, cols, mask),
                          extra=(torch.tensor([5, 1, -2]),
                                 torch.tensor([True, False, False, True, True]))),
    # 0-d integer tensors as indices (w[:, idx[i]] over the top delays,
    # Autoformer): read behind a whole dim, two at the front, written with a
    # scalar, a value of the selection's shape and +=; the indices traced
    # (topk of the data).
    "scalar-tensor-index": _case(lambda h: _scalar_tensor_index(h)),
    # A boolean mask among 0-d integer tensor indices in a write
    # (PyTorch-YOLOv3's build_targets: noobj_mask[b[i], ious > t, gj[i],
    # gi[i]] = 0): a 1-d mask between 0-d indices, a row value over the
    # dims after the mask, a 2-d mask, an Ellipsis before the mask with a
    # column value over the dim before it; the
    # indices and masks traced from the data.
    "mask-among-scalar-indices": _case(lambda h: _mask_among_scalar_indices(h)),
    # Boolean masks known at trace time indexing any dims: x[:, mask]
    # (static shape: the mask's true coordinates as indices), a 2-d mask
    # behind a dim (the upper triangle of each head), a mask next to an
    # index tensor (torch broadcasts the mask's coordinates with it).
    "known-masks": _case(lambda h, rows: _known_masks(h, rows), extra=(torch.tensor([3, 0, 1]),)),
    # masked_scatter: a traced mask (h > 0), a broadcast mask ([4, 1]
    # over [4, 8]), a broadcast input ([8] over a [4, 8] mask), a source
    # with more elements than true positions (its tail gets no gradient).
    "masked-scatter": _case(lambda h: _masked_scatter(h)),
    # Integer and boolean tables indexed by traced ids (a sort's
    # permutation of the labels, as the Lovasz hinge does): gathered through
    # f64 rows (i64 as its two 32-bit halves), exact for every value,
    # 2^62 and -2^61 among them; a one-hot selection cost ids x rows.
    "integer-gathers": _case(lambda h, labels, big, keep: _integer_gathers(h, labels, big, keep),
                             extra=(torch.tensor([2, 0, 1, 1, 0, 2, 1, 0]),
                                    torch.tensor([2 ** 62 + 5, -2 ** 61 - 7, 123, -1, 2 ** 40 + 3,
                                                  0, 77, -2 ** 33]),
                                    torch.tensor([True, False, True, True, False, False, True,
                                                  False]))),
}


def _integer_gathers(h, labels, big, keep):
    scores = h.sum(0)                                  # [8]
    perm = torch.sort(scores, descending=True)[1]
    picked = big[perm[:5]]
    exact = (picked == big[perm][:5]).float().sum() + ((picked >> 40) & 1023).float().sum()
    rows = labels.view(2, 4).int()[perm[:3] % 2]       # i32 rows
    return ((scores[perm] * labels[perm].float()).sum() + (scores * keep[perm]).sum()
            + (rows.float() * scores[:4]).sum() + exact)


def _advanced_indexing(h, lengths, cols):
    seq = h.view(2, 4, 4)                          # [batch, time, channels]
    ramp = torch.linspace(0.5, 1.5, 4)
    last = seq[torch.arange(2), lengths]           # [2, 4]
    inner = seq[:, torch.tensor([[0], [3]]), torch.tensor([1, -1, 1])]   # [2, 2, 3]
    apart = seq[torch.tensor([1, 0, 1]), :, torch.tensor([2, 2, -4])]    # [3, 4]
    traced = seq[cols, lengths, torch.tensor([0, 3])]                   # [2, 2]
    square = h[torch.tensor([3, 0, 3]), torch.tensor([7, -8, 7])]        # repeated
    return ((last * ramp).sin().sum() + (inner * torch.arange(3.0)).pow(2).sum()
            + (apart * ramp).exp().sum() + traced.tanh().sum() * 2 + (square * square).sum())


def _advanced_assignment(h, rows, cols):
    z = torch.zeros(4, 8)
    z[torch.tensor([0, 2, -1]), torch.tensor([1, 5, 5])] = h[0, :3] * 2.0
    z[rows.view(3, 1), cols.view(1, 2)] = h[1:4, 6:8]          # traced, rows 1 0 3, cols 2 7
    w = h.view(2, 4, 4).index_put((torch.tensor([1, 1, 0]), torch.tensor([2, 2, -1])),
                                  h[:3, :4] * 0.5, accumulate=True)
    # x[:, i, j] = v and x[i, :, j] = v as the functional op, whose indices
    # hold None for the whole dims (the statements: "index-writes").
    put = torch.ops.aten.index_put
    y = put(torch.ones(3, 4, 5), [None, torch.tensor([0, 3]), torch.tensor([4, -5])],
            h[:3, :2].exp())
    x = put(torch.ones(3, 4, 5), [torch.tensor([2, 0]), None, torch.tensor([1, 3])],
            h[:2, :4] - 1.0)
    u = put(torch.zeros(2, 3, 4), [None, rows.view(3, 1).remainder(3), cols.view(2)],
            h[:3, :2] * 3.0, True)
    return ((z * torch.arange(32.0).view(4, 8)).sin().sum() + w.pow(2).sum()
            + (y * torch.arange(60.0).view(3, 4, 5)).sum() + (x * x.flip(0)).sum()
            + (u * torch.arange(24.0).view(2, 3, 4)).cos().sum())


def _index_writes(h, cols, mask):                    # h: [4, 8]
    x = h.view(2, 2, 8).clone()
    x[:, :, cols] = h[:2, :3].unsqueeze(1) * 2.0       # [2, 1, 3] along [2, 2, 3]
    x[..., torch.tensor([0, 7])] += 1.5
    x[:, torch.tensor([1, 0]), cols[:2]] = h[0, :2].exp()
    y = torch.zeros(4, 3, 5)
    y[torch.tensor([3, 1]), :, torch.tensor([4, 0])] = h[:2, :3] - 1.0   # B first: [2, 3]
    y[:, :, mask] = 0.5                                 # a mask given as input
    z = h.view(4, 2, 4).clone()
    z[:, :, h[0, :4] > 0] = -1.0                        # a mask from the data
    z[..., h[1, 4:] < 0] = h[:, :1, None] * 3.0         # broadcast along the selection
    band = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)
    s = h[:, :4].unsqueeze(0).repeat(2, 1, 1)
    s[:, band] = float("-inf")                          # a causal mask behind the batch
    return (_ramp_sum([x, y.flatten(1), z.flatten(1)])
            + (s.softmax(-1) * torch.arange(16.0).view(4, 4)).sum())


def _scalar_tensor_index(h):                         # h: [4, 8]
    idx = torch.topk(h.sum(0), 3)[1]
    x = h.view(2, 2, 8).clone()
    x[..., idx[0]] = 0.5
    x[:, :, idx[1]] = h[:2, :2] * 3.0
    x[idx[2] % 2] += 1.0
    return _ramp_sum([h[:, idx[0]] * h[:, idx[1]], h[idx[2] % 4, idx[0]].reshape(1),
                      x.flatten(1)])


def _mask_among_scalar_indices(h):                  # h: [4, 8]
    idx = torch.topk(h.sum(1), 2)[1]                 # 0-d indices in 0..3
    ious = h[:, :3].sigmoid()
    noobj = torch.ones(2, 3, 4, 4, dtype=torch.bool)
    for i in range(2):
        noobj[idx[i] % 2, ious[i] > 0.5, idx[i], idx[1 - i]] = 0
    x = h.view(2, 4, 4).clone()
    x[idx[0] % 2, h[0, :4] > 0] = h[1, :4] * 2.0
    z = torch.zeros(3, 4, 8)
    z[idx[1] % 3, h > 0] = 1.5
    w = torch.zeros(2, 4, 8)
    w[idx[1] % 2, ..., h[2] > 0] = h[3, :4, None] - 1.0   # [4, N] <- [4, 1]
    return _ramp_sum([x.flatten(1), z.flatten(1) * h.exp().sum(), w.flatten(1),
                      noobj.float().flatten(1) * h.sum()])


def _known_masks(h, rows):                           # h: [4, 8]
    keep = torch.tensor([True, False, True, True, False, False, True, False])
    heads = h.view(4, 2, 4).transpose(0, 1) @ h.view(4, 2, 4).permute(1, 2, 0)  # [2, 4, 4]
    upper = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)
    return _ramp_sum([h[:, keep], heads[:, upper], h.view(4, 2, 4)[rows, keep[:2]],
                      h.view(2, 2, 8)[..., keep].exp()])


def _masked_scatter(h):                              # h: [4, 8]
    ramp = torch.arange(1.0, 33.0).view(4, 8)
    src = (h.flip(0) * 3).cos() * torch.linspace(0.5, 1.5, 32).view(4, 8)
    a = h.masked_scatter(h > 0, src)
    b = h.masked_scatter(h[:, :1] > 0, src[1:].flatten().sin())
    c = h[0].masked_scatter(h > 0.3, src.t() * 2)
    return (a * ramp).sum() + (b * ramp).sin().sum() + (c * ramp.flip(1) / 32).exp().sum()


class _EmptyFilled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        out = torch.empty(6, 4)
        for j, step in enumerate(x):
            out[j] = self.lin(step)
        strided = torch.empty_strided((6, 4), (1, 6))
        strided[:, :2] = x[:, :2]
        strided[:, 2:] = 1.0
        return out.pow(2).mean() + strided.sin().sum()


def _empty_filled():
    torch.manual_seed(0)
    return _EmptyFilled(), (torch.randn(6, 4),)


class _RepeatInterleaveCounts(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.linspace(0.5, 1.5, 3))

    def forward(self, x, counts):
        batch = torch.arange(counts.numel()).repeat_interleave(counts, output_size=7)
        pooled = torch.zeros(4, 3).index_add(0, batch, x * self.w)
        return pooled.pow(2).sum() + batch.float().mean()


def _repeat_interleave_counts():
    torch.manual_seed(0)
    return _RepeatInterleaveCounts(), (torch.randn(7, 3), torch.tensor([2, 0, 3, 2]))
