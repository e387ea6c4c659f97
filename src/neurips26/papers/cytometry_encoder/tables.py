"""Tables aggregated over seeds from the per-seed run CSVs (figures and claims read only these)."""

from __future__ import annotations

import numpy as np
import pandas as pd

CONTROL = "negative_control"
CONTROLS = ("negative_control", "positive_control")  # outside the signal-task means


def _mean_std(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    return (frame.groupby(keys, sort=False).agg(auroc=("auroc", "mean"), auroc_std=("auroc", "std"),
                                                seeds=("seed", "nunique")).reset_index())


def _task_runs(runs: pd.DataFrame) -> pd.DataFrame:
    variant = runs.get("variant", pd.Series("base", index=runs.index)).fillna("base")
    runs = runs.assign(method=runs.method.where(variant != "hashed", "frozen_hashed"))
    return runs[variant.isin(["base", "hashed"])]


def table_tasks(runs: pd.DataFrame) -> pd.DataFrame:
    """AUROC per task x method: the frozen encoder (base sweep point), specialists and the baselines."""
    return _mean_std(_task_runs(runs), ["task", "taxonomy", "method"])


def table_tasks_seeds(runs: pd.DataFrame) -> pd.DataFrame:
    """tables/tasks.csv's rows per seed (the mean over the random inits where a method has several): the paired
    per-seed values the seed-interval claims read."""
    return (_task_runs(runs).groupby(["task", "taxonomy", "method", "seed"], sort=False).auroc.mean().reset_index()
            .sort_values(["task", "method", "seed"]).reset_index(drop=True))


def _signal_mean(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per seed, the mean AUROC over the signal tasks (every task but the negative control)."""
    signal = frame[~frame.taxonomy.isin(CONTROLS)]
    return signal.groupby([*keys, "seed"], sort=False).auroc.mean().reset_index().assign(task="mean_signal",
                                                                                          taxonomy="mean")


def _sweeps(runs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Sweep name -> its runs with x (the width or the corpus fraction)."""
    runs = runs[runs.variant != "hashed"]  # the name-vector ablation is no sweep point
    full_width = runs.width.max()
    sweeps = {"capacity": (runs[np.isclose(runs.corpus_fraction, 1.0)], "width"),
              "corpus": (runs[runs.width == full_width], "corpus_fraction")}
    return {sweep: part.assign(x=part[x].astype(float)) for sweep, (part, x) in sweeps.items()}


def table_scaling(runs: pd.DataFrame) -> pd.DataFrame:
    """Capacity sweep (full corpus, every width) and corpus sweep (full width, every fraction), per task and averaged
    over the signal tasks; x is the width or the corpus fraction."""
    frames = []
    for sweep, part in _sweeps(runs).items():
        both = pd.concat([part, _signal_mean(part, ["x"])], ignore_index=True)
        stats = _mean_std(both, ["x", "task", "taxonomy"])
        loss = part.groupby("x").recon_loss.mean()
        frames.append(stats.assign(sweep=sweep, recon_loss=stats.x.map(loss)))
    return pd.concat(frames, ignore_index=True)[["sweep", "x", "task", "taxonomy", "auroc", "auroc_std", "seeds",
                                                  "recon_loss"]].sort_values(["sweep", "task", "x"]).reset_index(drop=True)


def table_scaling_seeds(runs: pd.DataFrame) -> pd.DataFrame:
    """Per seed, the signal-task mean AUROC at every point of both sweeps (the per-seed curves the seed-interval
    saturation claim reads)."""
    frames = [_signal_mean(part, ["x"]).assign(sweep=sweep) for sweep, part in _sweeps(runs).items()]
    return (pd.concat(frames, ignore_index=True)[["sweep", "x", "task", "seed", "auroc"]]
            .sort_values(["sweep", "seed", "x"]).reset_index(drop=True))


REMOVAL_CURVE = ["features", "order", "probe"]  # one removal curve: representation x removal order x probe


def table_removal(runs: pd.DataFrame) -> pd.DataFrame:
    """AUROC against the number of markers removed at test time, per curve (representation, order, probe) and task,
    and the median over the signal tasks."""
    stats = _mean_std(runs, [*REMOVAL_CURVE, "task", "taxonomy", "removed"])
    signal = stats[~stats.taxonomy.isin(CONTROLS)]
    median = (signal.groupby([*REMOVAL_CURVE, "removed"], sort=False).auroc.median().reset_index()
              .assign(task="median_signal", taxonomy="median"))
    out = (pd.concat([stats, median], ignore_index=True).sort_values([*REMOVAL_CURVE, "task", "removed"])
           .reset_index(drop=True))
    out["drop_from_previous"] = -out.groupby([*REMOVAL_CURVE, "task"]).auroc.diff()
    return out


def table_panels(studies: pd.DataFrame) -> pd.DataFrame:
    """Every study's panel, with the markers no pretraining study of its world (seed) measures (the panel-overlap
    taxonomy); one world per seed, so the rows are per seed."""
    if "seed" not in studies:
        studies = studies.assign(seed=0)
    frames = []
    for _, world in studies.groupby("seed", sort=True):
        seen = {m for panel in world[world.role == "pretrain"].panel for m in str(panel).split()}
        unseen = world.panel.map(lambda p, seen=seen: " ".join(m for m in str(p).split() if m not in seen))
        frames.append(world.assign(unseen_markers=unseen, n_unseen=unseen.map(lambda u: len(u.split()))))
    return pd.concat(frames, ignore_index=True)


def table_removal_seeds(runs: pd.DataFrame) -> pd.DataFrame:
    """Per seed and curve (representation, order, probe), the median over the signal tasks of the AUROC at every number
    of markers removed, and its drop from the previous step (the per-seed values the marker-removal claim reads)."""
    signal = runs[~runs.taxonomy.isin(CONTROLS)]
    median = (signal.groupby([*REMOVAL_CURVE, "seed", "removed"], sort=True).auroc.median().reset_index()
              .assign(task="median_signal"))
    median["drop_from_previous"] = -median.groupby([*REMOVAL_CURVE, "seed"]).auroc.diff()
    return median[[*REMOVAL_CURVE, "task", "seed", "removed", "auroc", "drop_from_previous"]]


def table_control_null(runs: pd.DataFrame) -> pd.DataFrame:
    """The negative control's permutation null of the seed-mean CV AUROC: relabelling k of every seed (each seed its
    own world and its own within-study relabellings, independent across seeds), so the mean over seeds of their
    AUROCs is one draw of the null of the observed seed-mean."""
    return (runs.groupby(["task", "kind", "perm"], sort=False).agg(auroc=("auroc", "mean"), seeds=("seed", "nunique"))
            .reset_index())


def table_pretrain_loss(runs: pd.DataFrame) -> pd.DataFrame:
    """Pretraining loss per step (mean over seeds) of every sweep point, beside the sample-mean reference loss."""
    return (runs.groupby(["variant", "step"], sort=False)
            .agg(loss=("loss", "mean"), loss_std=("loss", "std"), reference=("reference", "mean"),
                 seeds=("seed", "nunique")).reset_index())


TABLES = {"tasks": table_tasks, "tasks_seeds": table_tasks_seeds, "scaling": table_scaling,
          "scaling_seeds": table_scaling_seeds, "removal": table_removal, "removal_seeds": table_removal_seeds,
          "panels": table_panels,
          "control_null": table_control_null, "pretrain_loss": table_pretrain_loss}
