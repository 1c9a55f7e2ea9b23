"""RMSNorm written out (LLaMA's `x * torch.rsqrt(x.pow(2).mean(-1,
keepdim=True) + eps)`, then `weight * x`) becomes tfc.rms_norm, which
fusion and the backward pass treat as one row reduction.

Matched, with either operand order of the commutative ops:
    sq  = pow(x, 2) | mul(x, x)
    ms  = reduce_mean(sq, dims [last], keepdim)
    den = add(ms, eps)                 eps a splat constant
    n   = mul(x, rsqrt(den)) | div(x, sqrt(den))
    y   = mul(n, w)                    optional; w of shape [D]
and the upcast form x = convert(x16), y = mul(convert(n, x16's type), w)
(Hugging Face's LlamaRMSNorm in 16 bit). tfc.rms_norm computes in f32 and
rounds once, where 16-bit PyTorch code rounds after every op.
"""
from .match import collect_before, defining, other, replace, single_use, splat, splice


def _squared_input(v):
    p = defining(v, "tfc.pow", "tfc.mul")
    if p is None:
        return None
    if p.name == "tfc.pow":
        return p.operands[0] if p.attrs["exponent"] == 2.0 else None
    a, b = p.operands
    return a if a is b else None


def _match(op):
    """(x, eps) when `op` (a mul or div) computes x * rstd(x)."""
    if op.name == "tfc.mul":
        candidates = [(op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])]
        scale_op = "tfc.rsqrt"
    elif op.name == "tfc.div":
        candidates = [(op.operands[0], op.operands[1])]
        scale_op = "tfc.sqrt"
    else:
        return None
    for x, s in candidates:
        r = defining(s, scale_op)
        if r is None:
            continue
        add = defining(r.operands[0], "tfc.add")
        if add is None:
            continue
        for ms, eps in ((add.operands[0], add.operands[1]), (add.operands[1], add.operands[0])):
            mean = defining(ms, "tfc.reduce_mean")
            eps_value = splat(eps)
            if mean is None or eps_value is None or eps.rank != 0 or eps_value <= 0:
                continue
            if not mean.attrs.get("keepdim") or list(mean.attrs["dims"]) != [x.rank - 1]:
                continue
            if _squared_input(mean.operands[0]) is not x or x.rank < 1:
                continue
            if op.result.type != x.type:
                continue
            return x, float(eps_value)
    return None


def run(fn) -> int:
    fired = 0
    uses = fn.uses()
    for op in list(fn.ops):
        found = _match(op)
        if found is None:
            continue
        x, eps = found
        normed = op.result
        anchor, target, weight = op, normed, None
        user = single_use(uses, normed)
        # Upcast form (Hugging Face's LlamaRMSNorm in 16 bit): x.to(f32) is
        # normalized, then rounded back before the weight multiply.
        up = defining(x, "tfc.convert")
        if up is not None and up.operands[0].dtype in ("f16", "bf16") and user is not None \
                and user.name == "tfc.convert" and user.result.dtype == up.operands[0].dtype:
            x, anchor, target = up.operands[0], user, user.result
            user = single_use(uses, target)
        if user is not None and user.name == "tfc.mul":
            w = other(user, normed)
            if w.rank == 1 and w.shape[0] == x.shape[-1] and w.dtype == x.dtype \
                    and user.result.type == x.type:
                anchor, target, weight = user, user.result, w
        b = collect_before(fn, anchor)
        y, _ = b.rms_norm(x, weight, 1, eps)
        splice(fn, anchor, b)
        replace(fn, target, y)
        fired += 1
        uses = fn.uses()
    return fired
