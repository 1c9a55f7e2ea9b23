"""check_train.py's cases on the batch and the loss: batch inputs,
parameters and buffers named like tensors the compiled program names
itself, x.random_(low, high) in forward, sparse batch inputs,
pad_packed_sequence's per-call length check, and custom Functions' added
loss terms under gradient accumulation."""
import collections
import copy
import math
import os
import tempfile

import torch

import tfc_torch
from train_helpers import compare_parameters, expect_error, train_alongside, verdict


class _AddAuxiliary(torch.autograd.Function):
    """DeepSeek-MoE's form: the output is x; the auxiliary loss gets the
    gradient ones whatever grad_output is."""

    @staticmethod
    def forward(ctx, x, aux):
        ctx.shape = aux.shape
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad, torch.ones(ctx.shape, dtype=grad.dtype)


def check_added_loss(device):
    """A custom Function's constant gradient (the added-loss form of
    custom_functions.py) under gradient accumulation: torch's recipe runs K
    backward passes of loss / K, and the Function's backward gives its
    auxiliary input the gradient 1 in each, not 1 / K; the step weights the
    term by K. SGD, accumulate_steps 1 and 2, 4 micro-batches."""
    nn = torch.nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.gate = nn.Linear(6, 3)
            self.head = nn.Linear(6, 3)

        def forward(self, x, y):
            probs = self.gate(x).softmax(-1)
            aux = 0.5 * probs.mean(0).pow(2).sum()
            h = _AddAuxiliary.apply(self.head(x), aux)
            return torch.nn.functional.cross_entropy(h, y)

    torch.manual_seed(21)
    model = Model()
    g = torch.Generator().manual_seed(22)
    data = [(torch.randn(5, 6, generator=g), torch.randint(0, 3, (5,), generator=g))
            for _ in range(4)]
    problems = []
    for k in (1, 2):
        label = f"accumulate_steps={k}: "
        mine, reference = copy.deepcopy(model), copy.deepcopy(model)
        step = tfc_torch.compile_train_step(mine, data[0], device=device, optimizer="sgd",
                                            lr=0.5, accumulate_steps=k)
        opt = torch.optim.SGD(reference.parameters(), lr=0.5)
        for i, batch in enumerate(data):
            step(*batch)
            (reference(*batch) / k).backward()
            if (i + 1) % k == 0:
                opt.step()
                opt.zero_grad()
        compare_parameters(step.state_dict(), reference, label, problems)
    return verdict(problems, "added-loss: ok (a Function's constant gradient, as torch's with "
                             "and without gradient accumulation)")


