"""The abstract's claims (contract v2): paired per-seed values from tables/per_seed.csv, each seed's rates over its
held-out layouts (percentage points); pooled numbers from tables/safelibero_proxy.csv and tables/trace_vs_contacts.csv
are shown beside them. Bounds are the ones fixed from the brief before the configured seeds ran (see JOURNAL.md)."""

from __future__ import annotations

import pandas as pd

from neurips26.common.pipeline.claims import MIN_SEEDS, Claim, Control, RuleTest, SeedTest, paired, seed_interval

CAR_GAIN = 15.0  # points: DODGE-IT's CAR above success-only RL's (brief)
SR_MARGIN = -5.0  # points: SR not more than 5 below the stronger of BC and success-only RL (non-inferiority)
WEAK_BASELINE = 0.0  # points: success-only RL's SR below BC's (an interval wholly below this) marks a weak baseline
CBF_CAR_GAIN = 15.0  # points: the CBF filter's CAR above BC's at level II
CBF_SR_LOSS = 5.0  # points: DODGE-IT's SR above the CBF filter's at level II (the filter "fails the task")
CBF_STEPS = 1.1  # the CBF filter's steps over DODGE-IT's at level II (the filter "slows the task")
TRACE_BOUND = 0.9  # precision and recall of TRACE's collision outcomes against MuJoCo contacts, and its relevance accuracy

PAPER = {"value": None, "where": "the paper's SafeLIBERO tables (SR / CAR per suite and level) and its real-robot "
                                 "table; the paper's text is not in this repository, so no number is copied here"}


def _by_seed(per_seed: pd.DataFrame, method: str, level: str, column: str) -> dict:
    rows = per_seed[(per_seed["method"] == method) & (per_seed["level"] == level)]
    return {int(s): float(v) for s, v in zip(rows["seed"], rows[column])}


def _cell(proxy: pd.DataFrame, method: str, level: str, column: str) -> float:
    row = proxy[(proxy["method"] == method) & (proxy["level"] == level)]
    return float(row[column].iloc[0]) if len(row) else float("nan")


def _ratio(a: dict, b: dict) -> dict:
    return {s: (a[s] / b[s] if b[s] else float("nan")) for s in sorted(set(a) & set(b))}


def _stronger(a: dict, b: dict) -> dict:
    """Per seed, the higher of two methods' values (task completion is judged against the stronger reference)."""
    return {s: max(a[s], b[s]) for s in sorted(set(a) & set(b))}


def _avoidance_tests(per_seed: pd.DataFrame, method: str, label: str) -> list[SeedTest]:
    """CAR gain over success-only RL, and SR against the stronger of BC and success-only RL per seed."""
    car = paired(_by_seed(per_seed, method, "all", "car"), _by_seed(per_seed, "success_rl", "all", "car"))
    reference = _stronger(_by_seed(per_seed, "bc", "all", "sr"), _by_seed(per_seed, "success_rl", "all", "sr"))
    sr = paired(_by_seed(per_seed, method, "all", "sr"), reference)
    return [SeedTest(f"CAR gain {label} - success-only RL (points)", car, ">", CAR_GAIN),
            SeedTest(f"SR difference {label} - max(BC, success-only RL) (points)", sr, ">", SR_MARGIN)]


def _converged(runs: pd.DataFrame) -> RuleTest:
    """Every GRPO run of the run met the budget's convergence rule (convergence.py); missing without runs."""
    converged, total = int(runs["converged"].sum()), len(runs)
    return RuleTest(
        "GRPO runs meeting the convergence rule", {"converged": converged if total else None, "runs": total},
        holds_if="converged == runs", fails_if="converged < runs",
        rule="every RL run's training success and simulator collision rates moved <= 5 points between its last two "
             "10-iteration windows (tables/convergence.csv)")


def _controls(per_seed: pd.DataFrame, runs: pd.DataFrame) -> list[Control]:
    contact = _avoidance_tests(per_seed, "contact_rl", "contact-penalty RL")
    weak = SeedTest("SR success-only RL - BC (points)",
                    paired(_by_seed(per_seed, "success_rl", "all", "sr"), _by_seed(per_seed, "bc", "all", "sr")),
                    "<", WEAK_BASELINE)
    return [
        Control("contact_penalty_rl", "positive", "the same two tests with GRPO on the simulator's contact signal as the "
                "penalty (same BC start, KL anchor, input and budget) in place of DODGE-IT: a learned policy can pass "
                "them when the collision signal is exact", _both(*contact, "contact-penalty RL: both tests")),
        Control("success_rl_not_below_bc", "negative", "a weak success-only baseline: SR success-only RL - BC per seed; "
                f"the control fails when its 95% t interval lies wholly below {WEAK_BASELINE:g} (RL lost the reward it "
                "optimises)", weak),
        Control("budget_converged", "positive", "the budget is enough: every GRPO run (three rewards x seeds) meets the "
                "convergence rule fixed on the pilot seeds; an unconverged budget cannot decide the claim",
                _converged(runs))]


