"""Translation metrics as DocPTBench's own `code/translation/evaluate_metric/evaluate.py` computes them, on one page's
Markdown (headings as `# ` lines, one line per paragraph): sentence BLEU (sacrebleu.sentence_bleu: 13a, exp smoothing,
effective order, 0 when nothing matches) on the whitespace-tokenised lines, chrF (sacrebleu CHRF().sentence_score) on
the whole text, METEOR (nltk, x 100) only where nltk's WordNet data is present, and STEDS on the official tree
ROOT -> TITLE, with each `#` heading a child of ROOT and each other line a child of the last heading (TITLE before the
first), compared by zss with the official label distance: 1 when either label is empty, else 0 (structure, not text).
Every score is per page, 0-100; the tables average pages (the official script averages documents)."""

from __future__ import annotations

import re
from functools import cache

import sacrebleu
import zss
from sacrebleu.metrics import CHRF


def markdown(blocks: list[tuple[str, str]]) -> str:
    """One page as the benchmark's Markdown: a heading is a `# ` line, every other block one line."""
    return "\n".join(("# " if kind == "heading" else "") + " ".join(text.split()) for kind, text in blocks)


def remove_links(text: str) -> str:
    """evaluate.py's remove_markdown_links_and_images, regexes as written there (its `[.*?]` is a character class)."""
    text = re.sub(r"!?[.*?]\(.*?\)", "", text)
    text = re.sub(r"!?[.*?][.*?]", "", text)
    return re.sub(r"^\s*[.+?]:.*$", "", text, flags=re.MULTILINE)


def pre_clean(text: str) -> str:
    """evaluate.py's pre_clean (special tokens, spacing around TeX and Markdown marks; newlines to spaces)."""
    for pattern, repl in (
        (r"<bos>|<eos>|<pad>|<unk>", ""),
        (r"\s##(\S)", r"\1"),
        (r"\\\s", r"\\"),
        (r"\s\*\s\*\s", r"**"),
        (r"{\s", r"{"),
        (r"\s}", r"}"),
        (r"\\begin\s", r"\\begin"),
        (r"\\end\s", r"\\end"),
        (r"\\end{table}", r"\\end{table} \n\n"),
    ):
        text = re.sub(pattern, repl, text)
    return text.replace("\n", " ")


def token_text(md: str) -> str:
    """The BLEU / METEOR text: non-empty cleaned lines, whitespace-tokenised, joined by ' \\n\\n ', pre-cleaned
    (evaluate.py get_tokenized_text + metric_post_process, non-Chinese)."""
    lines = [" ".join(remove_links(line).split()) for line in md.splitlines()]
    return pre_clean(" \n\n ".join(line for line in lines if line))


def char_text(md: str) -> str:
    """The chrF text: the whole page, links removed, pre-cleaned."""
    return pre_clean(remove_links(md))


def bleu(hyp_md: str, ref_md: str) -> float:
    return float(sacrebleu.sentence_bleu(token_text(hyp_md), [token_text(ref_md)]).score)


def chrf(hyp_md: str, ref_md: str) -> float:
    return float(CHRF().sentence_score(char_text(hyp_md), [char_text(ref_md)]).score)


@cache
def _meteor_function():
    """nltk's meteor_score when nltk and its WordNet data are installed, else None (METEOR reported missing)."""
    try:
        import nltk
        from nltk.translate.meteor_score import meteor_score

        nltk.data.find("corpora/wordnet")
    except (ImportError, LookupError):
        return None
    return meteor_score


def meteor_available() -> bool:
    return _meteor_function() is not None


def meteor(hyp_md: str, ref_md: str) -> float | None:
    """METEOR x 100 as evaluate.py; None when WordNet is missing or a side has no token (the official script skips
    such a page)."""
    function = _meteor_function()
    hyp, ref = token_text(hyp_md).split(), token_text(ref_md).split()
    if function is None or not hyp or not ref:
        return None
    return 100.0 * float(function([ref], hyp))


def steds_tree(md: str) -> zss.Node:
    """evaluate.py get_tree: ROOT -> TITLE; `#` lines (marks removed) under ROOT; other lines under the last heading
    (looked up by label, as the official code does), or under TITLE before any heading."""
    tree = zss.Node("ROOT").addkid(zss.Node("TITLE"))
    last_title = ""
    for raw in md.splitlines():
        line = pre_clean(remove_links(raw)).strip()
        if not line:
            continue
        if line.startswith("#"):
            line = line.replace("#", "")
            tree.get("ROOT").addkid(zss.Node(line))
            last_title = line
        else:
            tree.get("TITLE" if last_title == "" else last_title).addkid(zss.Node(line))
    return tree


def label_distance(pred: str, ref: str) -> int:
    """The official STEDS label distance: 1 when either label is empty (insertions and deletions cost 1), else 0."""
    return 1 if len(pred.split()) == 0 or len(ref.split()) == 0 else 0


def steds(hyp_md: str, ref_md: str) -> float:
    """STEDS x 100 = 100 (1 - TED / max node count) on the official trees."""
    pred, ref = steds_tree(hyp_md), steds_tree(ref_md)
    nodes = max(len(list(pred.iter())), len(list(ref.iter())))
    return 100.0 * (1.0 - zss.simple_distance(pred, ref, label_dist=label_distance) / nodes)
