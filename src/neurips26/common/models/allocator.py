"""Keep freed memory in the process instead of handing it back to the kernel after every training step (glibc only).

A training step allocates and frees dozens of 0.1-5 MB activation and gradient buffers. glibc's defaults serve part of
them with fresh mmap()s and trim the heap's top back to the kernel once more than 2x the (dynamic) mmap threshold is
free, so the next step page-faults the same memory in again, zero-filled: in cytometry_encoder ~350,000 minor page
faults and ~10 % system time in 100 pretraining steps plus one task's embedding; in plant's main run of one seed
580,000-610,000 faults and 64-68 s, against 170,000-240,000 and 57-58 s with these settings (same output bytes;
both papers' READMEs). Training stages call it before they load anything. `keep_freed_memory`
raises the mmap threshold to glibc's maximum (32 MiB: every buffer of these models comes from the heap), stops trimming
below 1 GiB and grows the heap in 64 MiB steps. Only where memory comes from changes, never what is computed: a test
checks the training loop's results bit for bit with and without it.
"""

from __future__ import annotations

import ctypes
import ctypes.util

# mallopt(3) parameters (malloc.h)
M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3
SETTINGS = {M_MMAP_THRESHOLD: 32 * 2**20, M_TRIM_THRESHOLD: 2**30, M_TOP_PAD: 64 * 2**20}


def keep_freed_memory() -> bool:
    """Apply SETTINGS with mallopt; True if every call succeeded, False without glibc (macOS, musl: nothing changes)."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return all(mallopt(param, value) == 1 for param, value in SETTINGS.items())
