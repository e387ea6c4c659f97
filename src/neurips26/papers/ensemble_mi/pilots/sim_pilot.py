"""Issue #69 pilot (seed 900): on the copula simulator, greedy-MI's curve to the full pool (first- and last-half gains),
the independent-error reference and the fitted copula's predicted plateau (the saturation and floor claims' positive
controls). Usage: python -m neurips26.papers.ensemble_mi.pilots.sim_pilot [K ...]."""

from __future__ import annotations

import sys
import time

from neurips26.common.pipeline.config import compose
from neurips26.papers.ensemble_mi import experiments

SEED = 900


def main(classes: list[int]) -> None:
    cfg = compose("ensemble_mi", [])
    for k in classes:
        start = time.time()
        runs = experiments.run_simulator(cfg, k, SEED)
        acc = runs[runs.kind == "selection"].groupby(["task", "method", "budget"]).accuracy.mean()
        curve = acc[f"sim_K{k}", "greedy_mi"]
        m = len(curve)
        first, last = curve.iloc[m // 2 - 1] - curve.iloc[0], curve.iloc[-1] - curve.iloc[m // 2 - 1]
        print(
            f"sim_K{k}: {time.time() - start:.0f} s; greedy-MI acc(1) {curve.iloc[0]:.3f} acc(M/2) "
            f"{curve.iloc[m // 2 - 1]:.3f} acc(M) {curve.iloc[-1]:.3f}; first {first:+.3f} last {last:+.3f}; "
            f"independent {acc[f'sim_K{k}_indep2', 'full_pool'].iloc[0]:.3f}; copula-predicted "
            f"{acc[f'sim_K{k}_copula', 'full_pool'].iloc[0]:.3f} (rho = 0: "
            f"{acc[f'sim_K{k}_copula_indep', 'full_pool'].iloc[0]:.3f})",
            flush=True,
        )


if __name__ == "__main__":
    main([int(k) for k in sys.argv[1:]] or [2, 4])


def floor_pool(classes: list[int]) -> None:
    """The saturation positive control's pool alone (simulator.floor_pool): greedy-MI's gains and the reference."""
    import numpy as np

    cfg = compose("ensemble_mi", [])
    for k in classes:
        rows = experiments.floor_pool_rows(cfg, k, np.random.default_rng(SEED))
        curve = rows[(rows.task == f"sim_K{k}_floor") & (rows.method == "greedy_mi")].set_index("budget").accuracy
        m = len(curve)
        print(
            f"floor pool K{k}: acc(1) {curve.iloc[0]:.3f} acc(M/2) {curve.iloc[m // 2 - 1]:.3f} acc(M) "
            f"{curve.iloc[-1]:.3f}; independent {rows[rows.method == 'full_pool'].accuracy.iloc[0]:.3f}",
            flush=True,
        )
