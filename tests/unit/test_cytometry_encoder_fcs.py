"""FCS reading against closed forms and real files: round trip through spill + arcsinh, the 17 fcsparser test files
(parseable ones read, broken ones fail naming the file), truncation, and ingest leaving no partial AnnData."""

import importlib.util
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.cytometry_encoder.fcs import read_fcs, write_fcs
from neurips26.papers.cytometry_encoder.ingest import ingest
from neurips26.papers.cytometry_encoder.manifest import write_manifest
from neurips26.papers.cytometry_encoder.real_fcs import BROKEN, OFF_BY_ONE, READABLE

ASINH = {"kind": "asinh", "cofactor": 150.0, "t": 262144.0, "w": 0.5, "m": 4.5}
FCS_CFG = SimpleNamespace(transform=ASINH, tolerate_off_by_one=True, max_cells_per_sample=1000)


def fcsparser_dir() -> Path:
    """The FCS files shipped inside fcsparser (found without importing it: only its files are used)."""
    spec = importlib.util.find_spec("fcsparser")
    if spec is None:
        pytest.skip("fcsparser (its bundled FCS files) is not installed")
    return Path(spec.origin).parent / "tests" / "data" / "FlowCytometers"


def write_sample(path, rng, spill=None, n=200):
    true = np.sinh(rng.uniform(0, 4, (n, 3))) * 150
    raw = true @ spill if spill is not None else true
    time = np.arange(n, dtype=float)[:, None]
    write_fcs(path, np.hstack([raw, time]), ["FL1-A", "FL2-A", "FL3-A", "Time"], ["CD3e FITC", "HLA DR-PE", "CD279_APC", ""],
              spill)
    return true


def test_round_trip_compensates_and_transforms_to_the_closed_form(tmp_path):
    rng = np.random.default_rng(0)
    spill = np.array([[1.0, 0.04, 0.01], [0.0, 1.0, 0.03], [0.0, 0.0, 1.0]])
    true = write_sample(tmp_path / "a.fcs", rng, spill)
    (data,) = read_fcs(tmp_path / "a.fcs", ASINH)
    assert data.markers == ["CD3", "HLA-DR", "PD-1"] and data.compensated
    np.testing.assert_allclose(data.events, np.arcsinh(true / 150.0), atol=2e-3)


def test_without_compensation_spill_would_be_visible(tmp_path):
    rng = np.random.default_rng(1)
    true = write_sample(tmp_path / "b.fcs", rng)
    (data,) = read_fcs(tmp_path / "b.fcs", ASINH)
    assert not data.compensated
    np.testing.assert_allclose(data.events, np.arcsinh(true / 150.0), atol=2e-3)


PARSEABLE = READABLE  # relative path -> data sets (the list the pipeline's real-file check ingests)


def test_the_17_real_files_are_all_accounted_for():
    files = sorted(str(p.relative_to(fcsparser_dir())) for p in fcsparser_dir().rglob("*") if p.suffix.lower() in
                   (".fcs", ".lmd"))
    assert sorted([*PARSEABLE, *OFF_BY_ONE, *BROKEN]) == files


@pytest.mark.parametrize("name", [*PARSEABLE, *OFF_BY_ONE])
def test_every_parseable_real_file_reads(name):
    data = read_fcs(fcsparser_dir() / name, ASINH)
    assert len(data) == PARSEABLE.get(name, 1)
    for d in data:
        assert d.events.shape[1] == len(d.markers) == len(set(d.markers)) and len(d.events) > 0
        assert np.isfinite(d.events).all()
    if name.startswith("FACS_Diva"):  # CD markers in $PnS, spill matrix in the file
        assert {"CD20", "CD10", "CD45", "CD34", "CD19", "CD38"} <= set(data[0].markers) and data[0].compensated


@pytest.mark.parametrize("name", OFF_BY_ONE)
def test_off_by_one_offsets_are_refused_unless_tolerated(name):
    with pytest.raises(UserError, match=Path(name).name):
        read_fcs(fcsparser_dir() / name, ASINH, tolerate_off_by_one=False)


