"""check_train.py's cases on what the module watch (tfc_torch/module_watch.py)
checks at each call: changes to the module after compiling (hooks, writes
in place, through .data, rebinding, annealed attributes), and tensors and
numbers read from outside the module's tables (constants the module holds:
train_state.py's held-values)."""
import argparse
import copy
import functools
import logging
import types

import torch
import torch.nn.functional as F

import tfc_torch
from train_helpers import LOSS_RTOL, expect_error, rel, verdict
from train_sync import check_gan_recipe


class _Annealed(torch.nn.Module):
    """A VAE-style loss whose KL weight `beta` the training loop anneals, a
    temperature buffer, and a layer a WGAN loop would clip."""

    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Linear(4, 6)
        self.dec = torch.nn.Linear(6, 4)
        self.beta = 0.1
        self.register_buffer("tau", torch.tensor(2.0))
        # Not read by forward (an EMA copy kept beside the model, LDM's
        # LitEma): free to change between calls.
        self.register_buffer("shadow", torch.zeros(4))

    def forward(self, x):
        h = self.enc(x)
        return F.mse_loss(self.dec(torch.tanh(h / self.tau)), x) + self.beta * h.pow(2).mean()


class _Slim(torch.nn.Linear):
    """A slimmable layer: the width a training loop sets per step, with a
    class-level default."""
    width_mult = 1.0

    def forward(self, x):
        o = int(self.out_features * self.width_mult)
        return F.linear(x, self.weight[:o], self.bias[:o]).pow(2).mean()


