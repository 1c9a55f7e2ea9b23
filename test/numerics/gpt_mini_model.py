"""gpt-mini in plain PyTorch 1.13, op for op the model of
examples/models/gpt-mini.mlir (same parameter names and shapes, GELU tanh,
pre-LayerNorm, causal attention, LM head tied to wte, mean cross-entropy).
Every function takes an optional Config for the other sizes of
examples/models/gen_gpt.py's family (default: gpt-mini)."""
import math
from typing import NamedTuple

import torch
import torch.nn.functional as F

VOCAB, CONTEXT, LAYERS, WIDTH, HEADS, MLP, BATCH = 256, 64, 2, 128, 4, 512, 16


class Config(NamedTuple):
    """A GPT of examples/models/gen_gpt.py's family (MLP width 4x)."""
    vocab: int = VOCAB
    context: int = CONTEXT
    width: int = WIDTH
    heads: int = HEADS
    layers: int = LAYERS
    batch: int = BATCH


GPT_MINI = Config()
# examples/models/gpt2-small.mlir (gen_gpt.py --preset gpt2-small).
GPT2_SMALL = Config(vocab=50304, context=1024, width=768, heads=12, layers=12, batch=1)
PRESETS = {"gpt-mini": GPT_MINI, "gpt2-small": GPT2_SMALL}


def parameter_shapes(cfg: Config = GPT_MINI):
    VOCAB, CONTEXT, WIDTH, LAYERS, MLP = cfg.vocab, cfg.context, cfg.width, cfg.layers, 4 * cfg.width
    shapes = {"wte.weight": (VOCAB, WIDTH), "wpe.weight": (CONTEXT, WIDTH)}
    for i in range(LAYERS):
        p = f"h.{i}."
        shapes.update({
            p + "ln_1.weight": (WIDTH,), p + "ln_1.bias": (WIDTH,),
            p + "attn.c_attn.weight": (3 * WIDTH, WIDTH), p + "attn.c_attn.bias": (3 * WIDTH,),
            p + "attn.c_proj.weight": (WIDTH, WIDTH), p + "attn.c_proj.bias": (WIDTH,),
            p + "ln_2.weight": (WIDTH,), p + "ln_2.bias": (WIDTH,),
            p + "mlp.c_fc.weight": (MLP, WIDTH), p + "mlp.c_fc.bias": (MLP,),
            p + "mlp.c_proj.weight": (WIDTH, MLP), p + "mlp.c_proj.bias": (WIDTH,),
        })
    shapes.update({"ln_f.weight": (WIDTH,), "ln_f.bias": (WIDTH,)})
    return shapes


def init_parameters(generator: torch.Generator, cfg: Config = GPT_MINI) -> dict:
    """GPT-2-style init, with norm parameters perturbed so they matter."""
    params = {}
    for name, shape in parameter_shapes(cfg).items():
        if name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight")):
            t = 1 + 0.1 * torch.randn(shape, generator=generator)
        elif len(shape) == 1:
            t = 0.02 * torch.randn(shape, generator=generator)
        else:
            t = 0.02 * torch.randn(shape, generator=generator)
        params[name] = t.float()
    return params


def loss(params: dict, tokens: torch.Tensor, targets: torch.Tensor,
         cfg: Config = GPT_MINI) -> torch.Tensor:
    p = params
    VOCAB, WIDTH, HEADS, LAYERS = cfg.vocab, cfg.width, cfg.heads, cfg.layers
    b, t = tokens.shape
    x = F.embedding(tokens, p["wte.weight"]) + F.embedding(torch.arange(t, device=tokens.device), p["wpe.weight"])
    for i in range(LAYERS):
        h = f"h.{i}."
        y = F.layer_norm(x, (WIDTH,), p[h + "ln_1.weight"], p[h + "ln_1.bias"], 1e-5)
        qkv = F.linear(y, p[h + "attn.c_attn.weight"], p[h + "attn.c_attn.bias"])
        q, k, v = (z.reshape(b, t, HEADS, WIDTH // HEADS).transpose(1, 2)
                   for z in qkv.split(WIDTH, dim=2))
        s = q @ k.transpose(-1, -2) / math.sqrt(WIDTH // HEADS)
        s = s.masked_fill(~torch.ones(t, t, dtype=torch.bool, device=tokens.device).tril(), float("-inf"))
        a = (torch.softmax(s, -1) @ v).transpose(1, 2).reshape(b, t, WIDTH)
        x = x + F.linear(a, p[h + "attn.c_proj.weight"], p[h + "attn.c_proj.bias"])
        y = F.layer_norm(x, (WIDTH,), p[h + "ln_2.weight"], p[h + "ln_2.bias"], 1e-5)
        y = F.gelu(F.linear(y, p[h + "mlp.c_fc.weight"], p[h + "mlp.c_fc.bias"]), approximate="tanh")
        x = x + F.linear(y, p[h + "mlp.c_proj.weight"], p[h + "mlp.c_proj.bias"])
    x = F.layer_norm(x, (WIDTH,), p["ln_f.weight"], p["ln_f.bias"], 1e-5)
    logits = x @ p["wte.weight"].T
    return F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1))


def random_batch(generator: torch.Generator, cfg: Config = GPT_MINI):
    shape = (cfg.batch, cfg.context)
    tokens = torch.randint(0, cfg.vocab, shape, generator=generator)
    targets = torch.randint(0, cfg.vocab, shape, generator=generator)
    return tokens, targets
