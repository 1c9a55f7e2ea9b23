"""Custom torch.autograd.Function subclasses, imported with their backward.

tfc derives gradients from the traced forward ops, and make_fx cannot trace
a Function at all (torch 1.13's functorch refuses them). While tracing,
`Function.apply` is replaced (`applied`): the Function's forward runs
under no_grad (its ops carry no gradient), and its backward is imported in
the forms most custom Functions have. They are linear in the gradient g of
the output y; per input x_i:

    elementwise   grad_i = m_i * g                  (x_i of y's shape)
    reduced       grad_i = sum_to(c_i * g, x_i's shape)
                  (x_i broadcasts to y's shape: a scalar or per-channel
                  step size, LSQ's grad_alpha = sum(coefficient * g); or
                  a backward returning m_i * g of y's shape for it,
                  which torch sums to x_i's shape: c_i = m_i)
    added         grad_i = c_i, independent of g    (x_i of another shape)

The first covers straight-through estimators (m = 1 or a mask), gradient
reversal (m = -lambda), gradient scaling and clipping masks, and custom
activations with hand-written derivatives (m = f'(x)). m_i is the backward
of a gradient of ones, computed in the trace from the saved tensors; c_i of
a reduced input the vector-Jacobian product of g -> grad_i with ones
(functorch.vjp through the backward, which also tells that grad_i does not
depend on g: the added form). The output is then
`tfc_torch::straight_through(y, sum_i m_i * x_i + sum_i c_i * x_i)`: y's
value with those gradients to each x_i (ops/autograd.py lowers it to
tfc.straight_through); an added gradient is a loss term sum(c_i * x_i) of
value 0 that added_loss() adds to the loss (DeepSeek-MoE's
AddAuxiliaryLoss).

As torch, the backward is called for the Function's one differentiable
output: floating point and not marked with ctx.mark_non_differentiable;
the other outputs (integer or bool indices, masks, marked values) are their
forward values without gradient, and the backward gets zeros for them
(None without materialize_grads). ctx.needs_input_grad says which inputs
require grad (grad_flags' flags while tracing); the others get no gradient,
and with none of them, or under no_grad, no backward is imported at all.
Several differentiable outputs are refused.

The eager run after the trace (no_grad_writes.mark, `applied(check=True)`)
records each Function it meets, and run_checks() then checks its forms on
the real values and on random inputs (_sampled; the coefficients
recomputed there): the backward of random gradients (two draws, elements
spanning 8 orders of magnitude, scaled by 1e-8 and 1e8 too) must equal
what the forms give for them, else the Function is refused with its name
(a backward that mixes elements, such as a custom matmul or softmax, or
that clips, gates or normalizes the gradient, is not imported; nor an
affine one, m * g plus a term independent of g, as SR-STE's decay).

Before those forms: a Function whose backward is its forward's derivative
on the example's values and on random inputs of both signs at scales 1e-3
to 1e3 (_backward_is_derivative: random gradients of scales 1e-3 to 1e3,
cls.backward against functorch's vjp of the functionalized forward, a
no_grad block in the forward kept with grad on, as it tells torch nothing
there) is traced through its forward, which tfc differentiates, with a
one-time CustomFunctionWarning naming it: HF DeBERTa's XSoftmax (a
softmax's backward), Reformer's ReverseSort (two outputs). The trace
decides, the eager run takes its decisions.

torch's own _Dirichlet Function (Beta and Dirichlet draws) is refused with
what to draw instead (tfc has no gamma draw), and a Function inside a
functorch transform (its arguments wrapped by grad or vmap) as torch 1.13
refuses it. openai's activation-checkpoint Function
(CheckpointFunction(run_function, length, *args), diffusion UNets) is
traced as a direct call of run_function, as torch.utils.checkpoint is.
"""
import contextlib
import types
from typing import List, Optional, Sequence, Tuple

import torch

from . import grad_flags, patching
from .errors import FrontendError, ModelError
from .trace_hints import AUTOGRAD_IN_FORWARD_MARKERS, DATA_DEPENDENT_MARKERS
from .source import stack_frame

# The frontend's own torch op: `value` with the gradient of `source` (the
# identity to source): recorded by make_fx like an aten op.
_LIBRARY = torch.library.Library("tfc_torch", "DEF")
_LIBRARY.define("straight_through(Tensor value, Tensor source) -> Tensor")
_LIBRARY.impl("straight_through", lambda value, source: value.clone(),
              "CompositeExplicitAutograd")

# Whether the running `applied` block is the eager run (check=True).
_EAGER = [False]


