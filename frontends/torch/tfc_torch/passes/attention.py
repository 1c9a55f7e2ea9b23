"""Scaled dot-product attention written out becomes tfc.attention:

    s = matmul(q, k, transpose_b)          q [..., T, D], k [..., S, D]
    s = s * c | s / c                      optional, c a splat: scale
    s = masked by a causal mask            optional (see below)
    p = softmax(s, dim -1)
    p = dropout(p, seed, offset)           optional: tfc.attention's dropout
    o = matmul(p, v)                       v [..., S, Dv]

(scaling and masking in either order; with 16-bit q, k, v the two GEMM
results may be rounded from f32 to that type, which tfc.attention, keeping
scores and probabilities in f32, does once at the end). A causal mask is a mask known at
trace time (a registered tril buffer, or one built in forward from
constants) that hides exactly the keys after each query: select(mask,
fill, s) / select(mask, s, fill) with fill = -inf (or any value <= -1e4,
which softmax turns into an exact 0), or add(s, m) with m 0 on and below
the diagonal and such a fill above it; a finite fill only when no other
mask joins it (a row the other mask hides everywhere keeps the finite
values, which softmax then weighs alike, as torch does).

Any other mask (computed from the batch, e.g. BERT's padding mask) becomes
tfc.attention's mask operand when the chain applies it after all scaling
(the operand is added to the scaled scores): add(s, m) with m of the
scores' type gives an additive mask; select(c, s, -inf) an i1 mask c and
select(c, -inf, s) (masked_fill(c, -inf)) the mask c == false. Only an
exact -inf fill is taken for those, as a finite one differs from tfc's -inf
on fully masked rows. At most one such mask; chains whose intermediate
values have other users keep their decomposed form.
"""
import torch

from .match import collect_before, defining, replace, single_use, splat, splice

_FILL_LIMIT = -1e4


def _is_fill(v) -> bool:
    s = splat(v)
    return s is not None and float(s) <= _FILL_LIMIT


def _causal_bool(mask: torch.Tensor, masked_value: bool) -> bool:
    """mask[..., i, j] == masked_value exactly when j > i."""
    if mask is None or mask.dim() < 2 or mask.dtype != torch.bool:
        return False
    t, s = mask.shape[-2:]
    future = torch.ones(t, s, dtype=torch.bool).triu(1)
    want = future if masked_value else ~future
    return bool((mask == want).all())


def _causal_additive(mask: torch.Tensor) -> bool:
    if mask is None or mask.dim() < 2 or not mask.is_floating_point():
        return False
    t, s = mask.shape[-2:]
    future = torch.ones(t, s, dtype=torch.bool).triu(1)
    m = mask.reshape(-1, t, s)
    return bool((m[:, ~future] == 0).all()) and bool((m[:, future] <= _FILL_LIMIT).all())


def _finite_fill(mask: torch.Tensor) -> bool:
    """Whether an additive causal mask hides keys with a finite value."""
    return bool(torch.isfinite(mask).all())


def _is_neg_inf(v) -> bool:
    s = splat(v)
    return s is not None and float(s) == float("-inf")


