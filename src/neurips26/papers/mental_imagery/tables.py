"""Tables aggregated over seeds from the per-seed run CSVs."""

from __future__ import annotations

import pandas as pd

FAMILIES = ["rush_hour", "sokoban", "jigsaw", "rotation", "tangram"]


KINDS = ["trained", "untrained", "pretrained", "shuffled", "start_only", "oracle", "random_code", "given_board"]


def _per_seed(runs: pd.DataFrame, metric: str, blind_metric: str, name: str) -> pd.DataFrame:
    """A per-family metric per variant and seed (family 'mean' = mean over families), with the first variant's
    blind_metric rows as variant 'blind'."""
    first = runs["variant"].min()
    blind = runs[(runs["metric"] == blind_metric) & (runs["variant"] == first)].assign(variant="blind")
    s = pd.concat([runs[runs["metric"] == metric], blind])
    per_seed = s.pivot_table(index=["variant", "seed"], columns="family", values="value")[FAMILIES]
    per_seed["mean"] = per_seed.mean(axis=1)
    return per_seed.reset_index().melt(id_vars=["variant", "seed"], var_name="family", value_name=name)


def _per_family(runs: pd.DataFrame, metric: str, blind_metric: str, name: str) -> pd.DataFrame:
    """Mean and sd over seeds of a per-family metric (family 'mean' = mean over families), with the first variant's
    blind_metric rows as variant 'blind'."""
    long = _per_seed(runs, metric, blind_metric, name)
    out = long.groupby(["family", "variant"])[name].agg(["mean", "std", "count"]).reset_index()
    out.columns = ["family", "variant", name, "sd", "seeds"]
    return out


def table_solve(runs: pd.DataFrame) -> pd.DataFrame:
    """Solve rate (replay-verified) per family and variant: mean and sd over seeds; family 'mean' = mean over families.
    Variant 'blind': the best image-blind constant action sequence (experiments.constant_baseline). Column steps: the
    training steps the convergence rule took (mean over seeds; steps_max: the most of any seed). Column first_action:
    the accuracy of the first decoded action against the solver's (the learnability control; 'blind': the majority
    first action), mean over seeds."""
    out = _per_family(runs, "solve_rate", "blind_solve_rate", "solve_rate")
    if (runs["metric"] == "first_action_acc").any():
        first = _per_family(runs, "first_action_acc", "blind_first_action_acc", "first_action")
        out = out.merge(first[["family", "variant", "first_action"]], on=["family", "variant"], how="left")
    steps = runs[runs["metric"] == "steps"].groupby("variant")["value"]
    out["steps"] = out["variant"].map(steps.mean())
    out["steps_max"] = out["variant"].map(steps.max())  # the claims compare variants only if no seed hit the cap
    out["family"] = pd.Categorical(out["family"], FAMILIES + ["mean"], ordered=True)
    return out.sort_values(["family", "variant"]).reset_index(drop=True)


def table_solve_seeds(runs: pd.DataFrame) -> pd.DataFrame:
    """The rows of table_solve per seed, before the mean over seeds (what the claims' paired seed intervals read):
    solve rate and first-action accuracy per variant (and 'blind'), seed and family; steps: the training steps the
    convergence rule took in that variant's run of that seed (empty for 'blind')."""
    out = _per_seed(runs, "solve_rate", "blind_solve_rate", "solve_rate")
    if (runs["metric"] == "first_action_acc").any():
        first = _per_seed(runs, "first_action_acc", "blind_first_action_acc", "first_action")
        out = out.merge(first, on=["variant", "seed", "family"], how="left")
    steps = runs[runs["metric"] == "steps"].groupby(["variant", "seed"])["value"].max().rename("steps")
    out = out.merge(steps.reset_index(), on=["variant", "seed"], how="left")
    given = runs[runs["metric"] == "solve_rate_given_z"]
    if not given.empty:  # variant C decoded with the true visual tokens (the positive control); empty elsewhere
        wide = given.pivot_table(index=["variant", "seed"], columns="family", values="value")[FAMILIES]
        wide["mean"] = wide.mean(axis=1)
        long = wide.reset_index().melt(id_vars=["variant", "seed"], var_name="family", value_name="given_z")
        out = out.merge(long, on=["variant", "seed", "family"], how="left")
    out["family"] = pd.Categorical(out["family"], FAMILIES + ["mean"], ordered=True)
    return out.sort_values(["variant", "seed", "family"]).reset_index(drop=True)


