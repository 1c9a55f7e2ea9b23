"""Cases for tfc_torch/ops/loss.py's lowerings: mse, l1, smooth-l1, huber, the
binary cross-entropies, nll_loss (and the cross_entropy pattern), soft,
multi-class and multi-label margin losses, the Gaussian negative
log-likelihood; and cdist (ops/linalg.py) beside multi_margin_loss."""
import io
import logging

import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import _case, _g

CASES = {
    # DETR's generalized_box_iou as its repositories write it, starting
    # with assert (boxes[:, 2:] >= boxes[:, :2]).all(): the assert is taken
    # to hold (a TracedUpdateWarning), the loss and gradients are torch's.
    "giou-assert": lambda: _giou_loss(),
    # Asserts of other forms (trace_values.assert_holding_value): NaN guards
    # under `not`, a multi-line assert mixing and / not / or, bool / all / any
    # of tensors (a quickened call on the second trace), a chained
    # comparison: each bool() gives what lets its assert pass (not True
    # always: `assert not ...` failed while tracing).
    "assert-forms": lambda: _assert_forms(),
    # Tensors formatted for logging in forward (trace_values.
    # formatted_placeholders): an f-string for a log call whose level is
    # off, print(h, file=...), str / repr / "%s" %, a 0-d loss with a format
    # spec: placeholder texts and a TracedUpdateWarning, no
    # DataDependentError; the loss and gradients are torch's.
    "logged-tensors": lambda: _logged_tensors(),
    # A loss of one element in a shape (`loss = torch.zeros(1); loss += ...`,
    # a [1, 1] sum), which torch's backward() accepts: the loss as a 0-d
    # tensor (importer.py), where it was refused as not a scalar loss.
    "loss-one-element": _case(lambda h: _one_element_loss(h)),
    "losses": _case(lambda h, y: (F.mse_loss(h, y) + F.l1_loss(h, y, reduction="sum")
                                  + F.smooth_l1_loss(h, y, beta=0.5)
                                  + F.huber_loss(h, y, delta=0.7)
                                  + F.binary_cross_entropy_with_logits(h, (y > 0).float())
                                  + F.binary_cross_entropy_with_logits(
                                      h, (y > 0).float(), pos_weight=torch.full((8,), 2.0))
                                  + F.binary_cross_entropy(h.sigmoid(), (y > 0).float())),
                    extra=(torch.randn(4, 8, generator=_g(2)),)),
    # nn.Sigmoid + nn.BCELoss saturated (a DCGAN discriminator): sigmoids of
    # exactly 1.0 and 0.0 (columns scaled up to 400), on the side of their
    # target and on the other; torch's backward (p - y) / max(p (1 - p),
    # 1e-12) is finite there, the formula's own derivative NaN. Class
    # weights, reductions sum / none, a target with a gradient (torch's
    # -logit(p)), and binary_cross_entropy_with_logits at logits of 1e3.
    "bce-saturated": _case(lambda h, y: _bce_saturated(h, y),
                           extra=(torch.randn(4, 8, generator=_g(2)),)),
    "nll-variants": _case(lambda h, t: (F.cross_entropy(h, t, weight=torch.linspace(0.5, 2.0, 8))
                                        + F.cross_entropy(h, t, ignore_index=3, reduction="sum")
                                        + F.cross_entropy(h, t, label_smoothing=0.1)
                                        + F.nll_loss(F.log_softmax(h, 1), t, reduction="none").sum()
                                        + F.cross_entropy(h.view(2, 2, 8).transpose(1, 2),
                                                          t.view(2, 2))),
                          extra=(torch.tensor([3, 0, 7, 3]),)),
    # multi_margin_loss (p 1 and 2, margin, weight, reductions, a 1-d
    # input, margins exactly 0); cdist with p 2, 1, 3, 0.5, 0 and inf,
    # batched, at zero distance (gradient 0) and with tied differences
    # (p = inf gives each its whole gradient, as torch's).
    "more-losses": lambda: _more_losses(),
    # F.gaussian_nll_loss / nn.GaussianNLLLoss (replaced while tracing: no
    # value check on var): per-element, per-row ([N] and [N, 1]) variances,
    # variances below eps clamped under no_grad (their gradient passes
    # through, as torch's), full, reductions.
    "gaussian-nll": lambda: _gaussian_nll(),
    # multilabel_margin_loss: targets ending at the first -1 (anywhere,
    # and nowhere: all classes targets), a repeated target (counted
    # twice), a row with no targets, margins exactly 0, reductions, a
    # 1-d input.
    "multilabel-margin": lambda: _multilabel_margin(),
    # F.ctc_loss against torch's _ctc_loss and its backward: padded
    # targets and lengths from the batch (traced), repeated labels, an
    # empty target, an impossible alignment zeroed by zero_infinity, the
    # blank last, reductions mean / sum / none, 1-d concatenated targets
    # with list lengths, an unbatched input, and log-probabilities that
    # are no log_softmax (torch's gradient adds exp(lp)).
    "ctc-loss": lambda: _ctc(),
    # Losses from torch.distributions (their argument checks, a tensor's
    # value in Python control flow, are off while tracing): a PPO objective
    # (Categorical log_prob and entropy from logits), Normal log_prob and
    # entropy, an Independent Normal, the Normal-Normal KL divergence.
    # nn.AdaptiveLogSoftmaxWithLoss (traceable.py: every cluster on all
    # rows, each row its target's cluster): targets in the shortlist and in
    # both tail clusters, head bias, the output's log-probabilities and the
    # loss; an unbatched call.
    "adaptive-softmax": lambda: _adaptive(),
    # Labels outside [0, C) are an error at run time, as torch's 'Target 7 is
    # out of bounds', in every label-consuming form: spatial cross-entropy
    # (plain, ignore_index, label smoothing), class weights, reduction
    # none, nll_loss of a focal term, multi_margin_loss; multilabel entries
    # outside [-1, C). The factory runs each form compiled on the host with
    # one bad label (NativeError naming cross_entropy) and with ignored
    # labels (torch's loss); the case's own run sums them all.
    "label-range": lambda: _label_range(),
    "distributions": _case(lambda h, act, y: _distributions(h, act, y),
                           extra=(torch.tensor([0, 7, 3, 3]), torch.randn(4, 4, generator=_g(2)))),
}


