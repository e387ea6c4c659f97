"""The paper's experiments, per run seed: train the small decoder (its seed derived from the run seed), then both routes
really generated and checked on a test set, difficulty scores of RLDP and its baselines, rollouts; and RLDP on the
bundled SmolLM2 (its question pool drawn from the run seed)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from scipy.stats import spearmanr

from neurips26.common.pipeline.seed_streams import derived_seed
from neurips26.common.pipeline.seed_streams import rng as seed_stream
from neurips26.papers.rldp import baselines, method
from neurips26.papers.rldp import data as D
from neurips26.papers.rldp import model as M


def model_seed(seed: int) -> int:
    """The decoder's training seed (torch init, batches, validation set) of the run with this seed."""
    return derived_seed(seed, "model")


def train(cfg, seed: int) -> tuple[dict, pd.DataFrame]:
    """(state dict, training history) of the decoder of the run with this seed (trained with model_seed(seed))."""
    net, history = M.train(cfg.model, cfg.task, model_seed(seed), log=lambda s: print(s, flush=True))
    return net.state_dict(), pd.DataFrame(history)


def load(cfg, path: Path):
    net = M.build(cfg.model, M.n_positions(cfg.task))
    net.load_state_dict(torch.load(path, weights_only=True))
    return net.eval()


def _spearman(a, b) -> float:
    return float(spearmanr(a, b).statistic) if np.std(a) > 0 and np.std(b) > 0 else float("nan")


def _references(rng, task, steps: list[int], k: int) -> D.Problems:
    return D.make(rng, rng.choice(list(steps), size=k), task)