def straight_through(value, source):
    """`value` with the gradient of `source`: the frontend's own op while
    tracing (lowered to tfc.straight_through); in the eager run, where
    autograd must see that the result requires grad as the model's tensor
    would (no_grad_writes pairs in-place writes by it), value + (source -
    source.detach()), which no trace records."""
    if _EAGER[0]:
        return value.detach() + (source - source.detach())
    return torch.ops.tfc_torch.straight_through(value, source)


PROBLEM_HINT = ("write the forward with differentiable torch ops (tfc differentiates them), or "
                "give the Function an elementwise backward (grad_input = m * grad_output)")

# How one input's gradient is imported (the module doc's forms): m * g, the
# sum of c * g over the dimensions the input broadcasts along, or a loss
# term (a gradient that does not depend on g).
ELEMENTWISE, REDUCED, ADDED = "elementwise", "reduced", "added"


class _TraceContext:
    """The `ctx` a Function's forward and backward see while tracing."""

    def __init__(self, needs_input_grad):
        self.saved_tensors = ()
        self.needs_input_grad = tuple(needs_input_grad)
        self.materialize_grads = True
        self.non_differentiable: List[torch.Tensor] = []
        self.dirty = False

    def save_for_backward(self, *tensors):
        self.saved_tensors = tuple(tensors)

    @property
    def saved_variables(self):
        """torch's deprecated alias of saved_tensors (NAFNet's LayerNorm2d)."""
        return self.saved_tensors

    def save_for_forward(self, *tensors):
        pass

    def mark_dirty(self, *tensors):
        self.dirty = True

    def mark_non_differentiable(self, *tensors):
        self.non_differentiable.extend(tensors)

    def marked(self, t) -> bool:
        """Whether output `t` was marked non-differentiable."""
        return any(t is m for m in self.non_differentiable)

    def set_materialize_grads(self, value):
        self.materialize_grads = value


def _refuse(cls, why: str, frame=None, hint: str = PROBLEM_HINT):
    name = getattr(cls, "__qualname__", str(cls))
    raise ModelError(f"custom torch.autograd.Function '{name}': {why}", frame, hint)


def _grads(cls, ctx, grad_outputs):
    """cls.backward(ctx, *grad_outputs) as a tuple, under no_grad."""
    with torch.no_grad():
        out = cls.backward(ctx, *grad_outputs)
    return out if isinstance(out, tuple) else (out,)


def _grad_outputs(ctx, outs, k, grad):
    """The backward's arguments: `grad` for output k, and for the others
    (no gradient reaches them) what torch passes: zeros of their kind
    (None without materialize_grads), None for a non-tensor output."""
    return tuple(grad if j == k else
                 torch.zeros_like(o) if isinstance(o, torch.Tensor) and ctx.materialize_grads
                 else None for j, o in enumerate(outs))


def _forward(cls, ctx, args):
    """The Function's forward under no_grad (torch 2's setup_context form
    too)."""
    base = getattr(torch.autograd.Function, "setup_context", None)
    setup = getattr(cls, "setup_context", None)
    with torch.no_grad():
        if setup is not None and getattr(setup, "__func__", setup) is not getattr(base, "__func__",
                                                                                    base):
            out = cls.forward(*args)
            setup(ctx, args, out)
            return out
        return cls.forward(ctx, *args)


def _is_activation_checkpoint(cls, args) -> bool:
    """openai's CheckpointFunction (guided / improved / latent diffusion,
    Stable Diffusion's use_checkpoint=True): apply(run_function, length,
    *inputs, *params) runs run_function(*inputs) under no_grad, and its
    backward reruns it and takes torch.autograd.grad: exactly
    run_function's own gradient, as torch.utils.checkpoint's."""
    return (cls.__name__ == "CheckpointFunction" and len(args) >= 2 and callable(args[0])
            and isinstance(args[1], int) and not isinstance(args[1], bool)
            and 0 <= args[1] <= len(args) - 2)


_DIRICHLET_HINT = (
    "draw the value from torch.rand / torch.randn instead (for mixup's lam ~ Beta(a, a): "
    "torch.rand(()) is Beta(1, 1); a Kumaraswamy draw (1 - (1 - u) ** (1 / a)) ** (1 / a) of "
    "u = torch.rand(()) has a similar shape), or draw it outside the model (numpy's "
    "np.random.beta) and pass it in as a batch input")


