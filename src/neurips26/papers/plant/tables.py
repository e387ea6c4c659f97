"""Aggregate the per-seed run CSVs into the paper's tables (means and standard deviations over seeds)."""

from __future__ import annotations

import pandas as pd

METRICS = ["micro_f1", "macro_f1", "macro_f1_rare", "macro_f1_frequent", "p1", "p3", "p5", "ndcg3", "ndcg5"]


def _per_seed(runs: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """One row per `by` x seed: metrics averaged over the seed's restarts, hit_cap counted."""
    if "restart" not in runs:
        runs = runs.assign(restart=0)
    g = runs.groupby([*by, "seed"], sort=False, dropna=False)
    mean = g[[*METRICS, "epochs", "best_epoch"]].mean()
    return pd.concat([mean, g["hit_cap"].sum().astype(int), g.size().rename("restarts")], axis=1).reset_index()


def _summary(runs: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    runs = _per_seed(runs, by)
    g = runs.groupby(by, sort=False, dropna=False)
    out = g[METRICS].mean()
    std = g[METRICS].std(ddof=1).add_suffix("_std")
    extra = [g["epochs"].mean(), g["best_epoch"].mean(), g["hit_cap"].sum().astype(int).rename("runs_hit_cap"),
             g["restarts"].sum().rename("runs")]
    return pd.concat([out, std, g.size().rename("seeds"), *extra], axis=1).reset_index()


def table_main(runs: pd.DataFrame) -> pd.DataFrame:
    """Every backbone x method of the main experiment (full training set)."""
    return _summary(runs[runs["experiment"] == "main"], ["backbone", "method"])


def table_rare(runs: pd.DataFrame) -> pd.DataFrame:
    """Macro-F1 per label bin (rare: <= 5 training docs; frequent) and the PLANT - LAAT gap per seed's mean."""
    main = _per_seed(runs[runs["experiment"] == "main"], ["backbone", "method"])
    rows = []
    for (backbone, method), cell in main.groupby(["backbone", "method"], sort=False):
        for bin_name in ("rare", "frequent"):
            col = f"macro_f1_{bin_name}"
            rows.append({"backbone": backbone, "method": method, "bin": bin_name, "macro_f1": cell[col].mean(),
                         "macro_f1_std": cell[col].std(ddof=1), "seeds": len(cell)})
    return pd.DataFrame(rows)


def table_fraction(runs: pd.DataFrame) -> pd.DataFrame:
    """MiniLM PLANT and LAAT per training fraction (1.0 from the main runs), with the per-seed gap."""
    runs = _per_seed(runs[(runs["backbone"] == "minilm") & runs["method"].isin(["plant", "laat"])],
                     ["fraction", "method"])
    wide = runs.pivot_table(index=["fraction", "seed"], columns="method",
                            values=["macro_f1", "macro_f1_rare", "micro_f1", "hit_cap"]).reset_index()
    rows = []
    for fraction, cell in wide.groupby("fraction"):
        row = {"fraction": fraction, "seeds": len(cell),
               "runs_hit_cap": int(cell[("hit_cap", "plant")].sum() + cell[("hit_cap", "laat")].sum())}
        for m in ("macro_f1", "macro_f1_rare", "micro_f1"):
            gap = cell[(m, "plant")] - cell[(m, "laat")]
            row |= {f"plant_{m}": cell[(m, "plant")].mean(), f"laat_{m}": cell[(m, "laat")].mean(),
                    f"gap_{m}": gap.mean(), f"gap_{m}_std": gap.std(ddof=1)}
        rows.append(row)
    return pd.DataFrame(rows)


def table_ablation(runs: pd.DataFrame) -> pd.DataFrame:
    """MiniLM: PLANT, LAAT (= p 0) and the ablations, with each one's share of PLANT's gain over LAAT kept."""
    runs = runs[(runs["backbone"] == "minilm") & (runs["fraction"] == 1.0)]
    out = _summary(runs, ["method", "p"])
    plant = out.loc[out["method"] == "plant", "macro_f1"].iloc[0]
    laat = out.loc[out["method"] == "laat", "macro_f1"].iloc[0]
    out["gain_kept"] = (out["macro_f1"] - laat) / (plant - laat) if plant != laat else float("nan")
    return out


def table_attention(frame: pd.DataFrame) -> pd.DataFrame:
    """The attention of the first seed's PLANT model (one test document), as saved by the main run."""
    return frame[frame["seed"] == frame["seed"].min()].reset_index(drop=True)


def _seed_values(runs: pd.DataFrame, backbone: str, method: str, fraction: float, col: str) -> pd.Series:
    cell = runs[(runs["backbone"] == backbone) & (runs["method"] == method) & (runs["fraction"] == fraction)]
    return cell.groupby("seed")[col].mean()  # the mean over the seed's restarts


def table_paired(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per seed: the paired differences the claims test (macro-F1 unless named, as fractions), each between
    two methods trained on the same seed, split, training subset and decoder initialisation (common random numbers).
    A difference whose methods were not run (no SmolLM2 at tiny scale, say) is NaN."""
    small = runs.loc[runs["fraction"] < 1, "fraction"].min() if (runs["fraction"] < 1).any() else float("nan")
    v = lambda b, m, col="macro_f1", f=1.0: _seed_values(runs, b, m, f, col)  # noqa: E731
    cols = {
        "plant_laat": v("minilm", "plant") - v("minilm", "laat"),
        "plant_laat_rare": v("minilm", "plant", "macro_f1_rare") - v("minilm", "laat", "macro_f1_rare"),
        "plant_laat_frequent": v("minilm", "plant", "macro_f1_frequent") - v("minilm", "laat", "macro_f1_frequent"),
        # beside macro-F1 (issue #65 item 3): P@5 and micro-F1, and TF-IDF LR against PLANT on the same split
        "plant_laat_p5": v("minilm", "plant", "p5") - v("minilm", "laat", "p5"),
        "plant_laat_micro": v("minilm", "plant", "micro_f1") - v("minilm", "laat", "micro_f1"),
        "tfidf_plant": v("tfidf", "tfidf_lr") - v("minilm", "plant"),
        "tfidf_plant_p5": v("tfidf", "tfidf_lr", "p5") - v("minilm", "plant", "p5"),
        "tfidf_plant_micro": v("tfidf", "tfidf_lr", "micro_f1") - v("minilm", "plant", "micro_f1"),
        "smollm2_plant_laat": v("smollm2", "plant") - v("smollm2", "laat"),
        "smollm2_oracle_laat": v("smollm2", "oracle") - v("smollm2", "laat"),
        "small_fraction_plant_laat": v("minilm", "plant", f=small) - v("minilm", "laat", f=small),
        "small_fraction_oracle_laat": v("minilm", "oracle", f=small) - v("minilm", "laat", f=small),
        "random_laat": v("minilm", "random_relevance") - v("minilm", "laat"),
        "oracle_laat": v("minilm", "oracle") - v("minilm", "laat"),
        "oracle_laat_rare": v("minilm", "oracle", "macro_f1_rare") - v("minilm", "laat", "macro_f1_rare"),
        "oracle_laat_frequent": v("minilm", "oracle", "macro_f1_frequent") - v("minilm", "laat", "macro_f1_frequent"),
    }
    out = pd.DataFrame(cols).rename_axis("seed").reset_index()
    return out.assign(small_fraction=small)


TABLES = {"main": table_main, "rare": table_rare, "fraction": table_fraction, "ablation": table_ablation,
          "attention": table_attention, "paired": table_paired}
