"""The paper's abstract claims as tests over paired per-seed values (claims contract v2; the bounds are those fixed
before any default run, see JOURNAL.md "2026-12-03: claims contract v2")."""

from __future__ import annotations

import pandas as pd

from neurips26.common.pipeline.claims import Claim, Control, SeedTest, paired
from neurips26.papers.mental_imagery.tables import FAMILIES

MARGIN = 0.1  # "clearly above" the best image-blind policy: 10 points of solve rate (fixed before the default run)
MEAN_SOLVE = 0.5  # "learns": A solves more than half the held-out puzzles, mean over families
PAPER_MEAN_A = 0.8  # twelve_tasks: the paper's 83% for actions only (the old criterion's bound, mean_A > 0.8)
SOLVE_EVIDENCE = ["tables/solve.csv", "tables/solve_seeds.csv", "figures/solve_rate_by_task.png"]
PROBE_BASELINES = ("copy", "untrained", "start_only", "goal_only")


def _solve(solve_seeds: pd.DataFrame, variant: str, family: str, column: str = "solve_rate") -> pd.Series:
    """{seed: value} of one variant ('blind' too) and family ('mean' = mean over families)."""
    rows = solve_seeds[(solve_seeds["variant"] == variant) & (solve_seeds["family"].astype(str) == family)]
    return rows.set_index("seed")[column] if column in rows else pd.Series(dtype=float)


def _learns(solve_seeds: pd.DataFrame) -> Claim:
    tests = [SeedTest("mean solve rate A", _solve(solve_seeds, "A", "mean"), ">", MEAN_SOLVE)]
    tests += [SeedTest(f"solve A - blind, {f}", paired(_solve(solve_seeds, "A", f), _solve(solve_seeds, "blind", f)),
                       ">", MARGIN) for f in FAMILIES]
    per_seed = {"blind mean solve rate": _solve(solve_seeds, "blind", "mean")}
    if "first_action" in solve_seeds:
        per_seed.update({"first action A (learnability control)": _solve(solve_seeds, "A", "mean", "first_action"),
                         "majority first action": _solve(solve_seeds, "blind", "mean", "first_action")})
    return Claim(
        "learns_puzzles", "By simply predicting the open-loop sequence of actions to solve a puzzle from an initial "
        "state, the model learns successfully (here: actions-only variant A, solve rate by replay on held-out puzzles, "
        "against the best image-blind constant action sequence)",
        f"mean solve rate of A over the five families per seed: 95% t interval above {MEAN_SOLVE}; and per family, "
        f"the paired per-seed difference A - blind: 95% t interval above {MARGIN} (all six must hold)",
        tests, SOLVE_EVIDENCE,
        paper_value={"value": 0.83, "where": "abstract: 'improves the average solve rate from 83% to 89%' (83%: "
                     "actions only, Qwen3.5 VLM on twelve tasks)"},
        per_seed=per_seed)


def _untrained(g: pd.DataFrame) -> pd.Series:
    """The untrained control the claim reads: the stronger of the random model and, with VLM pretraining, the
    pretrained-but-not-fine-tuned model (fixed before the finals of pilot 5)."""
    cols = [k for k in ("untrained", "pretrained") if k in g]
    return g[cols].max(axis=1)


def _probe_tests(mid: pd.DataFrame, kind: str, label: str) -> dict[str, SeedTest]:
    """Per family and baseline: `kind`'s changed-cell accuracy on the intermediate states minus the baseline's, paired
    on the seed (variant A, tables.table_probe_mid_seeds); one SeedTest '> 0' each. A family without intermediate
    held-out states has no values (not testable)."""
    g = mid[mid["variant"] == "A"].pivot_table(index=["family", "seed"], columns="kind", values="changed",
                                               observed=True)
    tests = {}
    for family in FAMILIES:
        for name in PROBE_BASELINES:
            key = f"{family}:{name}"
            label_of = f"{label} - {name}, {family} (changed cells, intermediate states)"
            if kind not in g or family not in g.index.get_level_values("family"):
                tests[key] = SeedTest(label_of, {}, ">", 0.0)
                continue
            f = g.xs(family, level="family")
            base = _untrained(f) if name == "untrained" else f[name]
            tests[key] = SeedTest(label_of, paired(f[kind], base), ">", 0.0)
    return tests


