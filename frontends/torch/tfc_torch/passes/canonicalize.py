"""Canonicalization of the imported IR.

make_fx records what PyTorch's kernels do, not what the model says: a
linear layer on [B, T, C] activations is view -> addmm -> view, a batched
q @ k^T is expand -> clone -> view -> bmm -> view, transposes are separate
ops. These rewrites restore the model's form, each exact:

  * reshape(reshape(x)) -> reshape(x); a reshape, broadcast_to, convert or
    transpose to the operand's own type disappears; transpose(transpose)
    composes;
  * a matmul operand that is a transpose moving its last dimension becomes
    the matmul's transpose flag;
  * matmul(reshape(a), reshape(b)) that merely merged the batch dimensions
    of a and b becomes a batched matmul of a and b (then reshaped);
  * matmul(reshape(x), w) of a rank-2 w, where the reshape merged the
    leading dimensions of x, becomes matmul(x, w) (then reshaped);
  * an elementwise op of such a reshape (and a bias, scalar or another
    reshape of the same shape) runs before the reshape instead;
  * identical ops on identical operands are computed once (CSE).
Reshapes pushed forward this way meet their inverse and cancel.
"""
from .match import ELEMENTWISE_BINARY, ELEMENTWISE_UNARY, collect_before, defining, replace, splice


def _swapped_last(perm):
    return list(perm[:-2]) + [perm[-1], perm[-2]]


def _keeps_last_dim(src, dst) -> bool:
    """A reshape src -> dst that only regroups the leading dimensions."""
    return src.rank >= 1 and dst.rank >= 1 and src.shape[-1] == dst.shape[-1]


def _rewrite_with(fn, op, build):
    """Builds replacement values for op's results before op and rewires."""
    b = collect_before(fn, op)
    news = build(b)
    splice(fn, op, b)
    for old, new in zip(op.results, news):
        replace(fn, old, new)
    return True


def _reshape(fn, op):
    x = op.operands[0]
    y = op.result
    if x.type == y.type:
        replace(fn, y, x)
        return True
    inner = defining(x, "tfc.reshape")
    if inner is not None:
        return _rewrite_with(fn, op, lambda b: [b.reshape(inner.operands[0], y.shape)])
    return False


def _broadcast(fn, op):
    x = op.operands[0]
    if x.type == op.result.type:
        replace(fn, op.result, x)
        return True
    inner = defining(x, "tfc.broadcast_to")
    if inner is not None:
        return _rewrite_with(fn, op, lambda b: [b.broadcast_to(inner.operands[0], op.result.shape)])
    return False


def _convert(fn, op):
    if op.operands[0].type == op.result.type:
        replace(fn, op.result, op.operands[0])
        return True
    return False


def _transpose(fn, op):
    x, perm = op.operands[0], op.attrs["permutation"]
    if list(perm) == list(range(len(perm))):
        replace(fn, op.result, x)
        return True
    inner = defining(x, "tfc.transpose")
    if inner is not None:
        p1 = inner.attrs["permutation"]
        composed = [p1[p] for p in perm]
        return _rewrite_with(fn, op, lambda b: [b.transpose(inner.operands[0], composed)])
    return False


def _matmul_transposes(fn, op):
    for i, flag in ((0, "transpose_a"), (1, "transpose_b")):
        t = defining(op.operands[i], "tfc.transpose")
        if t is None:
            continue
        perm = t.attrs["permutation"]
        rank = len(perm)
        if perm[-1] == rank - 1:
            continue  # the innermost dim stays: nothing for the GEMM to absorb
        inner = _swapped_last(perm)
        if inner[-1] != rank - 1:
            continue

        def build(b, i=i, flag=flag, t=t, inner=inner):
            operands = list(op.operands)
            b.hint = t.operands[0].hint
            operands[i] = b.transpose(t.operands[0], inner)
            b.hint = op.result.hint
            flags = {"transpose_a": op.attrs.get("transpose_a", False),
                     "transpose_b": op.attrs.get("transpose_b", False)}
            flags[flag] = not flags[flag]
            return [b.matmul(operands[0], operands[1], **flags)]
        return _rewrite_with(fn, op, build)
    return False


def _merged_batch(v):
    """(source, True) when v = reshape(source) only merged source's batch
    dims into one (last two dims unchanged)."""
    r = defining(v, "tfc.reshape")
    if r is None:
        return None
    src = r.operands[0]
    if src.rank < 3 or v.rank != 3 or src.shape[-2:] != v.shape[-2:]:
        return None
    return src