class _SparseGraph(torch.nn.Module):
    """A graph convolution over a fixed sparse adjacency kept as a buffer."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        edges = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 0]])
        self.register_buffer("adj", torch.sparse_coo_tensor(edges, torch.ones(4), (5, 5)))

    def forward(self, x):
        return torch.sparse.mm(self.adj, self.lin(x)).pow(2).mean()


def _error_after_change(run, model, change, data, text):
    """Runs the compiled `run` on data[0], applies `change` to `model`, and
    expects the calls on the other batches to raise a ModelError with
    `text` (None when they do)."""
    run(*data[0])
    change(model)

    def calls():
        for batch in data[1:]:
            run(*batch)
    return expect_error(tfc_torch.ModelError, text, calls)


def check_module_changes(device):
    """Changes to the module after compiling that the compiled program cannot
    follow are caught at the next call (module_watch.py): an annealed Python
    attribute and requires_grad toggled warn once; a buffer written in
    place, a parameter clamped under no_grad or through .data (WGAN's
    clipping, caught at the backoff value check) and a hook added are
    ModelErrors, in a train step and a compiled forward alike. Loading the step's own values
    into the module (evaluating mid-training) is no change: the steps go on
    as an uninterrupted twin's."""
    import warnings
    torch.manual_seed(21)
    model = _Annealed()
    g = torch.Generator().manual_seed(22)
    data = [(torch.randn(5, 4, generator=g),) for _ in range(6)]
    problems = []

    def make(m):
        return tfc_torch.compile_train_step(m, data[0], device=device, optimizer="sgd", lr=0.1)

    # Syncing the module from the step between calls is accepted.
    mine, twin = copy.deepcopy(model), copy.deepcopy(model)
    step, twin_step = make(mine), make(twin)
    for i, batch in enumerate(data):
        loss, want = step(*batch), twin_step(*batch)
        if loss != want:
            problems.append(f"synced step {i}: loss {loss} != {want}")
        mine.load_state_dict(step.state_dict())

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = copy.deepcopy(model)
        step = make(m)
        step(*data[0])
        m.beta = 0.5
        step(*data[1])
        step(*data[2])
        m.dec.bias.requires_grad_(False)
        step(*data[3])
        step(*data[4])
    texts = [str(w.message) for w in caught
             if issubclass(w.category, tfc_torch.TracedUpdateWarning)]
    if (len(texts) != 2 or "attribute beta changed" not in texts[0]
            or "requires_grad of parameters dec.bias changed" not in texts[1]):
        problems.append(f"annealed beta, frozen bias: warnings {texts}")

    # A setting with a class-level default (a slimmable network's
    # width_mult), set on the instance or the class after compiling: what
    # forward reads changed, so it warns as an instance attribute does.
    for how in ("instance", "class"):
        m = _Slim(4, 8)
        step = tfc_torch.compile_train_step(m, data[0], device=device, optimizer="sgd", lr=0.0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            step(*data[0])
            setattr(m if how == "instance" else _Slim, "width_mult", 0.5)
            step(*data[1])
        _Slim.width_mult = 1.0
        texts = [str(w.message) for w in caught
                 if issubclass(w.category, tfc_torch.TracedUpdateWarning)]
        if not any("attribute width_mult changed" in t and "1.0 -> 0.5" in t for t in texts):
            problems.append(f"class default width_mult set on the {how}: warnings {texts}")

    # A sparse buffer (a fixed graph adjacency): compared by indices and
    # values, an equal copy accepted, other values refused (torch.allclose
    # has no sparse kernel: the first call crashed).
    for compiled in (False, True):
        gcn = _SparseGraph()
        run = (tfc_torch.compile(gcn, data[0], device=device) if compiled else
               tfc_torch.compile_train_step(gcn, data[0], device=device, optimizer="sgd", lr=0.0))
        try:
            loss, want = float(run(*data[0])), gcn(*data[0]).item()
            if rel(loss, want) > LOSS_RTOL:
                problems.append(f"sparse buffer (compiled={compiled}): {loss} != torch's {want}")
            gcn.adj = gcn.adj.clone()
            run(*data[1])
        except Exception as e:  # noqa: BLE001 - reported as the problem
            problems.append(f"sparse buffer (compiled={compiled}): {type(e).__name__}: {e}")
            continue
        err = _error_after_change(run, gcn, lambda m: setattr(m, "adj", m.adj * 2), data,
                                  "buffer 'adj' of the module was changed")
        if err:
            problems.append(f"sparse buffer (compiled={compiled}): {err}")

    # Using the module while the step holds newer parameters (an evaluation,
    # timm's ModelEmaV2 reading model.state_dict()) reads the step's values
    # (module_sync.py), also after model.load_state_dict(step.state_dict()).
    for sync in (False, True):
        m = copy.deepcopy(model)
        step = make(m)
        for batch in data[:2]:
            step(*batch)
        if sync:
            m.load_state_dict(step.state_dict())
        want = step.state_dict()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = m.dec.state_dict()
            out = m(data[0][0])
        if not all(torch.equal(got[k], want["dec." + k]) for k in got):
            problems.append(f"module reads (synced={sync}): dec's state_dict is not the step's")
        if out.item() != _eager_loss(want, data[0][0]):
            problems.append(f"module reads (synced={sync}): forward did not use the step's "
                            "values")
        if caught:
            problems.append(f"module reads (synced={sync}): warnings "
                            f"{[str(w.message) for w in caught]}")

    # Two steps over one module (a GAN's): the one whose parameters the
    # other trains warns once when it runs with stale copies, and not when
    # the caller copies them across before each call.
    class _Pair(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.g, self.d = torch.nn.Linear(4, 4), torch.nn.Linear(4, 1)

        def forward(self, x):
            return x

    for sync in (False, True):
        pair = _Pair()

        def d_loss(out, x, pair=pair):
            return pair.d(x).mean() - pair.d(pair.g(x).detach()).mean()

        def g_loss(out, x, pair=pair):
            return -pair.d(pair.g(x)).mean()

        d_step = tfc_torch.compile_train_step(
            pair, data[0], lambda o, x: d_loss(o, x), device=device,
            optimizer=torch.optim.SGD(pair.d.parameters(), lr=0.1))
        g_step = tfc_torch.compile_train_step(
            pair, data[0], lambda o, x: g_loss(o, x), device=device,
            optimizer=torch.optim.SGD(pair.g.parameters(), lr=0.1))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for batch in data[:3]:
                d_step(*batch)
                if sync:
                    g_step.load_state_dict({k: v for k, v in d_step.state_dict().items()
                                            if k.startswith("d.")}, strict=False)
                g_step(*batch)
                if sync:
                    d_step.load_state_dict({k: v for k, v in g_step.state_dict().items()
                                            if k.startswith("g.")}, strict=False)
        texts = [str(w.message) for w in caught
                 if "trained by another compiled step" in str(w.message)]
        if len(texts) != (0 if sync else 2):
            problems.append(f"two steps over one module (sync={sync}): warnings {texts}")
    check_gan_recipe(device, problems)

    def changed(change, text, compiled=False):
        m = copy.deepcopy(model)
        run = (tfc_torch.compile(m, data[0], device=device) if compiled else make(m))
        return _error_after_change(run, m, change, data, text)

    def clamp_no_grad(m):
        with torch.no_grad():
            m.enc.weight.clamp_(-0.01, 0.01)

    m = copy.deepcopy(model)
    step = make(m)
    for batch in data[:3]:
        step(*batch)
        m.shadow.mul_(0.9).add_(1.0)
    step.load_state_dict(m.state_dict())   # the shadow's new value carried, not refused
    if not torch.equal(step.state_dict()["shadow"], m.shadow):
        problems.append("an unread buffer's value was not carried by load_state_dict")
    # A trained parameter clamped on the module (WGAN's clipping, in place
    # under no_grad or through .data) is taken by the step before its next
    # run, as torch's next forward reads it.
    for clamp in (clamp_no_grad, lambda m: m.dec.weight.data.clamp_(-0.01, 0.01)):
        m = copy.deepcopy(model)
        step = make(m)
        step(*data[0])
        clamp(m)
        want = {k: v.clone() for k, v in m.state_dict().items()}
        loss = step(*data[1])
        if rel(loss, _eager_loss(want, data[1][0])) > LOSS_RTOL:
            problems.append(f"a clamp on the module: loss {loss} is not torch's after it")
    for err in [
        changed(lambda m: m.tau.fill_(1.0), "buffer 'tau' of the module was changed"),
        changed(lambda m: m.tau.fill_(1.0), "buffer 'tau' of the module was changed", True),
        changed(clamp_no_grad, "parameter 'enc.weight' of the module was changed", True),
        changed(lambda m: m.dec.weight.data.clamp_(-0.01, 0.01),
                "parameter 'dec.weight' of the module holds other values", True),
        changed(lambda m: m.enc.register_forward_hook(lambda mod, i, o: o * 2),
                "forward hooks or forward pre-hooks"),
        # A new head (fine-tuning): the step trained the old one, unseen.
        changed(lambda m: setattr(m, "dec", torch.nn.Linear(6, 4)),
                "submodules of the module changed since it was compiled (replaced: 'dec')"),
        changed(lambda m: setattr(m, "dec", torch.nn.Linear(6, 4)),
                "submodules of the module changed since it was compiled (replaced: 'dec')", True),
        changed(lambda m: setattr(m.enc, "extra", torch.nn.Identity()),
                "submodules of the module changed since it was compiled (added: 'enc.extra')"),
    ]:
        if err:
            problems.append(err)
    return verdict(problems,
                   "module-changes: ok (syncing from the step accepted; module reads see the "
                   "step's values; clamps of trained parameters taken by the step; an annealed "
                   "attribute, a class default set on the instance or class and a frozen bias "
                   "warned once; a sparse buffer compared by value; buffer writes, hooks and a "
                   "replaced or added submodule refused, also in a compiled forward, and there "
                   "clamps under no_grad and through .data too)")


def _eager_loss(state, x) -> float:
    """_Annealed's loss in eager torch with the parameters of `state`."""
    m = _Annealed()
    m.load_state_dict(state)
    with torch.no_grad():
        return m(x).item()


# A module-level tensor forward reads (check_outside_values).
_GLOBAL_SCALE = torch.tensor(1.0)


class _Outside(torch.nn.Module):
    """A loss reading tensors that are no parameters or buffers (a KL weight
    kept as a 0-d tensor attribute, cross-entropy class weights, a teacher
    hidden from .parameters() in a list, a module-level tensor), loss
    weights in a dict and a config namespace, and a frozen layer."""

    def __init__(self, teacher):
        super().__init__()
        self.enc = torch.nn.Linear(4, 3)
        self.frozen = torch.nn.Linear(4, 3).requires_grad_(False)
        self.beta = torch.tensor(0.1)
        self.class_w = torch.tensor([1.0, 2.0, 0.5])
        self._teacher = [teacher]
        self.loss_weights = {"l2": 0.01}
        self.cfg = types.SimpleNamespace(kd=0.5)

    def forward(self, x, y):
        z = self.enc(x) + self.frozen(x)
        with torch.no_grad():
            t = self._teacher[0](x)
        return (F.cross_entropy(z, y, weight=self.class_w)
                + self.beta * _GLOBAL_SCALE * z.pow(2).mean() + self.cfg.kd * F.mse_loss(z, t)
                + self.loss_weights["l2"] * self.enc.weight.pow(2).sum())


class _Distill(torch.nn.Module):
    """A distillation loss_fn module holding a frozen teacher."""

    def __init__(self, teacher):
        super().__init__()
        self.teacher = teacher.requires_grad_(False)

    def forward(self, logits, x, y):
        with torch.no_grad():
            t = self.teacher(x)
        return F.kl_div(F.log_softmax(logits, -1), F.softmax(t, -1), reduction="batchmean")


# Module-level values forward reads as Python numbers (_check_number_reads).
_GLOBAL_TEMPERATURE = torch.tensor(1.0)
_GLOBAL_WEIGHT = 1.0
_GLOBAL_SLOPE = torch.tensor(0.1)   # a number aten reads (leaky_relu's slope)


class _LossWeights:
    """A plain helper object (no namespace, no dataclass) holding a loss
    weight and class weights."""

    def __init__(self):
        self.aux = 0.5
        self.class_w = torch.tensor([1.0, 2.0, 0.5])


class _NumberReads(torch.nn.Module):
    """Tensors that are no parameters or buffers read as Python numbers (a
    temperature with .item(), a scale with float(), topk's k with int(),
    split sizes with .tolist(), a global with .item(); an attribute and a
    global aten reads as numbers: add's alpha=, leaky_relu's slope), a number held by a
    helper object and a global number, class weights held by the helper
    and as a class attribute."""
    shared_w = torch.tensor([1.0, 1.0, 2.0])

    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Linear(4, 3)
        self.tau = torch.tensor(2.0)
        self.scale = torch.tensor(1.5)
        self.k = torch.tensor(2)
        self.sizes = torch.tensor([1, 2])
        self.alpha = torch.tensor(0.5)   # add's alpha=: read by aten in C++
        self.helper = _LossWeights()

    def forward(self, x, y):
        z = self.enc(x)
        z = torch.add(z, F.leaky_relu(z, _GLOBAL_SLOPE), alpha=self.alpha)
        a, b = torch.split(z, self.sizes.tolist(), 1)
        return (F.cross_entropy(z / self.tau.item(), y, weight=self.helper.class_w)
                * float(self.scale)
                + z.topk(int(self.k), 1).values.pow(2).mean() * self.helper.aux
                + F.cross_entropy(z, y, weight=self.shared_w) / _GLOBAL_TEMPERATURE.item()
                + (a.pow(2).mean() + b.abs().mean()) * _GLOBAL_WEIGHT)


class _TemperedLoss(torch.nn.Module):
    """A loss_fn module reading its buffer with .item(), weighted by a
    number attribute (annealed between epochs)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("tau", torch.tensor(2.0))
        self.w = 1.0

    def forward(self, logits, x, y):
        return F.cross_entropy(logits / self.tau.item(), y) * self.w


def _closed_over_weights():
    """A module whose class is defined in a function, forward closing over
    class weights, and a function rebinding them (nonlocal)."""
    w = torch.tensor([1.0, 2.0, 0.5])

    class Closed(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = torch.nn.Linear(4, 3)

        def forward(self, x, y):
            return F.cross_entropy(self.enc(x), y, weight=w)

    def rebind():
        nonlocal w
        w = torch.ones(3)
    return Closed(), rebind


# Settings forward reads through module-level objects (_check_code_reads):
# a config dict, a Python module's attribute, a yacs-style node, a class's
# attribute, a global argparse namespace, a dict a helper function reads, a
# list a lambda on the module reads, and a dict the training loop keeps that
# forward never names (no warning).
_CONFIG = {"scale": 1.0, "act": "tanh"}
_SETTINGS = types.ModuleType("train_watch_settings")
_SETTINGS.SHIFT = 0.0
_NODE = {"MODEL": {"HEAD": {"GAIN": 1.0}}}
_ARGS = argparse.Namespace(temp=1.0)
_STATE = {"weight": 1.0}
_SCALES = [1.0]
_UNREAD = {"epoch": 0}
_LOG = logging.getLogger("train_watch")  # its level is no setting of the model


class _Kaggle:
    alpha = 1.0


def _state_weight():
    return _STATE["weight"]


class _CodeReads(torch.nn.Module):
    def __init__(self, offsets):
        super().__init__()
        self.enc = torch.nn.Linear(4, 3)
        self.scaled = lambda t: t * _SCALES[0]
        self.mul = functools.partial(torch.mul, other=1.0)
        self.offset = lambda: offsets[0]  # a closure over a caller's list

    def forward(self, x, y):
        z = self.enc(x) * _CONFIG["scale"] + _SETTINGS.SHIFT + self.offset()
        z = torch.tanh(z) if _CONFIG["act"] == "tanh" else torch.relu(z)
        z = self.scaled(self.mul(z)) * _NODE["MODEL"]["HEAD"]["GAIN"] * _Kaggle.alpha
        _LOG.debug("code reads")
        return F.cross_entropy(z / _ARGS.temp, y) * _state_weight()


def _check_code_reads(data, make):
    """Python values forward reads outside the module, changed after
    compiling: each warns once, naming it (the trace baked in the old
    value); an unchanged run, a global forward never names and a global
    logger's level do not. The problems found."""
    import warnings
    problems = []
    changes = {
        "global train_watch._CONFIG['scale']": lambda o: _CONFIG.__setitem__("scale", 2.0),
        "global train_watch._CONFIG['act']": lambda o: _CONFIG.__setitem__("act", "relu"),
        "global train_watch_settings.SHIFT": lambda o: setattr(_SETTINGS, "SHIFT", 0.5),
        "global train_watch._NODE['MODEL']['HEAD']['GAIN']":
            lambda o: _NODE["MODEL"]["HEAD"].__setitem__("GAIN", 2.0),
        "class attribute train_watch._Kaggle.alpha": lambda o: setattr(_Kaggle, "alpha", 2.0),
        "global train_watch._ARGS.temp": lambda o: setattr(_ARGS, "temp", 0.5),
        "global train_watch._STATE['weight']": lambda o: _STATE.__setitem__("weight", 2.0),
        "global train_watch._SCALES[0]": lambda o: _SCALES.__setitem__(0, 2.0),
        "attribute mul.keywords['other']": lambda o: o["model"].mul.keywords.update(other=2.0),
        "value _CodeReads.__init__.<locals>.<lambda>.<closure offsets>[0]":
            lambda o: o["offsets"].__setitem__(0, 1.0),
    }
    saved = (dict(_CONFIG), _SETTINGS.SHIFT, _NODE["MODEL"]["HEAD"]["GAIN"], _Kaggle.alpha,
             _ARGS.temp, dict(_STATE), list(_SCALES))
    def unread(o):
        _UNREAD["epoch"] += 1
        _LOG.setLevel(logging.ERROR if _LOG.level != logging.ERROR else logging.INFO)
    for name, change in [(None, unread)] + list(changes.items()):
        offsets = [0.0]
        model = _CodeReads(offsets)
        step = make(model)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            step(*data[0])
            change({"model": model, "offsets": offsets})
            step(*data[1])
            step(*data[2])
        texts = [str(w.message) for w in caught
                 if issubclass(w.category, tfc_torch.TracedUpdateWarning)]
        if name is None and texts:
            problems.append(f"an unread global changed: warnings {texts}")
        elif name is not None and (len(texts) != 1 or not texts[0].startswith(
                name + " changed since the module was compiled")):
            problems.append(f"{name} changed: warnings {texts}")
        _CONFIG.update(saved[0])
        _SETTINGS.SHIFT, _NODE["MODEL"]["HEAD"]["GAIN"], _Kaggle.alpha, _ARGS.temp = saved[1:5]
        _STATE.update(saved[5])
        _SCALES[:] = saved[6]
    return problems


class _Trainer:
    """Lightning's Trainer as a LightningModule sees it: global_step and
    current_epoch are properties over the loops' counters."""

    def __init__(self):
        self._steps, self._epochs = 0, 0

    @property
    def global_step(self):
        return self._steps

    @property
    def current_epoch(self):
        return self._epochs


class _LitVae(torch.nn.Module):
    """A LightningModule's KL annealing: forward reads self.global_step (a
    property over self._trainer) and self.hparams (one over self._hparams),
    and the trainer directly (self._trainer.current_epoch); not
    self.unread, a property forward never reads."""

    def __init__(self, trainer):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)
        self._trainer = trainer
        self._hparams = {"kl_weight": 0.5}
        self._warmup = 4

    @property
    def global_step(self):
        return self._trainer.global_step

    @property
    def hparams(self):
        return self._hparams

    @property
    def unread(self):
        return self._trainer.global_step + 1

    def forward(self, x, y):
        beta = min(1.0, self.global_step / self._warmup) * self.hparams["kl_weight"]
        if self._trainer.current_epoch > 0:
            beta = beta * 2
        h = self.lin(x)
        return F.cross_entropy(h, y) + beta * h.pow(2).mean()


def _check_lightning_reads(data, make):
    """Numbers forward reads through properties and private attributes
    (Lightning's self.global_step / self.hparams / self._trainer, probe AL 1)
    changed after compiling warn as public attributes do; a property forward
    never read does not. The problems found."""
    import warnings
    problems = []
    for change, wanted in ((lambda m: setattr(m._trainer, "_steps", 2), "global_step"),
                           (lambda m: m.hparams.__setitem__("kl_weight", 1.0),
                            "hparams['kl_weight']"),
                           (lambda m: setattr(m._trainer, "_epochs", 1), "current_epoch"),
                           (lambda m: setattr(m, "_warmup", 8), "_warmup")):
        m = _LitVae(_Trainer())
        step = make(m)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            step(*data[0])
            change(m)
            step(*data[1])
        texts = [str(w.message) for w in caught
                 if issubclass(w.category, tfc_torch.TracedUpdateWarning)]
        if not any(f"{wanted} changed" in t for t in texts) or any("unread" in t for t in texts):
            problems.append(f"a Lightning-style read of {wanted}: warnings {texts}")
    return problems


def _check_number_reads(data, make):
    """Values forward reads as Python numbers, changed after compiling:
    tensors (attributes, a global, a loss_fn's buffer) are ModelErrors
    naming them, as are class weights rebound on a helper object, as a
    class attribute or in a closure; numbers of a helper object, a global and a loss_fn
    module warn. The problems found."""
    import warnings
    global _GLOBAL_WEIGHT
    problems = []
    m = _NumberReads()
    want = m(*data[0]).item()
    got = make(m)(*data[0])
    if abs(got - want) > 1e-5 * abs(want):
        problems.append(f"number reads: loss {got} != torch's {want}")

    def changed(change, text, compiled=False):
        m = _NumberReads()
        run = make(m, compiled=compiled)
        run(*data[0])
        change(m)
        return expect_error(tfc_torch.ModelError, text, lambda: run(*data[1]))

    def temperature(m):
        _GLOBAL_TEMPERATURE.fill_(2.0)

    def shared(m):
        _NumberReads.shared_w = torch.ones(3)

    def slope(m):
        _GLOBAL_SLOPE.fill_(0.9)
    errors = [
        changed(lambda m: m.tau.fill_(0.5), "tensor 'model.tau' was changed"),
        changed(lambda m: m.tau.fill_(0.5), "tensor 'model.tau' was changed", True),
        changed(lambda m: m.scale.mul_(2.0), "tensor 'model.scale' was changed"),
        changed(lambda m: m.k.fill_(3), "tensor 'model.k' was changed"),
        changed(lambda m: m.sizes.copy_(torch.tensor([2, 1])), "tensor 'model.sizes' was"),
        changed(temperature, "tensor 'train_watch._GLOBAL_TEMPERATURE' was changed"),
        changed(lambda m: setattr(m.helper, "class_w", torch.ones(3)),
                "tensor 'model.helper.class_w' was changed"),
        changed(shared, "tensor '_NumberReads.shared_w' was changed"),
        # 0-d tensors given where aten takes a number (a change was ignored).
        changed(lambda m: m.alpha.fill_(2.0), "tensor 'model.alpha' was changed"),
        changed(slope, "tensor 'train_watch._GLOBAL_SLOPE' was changed"),
    ]
    _GLOBAL_TEMPERATURE.fill_(1.0)
    _GLOBAL_SLOPE.fill_(0.1)
    _NumberReads.shared_w = torch.tensor([1.0, 1.0, 2.0])
    student, tempered = torch.nn.Linear(4, 3), _TemperedLoss()
    step = make(student, tempered)
    step(*data[0])
    tempered.tau.fill_(0.5)
    errors.append(expect_error(tfc_torch.ModelError, "tensor 'loss_fn.tau' was changed",
                               lambda: step(*data[1])))
    closed, rebind = _closed_over_weights()
    step = make(closed)
    step(*data[0])
    rebind()
    errors.append(expect_error(tfc_torch.ModelError, "Closed.forward.<closure 0>' was changed",
                               lambda: step(*data[1])))
    problems += [e for e in errors if e]

    m, tempered = _NumberReads(), _TemperedLoss()
    step, loss_step = make(m), make(torch.nn.Linear(4, 3), tempered)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step(*data[0])
        loss_step(*data[0])
        m.helper.aux, tempered.w, _GLOBAL_WEIGHT = 1.0, 3.0, 2.0
        for _ in range(2):
            step(*data[1])
            loss_step(*data[1])
    _GLOBAL_WEIGHT = 1.0
    texts = sorted(str(w.message)[:60] for w in caught
                   if issubclass(w.category, tfc_torch.TracedUpdateWarning))
    # Once each (the loss_fn step's code names no global).
    if (len(texts) != 3 or "attribute helper.aux changed" not in texts[0]
            or "attribute loss_fn.w changed" not in texts[1]
            or "global train_watch._GLOBAL_WEIGHT changed" not in texts[2]):
        problems.append(f"numbers of a helper, a loss_fn and a global: warnings {texts}")
    return problems


def check_outside_values(device):
    """Values the trace folds in from outside the module's tables
    (module_watch.py): tensors that are no parameters or buffers changed
    after compiling (in place, through .data, rebound; a plain attribute, a
    hidden teacher, a global, a loss_fn module's teacher) are ModelErrors
    naming them, in a train step and a compiled forward; loss weights in a
    dict and a namespace warn as plain attributes do; a frozen weight and a
    hidden teacher's weight put back within float rounding (loralib's
    merge on eval(), unmerge on train()) are accepted and the steps go on
    as an untouched twin's, while a change of 1e-4 is refused."""
    import warnings
    torch.manual_seed(23)
    teacher = torch.nn.Linear(4, 3).requires_grad_(False)
    g = torch.Generator().manual_seed(24)
    data = [(torch.randn(6, 4, generator=g), torch.randint(0, 3, (6,), generator=g))
            for _ in range(5)]
    problems = []

    def make(m, loss_fn=None, compiled=False):
        if compiled:
            return tfc_torch.compile(m.eval(), data[0], device=device)
        return tfc_torch.compile_train_step(m, data[0], loss_fn, device=device,
                                            optimizer="sgd", lr=0.1)

    def changed(change, text, compiled=False):
        m = _Outside(copy.deepcopy(teacher))
        return _error_after_change(make(m, compiled=compiled), m, change, data, text)

    def scale_teacher(m):
        with torch.no_grad():
            m._teacher[0].weight.mul_(2.0)

    def scale_global(m):
        _GLOBAL_SCALE.fill_(2.0)

    errors = [
        changed(lambda m: m.beta.add_(0.5), "tensor 'model.beta' was changed"),
        changed(lambda m: m.beta.add_(0.5), "tensor 'model.beta' was changed", True),
        changed(lambda m: setattr(m.beta, "data", m.beta.data * 2), "'model.beta' was changed"),
        changed(lambda m: setattr(m, "class_w", torch.ones(3)), "'model.class_w' was changed"),
        changed(lambda m: setattr(m, "class_w", None), "'model.class_w' was changed"),
        changed(scale_teacher, "tensor 'model._teacher[0].weight' was changed"),
        changed(scale_global, "tensor 'train_watch._GLOBAL_SCALE' was changed"),
    ]
    _GLOBAL_SCALE.fill_(1.0)
    student, distill = torch.nn.Linear(4, 3), _Distill(copy.deepcopy(teacher))
    step = make(student, distill)
    step(*data[0])
    with torch.no_grad():
        distill.teacher.bias.add_(1.0)
    errors.append(expect_error(tfc_torch.ModelError, "tensor 'loss_fn.teacher.bias' was changed",
                               lambda: step(*data[1])))
    problems += [e for e in errors if e]
    problems += _check_number_reads(data, make)
    problems += _check_code_reads(data, make)
    problems += _check_lightning_reads(data, make)

    # Rebinding to equal values is no change; loss weights in containers warn.
    m = _Outside(copy.deepcopy(teacher))
    step = make(m)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step(*data[0])
        m.class_w = m.class_w.clone()
        m.loss_weights["l2"] = 0.1
        m.cfg.kd = 1.0
        step(*data[1])
        step(*data[2])
    texts = sorted(str(w.message) for w in caught
                   if issubclass(w.category, tfc_torch.TracedUpdateWarning))
    if (len(texts) != 2 or "attribute cfg.kd changed" not in texts[0]
            or "attribute loss_weights['l2'] changed" not in texts[1]):
        problems.append(f"loss weights in a namespace and a dict: warnings {texts}")

    # Put back within float rounding: accepted, the program keeps its values.
    mine, twin = _Outside(copy.deepcopy(teacher)), None
    twin = copy.deepcopy(mine)
    step, twin_step = make(mine), make(twin)
    merged = torch.randn(3, 4, generator=g) * 0.37
    with torch.no_grad():
        for w in (mine.frozen.weight, mine._teacher[0].weight):
            before = w.clone()
            w.data += merged
            w.data -= merged
            if torch.equal(w, before) or not torch.allclose(w, before, rtol=0, atol=1e-6):
                problems.append("the merge round trip does not leave a rounding difference")
    for i, batch in enumerate(data):
        loss, want = step(*batch), twin_step(*batch)
        if loss != want:
            problems.append(f"after a rounding round trip, step {i}: loss {loss} != {want}")
    state = step.state_dict()
    state["frozen.weight"] = mine.frozen.weight.detach().clone()  # one rounding step off
    try:
        step.load_state_dict(state)
    except ValueError as e:
        problems.append(f"load_state_dict after a rounding round trip: {e}")
    if step(*data[0]) != twin_step(*data[0]):
        problems.append("load_state_dict after a rounding round trip changed the step")
    for text, weight in (("parameter 'frozen.weight'", lambda m: m.frozen.weight),
                         ("tensor 'model._teacher[0].weight'", lambda m: m._teacher[0].weight)):
        def nudge(m, weight=weight):
            with torch.no_grad():
                weight(m)[0, 0] += 1e-4
        err = changed(nudge, text)
        if err:
            problems.append(err)
    problems += _check_names_and_caches(device)
    return verdict(problems,
                   "outside-values: ok (a tensor attribute changed in place, through .data and "
                   "rebound, a hidden teacher, a global and a loss_fn's teacher refused, also in a "
                   "compiled forward; so are tensors read as numbers (.item(), float(), int(), "
                   ".tolist() of attributes, a global, a loss_fn's buffer) and tensors rebound on "
                   "a helper object or a class; dict, namespace, helper, loss_fn and global "
                   "numbers warned; rounding round trips accepted, a 1e-4 change refused; a "
                   "global named like an attribute forward reads and a global cache of "
                   "shape-only grids not warned about, a cache of computed features warned)")


# The script's log of losses, named like the attribute _OutHead's forward
# reads (self.out): no global that forward reads.
out = [0.0]
# RIFE's module-level cache of sampling grids by device and size; and a
# cache of computed features (_GridWarp.features=True), which depends on
# the data.
GRID_CACHE = {}


class _OutHead(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.out = torch.nn.Linear(4, 1)

    def forward(self, x):
        return self.out(x).pow(2).mean()


class _GridWarp(torch.nn.Module):
    def __init__(self, features: bool):
        super().__init__()
        self.c = torch.nn.Conv2d(2, 2, 3, padding=1)
        self.features = features

    def forward(self, a):
        flow = self.c(a)
        key = (str(flow.device), str(flow.size()), self.features)
        if key not in GRID_CACHE:
            h = torch.linspace(-1.0, 1.0, flow.shape[3]).view(1, 1, 1, -1).expand(
                flow.shape[0], -1, flow.shape[2], -1)
            v = torch.linspace(-1.0, 1.0, flow.shape[2]).view(1, 1, -1, 1).expand(
                flow.shape[0], -1, -1, flow.shape[3])
            GRID_CACHE[key] = torch.cat([h, v], 1) + (flow.detach() if self.features else 0)
        grid = (GRID_CACHE[key] + flow).permute(0, 2, 3, 1)
        return F.grid_sample(a, grid, padding_mode="border", align_corners=True).abs().mean()


def _check_names_and_caches(device):
    """A global sharing its name with an attribute forward reads (self.out
    beside the script's `out` list) changed between steps: no warning (the
    attribute's name was taken for a read of the global). A module-level
    cache of grids computed from shapes alone (RIFE's backwarp_tenGrid):
    no warning when compiling (it said to register a buffer); one of
    computed features still warns."""
    import warnings
    problems = []
    torch.manual_seed(25)
    step = tfc_torch.compile_train_step(_OutHead(), (torch.randn(3, 4),), device=device,
                                        optimizer="sgd", lr=0.1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(3):
            out.append(step(torch.randn(3, 4)))
            out[0] = out[-1]
    if caught:
        problems.append(f"a global named like an attribute: warnings "
                        f"{[str(w.message) for w in caught]}")
    a = torch.rand(1, 2, 6, 6)
    for features in (False, True):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            step = tfc_torch.compile_train_step(_GridWarp(features), (a,), device=device,
                                                optimizer="sgd", lr=0.1)
        stored = [str(w.message) for w in caught if "GRID_CACHE" in str(w.message)]
        if len(stored) != int(features) or GRID_CACHE:
            problems.append(f"a global cache (features={features}): warnings {stored}, "
                            f"{len(GRID_CACHE)} entries left")
        model = _GridWarp(features)
        step = tfc_torch.compile_train_step(model, (a,), device=device, optimizer="sgd",
                                            lr=0.0)
        GRID_CACHE.clear()
        if not features and rel(step(a), model(a).item()) > LOSS_RTOL:
            problems.append("a global grid cache: the loss is not torch's")
        GRID_CACHE.clear()
    return problems