def _apply(cls, *args, check: bool = False):
    if _is_activation_checkpoint(cls, args):
        # Traced as a direct call, as torch.utils.checkpoint is: tfc's
        # recompute= option decides what to keep.
        return args[0](*args[2:2 + args[1]])
    if cls.__module__ == "torch.distributions.dirichlet" and cls.__name__ == "_Dirichlet":
        # torch's own Function behind Beta / Dirichlet draws (their sample()
        # too): its forward is a gamma draw, which tfc's stream does not have.
        raise ModelError(
            "a Beta or Dirichlet draw (torch.distributions.Beta / Dirichlet .sample() or "
            ".rsample()) cannot be imported: tfc has no gamma-distributed random "
            "draw", stack_frame(), _DIRICHLET_HINT)
    if _in_functorch_transform(args):
        # torch 1.13 refuses it in eager runs; traced, functorch's vmap
        # fails an internal assert at the straight_through op.
        _refuse(cls, "it is applied inside a functorch transform (grad, vmap, jacrev, "
                     "hessian, vjp), which this torch does not support (its eager runs refuse "
                     "it too)", stack_frame(),
                "apply the Function outside the transform, or write its forward with "
                "differentiable torch ops inside it (the transform then differentiates them)")
    try:
        return _import(cls, args, check)
    except FrontendError:
        raise
    except Exception as e:  # noqa: BLE001 - re-raised with the Function's name
        text = f"{type(e).__name__}: {e}".splitlines()[0]
        if any(m in text for m in DATA_DEPENDENT_MARKERS):
            raise  # the tracer's own message for value-dependent control flow
        if any(m in text for m in AUTOGRAD_IN_FORWARD_MARKERS):
            # Reformer's _ReversibleFunction, RevViT, revtorch: a backward
            # that recomputes the forward and runs autograd on it.
            _refuse(cls, "its backward runs torch's autograd itself (torch.autograd.backward / "
                         "grad on a recomputed forward: a reversible residual block or another "
                         f"Function that saves memory), which tfc cannot import ({text})",
                    stack_frame(),
                    "such a Function only saves memory, its gradient is its forward's: apply "
                    "the block's plain ops instead (y1 = x1 + f(x2); y2 = x2 + g(y1)), which tfc "
                    "differentiates, and to save activation memory wrap them in "
                    "torch.utils.checkpoint.checkpoint (traced as a direct call) or compile "
                    "with recompute='blocks'")
        _refuse(cls, f"running its forward or backward while tracing failed ({text})")


def _in_functorch_transform(args) -> bool:
    """Whether a Function's tensor arguments are those of a functorch grad
    or vmap transform (wrapped for it)."""
    functorch_c = getattr(torch._C, "_functorch", None)
    if functorch_c is None:
        return False
    return any(isinstance(a, torch.Tensor) and (functorch_c.is_gradtrackingtensor(a)
                                                or functorch_c.is_batchedtensor(a))
               for a in args)


# Whether the running trace computes gradients (a loss import); an imported
# forward (tfc_torch.compile, import_forward) runs no backward (gradients()).
_GRADIENTS = [True]


@contextlib.contextmanager
def gradients(wanted: bool):
    """Meanwhile Functions get their backward imported (and checked) only
    when `wanted`: an inference forward takes their forward values alone,
    whatever their backward is (DeBERTa's XSoftmax, Reformer's
    ReverseSort)."""
    saved, _GRADIENTS[0] = _GRADIENTS[0], wanted
    try:
        yield
    finally:
        _GRADIENTS[0] = saved


def _needs_grad(a) -> bool:
    """Whether torch would compute a gradient for Function input `a`: a
    floating-point tensor that requires grad (in the trace, its grad_flags
    flag), with grad mode on, in a trace that computes gradients."""
    return (_GRADIENTS[0] and isinstance(a, torch.Tensor)
            and (a.is_floating_point() or a.is_complex())
            and torch.is_grad_enabled() and (a.requires_grad or grad_flags.flagged(a)))


def _broadcasts(a, out) -> bool:
    """Whether input `a` broadcasts to `out`'s shape (and is smaller)."""
    if a.dim() > out.dim() or a.shape == out.shape:
        return False
    return all(s in (1, o) for s, o in zip(reversed(a.shape), reversed(out.shape)))


def sum_to(t, shape):
    """`t` summed over the dimensions a tensor of `shape` broadcasts along
    to t's shape (autograd's reduction of a broadcast operand's gradient)."""
    lead = t.dim() - len(shape)
    if lead:
        t = t.sum(dim=tuple(range(lead)))
    dims = tuple(d for d, s in enumerate(shape) if s == 1 and t.shape[d] != 1)
    return t.sum(dim=dims, keepdim=True) if dims else t


