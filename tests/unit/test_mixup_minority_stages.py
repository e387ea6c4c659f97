"""Claims are computed from the tables; bad input fails clearly; the histogram table matches its closed form."""

import numpy as np
import pandas as pd
import pytest

from neurips26.common.pipeline.config import compose
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.stage import StageContext
from neurips26.papers.mixup_minority import data, experiments, paper_claims, stages
from tests.claims_check import checked_document


def _lpm_runs(instance_curve, bmls_cos, ms_cos):
    rows = []
    for seed, jitter in ((0, 0.0), (1, 0.01), (2, -0.01)):
        for r, inst in zip([1.0, 10.0, 100.0], instance_curve):
            for method, w, m in [("mixup_instance", inst + (jitter if r > 1 else 0.0), -1 / 9 if r == 1 else -0.15),
                                 ("bmls", bmls_cos + jitter / 100, bmls_cos), ("bmls_ms", -0.0185, ms_cos + jitter / 100)]:
                rows.append({"seed": seed, "ratio": r, "method": method, "minority_w_cos": w, "minority_mean_cos": m,
                             "etf_value": -1 / 9})
    return pd.DataFrame(rows)


def _lt_runs(gain, collapse=0.3, singleton=-0.1, ratio1_gap=0.0):
    """Three seeds x two datasets: BMLS + MS's tail / balanced accuracy `gain` above every other method; instance
    Mixup's tail classifier cosine rising by `collapse` per ratio step (BMLS and CE: flat / rising by 0.2 for CE);
    BMLS + MS's tail class-mean cosine `singleton` below BMLS's; resampling's 0.1 below CE's."""
    rows = []
    for dataset in ("fashion_mnist", "digits"):
        for seed, jitter in ((0, 0.0), (1, 0.02), (2, -0.02)):
            for step, r in enumerate((1.0, 10.0, 100.0)):
                values = {"mixup_instance": (0.4, 0.7, -0.1 + ratio1_gap + step * collapse + jitter, -0.1),
                          "bmls": (0.5, 0.72, -0.1 + jitter, -0.1), "ms": (0.3, 0.71, float("nan"), -0.1),
                          "ce": (0.4, 0.7, -0.1 + 0.2 * step + jitter, -0.1 + jitter),
                          "cb_resample": (0.4, 0.7, -0.1, -0.2 + jitter),
                          "logit_adjust": (0.55, 0.74, -0.1, -0.1), "mixup_lobm": (0.5, 0.73, -0.1, -0.1),
                          "mixup_cb": (0.45, 0.72, -0.1, -0.1)}
                values["bmls_ms"] = (0.55 + gain + jitter, 0.74 + gain / 4 + jitter / 4, float("nan"),
                                     -0.1 + singleton + jitter / 10)
                for method, (tail, acc, wcos, mcos) in values.items():
                    rows.append({"dataset": dataset, "ratio": r, "seed": seed, "method": method, "acc_tail": tail,
                                 "acc": acc, "tail_w_cos": wcos, "tail_mean_cos": mcos})
    return pd.DataFrame(rows)


def _claims(lpm_runs, runs, scale="default"):
    cfg = compose("mixup_minority", [])  # the verdict reads `scale` (there is no scale/long.yaml yet)
    return {c.id: c.to_json(scale, "embedded") for c in paper_claims.build(lpm_runs, runs, cfg)}


def test_claims_follow_the_measurements():
    good = _claims(_lpm_runs([-1 / 9, 0.2, 0.6], -1 / 9, -1 / 9), _lt_runs(0.2))
    assert good["layer_peeled_instance_collapse"]["verdict"] == "holds"
    assert good["bmls_keeps_etf"]["verdict"] == "holds" and good["bmls_keeps_etf"]["kind"] == "sanity"
    assert good["ms_separates_at_least_as_well"]["verdict"] == "holds"
    # the trained-network claims are decided at scale=long: their tests hold, the verdict waits for that scale
    for cid in ("unbalanced_mixed_labels_collapse", "singletons_separate_minority", "tail_accuracy_fashion_mnist",
                "ablation_both_components"):
        assert good[cid]["outcome"] == "holds", cid
        assert good[cid]["verdict"] == "inconclusive" and "scale=long" in good[cid]["why_inconclusive"]
    assert good["benchmark_gains"]["verdict"] == "inconclusive" and good["benchmark_gains"]["decided_at"] == "paper"
    assert set(good["tail_accuracy_digits"]["per_seed"]) == {"0", "1", "2"}
    bad = _claims(_lpm_runs([-1 / 9, 0.3, 0.25], 0.1, 0.05), _lt_runs(-0.1, collapse=-0.2, singleton=0.1))
    assert bad["layer_peeled_instance_collapse"]["verdict"] == "fails"  # falls from ratio 10 to 100
    assert bad["bmls_keeps_etf"]["verdict"] == "fails"
    assert bad["ms_separates_at_least_as_well"]["verdict"] == "fails"
    for cid in ("unbalanced_mixed_labels_collapse", "singletons_separate_minority", "tail_accuracy_digits"):
        assert bad[cid]["outcome"] == "fails", cid
    long = _claims(_lpm_runs([-1 / 9, 0.2, 0.6], -1 / 9, -1 / 9), _lt_runs(-0.1), scale="long")
    assert long["tail_accuracy_digits"]["verdict"] == "fails" and long["ablation_both_components"]["verdict"] == "fails"