@pytest.mark.parametrize("name", BROKEN)
def test_broken_real_files_fail_naming_the_file(name):
    with pytest.raises(UserError, match=Path(name).name):
        read_fcs(fcsparser_dir() / name, ASINH)


def _study(tmp_path, n_files=3):
    rng = np.random.default_rng(2)
    folder = tmp_path / "fcs" / "S1"
    for i in range(n_files):
        write_sample(folder / f"s{i}.fcs", rng)
    write_manifest(tmp_path / "manifest.yaml", [{"id": "S1", "files": [
        {"path": f"s{i}.fcs", "sample": f"s{i}", "labels": {"label": str(i % 2)}} for i in range(n_files)]}])
    return folder


def test_ingest_writes_one_anndata_per_study(tmp_path):
    import anndata as ad

    _study(tmp_path)
    ingest(tmp_path / "manifest.yaml", tmp_path / "fcs", tmp_path / "out", tmp_path / "studies.csv", FCS_CFG, real=False,
           seed=0)
    adata = ad.read_h5ad(tmp_path / "out" / "S1.h5ad")
    assert adata.shape == (600, 3) and list(adata.var_names) == ["CD3", "HLA-DR", "PD-1"]
    assert sorted(adata.obs["sample"].unique()) == ["s0", "s1", "s2"] and set(adata.obs["label"]) == {"0", "1"}


