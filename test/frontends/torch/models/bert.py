"""A BERT-style sequence classifier: word, position (a position_ids buffer)
and token-type embeddings, post-LayerNorm encoder layers whose attention
takes an additive padding mask built from the attention_mask input, erf
GELU, a tanh pooler over the first token and a linear classifier.
forward(input_ids, token_type_ids, attention_mask, labels) returns the mean
cross-entropy of the class logits."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads, self.head_dim = heads, width // heads
        self.query = nn.Linear(width, width)
        self.key = nn.Linear(width, width)
        self.value = nn.Linear(width, width)
        self.dropout = nn.Dropout(0.0)

    def split_heads(self, x):
        b, t, _ = x.size()
        return x.view(b, t, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x, additive_mask):
        q = self.split_heads(self.query(x))
        k = self.split_heads(self.key(x))
        v = self.split_heads(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        scores = scores + additive_mask
        probs = self.dropout(nn.functional.softmax(scores, dim=-1))
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        return ctx.view(ctx.size(0), ctx.size(1), -1)


def erf_gelu(x):
    """GELU written out with erf, as older BERT code does."""
    return x * 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))


class Layer(nn.Module):
    def __init__(self, width, heads, hidden, activation):
        super().__init__()
        self.activation = activation
        self.attention = SelfAttention(width, heads)
        self.attention_output = nn.Linear(width, width)
        self.attention_norm = nn.LayerNorm(width, eps=1e-12)
        self.intermediate = nn.Linear(width, hidden)
        self.output = nn.Linear(hidden, width)
        self.output_norm = nn.LayerNorm(width, eps=1e-12)

    def forward(self, x, additive_mask):
        x = self.attention_norm(x + self.attention_output(self.attention(x, additive_mask)))
        return self.output_norm(x + self.output(self.activation(self.intermediate(x))))


class Bert(nn.Module):
    def __init__(self, vocab=50, positions=32, types=2, width=32, heads=4, hidden=64,
                 layers=2, classes=3):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, width)
        self.position_embeddings = nn.Embedding(positions, width)
        self.token_type_embeddings = nn.Embedding(types, width)
        self.embeddings_norm = nn.LayerNorm(width, eps=1e-12)
        self.register_buffer("position_ids", torch.arange(positions).expand((1, -1)))
        self.layers = nn.ModuleList([Layer(width, heads, hidden, F.gelu if i % 2 == 0 else erf_gelu)
                                     for i in range(layers)])
        self.pooler = nn.Linear(width, width)
        self.classifier = nn.Linear(width, classes)
        for name, p in self.named_parameters():
            if name.endswith("norm.weight"):
                nn.init.normal_(p, mean=1.0, std=0.1)
            else:
                nn.init.normal_(p, std=0.05)

    def outputs(self, input_ids, token_type_ids, attention_mask):
        """Hidden states, pooled output and logits, HF style: the forward up
        to the loss (check_forward.py imports it alone)."""
        t = input_ids.size(1)
        position_ids = self.position_ids[:, :t]
        x = (self.word_embeddings(input_ids) + self.position_embeddings(position_ids)
             + self.token_type_embeddings(token_type_ids))
        x = self.embeddings_norm(x)
        additive_mask = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        for layer in self.layers:
            x = layer(x, additive_mask)
        pooled = torch.tanh(self.pooler(x[:, 0]))
        return x, pooled, self.classifier(pooled)

    def forward(self, input_ids, token_type_ids, attention_mask, labels):
        logits = self.outputs(input_ids, token_type_ids, attention_mask)[2]
        return F.cross_entropy(logits, labels)


def make_model():
    """The model and an example batch: 3 sequences of 10 tokens, two of
    them padded (attention_mask 0 on the padding)."""
    torch.manual_seed(2)
    model = Bert()
    g = torch.Generator().manual_seed(2)
    input_ids = torch.randint(0, 50, (3, 10), generator=g)
    token_type_ids = torch.zeros(3, 10, dtype=torch.long)
    token_type_ids[:, 5:] = 1
    attention_mask = torch.ones(3, 10, dtype=torch.long)
    attention_mask[1, 7:] = 0
    attention_mask[2, 4:] = 0
    labels = torch.tensor([0, 2, 1])
    return model, (input_ids, token_type_ids, attention_mask, labels)
