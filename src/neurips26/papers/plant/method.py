"""The label-wise attention decoder over frozen token states, with PLANT's planted attention.

Z = tanh(H P) (LAAT's projection); learned attention a_lin = softmax_t(Z u_l) (random init, as LAAT);
logit_l = beta_l . sum_t a_{t,l} Z_t + b_l; binary cross-entropy. Three forms of one decoder:
- LAAT: a = a_lin (no planting);
- PLANT (`planting`, planting.py): a = w_lin a_lin + w_pl a_pl with a_pl the softmax of TRAINABLE planted scores
  initialised from the L2R scorer's factors and biases, and the mixing weights (w_lin, w_pl) trainable too, starting
  at xcube's initialisation (all weight on planting: (0, 1), `decoder.mix_init`);
- the frozen-table ablation (`p`, `table`): a = (1 - p) a_lin + p a_pl, a_pl = softmax_t(S[token_t, l]) of the
  pretrained (V, L) score table S kept frozen, over the tokens a label keeps after inattention (its top-k tokens of
  S; a document holding none of them gets a_pl = 0). This was the design before issue #65, kept only as an ablation.
"""

from __future__ import annotations

import numpy as np
import torch

from neurips26.common.models import optim
from neurips26.papers.plant.planting import TrainablePlanting, planted_term


def inattention(table: np.ndarray, k: int | None) -> np.ndarray:
    """(V, L) float32 table with every entry outside a label's top-k tokens set to -inf (k None: keep all)."""
    out = table.astype(np.float32).copy()
    if k is not None and k < table.shape[0]:
        drop = np.argsort(-table, axis=0, kind="stable")[k:]
        np.put_along_axis(out, drop, -np.inf, axis=0)
    return out