def test_a_truncated_file_stops_ingest_with_its_name_and_no_anndata(tmp_path):
    folder = _study(tmp_path)
    data = (folder / "s2.fcs").read_bytes()
    (folder / "s2.fcs").write_bytes(data[: len(data) // 2])
    with pytest.raises(UserError, match="s2.fcs"):
        ingest(tmp_path / "manifest.yaml", tmp_path / "fcs", tmp_path / "out", tmp_path / "studies.csv", FCS_CFG,
               real=False, seed=0)
    assert not list(tmp_path.rglob("*.h5ad")) and not (tmp_path / "studies.csv").exists()


def test_a_checksum_mismatch_and_an_empty_manifest_are_clear_errors(tmp_path):
    _study(tmp_path, 1)
    write_manifest(tmp_path / "manifest.yaml", [{"id": "S1", "files": [
        {"path": "s0.fcs", "sample": "s0", "url": "https://example.org/s0.fcs", "sha256": "0" * 64}]}])
    with pytest.raises(UserError, match="corrupted"):
        ingest(tmp_path / "manifest.yaml", tmp_path / "fcs", tmp_path / "out", tmp_path / "s.csv", FCS_CFG, real=True,
               seed=0)
    write_manifest(tmp_path / "manifest.yaml", [])
    with pytest.raises(UserError, match="lists no public studies"):
        ingest(tmp_path / "manifest.yaml", tmp_path / "fcs", tmp_path / "out", tmp_path / "s.csv", FCS_CFG, real=True,
               seed=0)


def test_real_path_fetches_verifies_and_ingests(tmp_path):
    """The data: real path end to end without a network: file:// URLs, sha256 checked, then the same ingest."""
    from neurips26.common.pipeline.digests import sha256_of
    from neurips26.papers.cytometry_encoder.manifest import fetch_studies

    source = tmp_path / "remote"
    write_sample(source / "x.fcs", np.random.default_rng(4))
    entry = {"path": "x.fcs", "sample": "x", "url": (source / "x.fcs").as_uri(), "sha256": sha256_of(source / "x.fcs")}
    write_manifest(tmp_path / "m.yaml", [{"id": "FR-FCM-TEST", "license": "CC0", "files": [entry]},
                                         {"id": "PRIVATE", "access": "credentialed", "files": [entry]}])
    provenance = fetch_studies(tmp_path / "m.yaml", tmp_path / "raw")
    assert provenance["studies"]["FR-FCM-TEST"]["files"] == 1 and provenance["skipped"] == {"PRIVATE": "credentialed"}
    ingest(tmp_path / "m.yaml", tmp_path / "raw", tmp_path / "out", tmp_path / "s.csv", FCS_CFG, real=True, seed=0)
    assert (tmp_path / "out" / "FR-FCM-TEST.h5ad").is_file() and not (tmp_path / "out" / "PRIVATE.h5ad").exists()
    write_manifest(tmp_path / "m.yaml", [{"id": "BAD", "files": [{**entry, "sha256": "1" * 64}]}])
    with pytest.raises(UserError, match="corrupted"):
        fetch_studies(tmp_path / "m.yaml", tmp_path / "raw2")
    assert not (tmp_path / "raw2").exists()


def test_the_13_readable_real_files_go_through_ingest_anndata_and_the_encoder(tmp_path):
    """The pipeline's real-file check on a small scale: every readable file -> one .h5ad -> samples with frozen name
    vectors (hashed here; the pipeline uses MiniLM) -> finite sample embeddings from the set encoder."""
    from omegaconf import OmegaConf

    from neurips26.papers.cytometry_encoder import marker_vectors, pretrain
    from neurips26.papers.cytometry_encoder.corpus import load_samples
    from neurips26.papers.cytometry_encoder.real_fcs import ingest_real

    fcsparser_dir()  # skips without fcsparser
    ingest_real(tmp_path / "real", tmp_path / "real.csv", SimpleNamespace(**{**vars(FCS_CFG), "max_cells_per_sample": 50}),
                0)
    assert len(list((tmp_path / "real").glob("*.h5ad"))) == 13
    arrays = marker_vectors.build(marker_vectors.marker_names([tmp_path / "real"]), ["hashed"])
    samples = load_samples(tmp_path / "real", dict(zip(arrays["names"].tolist(), arrays["hashed"])))
    assert len(samples) == 13 + 3  # Guava Muse holds 4 data sets
    cfg = OmegaConf.create({"model": {"names": "hashed", "width": 8, "heads": 2, "inducing": 3}})
    z = pretrain.embed(pretrain.build_model(cfg), samples, 20, seed=0, batch_size=4)
    assert z.shape == (16, 16) and np.isfinite(z).all()


def _studies():
    from neurips26.papers.cytometry_encoder.manifest import Study, StudyFile

    def study(name, labelled=True):
        files = [StudyFile(f"{name}_{k}.fcs", f"{name}_{k}", {"condition": str(k % 2)} if labelled else {})
                 for k in range(4)]
        return Study(name, files)

    return [study("P1"), study("P2"), study("H1"), study("H2", labelled=False)]


def test_task_manifest_accepts_a_valid_one_and_refuses_unknown_studies_missing_labels_and_no_heldout():
    """Issue 70 item 8: a task manifest naming a study the study manifest lacks, a held-out file without the task's
    label, or a task without a held-out study is refused, naming what is wrong."""
    from neurips26.common.pipeline.errors import UserError
    from neurips26.papers.cytometry_encoder.task_manifest import parse_tasks

    studies = _studies()
    valid = {"pretrain": ["P1", "P2"], "tasks": [{"name": "t", "label": "condition", "heldout": ["H1"]},
                                                  {"name": "seen", "label": "condition", "heldout": ["P1"],
                                                   "in_distribution": True}]}
    pretrain, tasks = parse_tasks(valid, studies)
    assert pretrain == ["P1", "P2"] and [t.heldout for t in tasks] == [("H1",), ("P1",)]
    bad = {
        "unknown study 'FR-NOPE'": {"pretrain": ["P1"], "tasks": [{"name": "t", "label": "condition",
                                                                    "heldout": ["FR-NOPE"]}]},
        "without the label 'condition'": {"pretrain": ["P1"], "tasks": [{"name": "t", "label": "condition",
                                                                          "heldout": ["H2"]}]},
        "no held-out study": {"pretrain": ["P1"], "tasks": [{"name": "t", "label": "condition", "heldout": []}]},
        "also pretrains": {"pretrain": ["P1"], "tasks": [{"name": "t", "label": "condition", "heldout": ["P1"]}]},
        "unknown study 'X'": {"pretrain": ["X"], "tasks": [{"name": "t", "label": "condition", "heldout": ["H1"]}]},
    }
    for message, document in bad.items():
        with pytest.raises(UserError, match=message):
            parse_tasks(document, studies)
