"""A Llama-style decoder: RMSNorm written with pow/mean/rsqrt, rotary
position embeddings (cos/sin computed in forward from an inv_freq buffer,
rotate_half with a cat of the negated halves), grouped-query attention
(key/value heads repeated with expand + reshape) under an additive causal
mask, a SwiGLU MLP without biases and an untied LM head. forward(tokens,
labels) returns the mean next-token cross-entropy."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        variance = x.pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(variance + self.eps)
        return self.weight * x


class Rotary(nn.Module):
    def __init__(self, head_dim, base=10000.0):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, seq_len):
        t = torch.arange(seq_len, dtype=self.inv_freq.dtype)
        freqs = torch.outer(t, self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos(), emb.sin()


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary(q, k, cos, sin):
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


class Attention(nn.Module):
    def __init__(self, width, heads, kv_heads):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, width // heads
        self.q_proj = nn.Linear(width, heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(width, kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(width, kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(heads * self.head_dim, width, bias=False)
        self.rotary = Rotary(self.head_dim)

    def repeat_kv(self, x):
        b, h, t, d = x.shape
        n = self.heads // self.kv_heads
        return x[:, :, None, :, :].expand(b, h, n, t, d).reshape(b, h * n, t, d)

    def forward(self, x, mask):
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        cos, sin = self.rotary(t)
        q, k = apply_rotary(q, k, cos, sin)
        k, v = self.repeat_kv(k), self.repeat_kv(v)
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.head_dim)
        scores = scores + mask
        probs = F.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
        out = torch.matmul(probs, v).transpose(1, 2).contiguous().reshape(b, t, -1)
        return self.o_proj(out)


class MLP(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.gate_proj = nn.Linear(width, hidden, bias=False)
        self.up_proj = nn.Linear(width, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, width, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self, width, heads, kv_heads, hidden):
        super().__init__()
        self.input_layernorm = RMSNorm(width)
        self.self_attn = Attention(width, heads, kv_heads)
        self.post_attention_layernorm = RMSNorm(width)
        self.mlp = MLP(width, hidden)

    def forward(self, x, mask):
        x = x + self.self_attn(self.input_layernorm(x), mask)
        return x + self.mlp(self.post_attention_layernorm(x))


class Llama(nn.Module):
    def __init__(self, vocab=64, layers=2, width=32, heads=4, kv_heads=2, hidden=80):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, width)
        self.layers = nn.ModuleList([Layer(width, heads, kv_heads, hidden) for _ in range(layers)])
        self.norm = RMSNorm(width)
        self.lm_head = nn.Linear(width, vocab, bias=False)
        for name, p in self.named_parameters():
            if name.endswith("norm.weight"):
                nn.init.normal_(p, mean=1.0, std=0.1)
            else:
                nn.init.normal_(p, std=0.05)

    def logits(self, tokens):
        """The forward up to the loss (check_forward.py imports it alone)."""
        t = tokens.shape[1]
        mask = torch.full((t, t), float("-inf")).triu(1)
        x = self.embed_tokens(tokens)
        for layer in self.layers:
            x = layer(x, mask)
        return self.lm_head(self.norm(x)).float()

    def forward(self, tokens, labels):
        logits = self.logits(tokens)
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), labels.view(-1))


def make_model():
    """The model and an example batch (tokens, labels) of 2 x 12 tokens."""
    torch.manual_seed(1)
    model = Llama()
    g = torch.Generator().manual_seed(1)
    tokens = torch.randint(0, 64, (2, 12), generator=g)
    labels = torch.randint(0, 64, (2, 12), generator=g)
    return model, (tokens, labels)