def check_input_names(device):
    """Batch inputs named like tensors the compiled program names itself
    (a super-resolution model's forward(self, lr, hr); step, the schedule's
    min_lr / warmup_steps / total_steps, loss, output) are renamed
    ("lr_input") and the step still takes the batch by position: 4 AdamW
    steps as torch's, a warmup-cosine step and a compiled forward run."""
    nn, F = torch.nn, torch.nn.functional

    class SuperResolution(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 12, 3, padding=1)

        def forward(self, lr, hr):
            return F.l1_loss(F.pixel_shuffle(self.conv(lr), 2), hr)

    class Scheduled(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 1)

        def forward(self, x, step, min_lr, warmup_steps, total_steps, loss):
            return (self.fc(x) * step + min_lr * warmup_steps - total_steps * loss).pow(2).mean()

    class Forward(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)

        def forward(self, output, lr):
            return self.fc(output) * lr

    torch.manual_seed(21)
    g = torch.Generator().manual_seed(22)
    problems = []
    model = SuperResolution()
    data = [(torch.rand(2, 3, 4, 4, generator=g), torch.rand(2, 3, 8, 8, generator=g))
            for _ in range(4)]
    mine, reference = copy.deepcopy(model), copy.deepcopy(model)
    step = tfc_torch.compile_train_step(
        mine, data[0], device=device, optimizer=torch.optim.AdamW(mine.parameters(), lr=1e-2))
    if list(step.exported.inputs) != ["lr_input", "hr"]:
        problems.append(f"super-resolution inputs named {list(step.exported.inputs)}")
    train_alongside(step, reference, torch.optim.AdamW(reference.parameters(), lr=1e-2),
                    lambda m, b: m(*b), data, "super-resolution: ", problems)
    compare_parameters(step.state_dict(), reference, "super-resolution: ", problems)
    batch = [torch.rand(4, 3, generator=g) for _ in range(6)]
    step = tfc_torch.compile_train_step(Scheduled(), batch, device=device,
                                        schedule="warmup-cosine", warmup_steps=2,
                                        total_steps=10, min_lr=1e-4)
    want = ["x", "step_input", "min_lr_input", "warmup_steps_input", "total_steps_input",
            "loss_input"]
    if list(step.exported.inputs) != want:
        problems.append(f"scheduled: inputs named {list(step.exported.inputs)}")
    loss = step(*batch)
    if not math.isfinite(loss):
        problems.append(f"scheduled: loss {loss!r}")
    model = Forward()
    example = (torch.rand(4, 3, generator=g), torch.rand(4, 1, generator=g))
    got = tfc_torch.compile(model, example, device=device)(*example)
    if not torch.allclose(got, model(*example), rtol=1e-5, atol=1e-6):
        problems.append("forward(self, output, lr): outputs differ from torch's")

    class Pixels(nn.Module):  # fast-neural-style: forward scales its input in place
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 1)

        def forward(self, batch):
            batch.div_(255)
            return self.fc(batch).pow(2).mean()

    model = Pixels()
    data = [(torch.rand(4, 3, generator=g) * 255,) for _ in range(3)]
    kept = [b[0].clone() for b in data]
    mine, reference = copy.deepcopy(model), copy.deepcopy(model)
    step = tfc_torch.compile_train_step(mine, data[0], device=device, optimizer="sgd", lr=0.1)
    tfc_torch.compile(copy.deepcopy(model), data[1], device=device)
    if not all(torch.equal(b[0], k) for b, k in zip(data, kept)):
        problems.append("compiling a forward that writes its input in place changed the "
                        "caller's example batch")
    train_alongside(step, reference, torch.optim.SGD(reference.parameters(), lr=0.1),
                    lambda m, b: m(*[t.clone() for t in b]), data, "batch.div_(255): ",
                    problems)
    return verdict(problems,
                   "input-names: ok (forward(self, lr, hr) trained 4 AdamW steps as torch's with "
                   "its input lr named lr_input; step, min_lr, warmup_steps, total_steps, loss "
                   "as inputs of a warmup-cosine step; forward(self, output, lr) compiled; a "
                   "forward writing its input in place compiled without changing the example "
                   "batch, 3 SGD steps as torch's)")


