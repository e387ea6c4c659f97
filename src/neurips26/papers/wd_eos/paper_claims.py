"""The five claims of the brief, decided from tables/main.csv (seed means) and tables/runs.csv (every run, for the
trend criteria of cnn_damped_oscillations and ntk_stability) by the criteria fixed in config (claims.*).

sharpening_slows and cnn_damped_oscillations carry positive controls (controls.py): the same criterion on models whose
dynamics make the claim true by construction, summarised by the same code as the runs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from neurips26.common.claims import Claim, PositiveControl
from neurips26.papers.wd_eos import controls, summary
from neurips26.papers.wd_eos.grid import budget, eos_window


def _spearman(x, y) -> float:
    ok = pd.notna(pd.Series(list(y), dtype=float)).to_numpy()
    x, y = [v for v, k in zip(x, ok) if k], [v for v, k in zip(y, ok) if k]
    return float(spearmanr(x, y).statistic) if len(set(x)) > 1 and len(set(y)) > 1 else float("nan")


def _coupled(table: pd.DataFrame, arch: str) -> pd.DataFrame:
    """Coupled runs of one arch at its largest step size (the sharpest EoS), sorted by lambda."""
    rows = table[(table.arch == arch) & (table.decay == "coupled")]
    return rows[rows.eta == rows.eta.max()].sort_values("wd")


def within_seed_trend(runs: pd.DataFrame, value: str) -> dict:
    """The trend criterion (issue 29, fourth session; README): least-squares slope of log(value) on lambda over every
    run, with one intercept per seed (the within-seed, paired trend: the seeds' levels drop out), its standard error
    from the residuals (runs - seeds - 1 degrees of freedom) and t = slope / SE. Runs with a missing or non-positive
    value are left out, and so is a seed with fewer than two lambdas left. `change`: the relative change of the value
    over the lambda range the slope implies, exp(slope x range) - 1. NaN (untested) without a residual degree of
    freedom or without spread in lambda."""
    nan = float("nan")
    y = pd.to_numeric(runs[value], errors="coerce") if len(runs) else pd.Series(dtype=float)
    rows = runs.loc[np.isfinite(y) & (y > 0), ["seed", "wd"]].assign(y=np.log(y[np.isfinite(y) & (y > 0)]))
    rows = rows[rows.groupby("seed").wd.transform("nunique") >= 2] if len(rows) else rows
    n, k = len(rows), int(rows.seed.nunique()) if len(rows) else 0
    out = {"slope": nan, "se": nan, "t": nan, "change": nan, "runs": n, "seeds": k}
    if k < 1 or n - k - 1 < 1:
        return out
    x = rows.wd - rows.groupby("seed").wd.transform("mean")
    yc = rows.y - rows.groupby("seed").y.transform("mean")
    sxx = float((x ** 2).sum())
    if sxx <= 0:
        return out
    slope = float((x * yc).sum() / sxx)
    se = math.sqrt(float(((yc - slope * x) ** 2).sum()) / (n - k - 1) / sxx)
    t = slope / se if se > 0 else (math.copysign(math.inf, slope) if slope else nan)
    span = float(rows.wd.max() - rows.wd.min())
    return {**out, "slope": slope, "se": se, "t": t, "change": math.expm1(slope * span)}


def _coupled_runs(runs: pd.DataFrame | None, arch: str) -> pd.DataFrame:
    """Coupled runs (one row per run) of one arch at its largest step size, as _coupled picks the grid points."""
    if runs is None or not len(runs):
        return pd.DataFrame(columns=["seed", "wd", "kernel_velocity", "osc_amplitude"])
    rows = runs[(runs.arch == arch) & (runs.decay == "coupled")]
    return rows[rows.eta == rows.eta.max()] if len(rows) else rows


def _trend(m: dict, prefix: str, runs: pd.DataFrame, value: str) -> None:
    result = within_seed_trend(runs, value)
    m.update({f"{prefix}_t": result["t"], f"{prefix}_slope": result["slope"], f"{prefix}_change": result["change"],
              f"{prefix}_runs": result["runs"]})


def measure(table: pd.DataFrame, cfg, runs: pd.DataFrame | None = None) -> dict:
    """Every measured value the criteria read, from a main table and its run table (the runs' or a control's)."""
    c = cfg.claims
    m = {"spearman_min": c.spearman_min, "mlp_ratio_max": c.mlp_ratio_max, "cnn_band": c.cnn_band,
         "decrease_max": c.decrease_spearman_max, "eos_min_seeds": int(c.eos_min_seeds),
         "trend_t_max": float(c.trend_t_max)}
    archs = {name: _coupled(table, name) for name in ("mlp", "cnn")}
    for name, rows in archs.items():
        if not len(rows):
            continue
        m[f"sharpening_spearman_{name}"] = _spearman(rows.wd, rows.sharpening_time)
        m[f"velocity_spearman_{name}"] = _spearman(rows.wd, rows.kernel_velocity)  # ablation (the old criterion)
        _trend(m, f"velocity_trend_{name}", _coupled_runs(runs, name), "kernel_velocity")
    cnn, mlp = archs["cnn"], archs["mlp"]
    if len(cnn):
        m["cnn_max_rel_dev"] = float((cnn.plateau * cnn.eta / 2.0 - 1.0).abs().max())
        # the rule for runs without a measured EoS window (config claims.eos_min_seeds; README): the amplitude is
        # compared over the seeds that have one at every lambda, and only when at least eos_min_seeds of them remain
        common = int(cnn.eos_common_seeds.min()) if "eos_common_seeds" in cnn else 0
        m["cnn_eos_common_seeds"] = common
        m["cnn_osc_spearman"] = _spearman(cnn.wd, cnn.osc_amplitude_common) if common >= m["eos_min_seeds"] \
            else float("nan")  # ablation (the old criterion)
        cnn_runs = _coupled_runs(runs, "cnn")
        kept = summary.common_seeds(cnn_runs) if len(cnn_runs) else set()
        _trend(m, "cnn_osc_trend", cnn_runs[cnn_runs.seed.isin(kept)], "osc_amplitude")
        if common < m["eos_min_seeds"]:
            m["cnn_osc_trend_t"] = float("nan")
        m["cnn_eos_reached_min"] = float(cnn.eos_reached_fraction.min())
        if "eos_complete_fraction" in cnn:  # share of seeds whose run met the EoS stopping rule before the cap
            m["cnn_eos_complete_min"] = float(cnn.eos_complete_fraction.min())
        # ablations (not in the criterion): the seed means over every seed at the EoS (the measure before the rule
        # above), the first measure (std of S over the late window) and the loss oscillation
        m["cnn_osc_spearman_reached"] = _spearman(cnn.wd, cnn.osc_amplitude)
        m["cnn_osc_std_late_spearman"] = _spearman(cnn.wd, cnn.osc_std_late)
        m["cnn_loss_osc_spearman"] = _spearman(cnn.wd, cnn.loss_osc)
    if len(mlp):
        m["mlp_ratio_zero_wd"] = float(mlp.plateau_ratio.iloc[0])
        m["mlp_ratio_max_wd"] = float(mlp.plateau_ratio.iloc[-1])
        below = mlp[(mlp.wd > 0) & (mlp.plateau_ratio < c.mlp_ratio_max)]
        transition = below.iloc[0] if len(below) else mlp.iloc[-1]  # the smallest lambda below the line (else largest)
        m["mlp_transition_wd"] = float(transition.wd)
        m["alignment_transition"] = float(transition.alignment)
        m["alignment_zero_wd"] = float(mlp.alignment.iloc[0])
    return m


def windows(cfg) -> dict[str, int | None]:
    """arch -> its EoS stopping rule (grid.<arch>.eos_checkpoints), as the table_main stage passes it."""
    return {arch: eos_window(cfg, arch) for arch in cfg.grid}


def _control_measure(traces: pd.DataFrame, cfg) -> dict:
    s = cfg.summary
    runs = summary.run_table(traces, float(s.sharpening_fraction), float(s.late_fraction), windows(cfg))
    return measure(summary.aggregate(runs, windows(cfg)), cfg, runs)


def positive_controls(cfg) -> dict[str, PositiveControl]:
    wds = list(cfg.grid.mlp.wds)
    sharp = _control_measure(controls.sharpening_traces(wds), cfg)
    cnn_steps, cnn_freq = budget(cfg, "cnn")
    cnn_eta = float(max(cfg.grid.cnn.etas))
    window = eos_window(cfg, "cnn")
    osc = _control_measure(controls.oscillation_traces(cnn_eta, list(cfg.grid.cnn.wds), cnn_steps, cnn_freq, window),
                           cfg)
    return {
        "sharpening_slows": PositiveControl(
            "GD with coupled weight decay on a depth-3 scalar linear network (f = w1 w2 w3, y = 1, w = 0.03 at init, "
            "2/eta = 3.2, exact Hessian), lambda over the MLP grid, playing both archs: weight decay opposes the "
            "weights' growth, so sharpening slows by construction",
            _pick(sharp, "sharpening_spearman_mlp", "sharpening_spearman_cnn", "spearman_min")),
        "cnn_damped_oscillations": PositiveControl(
            f"linearised self-stabilisation model at the CNN point (2/eta = {2 / cnn_eta:.3g}, cap {cnn_steps} steps, "
            f"checkpoints every {cnn_freq}, stopped {window} checkpoints after the EoS onset as the runs are): S rises "
            "to 2/eta, then oscillates around it with amplitude 0.05, 0.1, 0.15 x 2/eta (three 'seeds', periods 120-180 "
            "steps) damped at rate 0.5 lambda per step, lambda over the CNN grid, summarised with the runs' "
            "common-seed rule and trend criterion",
            _pick(osc, "cnn_max_rel_dev", "cnn_osc_trend_t", "cnn_band", "trend_t_max", "cnn_osc_trend_change",
                  "cnn_osc_spearman")),
    }


def build(table: pd.DataFrame, runs: pd.DataFrame, cfg) -> tuple[list[Claim], dict]:
    """claims.json from tables/main.csv (seed means) and tables/runs.csv (one row per run, for the trend criteria)."""
    m = measure(table, cfg, runs)
    main = ["tables/main.csv", "tables/runs.csv"]
    pc = positive_controls(cfg)
    claims = [
        Claim("sharpening_slows", "weight decay robustly slows progressive sharpening (MLP and CNN)",
              "sharpening_spearman_mlp > spearman_min and sharpening_spearman_cnn > spearman_min",
              _pick(m, "sharpening_spearman_mlp", "sharpening_spearman_cnn", "spearman_min"),
              main + ["figures/sharpness_traces_mlp.png", "figures/sharpness_traces_cnn.png"],
              positive_control=pc["sharpening_slows"]),
        Claim("mlp_below_threshold", "in MLPs, larger weight decay makes sharpness stabilise well below 2/eta - lambda",
              "mlp_ratio_max_wd < mlp_ratio_max and mlp_ratio_zero_wd >= mlp_ratio_max",
              _pick(m, "mlp_ratio_zero_wd", "mlp_ratio_max_wd", "mlp_ratio_max"),
              main + ["figures/plateau_vs_wd.png", "figures/sharpness_traces_mlp.png"]),
        Claim("cnn_damped_oscillations", "in CNNs sharpness stays at 2/eta while weight decay damps the EoS oscillations "
              "(amplitude: mean |change of S| between checkpoints after the EoS onset, / (2/eta); decrease: t of the "
              "within-seed slope of log amplitude on lambda over every run)",
              "cnn_max_rel_dev < cnn_band and cnn_osc_trend_t < trend_t_max",
              _pick(m, "cnn_max_rel_dev", "cnn_osc_trend_t", "cnn_band", "trend_t_max", "cnn_osc_trend_slope",
                    "cnn_osc_trend_change", "cnn_osc_trend_runs", "cnn_eos_common_seeds", "eos_min_seeds",
                    "cnn_eos_reached_min", "cnn_eos_complete_min", "cnn_osc_spearman", "decrease_max",
                    "cnn_osc_spearman_reached", "cnn_osc_std_late_spearman", "cnn_loss_osc_spearman"),
              main + ["figures/plateau_vs_wd.png", "figures/sharpness_traces_cnn.png"],
              positive_control=pc["cnn_damped_oscillations"]),
        Claim("alignment_drives_transition", "|cos(theta, grad S)| is larger at the MLP transition than at lambda = 0",
              "alignment_transition > alignment_zero_wd",
              _pick(m, "alignment_transition", "alignment_zero_wd", "mlp_transition_wd"),
              main + ["figures/alignment.png"]),
        Claim("ntk_stability", "late-training NTK kernel velocity decreases with weight decay (function-space stability; "
              "decrease: t of the within-seed slope of log velocity on lambda over every run, per arch)",
              "velocity_trend_mlp_t < trend_t_max and velocity_trend_cnn_t < trend_t_max",
              _pick(m, "velocity_trend_mlp_t", "velocity_trend_cnn_t", "trend_t_max", "velocity_trend_mlp_change",
                    "velocity_trend_cnn_change", "velocity_trend_mlp_runs", "velocity_trend_cnn_runs",
                    "velocity_spearman_mlp", "velocity_spearman_cnn", "decrease_max"),
              main + ["figures/ntk_velocity.png"]),
    ]
    if m.get("cnn_eos_common_seeds", 0) < m["eos_min_seeds"]:
        claims[2].why_untested = oscillation_untested(m)
    mlp, cnn = _coupled(table, "mlp"), _coupled(table, "cnn")
    degenerate = [name for name, rows in (("mlp", mlp), ("cnn", cnn)) if rows.sharpening_time.nunique() == 1]
    if degenerate:  # a constant sharpening time has no rank correlation: say why instead of a bare "NaN"
        claims[0].why_untested = (
            f"sharpening time is the same at every lambda for {', '.join(degenerate)} "
            f"({', '.join(str(float((mlp if a == 'mlp' else cnn).sharpening_time.iloc[0])) for a in degenerate)} steps): "
            "S already starts at or above 0.9 x 2/eta (time 0) or never gets there (censored), so Spearman is undefined")
    return claims, m


def oscillation_untested(m: dict) -> str:
    return (f"only {m.get('cnn_eos_common_seeds', 0)} seed(s) have a complete EoS window (met the stopping rule before "
            f"the cap) at every CNN lambda; the pre-registered rule needs at least {m['eos_min_seeds']}, so the "
            "amplitude is not compared (runs without an EoS window are excluded and counted, never imputed)")


def _pick(measured: dict, *names: str) -> dict:
    return {n: measured.get(n, float("nan")) for n in names}
