"""The policies: an MLP over MNIST pixels and a small transformer that emits one token per position (reversal)."""

from __future__ import annotations

import torch
from torch import nn


class MLPPolicy(nn.Module):
    """x (B x 784) -> logits over the 10 labels."""

    def __init__(self, inputs: int, hidden: int, actions: int):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, actions))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class ReversalTransformer(nn.Module):
    """tokens (B x L) -> logits (B x L x V): position i predicts the token at position L-1-i (no causal mask)."""

    def __init__(self, vocab: int, length: int, d_model: int, layers: int, heads: int, ff: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.position = nn.Parameter(torch.randn(length, d_model))  # same scale as the token embeddings
        layer = nn.TransformerEncoderLayer(d_model, heads, ff, dropout=0.0, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(self.embed(tokens) + self.position))


def sample_categorical(logits: torch.Tensor, uniform: torch.Tensor) -> torch.Tensor:
    """Gumbel-max sampling from given uniforms (drawn on CPU from a seeded generator, so any device gives one stream)."""
    return torch.argmax(logits - torch.log(-torch.log(uniform.clamp(1e-12, 1 - 1e-7))), dim=-1)


def action_log_prob(logits: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """log pi(action) per sample; for sequences (B x L x V) the sum over positions."""
    logp = torch.log_softmax(logits, dim=-1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    return logp if logp.dim() == 1 else logp.sum(dim=1)
