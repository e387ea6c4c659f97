"""The policies: an MLP over MNIST pixels and a small causal transformer that writes the reversal token by token."""

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
    """A causal (decoder-only) transformer that reads L prompt tokens, a separator, and writes the reversal one token at
    a time, as the official code runs it (autoregressive, vocabulary V): `forward(prompt, outputs)` returns the logits
    of the output positions given the outputs so far (teacher-forced when all L are given: B x L x V)."""

    def __init__(self, vocab: int, length: int, d_model: int, layers: int, heads: int, ff: int):
        super().__init__()
        self.length, self.vocab = length, vocab
        self.embed = nn.Embedding(vocab + 1, d_model)  # token `vocab` is the separator
        self.position = nn.Parameter(torch.randn(2 * length, d_model))  # same scale as the token embeddings
        layer = nn.TransformerEncoderLayer(d_model, heads, ff, dropout=0.0, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, prompt: torch.Tensor, outputs: torch.Tensor) -> torch.Tensor:
        n = prompt.shape[1]
        sep = torch.full((len(prompt), 1), self.vocab, dtype=prompt.dtype, device=prompt.device)
        seq = torch.cat([prompt, sep, outputs[:, : n - 1]], dim=1)
        mask = nn.Transformer.generate_square_subsequent_mask(seq.shape[1], device=seq.device)
        h = self.encoder(self.embed(seq) + self.position[: seq.shape[1]], mask=mask, is_causal=True)
        return self.head(h[:, n:])

    @torch.no_grad()
    def generate(self, prompt: torch.Tensor, uniform: torch.Tensor | None) -> torch.Tensor:
        """Sample (Gumbel-max from `uniform`, B x L x V) or, with uniform None, greedily decode the L output tokens."""
        out = prompt[:, :0]
        for t in range(prompt.shape[1]):
            logits = self(prompt, out)[:, -1]
            token = logits.argmax(-1) if uniform is None else sample_categorical(logits, uniform[:, t])
            out = torch.cat([out, token[:, None]], dim=1)
        return out


def sample_categorical(logits: torch.Tensor, uniform: torch.Tensor) -> torch.Tensor:
    """Gumbel-max sampling from given uniforms (drawn on CPU from a seeded generator, so any device gives one stream)."""
    return torch.argmax(logits - torch.log(-torch.log(uniform.clamp(1e-12, 1 - 1e-7))), dim=-1)


def action_log_prob(logits: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """log pi(action) per sample; for sequences (B x L x V) the sum over positions."""
    logp = torch.log_softmax(logits, dim=-1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    return logp if logp.dim() == 1 else logp.sum(dim=1)
