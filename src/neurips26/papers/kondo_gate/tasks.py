"""The two learning testbeds as contextual bandits: MNIST (reward: right label) and token reversal (reward: fraction of
positions right). A task draws batches, builds its policy, acts (samples actions), gives the logits of taken actions
(`logits`, teacher-forced for the autoregressive reversal policy), scores rewards and evaluates greedy quality."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.kondo_gate.data import split, token_sequences
from neurips26.papers.kondo_gate.models import MLPPolicy, ReversalTransformer, action_log_prob, sample_categorical


@dataclass
class MnistTask:
    images: np.ndarray
    labels: np.ndarray
    cfg: object  # the `mnist` config block
    seed: int
    device: str = "cpu"

    def __post_init__(self):
        train, test = split(len(self.labels), self.cfg.test_fraction, self.seed)
        self.x_train = torch.from_numpy(self.images[train]).to(self.device)
        self.y_train = torch.from_numpy(self.labels[train]).to(self.device)
        self.x_test = torch.from_numpy(self.images[test]).to(self.device)
        self.y_test = torch.from_numpy(self.labels[test]).to(self.device)
        self.batch_size = int(self.cfg.batch)

    def make_policy(self) -> torch.nn.Module:
        return MLPPolicy(self.x_train.shape[1], int(self.cfg.hidden), 10).to(self.device)

    def make_screen(self) -> torch.nn.Module:
        """The cheap screening model: the same MLP shape with a much narrower hidden layer."""
        return MLPPolicy(self.x_train.shape[1], int(self.cfg.screen.hidden), 10).to(self.device)

    def batch(self, generator: torch.Generator):
        index = torch.randint(0, len(self.y_train), (self.batch_size,), generator=generator).to(self.device)
        return self.x_train[index], self.y_train[index]

    def uniforms(self, generator: torch.Generator) -> torch.Tensor:
        return torch.rand((self.batch_size, 10), generator=generator).to(self.device)

    @staticmethod
    def logits(model, inputs, actions):
        return model(inputs)

    def log_prob(self, model, inputs, actions):
        return action_log_prob(model(inputs), actions)

    @staticmethod
    def act(policy, inputs, uniform):
        return sample_categorical(policy(inputs), uniform)

    @staticmethod
    def reward(actions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return (actions == targets).float()

    @staticmethod
    def advantage(reward: torch.Tensor) -> torch.Tensor:
        """A = r - batch mean (one image per sample, so no per-context group to average over)."""
        return reward - reward.mean()

    @torch.no_grad()
    def evaluate(self, policy) -> float:
        return float((policy(self.x_test).argmax(-1) == self.y_test).float().mean())


@dataclass
class ReversalTask:
    length: int
    cfg: object  # the `reversal` config block
    seed: int
    device: str = "cpu"

    def __post_init__(self):
        held_out = torch.Generator().manual_seed(10_000 + self.seed)
        self.x_eval = token_sequences(int(self.cfg.eval_size), self.length, int(self.cfg.vocab), held_out).to(self.device)
        self.batch_size = int(self.cfg.batch)

    def make_policy(self) -> torch.nn.Module:
        c = self.cfg
        return ReversalTransformer(int(c.vocab), self.length, int(c.d_model), int(c.layers), int(c.heads),
                                   int(c.ff)).to(self.device)

    def make_screen(self) -> torch.nn.Module:
        """The cheap screening model: a narrower, shallower transformer of the same form."""
        s = self.cfg.screen
        return ReversalTransformer(int(self.cfg.vocab), self.length, int(s.d_model), int(s.layers), int(s.heads),
                                   int(s.ff)).to(self.device)

    def batch(self, generator: torch.Generator):
        """B / S prompts, each repeated S = `samples_per_prompt` times in a row (the official actor samples S answers
        per prompt; S = 1 is one answer per prompt)."""
        per = int(self.cfg.get("samples_per_prompt", 1))
        if self.batch_size % per:
            raise UserError(f"reversal.batch {self.batch_size} is not a multiple of samples_per_prompt {per}")
        x = token_sequences(self.batch_size // per, self.length, int(self.cfg.vocab), generator).to(self.device)
        x = x.repeat_interleave(per, dim=0)
        return x, x.flip(1)

    def uniforms(self, generator: torch.Generator) -> torch.Tensor:
        return torch.rand((self.batch_size, self.length, int(self.cfg.vocab)), generator=generator).to(self.device)

    @staticmethod
    def logits(model, inputs, actions):
        return model(inputs, actions)

    def log_prob(self, model, inputs, actions):
        return action_log_prob(model(inputs, actions), actions)

    @staticmethod
    def act(policy, inputs, uniform):
        return policy.generate(inputs, uniform)

    @staticmethod
    def reward(actions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return (actions == targets).float().mean(dim=1)

    def advantage(self, reward: torch.Tensor) -> torch.Tensor:
        """A = r - baseline: the batch mean (`baseline: batch`), or the mean over the S answers to the same prompt
        (`baseline: prompt`, the official code's grouped baseline, `use_grouped_baseline` with one group per prompt)."""
        if str(self.cfg.get("baseline", "batch")) == "batch":
            return reward - reward.mean()
        per = int(self.cfg.samples_per_prompt)
        if per < 2:
            raise UserError("reversal.baseline: prompt needs samples_per_prompt >= 2 (one answer is its own baseline)")
        groups = reward.view(-1, per)
        return (groups - groups.mean(dim=1, keepdim=True)).flatten()

    @torch.no_grad()
    def evaluate(self, policy) -> float:
        """Greedy autoregressive decoding of the held-out prompts: per-token accuracy of the reversal."""
        return float((policy.generate(self.x_eval, None) == self.x_eval.flip(1)).float().mean())
