"""torch 2.x's fused attention ops (F.scaled_dot_product_attention and the
kernels make_fx may record for it) become tfc.attention, an attn_mask its
mask operand (i1 as is, a float mask in q's type)."""

from ..importer import Missing
from ..registry import lowers


def _attention(ctx, q, k, v, mask, dropout_p, is_causal, scale, enable_gqa=False):
    b = ctx.b
    dt = ctx.out_types[0].dtype
    qv, kv, vv = ctx.tensor(q, dt), ctx.tensor(k, dt), ctx.tensor(v, dt)
    if dropout_p:
        ctx.unsupported("attention dropout inside scaled_dot_product_attention",
                        "apply dropout with nn.Dropout on the attention output instead")
    if qv.shape[:-2] != kv.shape[:-2] and qv.rank == kv.rank:
        # Grouped-query attention: repeat each key/value head.
        heads, kv_heads = qv.shape[-3], kv.shape[-3]
        rep = heads // kv_heads

        def repeat(x):
            shape = x.shape
            x = b.reshape(x, shape[:-2] + (1,) + shape[-2:])
            x = b.broadcast_to(x, shape[:-3] + (kv_heads, rep) + shape[-2:])
            return b.reshape(x, shape[:-3] + (heads,) + shape[-2:])
        kv, vv = repeat(kv), repeat(vv)
    m = None
    if mask is not None:
        m = ctx.tensor(mask)
        if m.dtype != "i1":
            m = ctx.tensor(mask, dt)
    return b.attention(qv, kv, vv, bool(is_causal), scale, mask=m)


def _with_missing(ctx, out):
    rest = [Missing("its log-sum-exp and RNG-state results are not computed by tfc")
            for _ in ctx.out_types[1:]]
    return (out, *rest) if rest else out


@lowers("aten.scaled_dot_product_attention.default")
def sdpa(ctx, q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
         enable_gqa=False):
    return _attention(ctx, q, k, v, attn_mask, dropout_p, is_causal, scale, enable_gqa)


@lowers("aten._scaled_dot_product_flash_attention_for_cpu.default")
def sdpa_flash_cpu(ctx, q, k, v, dropout_p=0.0, is_causal=False, attn_mask=None, scale=None):
    return _with_missing(ctx, _attention(ctx, q, k, v, attn_mask, dropout_p, is_causal, scale))


@lowers("aten._scaled_dot_product_flash_attention.default")
def sdpa_flash(ctx, q, k, v, dropout_p=0.0, is_causal=False, return_debug_mask=False,
               scale=None):
    return _with_missing(ctx, _attention(ctx, q, k, v, None, dropout_p, is_causal, scale))


@lowers("aten._scaled_dot_product_efficient_attention.default")
def sdpa_efficient(ctx, q, k, v, attn_bias=None, compute_log_sumexp=False, dropout_p=0.0,
                   is_causal=False, scale=None):
    return _with_missing(ctx, _attention(ctx, q, k, v, attn_bias, dropout_p, is_causal, scale))


@lowers("aten._scaled_dot_product_attention_math.default")
def sdpa_math(ctx, q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, dropout_mask=None,
              scale=None, enable_gqa=False):
    return _with_missing(ctx, _attention(ctx, q, k, v, attn_mask, dropout_p, is_causal, scale))