def _coefficient(cls, ctx, outs, k, i):
    """For input i of a backward linear in the gradient g of output k,
    grad_i = sum_to(c * g, shape of input i): c, of output k's shape, as
    the vector-Jacobian product of g -> grad_i with ones (functorch.vjp
    through the backward); None when grad_i does not depend on g, or when
    functorch cannot run the backward (the added form then, checked as
    such)."""
    import functorch

    depends = []

    def gradient(g):
        with torch.enable_grad():
            got = cls.backward(ctx, *_grad_outputs(ctx, outs, k, g.clone()))
        got = (got if isinstance(got, tuple) else (got,))[i]
        depends.append(isinstance(got, torch.Tensor) and got.requires_grad)
        return got

    try:
        value, vjp = functorch.vjp(gradient, torch.ones_like(outs[k]))
        if not depends[0]:
            return None
        return vjp(torch.ones_like(value))[0].detach()
    except Exception:  # noqa: BLE001 - the form before the reduced one
        return None


def _values(out, args, ctx):
    """The Function's outputs when none carries a gradient: as computed
    (under no_grad), an input returned as a marked output detached."""
    def value(o):
        if isinstance(o, torch.Tensor) and ctx.marked(o) and any(o is a for a in args):
            return o.detach()
        return o
    return tuple(value(o) for o in out) if isinstance(out, tuple) else value(out)


