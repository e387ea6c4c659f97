"""Learning to rank tokens per label (PLANT's pretraining): relevance grades from the MI ranking, a factorised scorer
s(t, l) = u_t . v_l + b_t + b_l trained with LambdaRank (sigma, NDCG@k truncation, gain 2^rel - 1)."""

from __future__ import annotations

import numpy as np
import torch

from neurips26.common.models import optim

# quantile edges of the rank position: top 1% of the vocabulary -> grade 10, ..., the rest of the co-occurring
# tokens -> grade 1; tokens with score 0 (never informative) -> grade 0 (xcube: [0] + geomspace(1e-2, 1, 10))
EDGES = np.concatenate([[0.0], np.geomspace(1e-2, 1.0, 10)])


def grades(scores: np.ndarray) -> np.ndarray:
    """(V, L) int grades in 0..10 from (V, L) scores: rank tokens per label by score, bin the rank position."""
    V = scores.shape[0]
    order = np.argsort(-scores, axis=0, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(V)[:, None].repeat(scores.shape[1], 1), axis=0)
    b = np.clip(np.searchsorted(EDGES, rank / V, side="right") - 1, 0, 9)
    return np.where(scores > 0, 10 - b, 0).astype(np.int64)


def delta_ndcg(scores: torch.Tensor, rel: torch.Tensor, k: int) -> torch.Tensor:
    """(B, m, m) |change of NDCG@k| when items i and j of each list swap positions (positions by current scores)."""
    m = scores.shape[1]
    pos = torch.empty_like(scores, dtype=torch.long)
    pos.scatter_(1, scores.argsort(1, descending=True), torch.arange(m).expand(scores.shape[0], m))
    disc = torch.where(pos < k, 1.0 / torch.log2(pos.float() + 2.0), torch.zeros(()))
    gain = 2.0 ** rel.float() - 1.0
    ideal = (gain.sort(1, descending=True).values[:, :k] / torch.log2(torch.arange(min(k, m)).float() + 2.0)).sum(1)
    d = (gain[:, :, None] - gain[:, None, :]) * (disc[:, :, None] - disc[:, None, :])
    return d.abs() / ideal.clamp(min=1e-12)[:, None, None]


def ndcg(scores: torch.Tensor, rel: torch.Tensor, k: int) -> torch.Tensor:
    """(B,) NDCG@k of each list ranked by scores."""
    gain = 2.0 ** rel.float() - 1.0
    disc = 1.0 / torch.log2(torch.arange(min(k, rel.shape[1])).float() + 2.0)
    dcg = (gain.gather(1, scores.argsort(1, descending=True))[:, :k] * disc).sum(1)
    ideal = (gain.sort(1, descending=True).values[:, :k] * disc).sum(1)
    return dcg / ideal.clamp(min=1e-12)


def lambdarank_loss(scores: torch.Tensor, rel: torch.Tensor, sigma: float, k: int) -> torch.Tensor:
    """The surrogate whose gradient is minus the LambdaRank lambdas: sum over pairs rel_i > rel_j of
    |dNDCG_ij| log(1 + exp(-sigma (s_i - s_j))), |dNDCG| held constant."""
    weight = delta_ndcg(scores.detach(), rel, k) * (rel[:, :, None] > rel[:, None, :])
    diff = scores[:, :, None] - scores[:, None, :]
    return (weight * torch.nn.functional.softplus(-sigma * diff)).sum() / scores.shape[0]


def lambdas(scores: np.ndarray, rel: np.ndarray, sigma: float, k: int) -> np.ndarray:
    """Reference LambdaRank lambdas of one list by a double loop (the direction that increases NDCG)."""
    s, r = torch.tensor(scores[None]), torch.tensor(rel[None])
    delta = delta_ndcg(s, r, k)[0].numpy()
    lam = np.zeros(len(scores))
    for i in range(len(scores)):
        for j in range(len(scores)):
            if rel[i] > rel[j]:
                rho = sigma / (1.0 + np.exp(sigma * (scores[i] - scores[j]))) * delta[i, j]
                lam[i] += rho
                lam[j] -= rho
    return lam


class Scorer(torch.nn.Module):
    def __init__(self, vocab: int, labels: int, factors: int):
        super().__init__()
        self.u = torch.nn.Parameter(0.01 * torch.randn(vocab, factors))
        self.v = torch.nn.Parameter(0.01 * torch.randn(labels, factors))
        self.bt = torch.nn.Parameter(torch.zeros(vocab))
        self.bl = torch.nn.Parameter(torch.zeros(labels))

    def pairs(self, tokens: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """(B, m) scores of tokens (B, m) for labels (B,)."""
        return (self.u[tokens] * self.v[labels][:, None]).sum(-1) + self.bt[tokens] + self.bl[labels][:, None]

    def table(self) -> np.ndarray:
        with torch.no_grad():
            return (self.u @ self.v.T + self.bt[:, None] + self.bl[None]).numpy()

    def factors(self) -> dict:
        """The trained factors and biases {u, v, bt, bl} (what planting copies into the decoder, planting.py)."""
        return {name: getattr(self, name).detach().numpy().copy() for name in ("u", "v", "bt", "bl")}


def train_scorer(rel: np.ndarray, cfg, rng: np.random.Generator) -> tuple[np.ndarray, list[float], dict]:
    """Fit the scorer to the (V, L) grades; each step ranks, for every label, a list of `list_relevant` tokens drawn
    from its graded tokens and `list_random` uniform ones. Returns the (V, L) score table and the mean NDCG@k of the
    sampled lists per logged step, and the factors (Scorer.factors)."""
    V, L = rel.shape
    torch.manual_seed(int(rng.integers(2**31)))
    model = Scorer(V, L, int(cfg.factors))
    opt = optim.Adam(model.parameters(), lr=float(cfg.lr), weight_decay=float(cfg.weight_decay))
    graded = [np.flatnonzero(rel[:, j] > 0) for j in range(L)]
    counts = np.array([len(g) for g in graded])
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    flat = np.concatenate(graded + [np.zeros(1, dtype=np.int64)])
    labels = torch.arange(L)
    rel_t = torch.as_tensor(rel)
    history = []
    m_rel, m_rand = int(cfg.list_relevant), int(cfg.list_random)
    for step in range(int(cfg.steps)):
        pick = offsets[:, None] + np.floor(rng.random((L, m_rel)) * counts[:, None]).astype(np.int64)
        pos = np.where(counts[:, None] > 0, flat[np.minimum(pick, len(flat) - 1)], rng.integers(V, size=(L, m_rel)))
        tokens = torch.as_tensor(np.concatenate([pos, rng.integers(V, size=(L, m_rand))], 1))
        r = rel_t[tokens, labels[:, None]]
        scores = model.pairs(tokens, labels)
        loss = lambdarank_loss(scores, r, float(cfg.sigma), int(cfg.ndcg_k))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0 or step == int(cfg.steps) - 1:
            with torch.no_grad():
                history.append(float(ndcg(scores, r, int(cfg.ndcg_k)).mean()))
    return model.table(), history, model.factors()
