"""Cases for masked selections (tfc_torch/masked.py): x[mask],
masked_select and the indices of nonzero / torch.where(mask) flowing
through the ops that keep their rows apart, into losses, reductions over
the rows and x[mask] = f(y[mask]). Each mask
selects some rows of its batch, neither none nor all (but
masked-margin-all-rows: all). check_train.py's
"masked" case runs a compiled step on batches whose masks select other
numbers of rows; check_errors.py's BooleanMask and SelectionSize cases are
the refusals."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import _g


class _MaskedLM(nn.Module):
    """BERT's loss on the masked positions only: embedding, layer norm and
    the output layer on every token, cross-entropy on the selected ones."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.norm = nn.LayerNorm(8)
        self.out = nn.Linear(8, 20)

    def forward(self, ids, mask, targets):
        h = self.norm(self.emb(ids))
        return F.cross_entropy(self.out(h[mask]), targets[mask])


class _NodeLosses(nn.Module):
    """A GCN layer and node-classification losses on the training nodes
    (data.train_mask): cross-entropy with label smoothing (torch zeroes the
    ignored rows of its smoothing term with x[m] = 0 of a selection), with
    class weights and an ignored class, MSE against one-hot targets, BCE
    with logits summed, smooth L1 and Huber, KL divergence summed."""

    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(5, 8)
        self.l2 = nn.Linear(8, 3)

    def forward(self, x, adj, y, train):
        o = self.l2(adj @ F.relu(self.l1(adj @ x)))
        sel, t = o[train], y[train]
        w = torch.tensor([1.0, 2.0, 0.5])
        return (F.cross_entropy(sel, t, label_smoothing=0.1)
                + F.nll_loss(sel.log_softmax(-1), t, weight=w, ignore_index=2)
                + F.mse_loss(sel.softmax(-1), F.one_hot(t, 3).float())
                + F.binary_cross_entropy_with_logits(sel, torch.sigmoid(sel.detach() * 2),
                                                     reduction="sum") / 10
                + F.smooth_l1_loss(sel, sel.detach().roll(1, 1), beta=0.5)
                + F.huber_loss(sel, sel.detach() * 1.5, delta=0.3)
                + F.kl_div(sel.log_softmax(-1), sel.detach().softmax(-1), reduction="sum"))