def check_state_names(device):
    """Parameters and buffers named like tensors the compiled program names
    itself (an LSQ step size `step`, a parameter `lr`, a warm-up counter
    buffer `total_steps`, buffers `loss`, `loss_scale`, `growth_tracker`,
    `min_lr`) are renamed in the program ("step_param") and keep their
    names everywhere else: 3 SGD-with-momentum steps (a torch.optim.SGD
    instance, so per-parameter settings by name) as torch's, the counters
    in state_dict as torch's, load_state_dict / load_optimizer_state_dict
    by the module's names; an fp16 warmup-cosine step (loss_scale,
    growth_tracker, min_lr, warmup_steps, total_steps all the program's
    too) near torch's; a compiled forward with a parameter `output`."""
    nn = torch.nn

    class Named(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)
            self.step = nn.Parameter(torch.tensor(0.5))
            self.lr = nn.Parameter(torch.ones(2))
            self.register_buffer("total_steps", torch.zeros(()))
            self.register_buffer("growth_tracker", torch.zeros(()))
            self.register_buffer("loss", torch.tensor(2.0))
            self.register_buffer("loss_scale", torch.tensor([1.0, 0.5]))
            self.register_buffer("min_lr", torch.tensor(0.25))

        def forward(self, x):
            self.total_steps += 1
            self.growth_tracker.add_(2)
            warm = 1 - 0.5 ** self.total_steps
            h = self.fc(x) * self.lr * self.step * self.loss_scale + self.min_lr
            return h.pow(2).mean() * warm * self.loss + 0.01 * self.growth_tracker

    class Output(nn.Module):
        def __init__(self):
            super().__init__()
            self.output = nn.Parameter(torch.randn(3, 2))

        def forward(self, x):
            return x @ self.output

    torch.manual_seed(31)
    g = torch.Generator().manual_seed(32)
    data = [(torch.randn(5, 4, generator=g),) for _ in range(3)]
    problems = []
    model = Named()
    mine, reference = copy.deepcopy(model), copy.deepcopy(model)
    opt = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    step = tfc_torch.compile_train_step(
        mine, data[0], device=device,
        optimizer=torch.optim.SGD(mine.parameters(), lr=0.1, momentum=0.9))
    if "step_param" not in step.exported.params or "lr_param" not in step.exported.params:
        problems.append(f"parameters named {list(step.exported.params)} in the program")
    train_alongside(step, reference, opt, lambda m, b: m(*b), data, "sgd: ", problems)
    compare_parameters(step.state_dict(), reference, "sgd: ", problems)
    state = step.state_dict()
    for name in ("total_steps", "growth_tracker"):
        if not torch.equal(state[name], getattr(reference, name)):
            problems.append(f"buffer {name}: {state[name]}, torch's {getattr(reference, name)}")
    try:
        mine.load_state_dict(state)
        step.load_state_dict(reference.state_dict())
        step.load_optimizer_state_dict(opt.state_dict())
    except Exception as e:  # noqa: BLE001 - reported
        problems.append(f"loading state by the module's names: {type(e).__name__}: {e}")
    mine, reference = copy.deepcopy(model), copy.deepcopy(model)
    step = tfc_torch.compile_train_step(mine, data[0], device=device, optimizer="sgd", lr=0.1,
                                        precision="fp16", schedule="warmup-cosine",
                                        warmup_steps=1, total_steps=100)
    opt = torch.optim.SGD(reference.parameters(), lr=0.1)
    for batch in data:
        loss = step(*batch)
        expected = reference(*batch)
        if not math.isfinite(loss) or abs(loss - expected.item()) > 1e-2 * abs(expected.item()):
            problems.append(f"fp16: loss {loss!r}, torch {expected.item()!r}")
        opt.zero_grad()
        expected.backward()
        opt.step()
    if float(step.state_dict()["total_steps"]) != 3.0 or float(step.read("step")) != 3:
        problems.append(f"fp16: counters {float(step.state_dict()['total_steps'])} (the "
                        f"module's), {float(step.read('step'))} (the step's), not 3")
    model = Output()
    x = torch.randn(4, 3, generator=g)
    got = tfc_torch.compile(model, (x,), device=device)(x)
    if not torch.allclose(got, model(x), rtol=1e-5, atol=1e-6):
        problems.append("a parameter named output: outputs differ from torch's")
    return verdict(problems,
                   "state-names: ok (parameters step, lr and buffers total_steps, "
                   "growth_tracker, loss, loss_scale, min_lr: 3 SGD momentum steps as "
                   "torch's, counters as torch's, state loaded by the module's names; fp16 "
                   "warmup-cosine steps within 1e-2 of torch's; a forward's parameter output)")