class _GradKept:
    """torch.no_grad while a Function's forward is differentiated: a no-op
    (torch runs a Function's forward with grad off anyway, so a no_grad
    block in it, as in Reformer's ReverseSort, tells torch nothing)."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        return fn


@contextlib.contextmanager
def _grad_kept():
    with patching.replaced(torch, no_grad=_GradKept), \
            patching.replaced(torch.autograd, no_grad=_GradKept):
        yield


def _plain(a) -> bool:
    """Whether Function argument `a` is a tensor or a plain Python value
    (no module or callable whose state the check below would run)."""
    if isinstance(a, (list, tuple)):
        return all(_plain(e) for e in a)
    return a is None or isinstance(a, (torch.Tensor, bool, int, float, complex, str,
                                       torch.dtype))


def _backward_is_derivative(cls, args, needs) -> bool:
    """Whether the Function's backward is its forward's derivative: on the
    example's values (real copies, outside the trace) and on _SAMPLES
    random inputs (_sampled: every floating-point tensor argument, 0-d ones
    too, drawn at scales 1e-3, 1 and 1e3 of both signs, and all positive or
    all negative; the other arguments as given), for random gradients of
    its floating-point outputs at several scales, cls.backward gives what
    functorch's vjp of the (functionalized) forward gives, for every input
    that needs a gradient. Then differentiating the forward is torch's
    gradient (DeBERTa's XSoftmax, a softmax's backward). One point proves
    nothing: a backward that clips the gradient, or masks it only where the
    example's values are not (CompressAI's LowerBound), or scales it by an
    argument, agrees with the derivative there. Not for Functions taking
    modules or callables, marking outputs non-differentiable or inputs
    dirty, or whose forward cannot be differentiated (or fails) on one of
    the inputs."""
    if not _plain(list(args)):
        return False
    from torch.fx.experimental.proxy_tensor import disable_proxy_modes_tracing
    from .selection_sizes import _real_value
    with disable_proxy_modes_tracing():   # nothing of the check in the trace
        # The inputs that need a gradient require one, as torch's (a
        # forward may read it: DeepSeek-MoE's AddAuxiliaryLoss);
        # requires_grad_() is refused inside the trace's transform.
        reals = [_real_value(a) if isinstance(a, torch.Tensor) else a for a in args]
        key = _signature(cls, reals, needs)
        # The random draws depend on the arguments' shapes and dtypes only:
        # drawn once per signature (a Function applied in every layer).
        samples = [reals] if key in _SAMPLED_OK else [reals] + _sampled(reals)
        for sample in samples:
            for a, need in zip(sample, needs):
                if need:
                    a.requires_grad = True
            if not _derivative_agrees(cls, sample, needs):
                return False
        _SAMPLED_OK.add(key)
        return True


# The (Function, argument signature) pairs whose random draws agreed.
_SAMPLED_OK = set()


def _signature(cls, reals, needs):
    def of(a):
        if isinstance(a, torch.Tensor):
            return (tuple(a.shape), a.dtype)
        if isinstance(a, (list, tuple)):
            return tuple(of(e) for e in a)
        return repr(a)
    return (cls, tuple(of(a) for a in reals), tuple(needs))


# How _backward_is_derivative draws an input: (scale, sign) with sign 0
# for both signs (randn), 1 for all positive, -1 for all negative.
_SAMPLES = ((1e-3, 0), (1.0, 0), (1e3, 0), (1.0, 1), (1.0, -1), (1e-3, 1), (1e3, -1))


def _sampled(reals) -> List[list]:
    """Copies of a Function's arguments `reals` with every floating-point
    tensor drawn at random (_SAMPLES), the others as given."""
    out = []
    for n, (scale, sign) in enumerate(_SAMPLES):
        rng = torch.Generator().manual_seed(1000 + n)

        def draw(a):
            if not isinstance(a, torch.Tensor) or not a.is_floating_point():
                return a
            r = torch.randn(a.shape, generator=rng, dtype=torch.float64)
            r = r.abs() * sign if sign else r
            return (r * scale).to(a.dtype)
        out.append([[draw(e) for e in a] if isinstance(a, (list, tuple)) else draw(a)
                    for a in reals])
    return out


def _derivative_agrees(cls, reals, needs) -> bool:
    """_backward_is_derivative on real values `reals`."""
    import functorch
    from functorch.experimental import functionalize
    try:
        wrt = [i for i, need in enumerate(needs) if need]
        floating = []

        def forward(*inputs):
            full = list(reals)
            for i, t in zip(wrt, inputs):
                full[i] = t
            with _grad_kept():
                out = cls.forward(_TraceContext(needs), *full)
            outs = out if isinstance(out, tuple) else (out,)
            floating[:] = [k for k, o in enumerate(outs) if isinstance(o, torch.Tensor)
                           and o.is_floating_point()]
            return tuple(outs[k] for k in floating)
        with torch.random.fork_rng(devices=[]):
            state = torch.get_rng_state()
            with torch.enable_grad():
                ys, vjp = functorch.vjp(functionalize(forward), *[reals[i] for i in wrt])
            torch.set_rng_state(state)
            ctx = _TraceContext(needs)
            out = _forward(cls, ctx, reals)
        outs = out if isinstance(out, tuple) else (out,)
        if ctx.non_differentiable or ctx.dirty or not floating:
            return False
        # Gradients of both signs at scales 1, 1e3 and 1e-3 (a backward
        # clipping the gradient agrees on small ones).
        for draw, scale in enumerate((1.0, 1e3, 1e-3)):
            rng = torch.Generator().manual_seed(draw)
            gs = [(torch.randn(y.shape, generator=rng, dtype=torch.float64) * scale).to(y.dtype)
                  for y in ys]
            want = vjp(tuple(gs))
            given = dict(zip(floating, gs))
            got = _grads(cls, ctx, tuple(
                given[k] if k in given else
                torch.zeros_like(o) if isinstance(o, torch.Tensor) and ctx.materialize_grads
                else None for k, o in enumerate(outs)))
            if len(got) < len(reals):
                return False
            for i, w in zip(wrt, want):
                g = got[i] if got[i] is not None else torch.zeros_like(w)
                if not isinstance(g, torch.Tensor) or \
                        not _close(g, w.detach().double(), equal_nan=True):
                    return False
        return True
    except Exception:  # noqa: BLE001 - a forward functorch cannot differentiate
        return False


class CustomFunctionWarning(UserWarning):
    """A custom autograd.Function traced through its forward: tfc's
    derivative of the forward replaces its backward."""


# The Functions warned of (once each).
_WARNED = set()


def _warn_differentiated(cls) -> None:
    if cls in _WARNED:
        return
    _WARNED.add(cls)
    import os
    import sys
    import warnings
    here, frame, level = os.path.dirname(__file__), sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(here):
        frame, level = frame.f_back, level + 1   # to the model's code
    name = getattr(cls, "__qualname__", str(cls))
    warnings.warn(
        f"custom torch.autograd.Function '{name}': its backward is replaced by tfc's derivative "
        f"of its forward (they agreed on the example's values and on {len(_SAMPLES)} sampled "
        "inputs of both signs and scales 1e-3 to 1e3); tfc differentiates the forward's ops",
        CustomFunctionWarning, stacklevel=level)


def _differentiated(cls, args, needs, check) -> bool:
    """Whether to trace the Function's forward (_backward_is_derivative):
    decided while tracing, in order of application; the eager run after
    the trace takes the trace's decisions (its check would run ops of its
    own there)."""
    if not any(needs):
        return False
    if check and _DECIDED[1][0] < len(_DECIDED[0]):
        _DECIDED[1][0] += 1
        return _DECIDED[0][_DECIDED[1][0] - 1]
    decision = _backward_is_derivative(cls, args, needs)
    if not check:
        _DECIDED[0].append(decision)
        if decision:
            _warn_differentiated(cls)
    return decision


def _import(cls, args, check):
    needs = [_needs_grad(a) for a in args]
    if _differentiated(cls, args, needs, check):
        # Traced as the forward's ops, which tfc differentiates.
        with torch.enable_grad(), _grad_kept():
            return cls.forward(_TraceContext(needs), *args)
    ctx = _TraceContext(needs)
    out = _forward(cls, ctx, args)
    outs = out if isinstance(out, tuple) else (out,)
    # Torch passes no gradient through integer and bool outputs, nor
    # through those marked non-differentiable, and calls no backward when
    # no input requires grad.
    wanted = [k for k, o in enumerate(outs) if isinstance(o, torch.Tensor)
              and (o.is_floating_point() or o.is_complex()) and not ctx.marked(o)]
    if not any(needs) or not wanted:
        return _values(out, args, ctx)
    if len(wanted) > 1 or outs[wanted[0]].is_complex():
        _refuse(cls, "tfc imports Functions with one differentiable output (floating point, "
                     "not marked non-differentiable; integer, bool and marked outputs carry "
                     "no gradient)")
    k = wanted[0]
    y = outs[k]
    grads = _grads(cls, ctx, _grad_outputs(ctx, outs, k, torch.ones_like(y)))
    if len(grads) < len(args):
        _refuse(cls, f"its backward returned {len(grads)} gradients for {len(args)} inputs")
    forms = []
    for i, (a, m) in enumerate(zip(args, grads)):
        if not needs[i] or m is None:
            continue
        if isinstance(m, torch.Tensor) and a.shape == y.shape and m.shape == y.shape:
            forms.append((i, ELEMENTWISE, m.detach()))
        elif isinstance(m, torch.Tensor) and m.shape == y.shape and _broadcasts(a, y):
            # A gradient of the output's shape for a broadcast input (x * w's
            # g * x for w): torch sums it to the input's shape itself.
            forms.append((i, REDUCED, m.detach()))
        elif isinstance(m, torch.Tensor) and a.shape != y.shape and m.numel() == a.numel():
            c = _coefficient(cls, ctx, outs, k, i) if _broadcasts(a, y) else None
            if c is None:
                # The gradient c the backward returns whatever grad_output
                # is (checked by run_checks): a loss term sum(c * a) of
                # value 0.
                term = (m.detach().reshape(a.shape).to(a.dtype) * a).sum()
                _INJECTED.append(term - term.detach())
                forms.append((i, ADDED, m.detach()))
            else:
                forms.append((i, REDUCED, c))
        else:
            _refuse(cls, "tfc imports an elementwise backward (m * grad_output for an input "
                         "of the output's shape), for an input that broadcasts to the output's "
                         "shape the sum of c * grad_output over its broadcast dimensions, or a "
                         "gradient that does not depend on grad_output")
    if check:
        # Checked after the eager run (run_checks): its backward calls would
        # otherwise be ops of that run that the trace does not have.
        _PENDING.append((cls, ctx, outs, k, args, forms, stack_frame()))
    source = None
    for i, kind, c in forms:
        if kind == ADDED:
            continue
        # m * a, or c * a broadcast: of y's shape either way.
        term = c.to(y.dtype) * args[i].to(y.dtype)
        source = term if source is None else source + term
    if source is None:
        return _values(out, args, ctx)
    y = straight_through(y, source)
    return tuple(y if j == k else o for j, o in enumerate(_values(out, args, ctx))) \
        if isinstance(out, tuple) else y


# The Functions the eager run met, (cls, ctx, outputs, k, args, forms,
# frame), to check.
_PENDING = []
# The trace's decisions of _differentiated, in order, and how many of them
# the eager run took.
_DECIDED = ([], [0])
# The loss terms of the added-loss form met while tracing (or in the eager
# run), each of value 0 with its gradient.
_INJECTED = []


def added_loss(loss, weight: float = 1.0):
    """`loss` plus the terms of the Functions whose backward gives an input
    a gradient that does not depend on grad_output (DeepSeek-MoE's
    AddAuxiliaryLoss returns ones for its auxiliary loss: the load-balancing
    loss added to the training loss without changing its value), each
    times `weight`."""
    terms, _INJECTED[:] = list(_INJECTED), []
    for term in terms:
        loss = loss + (term * weight if weight != 1.0 else term).to(loss.dtype)
    return loss


def _gradients(out):
    """Gradients to try a backward with: two independent random draws whose
    elements span 8 orders of magnitude, each also scaled by 1e-8 and 1e8 (a
    backward that clips, gates or normalizes its gradient is m * g for none
    of them)."""
    rng = torch.Generator().manual_seed(0)
    for _ in range(2):
        g = torch.randn(out.shape, generator=rng, dtype=torch.float64)
        g = g * torch.pow(10.0, torch.rand(out.shape, generator=rng, dtype=torch.float64) * 8 - 4)
        for scale in (1.0, 1e-8, 1e8):
            yield (g * scale).to(out.dtype)


def _close(got, want, equal_nan: bool = False) -> bool:
    """Whether `got` is `want` within float32 rounding of want's largest
    element (NaN where want has NaN, with equal_nan)."""
    if got is None or got.numel() != want.numel():
        return False
    got = got.detach().double().reshape(want.shape)
    finite = want[torch.isfinite(want)] if equal_nan else want
    scale = float(finite.abs().max()) if finite.numel() else 0.0
    return torch.allclose(got, want, rtol=1e-3, atol=1e-6 * max(scale, 1e-300),
                          equal_nan=equal_nan)


def _want(kind, c, g, a):
    """What form `kind` with coefficient c says input a's gradient is for g."""
    if kind == ADDED:
        return c.double()
    if kind == REDUCED:
        return sum_to(c.double() * g.double(), a.shape)
    return c.double() * g.double()