class _Assignments(nn.Module):
    """Functions defined on the selected values only (log1p of positives
    below -1 elsewhere, sqrt of positives) written back with x[m] = f(y[m])
    (the mask written twice) and accumulated; a selection of a selection
    (masked_select of the selected rows); max / min / sum / mean, var /
    std / var_mean and logsumexp over the selected rows, keeping dims; PPO's
    normalization of the selected advantages; a row's value broadcast back
    into its row; a function defined on the selection only, of a mask that
    selects nothing (its gradient 0, not NaN)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        h = self.fc(x) * 3
        out = torch.zeros_like(h)
        out[h > 0.1] = h[h > 0.1].sqrt()
        rows = h[:, 0] > 0
        acc = h.clone()
        acc.index_put_((rows,), h[rows].exp() * 0.1, accumulate=True)
        pos = h[h > -1].log1p()
        nested = h[rows].masked_select(h[rows] > 0)
        spread = torch.zeros_like(h)
        spread[rows] = h[rows].sum(1, keepdim=True)      # broadcast along each row
        none = (-h.abs() - 1)[h[:, 0] > 100].sqrt().sum()  # selects no row: 0, no NaN
        adv = h[rows][:, 1]
        normalized = (adv - adv.mean()) / (adv.std() + 1e-8)  # PPO's advantages
        return (out.pow(2).sum() + acc.sum() + pos.mean() + nested.sum()
                + h[rows].amax(0).sum() + h[rows].amin(0, keepdim=True).sum()
                + h[rows].sum(0, keepdim=True).pow(2).sum() + h[~rows].mean((0, 1))
                + (normalized * adv).sum() + h[rows].var(0).sum()
                + torch.var_mean(h[rows], 0, unbiased=False)[0].sum()
                + h[rows].std(unbiased=False) + h[rows].logsumexp(0).sum()
                + spread.pow(2).mean() + none)


class _RowOps(nn.Module):
    """Ops on the selected rows that keep them apart: softmax over the
    other dim, a concat and transpose of other dims, views that keep each
    row (sel.shape[0] as a size), unsqueeze and select, a 1-d convolution
    of selected sequences (rows as its batch), a batched matmul of two
    selections, a gather along the other dim, cosine similarity (an
    in-place clamp under no_grad inside), selections of the selected rows
    (by rows, by elements), padding along another dim and writes into it."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 12)
        self.conv = nn.Conv1d(3, 2, 3, padding=1)

    def forward(self, x, keep):
        h = self.proj(x)[keep]                      # (k, 12)
        seq = h.view(h.shape[0], 3, 4)              # (k, 3, 4)
        att = torch.bmm(seq, seq.transpose(1, 2)).softmax(-1)
        both = torch.cat([h, h.tanh()], 1).unsqueeze(1)
        picked = h.gather(1, h.argmax(1, keepdim=True))
        # nflows' spline knots: a cumsum padded along the last dim, its
        # ends written (select_scatter, slice_scatter of the rows).
        knots = F.pad(torch.cumsum(seq.softmax(-1), -1), (1, 0), value=-1.0)
        knots[..., 0] = -2.0
        knots[..., 2:4] = knots[..., 2:4] * 0.5
        return (self.conv(seq).pow(2).mean() + (att @ seq).sum() + both.select(1, 0).mean()
                + (knots * torch.arange(5.0)).sum()
                + seq.reshape(seq.size(0), -1).std(1).sum() + picked.sum()
                + h.softmax(-1).log().mean() + F.cosine_similarity(h, h.flip(1)).mean()
                + (h[h[:, 0] > 0] ** 2).sum() + h[h > 0].sum())


class _RowReductions(nn.Module):
    """Reductions over the selected rows that need more than a fill:
    max(0) / min(0) with their indices (positions among the selected
    rows), argmax / argmin over them, vector norms (p = 1, 2, 3, inf)
    including dim 0, a product over them."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x, keep):
        sel = self.fc(x)[keep]
        top, at = sel.max(0)
        low, low_at = sel.min(0, keepdim=True)
        weights = torch.tensor([1.0, -2.0, 3.0])
        return ((top * weights).sum() + (at.float() * weights).sum() + low.sum() * 2
                + low_at.float().sum() + (sel.argmax(0) + sel.argmin(0, keepdim=True)).sum()
                + (sel.norm(p=1, dim=0) * weights).sum() + sel.norm(dim=0).sum()
                + torch.linalg.vector_norm(sel, ord=float("inf"), dim=0).sum()
                + torch.linalg.vector_norm(sel, ord=3, dim=(0, 1))
                + ((sel.tanh() + 1.5).prod(0) * weights).sum())


def _row_reductions():
    torch.manual_seed(0)
    keep = torch.tensor([True, False, True, True, False, True, True, False, True])
    return _RowReductions(), (torch.randn(9, 4, generator=_g(1)), keep)


class _SwitchDispatch(nn.Module):
    """Switch Transformer's expert dispatch, out[mask] = expert(x[mask]),
    compiled from an example that routes exactly one token (torch's
    setitem views a one-row value without its leading 1;
    index_rewrites.py writes it with index_put_)."""

    def __init__(self):
        super().__init__()
        self.expert = nn.Linear(4, 4)

    def forward(self, x, mask):
        out = x.clone()
        out[mask] = self.expert(x[mask])
        return (out * out).sum()


def _switch_one_row():
    torch.manual_seed(0)
    mask = torch.zeros(2, 6, dtype=torch.bool)
    mask[1, 2] = True
    return _SwitchDispatch(), (torch.randn(2, 6, 4, generator=_g(1)), mask)


class _LabelSmoothing(nn.Module):
    """The Annotated Transformer's LabelSmoothing: the rows of padding
    targets zeroed through index_fill_ by nonzero(...).squeeze() (selected
    ids; squeeze keeps the rows), KLDivLoss on the result."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 5)
        self.criterion = nn.KLDivLoss(reduction="sum")

    def forward(self, x, target):
        logp = self.fc(x).log_softmax(-1)
        true_dist = logp.data.clone()
        true_dist.fill_(0.2 / 3)
        true_dist.scatter_(1, target.data.unsqueeze(1), 0.8)
        true_dist[:, 0] = 0
        mask = torch.nonzero(target.data == 0)
        if mask.dim() > 0:
            true_dist.index_fill_(0, mask.squeeze(), 0.0)
        return self.criterion(logp, true_dist.clone().detach())


