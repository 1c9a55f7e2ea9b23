"""nll_loss of a log_softmax over the classes (what F.cross_entropy
traces to) becomes tfc.cross_entropy, whose backward is softmax - onehot
in one row kernel.

Matched: torch.nll_loss(log_softmax(x, dim -1), labels) on [N, C] rows,
without class weights, with reduction mean or sum, its total-weight
result unused. (Label smoothing traces to further ops around the nll_loss
and stays decomposed.)"""
from .match import collect_before, defining, replace, splice


def run(fn) -> int:
    fired = 0
    uses = fn.uses()
    for op in list(fn.ops):
        if op.name != "torch.nll_loss" or op.attrs["has_weight"]:
            continue
        if op.attrs["reduction"] not in ("mean", "sum") or uses.get(op.results[1]):
            continue
        logp, labels = op.operands[:2]
        ls = defining(logp, "tfc.log_softmax")
        if ls is None or logp.rank != 2 or ls.attrs["dim"] not in (-1, 1):
            continue
        logits = ls.operands[0]
        if op.results[0].dtype != logits.dtype and logits.dtype in ("f32", "f64"):
            continue
        b = collect_before(fn, op)
        loss = b.cross_entropy(logits, labels, op.attrs["ignore_index"], 0.0,
                               op.attrs["reduction"])
        if loss.type != op.results[0].type:
            loss = b.convert(loss, op.results[0].dtype)
        splice(fn, op, b)
        replace(fn, op.results[0], loss)
        fired += 1
        uses = fn.uses()
    return fired