def check_random_range(device):
    """x.random_(low, high) in forward (CRD / InstDisc's AliasMethod draw of
    negatives), which torch 1.13's make_fx cannot generate code for: an NCE
    loss over drawn memory rows trains (2 SGD steps, finite losses, the
    parameters moved), and a compiled forward's random_(3, 9) (int64) and
    random_(5) (f32) draws lie in their ranges and cover every value."""
    nn, F = torch.nn, torch.nn.functional

    class NCE(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Linear(8, 4)
            self.register_buffer("memory", F.normalize(torch.randn(32, 4), dim=1))

        def forward(self, x):
            v = F.normalize(self.enc(x), dim=1)
            neg = torch.zeros(x.size(0) * 6, dtype=torch.long).random_(0, 32)
            w = self.memory[neg.view(x.size(0), 6)]
            return F.cross_entropy(torch.bmm(w, v.unsqueeze(2)).squeeze(2) / 0.07,
                                   torch.zeros(x.size(0), dtype=torch.long))

    class Draws(nn.Module):
        def forward(self, x):
            return (torch.zeros(4000, dtype=torch.long).random_(3, 9) + x.long(),
                    torch.zeros(4000).random_(5) + x)

    torch.manual_seed(41)
    problems = []
    model = NCE()
    before = model.enc.weight.detach().clone()
    x = torch.randn(4, 8, generator=torch.Generator().manual_seed(42))
    step = tfc_torch.compile_train_step(model, (x,), device=device, optimizer="sgd", lr=0.5)
    losses = [step(x), step(x)]
    if not all(math.isfinite(v) for v in losses):
        problems.append(f"NCE losses {losses}")
    if torch.equal(step.state_dict()["enc.weight"], before):
        problems.append("NCE: enc.weight did not move")
    ints, floats = tfc_torch.compile(Draws(), (torch.zeros(1),), device=device)(torch.zeros(1))
    for name, v, low, high in (("random_(3, 9)", ints, 3, 9), ("random_(5)", floats, 0, 5)):
        if sorted(set(v.tolist())) != list(range(low, high)):
            problems.append(f"{name} drew {sorted(set(v.tolist()))[:12]}")
    return verdict(problems, f"random-range: ok (an NCE loss over random_(0, 32) rows: 2 SGD "
                             f"steps, losses {losses[0]:.3f}, {losses[1]:.3f}; random_(3, 9) and "
                             "random_(5) cover their ranges)")


def check_sparse_input(device):
    """A torch.sparse batch input (pygcn's normalized adjacency, used by
    torch.spmm) is fed densely at each call and stored densely by
    save_feed / save_inputs: 3 SGD steps as torch's on the sparse tensor;
    the saved feed's adjacency equals adj.to_dense()."""
    nn = torch.nn

    class GCN(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 3)

        def forward(self, x, adj, y):
            return torch.nn.functional.cross_entropy(torch.spmm(adj, self.lin(x)), y)

    torch.manual_seed(51)
    g = torch.Generator().manual_seed(52)
    edges = torch.tensor([[0, 1, 2, 3, 4, 0], [1, 2, 3, 4, 0, 0]])
    adj = torch.sparse_coo_tensor(edges, torch.rand(6, generator=g), (5, 5)).coalesce()
    data = [(torch.randn(5, 4, generator=g), adj, torch.randint(0, 3, (5,), generator=g))
            for _ in range(3)]
    problems = []
    model = GCN()
    mine, reference = copy.deepcopy(model), copy.deepcopy(model)
    step = tfc_torch.compile_train_step(mine, data[0], device=device, optimizer="sgd", lr=0.5)
    train_alongside(step, reference, torch.optim.SGD(reference.parameters(), lr=0.5),
                    lambda m, b: m(*b), data, "sparse adj: ", problems)
    compare_parameters(step.state_dict(), reference, "sparse adj: ", problems)
    from tfc_torch.export import import_module
    from tfc_torch import safetensors
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "feed.safetensors")
        import_module(copy.deepcopy(model), data[0]).save_feed(path)
        saved = safetensors.load(path)
    if not torch.equal(saved.get("adj", torch.zeros(0)), adj.to_dense()):
        problems.append(f"save_feed's adj: {saved.get('adj')}")
    return verdict(problems, "sparse-input: ok (a sparse adjacency fed densely: 3 SGD steps as "
                             "torch's; save_feed stores it dense)")


