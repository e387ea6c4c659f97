"""Claims are computed from the tables; bad input fails clearly; the histogram table matches its closed form."""

import numpy as np
import pandas as pd
import pytest

from neurips26.common.config import compose
from neurips26.common.errors import UserError
from neurips26.common.stage import StageContext
from neurips26.papers.mixup_minority import data, experiments, paper_claims, stages


def _lpm_table(instance_curve, bmls_cos, ms_cos):
    rows = []
    for r, inst in zip([1.0, 10.0, 100.0], instance_curve):
        for method, w, m in [("mixup_instance", inst, -0.11), ("bmls", bmls_cos, bmls_cos), ("bmls_ms", -0.0185, ms_cos)]:
            rows.append({"ratio": r, "method": method, "minority_w_cos_mean": w, "minority_mean_cos_mean": m,
                         "etf_value": -1 / 9})
    return pd.DataFrame(rows)


def _lt_runs(gain):
    rows = []
    for dataset in ("fashion_mnist", "digits"):
        for seed in (0, 1, 2):
            for method, tail, acc in [("mixup_instance", 0.4, 0.7), ("bmls_ms", 0.4 + gain, 0.75), ("bmls", 0.5, 0.72),
                                      ("ms", 0.3, 0.71)]:
                rows.append({"dataset": dataset, "ratio": 100.0, "seed": seed, "method": method, "acc_tail": tail,
                             "acc": acc})
    return pd.DataFrame(rows)


def _verdicts(lpm_table, runs):
    cfg = compose("mixup_minority", ["scale=tiny"])
    claims, _ = paper_claims.build(lpm_table, runs, cfg)
    return {c.id: c.to_json()["holds"] for c in claims}


def test_claims_follow_the_measurements():
    good = _verdicts(_lpm_table([-0.11, 0.2, 0.6], -0.11, -0.11), _lt_runs(0.2))
    assert good["unbalanced_mixed_labels_collapse"] and good["bmls_keeps_etf"]
    assert good["ms_separates_at_least_as_well"] and good["tail_accuracy_fashion_mnist"]
    assert good["ablation_both_components"] and good["benchmark_gains"] is None
    bad = _verdicts(_lpm_table([-0.11, 0.3, 0.25], 0.1, 0.05), _lt_runs(-0.1))
    assert not bad["unbalanced_mixed_labels_collapse"]  # falls from ratio 10 to 100
    assert not bad["bmls_keeps_etf"]
    assert not bad["ms_separates_at_least_as_well"]
    assert not bad["tail_accuracy_digits"]


def test_run_lt_rejects_an_unknown_dataset(tmp_path):
    cfg = compose("mixup_minority", ["scale=tiny", "run.dataset=cifar10"])
    ctx = StageContext("mixup_minority", cfg, [tmp_path / "provenance.json"], [tmp_path / "out.csv"], 0)
    with pytest.raises(UserError, match="not in lt.datasets.embedded"):
        stages.run_lt(ctx)
    assert not (tmp_path / "out.csv").exists()


def test_load_task_reports_missing_files(tmp_path):
    cfg = compose("mixup_minority", ["scale=tiny"]).lt
    with pytest.raises(UserError, match="missing"):
        data.load_task("fashion_mnist", tmp_path, cfg)
    with pytest.raises(UserError, match="unknown dataset"):
        data.load_task("mnist", tmp_path, cfg)


def test_mixed_label_hist_matches_closed_form():
    cfg = compose("mixup_minority", ["scale=tiny", "hist.draws=20000"])
    table = experiments.mixed_label_hist(cfg)
    for _, rows in table.groupby("sampler"):
        assert np.isclose(rows["p_closed"].sum(), 1.0) and np.isclose(rows["p_empirical"].sum(), 1.0)
        big = rows["p_closed"] > 0.01
        assert np.allclose(rows.loc[big, "p_empirical"], rows.loc[big, "p_closed"], rtol=0.25)
