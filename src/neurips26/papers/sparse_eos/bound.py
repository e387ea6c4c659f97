"""The stability-based generalization bound, OUR READING (the paper's theorems could not be read: README, JOURNAL).

The project's search tool holds only the abstracts and openings of arXiv 2603.04807 (v1, v2) and its predecessors
2506.20779 and 2510.18120; no theorem statement. What those openings state, and what we build from it:

1. Stability constraint (the predecessors' mechanism, reconstructed in measures.py and checked numerically in the
   tests): a GD solution with top Hessian eigenvalue <= 2/eta has a data-weighted path norm
       WPN <= B = 1/eta - 1/2 + (R + 1) sqrt(2 L)          (L = training loss, R = largest norm of the points seen).
2. Patch-geometry term: the points the neurons see -- the inputs (fc), each position's patches P_j x (lc), the patch
   multiset (conv) -- enter through their effective dimension k, the participation ratio of their covariance
   (k = d for the uniform sphere in R^d, k = r for its r-coordinate patches, k << r^2 for natural image patches).
3. Rate: the predecessors state rates that deteriorate with the dimension of the data the neurons see, and v1 states
   n^(-1/6 + O(m/d)) for receptive field m << d; we take the rate n^(-1/(2k + 4)) (our recollection of the
   predecessor's rate on a k-dimensional ball; it gives v1's 1/6 at k = 1). NOT verified against the text.

   bound = C * B * n^(-1 / (2 k + 4)),  C = 1  (the paper's constant is unknown to us: set to 1 and labelled)

   For lc the net is a sum over positions whose path norms share the budget B, so the bound takes the worst position
   (largest k); for conv the one shared patch multiset; for fc the inputs. The bound is "vacuous" when it is at least
   the trivial risk Var(y) (the training targets' variance). Everything that depends on C (vacuity) can make a claim
   inconclusive but never decides it; comparisons of two bounds (ratios, trends) do not depend on C.
"""

from __future__ import annotations

import numpy as np

from neurips26.papers.sparse_eos.measures import participation_ratio, stability_budget

CONSTANT = 1.0  # the paper's implicit constant C: unknown, set to 1 (labelled in the README and in every claim)


def rate(k: float) -> float:
    """The exponent 1 / (2k + 4) of n in the bound (our reading)."""
    return 1.0 / (2.0 * float(k) + 4.0)


def effective_dimension(point_sets: dict[int, np.ndarray]) -> float:
    """The largest participation ratio over the point sets the neurons see (one set for fc and conv, one per lc
    position): the worst position governs the sum over positions."""
    return max(participation_ratio(p) for p in point_sets.values())


def stability_bound(eta: float, train_loss: float, radius: float, n: int, k: float, constant: float = CONSTANT) -> float:
    """C * B(eta, L, R) * n^(-1/(2k+4)) with B the stability budget (train_loss is L = 1/(2n) sum residual^2)."""
    return float(constant * stability_budget(eta, train_loss, radius) * float(n) ** (-rate(k)))