_LABEL_FORMS = {
    "spatial": lambda z, y: F.cross_entropy(z, y),
    "spatial-ignore": lambda z, y: F.cross_entropy(z, y, ignore_index=255),
    "spatial-smooth": lambda z, y: F.cross_entropy(z, y, label_smoothing=0.1),
    "weight": lambda z, y: F.cross_entropy(z.movedim(1, -1).reshape(-1, 3), y.flatten(),
                                           weight=torch.tensor([0.5, 1.0, 2.0])),
    "none": lambda z, y: (F.cross_entropy(z, y, reduction="none", ignore_index=255)
                          * torch.linspace(0.5, 1.5, 6).view(2, 3)).sum(),
    "focal": lambda z, y: F.nll_loss((1 - z.softmax(1)) ** 2 * z.log_softmax(1), y),
    "margin": lambda z, y: F.multi_margin_loss(z.movedim(1, -1).reshape(-1, 3), y.flatten()),
    "multilabel": lambda z, y: F.multilabel_margin_loss(z.movedim(1, -1).reshape(-1, 3)[:4],
                                                        y.view(-1, 3)),
}


class _Labels(nn.Module):
    def __init__(self, forms):
        super().__init__()
        self.fc = nn.Conv2d(2, 3, 1)
        self.forms = forms

    def forward(self, x, y):
        z = self.fc(x)                                            # [2, 3, 2, 3]
        return sum(_LABEL_FORMS[f](z, y) for f in self.forms)