def table_probe(runs: pd.DataFrame) -> pd.DataFrame:
    """Probe cell accuracy per variant, family, probe kind and step (mean over seeds), at each kind's best layer (the
    layer with the highest pooled held-out accuracy, chosen per seed for the trained model and each control alike); the
    copy-the-start-board baseline as kind 'copy'. Every probe also reads the one-hot start board (see
    experiments.probe_rows). Kind 'given_board' (variant C): the hidden state of the last visual token of step t,
    whose inputs hold the true board s_t (a positive control). Step 0 rows: pooled over all steps."""
    frame = _probe_per_seed(runs)
    out = frame.groupby(["variant", "family", "kind", "step"]).agg(
        acc=("acc", "mean"), acc_sd=("acc", "std"), changed_acc=("changed_acc", "mean"), layer=("layer", "median"),
        seeds=("seed", "nunique")).reset_index()
    return out


def table_probe_seeds(runs: pd.DataFrame) -> pd.DataFrame:
    """The pooled (step 0) rows of table_probe per seed, before the mean over seeds: what the probe claim's seed
    intervals read."""
    frame = _probe_per_seed(runs)
    return frame[frame["step"] == 0].drop(columns=["step", "changed_acc"]).reset_index(drop=True)


def table_probe_mid_seeds(runs: pd.DataFrame) -> pd.DataFrame:
    """The claim's probe (intermediate_probe.py) per variant, seed, family and kind: changed-cell and exact-board
    accuracy on the strictly intermediate held-out states, the layer chosen on held-out fit puzzles, and the number of
    states scored."""
    metric = runs["metric"].astype(str)
    mid = runs[metric.str.endswith("_mid_changed") | metric.str.endswith("_mid_exact")].copy()
    if mid.empty:
        return pd.DataFrame(columns=["variant", "seed", "family", "kind", "layer", "changed", "exact", "n"])
    mid["kind"] = mid["metric"].str.replace(r"_mid_(changed|exact)$", "", regex=True)
    mid["score"] = mid["metric"].str.extract(r"_mid_(changed|exact)$", expand=False)
    wide = mid.pivot_table(index=["variant", "seed", "family", "kind"], columns="score", values="value", dropna=False)
    meta = mid[mid["score"] == "changed"].set_index(["variant", "seed", "family", "kind"])[["layer", "n"]]
    out = wide.join(meta).reset_index()
    out["family"] = pd.Categorical(out["family"], FAMILIES, ordered=True)
    return out[["variant", "seed", "family", "kind", "layer", "changed", "exact", "n"]].sort_values(
        ["variant", "seed", "family", "kind"]).reset_index(drop=True)


def _probe_per_seed(runs: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (variant, seed, family), g in runs.groupby(["variant", "seed", "family"]):
        if family == "all" or not (g["metric"] == "copy_acc").any():
            continue
        copy = g[g["metric"] == "copy_acc"]
        for _, r in copy.iterrows():
            rows.append((variant, seed, family, "copy", -1, int(r["step"]), r["value"], 0.0))
        rows.append((variant, seed, family, "copy", -1, 0, (copy["value"] * copy["n"]).sum() / copy["n"].sum(), 0.0))
        for kind in KINDS:
            pooled = g[g["metric"] == f"{kind}_acc_all"]
            if pooled.empty:
                continue
            best = pooled.loc[pooled["value"].idxmax()]
            layer = int(best["layer"])
            acc = g[(g["metric"] == f"{kind}_acc") & (g["layer"] == layer)].set_index("step")["value"]
            changed = g[(g["metric"] == f"{kind}_changed_acc") & (g["layer"] == layer)].set_index("step")["value"]
            rows.append((variant, seed, family, kind, layer, 0, best["value"], float("nan")))
            for step in acc.index:
                rows.append((variant, seed, family, kind, layer, int(step), acc[step], changed.get(step)))
    return pd.DataFrame(rows, columns=["variant", "seed", "family", "kind", "layer", "step", "acc", "changed_acc"])


def table_decoded(decoded: pd.DataFrame) -> pd.DataFrame:
    """The probe-decoded boards of the first seed's variant-A run (the figure's source)."""
    if decoded.empty:
        return decoded
    first = decoded[(decoded["variant"] == decoded["variant"].min()) & (decoded["seed"] == decoded["seed"].min())]
    return first.reset_index(drop=True)