def _peel(v, uses):
    """Walks from the softmax input back to the scores matmul; returns
    (matmul op, scale factor, causal, mask) or None. `mask` is None or
    (value, how) with how "add" (an additive mask), "keep" (an i1 mask true
    where scores are kept) or "drop" (an i1 mask true where they are
    masked). A causal mask with a finite fill next to another mask is not
    taken: a row the other mask hides everywhere keeps the causal fill's
    finite values in torch (softmax weighs every key alike), where
    tfc.attention's causal hides the keys after the query."""
    scale, causal, mask, finite = 1.0, False, None, False
    while True:
        op = v.op
        if op is None:
            return None
        if op.name == "tfc.matmul":
            if op.attrs.get("transpose_a") or not op.attrs.get("transpose_b"):
                return None
            if finite and mask is not None:
                return None
            return op, scale, causal, mask
        if op.name == "tfc.convert":
            # 16-bit scores: the f32 GEMM result rounded to the operands' type.
            mm = defining(op.operands[0], "tfc.matmul")
            if mm is None or mm.operands[0].dtype != op.result.dtype \
                    or single_use(uses, op.operands[0]) is not op:
                return None
            v = op.operands[0]
            continue
        # Every intermediate must feed only the next op of the chain.
        if op.name in ("tfc.mul", "tfc.div"):
            a, b = op.operands
            c, inner = splat(b), a
            if c is None and op.name == "tfc.mul":
                c, inner = splat(a), b
            if c is None or float(c) <= 0:
                return None
            if inner.type != op.result.type:
                return None
            scale *= float(c) if op.name == "tfc.mul" else 1.0 / float(c)
        elif op.name == "tfc.select":
            cond, on_true, on_false = op.operands
            if not causal and _is_fill(on_true) and _causal_bool(cond.known, True):
                inner, causal, finite = on_false, True, not _is_neg_inf(on_true)
            elif not causal and _is_fill(on_false) and _causal_bool(cond.known, False):
                inner, causal, finite = on_true, True, not _is_neg_inf(on_false)
            elif mask is None and scale == 1.0 and _is_neg_inf(on_false):
                inner, mask = on_true, (cond, "keep")
            elif mask is None and scale == 1.0 and _is_neg_inf(on_true):
                inner, mask = on_false, (cond, "drop")
            else:
                return None
            if inner.type != op.result.type:
                return None
        elif op.name == "tfc.add":
            a, b = op.operands
            if not causal and _causal_additive(b.known):
                inner, causal, finite = a, True, _finite_fill(b.known)
            elif not causal and _causal_additive(a.known):
                inner, causal, finite = b, True, _finite_fill(a.known)
            elif mask is None and scale == 1.0 and b.dtype == op.result.dtype \
                    and a.type == op.result.type:
                inner, mask = a, (b, "add")
            else:
                return None
            if inner.type != op.result.type:
                return None
        else:
            return None
        if single_use(uses, inner) is not op:
            return None
        v = inner


def run(fn) -> int:
    fired = 0
    uses = fn.uses()
    for sm in list(fn.ops):
        if sm.name != "tfc.softmax" or sm.attrs["dim"] not in (-1, sm.result.rank - 1):
            continue
        probs, drop = sm.result, None
        pv = single_use(uses, probs)
        if pv is not None and pv.name == "tfc.dropout":
            # Dropout of the probabilities: tfc.attention's own dropout draws
            # the same Philox counters (offset + row-major index).
            drop, probs = pv, pv.result
            pv = single_use(uses, probs)
        if pv is None or pv.name != "tfc.matmul" or pv.operands[0] is not probs \
                or pv.attrs.get("transpose_a") or pv.attrs.get("transpose_b"):
            continue
        out = pv.result
        if out.dtype != probs.dtype:  # 16-bit: the f32 GEMM result rounded back
            back = single_use(uses, out)
            if back is None or back.name != "tfc.convert" or back.result.dtype != probs.dtype:
                continue
            out = back.result
        s = sm.operands[0]
        if single_use(uses, s) is not sm:
            continue
        found = _peel(s, uses)
        if found is None:
            continue
        qk, scale, causal, mask = found
        q, k = qk.operands
        v = pv.operands[1]
        if not (q.rank == k.rank == v.rank >= 2) or q.dtype != k.dtype or k.dtype != v.dtype:
            continue
        # tfc.attention's mask: i1, or q's type (added to the f32 scores).
        if mask is not None and mask[0].dtype != ("i1" if mask[1] != "add" else q.dtype):
            continue
        if q.shape[:-2] != k.shape[:-2] or k.shape[:-2] != v.shape[:-2]:
            continue
        if out.type != q.type.with_shape(q.shape[:-1] + v.shape[-1:]):
            continue
        if qk.result.type != s.type and not (qk.result.dtype == "f32" and s.dtype == q.dtype):
            continue
        b = collect_before(fn, out.op)
        m = None
        if mask is not None:
            m = mask[0]
            if mask[1] == "drop":  # masked_fill's mask: keep where it is false
                m = b.compare("eq", m, b.splat(False, "i1", m.shape))
        if drop is not None:
            o = b.attention(q, k, v, causal, scale, drop.attrs["p"], *drop.operands[1:], mask=m)
        else:
            o = b.attention(q, k, v, causal, scale, mask=m)
        splice(fn, out.op, b)
        replace(fn, out, o)
        fired += 1
        uses = fn.uses()
    return fired
