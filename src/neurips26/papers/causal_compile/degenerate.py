"""Degenerate compilers, the negative controls of every claim: each keeps the extraction and the standard errors of
the real compiler and breaks the canonical values in one way. A claim whose test still holds for one of them does not
tell a good compiler from a bad one. (The third degenerate compiler, no conversion, is baselines.naive_kernels.)"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from neurips26.papers.causal_compile.method import Kernel


def sign_flipped(kernels: list[Kernel]) -> list[Kernel]:
    """Every canonical value with the wrong sign (a contrast-direction bug)."""
    return [replace(k, value=-k.value, method="flipped") for k in kernels]


def constant(kernels: list[Kernel]) -> list[Kernel]:
    """Every canonical value replaced by the corpus mean of the compiled values (a compiler that reads nothing)."""
    mean = float(np.mean([k.value for k in kernels])) if kernels else 0.0
    return [replace(k, value=mean, method="constant") for k in kernels]


DEGENERATE = {"flipped": sign_flipped, "constant": constant}