def _label_smoothing():
    torch.manual_seed(0)
    return _LabelSmoothing(), (torch.randn(6, 4, generator=_g(1)),
                               torch.tensor([0, 1, 2, 0, 3, 4]))


class _MultiBox(nn.Module):
    """SSD's MultiBox loss (ssd.pytorch): the positive boxes' coordinates
    and class scores selected by the positive mask expanded over their
    last dim, viewed back into rows (loc[pos_idx].view(-1, 4)), smooth L1
    and cross-entropy normalized by the positive count, next to a
    selection by the plain mask of the same rows (conf_t[pos])."""

    def __init__(self):
        super().__init__()
        self.loc = nn.Linear(4, 4)
        self.conf = nn.Linear(4, 3)

    def forward(self, x, pos, loc_t, conf_t):
        loc = self.loc(x)
        pos_idx = pos.unsqueeze(2).expand_as(loc)
        loss_l = F.smooth_l1_loss(loc[pos_idx].view(-1, 4), loc_t[pos_idx].view(-1, 4),
                                  reduction="sum")
        conf = self.conf(x)
        scores = conf[pos.unsqueeze(2).expand_as(conf)].view(-1, 3)
        loss_c = F.cross_entropy(scores, conf_t[pos], reduction="sum")
        return (loss_l + loss_c) / pos.sum() + loc[pos_idx].pow(2).mean()


def _multibox():
    torch.manual_seed(0)
    pos = torch.zeros(2, 5, dtype=torch.bool)
    pos[0, 1] = pos[1, 3] = pos[1, 4] = True
    return _MultiBox(), (torch.randn(2, 5, 4, generator=_g(1)), pos,
                         torch.randn(2, 5, 4, generator=_g(2)),
                         torch.randint(0, 3, (2, 5), generator=_g(3)))