def _product(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _matmul_batched(fn, op):
    a, b_ = op.operands
    if a.rank != 3 or b_.rank != 3:
        return False
    sa, sb = _merged_batch(a), _merged_batch(b_)
    if sa is None or sb is None:
        return False
    if sa.shape[:-2] != sb.shape[:-2]:
        # Same number of matrices grouped differently (e.g. [B, Hkv, n]
        # repeated key heads against [B, H] queries): regroup one side as
        # the other, preferring the fewer batch dims.
        if _product(sa.shape[:-2]) != _product(sb.shape[:-2]):
            return False
        batch = sa.shape[:-2] if sa.rank <= sb.rank else sb.shape[:-2]
    else:
        batch = sa.shape[:-2]

    def build(b):
        x = b.reshape(sa, batch + sa.shape[-2:])
        y = b.reshape(sb, batch + sb.shape[-2:])
        return [b.reshape(b.matmul(x, y, op.attrs.get("transpose_a", False),
                                   op.attrs.get("transpose_b", False)), op.result.shape)]
    return _rewrite_with(fn, op, build)


def _leading_group(src, k):
    """The shape of `src` with its leading dims kept and the trailing dims
    whose product is k merged into one, or None."""
    prod = 1
    for j in range(src.rank - 1, -1, -1):
        prod *= src.shape[j]
        if prod == k:
            return src.shape[:j] + (k,)
        if prod > k:
            return None
    return None


def _matmul_linear(fn, op):
    a, w = op.operands
    if op.attrs.get("transpose_a") or a.rank != 2 or w.rank != 2:
        return False
    r = defining(a, "tfc.reshape")
    if r is None:
        return False
    src = r.operands[0]
    shape = _leading_group(src, a.shape[-1])
    if shape is None or len(shape) <= 2:
        return False

    def build(b):
        x = b.reshape(src, shape)
        return [b.reshape(b.matmul(x, w, False, op.attrs.get("transpose_b", False)),
                          op.result.shape)]
    return _rewrite_with(fn, op, build)


def _sink_unary(fn, op):
    r = defining(op.operands[0], "tfc.reshape")
    if r is None:
        return False
    src = r.operands[0]

    def build(b):
        new = b.create(op.name, [src], op.attrs, [op.result.type.with_shape(src.shape)]).result
        return [b.reshape(new, op.result.shape)]
    return _rewrite_with(fn, op, build)


def _sink_binary(fn, op):
    p, q = op.operands
    for first, second, swapped in ((p, q, False), (q, p, True)):
        r = defining(first, "tfc.reshape")
        if r is None:
            continue
        src = r.operands[0]
        if not _keeps_last_dim(src, first) or first.shape != op.result.shape:
            continue
        partner = None
        if second.rank == 0 or (second.rank == 1 and second.shape[0] in (1, src.shape[-1])):
            partner = second
        else:
            r2 = defining(second, "tfc.reshape")
            if r2 is not None and r2.operands[0].shape == src.shape and second.shape == first.shape:
                partner = r2.operands[0]
        if partner is None:
            continue

        def build(b, src=src, partner=partner, swapped=swapped):
            operands = [partner, src] if swapped else [src, partner]
            new = b.create(op.name, operands, op.attrs,
                           [op.result.type.with_shape(src.shape)]).result
            return [b.reshape(new, op.result.shape)]
        return _rewrite_with(fn, op, build)
    return False


_RULES = {
    "tfc.reshape": [_reshape],
    "tfc.broadcast_to": [_broadcast],
    "tfc.convert": [_convert, _sink_unary],
    "tfc.transpose": [_transpose],
    "tfc.matmul": [_matmul_transposes, _matmul_batched, _matmul_linear],
}
for _name in ELEMENTWISE_UNARY - {"tfc.convert"}:
    _RULES[_name] = [_sink_unary]
for _name in ELEMENTWISE_BINARY:
    _RULES[_name] = [_sink_binary]


def _attrs_key(attrs):
    return tuple(sorted((k, repr(v)) for k, v in attrs.items()))


def cse(fn) -> int:
    """Merges ops with the same name, operands, attributes and types. The
    ops are in order, so a merged op's uses are renamed as they are
    reached (one pass, not a scan of every op per merge)."""
    seen, merged, renamed = {}, 0, {}
    for op in list(fn.ops):
        if renamed:
            op.operands = [renamed.get(v, v) for v in op.operands]
        key = (op.name, tuple(id(v) for v in op.operands), _attrs_key(op.attrs),
               tuple(r.type for r in op.results))
        first = seen.get(key)
        if first is None:
            seen[key] = op
            continue
        for old, new in zip(op.results, first.results):
            assert old.type == new.type, f"replacing {old.type} with {new.type}"
            if new.known is None:
                new.known = old.known
            renamed[old] = new
        merged += 1
    if renamed:
        fn.returns = [renamed.get(v, v) for v in fn.returns]
    return merged


def run(fn) -> int:
    """Applies the rewrites to a fixed point; returns how many fired."""
    total = 0
    while True:
        changed = 0
        for op in list(fn.ops):
            for rule in _RULES.get(op.name, ()):
                if rule(fn, op):
                    changed += 1
                    break
        changed += cse(fn)
        fn.dce()
        total += changed
        if not changed:
            return total