def check_packed_lengths(device):
    """pad_packed_sequence without total_length pads to the batch's longest
    length in torch and to the example's in the compiled program: each call
    of a step or a compiled forward checks the lengths (a traced input, or
    computed in forward from a padding mask) and refuses a batch whose
    longest is shorter, before running (the step's parameters unchanged);
    with total_length given (a fixed max_length) any batch trains as torch's
    (3 SGD steps)."""
    nn = torch.nn
    rnn = nn.utils.rnn

    class Tagger(nn.Module):
        def __init__(self, total_length=None, from_mask=False):
            super().__init__()
            self.gru = nn.GRU(2, 3, batch_first=True)
            self.total_length, self.from_mask = total_length, from_mask

        def forward(self, x, lengths):
            if self.from_mask:
                lengths = (x.abs().sum(-1) != 0).sum(1)
            packed = rnn.pack_padded_sequence(x, lengths, batch_first=True,
                                              enforce_sorted=False)
            out, _ = rnn.pad_packed_sequence(self.gru(packed)[0], batch_first=True,
                                             total_length=self.total_length)
            return out.mean(1).sum() + out[:, -1].pow(2).sum()

    def batch(lengths, g):
        x = torch.randn(3, 5, 2, generator=g)
        lengths = torch.tensor(lengths)
        return x * (torch.arange(5)[None, :, None] < lengths[:, None, None]), lengths

    torch.manual_seed(31)
    g = torch.Generator().manual_seed(32)
    problems = []
    full = [batch([5, 3, 2], g), batch([2, 5, 4], g)]
    short = batch([4, 3, 1], g)
    sgd = {"optimizer": "sgd", "lr": 0.1, "weight_decay": 0.0}
    for from_mask in (False, True):
        label = "lengths from a mask: " if from_mask else "lengths an input: "
        model = Tagger(from_mask=from_mask)
        mine, reference = copy.deepcopy(model), copy.deepcopy(model)
        step = tfc_torch.compile_train_step(mine, full[0], device=device, **sgd)
        train_alongside(step, reference, torch.optim.SGD(reference.parameters(), lr=0.1),
                        lambda m, b: m(*b), full, label, problems)
        before = step.state_dict()
        problem = expect_error(tfc_torch.ModelError, "total_length=5", lambda: step(*short))
        if problem:
            problems.append(label + problem)
        if any(not torch.equal(before[k], v) for k, v in step.state_dict().items()):
            problems.append(f"{label}the refused batch changed the parameters")
        compiled = tfc_torch.compile(model, full[0], device=device)
        if not torch.allclose(compiled(*full[1]), model(*full[1]), rtol=1e-5, atol=1e-6):
            problems.append(f"{label}compiled forward differs from torch's")
        problem = expect_error(tfc_torch.ModelError, "pad_packed_sequence without total_length",
                               lambda: compiled(*short))
        if problem:
            problems.append(f"{label}compiled forward: {problem}")
    model = Tagger(total_length=5)
    mine, reference = copy.deepcopy(model), copy.deepcopy(model)
    step = tfc_torch.compile_train_step(mine, full[0], device=device, **sgd)
    if step.exported.batch_check is not None:
        problems.append("total_length given: the batch is checked")
    train_alongside(step, reference, torch.optim.SGD(reference.parameters(), lr=0.1),
                    lambda m, b: m(*b), [full[1], short, full[0]], "total_length=5: ", problems)
    return verdict(problems,
                   "packed-lengths: ok (without total_length: 2 SGD steps as torch's, then a "
                   "batch whose longest length is shorter than the example's refused by the step "
                   "(parameters kept) and the compiled forward, lengths an input or from a mask; "
                   "with total_length: 3 steps as torch's on any lengths, unchecked)")


