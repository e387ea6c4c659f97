"""The carry-chain task (issue #60 item 5): a prompt whose length and character counts do not tell its difficulty, and
a reasoning trace several times longer than the direct answer.

A problem is two D-digit numbers, ``<pad...><filler>|a+b?``, both always D digits (leading zeros kept), so every prompt
has the same digits-part length. The answer is the top digit of (a + b) mod 10^D. Difficulty is the length of the carry
chain into the top column: level = 1 + L, where the L columns right below the top one each sum to 9 (they pass a carry
through without making one), so the top digit depends on the first column below them whose sum is not 9 (L = D - 1:
there is none, the carry in is 0). The direct route must resolve that chain in one pass; the think route writes, column
by column from the right, the column's digit and its carry out (2 D tokens), then ``=``, the answer and ``$``: 2 D + 3
tokens against 2 for the direct answer (7.5x at D = 6), every step local.

Why the input does not tell the level: a column summing to 9 is (d, 9 - d) with d uniform, so each of its digits is
uniform; the column just below the chain is drawn uniformly among pairs that do not sum to 9, whose digits are uniform
too. Every digit's expected count is the same at every level (2 D / 10), so a linear probe on character counts has
nothing to read on average (the surface-feature control measures what is left), and the filler's length is drawn
independently of the level.
"""

from __future__ import annotations

import numpy as np

BASE = 10
CHAIN_SUM = BASE - 1  # a column summing to 9 passes a carry through


def _column(rng: np.random.Generator, chain: bool) -> tuple[int, int]:
    """(a digit, b digit) of one column: summing to 9 when `chain`, else uniform among pairs that do not."""
    a = int(rng.integers(0, BASE))
    if chain:
        return a, CHAIN_SUM - a
    b = int(rng.integers(0, BASE - 1))
    return a, b + (b >= CHAIN_SUM - a)  # skip the one b that would make the sum 9


def digits(rng: np.random.Generator, level: int, width: int) -> np.ndarray:
    """(2, width) digits, most significant first, of a problem whose carry chain into the top column has level - 1
    columns; the columns below the chain's end are uniform."""
    chain = level - 1
    if not 0 <= chain <= width - 1:
        raise ValueError(f"level {level} outside 1..{width}")
    cols = np.empty((2, width), dtype=np.int64)
    cols[:, 0] = rng.integers(0, BASE, size=2)  # the top column
    for j in range(1, width):  # j columns below the top
        if j <= chain:
            cols[:, j] = _column(rng, True)
        elif j == chain + 1:
            cols[:, j] = _column(rng, False)
        else:
            cols[:, j] = rng.integers(0, BASE, size=2)
    return cols


def columns(terms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sum digit, carry out) of every column, least significant first."""
    a, b = terms[0][::-1], terms[1][::-1]
    out, carry = [], []
    c = 0
    for x, y in zip(a, b):
        total = int(x) + int(y) + c
        out.append(total % BASE)
        c = total // BASE
        carry.append(c)
    return np.array(out), np.array(carry)


def answer(terms: np.ndarray) -> int:
    return int(columns(terms)[0][-1])


def chain_length(terms: np.ndarray) -> int:
    """L: the number of columns right below the top one that sum to 9 (the level is L + 1)."""
    sums = terms[0] + terms[1]
    n = 0
    for s in sums[1:]:
        if s != CHAIN_SUM:
            break
        n += 1
    return n


def body(terms: np.ndarray) -> str:
    return "".join(map(str, terms[0])) + "+" + "".join(map(str, terms[1]))


def target(terms: np.ndarray, think: bool) -> str:
    """The completion after the route token: the scratchpad (digit, carry per column, right to left), '=', the answer,
    '$'; or the answer and '$' alone."""
    top = str(answer(terms))
    if not think:
        return top + "$"
    out, carry = columns(terms)
    return "".join(f"{o}{c}" for o, c in zip(out, carry)) + "=" + top + "$"


def completion_length(width: int) -> int:
    return 2 * width + 3


def prompt_length(width: int, filler_max: int) -> int:
    return filler_max + 1 + 2 * width + 1 + 1
