"""Speed of the FCS read path (flowkit: parse, compensate, arcsinh) and of the NumPy probe against scikit-learn's.

    .venv/bin/pytest benchmarks/bench_cytometry_encoder.py --benchmark-enable
Each benchmark also checks its result, so a fast wrong answer fails.
"""

import numpy as np

from neurips26.papers.cytometry_encoder import probe
from neurips26.papers.cytometry_encoder.fcs import read_fcs, write_fcs

ASINH = {"kind": "asinh", "cofactor": 150.0, "t": 262144.0, "w": 0.5, "m": 4.5}


def test_read_one_synthetic_fcs_file(benchmark, tmp_path):
    rng = np.random.default_rng(0)
    true = np.sinh(rng.uniform(0, 4, (300, 12))) * 150
    spill = np.eye(12) + np.diag(np.full(11, 0.03), 1)
    write_fcs(tmp_path / "a.fcs", true @ spill, [f"FL{i}-A" for i in range(12)], [f"CD{i + 1} FITC" for i in range(12)],
              spill)
    (data,) = benchmark(read_fcs, tmp_path / "a.fcs", ASINH)
    np.testing.assert_allclose(data.events, np.arcsinh(true / 150), atol=2e-3)


def _data():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(120, 64))
    return x, (x[:, 0] + rng.normal(size=120) > 0).astype(int)


def test_numpy_probe(benchmark):
    x, y = _data()
    assert benchmark(probe.cv_auroc, x, y, 5, 1.0, 0) > 0.6


def test_sklearn_probe(benchmark):
    from sklearn.linear_model import LogisticRegression

    x, y = _data()

    def fit_predict(a, b, c):
        return LogisticRegression(C=1.0, max_iter=5000).fit(a, b).decision_function(c)

    assert benchmark(probe.cv_auroc, x, y, 5, 1.0, 0, fit_predict) > 0.6
