"""The panel-agnostic set encoder: a token per (cell, marker) built from the value and the marker-NAME vector, attention
across markers, pooling -> cell embedding, induced attention over cells (the sample as context) -> contextual cell
embeddings; sample embedding = their mean and standard deviation. A decoder queried by a marker's name reconstructs its
value in each cell (masked-reconstruction pretraining).

Binding a value to its marker: token = value * A(name) + B(name) (a masked value: M(name)), so mean pooling over the
markers is a linear layer whose weights are generated from the marker names (any panel, unseen markers included); the
decoder's read-out weights are generated from the name too. An additive token (value + name) cannot tell, once pooled,
which marker carried which value: with it, masked reconstruction did not learn beyond per-marker means here.
"""

from __future__ import annotations

import math

import torch
from torch import nn


def _mlp(n_in: int, width: int, n_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(n_in, width), nn.GELU(), nn.Linear(width, n_out))


class SetEncoder(nn.Module):
    def __init__(self, name_dim: int, width: int, heads: int, inducing: int):
        super().__init__()
        self.name_gain = name_dim ** 0.5  # unit name vectors -> entries of order one (else a long plateau at init)
        self.scale, self.shift, self.masked = (_mlp(name_dim, width, width) for _ in range(3))
        self.marker_block = nn.TransformerEncoderLayer(width, heads, 2 * width, dropout=0.0, batch_first=True,
                                                       norm_first=True)
        self.cell_mlp = _mlp(width, 2 * width, width)
        self.inducing = nn.Parameter(0.1 * torch.randn(1, inducing, width))
        self.to_inducing = nn.MultiheadAttention(width, heads, batch_first=True)
        self.from_inducing = nn.MultiheadAttention(width, heads, batch_first=True)
        self.norm = nn.LayerNorm(width)
        self.readout_hidden = nn.Linear(width, 2 * width)
        self.readout_weight = _mlp(name_dim, width, 2 * width + 1)

    def by_name(self, mlp: nn.Module, names) -> torch.Tensor:
        """mlp of every name vector: names [B, M, D], or (table [K, D], index [B, M]) -- the batch's distinct markers
        and where each sample's markers sit in that table, so the name MLPs run on K rows instead of B x M (in
        pretraining a batch of 32 samples repeats ~30 markers ~16 times each; same values, a fraction of the cost)."""
        if isinstance(names, tuple):
            table, index = names
            return mlp(table * self.name_gain)[index]
        return mlp(names * self.name_gain)

    def cells(self, x: torch.Tensor, names, present: torch.Tensor, hidden: torch.Tensor | None = None):
        """x [B, C, M] values, names [B, M, D] name vectors (or a table and index, see by_name), present [B, M] bool,
        hidden [B, C, M] bool (masked values) -> contextual cell embeddings [B, C, W]."""
        b, c, m = x.shape
        scale, shift = self.by_name(self.scale, names).unsqueeze(1), self.by_name(self.shift, names).unsqueeze(1)
        tokens = x.unsqueeze(-1) * scale + shift
        if hidden is not None:
            tokens = torch.where(hidden.unsqueeze(-1), self.by_name(self.masked, names).unsqueeze(1), tokens)
        pad = (~present).unsqueeze(1).expand(b, c, m).reshape(b * c, m)
        tokens = self.across_markers(tokens.reshape(b * c, m, -1), pad)
        keep = (~pad).unsqueeze(-1).float()
        h = self.cell_mlp((tokens * keep).sum(1) / keep.sum(1)).reshape(b, c, -1)
        summary, _ = self.to_inducing(self.inducing.expand(b, -1, -1), h, h)
        context, _ = self.from_inducing(h, summary, summary)
        return self.norm(h + context)

    def across_markers(self, t: torch.Tensor, pad: torch.Tensor) -> torch.Tensor:
        """`marker_block` (a pre-norm nn.TransformerEncoderLayer: its parameters, its function) written out: on ~16
        tokens per cell, plain attention is ~20 % faster per training step than the module's CPU flash kernel
        (tests/unit/test_cytometry_encoder_method.py compares the two). t [N, M, W], pad [N, M] True where absent."""
        layer, (n, m, w) = self.marker_block, t.shape
        heads = layer.self_attn.num_heads
        q, k, v = (nn.functional.linear(layer.norm1(t), layer.self_attn.in_proj_weight, layer.self_attn.in_proj_bias)
                   .view(n, m, 3, heads, w // heads).permute(2, 0, 3, 1, 4))           # each [N, H, M, W / H]
        scores = (q @ k.transpose(-1, -2)) * (1 / math.sqrt(w // heads))
        if pad.any():  # (a full panel -- every evaluation without test-time removal -- has nothing to mask)
            scores = scores.masked_fill(pad[:, None, None, :], float("-inf"))
        attention = scores.softmax(-1)
        t = t + layer.self_attn.out_proj((attention @ v).transpose(1, 2).reshape(n, m, w))
        return t + layer.linear2(layer.activation(layer.linear1(layer.norm2(t))))

    def reconstruct(self, h: torch.Tensor, names) -> torch.Tensor:
        """Predicted value of every marker (queried by name) in every cell: [B, C, M]."""
        weight = self.by_name(self.readout_weight, names)            # [B, M, 2W + 1]
        features = nn.functional.gelu(self.readout_hidden(h))        # [B, C, 2W]
        return torch.einsum("bcf,bmf->bcm", features, weight[..., :-1]) + weight[..., -1].unsqueeze(1)

    @staticmethod
    def sample_embedding(h: torch.Tensor) -> torch.Tensor:
        return torch.cat([h.mean(dim=1), h.std(dim=1)], dim=-1)