def _affine(cls, ctx, outs, k, i, m) -> bool:
    """Whether input i's gradient is m' * g plus a term independent of g
    (SR-STE's decay term): grad(g) - grad(0) = (m - grad(0)) * g."""
    base = _grads(cls, ctx, _grad_outputs(ctx, outs, k, torch.zeros_like(outs[k])))[i]
    if base is None or base.shape != m.shape:
        return False
    base = base.detach().double()
    for g in _gradients(outs[k]):
        got = _grads(cls, ctx, _grad_outputs(ctx, outs, k, g))[i]
        if got is None or not _close(got.double() - base, (m.double() - base) * g.double()):
            return False
    return True


def run_checks():
    """Checks that the backward of every Function the eager run met takes
    the form it was imported in (m * grad_output, a sum of c * grad_output
    over broadcast dimensions, or independent of grad_output) for the
    gradients of _gradients(), on the run's real values and on inputs drawn
    at random (_sampled: a backward that masks the gradient only where the
    example's values are not, as CompressAI's LowerBound, is m * g on the
    example); refuses it with its name otherwise."""
    pending, _PENDING[:] = list(_PENDING), []
    for cls, ctx, outs, k, args, forms, frame in pending:
        _check_forms(cls, ctx, outs, k, args, forms, frame, "")
        plain = [a.detach() if isinstance(a, torch.Tensor) else a for a in args]
        if not _plain(plain):
            continue
        for sample in _sampled(plain):
            resampled = _resampled(cls, ctx, k, sample, forms)
            if resampled is None:
                continue
            try:
                _check_forms(cls, *resampled, frame, " on inputs drawn at random (every "
                             "floating-point argument; the example's values agree)")
            except FrontendError:
                raise
            except Exception:  # noqa: BLE001 - a backward failing on values it is not for
                continue