def test_the_strongest_baseline_decides_the_tail_claim():
    """BMLS + MS above instance Mixup but below logit adjustment on the tail: the claim fails."""
    runs = _lt_runs(0.2)
    la = (runs["method"] == "logit_adjust") & (runs["ratio"] == 100.0)
    runs.loc[la, "acc_tail"] = 0.95
    entry = _claims(_lpm_runs([-1 / 9, 0.2, 0.6], -1 / 9, -1 / 9), runs, scale="long")["tail_accuracy_digits"]
    outcomes = {t["name"]: t["outcome"] for t in entry["tests"]}
    assert outcomes["tail accuracy BMLS + MS - Mixup (instance)"] == "holds"
    assert outcomes["tail accuracy BMLS + MS - logit adjustment"] == "fails" and entry["verdict"] == "fails"


def test_the_collapse_controls_make_the_trained_claim_inconclusive():
    lpm = _lpm_runs([-1 / 9, 0.2, 0.6], -1 / 9, -1 / 9)
    # a gap already at ratio 1 (no minority there): the negative control fails, the claim is not decided
    entry = _claims(lpm, _lt_runs(0.2, ratio1_gap=0.3), scale="long")["unbalanced_mixed_labels_collapse"]
    assert entry["outcome"] == "holds" and entry["verdict"] == "inconclusive"
    assert "ratio1_no_collapse_reference" in entry["why_inconclusive"]
    # CE that does not collapse: the measure's positive reference fails
    runs = _lt_runs(0.2)
    runs.loc[runs["method"] == "ce", "tail_w_cos"] = -0.1 + runs.loc[runs["method"] == "ce", "seed"] * 0.01
    entry = _claims(lpm, runs, scale="long")["unbalanced_mixed_labels_collapse"]
    assert entry["verdict"] == "inconclusive" and "ce_collapse_reference" in entry["why_inconclusive"]
    # resampling that does not separate the tail means: claim (ii)'s positive reference fails
    runs = _lt_runs(0.2)
    resample = runs["method"] == "cb_resample"
    runs.loc[resample, "tail_mean_cos"] = 0.2 + runs.loc[resample, "seed"] * 0.01
    entry = _claims(lpm, runs, scale="long")["singletons_separate_minority"]
    assert entry["outcome"] == "holds" and "resampling_reference" in entry["why_inconclusive"]
    good = _claims(lpm, _lt_runs(0.2), scale="long")
    assert good["unbalanced_mixed_labels_collapse"]["verdict"] == "holds"
    assert good["singletons_separate_minority"]["verdict"] == "holds"


def test_a_failed_positive_control_makes_the_sanity_check_inconclusive():
    lpm_runs = _lpm_runs([-1 / 9, 0.2, 0.6], -1 / 9, -1 / 9)
    at_ratio1 = (lpm_runs["method"] == "mixup_instance") & (lpm_runs["ratio"] == 1.0)
    lpm_runs.loc[at_ratio1, "minority_w_cos"] = 0.3  # plain Mixup off the ETF where it must sit on it
    entry = _claims(lpm_runs, _lt_runs(0.2))["bmls_keeps_etf"]
    assert entry["outcome"] == "holds" and entry["verdict"] == "inconclusive"
    assert "mixup_ratio1_classifier_at_etf" in entry["why_inconclusive"]


def test_the_digits_split_follows_the_run_seed(tmp_path, monkeypatch):
    import neurips26.common.data.digits as digits_module

    labels = np.repeat(np.arange(10), 40)
    pixels = np.random.default_rng(5).integers(0, 17, (len(labels), 64))
    monkeypatch.setattr(digits_module, "read_digits", lambda folder: (pixels, labels))  # data.py imports it per call
    cfg = compose("mixup_minority", ["scale=tiny"]).lt
    a, a2, b = (data.load_task("digits", tmp_path, cfg, s) for s in (0, 0, 1))
    assert np.array_equal(a.x_test, a2.x_test) and np.array_equal(a.y_pool, a2.y_pool)
    assert not np.array_equal(a.x_test, b.x_test)
    assert np.bincount(b.y_test).tolist() == [int(cfg.digits_test_per_class)] * 10


def test_run_lt_rejects_an_unknown_dataset(tmp_path):
    cfg = compose("mixup_minority", ["scale=tiny", "run.dataset=cifar10"])
    ctx = StageContext("mixup_minority", cfg, [tmp_path / "provenance.json"], [tmp_path / "out.csv"], 0)
    with pytest.raises(UserError, match="not in lt.datasets.embedded"):
        stages.run_lt(ctx)
    assert not (tmp_path / "out.csv").exists()


def test_load_task_reports_missing_files(tmp_path):
    cfg = compose("mixup_minority", ["scale=tiny"]).lt
    with pytest.raises(UserError, match="missing"):
        data.load_task("fashion_mnist", tmp_path, cfg, 0)
    with pytest.raises(UserError, match="unknown dataset"):
        data.load_task("mnist", tmp_path, cfg, 0)


def test_mixed_label_hist_matches_closed_form():
    cfg = compose("mixup_minority", ["scale=tiny", "hist.draws=20000"])
    table = experiments.mixed_label_hist(cfg)
    for _, rows in table.groupby("sampler"):
        assert np.isclose(rows["p_closed"].sum(), 1.0) and np.isclose(rows["p_empirical"].sum(), 1.0)
        big = rows["p_closed"] > 0.01
        assert np.allclose(rows.loc[big, "p_empirical"], rows.loc[big, "p_closed"], rtol=0.25)


def test_the_claims_document_validates_and_matches_the_registry(tmp_path):
    cfg = compose("mixup_minority", [])
    claims = paper_claims.build(_lpm_runs([-1 / 9, 0.2, 0.6], -1 / 9, -1 / 9), _lt_runs(0.2), cfg)
    checked_document("mixup_minority", claims, tmp_path)
