"""The paper's claims (claims contract v2) as tests over paired per-seed values, read from tables/main_seeds.csv (the
final row of every run per seed, with its area under the learning curve `auc`) and tables/bandit_seeds.csv (the
bandit estimators per seed); thresholds come from the config's `claims` (see JOURNAL.md, issue #67).

Two gates make a testbed's tests inconclusive, never false (required controls of every claim that reads the testbed):
the budget rule (DG's last-fifth gain on the testbed, mean over seeds, must stay below `budget_gain`) and saturation
(every compared method's `auc` at or above `ceiling` on every seed: nothing left to separate)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.pipeline.claims import Claim, Control, RuleTest, SeedTest, paired, per_seed_values

PAPER = "arXiv 2603.20526"
STAT = "auc"  # learning quality: area under the held-out learning curve (mean score over the evaluations)


def _runs(main: pd.DataFrame, task: str, method: str, rate: float | None, column: str = STAT,
          price: float | None = None) -> dict:
    """{seed: value} of one task x method x keep rate (or price)."""
    rows = main[(main.task == task) & (main.method == method)]
    rows = rows[np.isclose(rows.price, price)] if price is not None else rows[np.isclose(rows.keep_rate, rate)]
    return per_seed_values(rows.set_index("seed")[column])


def _ratio(a: dict, b: dict) -> dict:
    """Per-seed ratio a / b over the seeds both have (None where either is missing or b is 0)."""
    a, b = per_seed_values(a), per_seed_values(b)
    return {s: (a[s] / b[s] if a[s] is not None and b[s] not in (None, 0) else None)
            for s in sorted(set(a) & set(b), key=int)}


def _mean_over(values: list[dict]) -> dict:
    """Per-seed mean of several {seed: value} (the seeds all have; None if one is missing)."""
    seeds = sorted(set.intersection(*(set(v) for v in values)), key=int) if values else []
    return {s: (float(np.mean([v[s] for v in values])) if all(v[s] is not None for v in values) else None)
            for s in seeds}


def _bandit(bandit: pd.DataFrame, method: str, column: str, rate: float | None = None,
            setting: str = "main") -> dict:
    rows = bandit[(bandit.setting == setting) & (bandit.method == method)]
    if rate is not None:
        rows = rows[np.isclose(rows.keep_rate, rate)]
    return per_seed_values(rows.set_index("seed")[column])


def _reversal(main: pd.DataFrame) -> list[str]:
    return sorted((t for t in main.task.unique() if str(t).startswith("reversal_L")), key=lambda t: int(t[10:]))


def budget_control(main: pd.DataFrame, task: str, bound: float) -> Control:
    """The budget rule as a required control: DG's mean last-fifth gain on `task` below `bound` (else inconclusive)."""
    gains = _runs(main, task, "dg", 1.0, "last_fifth_gain")
    values = [v for v in gains.values() if v is not None]
    test = RuleTest(f"DG last-fifth gain, {task}", {"gain": float(np.mean(values)) if values else None},
                    f"gain < {bound}", f"gain >= {bound}", per_seed=gains,
                    rule=f"DG has plateaued when its held-out score gains < {bound} over the last fifth of training")
    return Control(f"budget_rule_{task.lower()}", "positive", f"the budget rule on {task}: DG converged within the budget",
                   test)


def saturation_control(main: pd.DataFrame, task: str, methods: list[tuple[str, float]], ceiling: float) -> Control:
    """Required control: not every compared method is at the ceiling on every seed (a tie there decides nothing)."""
    values = [v for m, r in methods for v in _runs(main, task, m, r).values() if v is not None]
    test = RuleTest(f"lowest {STAT} of {', '.join(m for m, _ in methods)}, {task}",
                    {"lowest": min(values) if values else None}, f"lowest < {ceiling}", f"lowest >= {ceiling}",
                    rule=f"the testbed separates methods when some compared run's {STAT} is below {ceiling}")
    return Control(f"not_saturated_{task.lower()}", "positive", f"{task} is not saturated for the compared methods", test)


def _dg_sanity(bandit: pd.DataFrame) -> Control:
    """DG's theorem (arXiv 2603.14608, Sec. 4): in the K-armed bandit DG's cosine beats REINFORCE's; if not, the
    testbed is not the papers'."""
    test = SeedTest("bandit cosine DG - REINFORCE", paired(_bandit(bandit, "dg", "cosine"),
                                                           _bandit(bandit, "reinforce", "cosine")), ">", 0.0)
    return Control("dg_beats_reinforce_cosine", "positive",
                   "the papers' bandit (one correct arm): DG's directional accuracy exceeds REINFORCE's (DG's theorem)",
                   test)


