"""MLP classifiers: a torch.nn.Sequential with LayerNorm, GELU, ReLU and
Dropout whose loss comes from a separate loss_fn (cross-entropy), and a
module computing log_softmax + nll_loss itself with sigmoid/tanh hidden
units, plus a regression head trained with mse_loss."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def make_sequential():
    """nn.Sequential(...) returning logits; the loss is a loss_fn."""
    torch.manual_seed(3)
    model = nn.Sequential(
        nn.Linear(20, 48), nn.LayerNorm(48), nn.GELU(), nn.Dropout(0.0),
        nn.Linear(48, 32), nn.ReLU(),
        nn.Linear(32, 5))
    g = torch.Generator().manual_seed(3)
    x = torch.randn(16, 20, generator=g)
    labels = torch.randint(0, 5, (16,), generator=g)
    return model, (x, labels), lambda logits, x, labels: F.cross_entropy(logits, labels)


class LogSoftmaxClassifier(nn.Module):
    """Hidden units with sigmoid and tanh, log_softmax + nll_loss, and an
    auxiliary mean-squared-error regression head."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 24)
        self.fc2 = nn.Linear(24, 24)
        self.out = nn.Linear(24, 4)
        self.reg = nn.Linear(24, 1)

    def outputs(self, x):
        """Log-probabilities and the regression head's output: the forward up
        to the loss (check_forward.py imports it alone)."""
        h = torch.sigmoid(self.fc1(x))
        h = torch.tanh(self.fc2(h)) + h
        return [F.log_softmax(self.out(h), dim=1), self.reg(h).squeeze(-1)]

    def forward(self, x, labels, target):
        logp, regression = self.outputs(x)
        aux = F.mse_loss(regression, target)
        return F.nll_loss(logp, labels) + 0.5 * aux


def make_log_softmax():
    torch.manual_seed(4)
    model = LogSoftmaxClassifier()
    g = torch.Generator().manual_seed(4)
    x = torch.randn(8, 12, generator=g)
    labels = torch.randint(0, 4, (8,), generator=g)
    target = torch.randn(8, generator=g)
    return model, (x, labels, target)


class AutocastLinear(nn.Module):
    """A linear layer under torch.autocast(bf16): aten.addmm of bf16
    operands, whose bias torch adds to the f32 product before rounding."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)

    def forward(self, x, labels):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = self.fc(x)
        return F.cross_entropy(logits.float(), labels)


def make_autocast_linear():
    torch.manual_seed(0)
    return AutocastLinear(), (torch.randn(8, 6), torch.randint(0, 4, (8,)))