def _probes(mid: pd.DataFrame) -> Claim:
    tests = _probe_tests(mid, "trained", "probe")
    positive = _probe_tests(mid, "random_code", "random_code")
    setting = ("the same probe on a d-dimensional representation that holds the board by construction: [s_0, a fixed "
               "random Gaussian linear code of the true s_t] with as many numbers as h_t (pilot 5's rule); its margin "
               "over the same baseline in the same family must hold")
    controls = [Control("random_code_" + key.replace(":", "_"), "positive", setting, test)
                for key, test in positive.items()]
    a = mid[mid["variant"] == "A"]
    per_seed = {f"exact board {kind}, {family}": rows.set_index("seed")["exact"]
                for (kind, family), rows in a[a["kind"].isin(["trained", "goal_only", "random_code"])].groupby(
                    ["kind", "family"], observed=True)}
    return Claim(
        "probes_decode_state", "its hidden representations after each action encode meaningful visual information "
        "about the intermediate puzzle state (variant A, no visual supervision: linear probes from h_t to the board "
        "s_t on strictly intermediate states t < T, every probe also reading the start board)",
        "per family (five) and baseline (copy-the-start-board, max(untrained, pretrained-not-fine-tuned), start_only, "
        "goal_only = [s_0, goal board s_T]): the paired per-seed difference of changed-cell accuracy on the held-out "
        "intermediate states, trained - baseline, each probe's layer chosen on held-out fit puzzles: 95% t interval "
        "above 0 (all twenty must hold; one below 0 fails)",
        list(tests.values()), ["tables/probe_mid_seeds.csv", "tables/probe.csv", "figures/probe_acc_vs_step.png",
                               "figures/decoded_states.png"],
        paper_value={"value": None, "where": "abstract (no number): 'hidden representations after each action encode "
                     "meaningful visual information about the intermediate puzzle state'; the paper's probe figures"},
        controls=controls, per_seed=per_seed)


def _capped(solve_seeds: pd.DataFrame, cap: int) -> tuple[dict, str | None]:
    """The variant comparisons (B, C against A) are judged only at convergence: when some seed of A, B or C trained to
    the fine-tuning cap (train.max_steps) before the dev-plateau rule fired, the claim is not tested at this budget
    (decided by the session lead after pilot 7's finals; kept under contract v2). Measured, never typed."""
    steps = solve_seeds[solve_seeds["variant"].isin(["A", "B", "C"])].drop_duplicates(["variant", "seed"])
    most = steps.groupby("variant")["steps"].max() if "steps" in steps else pd.Series(dtype=float)
    measured = {"step_cap": cap, **{f"steps_max_{v}": float(n) for v, n in most.items()}}
    capped = [v for v, n in most.items() if n >= cap]
    why = (f"not testable at this budget: variant(s) {', '.join(capped)} trained to the fine-tuning cap "
           f"(train.max_steps = {cap}) on at least one seed before the dev-plateau rule fired, so the variants are "
           "compared at an equal step budget, not at convergence (the tests are that comparison)" if capped else None)
    return measured, why


def _gains(solve_seeds: pd.DataFrame, cap: int) -> Claim:
    measured, why = _capped(solve_seeds, cap)
    a = _solve(solve_seeds, "A", "mean")
    tests = [SeedTest(f"mean solve rate {v} - A", paired(_solve(solve_seeds, v, "mean"), a), ">", 0.0)
             for v in ("B", "C")]
    given = _solve(solve_seeds, "C", "mean", "given_z")
    control = Control(
        "c_given_true_tokens_beats_a", "positive", "variant C decoded with the true 16 visual tokens of each board its "
        "actions reach (TrueVisualTokens) in place of its own: if the tokens carry what the claim says, C must then "
        "beat A; if it does not, the comparison cannot show a gain from visual tokens",
        SeedTest("mean solve rate C given true tokens - A", paired(given, a), ">", 0.0))
    return Claim(
        "visual_supervision_or_tokens_help", "two ways to sharpen the mental images learned by the model through "
        "explicit visual supervision (B) or explicit visual tokens (C): integrating sixteen visual tokens per board "
        "state improves the average solve rate (paper: 83% -> 89%)",
        "paired per-seed difference of the mean solve rate over families, B - A and C - A: each 95% t interval above "
        "0 (both must hold); judged only when no seed of A, B or C trained to the fine-tuning cap",
        tests, SOLVE_EVIDENCE, measured=measured, why_not_tested=why, controls=[control],
        paper_value={"value": "83% -> 89% (C over A: +6 points)", "where": "abstract: 'improves the average solve "
                     "rate from 83% to 89%' (the paper reports no number for B in the abstract)"})


