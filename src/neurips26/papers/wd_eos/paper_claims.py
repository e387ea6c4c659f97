"""The five claims of the brief, decided from tables/main.csv by the criteria fixed in config (claims.*)."""

from __future__ import annotations

import pandas as pd
from scipy.stats import spearmanr

from neurips26.common.claims import Claim


def _spearman(x, y) -> float:
    return float(spearmanr(x, y).statistic) if len(set(x)) > 1 and len(set(y)) > 1 else float("nan")


def _coupled(table: pd.DataFrame, arch: str) -> pd.DataFrame:
    """Coupled runs of one arch at its largest step size (the sharpest EoS), sorted by lambda."""
    rows = table[(table.arch == arch) & (table.decay == "coupled")]
    return rows[rows.eta == rows.eta.max()].sort_values("wd")


def build(table: pd.DataFrame, cfg) -> tuple[list[Claim], dict]:
    c = cfg.claims
    mlp, cnn = _coupled(table, "mlp"), _coupled(table, "cnn")
    m = {}
    for name, rows in (("mlp", mlp), ("cnn", cnn)):
        m[f"sharpening_spearman_{name}"] = _spearman(rows.wd, rows.sharpening_time)
        m[f"velocity_spearman_{name}"] = _spearman(rows.wd, rows.kernel_velocity)
    m["mlp_ratio_zero_wd"] = float(mlp.plateau_ratio.iloc[0])
    m["mlp_ratio_max_wd"] = float(mlp.plateau_ratio.iloc[-1])
    m["cnn_max_rel_dev"] = float((cnn.plateau * cnn.eta / 2.0 - 1.0).abs().max())
    m["cnn_osc_spearman"] = _spearman(cnn.wd, cnn.osc_amplitude)
    below = mlp[(mlp.wd > 0) & (mlp.plateau_ratio < c.mlp_ratio_max)]
    transition = below.iloc[0] if len(below) else mlp.iloc[-1]  # the smallest lambda below the line (else the largest)
    m["mlp_transition_wd"] = float(transition.wd)
    m["alignment_transition"] = float(transition.alignment)
    m["alignment_zero_wd"] = float(mlp.alignment.iloc[0])
    m.update({"spearman_min": c.spearman_min, "mlp_ratio_max": c.mlp_ratio_max, "cnn_band": c.cnn_band,
              "decrease_max": c.decrease_spearman_max})
    main = ["tables/main.csv"]
    claims = [
        Claim("sharpening_slows", "weight decay robustly slows progressive sharpening (MLP and CNN)",
              "sharpening_spearman_mlp > spearman_min and sharpening_spearman_cnn > spearman_min",
              _pick(m, "sharpening_spearman_mlp", "sharpening_spearman_cnn", "spearman_min"),
              main + ["figures/sharpness_traces_mlp.png", "figures/sharpness_traces_cnn.png"]),
        Claim("mlp_below_threshold", "in MLPs, larger weight decay makes sharpness stabilise well below 2/eta - lambda",
              "mlp_ratio_max_wd < mlp_ratio_max and mlp_ratio_zero_wd >= mlp_ratio_max",
              _pick(m, "mlp_ratio_zero_wd", "mlp_ratio_max_wd", "mlp_ratio_max"),
              main + ["figures/plateau_vs_wd.png", "figures/sharpness_traces_mlp.png"]),
        Claim("cnn_damped_oscillations", "in CNNs sharpness stays at 2/eta while weight decay damps the EoS oscillations",
              "cnn_max_rel_dev < cnn_band and cnn_osc_spearman < decrease_max",
              _pick(m, "cnn_max_rel_dev", "cnn_osc_spearman", "cnn_band", "decrease_max"),
              main + ["figures/plateau_vs_wd.png", "figures/sharpness_traces_cnn.png"]),
        Claim("alignment_drives_transition", "|cos(theta, grad S)| is larger at the MLP transition than at lambda = 0",
              "alignment_transition > alignment_zero_wd",
              _pick(m, "alignment_transition", "alignment_zero_wd", "mlp_transition_wd"),
              main + ["figures/alignment.png"]),
        Claim("ntk_stability", "late-training NTK kernel velocity decreases with weight decay (function-space stability)",
              "velocity_spearman_mlp < decrease_max and velocity_spearman_cnn < decrease_max",
              _pick(m, "velocity_spearman_mlp", "velocity_spearman_cnn", "decrease_max"),
              main + ["figures/ntk_velocity.png"]),
    ]
    degenerate = [name for name, rows in (("mlp", mlp), ("cnn", cnn)) if rows.sharpening_time.nunique() == 1]
    if degenerate:  # a constant sharpening time has no rank correlation: say why instead of a bare "NaN"
        claims[0].why_untested = (
            f"sharpening time is the same at every lambda for {', '.join(degenerate)} "
            f"({', '.join(str(float((mlp if a == 'mlp' else cnn).sharpening_time.iloc[0])) for a in degenerate)} steps): "
            "S already starts at or above 0.9 x 2/eta (time 0) or never gets there (censored), so Spearman is undefined")
    return claims, m


def _pick(measured: dict, *names: str) -> dict:
    return {n: measured[n] for n in names}
