"""The DCI protocol's joint allocation: class totals and domain totals are fixed; only the class x domain joint moves.

The kernel M[c, d] = exp(gamma * cos(2 pi (c - d K / D) / K)) puts the mass of domain d on the classes near d K / D;
Sinkhorn scaling projects it onto the fixed marginals (row sums = class totals, column sums = domain totals), and a
controlled rounding turns the real plan into integer cell counts whose row and column sums are EXACTLY the marginals.
gamma = 0 gives the product (balanced) allocation; larger gamma a more skewed joint at the same marginals.

A minimum cell size m keeps the rarest cells learnable: every cell first gets m samples (a product allocation, so the
marginals of the rest stay balanced), and the rest, N - K D m, is allocated by the same Sinkhorn projection; the
integer marginals stay exact and the rest keeps the kernel's cross ratios.
"""

from __future__ import annotations

import numpy as np


def kernel(n_classes: int, n_domains: int, gamma: float) -> np.ndarray:
    c = np.arange(n_classes)[:, None]
    d = np.arange(n_domains)[None, :]
    return np.exp(gamma * np.cos(2 * np.pi * (c - d * n_classes / n_domains) / n_classes))


def sinkhorn(kernel_matrix: np.ndarray, rows: np.ndarray, cols: np.ndarray, tol: float = 1e-10,
             max_iter: int = 10_000) -> np.ndarray:
    """diag(u) K diag(v) with row sums `rows` and column sums `cols` (which must have the same total)."""
    rows, cols = np.asarray(rows, float), np.asarray(cols, float)
    if not np.isclose(rows.sum(), cols.sum()):
        raise ValueError(f"marginals differ in total: {rows.sum()} vs {cols.sum()}")
    if np.any(kernel_matrix <= 0):
        raise ValueError("the Sinkhorn kernel must be strictly positive")
    u, v = np.ones(len(rows)), np.ones(len(cols))
    for _ in range(max_iter):
        u = rows / (kernel_matrix @ v)
        v = cols / (kernel_matrix.T @ u)
        plan = u[:, None] * kernel_matrix * v[None, :]
        if np.abs(plan.sum(1) - rows).max() < tol * rows.sum():
            return plan
    raise RuntimeError("Sinkhorn did not converge")


def round_plan(plan: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Integer counts with row sums `rows` and column sums `cols` exactly: floor the plan, then hand the missing units
    one at a time to the cell with the largest remaining fractional part whose row and column both still lack units."""
    rows, cols = np.asarray(rows, int), np.asarray(cols, int)
    counts = np.floor(plan).astype(int)
    frac = plan - counts
    row_need, col_need = rows - counts.sum(1), cols - counts.sum(0)
    while row_need.sum() > 0:
        open_cells = (row_need[:, None] > 0) & (col_need[None, :] > 0)
        score = np.where(open_cells, frac, -np.inf)
        i, j = np.unravel_index(np.argmax(score), score.shape)
        counts[i, j] += 1
        frac[i, j] -= 1.0
        row_need[i] -= 1
        col_need[j] -= 1
    return counts


def dci_allocation(n_total: int, n_classes: int, n_domains: int, gamma: float, min_cell: int = 0) -> np.ndarray:
    """Cell counts [class, domain] for n_total samples, balanced class and domain marginals (n_total must divide by
    both), joint skewed by gamma, every cell at least `min_cell`."""
    if n_total % n_classes or n_total % n_domains:
        raise ValueError(f"n_total={n_total} must be a multiple of {n_classes} classes and {n_domains} domains")
    if min_cell < 0 or min_cell * n_classes * n_domains > n_total:
        raise ValueError(f"min_cell={min_cell}: {n_classes * n_domains} cells of that size exceed n_total={n_total}")
    rows = np.full(n_classes, n_total // n_classes - n_domains * min_cell)
    cols = np.full(n_domains, n_total // n_domains - n_classes * min_cell)
    if rows.sum() == 0:
        return np.full((n_classes, n_domains), min_cell)
    plan = sinkhorn(kernel(n_classes, n_domains, gamma), rows, cols)
    return min_cell + round_plan(plan, rows, cols)
