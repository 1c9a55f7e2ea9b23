"""A nanoGPT / GPT-2 style decoder written as PyTorch users write it: token
and position embeddings, pre-LayerNorm blocks with causal self-attention
(a registered tril buffer and masked_fill), a GELU(tanh) MLP, a final
LayerNorm and an LM head tied to the token embedding. forward(idx, targets)
returns the mean next-token cross-entropy."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, width, heads, context, dropout):
        super().__init__()
        self.c_attn = nn.Linear(width, 3 * width)
        self.c_proj = nn.Linear(width, width)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)
        self.heads = heads
        self.register_buffer("bias", torch.tril(torch.ones(context, context))
                             .view(1, 1, context, context))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, width, dropout):
        super().__init__()
        self.c_fc = nn.Linear(width, 4 * width)
        self.gelu = nn.GELU(approximate="tanh")
        self.c_proj = nn.Linear(4 * width, width)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, width, heads, context, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(width)
        self.attn = CausalSelfAttention(width, heads, context, dropout)
        self.ln_2 = nn.LayerNorm(width)
        self.mlp = MLP(width, dropout)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab=64, context=16, layers=2, width=32, heads=4, dropout=0.0):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab, width),
            wpe=nn.Embedding(context, width),
            drop=nn.Dropout(dropout),
            h=nn.ModuleList([Block(width, heads, context, dropout) for _ in range(layers)]),
            ln_f=nn.LayerNorm(width),
        ))
        self.lm_head = nn.Linear(width, vocab, bias=False)
        self.transformer.wte.weight = self.lm_head.weight
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.normal_(module.bias, std=0.02)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        elif isinstance(module, nn.LayerNorm):
            nn.init.normal_(module.weight, mean=1.0, std=0.1)
            nn.init.normal_(module.bias, std=0.1)

    def logits(self, idx):
        """The forward up to the loss (check_forward.py imports it alone)."""
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        return self.lm_head(self.transformer.ln_f(x))

    def forward(self, idx, targets):
        logits = self.logits(idx)
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)


def make_model():
    """The model and an example batch (idx, targets) of 2 x 16 tokens."""
    torch.manual_seed(0)
    model = GPT()
    g = torch.Generator().manual_seed(0)
    idx = torch.randint(0, 64, (2, 16), generator=g)
    targets = torch.randint(0, 64, (2, 16), generator=g)
    targets[0, :3] = -1
    return model, (idx, targets)


def make_model_with_dropout():
    """The model with dropout 0.1 (attention, residual, embedding)."""
    torch.manual_seed(0)
    model = GPT(dropout=0.1)
    g = torch.Generator().manual_seed(0)
    idx = torch.randint(0, 64, (2, 16), generator=g)
    return model, (idx, torch.randint(0, 64, (2, 16), generator=g))
