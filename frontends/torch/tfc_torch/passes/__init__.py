"""Graph passes over the imported function, in order:

  canonicalize    folds reshape/transpose/broadcast chains, puts transposes
                  into matmul flags, and moves reshapes of linear layers and
                  batched products past the ops so models read as they are
                  written (3-d activations, 4-d attention);
  rms_norm        x * rsqrt(mean(x^2) + eps) [* w]   -> tfc.rms_norm
  gelu            x * 0.5 * (1 + erf(x / sqrt(2)))   -> tfc.gelu
  cross_entropy   nll_loss(log_softmax(x))           -> tfc.cross_entropy
  dropout         x * (bernoulli(1 - p) / (1 - p))   -> tfc.dropout
  attention       softmax(q k^T * s [+ causal mask] [+ mask]) [dropout] v -> tfc.attention
  legalize        expands the remaining frontend ops (nll_loss, bernoulli, erf) into
                  tfc ops, refuses the others
and dead-code elimination after each.
"""
from . import attention, canonicalize, cross_entropy, dropout, gelu, legalize, rms_norm

PIPELINE = (
    ("canonicalize", canonicalize.run),
    ("rms_norm", rms_norm.run),
    ("gelu", gelu.run),
    ("cross_entropy", cross_entropy.run),
    ("dropout", dropout.run),
    ("attention", attention.run),
    ("legalize", legalize.run),
    ("canonicalize", canonicalize.run),
)


def run_pipeline(fn, patterns: bool = True) -> dict:
    """Runs the passes on `fn`; returns how often each pattern fired.
    With `patterns` false only canonicalize and legalize run: the IR keeps
    the decomposed forms."""
    stats = {}
    for name, run in PIPELINE:
        if not patterns and name not in ("canonicalize", "legalize"):
            continue
        stats[name] = stats.get(name, 0) + run(fn)
        fn.dce()
    return stats
