"""Gaussian-copula model of correlated model errors, its exact likelihoods, and its error floor.

Model m of cluster c errs iff Z_m < Phi^-1(eps_m), with Z_m = sqrt(rho_c) W_c + sqrt(1 - rho_c) U_m (W_c, U_m iid N(0,1));
a wrong answer is uniform over the K - 1 other labels; Y is uniform. Clusters have independent latents W_c, so the
likelihood of a prediction pattern factorises over clusters, each a 1-D integral over W_c:
    P(yhat_S | y) = prod_c E_W [ prod_{m in S, c(m) = c} f_m(yhat_m | y, W) ],
    f_m = 1 - p_m(W) if yhat_m = y else p_m(W) / (K - 1),   p_m(w) = Phi((Phi^-1(eps_m) - sqrt(rho_c) w) / sqrt(1 - rho_c)).
These give exact MI by enumerating patterns (small S) and an exact-likelihood Monte-Carlo MI (any S).

Error floor (derivation in FLOOR.md). Given W = w the models of one cluster err independently with probability p(w). With
infinitely many of them the vote fractions are 1 - p(w) for the truth and p(w) / (K - 1) for each wrong label, so the
plurality vote errs iff p(w) > (K - 1) / K, i.e. iff w < (Phi^-1(eps) - sqrt(1 - rho) Phi^-1((K - 1) / K)) / sqrt(rho):
    floor(eps, rho, K) = Phi((Phi^-1(eps) - sqrt(1 - rho) Phi^-1((K - 1) / K)) / sqrt(rho)),
which for K = 2 is Phi(Phi^-1(eps) / sqrt(rho)). Information form (K = 2): the vote fraction F is all an infinite pool
reveals, I(Y; Yhat_S) <= I(Y; F) = 1 - E h(sigma(2 a s t / rho)) with a = Phi^-1(eps), s = sqrt(1 - rho),
t = (a - sqrt(rho) W) / s, and Fano gives P(error) >= h^-1(1 - I(Y; F)) for every aggregator of every subset.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit, gammaln, log_ndtr, logsumexp, ndtr, ndtri, xlog1py, xlogy

# scipy.special rather than scipy.stats: the same functions, without half a second of import in every job

GRID = np.linspace(-6.5, 6.5, 261)  # spacing 0.05: fine next to the steepest p_m(w) of the configs (rho <= 0.9)
GRID_W = np.exp(-0.5 * GRID**2) / np.exp(-0.5 * GRID**2).sum()  # quadrature weights of W ~ N(0, 1)


@dataclass(frozen=True)
class Pool:
    """M models: per-model error rate, cluster index, and per-cluster latent correlation."""

    eps: np.ndarray
    cluster: np.ndarray
    rho: np.ndarray
    n_classes: int

    @classmethod
    def from_clusters(cls, clusters: list[dict], n_classes: int) -> Pool:
        eps, cluster, rho = [], [], []
        for c, spec in enumerate(clusters):
            eps += list(np.linspace(spec["eps"][0], spec["eps"][1], int(spec["size"])))
            cluster += [c] * int(spec["size"])
            rho.append(float(spec["rho"]))
        return cls(np.array(eps), np.array(cluster), np.array(rho), n_classes)

    @property
    def size(self) -> int:
        return len(self.eps)

    def error_logit(self, models, w: np.ndarray) -> np.ndarray:
        """Phi^-1(p_m(w)) for each model (rows) at latent values w (columns)."""
        r = self.rho[self.cluster[models]][:, None]
        return (ndtri(self.eps[models])[:, None] - np.sqrt(r) * w[None, :]) / np.sqrt(1.0 - r)


def sample(pool: Pool, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """n draws of (y, predictions of every model), straight from the latent definition."""
    k = pool.n_classes
    y = rng.integers(0, k, n)
    w = rng.standard_normal((n, len(pool.rho)))
    r = pool.rho[pool.cluster]
    z = np.sqrt(r) * w[:, pool.cluster] + np.sqrt(1.0 - r) * rng.standard_normal((n, pool.size))
    wrong = z < ndtri(pool.eps)
    shift = rng.integers(1, k, (n, pool.size)) if k > 1 else 0
    preds = np.where(wrong, (y[:, None] + shift) % k, y[:, None])
    return y, preds


def log_likelihood(pool: Pool, models: list[int], preds: np.ndarray) -> np.ndarray:
    """log P(yhat_S = preds[i] | y) for every row i and label y (exact up to quadrature): shape (n, K)."""
    k, models = pool.n_classes, np.asarray(models)
    out = np.zeros((len(preds), k))
    for c in np.unique(pool.cluster[models]):
        inside = np.flatnonzero(pool.cluster[models] == c)
        x = pool.error_logit(models[inside], GRID)  # (m_c, grid); log-space: p(w) reaches 0 and 1 in floating point
        log_right, log_wrong = log_ndtr(-x), log_ndtr(x) - np.log(max(k - 1, 1))
        for y in range(k):
            hit = preds[:, inside] == y  # (n, m_c)
            terms = hit @ log_right + (~hit) @ log_wrong  # (n, grid)
            out[:, y] += logsumexp(terms + np.log(GRID_W)[None, :], axis=1)
    return out


def exact_joint(pool: Pool, models: list[int]) -> np.ndarray:
    """p(y, pattern) for every label and every one of the K^|S| patterns (enumeration; small S only)."""
    k = pool.n_classes
    patterns = np.array(np.meshgrid(*[np.arange(k)] * len(models), indexing="ij")).reshape(len(models), -1).T
    return np.exp(log_likelihood(pool, models, patterns)).T / k


def mc_mi(pool: Pool, models: list[int], y: np.ndarray, preds: np.ndarray,
          with_se: bool = False) -> tuple[float, ...]:
    """Exact-likelihood Monte-Carlo I(Y; Yhat_S) in bits and the Bayes (oracle MAP) accuracy, from samples (y, preds);
    with_se appends the Monte-Carlo standard error of the MI (sd of the pointwise log-posterior / sqrt(n))."""
    ll = log_likelihood(pool, models, preds[:, models])
    posterior = ll - logsumexp(ll, axis=1, keepdims=True)  # uniform prior on Y
    pointwise = posterior[np.arange(len(y)), y] / np.log(2.0)
    mi = np.log2(pool.n_classes) + pointwise.mean()
    out = (float(mi), float((posterior.argmax(1) == y).mean()))
    return out + (float(pointwise.std(ddof=1) / np.sqrt(len(y))),) if with_se else out


def vote_floor(eps, rho, n_classes: int = 2):
    """Limit of the plurality-vote error of infinitely many equicorrelated models (closed form above)."""
    eps, rho = np.asarray(eps, float), np.asarray(rho, float)
    threshold = ndtri((n_classes - 1) / n_classes)
    return ndtr((ndtri(eps) - np.sqrt(1.0 - rho) * threshold) / np.sqrt(rho))


def simulated_vote_error(eps: float, rho: float, n_models: int, n_classes: int, rng_seed: int, n: int) -> float:
    """Plurality-vote error of n_models equicorrelated models, simulated from the latent definition (random ties).

    The draws are `sample`'s, in its order (y, W, U, the wrong labels' shifts); the votes are counted per shift rather
    than through the (n, models, K) prediction array, which gives the same counts in a fraction of the time."""
    rng = np.random.default_rng(rng_seed)
    k, cut = n_classes, ndtri(eps)
    errors = 0
    for start in range(0, n, 2000):
        rows = min(2000, n - start)
        y = rng.integers(0, k, rows)
        w = rng.standard_normal((rows, 1))
        z = np.sqrt(rho) * w + np.sqrt(1.0 - rho) * rng.standard_normal((rows, n_models))
        wrong = z < cut
        votes = np.zeros((rows, k))
        if k > 1:
            shift = rng.integers(1, k, (rows, n_models))
            for s in range(1, k):  # a wrong model with shift s votes for (y + s) % K
                votes[np.arange(rows), (y + s) % k] = (wrong & (shift == s)).sum(1)
        votes[np.arange(rows), y] = n_models - wrong.sum(1)
        votes += rng.uniform(0, 0.5, votes.shape)  # random tie breaking
        errors += int((votes.argmax(1) != y).sum())
    return errors / n


def binary_count_information(eps: float, rho: float, n_models: int) -> tuple[float, float]:
    """K = 2, exchangeable pool of n_models: I(Y; Yhat_S) in bits and the Bayes error, exactly, through the count of
    correct votes (a sufficient statistic): P(C = c | Y) = E_W Binom(c; n, 1 - p(W))."""
    p = ndtr((ndtri(eps) - np.sqrt(rho) * GRID) / np.sqrt(1.0 - rho))
    c = np.arange(n_models + 1)
    log_choose = gammaln(n_models + 1) - gammaln(c + 1) - gammaln(n_models - c + 1)
    q = 1.0 - p[None, :]
    pmf = np.exp(log_choose[:, None] + xlogy(c[:, None], q) + xlog1py(n_models - c[:, None], -q))
    pc = pmf @ GRID_W  # P(C = c | Y = y): c correct votes = c votes for the true label
    # label-1 votes v: Y=1 gives v = c, Y=0 gives v = n - c
    p1, p0 = pc, pc[::-1]
    joint = 0.5 * np.stack([p0, p1])
    py_given_v = joint / joint.sum(0, keepdims=True)
    mi = 1.0 + float(np.nansum(joint * np.log2(np.where(py_given_v > 0, py_given_v, 1.0))))
    bayes_error = float(joint.min(0).sum())
    return mi, bayes_error


def binary_information_ceiling(eps: float, rho: float) -> float:
    """I(Y; F) in bits for K = 2 and infinitely many equicorrelated models (the bound every subset obeys)."""
    a, s = ndtri(eps), np.sqrt(1.0 - rho)
    t = (a - np.sqrt(rho) * GRID) / s
    posterior = expit(2.0 * a * s * t / rho)
    return 1.0 - float((_binary_entropy(posterior) * GRID_W).sum())


def fano_floor(information_bits: float) -> float:
    """Smallest error compatible with I(Y; X) for uniform binary Y: h^-1(1 - I) (bisection on h)."""
    target, lo, hi = 1.0 - information_bits, 0.0, 0.5
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _binary_entropy(np.array(mid)) < target else (lo, mid)
    return 0.5 * (lo + hi)


def _binary_entropy(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-300, 1.0)
    q = np.clip(1.0 - p, 1e-300, 1.0)
    return -(p * np.log2(p) + q * np.log2(q))