def check_dict_batch(device):
    """HF-style batches (batch_layout.py): a dict example batch of
    forward's parameter names passed as keyword arguments, model(**batch),
    with a None entry (token_type_ids=None: a constant None argument), 3
    AdamW steps as torch's called as step(batch) and step(**batch);
    forward(self, **batch); a None positional argument before the labels;
    a dict batch split between forward and loss_fn by their parameter
    names; compile() of a dict batch. Errors: other keys at a call, a
    tensor where the example had None, a key forward does not take, a
    parameter forward needs that no key names."""
    nn, F = torch.nn, torch.nn.functional

    class Classifier(nn.Module):      # HF's forward(input_ids, attention_mask, ..., labels)
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(11, 6)
            self.head = nn.Linear(6, 3)

        def forward(self, input_ids, attention_mask=None, token_type_ids=None, labels=None):
            h = self.emb(input_ids)
            if token_type_ids is not None:
                h = h * 0
            if attention_mask is not None:
                h = h * attention_mask.unsqueeze(-1)
            logits = self.head(h.mean(1))
            return logits if labels is None else F.cross_entropy(logits, labels)

    class Keywords(nn.Module):        # forward(self, **batch)
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, **batch):
            return F.cross_entropy(self.fc(batch["x"]), batch["y"])

    torch.manual_seed(61)
    g = torch.Generator().manual_seed(62)

    def hf_batch():
        return {"input_ids": torch.randint(0, 11, (4, 5), generator=g),
                "attention_mask": (torch.rand(4, 5, generator=g) > 0.3).float(),
                "token_type_ids": None, "labels": torch.randint(0, 3, (4,), generator=g)}
    problems = []
    data = [hf_batch() for _ in range(3)]
    model = Classifier()
    mine, reference = copy.deepcopy(model), copy.deepcopy(model)
    step = tfc_torch.compile_train_step(mine, data[0], device=device,
                                        optimizer=torch.optim.AdamW(mine.parameters(), lr=0.05))
    if list(step.exported.inputs) != ["input_ids", "attention_mask", "labels"]:
        problems.append(f"HF batch: inputs {list(step.exported.inputs)}")
    opt = torch.optim.AdamW(reference.parameters(), lr=0.05)
    for i, batch in enumerate(data):
        loss = step(batch) if i % 2 == 0 else step(**batch)
        opt.zero_grad()
        expected = reference(**batch)
        expected.backward()
        opt.step()
        if abs(loss - expected.item()) > 1e-4 * max(1.0, abs(expected.item())):
            problems.append(f"HF batch: step {i}: loss {loss!r}, torch {expected.item()!r}")
    compare_parameters(step.state_dict(), reference, "HF batch: ", problems)
    bad = dict(data[0], token_type_ids=torch.zeros(4, 5, dtype=torch.long))
    for text, call in (("compiled with None there", lambda: step(bad)),
                       ("missing ['labels']", lambda: step({k: v for k, v in data[0].items()
                                                            if k != "labels"})),
                       ("call it with one dict", lambda: step(data[0]["input_ids"]))):
        problem = expect_error(TypeError, text, call)
        if problem:
            problems.append(f"HF batch call: {problem}")
    problem = expect_error(tfc_torch.ModelError, "takes no argument 'pixels'",
                           lambda: tfc_torch.compile_train_step(
                               Classifier(), dict(data[0], pixels=torch.zeros(1)),
                               device=device))
    if problem:
        problems.append(f"unknown key: {problem}")
    problem = expect_error(tfc_torch.ModelError, "no entry for Linear.forward(input)'s 'input'",
                           lambda: tfc_torch.compile_train_step(
                               nn.Linear(4, 3), {"x": torch.zeros(2, 4), "y": torch.zeros(2)},
                               lambda out, x, y: out.sum(), device=device))
    if problem:
        problems.append(f"a key forward needs: {problem}")

    # forward(self, **batch), compiled from the dict or from (dict,).
    x, y = torch.randn(5, 4, generator=g), torch.randint(0, 3, (5,), generator=g)
    for example in ({"x": x, "y": y}, ({"x": x, "y": y},)):
        model = Keywords()
        step = tfc_torch.compile_train_step(copy.deepcopy(model), example, device=device,
                                            optimizer="sgd", lr=0.5)
        loss, want = step(x=x, y=y), model(x=x, y=y).item()
        if abs(loss - want) > 1e-5:
            problems.append(f"forward(**batch) from {type(example).__name__}: loss {loss}, "
                            f"torch {want}")

    # forward returning HF's ModelOutput (a dict with a 0-d "loss" entry, and
    # the logits) or a namedtuple with a loss field, no loss_fn: the loss is
    # taken as HF's Trainer takes it.
    class Output(collections.OrderedDict):   # transformers.utils.ModelOutput's base
        def __getattr__(self, key):
            if key not in self:
                raise AttributeError(key)
            return self[key]

    Named = collections.namedtuple("Named", ["logits", "loss"])

    class WithOutputs(nn.Module):
        def __init__(self, kind):
            super().__init__()
            self.fc, self.kind = nn.Linear(4, 3), kind

        def forward(self, x=None, y=None):
            logits = self.fc(x)
            loss = F.cross_entropy(logits, y)
            return Output(loss=loss, logits=logits) if self.kind else Named(logits, loss)

    for kind in (True, False):
        model = WithOutputs(kind)
        mine, reference = copy.deepcopy(model), copy.deepcopy(model)
        try:
            step = tfc_torch.compile_train_step(mine, {"x": x, "y": y}, device=device,
                                                optimizer="sgd", lr=0.5)
        except tfc_torch.ModelError as e:
            problems.append(f"forward returning its loss in {type(mine(x=x, y=y)).__name__}: "
                            f"{e}")
            continue
        train_alongside(step, reference, torch.optim.SGD(reference.parameters(), lr=0.5),
                        lambda m, b: m(**b[0]).loss, [({"x": x, "y": y},)] * 2,
                        f"{'ModelOutput' if kind else 'namedtuple'} loss: ", problems)

    # A None positional argument (the mask) before the labels.
    model = Classifier()
    ids, labels = data[1]["input_ids"], data[1]["labels"]
    mine, reference = copy.deepcopy(model), copy.deepcopy(model)
    step = tfc_torch.compile_train_step(mine, (ids, None, None, labels), device=device,
                                        optimizer="sgd", lr=0.5)
    train_alongside(step, reference, torch.optim.SGD(reference.parameters(), lr=0.5),
                    lambda m, b: m(*b), [(ids, None, None, labels)] * 2, "None positional: ",
                    problems)
    problem = expect_error(TypeError, "compiled with None there",
                           lambda: step(ids, torch.ones(4, 5), None, labels))
    if problem:
        problems.append(f"None positional: {problem}")

    # A dict batch with a loss_fn: forward takes the keys it names, loss_fn the rest.
    model = nn.Linear(4, 3)
    batch = {"input": x, "target": y}
    mine, reference = copy.deepcopy(model), copy.deepcopy(model)
    step = tfc_torch.compile_train_step(mine, batch, lambda out, target: F.cross_entropy(
        out, target), device=device, optimizer="sgd", lr=0.5)
    train_alongside(step, reference, torch.optim.SGD(reference.parameters(), lr=0.5),
                    lambda m, b: F.cross_entropy(m(b[0]["input"]), b[0]["target"]),
                    [(batch,)] * 2, "loss_fn: ", problems)

    # compile(): the inference forward of a dict batch with a None entry.
    model = Classifier().eval()
    batch = {k: v for k, v in data[2].items() if k != "labels"}
    fast = tfc_torch.compile(model, batch, device=device)
    with torch.no_grad():
        want = model(**batch)
    for label, got in (("compile(dict)", fast(batch)), ("compile(**dict)", fast(**batch))):
        if not torch.allclose(got, want, rtol=1e-5, atol=1e-6):
            problems.append(f"{label}: max |diff| {(got - want).abs().max():.2e}")
    return verdict(problems, "dict-batch: ok (an HF batch dict with token_type_ids=None as "
                             "keyword arguments, 3 AdamW steps as torch's by step(batch) and "
                             "step(**batch); forward(**batch); a None positional; a dict split "
                             "between forward and loss_fn; compile(); the call errors)")
