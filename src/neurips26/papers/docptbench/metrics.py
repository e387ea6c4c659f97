"""Parsing and translation metrics, as OmniDocBench v1_0 and DocPTBench's evaluate.py define them, written out here
(no apted / zss / sacrebleu in the project): normalised edit distance, tree edit distance (Zhang-Shasha), TEDS,
reading-order edit, document-level sentence BLEU (sacrebleu's defaults: 4-grams, exponential smoothing, 13a-like
tokenisation), chrF (sacrebleu's chrF2: character 6-grams, beta 2) and STEDS."""

from __future__ import annotations

import math
import re
from collections import Counter
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


# Translation -------------------------------------------------------------------------------------------------------

def tokenize_13a(text: str) -> list[str]:
    """sacrebleu's 13a tokeniser, reduced to its punctuation splitting (text is already plain: no SGML entities)."""
    text = f" {text} "
    text = re.sub(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])", r" \1 ", text)
    text = re.sub(r"([^0-9])([\.,])", r"\1 \2 ", text)
    text = re.sub(r"([\.,])([^0-9])", r" \1 \2", text)
    text = re.sub(r"([0-9])(-)", r"\1 \2 ", text)
    return text.split()


def _ngrams(tokens, n: int) -> Counter:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def sentence_bleu(hyp: str, ref: str, max_n: int = 4) -> float:
    """BLEU in 0-100 for one hypothesis and one reference, sacrebleu's sentence_bleu defaults ('exp' smoothing:
    the k-th zero n-gram precision counts as 1 / 2^k)."""
    h, r = tokenize_13a(hyp), tokenize_13a(ref)
    if not h or not r:
        return 0.0
    log_precision, smooth = 0.0, 1.0
    for n in range(1, max_n + 1):
        hc, rc = _ngrams(h, n), _ngrams(r, n)
        total = max(sum(hc.values()), 0)
        match = sum(min(c, rc[g]) for g, c in hc.items())
        if total == 0:
            # sacrebleu's effective order: orders longer than the hypothesis are left out of the mean
            return 0.0 if n == 1 else 100.0 * math.exp(log_precision / (n - 1)) * _brevity(len(h), len(r))
        if match == 0:
            smooth *= 2.0
            log_precision += math.log(1.0 / (smooth * total))
        else:
            log_precision += math.log(match / total)
    return 100.0 * math.exp(log_precision / max_n) * _brevity(len(h), len(r))


def _brevity(h: int, r: int) -> float:
    return 1.0 if h >= r else math.exp(1.0 - r / h)


def chrf(hyp: str, ref: str, order: int = 6, beta: float = 2.0) -> float:
    """chrF in 0-100 (Popovic 2015; sacrebleu's chrF2: whitespace removed, n = 1..6 averaged, then F-beta)."""
    h, r = re.sub(r"\s+", "", hyp), re.sub(r"\s+", "", ref)
    precisions, recalls = [], []
    for n in range(1, order + 1):
        hc, rc = _ngrams(h, n), _ngrams(r, n)
        if not hc or not rc:
            continue
        match = sum(min(c, rc[g]) for g, c in hc.items())
        precisions.append(match / sum(hc.values()))
        recalls.append(match / sum(rc.values()))
    if not precisions:
        return 0.0
    p, rec = float(np.mean(precisions)), float(np.mean(recalls))
    if p + rec == 0:
        return 0.0
    return 100.0 * (1 + beta**2) * p * rec / (beta**2 * p + rec)


def document_tree(blocks: list[tuple[str, str]]) -> Node:
    """DocPTBench's STEDS tree: document -> heading -> its paragraphs (paragraphs before any heading hang from the
    root). blocks = (kind, text) with kind 'heading' or anything else."""
    root, current = Node("doc"), None
    for kind, text in blocks:
        node = Node(clean_text(text))
        if kind == "heading":
            root.children.append(node)
            current = node
        else:
            (current or root).children.append(node)
    return root


def _text_rename(a: Node, b: Node) -> float:
    return normalised_edit(a.label, b.label)


def steds(pred_blocks: list[tuple[str, str]], gold_blocks: list[tuple[str, str]]) -> float:
    """STEDS = 1 - TED / max(node counts) on the heading -> paragraph trees; a node's rename cost is the normalised
    edit distance of its text (our choice: 0/1 string equality would score every OCR'd paragraph as wrong)."""
    p, g = document_tree(pred_blocks), document_tree(gold_blocks)
    return 1.0 - tree_edit_distance(p, g, _text_rename) / max(p.size(), g.size())