def _quality(main: pd.DataFrame, c, tasks: list[str]) -> Claim:
    rho = float(c.keep_rate)
    tests = [SeedTest(f"delight / DG {STAT}, {t}", _ratio(_runs(main, t, "delight", rho), _runs(main, t, "dg", 1.0)),
                      ">", float(c.quality_fraction)) for t in tasks]
    tests += [SeedTest(f"DG / delight backward passes, {t}",
                       _ratio(_runs(main, t, "dg", 1.0, "backward_passes"),
                              _runs(main, t, "delight", rho, "backward_passes")), ">", float(c.backward_reduction))
              for t in tasks]
    return Claim(
        "skips_backward_keeps_quality",
        f"On MNIST and transformer token reversal, the Kondo gate skips most backward passes while retaining nearly "
        f"all of DG's learning quality (delight gate at keep rate {rho}: >= {c.quality_fraction:.0%} of DG's area "
        f"under the learning curve with >= {c.backward_reduction}x fewer backward passes)",
        f"per testbed ({', '.join(tasks)}), per seed the ratio of the delight gate's {STAT} to DG's: 95% t interval "
        f"above {c.quality_fraction}; and DG's backward passes / the gate's: interval above {c.backward_reduction} "
        "(set by the keep rate; all must hold); the budget rule gates every testbed",
        tests, ["tables/main.csv", "tables/main_seeds.csv", "figures/pareto_backward_vs_acc.png",
                "figures/learning_curves.png"],
        controls=[budget_control(main, t, float(c.budget_gain)) for t in tasks],
        per_seed={f"final score delight / DG, {t}": _ratio(_runs(main, t, "delight", rho, "score"),
                                                           _runs(main, t, "dg", 1.0, "score")) for t in tasks},
        paper_value={"value": None, "where": f"{PAPER}, MNIST and token-reversal sections (the abstract: 'skips most "
                     "backward passes while retaining nearly all of DG's learning quality')"})


def _screens_bandit(bandit: pd.DataFrame, c) -> Claim:
    rho = float(c.keep_rate)
    test = SeedTest("bandit cosine delight - additive", paired(_bandit(bandit, "delight", "cosine", rho),
                                                               _bandit(bandit, "additive", "cosine", rho)), ">", 0.0)
    return Claim(
        "delight_beats_additive_bandit",
        f"In bandits, delight is a more reliable screening signal than additive combinations of value and surprise "
        f"(the papers' bandit, keep rate {rho}: cosine of the gated gradient with the exact one)",
        "paired per-seed difference delight - additive of the bandit gradient cosine at the keep rate: 95% t interval "
        "above 0; DG's theorem (DG's cosine above REINFORCE's) is a required control of the testbed",
        [test], ["tables/bandit.csv", "tables/bandit_seeds.csv", "figures/bandit_cosine.png"],
        controls=[_dg_sanity(bandit)],
        per_seed={"bandit cosine delight - random": paired(_bandit(bandit, "delight", "cosine", rho),
                                                           _bandit(bandit, "random", "cosine", rho))},
        paper_value={"value": None, "where": f"{PAPER}, bandit section (abstract: 'delight is a more reliable "
                     "screening signal than additive combinations of value and surprise')"})


