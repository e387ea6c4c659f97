"""The arithmetic task: exact answer checking, the scratchpad, and token accounting of both routes."""

import numpy as np
import torch
from omegaconf import OmegaConf

from neurips26.papers.rldp import carry
from neurips26.papers.rldp import data as D
from neurips26.papers.rldp import model as M


def test_problems_and_targets():
    rng = np.random.default_rng(0)
    p = D.sample_problems(rng, 200, 8, 8)
    assert {len(s) for s in p.prompts} == {D.prompt_length(8, 8)} and all(s.endswith("?") for s in p.prompts)
    for prompt, terms, answer, n in zip(p.prompts, p.terms, p.answers, p.steps):
        assert prompt.split("|")[1][:-1] == "".join(map(str, terms)) and len(terms) == n
        think = D.target(terms, True)
        assert D.parse_answer(think, True) == answer == sum(terms) % D.BASE
        assert D.parse_answer(D.target(terms, False), False) == answer
        assert len(think) == n + 3  # n running totals, '=', answer, '$'
        assert int(think[n - 1]) == answer  # the last running total is the answer
    assert (p.prompt_chars == np.array([len(s.lstrip(".")) for s in p.prompts])).all()


def test_exact_checking_rejects_malformed():
    assert D.parse_answer("7$", False) == 7
    for bad in ["7", "77$", "x$", "$", "7$$"]:
        assert D.parse_answer(bad, False) is None
    assert D.parse_answer("123=3$", True) == 3
    for bad in ["123=3", "=3$", "12=3=3$", "1a=3$", "123=33$"]:
        assert D.parse_answer(bad, True) is None


class _Scripted(torch.nn.Module):
    """A fake decoder that emits, after the route token, the completion `script(prompt, think)`: lets the generation
    loop's token accounting be checked exactly."""

    def __init__(self, script):
        super().__init__()
        self.script = script

    def forward(self, ids, cache=None, use_cache=True):
        from types import SimpleNamespace

        if cache is None:
            rows = [D.decode(r) for r in ids]
            cache = {"todo": [D.encode(self.script(r[:-1], r[-1] == "T")) for r in rows], "i": 0}
        logits = torch.zeros(ids.shape[0], 1, len(D.VOCAB))
        for b, todo in enumerate(cache["todo"]):
            logits[b, 0, todo[min(cache["i"], len(todo) - 1)]] = 1.0
        cache["i"] += 1
        return SimpleNamespace(logits=logits, cache=cache)


def _truth(prompt, think):
    return D.target(np.array([int(c) for c in prompt.split("|")[1][:-1]]), think)


def test_token_accounting_and_checking_of_both_routes():
    task = OmegaConf.create({"kind": "sum", "max_steps": 8, "filler_max": 8})
    p = D.sample_problems(np.random.default_rng(1), 50, task.max_steps, task.filler_max)
    perfect = _Scripted(_truth)
    for think in (True, False):
        correct, tokens, completions = M.solve(perfect, p, think, D.max_new(task))
        assert correct.all()
        assert (tokens == (p.steps + 3 if think else 2)).all()
    wrong = _Scripted(lambda prompt, think: str((int(_truth(prompt, think)[-2]) + 1) % D.BASE) + "$")
    correct, tokens, _ = M.solve(wrong, p, False, D.max_new(task))
    assert not correct.any() and (tokens == 2).all()
    never_ends = _Scripted(lambda prompt, think: "1111111111111")
    correct, tokens, _ = M.solve(never_ends, p, True, D.max_new(task))
    assert not correct.any() and (tokens == task.max_steps + 3).all()  # the cap is counted in full


CARRY = OmegaConf.create({"kind": "carry", "max_steps": 6, "filler_max": 6})


def _numbers(prompt: str) -> tuple[int, int]:
    a, b = prompt.split("|")[1][:-1].split("+")
    return int(a), int(b)


def test_carry_problems_answers_levels_and_traces():
    p = D.sample(np.random.default_rng(2), 600, CARRY)
    assert {len(s) for s in p.prompts} == {D.prompt_len(CARRY)} and set(p.steps) == set(range(1, 7))
    for prompt, terms, answer, level in zip(p.prompts, p.terms, p.answers, p.steps):
        a, b = _numbers(prompt)
        assert answer == (a + b) % 10**6 // 10**5  # the top digit of a + b mod 10^D
        assert carry.chain_length(terms) == level - 1
        # the chain: the level - 1 columns below the top sum to 9, the next one (if any) does not
        sums = terms[0] + terms[1]
        assert (sums[1:level] == 9).all() and (level == 6 or sums[level] != 9)
        think = D.completion(terms, True, CARRY)
        assert len(think) == D.max_new(CARRY) == 15 and len(D.completion(terms, False, CARRY)) == 2
        assert D.parse_answer(think, True) == answer and int(think[:12:2][::-1], 10) == (a + b) % 10**6


def test_carry_levels_are_not_in_the_prompts_length_or_digit_counts():
    """Every digit's mean count is the same at every level (within sampling error), the prompt length too: the
    input's surface does not tell the level (a level-dependent generator would fail this)."""
    p = D.sample(np.random.default_rng(3), 12000, CARRY)
    digits = p.char_counts[:, [D.INDEX[str(d)] for d in range(10)]]
    means = np.array([digits[p.steps == v].mean(0) for v in range(1, 7)])
    assert np.abs(means - 1.2).max() < 0.1  # 2 D / 10 digits of each kind per prompt
    lengths = np.array([p.prompt_chars[p.steps == v].mean() for v in range(1, 7)])
    assert np.ptp(lengths) < 0.15


def test_carry_token_accounting():
    p = D.sample(np.random.default_rng(4), 40, CARRY)
    truth = {prompt: t for prompt, t in zip(p.prompts, p.terms)}
    perfect = _Scripted(lambda prompt, think: D.completion(truth[prompt], think, CARRY))
    for think, cost in ((True, 15), (False, 2)):
        correct, tokens, _ = M.solve(perfect, p, think, D.max_new(CARRY))
        assert correct.all() and (tokens == cost).all()