def truth_score(levels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The positive control's router: the true difficulty level, ties broken at random within a level."""
    return np.asarray(levels, dtype=float) + 0.5 * rng.random(len(levels))


def _rollouts(net, problems: D.Problems, task, ev, generator) -> tuple[dict, float]:
    """k sampled no-think answers per query for every k of `ev.rollouts` (the first k of max(k) draws): per k the
    agreement score, the majority answer's correctness and the tokens spent; and the seconds of all max(k) draws."""
    answers, tokens = [], []
    start = time.perf_counter()
    for _ in range(max(ev.rollouts)):
        completions, used = M.generate(net, problems.prompts, False, D.max_new(task), temperature=ev.temperature,
                                       generator=generator)
        answers.append([-1 if (a := D.parse_answer(c, False)) is None else a for c in completions])
        tokens.append(used)
    seconds = time.perf_counter() - start
    answers, tokens = np.array(answers).T, np.array(tokens).T
    out = {}
    for k in ev.rollouts:
        score, majority = baselines.rollout_agreement(answers[:, :k])
        out |= {f"score_rollout_k{k}": score, f"rollout_tokens_k{k}": tokens[:, :k].sum(1),
                f"rollout_majority_correct_k{k}": majority == problems.answers}
    return out, seconds


def _split_rows(cfg, seed: int, net, problems: D.Problems, split: str, scorers: dict, generator, timing: dict):
    """The rows of one split (validation or test): both routes generated and checked, every router's score."""
    task, ev = cfg.task, cfg.eval
    start = time.perf_counter()
    states = M.hidden_states(net, problems.prompts)
    timing.setdefault("rldp_forward", []).append((time.perf_counter() - start, len(problems)))
    routes = {}
    for name, think in (("think", True), ("nothink", False)):
        start = time.perf_counter()
        routes[name] = M.solve(net, problems, think, D.max_new(task))
        timing.setdefault(name, []).append((time.perf_counter() - start, len(problems)))
    rollouts, seconds = _rollouts(net, problems, task, ev, generator)
    timing.setdefault("rollout_sample", []).append((seconds, len(problems) * max(ev.rollouts)))
    n = len(problems)
    return states, pd.DataFrame({
        "seed": seed, "split": split, "steps": problems.steps, "prompt_chars": problems.prompt_chars,
        "think_correct": routes["think"][0], "think_tokens": routes["think"][1],
        "nothink_correct": routes["nothink"][0], "nothink_tokens": routes["nothink"][1], **rollouts,
        "score_rldp": scorers["rldp"](states), "score_probe": scorers["probe"](states),
        "score_surface": scorers["surface"](problems.char_counts[:, None, :]),
        "score_length": problems.prompt_chars.astype(float),
        "score_random": seed_stream(seed, f"random_{split}").random(n),
        "score_random_control": seed_stream(seed, f"random_control_{split}").random(n),
        "score_oracle": (~routes["nothink"][0]).astype(float),
        "score_truth": truth_score(problems.steps, seed_stream(seed, f"truth_{split}")),
        "tiebreak": seed_stream(seed, f"tiebreak_{split}").random(n),
    })


def run(cfg, seed: int, net) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(per-problem rows, per-layer rows, timing rows) of one seed: references, probe set, validation and test set are
    all drawn from this seed; the model is this seed's decoder. Rows carry `split`: AdaSwitch's threshold tau and the
    rollouts' k are chosen on the validation split, every reported number comes from the test split."""
    task, ev = cfg.task, cfg.eval
    rng = np.random.default_rng(seed)
    test = D.sample(rng, ev.n_test, task)
    easy, hard = (_references(rng, task, cfg.refs[k], cfg.refs.per_class) for k in ("easy_steps", "hard_steps"))
    probe_set = D.sample(rng, ev.n_probe, task)
    val = D.sample(seed_stream(seed, "validation"), ev.n_val, task)
    rldp = method.fit_rldp(M.hidden_states(net, easy.prompts), M.hidden_states(net, hard.prompts))
    steps = probe_set.steps.astype(float)
    scorers = {"rldp": rldp,
               "probe": baselines.RidgeProbe(M.hidden_states(net, probe_set.prompts), steps,
                                             rng=np.random.default_rng(seed + 1)),
               # the same ridge on the prompt's character counts: what the input alone tells (negative control)
               "surface": baselines.RidgeProbe(probe_set.char_counts[:, None, :], steps,
                                               rng=seed_stream(seed, "surface_split"))}
    generator = torch.Generator().manual_seed(seed)
    timing: dict = {}
    parts = [_split_rows(cfg, seed, net, problems, split, scorers, generator, timing)
             for problems, split in ((val, "val"), (test, "test"))]
    states, rows = parts[1][0], pd.concat([p[1] for p in parts], ignore_index=True)
    test_rows = rows.loc[rows.split == "test"]
    fail = ~test_rows.nothink_correct.to_numpy(bool)
    layers = []
    for layer in range(states.shape[1]):
        full = method.fit_rldp(M.hidden_states(net, easy.prompts), M.hidden_states(net, hard.prompts), layer=layer)
        s = full(states)
        layers.append({"seed": seed, "layer": layer, "loo_auroc": rldp.loo[layer][0], "loo_margin": rldp.loo[layer][1],
                       "chosen": layer == rldp.layer, "probe_layer": layer == scorers["probe"].layer,
                       "test_spearman": _spearman(s, test.steps), "test_auroc": method.auroc(s, fail)})
    timing_rows = pd.DataFrame([{"seed": seed, "part": k, "seconds": sum(t for t, _ in v), "n": sum(n for _, n in v)}
                                for k, v in timing.items()])
    return rows, pd.DataFrame(layers), timing_rows


class ByteTokenizer:
    """Bytes as tokens: the stand-in tokenizer of the random-weight Llama (tiny scale: no model file to load)."""

    pad_token_id = 0

    def __call__(self, text: str, add_special_tokens: bool = False):
        from types import SimpleNamespace

        return SimpleNamespace(input_ids=list(text.encode()))


def random_llama(seed: int):
    """(tokenizer, model): a 2-layer Llama with random weights, so the tiny scale runs the SmolLM2 code path in seconds."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=256, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                         num_key_value_heads=2, intermediate_size=64, max_position_embeddings=512)
    return ByteTokenizer(), LlamaForCausalLM(config).eval()


MATH_LEVELS = {"elementary mathematics": 1, "high school mathematics": 2, "college mathematics": 3}


def run_llm(cfg, folder: Path, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """RLDP on SmolLM2-135M (difficulty detection only) for the run with this seed: MMLU mathematics questions,
    difficulty proxy = grade level (elementary 1, high school 2, college 3). The seed draws the question pool (stream
    "llm_pool"; at tiny also the random Llama's weights, "llm_init"); hidden states at the last prompt token of the
    pool; then references (easy: elementary, hard: college), probe set and test set from the pool."""
    from neurips26.common.data.text_corpora import load_mmlu
    from neurips26.common.models.llm import encode_left_padded, load_smollm2, residual_stream

    spec = cfg.llm
    _, split = load_mmlu(folder)
    pool_rng = seed_stream(seed, "llm_pool")
    index = []
    for topic in MATH_LEVELS:
        rows = [i for i, t in enumerate(split.topics) if t == topic]
        index += list(pool_rng.choice(rows, size=min(len(rows), int(spec.per_level)), replace=False))
    level = np.array([MATH_LEVELS[split.topics[i]] for i in index])
    prompts = [f"Question: {split.texts[i]}\nAnswer:" for i in index]
    tokenizer, lm = load_smollm2() if spec.model == "smollm2" else random_llama(derived_seed(seed, "llm_init"))
    states, lengths = [], []
    for start in range(0, len(prompts), int(spec.batch)):
        chunk = prompts[start:start + int(spec.batch)]
        ids, mask, pos = encode_left_padded(tokenizer, chunk, int(spec.max_tokens))
        stream = residual_stream(lm, ids, mask, pos)
        states.append(np.stack([s[:, -1].float().numpy() for s in stream], 1))
        lengths += [len(tokenizer(p, add_special_tokens=False).input_ids) for p in chunk]
    states, lengths = np.concatenate(states).astype(np.float64), np.array(lengths, dtype=float)
    out, layers = [], []
    rng = np.random.default_rng(seed)
    easy = rng.choice(np.flatnonzero(level == 1), size=int(spec.per_class), replace=False)
    hard = rng.choice(np.flatnonzero(level == 3), size=int(spec.per_class), replace=False)
    rest = rng.permutation(np.setdiff1d(np.arange(len(level)), np.r_[easy, hard]))
    probe_idx, test_idx = rest[: len(rest) // 2], rest[len(rest) // 2:]
    rldp = method.fit_rldp(states[easy], states[hard])
    probe = baselines.RidgeProbe(states[probe_idx], level[probe_idx].astype(float), rng=np.random.default_rng(seed))
    y = level[test_idx]
    scores = {"rldp": rldp(states[test_idx]), "probe": probe(states[test_idx]), "length": lengths[test_idx],
              "random": rng.random(len(test_idx)), "truth": truth_score(level[test_idx], rng)}
    for name, s in scores.items():
        out.append({"seed": seed, "router": name, "spearman": _spearman(s, y),
                    "auroc_college_vs_elementary": method.auroc(s[y != 2], y[y != 2] == 3),
                    "layer": rldp.layer if name == "rldp" else probe.layer if name == "probe" else -1,
                    "n_test": len(y)})
    for layer in range(states.shape[1]):
        s = method.fit_rldp(states[easy], states[hard], layer=layer)(states[test_idx])
        layers.append({"seed": seed, "layer": layer, "loo_auroc": rldp.loo[layer][0], "chosen": layer == rldp.layer,
                       "test_spearman": _spearman(s, y), "test_auroc": method.auroc(s[y != 2], y[y != 2] == 3)})
    return pd.DataFrame(out), pd.DataFrame(layers)