def _label_range():
    import tfc_torch
    torch.manual_seed(0)
    x = torch.randn(2, 2, 2, 3, generator=_g(1))
    y = torch.tensor([[[0, 2, 1], [1, 1, 0]], [[2, 0, 0], [1, 2, 2]]])
    ignored = torch.where(y == 1, 255, y)
    for form in _LABEL_FORMS:
        bad = y.clone()
        bad[1, 0, 2] = -1 if form == "multilabel" else 3
        if form == "multilabel":
            bad[0, 0, :] = torch.tensor([0, -1, 3])
        model = _Labels([form])
        step = tfc_torch.compile_train_step(model, (x, y), device="host", optimizer="sgd", lr=0.0)
        try:
            loss = step(x, bad)
        except tfc_torch.NativeError as e:
            if "cross_entropy" not in str(e) or "outside [0, 3)" not in str(e):
                raise AssertionError(f"{form}: label 3: {e}")
        else:
            raise AssertionError(f"{form}: label 3 gave the loss {loss}, no error")
        if "ignore" in form or form == "none":
            want = model(x, ignored).item()
            if abs(step(x, ignored) - want) > 1e-5 * abs(want):
                raise AssertionError(f"{form}: ignored labels: {step(x, ignored)}, torch {want}")
    return _Labels(list(_LABEL_FORMS)), (x, y)