def _screens_tasks(main: pd.DataFrame, c, reversal: list[str]) -> Claim:
    rho = float(c.keep_rate)
    tests = [SeedTest(f"MNIST {STAT} delight - {o}", paired(_runs(main, "mnist", "delight", rho),
                                                            _runs(main, "mnist", o, rho)), ">", 0.0)
             for o in ("random", "additive")]
    for other in ("random", "additive"):
        mean = {m: _mean_over([_runs(main, t, m, rho) for t in reversal]) for m in ("delight", other)}
        tests.append(SeedTest(f"reversal {STAT} (mean over lengths) delight - {other}",
                              paired(mean["delight"], mean[other]), ">", 0.0))
    compared = [("delight", rho), ("random", rho), ("additive", rho)]
    tasks = ["mnist", *reversal]
    controls = [budget_control(main, t, float(c.budget_gain)) for t in tasks]
    controls += [saturation_control(main, t, compared, float(c.ceiling)) for t in tasks]
    return Claim(
        "delight_beats_random_and_additive",
        "delight is a more reliable screening signal than additive combinations of value and surprise (and than "
        f"random gating) on MNIST and token reversal, at keep rate {rho}: area under the learning curve",
        f"paired per-seed differences delight - random and delight - additive of the MNIST {STAT} and the reversal "
        f"{STAT} (mean over lengths): each 95% t interval above 0 (all four must hold; a tie is inconclusive); the "
        "budget rule and saturation gate every testbed",
        tests, ["tables/main.csv", "tables/main_seeds.csv", "figures/screen_comparison.png"], controls=controls,
        paper_value={"value": None, "where": f"{PAPER}, MNIST and token-reversal screen comparisons (abstract: 'delight "
                     "is a more reliable screening signal than additive combinations of value and surprise')"})


def _speedup(main: pd.DataFrame, task: str, method: str, rate: float) -> dict:
    """Per seed the gate's compute speedup over DG: DG's backward passes to 95% of its final score / the gate's (0 when
    the gate never gets there within the budget: no speedup was bought)."""
    dg = _runs(main, task, "dg", 1.0, "passes_to_target")
    gate = _runs(main, task, method, rate, "passes_to_target")
    return {s: (None if dg.get(s) is None else 0.0 if gate.get(s) is None else dg[s] / gate[s])
            for s in sorted(set(dg) | set(gate), key=int)}


def speedup_resolved_control(main: pd.DataFrame, task: str) -> Control:
    """Required control of claim 3: DG needs more than one evaluation to reach 95% of its final score on every seed.
    Otherwise DG and the gate both reach it at the first evaluation and the speedup is only DG's passes per step over
    the gate's (1 / keep rate): a capped statistic that cannot grow with difficulty decides nothing."""
    evals = _runs(main, task, "dg", 1.0, "evals_to_target")
    values = [v for v in evals.values() if v is not None]
    test = RuleTest(f"DG's fewest evaluations to 95% of its final score, {task}",
                    {"fewest": min(values) if len(values) == len(evals) and values else None}, "fewest >= 2",
                    "fewest < 2", per_seed=evals,
                    rule="the speedup resolves the learning phase when DG reaches its target after the first evaluation")
    return Control(f"speedup_resolved_{task.lower()}", "positive",
                   f"{task}: DG's learning phase spans more than one evaluation (the speedup is not capped at 1 / rho)",
                   test)


def _difficulty(main: pd.DataFrame, c, reversal: list[str]) -> Claim:
    hard = float(c.difficulty_keep_rate)
    speedup = {t: _speedup(main, t, "delight", hard) for t in reversal}
    short, long = reversal[0], reversal[-1]
    compared = [("dg", 1.0), ("delight", hard)]
    controls = [budget_control(main, t, float(c.budget_gain)) for t in (short, long)]
    controls += [saturation_control(main, t, compared, float(c.ceiling)) for t in (short, long)]
    controls += [speedup_resolved_control(main, t) for t in (short, long)]
    random_gain = {f"{STAT} delight - random, {t}": paired(_runs(main, t, "delight", hard),
                                                          _runs(main, t, "random", hard)) for t in reversal}
    return Claim(
        "gain_grows_with_difficulty",
        f"with gains that grow as problems get harder: the Kondo gate's compute speedup over DG (backward passes to "
        f"95% of DG's final score, delight gate at keep rate {hard}) is larger for the longest reversal sequences "
        f"({long}) than for the shortest ({short})",
        f"per seed, speedup at {long} minus speedup at {short} (speedup = DG's backward passes to 95% of DG's final "
        f"score / the gate's; 0 if the gate never gets there): 95% t interval above 0; the budget rule, saturation and "
        "an uncapped speedup (DG needs more than one evaluation to reach its target) gate both ends; decided at "
        "scale=long (the paper's length 12, the official grouped baseline)",
        [SeedTest(f"speedup {long} - speedup {short}", paired(speedup[long], speedup[short]), ">", 0.0)],
        ["tables/main.csv", "tables/main_seeds.csv", "figures/learning_curves.png"], controls=controls,
        decided_at="long",
        per_seed={**{f"speedup, {t}": speedup[t] for t in reversal}, **random_gain},
        paper_value={"value": None, "where": f"{PAPER}, token reversal, compute speedup by problem size (egg "
                     "experiments/kondo: 'compute speedup vs backward cost at increasing (H, M)'; abstract: 'gains "
                     "that grow as problems get harder')"})