def _dodge_vs_success(proxy: pd.DataFrame, per_seed: pd.DataFrame, runs: pd.DataFrame) -> Claim:
    return Claim(
        "dodge_vs_success_rl", "using TRACE's collision outcomes as RL feedback (DODGE-IT) improves obstacle avoidance "
        "while preserving task completion, compared with RL on task success alone (embedded MuJoCo tabletop, MLP policy "
        "on perceived objects)",
        f"paired per-seed differences over held-out layouts (both levels): CAR DODGE-IT - success-only RL, 95% t "
        f"interval above {CAR_GAIN:g} points, and SR DODGE-IT - max(BC, success-only RL) (per seed), 95% t interval "
        f"above {SR_MARGIN:g} points (non-inferiority)",
        _avoidance_tests(per_seed, "dodge_rl", "DODGE-IT"),
        ["tables/per_seed.csv", "tables/safelibero_proxy.csv", "tables/convergence.csv", "figures/sr_car_scatter.png",
         "figures/rl_curves.png", "figures/rollout_frames.png"],
        PAPER, source="abstract", controls=_controls(per_seed, runs), decided_at="long",
        measured={"pooled_car_dodge": _cell(proxy, "dodge_rl", "all", "car"),
                  "pooled_car_success": _cell(proxy, "success_rl", "all", "car"),
                  "pooled_car_contact": _cell(proxy, "contact_rl", "all", "car"),
                  "pooled_sr_dodge": _cell(proxy, "dodge_rl", "all", "sr"),
                  "pooled_sr_success": _cell(proxy, "success_rl", "all", "sr"),
                  "pooled_sr_contact": _cell(proxy, "contact_rl", "all", "sr"),
                  "pooled_sr_bc": _cell(proxy, "bc", "all", "sr"),
                  "rl_runs_converged": int(runs["converged"].sum()), "rl_runs": len(runs)})


def _interval(test: SeedTest) -> tuple[float, float, float]:
    """(mean, low, high) of a SeedTest's 95% t interval; NaN (a missing value for a rule) below 3 seeds."""
    if test.n < MIN_SEEDS:
        return float("nan"), float("nan"), float("nan")
    return seed_interval(test.per_seed.values(), test.level)


def _both(a: SeedTest, b: SeedTest, name: str) -> RuleTest:
    ma, la, ha = _interval(a)
    mb, lb, hb = _interval(b)
    return RuleTest(
        name, {"a_mean": ma, "a_low": la, "a_high": ha, "b_mean": mb, "b_low": lb, "b_high": hb},
        holds_if=f"a_low > {a.bound} and b_low > {b.bound}",
        fails_if=f"a_high < {a.bound} or b_high < {b.bound}",
        rule=f"two 95% t intervals over seeds (n - 1 df): a = {a.name} above {a.bound}, b = {b.name} above {b.bound}; "
             "holds when both lie above their bounds, fails when either lies below, else inconclusive",
        per_seed={s: a.per_seed[s] for s in a.per_seed})


def _cbf(proxy: pd.DataFrame, per_seed: pd.DataFrame) -> Claim:
    car = SeedTest("CBF CAR gain over BC, level II (points)",
                   paired(_by_seed(per_seed, "bc_cbf", "II", "car"), _by_seed(per_seed, "bc", "II", "car")),
                   ">", CBF_CAR_GAIN)
    sr = SeedTest("SR DODGE-IT - CBF, level II (points)",
                  paired(_by_seed(per_seed, "dodge_rl", "II", "sr"), _by_seed(per_seed, "bc_cbf", "II", "sr")),
                  ">", CBF_SR_LOSS)
    steps = SeedTest("steps CBF / DODGE-IT, level II (successful episodes)",
                     _ratio(_by_seed(per_seed, "bc_cbf", "II", "steps_success"),
                            _by_seed(per_seed, "dodge_rl", "II", "steps_success")), ">", CBF_STEPS)
    sr_mean, sr_lo, sr_hi = _interval(sr)
    st_mean, st_lo, st_hi = _interval(steps)
    cost = RuleTest(
        "CBF cost at level II: SR loss or slowdown against DODGE-IT",
        {"sr_loss_mean": sr_mean, "steps_ratio_mean": st_mean, "sr_loss_low": sr_lo, "sr_loss_high": sr_hi,
         "steps_ratio_low": st_lo, "steps_ratio_high": st_hi},
        holds_if=f"sr_loss_low > {CBF_SR_LOSS} or steps_ratio_low > {CBF_STEPS}",
        fails_if=f"sr_loss_high < {CBF_SR_LOSS} and steps_ratio_high < {CBF_STEPS}",
        rule=f"the old criterion's 'or' over two 95% t intervals (n - 1 df) of paired per-seed values at level II: "
             f"SR DODGE-IT - CBF above {CBF_SR_LOSS:g} points, or steps CBF / DODGE-IT above {CBF_STEPS:g}; holds when "
             "either interval lies above its bound, fails when both lie below, else inconclusive")
    return Claim(
        "safety_filter_costs", "motion planners / safety filters avoid obstacles but may slow, disrupt or fail the task: "
        "the CBF-QP filter raises CAR over BC but, at level II, loses success or adds steps compared with DODGE-IT",
        f"level II, paired per seed: CBF - BC CAR 95% t interval above {CBF_CAR_GAIN:g} points, and (DODGE-IT - CBF SR "
        f"interval above {CBF_SR_LOSS:g} points or CBF / DODGE-IT steps interval above {CBF_STEPS:g})",
        [car, cost], ["tables/per_seed.csv", "tables/safelibero_proxy.csv", "figures/sr_car_scatter.png"], PAPER,
        per_seed={"SR DODGE-IT - CBF, level II": sr.per_seed, "steps CBF / DODGE-IT, level II": steps.per_seed},
        measured={"pooled_car_cbf_II": _cell(proxy, "bc_cbf", "II", "car"),
                  "pooled_car_bc_II": _cell(proxy, "bc", "II", "car"),
                  "pooled_sr_cbf_II": _cell(proxy, "bc_cbf", "II", "sr"),
                  "pooled_sr_dodge_II": _cell(proxy, "dodge_rl", "II", "sr"),
                  "pooled_steps_cbf_II": _cell(proxy, "bc_cbf", "II", "steps_success"),
                  "pooled_steps_dodge_II": _cell(proxy, "dodge_rl", "II", "steps_success"),
                  "pooled_sr_pf_II": _cell(proxy, "potential_field", "II", "sr"),
                  "pooled_car_pf_II": _cell(proxy, "potential_field", "II", "car")})


