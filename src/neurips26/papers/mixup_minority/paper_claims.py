"""The abstract's claims, each a criterion over values measured in the saved tables (verdicts computed, never typed).

Thresholds (config `claims`, fixed before the runs): collapse > 0.5 at the largest ratio; BMLS within 0.1 of the ETF
value -1/(K-1); BMLS + MS class means no more than 0.02 less separated than BMLS's; tail accuracy paired by seed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.claims import Claim, PositiveControl

NAN = float("nan")


def _lpm(lpm: pd.DataFrame, method: str, ratio: float, value: str) -> float:
    rows = lpm[(lpm["method"] == method) & np.isclose(lpm["ratio"], ratio)]
    return float(rows[f"{value}_mean"].iloc[0]) if len(rows) else NAN


def _max_dev(lpm: pd.DataFrame, method: str, value: str, ratios) -> float:
    etf = float(lpm["etf_value"].iloc[0])
    devs = [abs(_lpm(lpm, method, r, value) - etf) for r in ratios]
    return float(max(devs)) if devs else NAN


def _paired(runs: pd.DataFrame, dataset: str, ratio: float, better: str, worse: str, value: str) -> dict:
    cell = runs[(runs["dataset"] == dataset) & np.isclose(runs["ratio"], ratio)]
    a = cell[cell["method"] == better].set_index("seed")[value]
    b = cell[cell["method"] == worse].set_index("seed")[value]
    gains = (a - b).dropna()
    return {"gain": float(gains.mean()) if len(gains) else NAN, "seeds_won": int((gains > 0).sum()),
            "seeds": int(len(gains)), f"{better}": float(a.mean()) if len(a) else NAN,
            f"{worse}": float(b.mean()) if len(b) else NAN}


def build(lpm: pd.DataFrame, lt_runs: pd.DataFrame, cfg) -> tuple[list[Claim], dict]:
    c = cfg.claims
    ratios = sorted(float(r) for r in lpm["ratio"].unique())
    low, high = ratios[0], ratios[-1]
    etf = float(lpm["etf_value"].iloc[0])
    claims = []

    curve = np.array([_lpm(lpm, "mixup_instance", r, "minority_w_cos") for r in ratios])
    collapse = {"cos_low_ratio": curve[0], "cos_high_ratio": curve[-1],
                "rises_with_ratio": float(bool(np.all(np.diff(curve) > 0))) if len(curve) > 1 else NAN,
                "threshold": float(c.collapse_threshold), "low_ratio": low, "high_ratio": high}
    claims.append(Claim(
        "unbalanced_mixed_labels_collapse",
        "With unbalanced mixed labels (Mixup, instance x instance sampling) the minority classifier vectors collapse: "
        "their mean cosine rises at every step of the imbalance ratio and exceeds 0.5 at the largest ratio "
        "(layer-peeled model)",
        "cos_high_ratio > threshold and rises_with_ratio == 1",
        collapse, ["tables/lpm.csv", "figures/minority_collapse_vs_ratio.png", "figures/mixed_label_hist.png"],
        source="abstract"))

    tol = float(c.etf_tolerance)
    balanced = {"max_dev_w": _max_dev(lpm, "bmls", "minority_w_cos", ratios),
                "max_dev_means": _max_dev(lpm, "bmls", "minority_mean_cos", ratios), "tolerance": tol,
                "etf_value": etf}
    control = {"max_dev_w": abs(_lpm(lpm, "mixup_instance", low, "minority_w_cos") - etf),
               "max_dev_means": abs(_lpm(lpm, "mixup_instance", low, "minority_mean_cos") - etf),
               "tolerance": tol, "etf_value": etf}
    claims.append(Claim(
        "bmls_keeps_etf",
        "The Balanced Mixed Label Sampler keeps the minority classifier vectors and class means at the simplex-ETF "
        "cosine -1/(K-1) (within 0.1) at every imbalance ratio (layer-peeled model)",
        "max_dev_w < tolerance and max_dev_means < tolerance", balanced,
        ["tables/lpm.csv", "figures/minority_collapse_vs_ratio.png", "figures/feature_geometry.png"],
        source="abstract",
        positive_control=PositiveControl(f"plain Mixup at ratio {low:g} (every label balanced by construction)",
                                         control)))

    gaps = [_lpm(lpm, "bmls_ms", r, "minority_mean_cos") - _lpm(lpm, "bmls", r, "minority_mean_cos") for r in ratios]
    singleton = {"worst_gap": float(max(gaps)), "margin": float(c.ms_margin),
                 "max_dev_means_ms": _max_dev(lpm, "bmls_ms", "minority_mean_cos", ratios), "tolerance": tol}
    control_gap = gaps[0]
    claims.append(Claim(
        "ms_separates_at_least_as_well",
        "With balanced mixed labels, reading them as singletons (BMLS + MS) separates the minority class means at "
        "least as well as BMLS with soft labels (cosine no more than 0.02 higher at any ratio, and within 0.1 of ETF)",
        "worst_gap <= margin and max_dev_means_ms < tolerance", singleton,
        ["tables/lpm.csv", "tables/ablation.csv", "figures/feature_geometry.png"], source="abstract",
        positive_control=PositiveControl(
            f"ratio {low:g}: both balanced, so both at the ETF by symmetry",
            {"worst_gap": control_gap, "margin": float(c.ms_margin),
             "max_dev_means_ms": abs(_lpm(lpm, "bmls_ms", low, "minority_mean_cos") - etf), "tolerance": tol})))

    ratio = float(c.tail_ratio)
    metrics = {"lpm": {"collapse": collapse, "bmls": balanced, "singleton": singleton}, "tail": {}}
    for dataset in cfg.lt.datasets[cfg.data]:
        tail = _paired(lt_runs, str(dataset), ratio, "bmls_ms", "mixup_instance", "acc_tail")
        metrics["tail"][str(dataset)] = tail
        claims.append(Claim(
            f"tail_accuracy_{dataset}",
            f"On long-tailed {dataset} (ratio {ratio:g}), BMLS + MS has a higher tail-class test accuracy than Mixup "
            "with instance sampling (paired by seed: higher on average and on every seed)",
            "gain > 0 and seeds_won == seeds and seeds > 0",
            {"gain": tail["gain"], "seeds_won": tail["seeds_won"], "seeds": tail["seeds"],
             "tail_acc_bmls_ms": tail["bmls_ms"], "tail_acc_mixup_instance": tail["mixup_instance"]},
            ["tables/main.csv", "tables/lt_runs.csv"], source="abstract"))

    ablation = {}
    for dataset in cfg.lt.datasets[cfg.data]:
        for other in ("bmls", "ms"):
            ablation[f"{dataset}_vs_{other}"] = _paired(lt_runs, str(dataset), ratio, "bmls_ms", other, "acc")["gain"]
    claims.append(Claim(
        "ablation_both_components",
        f"Ablation at ratio {ratio:g}: BMLS + MS has a higher balanced test accuracy than either component alone "
        "(BMLS without MS, MS without BMLS) on every long-tailed dataset (mean over seeds)",
        " and ".join(f"{k} > 0" for k in ablation) if ablation else "missing > 0",
        ablation or {"missing": NAN}, ["tables/ablation.csv", "tables/lt_runs.csv"],
        source="abstract"))
    metrics["ablation"] = ablation

    claims.append(Claim(
        "benchmark_gains",
        "Consistent gains on standard long-tailed benchmarks (CIFAR-10/100-LT, ImageNet-LT, iNaturalist-2018)",
        "gain > 0", {"gain": NAN}, ["tables/main.csv"], source="abstract",
        why_untested="needs scale=paper with data=real (CIFAR-10/100-LT with ResNet-32 on a GPU); ImageNet-LT and "
                     "iNaturalist-2018 are not wired (no verified checksums offline)"))
    return claims, metrics
