"""Small models of shapes no other test uses, for check_train_options.py's
matrix of training options: odd widths (7, 11, 33, 100), a 1007-token
vocabulary, per-sample mean losses (so two half batches accumulated equal
the whole batch). Each factory returns (model, example batch, batch-builder):
forward(*batch) returns the scalar loss, and batch-builder(generator, n)
makes n fresh samples of the example's kind.

- llama_tied: RMSNorm (pow/mean/rsqrt), rotary embeddings, grouped-query
  attention under a masked_fill causal mask, SwiGLU, the LM head tied to the
  embedding (F.linear with the embedding's weight), vocabulary 1007, a
  padding_idx whose row is not zero and trains through the head.
- bert_padded: post-LayerNorm encoder, width 33 over 3 heads of 11, an
  additive padding mask from per-sequence lengths, exact GELU, 7 classes
  from the first token.
- conv_gru: Conv1d (kernel 3) + ReLU, a GRU over 13 steps, a linear head.
- mixer: an MLP-mixer over 7 patches of 33 channels, tanh GELU, mean pool,
  no final LayerNorm (after one, the token-mixing biases, constant along the
  channels, would have exactly zero gradients: Adam on rounding noise).
- moe: top-2 of 4 experts (softmax router, renormalized gates, the experts
  computed densely and weighted by the gates scattered into 4 columns),
  SiLU experts, a per-token router z-loss added to the LM loss.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def _init(model, seed):
    g = torch.Generator().manual_seed(seed)
    for name, p in model.named_parameters():
        with torch.no_grad():
            if "norm" in name and name.endswith("weight"):
                p.copy_(1.0 + 0.1 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(0.08 * torch.randn(p.shape, generator=g))
    return model


# ---- llama_tied -----------------------------------------------------------

class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


def _rotate(x, cos, sin):
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rotated * sin


class LlamaBlock(nn.Module):
    def __init__(self, width, heads, kv_heads, hidden):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, width // heads
        self.attn_norm = RMSNorm(width)
        self.wq = nn.Linear(width, heads * self.hd, bias=False)
        self.wkv = nn.Linear(width, 2 * kv_heads * self.hd, bias=False)
        self.wo = nn.Linear(heads * self.hd, width, bias=False)
        self.mlp_norm = RMSNorm(width)
        self.gate = nn.Linear(width, hidden, bias=False)
        self.up = nn.Linear(width, hidden, bias=False)
        self.down = nn.Linear(hidden, width, bias=False)

    def forward(self, x, cos, sin, causal):
        b, t, _ = x.shape
        h = self.attn_norm(x)
        q = self.wq(h).view(b, t, self.heads, self.hd).transpose(1, 2)
        k, v = self.wkv(h).view(b, t, 2, self.kv_heads, self.hd).permute(2, 0, 3, 1, 4)
        q, k = _rotate(q, cos, sin), _rotate(k, cos, sin)
        rep = self.heads // self.kv_heads
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        scores = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(self.hd))
        scores = scores.masked_fill(causal, float("-inf"))
        att = F.softmax(scores, dim=-1) @ v
        x = x + self.wo(att.transpose(1, 2).reshape(b, t, -1))
        h = self.mlp_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class LlamaTied(nn.Module):
    def __init__(self, vocab=1007, width=24, heads=3, kv_heads=1, hidden=40, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, width, padding_idx=0)
        self.layers = nn.ModuleList([LlamaBlock(width, heads, kv_heads, hidden)
                                     for _ in range(layers)])
        self.norm = RMSNorm(width)
        hd = width // heads
        self.register_buffer("inv_freq", 1.0 / (10000.0 ** (torch.arange(0, hd, 2).float() / hd)),
                             persistent=False)

    def forward(self, tokens, targets):
        t = tokens.shape[1]
        freqs = torch.outer(torch.arange(t, dtype=self.inv_freq.dtype), self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        causal = torch.ones(t, t, dtype=torch.bool).triu(1)
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x, cos, sin, causal)
        logits = F.linear(self.norm(x), self.embed.weight)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


def llama_tied(seed=1):
    torch.manual_seed(seed)
    model = _init(LlamaTied(), seed)

    def batch(g, n):
        tokens = torch.randint(0, 1007, (n, 7), generator=g)
        tokens[torch.arange(n), torch.arange(n) % 7] = 0  # padding_idx in every sample
        return tokens, torch.randint(0, 1007, (n, 7), generator=g)
    return model, batch(torch.Generator().manual_seed(seed), 4), batch


# ---- bert_padded ----------------------------------------------------------

class EncoderLayer(nn.Module):
    def __init__(self, width, heads, hidden):
        super().__init__()
        self.heads, self.hd = heads, width // heads
        # No bias: a key bias's exact gradient is zero (q . b_k is the same
        # for every key of a query), so Adam would move it on rounding noise.
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.proj = nn.Linear(width, width)
        self.norm1 = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, hidden)
        self.fc2 = nn.Linear(hidden, width)
        self.norm2 = nn.LayerNorm(width)

    def forward(self, x, additive):
        b, t, w = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.hd) + additive
        ctx = (F.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, t, w)
        x = self.norm1(x + self.proj(ctx))
        return self.norm2(x + self.fc2(F.gelu(self.fc1(x))))


class BertPadded(nn.Module):
    def __init__(self, vocab=100, positions=9, width=33, heads=3, hidden=100, layers=2,
                 classes=7):
        super().__init__()
        self.tokens = nn.Embedding(vocab, width)
        self.positions = nn.Parameter(torch.zeros(positions, width))
        self.embed_norm = nn.LayerNorm(width)
        self.layers = nn.ModuleList([EncoderLayer(width, heads, hidden) for _ in range(layers)])
        self.head = nn.Linear(width, classes)

    def forward(self, ids, mask, labels):
        x = self.embed_norm(self.tokens(ids) + self.positions)
        additive = (1.0 - mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, additive)
        return F.cross_entropy(self.head(x[:, 0]), labels)


def bert_padded(seed=2):
    torch.manual_seed(seed)
    model = _init(BertPadded(), seed)
    lengths = [9, 5, 7, 3]  # every sample's padding stays put: the mask is an input

    def batch(g, n):
        ids = torch.randint(0, 100, (n, 9), generator=g)
        mask = torch.zeros(n, 9, dtype=torch.long)
        for i in range(n):
            mask[i, :lengths[i % len(lengths)]] = 1
        return ids, mask, torch.randint(0, 7, (n,), generator=g)
    return model, batch(torch.Generator().manual_seed(seed), 4), batch


# ---- conv_gru -------------------------------------------------------------

class ConvGRU(nn.Module):
    def __init__(self, channels=5, conv=12, hidden=17, classes=7):
        super().__init__()
        self.conv = nn.Conv1d(channels, conv, kernel_size=3, padding=1)
        self.gru = nn.GRU(conv, hidden, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x, labels):
        h = F.relu(self.conv(x)).transpose(1, 2)
        out, _ = self.gru(h)
        return F.cross_entropy(self.head(out[:, -1]), labels)


def _classifier(model, seed, shape, classes=7):
    """(model, a batch of 4, the batch factory) for a model classifying
    inputs of `shape` into `classes`."""
    def batch(g, n):
        return (torch.randn(n, *shape, generator=g),
                torch.randint(0, classes, (n,), generator=g))
    return _init(model, seed), batch(torch.Generator().manual_seed(seed), 4), batch


def conv_gru(seed=3):
    torch.manual_seed(seed)
    return _classifier(ConvGRU(), seed, (5, 13))


# ---- mixer ----------------------------------------------------------------

class MixerBlock(nn.Module):
    def __init__(self, patches, channels, hidden):
        super().__init__()
        self.norm1 = nn.LayerNorm(channels)
        self.token1 = nn.Linear(patches, hidden)
        self.token2 = nn.Linear(hidden, patches)
        self.norm2 = nn.LayerNorm(channels)
        self.chan1 = nn.Linear(channels, hidden)
        self.chan2 = nn.Linear(hidden, channels)

    def forward(self, x):
        y = self.norm1(x).transpose(1, 2)
        x = x + self.token2(F.gelu(self.token1(y), approximate="tanh")).transpose(1, 2)
        return x + self.chan2(F.gelu(self.chan1(self.norm2(x)), approximate="tanh"))


class Mixer(nn.Module):
    def __init__(self, features=11, patches=7, channels=33, hidden=100, layers=2, classes=7):
        super().__init__()
        self.stem = nn.Linear(features, channels)
        self.blocks = nn.ModuleList([MixerBlock(patches, channels, hidden)
                                     for _ in range(layers)])
        self.head = nn.Linear(channels, classes)

    def forward(self, x, labels):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return F.cross_entropy(self.head(x.mean(1)), labels)


def mixer(seed=4):
    torch.manual_seed(seed)
    return _classifier(Mixer(), seed, (7, 11))


# ---- moe ------------------------------------------------------------------

class MoE(nn.Module):
    def __init__(self, vocab=50, width=20, hidden=36, experts=4, top=2):
        super().__init__()
        self.top = top
        self.embed = nn.Embedding(vocab, width)
        self.router = nn.Linear(width, experts, bias=False)
        self.w_in = nn.Parameter(torch.zeros(experts, width, hidden))
        self.w_out = nn.Parameter(torch.zeros(experts, hidden, width))
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab)

    def forward(self, tokens, targets):
        x = self.embed(tokens)                                  # [b, t, w]
        logits = self.router(x)                                 # [b, t, e]
        probs = F.softmax(logits, dim=-1)
        top_p, top_i = probs.topk(self.top, dim=-1)
        top_p = top_p / top_p.sum(-1, keepdim=True)
        gates = torch.zeros_like(probs).scatter(-1, top_i, top_p)
        h = F.silu(torch.einsum("btw,ewh->bteh", x, self.w_in))
        y = torch.einsum("bteh,ehw->btew", h, self.w_out)
        x = self.norm(x + (gates.unsqueeze(-1) * y).sum(2))
        out = self.head(x)
        lm = F.cross_entropy(out.reshape(-1, out.shape[-1]), targets.reshape(-1))
        z = torch.logsumexp(logits, dim=-1).pow(2).mean()
        return lm + 1e-2 * z


def moe(seed=5):
    torch.manual_seed(seed)
    model = _init(MoE(), seed)

    def batch(g, n):
        return (torch.randint(0, 50, (n, 6), generator=g),
                torch.randint(0, 50, (n, 6), generator=g))
    return model, batch(torch.Generator().manual_seed(seed), 4), batch


MODELS = {"llama_tied": llama_tied, "bert_padded": bert_padded, "conv_gru": conv_gru,
          "mixer": mixer, "moe": moe}