def _resampled(cls, ctx, k, sample, forms):
    """(ctx, outputs, k, args, forms) of the Function run on `sample`, its
    forms' coefficients recomputed there as the trace computes them; None
    when its forward or backward fails there (values it is not meant for)."""
    try:
        ctx2 = _TraceContext(ctx.needs_input_grad)
        out = _forward(cls, ctx2, sample)
        outs = out if isinstance(out, tuple) else (out,)
        ones = _grads(cls, ctx2, _grad_outputs(ctx2, outs, k, torch.ones_like(outs[k])))
        forms2 = []
        for i, kind, c in forms:
            m = ones[i]
            if kind == REDUCED and not (isinstance(m, torch.Tensor) and
                                        m.shape == outs[k].shape):
                m = _coefficient(cls, ctx2, outs, k, i)
            if not isinstance(m, torch.Tensor):
                return None
            forms2.append((i, kind, m.detach()))
        return ctx2, outs, k, sample, forms2
    except Exception:  # noqa: BLE001 - inputs the Function does not take
        return None


def _check_forms(cls, ctx, outs, k, args, forms, frame, where: str):
    nan = bool(where)
    for g in _gradients(outs[k]):
        grads = _grads(cls, ctx, _grad_outputs(ctx, outs, k, g))
        for i, kind, c in forms:
            got = grads[i]
            if kind == REDUCED and isinstance(got, torch.Tensor) and got.shape == g.shape:
                got = sum_to(got, args[i].shape)  # as torch reduces it
            if _close(got, _want(kind, c, g, args[i]), equal_nan=nan):
                continue
            if kind == ADDED:
                _refuse(cls, f"the gradient of input {i}, not of the output's shape, is "
                             "neither independent of grad_output nor a sum of c * "
                             "grad_output over the dimensions it broadcasts along (tfc "
                             "imports an elementwise backward, those two forms for an "
                             f"input of another shape, only){where}", frame)
            if kind == ELEMENTWISE and not where and _affine(cls, ctx, outs, k, i, c):
                _refuse(cls, f"the gradient of input {i} is m * grad_output plus a term "
                             "that does not depend on grad_output (an affine backward, as "
                             "SR-STE's decay term): tfc imports the linear part only", frame,
                        "return m * grad_output from backward and add the other term's "
                        "loss to the training loss (SR-STE's decay * (1 - mask) * w is "
                        "the gradient of decay / 2 * ((1 - mask) * w).pow(2).sum())")
            if kind == ELEMENTWISE:
                _refuse(cls, f"the gradient of input {i} is not m * grad_output (its "
                             "backward mixes elements or is not linear in the gradient: tfc "
                             f"imports an elementwise backward only){where}", frame)
            _refuse(cls, f"the gradient of input {i}, of smaller shape than the output, is "
                         "not the sum of c * grad_output over the dimensions it broadcasts "
                         "along (its backward is not linear in the gradient, or mixes "
                         f"elements){where}", frame)