def _where(solve_seeds: pd.DataFrame, cap: int) -> Claim:
    measured, why = _capped(solve_seeds, cap)
    gain = {f: paired(_solve(solve_seeds, "C", f), _solve(solve_seeds, "A", f)) for f in FAMILIES}
    seeds = sorted(set.intersection(*(set(g) for g in gain.values())), key=int) if gain else []
    others = [f for f in FAMILIES if f not in ("jigsaw", "rotation")]

    def lead(s):
        values = [gain[f][s] for f in FAMILIES]
        if any(v is None for v in values):
            return None
        return max(gain["jigsaw"][s], gain["rotation"][s]) - max(gain[f][s] for f in others)

    tests = [SeedTest("gain C - A, jigsaw", gain["jigsaw"], ">", 0.0),
             SeedTest("gain C - A, rotation", gain["rotation"], ">", 0.0),
             SeedTest("max gain (jigsaw, rotation) - max gain (other families)", {s: lead(s) for s in seeds}, ">",
                      0.0)]
    return Claim(
        "gains_on_jigsaw_rotation", "with gains exceeding 20 percentage points on reasoning-heavy games such as jigsaw "
        "and 3D mental rotation (the visual tokens' largest gains are on jigsaw and rotation)",
        "per seed, the gain C - A in solve rate: on jigsaw and on rotation each 95% t interval above 0, and the larger "
        "of the two minus the largest gain on rush_hour, sokoban, tangram: 95% t interval above 0 (all three must "
        "hold); judged only when no seed of A, B or C trained to the fine-tuning cap",
        tests, SOLVE_EVIDENCE, measured=measured, why_not_tested=why,
        per_seed={f"gain C - A, {f}": gain[f] for f in others},
        paper_value={"value": "> 20 points each", "where": "abstract: 'gains exceeding 20 percentage points on "
                     "reasoning-heavy games such as jigsaw and 3D mental rotation'"})


def _scale(solve_seeds: pd.DataFrame) -> Claim:
    return Claim(
        "twelve_tasks_pretrained_vlm", "We fine-tune a Qwen3.5 VLM to solve twelve diverse visual reasoning tasks; it "
        "reaches an average solve rate of 83% (actions only) and 89% (sixteen visual tokens)",
        f"mean solve rate of A over the tasks per seed: 95% t interval above {PAPER_MEAN_A}; decided only with the "
        "paper's pretrained VLM on its twelve task suites (scale=paper data=real); the embedded run's value (a tiny "
        "VLM trained from scratch on five families) is shown, not judged",
        [SeedTest("mean solve rate A", _solve(solve_seeds, "A", "mean"), ">", PAPER_MEAN_A)], SOLVE_EVIDENCE,
        decided_at="paper", decided_data="real",
        paper_value={"value": 0.83, "where": "abstract: 'improves the average solve rate from 83% to 89%'"})


def build(solve: pd.DataFrame, solve_seeds: pd.DataFrame, probe: pd.DataFrame, probe_seeds: pd.DataFrame,
          probe_mid_seeds: pd.DataFrame, cfg) -> list[Claim]:
    """`solve` and `probe` (the means over seeds) are the summary tables (tables/); the tests read the per-seed rows
    (the probe claim: the intermediate-state probe, probe_mid_seeds)."""
    cap = int(cfg.train.max_steps)
    return [_learns(solve_seeds), _probes(probe_mid_seeds), _gains(solve_seeds, cap), _where(solve_seeds, cap),
            _scale(solve_seeds)]