def _trace(agreement: pd.DataFrame, per_seed: pd.DataFrame) -> Claim:
    cells = per_seed[per_seed["level"] == "all"].groupby("seed")[
        ["trace_tp", "trace_fp", "trace_fn", "relevance_correct", "episodes"]].sum()
    precision = {int(s): (r.trace_tp / (r.trace_tp + r.trace_fp) if r.trace_tp + r.trace_fp else float("nan"))
                 for s, r in cells.iterrows()}
    recall = {int(s): (r.trace_tp / (r.trace_tp + r.trace_fn) if r.trace_tp + r.trace_fn else float("nan"))
              for s, r in cells.iterrows()}
    relevance = {int(s): r.relevance_correct / r.episodes for s, r in cells.iterrows()}
    row = agreement[(agreement["method"] == "all") & (agreement["detector"] == "trace")].iloc[0]
    return Claim(
        "trace_agreement", "TRACE detects task-relevant obstacles from RGB-D and turns executions into collision outcomes "
        "that agree with the simulator's contact ground truth",
        f"per seed, over every method's held-out episodes (each layout has an irrelevant object 8-11 cm from the task "
        f"path): TRACE's precision and recall against MuJoCo contacts and its relevance accuracy (obstacle relevant, "
        f"distractor not), each 95% t interval above {TRACE_BOUND:g}",
        [SeedTest("TRACE precision vs contacts", precision, ">", TRACE_BOUND),
         SeedTest("TRACE recall vs contacts", recall, ">", TRACE_BOUND),
         SeedTest("TRACE relevance accuracy", relevance, ">", TRACE_BOUND)],
        ["tables/per_seed.csv", "tables/trace_vs_contacts.csv"], PAPER,
        measured={"pooled_precision": row["precision"], "pooled_recall": row["recall"], "episodes": row["episodes"],
                  "tp": row["tp"], "fp": row["fp"], "fn": row["fn"], "relevance_accuracy": row["relevance_accuracy"]})


def _vla() -> Claim:
    return Claim(
        "vla_safelibero_real", "on SafeLIBERO with VLA policies (OpenVLA-OFT) and on real robots DODGE-IT improves "
        "obstacle avoidance while preserving task completion",
        f"SafeLIBERO (4 suites x 4 tasks x 2 levels x 50 episodes), paired per seed: the same two tests as "
        f"dodge_vs_success_rl (CAR gain above {CAR_GAIN:g}, SR difference above {SR_MARGIN:g} points)",
        [], ["config.yaml"], PAPER, decided_at="paper", decided_data="real",
        why_not_tested="needs the SafeLIBERO/LIBERO assets, a VLA checkpoint (OpenVLA-OFT) and GPU RL, or a real robot; "
                       "data: real is not wired (the embedded run tests the same mechanism with a small MLP policy in a "
                       "MuJoCo tabletop: dodge_vs_success_rl)")


def build(proxy: pd.DataFrame, agreement: pd.DataFrame, per_seed: pd.DataFrame, runs: pd.DataFrame) -> list[Claim]:
    """`runs`: tables/convergence.csv (the budget's convergence rule per RL run, reported beside the claim)."""
    return [_dodge_vs_success(proxy, per_seed, runs), _cbf(proxy, per_seed), _trace(agreement, per_seed), _vla()]
