"""The claims of the abstract (config/claims/wd_eos.yaml), claims contract v2: each test compares per-seed values over
the run seeds (tables/runs.csv, one row per run; the CNN's replicate runs s + 1000 are run seeds of their own) through
the 95% t interval in common/pipeline/claims. The bounds are the ones the criteria used before v2 (config claims.*, from the
brief); the per-seed statistic replaces the seed-mean statistic (JOURNAL.md, 2026-12-03).

Per run seed, on the coupled runs of an arch at its largest step size:
- sharpening_slows: Spearman(lambda, sharpening time) over that seed's lambdas (> spearman_min), per arch;
- mlp_below_threshold: the plateau / (2/eta - lambda) at the largest lambda (< mlp_ratio_max) and at lambda = 0
  (> mlp_ratio_max);
- cnn_damped_oscillations: max over lambda of |plateau / (2/eta) - 1| (< cnn_band) and the change of log EoS amplitude
  over the lambda grid (the seed's least-squares slope of log amplitude on lambda x the grid's range, < 0), the latter
  over the seeds with a complete EoS window at every lambda (summary.common_seeds; the others are missing, never
  imputed);
- alignment_drives_transition: |alpha| at the MLP transition lambda minus |alpha| at lambda = 0 (> 0), with negative
  controls (the same difference on the CNN at that lambda, and on the MLP below its transition, must not hold);
- ntk_stability: the change of log late kernel velocity over the lambda grid (< 0), per arch;
- architecture_dependent_transition: the MLP's plateau ratio at its largest lambda (< mlp_ratio_max) beside the CNN's
  deviation from 2/eta at its largest lambda (< cnn_band); decided at scale=long (the default grids do not match
  eta x lambda);
- framework_models_phenomena: not tested (the paper's model could not be read).
sharpening_slows and cnn_damped_oscillations carry positive controls (controls.py): the same test on models whose
dynamics make the claim true, summarised by the same code as the runs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from neurips26.common.pipeline.claims import Claim, Control, SeedTest, paired, seed_interval
from neurips26.papers.wd_eos import controls, preregistration, summary
from neurips26.papers.wd_eos.grid import budget, eos_window

MAIN = ["tables/main.csv", "tables/runs.csv"]
NOT_READ = ("the paper's body could not be read (README: every stored copy holds only the abstract), and the abstract "
            "gives no number")


def paper_value(where: str = "") -> dict:
    return {"value": None, "where": f"abstract ({where or 'qualitative'}); {NOT_READ}"}


def _spearman(x, y) -> float:
    ok = pd.notna(pd.Series(list(y), dtype=float)).to_numpy()
    x, y = [v for v, k in zip(x, ok) if k], [v for v, k in zip(y, ok) if k]
    return float(spearmanr(x, y).statistic) if len(set(x)) > 1 and len(set(y)) > 1 else float("nan")


def _coupled(table: pd.DataFrame, arch: str) -> pd.DataFrame:
    """Coupled rows of one arch at its largest step size (the sharpest EoS), sorted by lambda (a main or run table)."""
    if table is None or not len(table):
        return table.iloc[0:0] if table is not None and "wd" in table else pd.DataFrame(columns=["arch", "decay", "eta",
                                                                                                  "wd", "seed"])
    rows = table[(table.arch == arch) & (table.decay == "coupled")]
    return rows[rows.eta == rows.eta.max()].sort_values(["wd"] + (["seed"] if "seed" in rows else []), kind="stable")


def per_seed(runs: pd.DataFrame, statistic) -> dict[int, float]:
    """{run seed: statistic(that seed's runs, sorted by lambda)}."""
    return {int(seed): statistic(group.sort_values("wd")) for seed, group in runs.groupby("seed", sort=True)}


def spearman_by_seed(runs: pd.DataFrame, value: str) -> dict[int, float]:
    """Spearman(lambda, value) of each seed (NaN when the value or lambda is constant: the seed is missing)."""
    return per_seed(runs, lambda g: _spearman(g.wd, g[value]))


def log_change(group: pd.DataFrame, value: str) -> float:
    """Least-squares slope of log(value) on lambda within one seed, times the lambda range: the fitted change of log
    value over the grid (NaN with fewer than two positive values or no spread in lambda)."""
    y = pd.to_numeric(group[value], errors="coerce").to_numpy(dtype=float)
    x = group.wd.to_numpy(dtype=float)
    ok = np.isfinite(y) & (y > 0)
    x, y = x[ok], np.log(y[ok])
    if len(x) < 2 or np.ptp(x) <= 0:
        return float("nan")
    xc = x - x.mean()
    return float((xc * (y - y.mean())).sum() / (xc ** 2).sum() * np.ptp(x))


def log_change_by_seed(runs: pd.DataFrame, value: str) -> dict[int, float]:
    return per_seed(runs, lambda g: log_change(g, value))


def censored_kendall(x, value, bound, censored, side: str, upper=None) -> float:
    """Kendall's tau between x and a value some of whose entries are censored (issue #71 item 2), over all pairs with
    both entries defined: a pair counts +1 (or -1) when its order is certain, 0 when censoring leaves it open or the
    values tie. side 'upper': a censored entry is only known to lie below its bound (a rate); 'lower': above it (a
    time). upper: for observed entries, the upper end of the half-open interval [value, upper) the checkpoint grid
    allows (a rate; summary.sharpening_rate_upper); None or NaN: the value is exact. No censored entry is ever
    replaced by its bound. NaN with no pair of defined entries at different x."""
    upper = [float("nan")] * len(x) if upper is None else upper
    entries = []  # (x, low, high, low open, high open)
    for xi, v, b, c, u in zip(x, value, bound, censored, upper):
        if bool(c) and np.isfinite(b):
            entries.append((float(xi), -np.inf, b, True, True) if side == "upper" else (float(xi), b, np.inf, True, True))
        elif np.isfinite(v):
            entries.append((float(xi), v, u, False, True) if not np.isnan(u) else (float(xi), v, v, False, False))
    score, pairs = 0, 0
    for xa, lo_a, hi_a, lo_open_a, hi_open_a in entries:
        for xb, lo_b, hi_b, lo_open_b, hi_open_b in entries:
            if xa >= xb:
                continue
            pairs += 1
            if lo_b > hi_a or (lo_b == hi_a and (hi_open_a or lo_open_b)):
                score += 1
            elif hi_b < lo_a or (hi_b == lo_a and (hi_open_b or lo_open_a)):
                score -= 1
    return score / pairs if pairs else float("nan")


def kendall_by_seed(runs: pd.DataFrame, value: str, bound: str, censored: str, side: str,
                    upper: str | None = None) -> dict[int, float]:
    def tau(g):
        hi = g[upper].to_numpy(dtype=float) if upper and upper in g else None
        return censored_kendall(g.wd.to_numpy(), g[value].to_numpy(dtype=float), g[bound].to_numpy(dtype=float),
                                g[censored].to_numpy(), side, hi)

    return per_seed(runs, tau)


def within_seed_trend(runs: pd.DataFrame, value: str) -> dict:
    """The pooled trend of issue 29 (kept as an ablation beside the per-seed test, and for pilots/cnn_pilot.py):
    least-squares slope of log(value) on lambda over every run, with one intercept per seed, its standard error from
    the residuals (runs - seeds - 1 degrees of freedom) and t = slope / SE. Runs with a missing or non-positive value are
    left out, and so is a seed with fewer than two lambdas left. `change`: exp(slope x lambda range) - 1. NaN without a
    residual degree of freedom or without spread in lambda."""
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


def at_wd(runs: pd.DataFrame, wd: float, value: str) -> dict[int, float]:
    """{seed: value} of the runs at one lambda."""
    rows = runs[np.isclose(runs.wd.astype(float), wd)]
    return {int(s): float(v) for s, v in zip(rows.seed, rows[value])}


def plateau_ratio(runs: pd.DataFrame) -> pd.Series:
    """plateau / (2/eta - lambda), per run (the stability threshold of coupled decay)."""
    return runs.plateau / runs.threshold


def two_over_eta_deviation(runs: pd.DataFrame) -> pd.Series:
    """|plateau / (2/eta) - 1|, per run."""
    return (runs.plateau * runs.eta / 2.0 - 1.0).abs()


def amplitude_runs(cnn_runs: pd.DataFrame) -> pd.DataFrame:
    """The CNN runs whose seed has a complete EoS window at every lambda (the common-seed rule; README)."""
    if not len(cnn_runs):
        return cnn_runs
    return cnn_runs[cnn_runs.seed.isin(summary.common_seeds(cnn_runs))]


def transition_wd(main: pd.DataFrame, ratio_max: float) -> tuple[float, float | None]:
    """(transition lambda, the grid lambda just below it or None): the smallest lambda > 0 whose seed-mean MLP plateau
    ratio is below ratio_max (else the largest lambda), from tables/main.csv, as before v2."""
    mlp = _coupled(main, "mlp")
    if not len(mlp):
        return float("nan"), None
    below = mlp[(mlp.wd > 0) & (mlp.plateau_ratio < ratio_max)]
    wd = float(below.wd.iloc[0] if len(below) else mlp.wd.iloc[-1])
    lower = [float(w) for w in mlp.wd if 0 < float(w) < wd]
    return wd, (max(lower) if lower else None)


# --- the tests, as functions of one run table (the runs' or a control's), so controls reuse them exactly -----------


def sharpening_test(runs: pd.DataFrame, arch: str) -> SeedTest:
    """Per seed, the censored Kendall tau of (lambda, rate of progressive sharpening); a slower rate at larger lambda
    gives tau < 0. Censored rates (no onset within the run) enter only through the pairs their bound orders."""
    return SeedTest(f"{arch} censored Kendall tau(lambda, rate of progressive sharpening) per seed",
                    kendall_by_seed(_coupled(runs, arch), "sharpening_rate", "sharpening_rate_bound", "rate_censored",
                                    "upper", "sharpening_rate_upper"), "<", 0.0)


def sharpening_time_ablation(runs: pd.DataFrame, arch: str) -> SeedTest:
    """The brief's measure, an ablation since issue #71 (it decides nothing): per seed Kendall tau of (lambda, time to
    0.9 x 2/eta), with unreached runs censored (known only to exceed their last step), interval above 0."""
    rows = _coupled(runs, arch)
    rows = rows.assign(time_censored=~rows.reached.astype(bool)) if len(rows) else rows.assign(time_censored=[])
    return SeedTest(f"{arch} censored Kendall tau(lambda, time to 0.9 x 2/eta) per seed (ablation)",
                    kendall_by_seed(rows, "sharpening_time", "sharpening_time_bound", "time_censored", "lower"),
                    ">", 0.0)


def amplitude_test(runs: pd.DataFrame) -> SeedTest:
    cnn = _coupled(runs, "cnn")
    kept = amplitude_runs(cnn)
    values = {int(s): float("nan") for s in cnn.seed.unique()}  # seeds without a window at every lambda: missing
    values.update(log_change_by_seed(kept, "osc_amplitude") if len(kept) else {})
    return SeedTest("cnn change of log EoS amplitude over the lambda grid per seed", values, "<", 0.0)


def band_test(runs: pd.DataFrame, bound: float) -> SeedTest:
    cnn = _coupled(runs, "cnn")
    return SeedTest("cnn max over lambda of |plateau / (2/eta) - 1| per seed",
                    per_seed(cnn.assign(dev=two_over_eta_deviation(cnn)), lambda g: float(g.dev.max())), "<", bound)


def velocity_test(runs: pd.DataFrame, arch: str) -> SeedTest:
    return SeedTest(f"{arch} change of log late kernel velocity over the lambda grid per seed",
                    log_change_by_seed(_coupled(runs, arch), "kernel_velocity"), "<", 0.0)


def alignment_test(runs: pd.DataFrame, arch: str, wd: float | None) -> SeedTest:
    rows = _coupled(runs, arch)
    values = {} if wd is None or not np.isfinite(wd) else paired(at_wd(rows, wd, "alignment"),
                                                                   at_wd(rows, 0.0, "alignment"))
    label = "none" if wd is None else f"{wd:g}"
    return SeedTest(f"{arch} |alpha| at lambda {label} minus at lambda 0 per seed", values, ">", 0.0)


def _ratio_at(runs: pd.DataFrame, arch: str, which: str, flat_only: bool = False) -> dict[int, float | None]:
    """Per seed, at the arch's largest (or smallest) lambda: the MLP's plateau / (2/eta - lambda) or the CNN's
    |plateau / (2/eta) - 1|. flat_only: a run whose S is not flat over its late window (the slope's interval excludes
    0: still sharpening or decaying) has no plateau, so its seed is missing (issue #71 item 3), never read as one."""
    rows = _coupled(runs, arch)
    if not len(rows):
        return {}
    wd = float(rows.wd.max() if which == "max" else rows.wd.min())
    return _plateau_values(rows, arch, wd, flat_only)


def _plateau_values(rows: pd.DataFrame, arch: str, wd: float, flat_only: bool) -> dict[int, float | None]:
    rows = rows[np.isclose(rows.wd.astype(float), wd)]
    rows = rows.assign(value=plateau_ratio(rows) if arch == "mlp" else two_over_eta_deviation(rows))
    flat = rows.flat.astype(bool) if flat_only and "flat" in rows else pd.Series(True, index=rows.index)
    return {int(s): (float(v) if f else None) for s, v, f in zip(rows.seed, rows.value, flat)}


def matched_cnn_wd(runs: pd.DataFrame, mlp_wd: float) -> tuple[float | None, float, float]:
    """(the smallest CNN lambda whose eta x lambda reaches the MLP's at its transition lambda, or None when the CNN grid
    stops short of it; the MLP's eta x lambda; the CNN's largest eta x lambda). Issue #71 item 3: the contrast is read
    at matched strength only, never from a CNN grid too weak to cause a transition."""
    mlp, cnn = _coupled(runs, "mlp"), _coupled(runs, "cnn")
    if not len(mlp) or not len(cnn) or not np.isfinite(mlp_wd):
        return None, float("nan"), float("nan")
    target = float(mlp.eta.max()) * mlp_wd
    eta = float(cnn.eta.max())
    strong = sorted(float(w) for w in cnn.wd.unique() if eta * float(w) >= target * (1 - 1e-9))
    return (strong[0] if strong else None), target, eta * float(cnn.wd.max())


def architecture_tests(runs: pd.DataFrame, mlp_wd: float, ratio_max: float, band: float) -> list[SeedTest]:
    """MLP plateau ratio at its transition lambda below ratio_max, and the CNN's |plateau / (2/eta) - 1| below band at
    the matched lambda (missing when the grid stops short); both only from runs whose S is flat."""
    cnn_wd, target, cnn_max = matched_cnn_wd(runs, mlp_wd)
    mlp = _plateau_values(_coupled(runs, "mlp"), "mlp", mlp_wd, True) if np.isfinite(mlp_wd) else {}
    cnn = {} if cnn_wd is None else _plateau_values(_coupled(runs, "cnn"), "cnn", cnn_wd, True)
    where = (f"lambda {cnn_wd:g}" if cnn_wd is not None else
             f"none: the CNN's largest eta x lambda {cnn_max:.2g} is below the MLP's {target:.2g}")
    return [SeedTest(f"mlp plateau / (2/eta - lambda) at its largest lambda {mlp_wd:g}, flat runs, per seed", mlp,
                     "<", ratio_max),
            SeedTest(f"cnn |plateau / (2/eta) - 1| at matched eta x lambda ({where}), flat runs, per seed", cnn,
                     "<", band)]


# --- positive controls ---------------------------------------------------------------------------------------------


def seed_interval_mean(test: SeedTest) -> float:
    return seed_interval(test.per_seed.values())[0]


def windows(cfg) -> dict[str, int | None]:
    """arch -> its EoS stopping rule (grid.<arch>.eos_checkpoints), as the table stages pass it."""
    return {arch: eos_window(cfg, arch) for arch in cfg.grid}


def control_runs(traces: pd.DataFrame, cfg) -> pd.DataFrame:
    """A control's traces summarised by the runs' code (one row per control 'seed' and lambda)."""
    s = cfg.summary
    return summary.run_table(traces, float(s.sharpening_fraction), float(s.late_fraction), windows(cfg))


def positive_controls(cfg) -> dict[str, Control]:
    sharp = control_runs(controls.sharpening_traces(list(cfg.grid.mlp.wds)), cfg)
    cnn_steps, cnn_freq = budget(cfg, "cnn")
    cnn_eta = float(max(cfg.grid.cnn.etas))
    window = eos_window(cfg, "cnn")
    osc = control_runs(controls.oscillation_traces(cnn_eta, list(cfg.grid.cnn.wds), cnn_steps, cnn_freq, window), cfg)
    return {
        "sharpening_slows": Control(
            "deep_scalar_network", "positive",
            "GD with coupled weight decay on a depth-3 scalar linear network (f = w1 w2 w3, y = 1, 2/eta = "
            f"{controls.CONTROL_TWO_OVER_ETA:g}, below the minimum's sharpness 3, so it enters the EoS; exact Hessian), "
            f"three 'seeds' = initialisations w = {', '.join(f'{w:g}' for w in controls.CONTROL_INITS)}, lambda over "
            "the MLP grid: weight decay opposes the weights' growth, so sharpening slows by construction; the same "
            "per-seed censored Kendall test of the sharpening rate",
            sharpening_test(sharp, "mlp")),
        "cnn_damped_oscillations": Control(
            "damped_eos_model", "positive",
            f"linearised self-stabilisation model at the CNN point (2/eta = {2 / cnn_eta:.3g}, cap {cnn_steps} steps, "
            f"checkpoints every {cnn_freq}, stopped {window} checkpoints after the EoS onset as the runs are): S rises "
            "to 2/eta, then oscillates around it with amplitude 0.05, 0.1, 0.15 x 2/eta (three 'seeds', periods 120-180 "
            "steps) damped at rate 0.5 lambda per step, lambda over the CNN grid; the same per-seed amplitude test",
            amplitude_test(osc)),
    }


# --- the claims ----------------------------------------------------------------------------------------------------


def measure(main: pd.DataFrame, runs: pd.DataFrame, cfg) -> dict:
    """Values shown beside the tests (not in any verdict): the seed-mean ablations of the criteria before v2."""
    m: dict = {}
    for arch in ("mlp", "cnn"):
        rows = _coupled(main, arch)
        if not len(rows):
            continue
        m[f"sharpening_spearman_{arch}_seed_means"] = _spearman(rows.wd, rows.sharpening_time)  # reached runs only
        m[f"velocity_spearman_{arch}_seed_means"] = _spearman(rows.wd, rows.kernel_velocity)
        m[f"largest_eta_x_lambda_{arch}"] = float(rows.eta.iloc[-1] * rows.wd.max())
    cnn = _coupled(main, "cnn")
    if len(cnn):
        m["cnn_eos_common_seeds"] = int(cnn.eos_common_seeds.min()) if "eos_common_seeds" in cnn else 0
        m["cnn_eos_reached_min"] = float(cnn.eos_reached_fraction.min())
        if "eos_complete_fraction" in cnn:
            m["cnn_eos_complete_min"] = float(cnn.eos_complete_fraction.min())
        m["cnn_osc_spearman_common_seed_means"] = _spearman(cnn.wd, cnn.osc_amplitude_common) \
            if "osc_amplitude_common" in cnn else float("nan")
        m["cnn_osc_std_late_spearman"] = _spearman(cnn.wd, cnn.osc_std_late)
        m["cnn_loss_osc_spearman"] = _spearman(cnn.wd, cnn.loss_osc)
    mlp = _coupled(main, "mlp")
    if len(mlp):
        m["mlp_ratio_zero_wd_seed_mean"] = float(mlp.plateau_ratio.iloc[0])
        m["mlp_ratio_max_wd_seed_mean"] = float(mlp.plateau_ratio.iloc[-1])
        wd, _ = transition_wd(main, float(cfg.claims.mlp_ratio_max))
        m["mlp_transition_wd"] = wd
    mlp_runs, cnn_runs = _coupled(runs, "mlp"), _coupled(runs, "cnn")
    for arch, rows in (("mlp", mlp_runs), ("cnn", cnn_runs)):
        if len(rows):
            m[f"{arch}_censored_sharpening_runs"] = int((~rows.reached.astype(bool)).sum())
            if "rate_censored" in rows:
                m[f"{arch}_censored_rate_runs"] = int(rows.rate_censored.astype(bool).sum())
            m[f"{arch}_sharpening_time_kendall_ablation"] = seed_interval_mean(sharpening_time_ablation(runs, arch))
    for arch, rows in (("mlp", mlp_runs), ("cnn", cnn_runs)):  # the pooled t of issue 29 (ablation)
        if len(rows):
            m[f"velocity_pooled_trend_t_{arch}"] = within_seed_trend(rows, "kernel_velocity")["t"]
    if len(cnn_runs):
        m["cnn_osc_pooled_trend_t"] = within_seed_trend(amplitude_runs(cnn_runs), "osc_amplitude")["t"]
    return m


def development_note(cfg, dev: pd.DataFrame) -> dict:
    """What the claims stage refused (issue #71 item 1): the development runs it excluded and their seeds."""
    n = 0 if dev is None else int(len(dev))
    seeds = {int(x) for x in dev.seed} if n else set()
    return {"development_runs_excluded": n, "development_seeds_excluded": len(seeds),
            "fresh_offset": preregistration.fresh_offset(cfg)}


def build(main: pd.DataFrame, runs: pd.DataFrame, cfg) -> list[Claim]:
    """claims.json from tables/runs.csv (one row per run: every test's per-seed values; the seed means, e.g. the MLP
    transition lambda, are recomputed from the fresh runs). Development runs (preregistration.py) are excluded and
    counted; with no fresh run left every claim is untested. The ablations of measure() are shown in `measured`."""
    runs, dev = preregistration.split_runs(runs, cfg)
    note = development_note(cfg, dev)
    if not len(runs):
        why = (f"no fresh run: {note['development_runs_excluded']} development run(s) excluded (seeds used while the "
               "design was built; preregistration in config/wd_eos/config.yaml): no verdict is read from them")
        return [Claim(c.id, c.statement, c.criterion, [], c.evidence, c.paper_value, decided_at=c.decided_at,
                      why_not_tested=c.why_not_tested or why, measured=note)
                for c in claims_from(pd.DataFrame(), _empty_runs(), cfg)]
    if len(dev):
        main = summary.aggregate(runs, windows(cfg))
    return [_with_note(c, note) for c in claims_from(main, runs, cfg)]


def _with_note(claim: Claim, note: dict) -> Claim:
    claim.measured = {**claim.measured, **note}
    return claim


def _empty_runs() -> pd.DataFrame:
    return pd.DataFrame(columns=["arch", "decay", "eta", "wd", "seed", "reached", "sharpening_time",
                                 "sharpening_time_bound", "sharpening_rate", "sharpening_rate_bound", "rate_censored",
                                 "plateau", "threshold", "flat", "alignment", "kernel_velocity", "osc_amplitude",
                                 "eos_measured"])


def claims_from(main: pd.DataFrame, runs: pd.DataFrame, cfg) -> list[Claim]:
    """The claims from the fresh runs' tables."""
    c = cfg.claims
    ratio_max, band = float(c.mlp_ratio_max), float(c.cnn_band)
    pc = positive_controls(cfg)
    m = measure(main, runs, cfg) if len(runs) else {}
    wd_t, wd_below = transition_wd(main, ratio_max) if len(main) else (float("nan"), None)
    mlp = _coupled(runs, "mlp")
    mlp_wd_max = float(mlp.wd.max()) if len(mlp) else float("nan")
    cnn_wd, target, cnn_max = matched_cnn_wd(runs, mlp_wd_max)
    claims = [
        Claim("sharpening_slows", "Weight decay robustly slows progressive sharpening (MLP and CNN).",
              "per run seed (coupled, largest eta, per arch): the rate of progressive sharpening of each run, (2/eta - "
              "lambda - S_0) / (step of the EoS onset), and its censored Kendall tau with lambda (an onset seen at "
              "checkpoint k is a crossing in (t_(k-1), t_k], so the rate lies in an interval and onsets in the same "
              "interval are not ordered; a run that never reaches the onset is censored: its rate is only known to lie "
              "below (2/eta - lambda - S_0) / its last step; a pair counts only when its order is certain; never "
              "imputed): 95% t interval below 0 for the MLP "
              "and for the CNN. Ablation (decides nothing): the same tau of the time to 0.9 x 2/eta, censored",
              [sharpening_test(runs, "mlp"), sharpening_test(runs, "cnn")],
              MAIN + ["figures/sharpness_traces_mlp.png", "figures/sharpness_traces_cnn.png"], paper_value(),
              controls=[pc["sharpening_slows"]],
              measured={k: m[k] for k in ("sharpening_spearman_mlp_seed_means", "sharpening_spearman_cnn_seed_means",
                                          "mlp_sharpening_time_kendall_ablation",
                                          "cnn_sharpening_time_kendall_ablation", "mlp_censored_sharpening_runs",
                                          "cnn_censored_sharpening_runs", "mlp_censored_rate_runs",
                                          "cnn_censored_rate_runs") if k in m}),
        Claim("architecture_dependent_transition", "Weight decay causes an architecture-dependent phase transition: "
              "sharpness falls well below 2/eta in MLPs while CNNs stay at 2/eta.",
              f"per run seed, coupled, largest eta, only runs whose S is flat over the late window (slope interval "
              f"contains 0): MLP plateau / (2/eta - lambda) at its largest lambda, 95% t interval below {ratio_max:g}, "
              f"and CNN |plateau / (2/eta) - 1| at the smallest CNN lambda whose eta x lambda reaches the MLP's "
              f"({target:.2g}), interval below {band:g} (missing when the CNN grid stops short: its largest is "
              f"{cnn_max:.2g}); decided at scale=long (issue #71: matched activation and 2/eta, a CNN grid to the "
              "MLP's strength and beyond, runs until S is flat)",
              architecture_tests(runs, mlp_wd_max, ratio_max, band),
              MAIN + ["figures/plateau_vs_wd.png"], paper_value(), decided_at="long",
              measured={"mlp_eta_x_lambda_max": target, "cnn_eta_x_lambda_max": cnn_max,
                        "cnn_matched_wd": cnn_wd if cnn_wd is not None else float("nan")}),
        Claim("cnn_damped_oscillations", "In CNNs, weight decay dampens the oscillations at the EoS (sharpness stays "
              "at 2/eta).",
              f"per run seed (CNN, coupled, largest eta): max over lambda of |plateau / (2/eta) - 1|, 95% t interval "
              f"below {band:g}; and the change of log EoS amplitude (mean |S_k - S_k-1| / (2/eta) from the onset) over "
              "the lambda grid (least-squares slope x range), interval below 0, over the seeds with a complete EoS "
              "window at every lambda (others missing, never imputed)",
              [amplitude_test(runs), band_test(runs, band)],
              MAIN + ["figures/plateau_vs_wd.png", "figures/sharpness_traces_cnn.png"], paper_value(),
              controls=[pc["cnn_damped_oscillations"]],
              measured={k: m[k] for k in ("cnn_eos_common_seeds", "cnn_eos_reached_min", "cnn_eos_complete_min",
                                          "cnn_osc_spearman_common_seed_means", "cnn_osc_pooled_trend_t",
                                          "cnn_osc_std_late_spearman",
                                          "cnn_loss_osc_spearman") if k in m}),
        Claim("mlp_below_threshold", "In MLPs, increasing weight decay causes a phase transition in which the "
              "sharpness stabilizes at a threshold significantly below 2/eta.",
              f"per run seed (MLP, coupled, largest eta): plateau / (2/eta - lambda) at the largest lambda, only from "
              f"runs whose S is flat over the late window (slope interval contains 0; a run still sharpening is "
              f"missing, never read as a plateau), 95% t interval below {ratio_max:g}, and at lambda = 0, interval "
              f"above {ratio_max:g}; decided at scale=long: default's 400 steps cannot run the MLP until S is flat "
              "(issue #71)",
              [SeedTest("mlp plateau / (2/eta - lambda) at the largest lambda, flat runs, per seed",
                        _ratio_at(runs, "mlp", "max", flat_only=True), "<", ratio_max),
               SeedTest("mlp plateau / (2/eta - lambda) at lambda 0 per seed", _ratio_at(runs, "mlp", "min"),
                        ">", ratio_max)],
              MAIN + ["figures/plateau_vs_wd.png", "figures/sharpness_traces_mlp.png"], paper_value(),
              decided_at="long",
              measured={k: m[k] for k in ("mlp_ratio_zero_wd_seed_mean", "mlp_ratio_max_wd_seed_mean") if k in m}),
        Claim("framework_models_phenomena", "We develop a mathematical framework that accurately models these "
              "phenomena.", "not tested", [], MAIN, paper_value(),
              why_not_tested="the paper's mathematical framework (its equations) could not be read: every stored copy "
              "of the paper holds only the abstract (README), so there is no model to compare with the runs"),
        Claim("alignment_drives_transition", "The global alignment of the parameter vector and the sharpness gradient "
              "is the mechanistic driver of the phase transition.",
              "per run seed (MLP, coupled, largest eta): late |cos(theta, grad S)| at the transition lambda (smallest "
              f"lambda > 0 whose seed-mean plateau ratio is below {ratio_max:g}, else the largest) minus at lambda = 0, "
              "95% t interval above 0; negative controls, required (must not hold): the same difference on the CNN at "
              "that lambda (no transition) and on the MLP at the grid lambda below its transition",
              [alignment_test(runs, "mlp", wd_t)], MAIN + ["figures/alignment.png"], paper_value(),
              controls=[
                  Control("cnn_no_transition", "negative", "the CNN (no transition at these lambdas): the same "
                          "per-seed |alpha| difference must not rise", alignment_test(runs, "cnn", wd_t)),
                  Control("mlp_below_transition", "negative", "the MLP at the grid lambda below its transition (no "
                          "transition yet; missing when the transition is the smallest lambda > 0): the same per-seed "
                          "|alpha| difference must not rise", alignment_test(runs, "mlp", wd_below))],
              measured={"mlp_transition_wd": wd_t}),
        Claim("ntk_stability", "These phenomena translate into stability in terms of search in function-space (NTK).",
              "per run seed, per arch (coupled, largest eta): the change of log late kernel velocity over the lambda "
              "grid (least-squares slope x range), 95% t interval below 0 for the MLP and for the CNN",
              [velocity_test(runs, "mlp"), velocity_test(runs, "cnn")], MAIN + ["figures/ntk_velocity.png"],
              paper_value(),
              measured={k: m[k] for k in ("velocity_spearman_mlp_seed_means", "velocity_spearman_cnn_seed_means",
                                          "velocity_pooled_trend_t_mlp", "velocity_pooled_trend_t_cnn") if k in m}),
    ]
    return claims