class _Adaptive(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.asm = nn.AdaptiveLogSoftmaxWithLoss(8, 30, [6, 17], div_value=2.0, head_bias=True)

    def forward(self, x, y):
        h = self.fc(x)
        out = self.asm(h, y)
        single = self.asm(h[0], y[0])
        return (out.loss + (out.output * torch.linspace(0.5, 1.5, y.shape[0])).sum()
                + single.loss * 0.5)


def _adaptive():
    torch.manual_seed(0)
    return _Adaptive(), (torch.randn(7, 6, generator=_g(1)), torch.tensor([0, 5, 6, 16, 17, 29, 3]))


def _distributions(h, act, y):                         # h: [4, 8]
    D = torch.distributions
    pi = D.Categorical(logits=h)
    ratio = torch.exp(pi.log_prob(act) - pi.log_prob(act).detach() * 0.9)
    ppo = -torch.min(ratio * y[:, 0], ratio.clamp(0.8, 1.2) * y[:, 0]).mean()
    mu, log_std = h[:, :4], h[:, 4:].clamp(-3, 2)
    q = D.Normal(mu, log_std.exp())
    prior = D.Independent(D.Normal(torch.zeros(4), torch.ones(4)), 1)
    return (ppo - 0.01 * pi.entropy().mean() - q.log_prob(y).sum() + q.entropy().sum() * 0.1
            + D.kl_divergence(q, D.Normal(torch.zeros_like(mu), 2 * torch.ones_like(mu))).sum()
            - prior.log_prob(mu).mean())


class _Ctc(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 5)

    def forward(self, x, targets, input_lengths, target_lengths):
        h = self.fc(x)                                            # [T 7, N 4, C 5]
        lp = h.log_softmax(-1)
        loss = F.ctc_loss(lp, targets, input_lengths, target_lengths, zero_infinity=True)
        last_blank = F.ctc_loss(lp, targets - 1, input_lengths, target_lengths, blank=4,
                                reduction="none", zero_infinity=True)
        loss = loss + (last_blank * torch.tensor([0.5, 1.0, 0.0, 2.0])).sum()
        flat = torch.tensor([1, 3, 3, 2, 4, 1, 1, 2])
        loss = loss + F.ctc_loss(lp, flat, [7, 5, 6, 7], [3, 2, 1, 2], reduction="sum") * 0.5
        loss = loss + F.ctc_loss(lp, flat, (7, 5, 6, 7), (3, 2, 1, 2))
        loss = loss + F.ctc_loss(lp[:, 1], targets[0], input_lengths[:1], target_lengths[:1])
        raw = F.ctc_loss(h * 0.5, targets, input_lengths, target_lengths, reduction="none",
                         zero_infinity=True)
        return loss + (raw * torch.tensor([1.0, -0.5, 1.0, 0.25])).sum()


def _ctc():
    torch.manual_seed(0)
    targets = torch.tensor([[1, 2, 2], [3, 1, 4], [2, 2, 1], [4, 0, 0]])
    input_lengths = torch.tensor([7, 6, 3, 5])     # sample 2 needs 4 steps: impossible
    target_lengths = torch.tensor([3, 2, 3, 0])
    return _Ctc(), (torch.randn(7, 4, 6, generator=_g(1)), targets, input_lengths,
                    target_lengths)


class _MultilabelMargin(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.s = nn.Parameter(torch.tensor([[1.0, 0.0, 0.5, 2.0], [0.3, 1.3, -0.7, 0.3]]))

    def forward(self, x, targets):
        h = self.fc(x)                                            # [4, 8]
        loss = F.multilabel_margin_loss(h, targets)
        loss = loss + F.multilabel_margin_loss(h * 2, targets, reduction="sum")
        per_row = F.multilabel_margin_loss(h.sin(), targets, reduction="none")
        loss = loss + (per_row * torch.linspace(0.5, 1.5, 4)).sum()
        loss = loss + F.multilabel_margin_loss(h[2], targets[2])
        zero_margins = torch.tensor([[0, -1, 2, 2], [1, 1, -1, 0]])
        loss = loss + F.multilabel_margin_loss(self.s, zero_margins, reduction="sum")
        return loss + F.multilabel_margin_loss(torch.cat([self.s, h[:2, :4]]) * 3,
                                               torch.tensor([[3, 2, 1, 0]] * 2 + [[-1] * 4] * 2))


def _multilabel_margin():
    torch.manual_seed(0)
    targets = torch.tensor([[3, 0, -1, 1, 5, 5, 5, 5], [7, 7, 2, 0, 1, -1, 0, 0],
                            [1, 6, 2, 0, 4, 3, 7, 5], [-1, 2, 3, 4, 5, 6, 7, 0]])
    return _MultilabelMargin(), (torch.randn(4, 6, generator=_g(1)), targets)


# cross_entropy for the unweighted mean/sum nll_loss of a log_softmax
# (ignore_index, and the nll part of label smoothing), not for the
# weighted, per-row or 2-d ones.
PATTERNS = {"nll-variants": {"cross_entropy": 2}}


def _bce_saturated(h, y):
    bits = (y > 0).float()
    p = (h * torch.linspace(1.0, 400.0, 8)).sigmoid()
    w = torch.linspace(0.5, 2.0, 8)
    soft = (h * 0.5).sigmoid()
    loss = nn.BCELoss()(p, bits) + F.binary_cross_entropy(p, 1.0 - bits, weight=w, reduction="sum")
    loss = loss + (F.binary_cross_entropy(p, bits, reduction="none") * w).sum()
    per_row = torch.linspace(0.5, 1.5, 4)[:, None]
    loss = loss + F.binary_cross_entropy(h.sigmoid(), soft, weight=per_row)
    big = h * 1e3
    loss = loss + F.binary_cross_entropy_with_logits(big, bits, weight=w, pos_weight=w.flip(0))
    return loss + F.binary_cross_entropy_with_logits(big, 1.0 - bits, reduction="sum")


class _MoreLosses(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        # Margins exactly 0 against target [1, 0]; differences tied in size.
        self.s = nn.Parameter(torch.tensor([[0.0, 1.0, 0.0, 0.3], [2.0, 2.0, 1.0, 1.0]]))

    def forward(self, x, labels):
        h = self.fc(x)                                            # [4, 8]
        w = torch.linspace(0.5, 2.0, 8)
        loss = F.multi_margin_loss(h, labels) + F.multi_margin_loss(h, labels, p=2, margin=0.7)
        loss = loss + F.multi_margin_loss(h, labels, weight=w, reduction="sum")
        loss = loss + (F.multi_margin_loss(h, labels, p=2, weight=w, reduction="none") * w[:4]).sum()
        loss = loss + F.multi_margin_loss(h[0], labels[:1]) + F.multi_margin_loss(self.s, labels[:2])
        loss = loss + F.multi_margin_loss(self.s, labels[:2], p=2, reduction="sum")
        points = torch.tensor([[1.0, 0.0, 0.0, 0.3], [0.0, 1.0, 0.0, 0.3], [2.0, 1.0, 2.0, 1.0]])
        scale = torch.linspace(-1.0, 1.0, 12).view(4, 3)
        for p in (2.0, 1.0, 3.0, 0.5, 0.0, float("inf")):
            loss = loss + (torch.cdist(h[:, :4], points, p=p) * scale).sum()
            loss = loss + torch.cdist(h, h, p=p).sum() + (torch.cdist(self.s, points, p=p) * min(p, 4.0)).sum()
            loss = loss + torch.cdist(self.s, self.s.flip(0), p=p).pow(2).sum()
        grouped = h.view(2, 2, 8)
        return loss + torch.cdist(grouped, grouped.flip(1) * 0.5).sum()


def _more_losses():
    torch.manual_seed(0)
    return _MoreLosses(), (torch.randn(4, 6, generator=_g(1)), torch.tensor([1, 0, 7, 3]))


class _GaussianNll(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.var = nn.Parameter(torch.tensor([0.0, 1e-8, 0.5, 2.0]))  # two below eps
        self.loss = nn.GaussianNLLLoss(full=True)

    def forward(self, x, y):
        h = self.fc(x)                                            # [4, 8]
        loss = F.gaussian_nll_loss(h, y, h.exp()) + self.loss(h, y, self.var)
        loss = loss + F.gaussian_nll_loss(h, y, self.var[:, None] + h[:, :1].pow(2), reduction="sum")
        per_row = F.gaussian_nll_loss(h, y, (h * 0.5).pow(2).mean(1), eps=1e-3, reduction="none")
        return loss + (per_row * torch.linspace(-1.0, 1.0, 8)).sum()


def _gaussian_nll():
    torch.manual_seed(0)
    return _GaussianNll(), (torch.randn(4, 6, generator=_g(1)), torch.randn(4, 8, generator=_g(2)))


def _box_area(boxes):
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def _generalized_box_iou(boxes1, boxes2):
    assert (boxes1[:, 2:] >= boxes1[:, :2]).all()
    assert (boxes2[:, 2:] >= boxes2[:, :2]).all()
    area1, area2 = _box_area(boxes1), _box_area(boxes2)
    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    union = area1[:, None] + area2 - inter
    iou = inter / union
    lt = torch.min(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.max(boxes1[:, None, 2:], boxes2[:, 2:])
    area = (rb - lt).clamp(min=0).prod(-1)
    return iou - (area - union) / area


class _GiouLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(6, 4)

    def forward(self, x, targets):
        cxcywh = self.head(x).sigmoid()
        boxes = torch.cat([cxcywh[:, :2] - cxcywh[:, 2:] / 2, cxcywh[:, :2] + cxcywh[:, 2:] / 2], 1)
        return (1 - torch.diag(_generalized_box_iou(boxes, targets))).mean()


def _giou_loss():
    torch.manual_seed(0)
    lo = torch.rand(5, 2, generator=_g(2)) * 0.5
    return _GiouLoss(), (torch.randn(5, 6, generator=_g(1)),
                         torch.cat([lo, lo + 0.2 + torch.rand(5, 2, generator=_g(3)) * 0.3], 1))


def _one_element_loss(h):                            # h: [4, 8]
    loss = torch.zeros(1)
    loss += F.mse_loss(h, torch.ones_like(h))
    return loss + h.pow(2).sum(1, keepdim=True)[:1].mean(0, keepdim=True).t() * 0.1


class _AssertForms(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)

    def forward(self, x):
        h = self.fc(x)
        assert not torch.isnan(h).any(), "NaN in activations"
        assert not (h.abs() > 1e6).any()
        assert (h == h).all()
        assert torch.isfinite(h).all() and not (
            torch.isnan(h).any() or torch.isinf(h).any()), \
            f"bad activations {h.shape}"
        assert bool(torch.isfinite(h).all())
        assert not any(torch.isnan(t).any() for t in (h, x))
        assert all(torch.isfinite(t).all() for t in (h, x))
        assert 0 <= h.abs().min() <= 1e9
        return h.tanh().pow(2).mean()


def _assert_forms():
    torch.manual_seed(0)
    return _AssertForms(), (torch.randn(4, 6, generator=_g(1)),)


class _LoggedTensors(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.log = logging.getLogger("tfc-check-ops.logged-tensors")
        self.log.setLevel(logging.WARNING)
        self.sink = io.StringIO()

    def forward(self, x):
        h = self.fc(x)
        self.log.debug(f"h = {h}")
        print(h, str(h[0]), repr(h.sum(1)), "%s" % h.mean(), file=self.sink)
        loss = h.tanh().pow(2).mean()
        print(f"loss {loss:.4f} {loss}", file=self.sink)
        return loss


def _logged_tensors():
    torch.manual_seed(0)
    return _LoggedTensors(), (torch.randn(4, 6, generator=_g(1)),)
