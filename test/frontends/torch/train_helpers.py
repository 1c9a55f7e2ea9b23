"""What check_train.py's cases share: tolerances, random batches like an
example, torch's loss of a family model, AdamW's parameter groups as tfc
forms them, distances, running a tfc step and torch side by side, and
expecting an error."""
import math

import torch

from check_models import _model_argc

LOSS_RTOL = 1e-4
PARAM_RTOL = 1e-3
# The distance a parameter moved in a few steps, normwise against torch's
# (param-groups measures 6.5e-6 at worst; NAdam without its momentum_decay
# moves 3.7e-4 off).
MOVED_RTOL = 1e-4


def random_batch(example, g):
    """A batch like `example`: floats from N(0, 1), integers drawn from the
    example's range (tokens, labels; -1 ignore labels kept where the
    example has them), booleans as in the example."""
    out = []
    for t in example:
        if t.is_floating_point():
            out.append(torch.randn(t.shape, generator=g, dtype=t.dtype))
        elif t.dtype == torch.bool:
            out.append(t.clone())
        else:
            lo, hi = max(int(t.min()), 0), int(t.max())
            r = torch.randint(lo, hi + 1, t.shape, generator=g, dtype=t.dtype)
            out.append(torch.where(t < 0, t, r))
    return tuple(out)


def batches(model, example, loss_fn, n, seed):
    """`n` random batches; attention masks and token types (by their input
    names) keep the example's structure."""
    from tfc_torch.batch_layout import input_names
    names = input_names(model, len(example), loss_fn)
    g = torch.Generator().manual_seed(seed)
    for _ in range(n):
        fresh = random_batch(example, g)
        yield tuple(e.clone() if "mask" in nm or "type" in nm else f
                    for nm, e, f in zip(names, example, fresh))


def torch_loss(model, batch, loss_fn):
    if loss_fn is None:
        return model(*batch)
    return loss_fn(model(*batch[:_model_argc(model, batch)]), *batch)


def adamw_groups(model, weight_decay):
    params = list(model.parameters())
    return [{"params": [p for p in params if p.dim() >= 2], "weight_decay": weight_decay},
            {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-6)


def normwise(a, b):
    return (a - b).norm().item() / max(b.norm().item(), 1e-12)


def train_alongside(step, reference, opt, loss_of, data, label, problems, after=None):
    """Runs the tfc `step` and torch's `opt` on `reference` over the batches
    `data` side by side (loss_of(reference, batch): torch's loss), then
    `after()` when given; a step whose losses differ by more than LOSS_RTOL
    is a problem."""
    for i, batch in enumerate(data):
        loss = step(*batch)
        opt.zero_grad()
        expected = loss_of(reference, batch)
        expected.backward()
        opt.step()
        if not math.isfinite(loss) or rel(loss, expected.item()) > LOSS_RTOL:
            problems.append(f"{label}step {i}: loss {loss!r}, torch {expected.item()!r}")
        if after is not None:
            after()


def compare_parameters(state, reference, label, problems):
    """Each parameter of `reference` against the trained `state` (a
    state_dict): normwise within PARAM_RTOL."""
    for name, p in reference.named_parameters():
        e = normwise(state[name], p.detach())
        if e > PARAM_RTOL:
            problems.append(f"{label}parameter {name}: {e:.2e} from torch's")


def verdict(problems, summary):
    """A check's result: its first problems joined, or None after printing
    `summary` (what passed)."""
    if problems:
        return "; ".join(problems[:6])
    print(summary)
    return None


def expect_error(kind, text, fn):
    try:
        fn()
    except kind as e:
        if text not in str(e):
            return f"{kind.__name__} without '{text}': {e}"
        return None
    return f"no {kind.__name__} ('{text}')"
