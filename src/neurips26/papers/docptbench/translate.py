"""Offline machine translation with Apertium (Debian `apertium` + `apertium-eng-spa`): English <-> Spanish. Many texts
go through one apertium process (a process start loads the transducers, ~0.3 s), separated by marker paragraphs."""

from __future__ import annotations

import re
import subprocess

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.docptbench.parsers import require_tool

PAIRS = {"eng-spa", "spa-eng"}
_MARKER = "9999{:05d}"


def translate(texts: list[str], pair: str) -> list[str]:
    """Translate each text (unknown words kept without Apertium's '*' mark: -u). Empty texts stay empty."""
    if pair not in PAIRS:
        raise UserError(f"unknown apertium pair {pair!r}; known: {sorted(PAIRS)}")
    if not texts:
        return []
    apertium = require_tool("apertium", "apertium")
    body = "\n\n".join(f"{_MARKER.format(i)}\n\n{_flat(t)}" for i, t in enumerate(texts)) + "\n"
    proc = subprocess.run([apertium, "-u", pair], input=body, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0 or "does not exist" in proc.stderr + proc.stdout[:200]:
        raise UserError(f"apertium could not translate with the pair {pair} (is the Debian package apertium-eng-spa "
                        f"installed? `apt-get install apertium-eng-spa`): {(proc.stderr or proc.stdout)[:300]}")
    parts = re.split(r"^\s*9999(\d{5})\s*$", proc.stdout, flags=re.MULTILINE)
    found = {int(parts[k]): parts[k + 1].strip() for k in range(1, len(parts) - 1, 2)}
    if sorted(found) != list(range(len(texts))):
        raise UserError(f"apertium {pair} output lost its segment markers ({len(found)} of {len(texts)} found)")
    return [re.sub(r"\s+", " ", found[i]) for i in range(len(texts))]


def _flat(text: str) -> str:
    """One paragraph per text (newlines inside a text would split apertium's segments)."""
    return re.sub(r"\s+", " ", text).strip() or "."
