"""Approximate delight from a cheap screening model: a much smaller network trained alongside the policy.

The screen reads the same inputs as the policy and is distilled to the policy's action distribution on every acting batch
(KL(pi_policy || pi_screen), summed over positions, mean over the batch). Its surprisal -log pi_screen(a) replaces the
policy's in delight = A x surprisal; the gate then keeps the top fraction as usual. The screen is not free: every step
costs one screen forward (to screen) and one screen forward + backward (to distil) on the whole batch. Both are counted
exactly with torch's FLOP counter, per sample, and reported beside the policy's backward FLOPs.
"""

from __future__ import annotations

import torch
from torch.utils.flop_counter import FlopCounterMode

from neurips26.common.models import optim
from neurips26.papers.kondo_gate.models import action_log_prob


def _distil_loss(screen, inputs, actions, teacher_logits, logits_fn) -> torch.Tensor:
    """KL(teacher || screen) per sample (summed over positions for sequences), mean over the batch. `logits_fn(model,
    inputs, actions)` is the task's forward (teacher-forced on the taken actions for autoregressive policies)."""
    log_q = torch.log_softmax(logits_fn(screen, inputs, actions), dim=-1)
    log_p = torch.log_softmax(teacher_logits.detach(), dim=-1)
    kl = (log_p.exp() * (log_p - log_q)).sum(-1)
    return (kl if kl.dim() == 1 else kl.sum(1)).mean()


class Screen:
    """A small model that screens samples (surprisal of the taken action) and learns from the policy alongside it."""

    def __init__(self, model: torch.nn.Module, lr: float, probe_inputs: torch.Tensor, probe_actions: torch.Tensor,
                 probe_logits: torch.Tensor, logits_fn):
        self.model = model
        self.logits_fn = logits_fn
        self.optimizer = optim.Adam(model.parameters(), lr=lr)
        self.forward_flops, self.train_flops = self._per_sample_flops(probe_inputs, probe_actions, probe_logits)

    def _per_sample_flops(self, inputs, actions, logits) -> tuple[int, int]:
        """(forward FLOPs, distillation forward + backward FLOPs) of one sample, checked linear in the batch."""
        fwd, train = [], []
        for n in (1, 2):
            with torch.no_grad(), FlopCounterMode(display=False) as counter:
                self.logits_fn(self.model, inputs[:n], actions[:n])
            fwd.append(counter.get_total_flops())
            self.model.zero_grad(set_to_none=True)
            with FlopCounterMode(display=False) as counter:
                _distil_loss(self.model, inputs[:n], actions[:n], logits[:n], self.logits_fn).backward()
            train.append(counter.get_total_flops())
        self.model.zero_grad(set_to_none=True)
        if fwd[1] != 2 * fwd[0] or train[1] != 2 * train[0]:
            raise RuntimeError(f"screen FLOPs are not linear in the batch: forward {fwd}, train {train}")
        return int(fwd[0]), int(train[0])

    @torch.no_grad()
    def surprisal_logp(self, inputs: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """log pi_screen(action) per sample (the screen's forward on the whole batch)."""
        return action_log_prob(self.logits_fn(self.model, inputs, actions), actions)

    def learn(self, inputs: torch.Tensor, actions: torch.Tensor, teacher_logits: torch.Tensor) -> None:
        """One distillation step towards the policy's distribution on this batch."""
        self.optimizer.zero_grad(set_to_none=True)
        _distil_loss(self.model, inputs, actions, teacher_logits, self.logits_fn).backward()
        self.optimizer.step()

    def step(self, inputs, actions, teacher_logits) -> tuple[torch.Tensor, int]:
        """Screen the batch (screen log pi of the taken actions), then distil; returns (log pi_screen, FLOPs spent)."""
        logp = self.surprisal_logp(inputs, actions)
        self.learn(inputs, actions, teacher_logits)
        return logp, len(inputs) * (self.forward_flops + self.train_flops)
