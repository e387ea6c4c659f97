"""PLANT's planting as xcube's differentiable planting does it: the pretrained L2R scorer's token factors u_t, label
factors v_l and biases b_t, b_l INITIALISE trainable parameters of the decoder's planted attention, which then train
end to end with the rest of the decoder (issue #65 item 1).

Planted score s(t, l) = u_t . v_l + b_t + b_l (the L2R scorer's own form); planted attention of document d for label
l = softmax over the positions of d whose token is in l's inattention support. The support is each label's top-k
tokens of the INITIAL L2R table (inattention), fixed for the run: xcube re-selects each document's top-k positions by
the current scores at every step; a support fixed at initialisation keeps the planted term sparse (~1% of the dense
(N, T, L) array) at the cost of not adding tokens during training (README, deviations).

The support is stored as COO entries (doc, position, label, token) sorted by document, so that a batch gathers its
entries with flat indices, and as the list of its (token, label) pairs (~k x L of them): each step scores every pair
once and each entry reads its pair's score (a document repeats tokens, and the pairs are far fewer than the entries)."""

from __future__ import annotations

import numpy as np
import torch


def support(kept: np.ndarray, ids: np.ndarray, mask: np.ndarray, chunk: int = 64) -> dict:
    """Entries (doc, pos, label, token) of every (document position, label) whose token is in the label's support
    (finite in `kept`, the inattention table of method.inattention) and not padding; `start[d]` indexes the first
    entry of document d."""
    finite = torch.as_tensor(np.isfinite(kept))
    parts = []
    for first in range(0, len(ids), chunk):
        tok = torch.as_tensor(ids[first:first + chunk])
        hit = finite[tok] & torch.as_tensor(mask[first:first + chunk])[..., None]
        n, pos, lab = torch.nonzero(hit, as_tuple=True)
        parts.append((n + first, pos, lab, tok[n, pos]))
    doc, pos, lab, tok = (torch.cat(x) for x in zip(*parts))
    pair_tok, pair_lab = np.nonzero(np.isfinite(kept))   # row-major: sorted by token * L + label
    L = kept.shape[1]
    pair = np.searchsorted(pair_tok * L + pair_lab, (tok * L + lab).numpy())
    return {"doc": doc, "pos": pos, "label": lab, "token": tok, "pair": torch.as_tensor(pair),
            "pair_token": torch.as_tensor(pair_tok), "pair_label": torch.as_tensor(pair_lab),
            "start": torch.searchsorted(doc, torch.arange(len(ids) + 1))}


def batch_entries(entries: dict, docs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(local batch row of each selected entry, the selected entries' indices) for the batch's document indices."""
    start = entries["start"]
    first, count = start[docs], start[docs + 1] - start[docs]
    local = torch.repeat_interleave(torch.arange(len(docs)), count)
    sel = torch.arange(int(count.sum())) + torch.repeat_interleave(first - (torch.cumsum(count, 0) - count), count)
    return local, sel


def segment_softmax(scores: torch.Tensor, group: torch.Tensor, groups: int) -> torch.Tensor:
    """Softmax of `scores` within each group id (entries of one (document, label)); differentiable."""
    top = torch.full((groups,), -torch.inf, dtype=scores.dtype).scatter_reduce(0, group, scores.detach(), "amax")
    e = torch.exp(scores - top[group])
    total = torch.zeros(groups, dtype=scores.dtype).index_add(0, group, e)
    return e / total[group]


class TrainablePlanting(torch.nn.Module):
    """The planted attention's parameters, copied from the L2R scorer's factors (`factors`: u (V, F), v (L, F),
    bt (V,), bl (L,)) and trained from there."""

    def __init__(self, factors: dict):
        super().__init__()
        for name in ("u", "v", "bt", "bl"):
            self.register_parameter(name, torch.nn.Parameter(torch.as_tensor(np.asarray(factors[name]),
                                                                             dtype=torch.float32).clone()))

    def scores(self, tokens: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """s(t, l) of paired token and label indices (any equal shapes)."""
        # index_select, not [] indexing: its backward is index_add (fast on CPU), not an accumulating index_put
        t, lab = tokens.reshape(-1), labels.reshape(-1)
        out = (self.u.index_select(0, t) * self.v.index_select(0, lab)).sum(-1)
        return (out + self.bt.index_select(0, t) + self.bl.index_select(0, lab)).view(tokens.shape)

    def attention(self, entries: dict, docs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(batch row, position, label, weight) of the batch's entries: for each (document, label) the softmax of
        the planted scores over its support positions (weights of a (document, label) sum to 1; a label with no
        support token in a document has no entry, i.e. zero planted attention)."""
        local, sel = batch_entries(entries, docs)
        lab = entries["label"][sel]
        L = self.v.shape[0]
        pairs = self.scores(entries["pair_token"], entries["pair_label"])   # every support pair, once
        weight = segment_softmax(pairs.index_select(0, entries["pair"][sel]), local * L + lab, len(docs) * L)
        return local, entries["pos"][sel], lab, weight

    def dense(self, entries: dict, docs: torch.Tensor, T: int) -> torch.Tensor:
        """(B, T, L) planted attention of the batch (for tests and the attention figure)."""
        local, pos, lab, weight = self.attention(entries, docs)
        out = torch.zeros(len(docs), T, self.v.shape[0], dtype=weight.dtype)
        return out.index_put((local, pos, lab), weight, accumulate=True)


def planted_term(zb: torch.Tensor, planting: TrainablePlanting, entries: dict, docs: torch.Tensor) -> torch.Tensor:
    """(B, L): sum over positions t of a_pl[b, t, l] * zb[b, t, l] (zb = z_t . beta_l, which the learned term computes
    anyway), from the batch's support entries; gradients flow into zb and into the planting parameters."""
    B, T, L = zb.shape
    local, pos, lab, weight = planting.attention(entries, docs)
    term = weight * zb.reshape(-1).index_select(0, (local * T + pos) * L + lab)
    return torch.zeros(B * L, dtype=zb.dtype).index_add(0, local * L + lab, term).view(B, L)