def _approximate(main: pd.DataFrame, c, tasks: list[str], method: str, claim_id: str, statement: str,
                 where: str, per_seed: dict | None = None) -> Claim:
    rho = float(c.keep_rate)
    tests = [SeedTest(f"{method} / exact delight {STAT}, {t}",
                      _ratio(_runs(main, t, method, rho), _runs(main, t, "delight", rho)), ">",
                      float(c.stale_fraction)) for t in tasks]
    return Claim(
        claim_id, statement,
        f"per testbed, per seed the ratio of the {method} gate's {STAT} to the exact-delight gate's: 95% t interval "
        f"above {c.stale_fraction} (all must hold); the budget rule gates every testbed",
        tests, ["tables/main.csv", "tables/main_seeds.csv", "figures/learning_curves.png"],
        controls=[budget_control(main, t, float(c.budget_gain)) for t in tasks], per_seed=per_seed or {},
        paper_value={"value": None, "where": where})


def _zero_price_tests(bandit: pd.DataFrame, gate: str, label: str) -> list[SeedTest]:
    kept = {col: _ratio(_bandit(bandit, gate, col), _bandit(bandit, "reinforce", col)) for col in ("signal", "noise")}
    return [SeedTest(f"{label}cosine - REINFORCE", paired(_bandit(bandit, gate, "cosine"),
                                                          _bandit(bandit, "reinforce", "cosine")), ">", 0.0),
            SeedTest(f"{label}signal kept - noise kept", paired(kept["signal"], kept["noise"]), ">", 0.0)]


def _zero_price(bandit: pd.DataFrame, cfg) -> Claim:
    eta = float(cfg.bandit.eta)
    tests = _zero_price_tests(bandit, "kondo_price0", "price-0 gate: ")
    controls = [
        Control("hard_gate_keeps_no_noise", "positive",
                "the hard gate (eta -> 0) keeps chi > 0, i.e. only correct-arm samples, whose terms are parallel to "
                "the exact gradient: the signal-vs-noise test must hold", _zero_price_tests(bandit, "hard_price0",
                                                                                             "hard gate: ")[1]),
        Control("random_gate_same_rate", "negative",
                "a random gate at the zero-price gate's keep rate (no screen): the signal-vs-noise test must not hold",
                _zero_price_tests(bandit, "random_matched", "random gate: ")[1]),
        _dg_sanity(bandit)]
    return Claim(
        "zero_price_removes_noise",
        "In bandits, zero-price gating preserves useful gradient signal while removing perpendicular noise (the "
        f"paper's gate G ~ Bernoulli(sigma(chi / eta)), eta = {eta}, on the papers' one-correct-arm bandit, against "
        "REINFORCE: a higher cosine with the exact gradient, and a larger fraction of the signal kept than of the "
        "perpendicular noise)",
        "paired per-seed differences on the papers' bandit: cosine(price-0 gate) - cosine(REINFORCE), and the fraction "
        "of REINFORCE's signal kept minus the fraction of its perpendicular noise kept: each 95% t interval above 0 "
        "(both must hold); an empty update counts as cosine 0",
        tests, ["tables/bandit.csv", "tables/bandit_seeds.csv", "figures/bandit_cosine.png"], controls=controls,
        per_seed={"hard gate cosine - REINFORCE": _zero_price_tests(bandit, "hard_price0", "")[0].per_seed,
                  "price-0 gate kept fraction": _bandit(bandit, "kondo_price0", "kept_fraction")},
        paper_value={"value": None, "where": f"{PAPER}, bandit section (abstract: 'zero-price gating preserves "
                     "useful gradient signal while removing perpendicular noise')"})


