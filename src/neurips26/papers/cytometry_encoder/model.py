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

    def cells(self, x: torch.Tensor, names: torch.Tensor, present: torch.Tensor, hidden: torch.Tensor | None = None):
        """x [B, C, M] values, names [B, M, D] name vectors, present [B, M] bool, hidden [B, C, M] bool (masked values)
        -> contextual cell embeddings [B, C, W]."""
        b, c, m = x.shape
        names = names * self.name_gain
        tokens = x.unsqueeze(-1) * self.scale(names).unsqueeze(1) + self.shift(names).unsqueeze(1)
        if hidden is not None:
            tokens = torch.where(hidden.unsqueeze(-1), self.masked(names).unsqueeze(1), tokens)
        pad = (~present).unsqueeze(1).expand(b, c, m).reshape(b * c, m)
        tokens = self.marker_block(tokens.reshape(b * c, m, -1), src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).float()
        h = self.cell_mlp((tokens * keep).sum(1) / keep.sum(1)).reshape(b, c, -1)
        summary, _ = self.to_inducing(self.inducing.expand(b, -1, -1), h, h)
        context, _ = self.from_inducing(h, summary, summary)
        return self.norm(h + context)

    def reconstruct(self, h: torch.Tensor, names: torch.Tensor) -> torch.Tensor:
        """Predicted value of every marker (queried by name) in every cell: [B, C, M]."""
        weight = self.readout_weight(names * self.name_gain)                          # [B, M, 2W + 1]
        features = nn.functional.gelu(self.readout_hidden(h))        # [B, C, 2W]
        return torch.einsum("bcf,bmf->bcm", features, weight[..., :-1]) + weight[..., -1].unsqueeze(1)

    @staticmethod
    def sample_embedding(h: torch.Tensor) -> torch.Tensor:
        return torch.cat([h.mean(dim=1), h.std(dim=1)], dim=-1)
