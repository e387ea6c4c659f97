"""One training run of one method at one keep rate (or price): the loop that screens, gates and updates.

Ungated methods (REINFORCE, DG) act, then forward the batch with gradients. Gated methods act without gradients (the
acting pass: sample actions, compute rewards and delight), gate, then forward + backward the kept samples only. Gates:
`kondo` (the paper's G ~ Bernoulli(sigma((chi - price) / eta)), swept over prices), `price_delight` (its hard eta -> 0
limit, chi > price), every screen at a keep rate (the official top fraction), and `random_at_price` (random gating at
the keep rate the `kondo` run at that price realised: the frontier's baseline at equal backward passes).
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass

import torch

from neurips26.common.models import optim
from neurips26.common.pipeline.errors import UserError
from neurips26.papers.kondo_gate.baselines import SCREENS, priority, reinforce_weights
from neurips26.papers.kondo_gate.method import (
    backward_flops_per_sample,
    bernoulli_gate,
    dg_weights,
    gated_update,
    select,
)
from neurips26.papers.kondo_gate.models import action_log_prob
from neurips26.papers.kondo_gate.screening import Screen

UNGATED = ("reinforce", "dg")
PRICED = ("kondo", "price_delight")  # swept over compute prices, not keep rates
METHODS = (*UNGATED, *SCREENS, "stale_delight", "screen_delight", *PRICED, "random_at_price")


@dataclass(frozen=True)
class Spec:
    method: str
    keep_rate: float | None  # None for price gating
    price: float | None = None

    @property
    def screen(self) -> str:
        if self.method == "random_at_price":
            return "random"
        return "delight" if self.method in ("stale_delight", "screen_delight", *PRICED) else self.method


def specs(methods: dict) -> list[Spec]:
    """The (method, keep rate or price) grid of a testbed, from its `methods` config block."""
    out = []
    for method, values in methods.items():
        if method not in METHODS or method == "random_at_price":
            raise UserError(f"config: unknown method {method!r}; known: {', '.join(METHODS[:-1])}")
        for v in values:
            out.append(Spec(method, None, float(v)) if method in PRICED else Spec(method, float(v)))
    return out


def matched_random(spec: Spec, records: list[dict], batch: int) -> Spec:
    """Random gating at the keep rate a `kondo` run realised (its backward passes / every sample it saw)."""
    last = records[-1]
    rate = max(last["backward_passes"] / (last["step"] * batch), 1.0 / batch)
    return Spec("random_at_price", min(rate, 1.0), spec.price)


def train(task, spec: Spec, cfg, block, seed: int) -> list[dict]:
    """Train a fresh policy (same init and data stream for every spec of a seed); one record per evaluation."""
    torch.manual_seed(seed)
    policy = task.make_policy()
    optimizer = optim.Adam(policy.parameters(), lr=float(block.lr))
    data_gen, act_gen, gate_gen = (torch.Generator().manual_seed(seed * 1000 + i) for i in range(3))
    stale = copy.deepcopy(policy) if spec.method == "stale_delight" else None
    x0, y0 = task.batch(torch.Generator().manual_seed(-1 % 2**31))
    flops = backward_flops_per_sample(policy, x0, y0, task.log_prob)
    screen = None
    if spec.method == "screen_delight":
        with torch.no_grad():
            probe_logits = task.logits(policy, x0, y0)
        screen = Screen(task.make_screen(), float(block.lr), x0, y0, probe_logits, task.logits)
    steps, eta = int(block.steps), float(block.eta)
    passes = total_flops = screen_flops = 0
    elapsed = 0.0
    records = [_record(spec, 0, passes, total_flops, screen_flops, elapsed, task.evaluate(policy))]
    for step in range(1, steps + 1):
        x, y = task.batch(data_gen)
        uniform = task.uniforms(act_gen)
        start = time.perf_counter()
        if spec.method in UNGATED:
            with torch.no_grad():
                actions = task.act(policy, x, uniform)
            logp = task.log_prob(policy, x, actions)
            advantage = task.advantage(task.reward(actions, y))
            weights = (reinforce_weights(advantage) if spec.method == "reinforce"
                       else dg_weights(advantage, logp.detach(), eta))
            optimizer.zero_grad(set_to_none=True)
            (-(weights * logp).mean()).backward()
            optimizer.step()
            passes, total_flops = passes + len(x), total_flops + len(x) * flops
        else:
            with torch.no_grad():
                actions = task.act(policy, x, uniform)
                logits = task.logits(policy, x, actions)
                logp = action_log_prob(logits, actions)
                advantage = task.advantage(task.reward(actions, y))
                logp_screen = task.log_prob(stale, x, actions) if stale is not None else logp
            if screen is not None:  # the screen's forward (screening) and its distillation step, both counted
                logp_screen, spent = screen.step(x, actions, logits)
                screen_flops += spent
            with torch.no_grad():
                prio = priority(spec.screen, advantage, logp_screen, gate_gen, float(cfg.gate.additive_alpha))
                if spec.method == "kondo":
                    kept = bernoulli_gate(prio, spec.price, eta, gate_gen)
                elif spec.keep_rate is not None:
                    kept = select(prio, keep_rate=spec.keep_rate)
                else:
                    kept = select(prio, price=spec.price)
                weights = (advantage if cfg.gate.survivor_weight == "advantage" else dg_weights(advantage, logp, eta))
            cost = gated_update(policy, optimizer, x, actions, weights, kept, flops, task.log_prob)
            passes, total_flops = passes + cost.backward_passes, total_flops + cost.backward_flops
            if stale is not None and step % int(block.stale_every) == 0:
                stale.load_state_dict(policy.state_dict())
        elapsed += time.perf_counter() - start
        if step % int(block.eval_every) == 0 or step == steps:
            records.append(_record(spec, step, passes, total_flops, screen_flops, elapsed, task.evaluate(policy)))
    return records


def _record(spec: Spec, step, passes, flops, screen_flops, elapsed, score) -> dict:
    return {"method": spec.method, "keep_rate": spec.keep_rate if spec.keep_rate is not None else float("nan"),
            "price": spec.price if spec.price is not None else float("nan"), "step": step,
            "backward_passes": passes, "backward_flops": flops, "screen_flops": screen_flops, "wall_s": elapsed,
            "score": score}