def code_globals(model: torch.nn.Module, *functions) -> List[dict]:
    """The global namespaces the model's code reads: those of its modules'
    methods and function attributes and of `functions` (a loss function),
    and of the modules they import by name (`from . import functions`)."""
    found: List[dict] = []

    def add(space):
        if isinstance(space, dict) and not any(space is f for f in found):
            found.append(space)
    for m in model.modules():
        for value in list(vars(type(m)).values()) + list(vars(m).values()):
            try:  # an attribute's value: an AttrDict config's __getattr__ raises KeyError
                add(getattr(value, "__globals__", None))
            except Exception:  # noqa: BLE001 - no function
                pass
    for f in functions:
        add(getattr(f, "__globals__", None))
    for space in list(found):
        for value in list(space.values()):
            if isinstance(value, types.ModuleType) and \
                    not value.__name__.startswith(("torch", "numpy")):
                add(vars(value))
    return found


def _aliases(spaces) -> List[Tuple[dict, str, type]]:
    """(globals, name, Function class) of each global bound to a Function's
    apply at import (`sparsemax = SparsemaxFunction.apply`): a bound method
    made before tracing, which the patched Function.apply never reaches."""
    found = []
    for space in spaces:
        for name, value in list(space.items()):
            try:  # any global: a config whose __getattr__ raises KeyError (AttrDict)
                owner = getattr(value, "__self__", None)
                is_apply = getattr(value, "__name__", None) == "apply"
            except Exception:  # noqa: BLE001 - no Function's apply
                continue
            if is_apply and isinstance(owner, type) and issubclass(owner, torch.autograd.Function):
                found.append((space, name, owner))
    return found


@contextlib.contextmanager
def applied(check: bool = False, spaces: Sequence[dict] = ()):
    """Replaces torch.autograd.Function.apply while tracing (check=False) or
    while the eager run checks the backwards (check=True), and the
    Function.apply aliases bound at import in the global namespaces
    `spaces` (code_globals)."""
    owner = torch.autograd.Function
    had: Optional[object] = owner.__dict__.get("apply")
    _PENDING.clear()
    _INJECTED.clear()
    _EAGER[0] = check
    if check:
        _DECIDED[1][0] = 0
    else:
        _DECIDED[0].clear()

    def apply(cls, *args):
        return _apply(cls, *args, check=check)
    owner.apply = classmethod(apply)
    aliases = _aliases(spaces)
    saved = [space[name] for space, name, _ in aliases]
    for space, name, cls in aliases:
        space[name] = types.MethodType(apply, cls)
    try:
        yield
    finally:
        _EAGER[0] = False
        for (space, name, _), value in zip(aliases, saved):
            space[name] = value
        if had is None:
            del owner.apply
        else:
            owner.apply = had
