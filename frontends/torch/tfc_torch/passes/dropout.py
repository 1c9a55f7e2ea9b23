"""F.dropout as the CPU traces it, x * (bernoulli(1 - p) / (1 - p)),
becomes tfc.dropout(x, seed, offset, p): one pointwise op whose backward
regenerates the mask instead of storing it. The bernoulli is the frontend
op `torch.bernoulli` (ops/nn.py), used by nothing else; a mask of x's own
shape only (a broadcast one, as stochastic depth's per-sample draw, stays
a multiply by its draws)."""
from .match import collect_before, is_splat, other, replace, single_use, splice


def run(fn) -> int:
    fired = 0
    uses = fn.uses()
    for op in list(fn.ops):
        if op.name != "torch.bernoulli":
            continue
        keep = op.attrs["p"]
        scaled = single_use(uses, op.result)
        if scaled is None or scaled.name != "tfc.div" or scaled.operands[0] is not op.result \
                or not is_splat(scaled.operands[1], keep) or keep >= 1.0:
            continue
        apply = single_use(uses, scaled.result)
        if apply is None or apply.name != "tfc.mul":
            continue
        x = other(apply, scaled.result)
        if x.type != apply.result.type or x.dtype not in ("f16", "bf16", "f32", "f64"):
            continue
        if scaled.result.shape != apply.result.shape:
            # A mask that broadcasts (stochastic depth's one draw per
            # sample, [B, 1, 1]) shares its draw along those dims: not
            # tfc.dropout's one draw per element.
            continue
        seed, offset = op.operands
        b = collect_before(fn, apply)
        y = b.dropout(x, seed, offset, float(f"{1.0 - keep:.15g}"))
        splice(fn, apply, b)
        replace(fn, apply.result, y)
        fired += 1
        uses = fn.uses()
    return fired
