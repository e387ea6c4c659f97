"""hyperidac tables, metrics and bad input: a clear error, no partial output."""

import numpy as np
import pandas as pd
import pytest

from neurips26.common.pipeline.config import compose
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.stage import StageContext
from neurips26.papers.hyperidac import data, tables
from neurips26.papers.hyperidac.stages import STAGES


def _runs(accuracy):
    rows = []
    for c in range(2):
        for d, n in zip(("a", "b"), (30, 10)):
            rows.append({"method": "m", "regime": "severe", "gamma": 2.0, "seed": 0, "cls": c, "domain": d,
                         "n_train": n if c == 0 else 40 - n, "accuracy": accuracy[(c, d)]})
    return pd.DataFrame(rows)


def test_metrics_by_hand():
    cfg = compose("hyperidac", ["scale=tiny"])
    acc = {(0, "a"): 0.9, (0, "b"): 0.5, (1, "a"): 0.2, (1, "b"): 0.8}
    m = tables.per_seed(_runs(acc), cfg).iloc[0]
    # cell counts: (0,a)=30, (0,b)=10, (1,a)=10, (1,b)=30
    assert m.overall == pytest.approx((30 * 0.9 + 10 * 0.5 + 10 * 0.2 + 30 * 0.8) / 80)
    assert m.cell_balanced == pytest.approx(0.6)
    assert m.worst_cell == pytest.approx(0.2)
    assert m.minority_cell == pytest.approx((0.5 + 0.2) / 2)   # the cells at or below the 25% quantile (10)
    assert m.worst_quarter == pytest.approx(0.2)   # ceil(0.25 x 4) = 1 cell: the worst one


def test_worst_quarter_is_the_mean_of_the_k_lowest_cells():
    cfg = compose("hyperidac", ["scale=tiny"])
    acc = [0.9, 0.1, 0.5, 0.3, 0.8, 0.7, 0.6, 0.2]   # 8 cells: k = ceil(0.25 x 8) = 2 -> (0.1 + 0.2) / 2
    runs = pd.DataFrame([{"method": "m", "regime": "severe", "gamma": 2.0, "seed": 0, "cls": i, "domain": "a",
                          "n_train": 10, "accuracy": a} for i, a in enumerate(acc)])
    m = tables.per_seed(runs, cfg).iloc[0]
    assert m.worst_quarter == pytest.approx(0.15) and m.worst_cell == pytest.approx(0.1)
    half = tables.per_seed(runs, compose("hyperidac", ["scale=tiny", "metrics.worst_fraction=0.5"])).iloc[0]
    assert half.worst_quarter == pytest.approx((0.1 + 0.2 + 0.3 + 0.5) / 4)


def test_allocation_table_reports_exact_marginals():
    cfg = compose("hyperidac", ["scale=tiny"])
    alloc = tables.table_allocation(cfg)
    assert (alloc.max_class_marginal_dev == 0).all() and (alloc.max_domain_marginal_dev == 0).all()
    assert alloc.groupby("regime")["count"].sum().eq(int(cfg.n_train)).all()
    assert alloc["count"].min() >= int(cfg.allocation.min_cell)


def test_tables_stage_writes_every_table_and_refuses_a_wrong_output_list(tmp_path):
    cfg = compose("hyperidac", ["scale=tiny"])
    with pytest.raises(UserError, match="tables writes"):
        STAGES["tables"](StageContext("hyperidac", cfg, [tmp_path / "r.csv"], [tmp_path / "main.csv"]))
    assert not (tmp_path / "main.csv").exists()


def test_a_corrupt_feature_cache_is_refused(tmp_path):
    bad = tmp_path / "features.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(UserError, match="feature cache"):
        data.load_features(bad)
    np.savez(bad, prototypes=np.zeros((10, 4)))
    with pytest.raises(UserError, match="feature cache"):
        data.load_features(bad)


def test_unknown_regime_is_refused_before_any_output(tmp_path):
    cfg = compose("hyperidac", ["scale=tiny", "run.part=extreme"])
    out = tmp_path / "run.csv"
    with pytest.raises(UserError, match="run.part"):
        STAGES["run"](StageContext("hyperidac", cfg, [tmp_path / "features.npz"], [out], seed=0))
    assert not out.exists()


def test_data_real_is_refused_clearly(tmp_path):
    cfg = compose("hyperidac", ["scale=tiny", "data=real"])
    with pytest.raises(UserError, match="not wired"):
        STAGES["features"](StageContext("hyperidac", cfg, [tmp_path / "provenance.json"], [tmp_path / "f.npz"]))
