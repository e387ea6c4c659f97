"""One plotting style for every paper; figures are saved atomically and drawn from saved tables only.

matplotlib loads on the first figure, not on import: a paper's figures module is named by its stages table, so an eager
import here would cost every run, table and claims job ~0.5 s of start-up."""

from __future__ import annotations

from pathlib import Path

from neurips26.common.pipeline.artifacts import atomic_path

STYLE = {
    "figure.figsize": (5.0, 3.6),
    "figure.dpi": 110,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "font.size": 9,
    "savefig.bbox": "tight",
    "svg.hashsalt": "neurips26",
}


def pyplot():
    """matplotlib.pyplot on the file-only Agg backend (no display on a cluster node)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def new_figure(ncols: int = 1, width_per_col: float = 4.2, height: float = 3.4):
    plt = pyplot()
    plt.rcParams.update(STYLE)
    fig, axes = plt.subplots(1, ncols, figsize=(width_per_col * ncols, height), squeeze=False)
    return fig, axes[0]


def save_figure(fig, path: str | Path) -> None:
    """PNG without timestamps in its metadata, so the same table gives the same bytes."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=Path(path).suffix.lstrip(".") or "png", metadata={"Software": None})
    pyplot().close(fig)