class _WhereIndices(nn.Module):
    """Indices from nonzero / torch.where(mask) / argwhere: rows gathered
    by them (x[i], index_select), elements by two of them (x[i, j]), a
    loss on the rows of positive scores, edge lists laid out as [2, E]."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 3)

    def forward(self, x, keep, pairs):
        o = self.fc(x)
        i = torch.nonzero(keep).squeeze(1)
        a, b = torch.where(pairs)
        pos = torch.nonzero(o[:, 0] > 0)[:, 0]
        # PyG's edge_index forms: nonzero().t() taken apart, torch.stack of
        # torch.where's ids read by row, flipped, and transposed back.
        src, dst = pairs.nonzero().t()
        edges = torch.stack(torch.where(pairs))
        return (o[i].pow(2).sum() + o.index_select(0, keep.nonzero(as_tuple=True)[0]).mean()
                + o[a, b].sum() + o[a, b % 2].exp().mean()
                + torch.argwhere(pairs)[:, 1].float().mean()
                + F.cross_entropy(o[pos], (x[pos, 0] > 0).long())
                + o[src, dst].tanh().sum() + o[edges[0]].sin().mean()
                + o[edges.flip(0)[1], edges.t()[:, 1]].cos().sum())


def _where():
    torch.manual_seed(0)
    return _WhereIndices(), (torch.randn(10, 5, generator=_g(1)),
                             torch.rand(10, generator=_g(4)) < 0.5,
                             torch.rand(10, 3, generator=_g(5)) < 0.4)


class _Sequences(nn.Module):
    """Selected sequences (a mask over the batch of (B, T, C) inputs): a
    linear layer on them (its 3-d input's view merges the rows with the
    time steps, its output's view splits them back), layer norm, a token
    loss over their flattened rows, cross-entropy over the time steps as
    the spatial dim with reduction none, nll_loss with reduction none."""

    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(5, 4)
        self.out = nn.Linear(4, 3)

    def forward(self, x, keep, y):
        sel = self.inp(x)[keep]                     # (k, T, 4)
        logits = self.out(F.layer_norm(sel, (4,)))  # (k, T, 3)
        t = y[keep]
        return (F.cross_entropy(logits.reshape(-1, 3), t.reshape(-1))
                + F.cross_entropy(logits.transpose(1, 2), t, reduction="none").mean()
                + F.nll_loss(logits.log_softmax(-1).flatten(0, 1), t.flatten(),
                             reduction="none").sum() / 10)


def _sequences(count=None):
    def make():
        torch.manual_seed(0)
        keep = torch.rand(6, generator=_g(4)) < 0.5
        if count is not None:
            keep = torch.arange(6) < count
        return _Sequences(), (torch.randn(6, 3, 5, generator=_g(1)), keep,
                              torch.randint(0, 3, (6, 3), generator=_g(2)))
    return make


class _MoERouting(nn.Module):
    """Top-2 mixture-of-experts routing as Mixtral-style code writes it:
    per expert, the (token, slot) pairs routed to it by torch.where, the
    expert on those tokens (gathered as HF Mixtral does, x[None,
    i].reshape(-1, d): a selection behind a dim of 1), written back by
    out[i] += (an overwrite of the gathered sum), index_add_ and an
    assignment."""

    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(6, 3)
        self.experts = nn.ModuleList([nn.Linear(6, 6) for _ in range(3)])

    def forward(self, x, y):
        weights = self.gate(x).softmax(-1)
        top, idx = weights.topk(2, -1)
        out = torch.zeros_like(x)
        added = torch.zeros_like(x)
        last = x.clone()
        for e, expert in enumerate(self.experts):
            i, k = torch.where(idx == e)
            h = top[i, k, None] * expert(x[None, i].reshape(-1, x.shape[-1]))
            out[i] += h
            added.index_add_(0, i, h.tanh())
            last[i] = h
        return F.mse_loss(out, y) + added.pow(2).mean() + last.sum()


def _moe():
    torch.manual_seed(0)
    return _MoERouting(), (torch.randn(9, 6, generator=_g(1)), torch.randn(9, 6, generator=_g(2)))


class _WriteByLabel(nn.Module):
    """Rows of the selected nodes written at their labels (repeated ids:
    the last write wins, as torch's) and added at them (index_add)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x, keep, labels):
        ids = labels[keep]
        h = self.fc(x[keep])
        last = torch.zeros(4, 6)
        last[ids] = h
        total = torch.zeros(4, 6).index_add(0, ids, h.tanh())
        return last.pow(2).sum() + total.pow(2).sum()


def _write_by_label():
    torch.manual_seed(0)
    return _WriteByLabel(), (torch.randn(9, 6, generator=_g(1)),
                             torch.rand(9, generator=_g(2)) < 0.6,
                             torch.randint(0, 4, (9,), generator=_g(5)))


class _Margin(nn.Module):
    """insightface's ArcFace / CosFace margins on the target logit of the
    rows that have a label (i = torch.where(labels != -1)[0]): y[i,
    labels[i]] overwritten by a function of itself (two selected indices:
    the unselected rows' writes must not reach the first selected one's
    gradient), a margin added by index_put_(accumulate=True) with
    selected and with plain values, a learned value written at a plain
    column index next to the selected rows (y[i, [3]]), and rows of a 3-d
    tensor increased across a whole dim (z[i, :, labels[i]] += ...). With
    `keep` (check_train.py's masks) the rows it leaves out get label -1."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4, bias=False)
        self.proj = nn.Linear(6, 12)
        self.bias = nn.Parameter(torch.tensor(0.3))

    def forward(self, x, labels, keep=None):
        if keep is not None:
            labels = labels.masked_fill(~keep, -1)
        cos = F.linear(F.normalize(x), F.normalize(self.fc.weight))
        i = torch.where(labels != -1)[0]
        t = labels[i]
        arc = cos.clone()
        arc[i, t] = torch.cos(torch.acos(cos[i, t].clamp(-0.99, 0.99)) + 0.5)
        arc[i, torch.tensor([3])] = self.bias
        cosface = cos * 1.0
        cosface.index_put_((i, t), -0.35 * cos[i, t].sigmoid(), accumulate=True)
        cosface.index_put_((i, t), torch.tensor(-0.1), accumulate=True)
        z = self.proj(x).view(-1, 3, 4)
        z[i, :, t] += z[i, 0, t, None].tanh()
        return (F.cross_entropy(8 * arc, labels, ignore_index=-1)
                + F.cross_entropy(8 * cosface, labels, ignore_index=-1) + z.pow(2).mean())


def _margin(all_rows=False, keep=False):
    def make():
        torch.manual_seed(0)
        labels = torch.randint(0, 4, (8,), generator=_g(2))
        x = torch.randn(8, 6, generator=_g(1))
        if keep:
            return _Margin(), (x, labels, torch.rand(8, generator=_g(3)) < (2 if all_rows else 0.6))
        if not all_rows:
            labels[torch.tensor([0, 3, 4])] = -1
        return _Margin(), (x, labels)
    return make


def _mlm():
    ids = torch.randint(0, 20, (3, 7), generator=_g(1))
    mask = torch.rand(3, 7, generator=_g(2)) < 0.4
    return _MaskedLM(), (ids, mask, torch.randint(0, 20, (3, 7), generator=_g(3)))


def _nodes():
    torch.manual_seed(0)
    x = torch.randn(10, 5, generator=_g(1))
    adj = torch.rand(10, 10, generator=_g(2))
    train = torch.rand(10, generator=_g(4)) < 0.5
    return _NodeLosses(), (x, adj / adj.sum(1, keepdim=True),
                           torch.randint(0, 3, (10,), generator=_g(3)), train)


def _assign():
    torch.manual_seed(0)
    return _Assignments(), (torch.randn(6, 6, generator=_g(1)),)


def _rows():
    torch.manual_seed(0)
    keep = torch.tensor([True, False, True, True, False, True, False])
    return _RowOps(), (torch.randn(7, 6, generator=_g(1)), keep)


class _HeldConstants(nn.Module):
    """Masks and numbers kept on the module that forward never writes:
    SimCLR's NT-Xent mask built in __init__ as a plain tensor attribute
    (and as a buffer), selecting the negatives viewed as N rows
    (sim[self.mask].reshape(N, -1)); RotatE's margin as a frozen parameter
    and a buffer read with .item() / float(). Their values are constants of
    the program (the module watch refuses a change after compiling)."""

    def __init__(self, n=3):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        mask = torch.ones(2 * n, 2 * n, dtype=torch.bool).fill_diagonal_(False)
        for i in range(n):
            mask[i, n + i] = mask[n + i, i] = False
        self.mask = mask
        self.register_buffer("pos", ~mask & ~torch.eye(2 * n, dtype=torch.bool))
        self.gamma = nn.Parameter(torch.tensor([6.0]), requires_grad=False)
        self.register_buffer("embedding_range", torch.tensor(0.5))

    def forward(self, x):
        z = F.normalize(self.lin(x), dim=1)
        sim = z @ z.t() / 0.5
        neg = sim[self.mask].reshape(z.shape[0], -1)
        pos = sim[self.pos].reshape(z.shape[0], 1)
        nt_xent = F.cross_entropy(torch.cat([pos, neg], 1), torch.zeros(6, dtype=torch.long))
        score = self.gamma.item() - z.norm(dim=1) / float(self.embedding_range)
        return nt_xent + F.logsigmoid(score).mean() + neg[:, :2].sum() / neg.shape[1]


CASES = {
    # Constants held by the module (plain attribute, buffer, frozen
    # parameter): their selections' row counts and their values as numbers.
    "held-constants": lambda: (_HeldConstants(), (torch.randn(6, 4, generator=_g(1)),)),
    "masked-lm": _mlm,
    "masked-node-losses": _nodes,
    "masked-assignments": _assign,
    "masked-row-ops": _rows,
    "masked-row-reductions": _row_reductions,
    "masked-write-one-row": _switch_one_row,
    "masked-index-fill": _label_smoothing,
    "masked-multibox": _multibox,
    "masked-where-indices": _where,
    "masked-sequences": _sequences(),
    "masked-moe-routing": _moe,
    "masked-write-by-label": _write_by_label,
    # GraphGPS's dense round trip: nodes placed into a padded [B, N]
    # batch, a layer on it, the real nodes taken back with the mask and
    # added to the node features (as many rows as the mask selects):
    # the selection compacted to those rows.
    "masked-compacted": lambda: _gps(),
    "masked-margin": _margin(),
    # The example selects every row: the same program (an index_put whose
    # result has as many rows as the selection is no selection).
    "masked-margin-all-rows": _margin(all_rows=True),
    # Legacy uint8 masks (torch indexes with a byte tensor as with a mask):
    # a selection, a masked write and a row mask. The trace recorded them as
    # integer indices: rows 0 and 1 gathered, the write at them.
    "masked-byte-masks": lambda: _byte_masks(),
}


class _ByteMasks(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 5)

    def forward(self, x, labels):
        h = self.fc(x)
        keep = (labels > 0).byte()
        picked = h[keep]
        scores = h.clone()
        scores[(labels == 1).byte()] = -1.5
        cols = torch.tensor([1, 0, 1, 1, 0], dtype=torch.uint8)
        return picked.pow(2).sum() / keep.sum() + scores.sin().sum() + h[:, cols].tanh().sum()


def _byte_masks():
    torch.manual_seed(0)
    return _ByteMasks(), (torch.randn(6, 4, generator=_g(1)), torch.tensor([0, 1, 0, 2, 1, 0]))


class _GPS(nn.Module):
    def __init__(self):
        super().__init__()
        self.local = nn.Linear(3, 3)
        self.attn = nn.MultiheadAttention(3, 1, batch_first=True)

    def forward(self, x, dense_idx):
        dense = torch.zeros(2 * 4, 3)
        dense[dense_idx] = x
        mask = torch.zeros(2 * 4)
        mask[dense_idx] = 1.0
        mask = mask.view(2, 4) > 0
        h_dense = dense.view(2, 4, 3)
        h_attn = self.attn(h_dense, h_dense, h_dense, key_padding_mask=~mask,
                           need_weights=False)[0][mask]
        return (self.local(x) + h_attn).pow(2).sum() + (x * h_attn).mean()


def _gps():
    torch.manual_seed(0)
    return _GPS(), (torch.randn(5, 3, generator=_g(1)), torch.tensor([0, 1, 2, 4, 5]))