def planted_attention(table: torch.Tensor, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """(B, T, L) softmax over tokens of table[ids]; padding and dropped tokens get 0; all-dropped columns are 0."""
    s = table[ids].masked_fill(~mask[..., None], -torch.inf)
    keep = torch.isfinite(s).any(1, keepdim=True)
    a = torch.softmax(torch.where(keep, s, torch.zeros(())), 1)
    return torch.where(keep & torch.isfinite(s), a, torch.zeros(()))


def sparse_planted(table: np.ndarray, ids: np.ndarray, mask: np.ndarray, chunk: int = 64) -> dict:
    """The planted attention of every document as COO entries (doc, position, label, weight), weight > 0 only: with
    inattention a document holds few of a label's top-k tokens, so this is ~1% of the dense (N, T, L) array."""
    t = torch.as_tensor(table)
    parts = []
    for start in range(0, len(ids), chunk):
        a = planted_attention(t, torch.as_tensor(ids[start:start + chunk]), torch.as_tensor(mask[start:start + chunk]))
        n, pos, lab = torch.nonzero(a, as_tuple=True)
        parts.append((n + start, pos, lab, a[n, pos, lab]))
    doc, pos, lab, w = (torch.cat(x) for x in zip(*parts))
    return {"doc": doc, "pos": pos, "label": lab, "weight": w,
            "start": torch.searchsorted(doc, torch.arange(len(ids) + 1))}


def _pad_masked(scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """(B, T, L) scores with padding positions set to -inf; a batch without padding (most: 98% of the default
    documents fill all 64 word pieces) is returned as it is (the same values and gradients, no (B, T, L) pass)."""
    return scores if bool(mask.all()) else scores.masked_fill(~mask[..., None], -torch.inf)


class Decoder(torch.nn.Module):
    def __init__(self, dim: int, hidden: int, labels: int, p: float, table: np.ndarray | None,
                 planting: TrainablePlanting | None = None, mix_init=(0.0, 1.0)):
        super().__init__()
        if planting is not None and p > 0:
            raise ValueError("a decoder plants either trainable factors (planting) or a frozen table (p > 0)")
        self.proj = torch.nn.Linear(dim, hidden)
        self.u = torch.nn.Parameter(torch.randn(labels, hidden) / hidden ** 0.5)
        self.beta = torch.nn.Parameter(torch.randn(labels, hidden) / hidden ** 0.5)
        self.bias = torch.nn.Parameter(torch.full((labels,), -3.0))  # ~5% prior: labels are sparse
        self.p = p
        self.register_buffer("table", torch.as_tensor(table) if table is not None else None)
        self.planting = planting
        # (w_lin, w_pl): trainable mixing weights of the learned and the planted attention (xcube's XMLAttention.wgts)
        self.mix = torch.nn.Parameter(torch.tensor(mix_init, dtype=torch.float32)) if planting is not None else None

    def attention(self, H, ids, mask):
        z = torch.tanh(self.proj(H))
        a = torch.softmax(_pad_masked(z @ self.u.T, mask), 1)
        if self.p > 0:
            a = (1 - self.p) * a + self.p * planted_attention(self.table, ids, mask)
        return z, a

    def forward(self, H, ids, mask, planted: dict | None = None, docs: torch.Tensor | None = None):
        """Logits (B, L). With `planted` (sparse_planted of the corpus) and the batch's document indices `docs`, the
        planted term is computed from the sparse entries (same value as the dense path, much cheaper). A trainable
        planting needs `planted` (planting.support of the corpus) and `docs`."""
        if self.planting is not None:
            z = torch.tanh(self.proj(H))
            a = torch.softmax(_pad_masked(z @ self.u.T, mask), 1)
            zb = z @ self.beta.T
            learned = (a * zb).sum(1)
            return self.mix[0] * learned + self.mix[1] * planted_term(zb, self.planting, planted, docs) + self.bias
        if self.p == 0 or planted is None:
            z, a = self.attention(H, ids, mask)
            return (a * (z @ self.beta.T)).sum(1) + self.bias
        z = torch.tanh(self.proj(H))
        a = torch.softmax(_pad_masked(z @ self.u.T, mask), 1)
        zb = z @ self.beta.T   # (B, T, L): z_t . beta_l, shared by the learned and the planted term
        learned = (a * zb).sum(1)
        return (1 - self.p) * learned + self.p * planted_logits(zb, planted, docs) + self.bias


def planted_logits(zb: torch.Tensor, planted: dict, docs: torch.Tensor) -> torch.Tensor:
    """(B, L): for each batch document b and label l, the sum over its planted entries (position t, label l, weight w)
    of w * zb[b, t, l], with zb[b, t, l] = z_t . beta_l, the (B, T, L) product the learned term computes anyway: the
    planted term gathers one number per entry from it (no (entries, d_a) gathers; its gradient flows into zb).
    The batch's entries are selected with flat indices (no Python loop over documents)."""
    B, T, L = zb.shape
    start = planted["start"]
    first, count = start[docs], start[docs + 1] - start[docs]
    local = torch.repeat_interleave(torch.arange(B), count)
    sel = torch.arange(int(count.sum())) + torch.repeat_interleave(first - (torch.cumsum(count, 0) - count), count)
    lab = planted["label"][sel]
    term = planted["weight"][sel] * zb.reshape(-1)[(local * T + planted["pos"][sel]) * L + lab]
    return torch.zeros(B * L, dtype=zb.dtype).index_put_((local * L + lab,), term, accumulate=True).view(B, L)


def predict(model: Decoder, data: dict, idx: np.ndarray, batch: int = 256) -> np.ndarray:
    model.eval()
    with torch.no_grad():
        out = []
        for i in range(0, len(idx), batch):
            b = torch.as_tensor(idx[i:i + batch])
            out.append(torch.sigmoid(model(data["H"][b].float(), data["ids"][b], data["mask"][b], data.get("planted"), b)))
    model.train()
    return torch.cat(out).numpy()


def train(model: Decoder, data: dict, train_idx: np.ndarray, dev_idx: np.ndarray, cfg, rng: np.random.Generator,
          score, on_epoch=None) -> tuple[Decoder, list[float], bool]:
    """Adam on BCE. `cfg.stopping` (issue #14 round 3):
    - "patience" (default): after each epoch `score(dev probabilities)`; keeps the best epoch and stops after
      cfg.patience epochs without improvement (the convergence rule), or at the safety cap cfg.max_epochs;
    - "fixed": exactly cfg.max_epochs epochs (the budget, the same for every decoder), the last epoch kept, no dev
      score computed (history holds NaN per epoch).
    `on_epoch(model, data)` is called after every epoch (the pilot records per-epoch predictions with it).
    Returns (model, dev scores per epoch, whether the safety cap ended a patience run; False for a fixed budget)."""
    H, ids, mask, Y = data["H"], data["ids"], data["mask"], data["Y"]
    stopping = str(cfg.get("stopping", "patience"))
    if stopping not in ("patience", "fixed"):
        raise ValueError(f"decoder.stopping must be patience or fixed, not {stopping!r}")
    opt = optim.Adam(model.parameters(), lr=float(cfg.lr))
    best, best_state, history, stale = -np.inf, None, [], 0
    for _ in range(int(cfg.max_epochs)):
        order = rng.permutation(train_idx)
        for start in range(0, len(order), int(cfg.batch)):
            b = torch.as_tensor(order[start:start + int(cfg.batch)])
            logits = model(H[b].float(), ids[b], mask[b], data.get("planted"), b)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, Y[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
        if on_epoch is not None:
            on_epoch(model, data)
        if stopping == "fixed":
            history.append(float("nan"))
            continue
        value = score(predict(model, data, dev_idx))
        history.append(value)
        if value > best:
            best, stale = value, 0
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
        else:
            stale += 1
            if stale >= int(cfg.patience):
                break
    if stopping == "fixed":
        return model, history, False
    model.load_state_dict(best_state)
    return model, history, stale < int(cfg.patience)
