"""The known structural causal model: linear-Gaussian continuous variables (standardised at the reference horizon)
and log-linear binary outcomes (sinks). Exact interventional quantities (the do-calculus ground truth) and a cohort
simulator. Edge effects depend on the horizon h (months): beta * (1 - exp(-h / tau))."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np


@dataclass(frozen=True)
class Edge:
    parent: str
    child: str
    beta: float
    tau: float
    delta: float  # effect modification by age group: older beta + delta/2, younger beta - delta/2

    def at(self, horizon: float, group: str = "adults") -> float:
        shift = {"adults": 0.0, "older adults": 0.5, "younger adults": -0.5}[group] * self.delta
        return (self.beta + shift) * (1.0 - np.exp(-horizon / self.tau))


class SCM:
    def __init__(self, variables: dict, edges: list, reference_horizon: float = 12.0):
        self.variables = {k: dict(v) for k, v in variables.items()}
        self.edges = {(p, c): Edge(p, c, float(b), float(t), float(d)) for p, c, b, t, d in edges}
        self.reference_horizon = float(reference_horizon)
        self.dag = nx.DiGraph(list(self.edges))
        self.dag.add_nodes_from(self.variables)
        if not nx.is_directed_acyclic_graph(self.dag):
            raise ValueError("the SCM's edges contain a cycle")
        self.order = list(nx.lexicographical_topological_sort(self.dag))
        self.continuous = [v for v in self.order if self.variables[v]["kind"] == "continuous"]
        self.binary = [v for v in self.order if self.variables[v]["kind"] == "binary"]
        for v in self.binary:
            if self.dag.out_degree(v):
                raise ValueError(f"binary variable {v!r} must be a sink")
        self.index = {v: i for i, v in enumerate(self.continuous)}
        self.noise_var = self._noise_variances()

    @classmethod
    def from_config(cls, cfg) -> SCM:
        from omegaconf import OmegaConf

        scm = OmegaConf.to_container(cfg.scm, resolve=True) if not isinstance(cfg, dict) else cfg["scm"]
        return cls(scm["variables"], scm["edges"], scm["reference_horizon"])

    def kind(self, v: str) -> str:
        return self.variables[v]["kind"]

    def coef(self, horizon: float | None = None, group: str = "adults") -> np.ndarray:
        """B[p, c]: direct effect of continuous parent p on continuous child c at the horizon."""
        h = self.reference_horizon if horizon is None else horizon
        B = np.zeros((len(self.continuous),) * 2)
        for (p, c), e in self.edges.items():
            if c in self.index:
                B[self.index[p], self.index[c]] = e.at(h, group)
        return B

    def outcome_coef(self, y: str, horizon: float | None = None, group: str = "adults") -> np.ndarray:
        h = self.reference_horizon if horizon is None else horizon
        c = np.zeros(len(self.continuous))
        for (p, child), e in self.edges.items():
            if child == y:
                c[self.index[p]] = e.at(h, group)
        return c

    def _noise_variances(self) -> np.ndarray:
        """Noise variances that make every continuous variable's variance 1 at the reference horizon."""
        B, n = self.coef(), len(self.continuous)
        cov, noise = np.zeros((n, n)), np.ones(n)
        for v in self.continuous:
            j = self.index[v]
            b = B[:, j]
            explained = b @ cov @ b
            if explained >= 1:
                raise ValueError(f"variable {v!r}: its parents explain variance {explained:.3f} >= 1")
            noise[j] = 1.0 - explained if b.any() else 1.0
            cov[j, :] = b @ cov
            cov[:, j] = cov[j, :]
            cov[j, j] = 1.0
        return noise

    def moments(self, horizon=None, fixed: dict | None = None, group: str = "adults"):
        """Mean and covariance of the continuous variables under do(fixed) (mutilated graph: the fixed variables lose
        their parents and noise)."""
        fixed = fixed or {}
        B = self.coef(horizon, group)
        D = self.noise_var.copy()
        shift = np.zeros(len(self.continuous))
        for v, value in fixed.items():
            j = self.index[v]
            B[:, j] = 0.0
            D[j] = 0.0
            shift[j] = value
        inv = np.linalg.inv(np.eye(len(D)) - B)  # x = x B + e  ->  x = e (I - B)^-1
        return shift @ inv, inv.T @ np.diag(D) @ inv

    def interventional_effect(self, y: str, fixed1: dict, fixed0: dict, horizon=None) -> float:
        """E[Y | do(fixed1)] - E[Y | do(fixed0)] for continuous Y; log E[Y | do(fixed1)] / E[Y | do(fixed0)] for
        binary Y (exact: eta is Gaussian given the age group, so E exp(eta) = exp(mean + var / 2), averaged over the
        two equally likely age groups)."""
        if self.kind(y) == "continuous":
            return float(self.moments(horizon, fixed1)[0][self.index[y]] - self.moments(horizon, fixed0)[0][self.index[y]])

        def risk(fixed):
            total = 0.0
            for group in ("older adults", "younger adults"):
                mean, cov = self.moments(horizon, fixed, group)
                c = self.outcome_coef(y, horizon, group)
                total += 0.5 * np.exp(c @ mean + 0.5 * c @ cov @ c)
            return total

        return float(np.log(risk(fixed1) / risk(fixed0)))

    def simulate(self, n: int, rng: np.random.Generator, horizon=None) -> dict[str, np.ndarray]:
        """A cohort of n people: age group (older = 1), continuous variables, then binary outcomes."""
        h = self.reference_horizon if horizon is None else horizon
        older = rng.random(n) < 0.5
        data = {"older": older.astype(float)}
        for v in self.order:
            parents = [p for p in self.dag.predecessors(v)]
            if self.kind(v) == "continuous":  # age-group effect modification as in moments() (issue 56 fix)
                value = np.sqrt(self.noise_var[self.index[v]]) * rng.standard_normal(n)
                for p in parents:
                    e = self.edges[(p, v)]
                    value += np.where(older, e.at(h, "older adults"), e.at(h, "younger adults")) * data[p]
                data[v] = value
            else:
                eta = np.zeros(n)
                for p in parents:
                    e = self.edges[(p, v)]
                    eta += np.where(older, e.at(h, "older adults"), e.at(h, "younger adults")) * data[p]
                risk = np.clip(self.variables[v]["base_risk"] * np.exp(eta), 0.0, 1.0)
                data[v] = (rng.random(n) < risk).astype(float)
        return data

    def counterfactual(self, unit: dict, x: str, x_new: float, horizon=None) -> dict:
        """Abduction-action-prediction on the continuous variables (the SCM's own coefficients)."""
        h = self.reference_horizon if horizon is None else horizon
        noise = {v: unit[v] - sum(self.edges[(p, v)].at(h) * unit[p] for p in self.dag.predecessors(v))
                 for v in self.continuous}
        out = {}
        for v in self.continuous:
            out[v] = x_new if v == x else noise[v] + sum(self.edges[(p, v)].at(h) * out[p]
                                                          for p in self.dag.predecessors(v))
        return out
