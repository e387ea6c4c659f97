"""FCS studies -> one AnnData (.h5ad) per study: cells x harmonised markers, with sample, study and label annotations.

Every file of every study is read (and its sha256 checked when the manifest has one) BEFORE anything is written, and each
.h5ad lands atomically: a corrupted or truncated FCS file stops the run with its name and leaves no AnnData behind.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from neurips26.common.pipeline.artifacts import atomic_path, write_csv
from neurips26.common.pipeline.errors import UserError
from neurips26.papers.cytometry_encoder.fcs import read_fcs
from neurips26.papers.cytometry_encoder.manifest import Study, load_manifest


def read_study(study: Study, folder: Path, fcs_cfg, rng: np.random.Generator):
    """(cells x markers values, markers, obs frame, compensated) of one study; UserError naming the bad file."""
    from neurips26.common.pipeline.digests import verify_sha256

    blocks, sample_names, label_rows, markers, compensated = [], [], [], None, False
    transform, tolerate, cap = fcs_cfg.transform, bool(fcs_cfg.tolerate_off_by_one), int(fcs_cfg.max_cells_per_sample)
    for f in study.files:
        path = folder / f.path
        if f.sha256:
            verify_sha256(path, f.sha256)
        for data in read_fcs(path, transform, tolerate):
            if markers is None:
                markers = data.markers
            elif data.markers != markers:
                raise UserError(f"FCS file {path}: markers {data.markers} differ from the study's first file {markers}")
            keep = np.sort(rng.permutation(len(data.events))[:cap])
            blocks.append(data.events[keep])
            sample_names.append((f.sample if data.data_set == 0 else f"{f.sample}#{data.data_set}", len(keep)))
            label_rows.append(f.labels)
            compensated |= data.compensated
    if study.panel and not set(study.panel) <= set(markers):
        raise UserError(f"study {study.id}: the manifest's panel {study.panel} is not among the harmonised markers "
                        f"{markers} of its files (extend the alias table in markers.py?)")
    counts = [n for _, n in sample_names]
    obs = {"sample": np.repeat([name for name, _ in sample_names], counts), "study": study.id}
    for key in dict.fromkeys(k for labels in label_rows for k in labels):
        obs[key] = np.repeat([labels.get(key, "") for labels in label_rows], counts)
    return np.concatenate(blocks), markers, pd.DataFrame(obs), compensated


def to_anndata(study: Study, values, markers, obs, compensated):
    import anndata as ad

    obs = obs.astype(str).astype("category")
    obs.index = [f"c{i}" for i in range(len(obs))]
    var = pd.DataFrame(index=pd.Index(markers, name="marker"))
    annotations = {k: ("" if v is None else v) for k, v in study.annotations.items() if k != "files"}
    uns = {"study": study.id, "license": study.license, "source": study.source, "compensated": compensated,
           **{k: v for k, v in annotations.items() if isinstance(v, (str, int, float, bool))}}
    return ad.AnnData(X=values.astype(np.float32), obs=obs, var=var, uns=uns)


@contextmanager
def _object_strings():
    """anndata 0.12 cannot write pandas 3's Arrow-backed strings: build the frames with object strings meanwhile."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the option is deprecated in pandas 3 (and still honoured)
        with pd.option_context("future.infer_string", False):
            yield


def ingest(manifest: Path, fcs_root: Path, out_dir: Path, studies_csv: Path, fcs_cfg, real: bool, seed: int) -> None:
    """Read every study (the events kept per sample: a random subsample of `fcs.max_cells_per_sample`, drawn from the
    run seed's 'cell_subsample' stream), then write one .h5ad per study and the studies table (with the seed)."""
    from neurips26.common.pipeline.seed_streams import rng as seed_stream

    studies = [s for s in load_manifest(manifest, real) if s.access == "public"]
    if not studies:
        raise UserError(f"study manifest {manifest} lists no public studies: add verified entries (see "
                        "src/neurips26/papers/cytometry_encoder/README.md, 'Adding a real study')")
    rng = seed_stream(int(seed), "cell_subsample")
    tables = {s.id: (s, *read_study(s, fcs_root / s.id, fcs_cfg, rng)) for s in studies}  # read all first
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for sid, (study, values, markers, obs, compensated) in tables.items():
        with _object_strings(), atomic_path(out_dir / f"{sid}.h5ad") as tmp:
            to_anndata(study, values, markers, obs, compensated).write_h5ad(tmp)
        rows.append({"study": sid, "role": study.annotations.get("role") or "pretrain",
                     "task": study.annotations.get("task") or "", "taxonomy": study.annotations.get("taxonomy") or "",
                     "samples": obs["sample"].nunique(), "cells": len(obs), "markers": len(markers),
                     "panel": " ".join(markers), "compensated": compensated, "seed": int(seed)})
    write_csv(studies_csv, pd.DataFrame(rows))
