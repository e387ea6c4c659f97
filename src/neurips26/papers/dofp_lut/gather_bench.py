"""The gather micro-benchmark of the roofline (roofline.gather_rates): random float32 loads from a table, in parallel
chunks like the kernel's tiles. Its own module so that importing the roofline does not compile it."""

from __future__ import annotations

# numba through kernel.py, which sets Numba's cache directory (outside the repository) before importing it
from neurips26.papers.dofp_lut.kernel import njit, prange


@njit(parallel=True, cache=True, nogil=True)
def gather_sum(table, index, chunks):
    """Sum of table[index[i]] over i (the sum keeps the loads live); `chunks` parallel runs of the index array."""
    n = index.size
    total = 0.0
    for c in prange(chunks):
        s = 0.0
        for i in range(c * n // chunks, (c + 1) * n // chunks):
            s += table[index[i]]
        total += s
    return total
