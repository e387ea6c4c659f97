"""Figures, each drawn from one saved table (matplotlib is imported inside each function: the stages module
names these functions and must import cheaply)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def rare_label_f1(table: pd.DataFrame):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    cells = table[table["backbone"] != "tfidf"]
    names = [f"{b}\n{m}" for b, m in cells[["backbone", "method"]].drop_duplicates().itertuples(index=False)]
    x = np.arange(len(names))
    for offset, bin_name in ((-0.2, "rare"), (0.2, "frequent")):
        part = cells[cells["bin"] == bin_name]
        ax.bar(x + offset, part["macro_f1"], 0.4, yerr=part["macro_f1_std"].fillna(0), label=f"{bin_name} labels")
    tf = table[table["backbone"] == "tfidf"]
    for bin_name, style in (("rare", ":"), ("frequent", "--")):
        v = tf.loc[tf["bin"] == bin_name, "macro_f1"]
        if len(v):
            ax.axhline(float(v.iloc[0]), color="grey", ls=style, lw=1, label=f"TF-IDF LR, {bin_name}")
    ax.set_xticks(x, names, fontsize=8)
    ax.set_ylabel("test macro-F1")
    ax.set_title("MeSH labels by training frequency (rare: <= 5 docs)")
    ax.legend(fontsize=7)
    return fig


def data_efficiency(table: pd.DataFrame):
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(8, 3.4))
    for method in ("plant", "laat"):
        a.plot(table["fraction"], table[f"{method}_macro_f1"], "o-", label=method.upper())
    a.set_xscale("log")
    a.set_xlabel("training fraction")
    a.set_ylabel("test macro-F1 (MiniLM)")
    a.legend()
    b.errorbar(table["fraction"], table["gap_macro_f1"], yerr=table["gap_macro_f1_std"].fillna(0), fmt="o-")
    b.axhline(0, color="grey", lw=1)
    b.set_xscale("log")
    b.set_xlabel("training fraction")
    b.set_ylabel("PLANT - LAAT macro-F1")
    return fig


def attention_heatmap(table: pd.DataFrame):
    import matplotlib.pyplot as plt

    labels = list(dict.fromkeys(table["label"]))
    tokens = table[table["label"] == labels[0]].sort_values("position")["token"].tolist()
    fig, axes = plt.subplots(2, 1, figsize=(max(6, 0.18 * len(tokens)), 1.2 + 0.5 * len(labels)), sharex=True)
    for ax, col in zip(axes, ("learned", "planted")):
        grid = table.pivot(index="label", columns="position", values=col).reindex(labels)
        ax.imshow(grid.to_numpy(), aspect="auto", cmap="viridis")
        ax.set_yticks(range(len(labels)), [f"{lab}{' (rare)' if r else ''}" for lab, r in
                                           table.drop_duplicates("label")[["label", "rare"]].itertuples(index=False)],
                      fontsize=6)
        ax.set_title(f"{col} attention (PLANT model, one test abstract)", fontsize=8)
    axes[-1].set_xticks(range(len(tokens)), tokens, rotation=90, fontsize=5)
    return fig


# figure -> (the table it is drawn from, the drawing function)
FIGURES = {"rare_label_f1": ("rare", rare_label_f1), "data_efficiency": ("fraction", data_efficiency),
           "attention_heatmap": ("attention", attention_heatmap)}
