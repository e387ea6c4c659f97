"""The small decoder (transformers GPT-2, character vocabulary) trained here on both routes, its greedy / sampled
generation (every token really generated and counted) and its hidden states before reasoning."""

from __future__ import annotations

import numpy as np
import torch

from neurips26.common.models import optim
from neurips26.papers.rldp import data as D


def build(cfg, n_positions: int):
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(vocab_size=len(D.VOCAB), n_positions=n_positions, n_embd=cfg.width, n_layer=cfg.layers,
                        n_head=cfg.heads, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                        bos_token_id=D.PAD, eos_token_id=D.EOS)
    return GPT2LMHeadModel(config)


def n_positions(task) -> int:
    return D.prompt_len(task) + 1 + D.max_new(task)


def training_batch(rng: np.random.Generator, task, batch: int, max_steps: int | None = None):
    """(ids, labels): half the problems with the think route, half without; loss only on the completion. `max_steps`
    caps the difficulty drawn (the curriculum); prompts keep the full task's length either way."""
    steps = rng.integers(1, (max_steps or task.max_steps) + 1, size=batch)
    problems = D.make(rng, steps, task)
    think = rng.random(batch) < 0.5
    total = n_positions(task)
    ids = torch.full((batch, total), D.PAD, dtype=torch.long)
    labels = torch.full((batch, total), -100, dtype=torch.long)
    for row, (p, t, k) in enumerate(zip(problems.prompts, problems.terms, think)):
        head = D.encode(p) + [D.THINK if k else D.NO_THINK]
        tail = D.encode(D.completion(t, bool(k), task))
        ids[row, :len(head) + len(tail)] = torch.tensor(head + tail)
        labels[row, len(head):len(head) + len(tail)] = torch.tensor(tail)  # the model shifts: position i predicts i+1
    return ids, labels


@torch.inference_mode()
def generate(model, prompts: list[str], think: bool, max_new: int, temperature: float = 0.0,
             generator: torch.Generator | None = None, batch: int = 512) -> tuple[list[str], np.ndarray]:
    """Completions after the forced route token (greedy, or sampled at `temperature`) and the number of tokens each
    really generated (up to and including the end token; a completion that never ends counts all max_new)."""
    completions, counts = [], []
    for start in range(0, len(prompts), batch):
        chunk = prompts[start:start + batch]
        ids = torch.tensor([D.encode(p) + [D.THINK if think else D.NO_THINK] for p in chunk])
        out = model(ids, use_cache=True)
        past, logits = out.cache, out.logits[:, -1]
        generated = []
        done = torch.zeros(len(chunk), dtype=torch.bool)
        for _ in range(max_new):
            if temperature > 0:
                nxt = torch.multinomial(torch.softmax(logits / temperature, -1), 1, generator=generator)[:, 0]
            else:
                nxt = logits.argmax(-1)
            nxt = torch.where(done, torch.full_like(nxt, D.PAD), nxt)
            generated.append(nxt)
            done |= nxt == D.EOS
            if bool(done.all()):
                break
            out = model(nxt[:, None], cache=past, use_cache=True)
            past, logits = out.cache, out.logits[:, -1]
        tokens = torch.stack(generated, 1).numpy()
        for row in tokens:
            end = np.flatnonzero(row == D.EOS)
            n = int(end[0]) + 1 if len(end) else len(row)
            completions.append(D.decode(row[:n]))
            counts.append(n)
    return completions, np.array(counts)


def solve(model, problems, think: bool, max_new: int, **kwargs) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(correct, tokens, completions) of one route: answers parsed and checked exactly against the truth."""
    completions, tokens = generate(model, problems.prompts, think, max_new, **kwargs)
    parsed = [D.parse_answer(c, think) for c in completions]
    correct = np.array([p is not None and p == a for p, a in zip(parsed, problems.answers)])
    return correct, tokens, completions


@torch.inference_mode()
def hidden_states(model, prompts: list[str], batch: int = 512) -> np.ndarray:
    """(n, layers + 1, width): the residual stream at the prompt's last token ('?'), before any route token: index 0 is
    the embedding, l the output of block l (the last one before the final layer norm)."""
    rows, last = [], {}
    for start in range(0, len(prompts), batch):
        ids = torch.tensor([D.encode(p) for p in prompts[start:start + batch]])
        hook = model.transformer.h[-1].register_forward_hook(
            lambda m, i, o: last.update(h=o[0] if isinstance(o, tuple) else o))
        try:
            states = list(model.transformer(ids, output_hidden_states=True).hidden_states)
        finally:
            hook.remove()
        states[-1] = last["h"]
        rows.append(torch.stack([s[:, -1] for s in states], 1).numpy())
    return np.concatenate(rows).astype(np.float64)


def accuracy_by_steps(model, problems, think: bool, max_new: int) -> dict[int, float]:
    correct, _, _ = solve(model, problems, think, max_new)
    return {int(n): float(correct[problems.steps == n].mean()) for n in np.unique(problems.steps)}


def converged(think: dict[int, float], plain_mean: float, previous: float, target: float,
              plateau: float | None) -> bool:
    """The convergence rule: the think route is >= target at every difficulty (the model solves every level by
    reasoning) and, when `plateau` is set, the no-think route's mean validation accuracy rose by less than `plateau`
    since the previous check (a variant, reported in JOURNAL.md as a sensitivity check)."""
    return min(think.values()) >= target and (plateau is None or plain_mean - previous < plateau)


def train(cfg, task, seed: int, log=print):
    """AdamW on both routes, with a curriculum (difficulty cap 1 + step // ramp: without it the mixed task stalls on a
    plateau where the model ignores the terms), until the convergence rule holds: every `eval_every` steps the think
    route is checked greedily on a validation set (seed + 10_000, never a test set); stop once its exact accuracy is
    >= `target` at every difficulty (and, with `plateau` set, once the no-think route has plateaued: see converged).
    `max_steps` is a safety cap only (the pilot checks it does not bind). Returns (model, history rows)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = build(cfg, n_positions(task))
    opt = optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.01)
    val = D.sample(np.random.default_rng(seed + 10_000), cfg.val_size, task)
    history, previous = [], -1.0
    for step in range(1, cfg.max_steps + 1):
        lr = cfg.lr * min(1.0, step / cfg.warmup)
        for group in opt.param_groups:
            group["lr"] = lr
        ids, labels = training_batch(rng, task, cfg.batch, min(task.max_steps, 1 + step // cfg.ramp))
        model.train()
        loss = model(ids, labels=labels).loss
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % cfg.eval_every == 0 or step == cfg.max_steps:
            model.eval()
            think = accuracy_by_steps(model, val, True, D.max_new(task))
            plain = accuracy_by_steps(model, val, False, D.max_new(task))
            plain_mean = float(np.mean(list(plain.values())))
            done = converged(think, plain_mean, previous, cfg.target, cfg.plateau)
            previous = plain_mean
            history.append({"step": step, "loss": float(loss.detach()), "think_min_acc": min(think.values()),
                            "nothink_mean_acc": plain_mean, "converged": done,
                            **{f"think_acc_{n}": a for n, a in think.items()},
                            **{f"nothink_acc_{n}": a for n, a in plain.items()}})
            log(f"step {step} loss {float(loss.detach()):.4f} think {think} nothink {plain}")
            if done:
                break
    model.eval()
    return model, history
