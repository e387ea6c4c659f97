"""Parsing metrics as OmniDocBench v1_0 defines them: normalised edit distance, tree edit distance (Zhang-Shasha, written
out here with NumPy; its equality with the `zss` package on fixed trees is a unit test), TEDS and the reading-order
edit. The translation metrics (BLEU, chrF, METEOR, STEDS) follow DocPTBench's evaluate.py in translation_metrics.py."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np


def levenshtein(a, b) -> int:
    """Edit distance (insert, delete, substitute: cost 1) between two sequences; one NumPy row per element of `a`:
    D[i, j] = min(A[j], D[i, j-1] + 1) with A the deletion/substitution candidates, solved as j + cummin(A[k] - k)."""
    a, b = list(a), list(b)
    if not a or not b:
        return max(len(a), len(b))
    codes = {s: i for i, s in enumerate(set(a) | set(b))}
    bb = np.array([codes[s] for s in b])
    index = np.arange(len(b) + 1)
    row = index.copy()
    for i, s in enumerate(a, start=1):
        candidates = np.empty(len(b) + 1, dtype=np.int64)
        candidates[0] = i
        candidates[1:] = np.minimum(row[1:] + 1, row[:-1] + (bb != codes[s]))
        row = np.minimum.accumulate(candidates - index) + index
    return int(row[-1])


def normalised_edit(pred, gold) -> float:
    """Levenshtein / max length (0 = identical, 1 = nothing in common); two empty sequences score 0."""
    longest = max(len(pred), len(gold))
    return levenshtein(pred, gold) / longest if longest else 0.0


def clean_text(text: str) -> str:
    """Whitespace collapsed (OmniDocBench compares text with its whitespace normalised)."""
    return re.sub(r"\s+", " ", text).strip()


@dataclass
class Node:
    label: str
    children: list[Node] = field(default_factory=list)

    def size(self) -> int:
        return 1 + sum(c.size() for c in self.children)


def _postorder(root: Node):
    nodes, leftmost = [], []

    def walk(node):
        first = None
        for child in node.children:
            lm = walk(child)
            first = lm if first is None else first
        nodes.append(node)
        leftmost.append(len(nodes) - 1 if first is None else first)
        return leftmost[-1]

    walk(root)
    return nodes, leftmost


def tree_edit_distance(t1: Node, t2: Node, rename=None) -> float:
    """Zhang-Shasha ordered tree edit distance: insert and delete cost 1, rename costs rename(a, b) (default 0/1)."""
    rename = rename or (lambda x, y: 0.0 if x.label == y.label else 1.0)
    n1, l1 = _postorder(t1)
    n2, l2 = _postorder(t2)
    keyroots1 = [i for i in range(len(n1)) if all(l1[j] != l1[i] for j in range(i + 1, len(n1)))]
    keyroots2 = [j for j in range(len(n2)) if all(l2[k] != l2[j] for k in range(j + 1, len(n2)))]
    td = np.zeros((len(n1), len(n2)))
    for i in keyroots1:
        for j in keyroots2:
            li, lj = l1[i], l2[j]
            fd = np.zeros((i - li + 2, j - lj + 2))
            fd[1:, 0] = np.arange(1, i - li + 2)
            fd[0, 1:] = np.arange(1, j - lj + 2)
            for x in range(li, i + 1):
                for y in range(lj, j + 1):
                    dx, dy = x - li + 1, y - lj + 1
                    if l1[x] == li and l2[y] == lj:
                        fd[dx, dy] = min(fd[dx - 1, dy] + 1, fd[dx, dy - 1] + 1,
                                         fd[dx - 1, dy - 1] + rename(n1[x], n2[y]))
                        td[x, y] = fd[dx, dy]
                    else:
                        fd[dx, dy] = min(fd[dx - 1, dy] + 1, fd[dx, dy - 1] + 1,
                                         fd[l1[x] - li, l2[y] - lj] + td[x, y])
    return float(td[-1, -1])


def table_tree(rows: list[list[str]]) -> Node:
    """The HTML tree TEDS compares: table -> tr -> td(text). (The gold tables have no spans.)"""
    return Node("table", [Node("tr", [Node("td:" + clean_text(c)) for c in row]) for row in rows])


def _cell_rename(a: Node, b: Node) -> float:
    """TEDS rename cost: different tags cost 1; two cells cost the normalised edit distance of their text."""
    if a.label.startswith("td:") and b.label.startswith("td:"):
        return normalised_edit(a.label[3:], b.label[3:])
    return 0.0 if a.label == b.label else 1.0


def teds(pred_rows: list[list[str]] | None, gold_rows: list[list[str]]) -> float:
    """TEDS = 1 - TED(pred, gold) / max(|pred|, |gold|) (Zhong et al. 2020); no predicted table scores 0."""
    if not pred_rows:
        return 0.0
    p, g = table_tree(pred_rows), table_tree(gold_rows)
    return 1.0 - tree_edit_distance(p, g, _cell_rename) / max(p.size(), g.size())


def table_html(rows: list[list[str]] | None) -> str:
    return "" if not rows else "<table>" + "".join(
        "<tr>" + "".join(f"<td>{clean_text(c)}</td>" for c in row) + "</tr>" for row in rows) + "</table>"


def reading_order_edit(pred_order: list[int], n_gold: int) -> float:
    """OmniDocBench's reading-order edit: the gold block indices in the order the parser emitted the blocks it matched,
    against 0..n-1 (missed blocks count as deletions)."""
    return normalised_edit(pred_order, list(range(n_gold)))
