"""Generated multi-step arithmetic of graded difficulty, as fixed-length character sequences, and the MMLU mathematics
questions (three grade levels) for the bundled SmolLM2.

A problem is a chain of n digits, answered by their sum mod 10: ``3917`` -> 0. Difficulty = n (steps). Each scratchpad
step (one digit added mod 10 to the running total) is local, so the think route learns every level; the no-think route
must add n digits mod 10 in one pass, which the small model learns only for n <= 2 (JOURNAL.md: pilot). (An earlier
version used bits and parity; the model learned parity of up to 6-10 bits in one pass, which left too little
difficulty spread. Digits mod 10 stalled in an early pilot with random filler letters and a fast curriculum; a slower
curriculum, ramp 100, grokks it after ~1000 steps.) The
prompt is ``<pad...><filler>|<terms>?``: the filler (0..filler_max '_' characters) stands for the verbosity of a word
problem, so prompt length is only a partial proxy of difficulty (random filler letters made the small model stall on a
plateau in the pilot; a constant filler character does not). Prompts are left-padded to one
length, so the '?' always sits at the same position (the model's learned positions then index terms from the right).
After the prompt comes the route token, forced by the router and not counted: ``N`` (no think: the answer digit, ``$``)
or ``T`` (think: the running sum mod 10 after each term, read right to left, then ``=``, the answer digit, ``$``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from neurips26.papers.rldp import carry

VOCAB = list("._|0123456789?TN=$+")
INDEX = {c: i for i, c in enumerate(VOCAB)}
PAD, EOS, THINK, NO_THINK = INDEX["."], INDEX["$"], INDEX["T"], INDEX["N"]
BASE = 10  # terms are digits; the answer is their sum mod BASE (parity, BASE 2, left too little difficulty spread)


@dataclass
class Problems:
    prompts: list[str]        # fixed length, left-padded with '.'
    steps: np.ndarray         # difficulty: the number of terms
    terms: list[np.ndarray]   # digits, in prompt order
    answers: np.ndarray       # sum mod BASE

    @property
    def prompt_chars(self) -> np.ndarray:
        """Prompt length without the padding (filler + terms): the prompt-length baseline."""
        return np.array([len(p.lstrip(".")) for p in self.prompts])

    def __len__(self) -> int:
        return len(self.prompts)

    @property
    def char_counts(self) -> np.ndarray:
        """(n, vocabulary) counts of each character in the prompt without the padding: the input's surface features,
        what a probe reads without looking inside the model (the surface-feature negative control)."""
        counts = np.zeros((len(self.prompts), len(VOCAB)))
        for row, p in enumerate(self.prompts):
            for c in p.lstrip("."):
                counts[row, INDEX[c]] += 1
        return counts


def prompt_length(max_steps: int, filler_max: int) -> int:
    return filler_max + 1 + max_steps + 1


def make_problems(rng: np.random.Generator, steps: np.ndarray, max_steps: int, filler_max: int) -> Problems:
    length = prompt_length(max_steps, filler_max)
    prompts, terms = [], []
    for n in steps:
        t = rng.integers(0, BASE, size=int(n))
        filler = "_" * int(rng.integers(0, filler_max + 1))
        body = filler + "|" + "".join(str(v) for v in t) + "?"
        prompts.append(body.rjust(length, "."))
        terms.append(t)
    return Problems(prompts, np.asarray(steps, dtype=np.int64), terms, np.array([t.sum() % BASE for t in terms]))


def sample_problems(rng: np.random.Generator, n: int, max_steps: int, filler_max: int, min_steps: int = 1) -> Problems:
    return make_problems(rng, rng.integers(min_steps, max_steps + 1, size=n), max_steps, filler_max)


def target(terms: np.ndarray, think: bool) -> str:
    """The completion after the route token: what a correct model generates (the scratchpad reads terms right to left)."""
    answer = str(int(terms.sum() % BASE))
    if not think:
        return answer + "$"
    partial = np.cumsum(terms[::-1]) % BASE
    return "".join(str(int(p)) for p in partial) + "=" + answer + "$"


def parse_answer(completion: str, think: bool) -> int | None:
    """The answer digit of a generated completion, or None when it is malformed (exact checking: the format must hold)."""
    if not completion.endswith("$"):
        return None
    body = completion[:-1]
    if think:
        if body.count("=") != 1:
            return None
        scratch, body = body.split("=")
        if not scratch.isdigit():
            return None
    return int(body) if len(body) == 1 and body.isdigit() else None


# The task a run uses (`task.kind`): "carry" (carry.py, the default since issue #60 item 5) or "sum" (the digit sum
# above, whose difficulty is the prompt's digit count). The functions below are what the model and experiments call.


def kind(task) -> str:
    return str(task.get("kind", "sum"))


def make(rng: np.random.Generator, steps, task) -> Problems:
    """Problems of the given difficulty levels (1..task.max_steps) of the run's task."""
    if kind(task) == "sum":
        return make_problems(rng, steps, task.max_steps, task.filler_max)
    width, length = task.max_steps, carry.prompt_length(task.max_steps, task.filler_max)
    prompts, terms = [], []
    for level in steps:
        t = carry.digits(rng, int(level), width)
        filler = "_" * int(rng.integers(0, task.filler_max + 1))
        prompts.append((filler + "|" + carry.body(t) + "?").rjust(length, "."))
        terms.append(t)
    return Problems(prompts, np.asarray(steps, dtype=np.int64), terms,
                    np.array([carry.answer(t) for t in terms], dtype=np.int64))


def sample(rng: np.random.Generator, n: int, task, min_steps: int = 1) -> Problems:
    return make(rng, rng.integers(min_steps, task.max_steps + 1, size=n), task)


def completion(terms: np.ndarray, think: bool, task) -> str:
    """What a correct model generates after the route token."""
    return target(terms, think) if kind(task) == "sum" else carry.target(terms, think)


def max_new(task) -> int:
    """The generation cap: the longest correct completion (a longer one is cut there and counted in full)."""
    return task.max_steps + 3 if kind(task) == "sum" else carry.completion_length(task.max_steps)


def prompt_len(task) -> int:
    if kind(task) == "sum":
        return prompt_length(task.max_steps, task.filler_max)
    return carry.prompt_length(task.max_steps, task.filler_max)


def encode(text: str) -> list[int]:
    return [INDEX[c] for c in text]


def decode(ids) -> str:
    return "".join(VOCAB[int(i)] for i in ids)