def _frontier(main: pd.DataFrame, c) -> Claim:
    task = "mnist"
    rows = main[(main.task == task) & (main.method == "kondo")]
    prices = sorted(float(p) for p in rows.price.dropna().unique())
    passes = {p: _runs(main, task, "kondo", None, "backward_passes", price=p) for p in prices}
    seeds = sorted(set.intersection(*(set(v) for v in passes.values())), key=int) if prices else []
    violations = sum(1 for s in seeds if any(passes[a][s] <= passes[b][s] for a, b in zip(prices, prices[1:])))
    monotone = RuleTest("seeds whose backward passes do not fall with the price",
                        {"violations": violations if len(prices) >= 4 else None}, "violations == 0", "violations > 0",
                        rule="the price trades cost: on every seed, each higher price buys strictly fewer backward "
                             "passes (needs >= 4 prices)")
    tests = [monotone]
    if prices:
        tests.append(SeedTest(f"{STAT} at price {prices[0]} - at price {prices[-1]}",
                              paired(_runs(main, task, "kondo", None, price=prices[0]),
                                     _runs(main, task, "kondo", None, price=prices[-1])), ">", 0.0))
        gaps = [paired(_runs(main, task, "kondo", None, price=p), _runs(main, task, "random_at_price", None, price=p))
                for p in prices]
        tests.append(SeedTest(f"{STAT} Kondo gate - random gate at equal backward passes (mean over prices)",
                              _mean_over(gaps), ">", 0.0))
    return Claim(
        "pareto_frontier",
        "the Kondo gate compares delight against a compute price and pays for a backward pass only when the sample is "
        f"worth it, thereby tracing a quality-cost Pareto frontier (MNIST, the paper's Bernoulli gate at prices "
        f"{prices})",
        "MNIST price sweep: backward passes fall with the price on every seed (rule); the cheapest price's "
        f"{STAT} exceeds the dearest's (95% t interval above 0: more compute buys quality); and per seed the mean over "
        f"prices of (Kondo gate - random gating at the keep rate that price realised) {STAT}: interval above 0",
        tests, ["tables/main.csv", "tables/main_seeds.csv", "figures/pareto_backward_vs_acc.png"],
        controls=[budget_control(main, task, float(c.budget_gain))],
        per_seed={f"backward passes at price {p}": passes[p] for p in prices},
        paper_value={"value": None, "where": f"{PAPER}, quality-cost frontier figures"})


def _untested() -> Claim:
    return Claim(
        "gain_grows_with_backward_cost",
        "gains that grow as backward passes become more expensive", "not tested: no run varies the backward cost",
        [], ["tables/main.csv"],
        paper_value={"value": None, "where": f"{PAPER} (abstract: 'as ... backward passes become more expensive')"},
        why_not_tested="no run varies the backward/forward cost ratio (e.g. the policy width at a fixed screen), so "
                       "the growth of the gain with the backward pass's cost is not measured (issue #67, not done)")


def build(main: pd.DataFrame, bandit: pd.DataFrame, cfg) -> list[Claim]:
    """`main` and `bandit`: tables/main_seeds.csv and tables/bandit_seeds.csv (one row per seed)."""
    c = cfg.claims
    if "setting" not in bandit:
        bandit = bandit.assign(setting="main")
    reversal = _reversal(main)
    tasks = ["mnist", *reversal]
    rho = float(c.keep_rate)
    stale = _approximate(
        main, c, tasks, "stale_delight", "approximate_delight",
        f"the gate tolerates approximate delight: delight from stale parameters keeps >= {c.stale_fraction:.0%} of "
        f"exact-delight quality (keep rate {rho})",
        f"{PAPER}, approximate-delight experiments (abstract: 'the gate tolerates approximate delight')")
    flops = {}
    for t in tasks:
        screen = _runs(main, t, "screen_delight", rho, "screen_flops")
        flops[f"screen FLOPs / DG backward FLOPs, {t}"] = _ratio(screen, _runs(main, t, "dg", 1.0, "backward_flops"))
    cheap = _approximate(
        main, c, tasks, "screen_delight", "cheap_screen_model",
        f"a cheap forward pass can screen samples before expensive backpropagation: delight from a much smaller "
        f"screening model trained alongside (its forward and training FLOPs counted) keeps >= {c.stale_fraction:.0%} "
        f"of exact-delight quality (keep rate {rho})",
        f"{PAPER} (abstract: 'a cheap forward pass can screen samples before expensive backpropagation, suggesting a "
        "speculative-decoding-for-training paradigm')", per_seed=flops)
    return [_quality(main, c, tasks), _screens_bandit(bandit, c), _screens_tasks(main, c, reversal),
            _difficulty(main, c, reversal), stale, _zero_price(bandit, cfg), cheap, _frontier(main, c), _untested()]
