"""Trust no file on disk (issue 34): the CIFAR batches go through a restricted unpickler, the sources load nothing unsafely
(a scan of src/, benchmarks/ and the Snakemake files, itself tested on known-bad code), and every prepared file under
data/raw/ is checked against the sha256 its provenance.json records when a stage reads it."""

from __future__ import annotations

import gzip
import io
import os
import pickle
import struct
import tarfile
from pathlib import Path

import numpy as np
import pytest
import yaml
from omegaconf import OmegaConf

from neurips26.common.data.cifar import ARCHIVES, read_cifar
from neurips26.common.pipeline import provenance as prov
from neurips26.common.pipeline.artifacts import write_json
from neurips26.common.pipeline.digests import sha256_of, tree_digest
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.stage import StageContext, prepared_data_dir
from tests.source_scan import Report, scan_repository, scan_source, scan_text

# ----------------------------------------------------------------------------------------------------------------------
# CIFAR: the restricted unpickler


def py2_batch(rows: np.ndarray, labels: list[int], label_key: bytes = b"labels") -> bytes:
    """A batch pickled the way the official files are (Python 2 cPickle, protocol 2): str as SHORT_BINSTRING/BINSTRING,
    the pixel array rebuilt through numpy.core.multiarray._reconstruct, numpy.ndarray and numpy.dtype."""

    def s(b: bytes) -> bytes:
        return (b"U" + bytes([len(b)]) + b) if len(b) < 256 else (b"T" + struct.pack("<i", len(b)) + b)

    def i(v: int) -> bytes:
        return b"J" + struct.pack("<i", v)

    n, width = rows.shape
    return b"".join([
        b"\x80\x02}(", s(b"batch_label"), s(b"training batch 1 of 5"),
        s(label_key), b"](", *[i(int(y)) for y in labels], b"e",
        s(b"data"), b"cnumpy.core.multiarray\n_reconstruct\n", b"cnumpy\nndarray\n", i(0), b"\x85", s(b"b"), b"\x87R",
        b"(", i(1), i(n), i(width), b"\x86", b"cnumpy\ndtype\n", s(b"u1"), i(0), i(1), b"\x87R",
        b"(", i(3), s(b"|"), b"NNN", i(-1), i(-1), i(0), b"tb", b"\x89", s(rows.tobytes()), b"tb",
        s(b"filenames"), b"](", *[s(b"image_%d.png" % k) for k in range(n)], b"e", b"u."])


def cifar10_archive(folder: Path, blobs: list[bytes]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ARCHIVES["cifar10"]["archive"]
    with tarfile.open(path, "w:gz") as archive:
        for i, blob in enumerate(blobs, start=1):
            info = tarfile.TarInfo(f"cifar-10-batches-py/data_batch_{i}")
            info.size = len(blob)
            archive.addfile(info, io.BytesIO(blob))
    return path


def _rows(n: int, offset: int = 0) -> np.ndarray:
    return ((np.arange(n * 3072) + offset) % 251).astype(np.uint8).reshape(n, 3072)


def test_the_official_python2_layout_still_loads(tmp_path):
    blobs = [py2_batch(_rows(3, k), [k, k + 1, k + 2]) for k in range(2)]
    assert pickle.loads(blobs[0], encoding="bytes")[b"labels"] == [0, 1, 2]  # the fixture is a genuine pickle
    cifar10_archive(tmp_path, blobs)
    images, labels = read_cifar(tmp_path, "cifar10", "train", count=5)
    np.testing.assert_array_equal(images, np.concatenate([_rows(3, 0), _rows(3, 1)])[:5])
    np.testing.assert_array_equal(labels, [0, 1, 2, 1, 2])


class _System:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


class _Exec:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return exec, (f"open({str(self.marker)!r}, 'w').close()",)


class _NumpySave:
    """A callable from the allowed module numpy, but not an allowed name: the allow-list is by exact (module, name)."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return np.save, (str(self.marker), np.zeros(1))


@pytest.mark.parametrize(("payload", "refused"), [(_System, "system"), (_Exec, "builtins.exec"),
                                                  (_NumpySave, "numpy.save")])
def test_a_crafted_pickle_in_a_valid_archive_is_refused_and_never_runs(tmp_path, payload, refused):
    live = tmp_path / "live_marker"
    pickle.loads(pickle.dumps(payload(live)))  # the payload is live: unpickled naively, it writes its marker
    assert live.exists() or live.with_suffix(".npy").exists()

    marker = tmp_path / "marker"
    good = py2_batch(_rows(2), [0, 1])
    evil = pickle.dumps({b"data": payload(marker), b"labels": [0, 1]}, protocol=4)
    cifar10_archive(tmp_path / "raw", [good, evil])
    with pytest.raises(UserError, match=rf"data_batch_2: refused to unpickle: it names \S*{refused}") as error:
        read_cifar(tmp_path / "raw", "cifar10", "train", count=4)
    assert "cifar-10-python.tar.gz" in str(error.value)
    assert not marker.exists() and not marker.with_suffix(".npy").exists()


def test_protocol4_dotted_names_and_object_arrays_are_refused(tmp_path):
    """find_class('numpy', 'ndarray.tofile') must not resolve attributes; an object array is not pixel data."""
    dotted = b"\x80\x04\x8c\x05numpy\x8c\x0endarray.tofile\x93."  # STACK_GLOBAL('numpy', 'ndarray.tofile')
    cifar10_archive(tmp_path / "a", [dotted])
    with pytest.raises(UserError, match="numpy.ndarray.tofile"):
        read_cifar(tmp_path / "a", "cifar10", "train", count=1)
    objects = pickle.dumps({b"data": np.array([1, 2], dtype=object), b"labels": [0]})
    cifar10_archive(tmp_path / "b", [objects])
    with pytest.raises(UserError, match="not an integer pixel array"):
        read_cifar(tmp_path / "b", "cifar10", "train", count=1)


# ----------------------------------------------------------------------------------------------------------------------
# The source scan


@pytest.mark.slow
def test_the_sources_load_nothing_unsafely(repo_root):
    report = scan_repository(repo_root)
    assert report.violations == [], "unsafe loading:\n" + "\n".join(report.violations)
    # not vacuous: every Python file of src/ was read, and the loaders the project does use were seen and passed
    assert report.files >= len(list((repo_root / "src").rglob("*.py"))) > 50
    for seen in ("torch.load", "numpy.load", "restricted unpickler", "from_pretrained", "yaml.safe_load"):
        assert report.checked.get(seen, 0) >= 1, f"the scan no longer sees any {seen}: is it still looking?"


BAD = {
    "pickle": "import pickle\npickle.load(open('f', 'rb'))",
    "pickle_from": "from pickle import loads as l\nl(b'')",
    "pickle_dynamic": "import importlib\nimportlib.import_module('pickle')",
    "dunder_import": "__import__('cloudpickle')",
    "joblib": "import joblib\njoblib.load('m.pkl')",
    "dill": "import dill",
    "torch_load": "import torch\ntorch.load('m.pt')",
    "torch_load_false": "import torch\ntorch.load('m.pt', weights_only=False)",
    "torch_load_variable": "import torch\nsafe = True\ntorch.load('m.pt', weights_only=safe)",
    "torch_load_kwargs": "import torch\nkw = {}\ntorch.load('m.pt', weights_only=True, **kw)",
    "torch_alias": "import torch as T\nT.load('m.pt')",
    "torch_from": "from torch import load\nload('m.pt')",
    "torch_partial": "import functools, torch\nf = functools.partial(torch.load, weights_only=True)",
    "torch_getattr": "import torch\ngetattr(torch, 'load')('m.pt', weights_only=True)",
    "torch_hub": "import torch\ntorch.hub.load('a/b', 'm')",
    "numpy_load": "import numpy as np\nnp.load('a.npy')",
    "numpy_allow": "import numpy as np\nnp.load('a.npy', allow_pickle=True)",
    "numpy_from": "from numpy import load as L\nL('a.npz')",
    "numpy_save_allow": "import numpy as np\nnp.save('a.npy', [1], allow_pickle=True)",
    "yaml_load": "import yaml\nyaml.load(open('c.yaml'))",
    "yaml_unsafe_loader": "import yaml\nyaml.load(open('c.yaml'), Loader=yaml.Loader)",
    "yaml_full": "import yaml\nyaml.full_load('a: 1')",
    "yaml_unsafe": "from yaml import unsafe_load\nunsafe_load('a: 1')",
    "yaml_unsafe_subclass": "import yaml\nclass MyLoader(yaml.UnsafeLoader):\n    pass\nyaml.load('a', Loader=MyLoader)",
    "yaml_mixed": "import yaml\nyaml.load('a', Loader=yaml.SafeLoader if x else yaml.UnsafeLoader)",
    "pandas_pickle": "import pandas as pd\npd.read_pickle('t.pkl')",
    "frame_pickle": "frame.read_pickle('t.pkl')",
    "star": "from torch import *",
    "unpickler": "import pickle\nclass U(pickle.Unpickler):\n    pass",
    "pretrained_unchecked": "from transformers import AutoModel\ndef f(p):\n    return AutoModel.from_pretrained(p, "
                            "use_safetensors=True)",
    "pretrained_bin": "from transformers import AutoModel\ndef f(p):\n    verify_sha256(p, 'x')\n"
                      "    return AutoModel.from_pretrained(p)",
    "remote_code": "from transformers import AutoModel\ndef f(p):\n    verify_sha256(p, 'x')\n"
                   "    return AutoModel.from_pretrained(p, use_safetensors=True, trust_remote_code=True)",
}
GOOD = {
    "torch": "import torch\ntorch.load('m.pt', weights_only=True, map_location='cpu')",
    "numpy": "import numpy as np\nwith np.load('a.npz', allow_pickle=False) as d:\n    pass",
    "yaml": "import yaml\nyaml.safe_load('a: 1')\nyaml.load('a', Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader))",
    "pretrained": "import functools\nfrom transformers import AutoModel, AutoTokenizer\n@functools.cache\ndef checked(p):\n"
                  "    verify_sha256(p, 'x')\n    return p\ndef f(p):\n    p = checked(p)\n"
                  "    return AutoTokenizer.from_pretrained(p), AutoModel.from_pretrained(p, use_safetensors=True)",
    "yaml_safe_subclass": "import yaml\nclass StrictLoader(yaml.CSafeLoader):\n    pass\n"
                         "yaml.load('a', Loader=StrictLoader)",
    "unrelated_load": "import json\njson.load(open('a.json'))\nmodel.load_state_dict(s)",
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_the_scan_catches_unsafe_loading(name):
    report = Report()
    scan_source(BAD[name], f"src/{name}.py", report)
    assert report.violations, f"the scan let through: {BAD[name]!r}"


@pytest.mark.parametrize("name", sorted(GOOD))
def test_the_scan_accepts_safe_loading(name):
    report = Report()
    scan_source(GOOD[name], f"src/{name}.py", report)
    assert report.violations == []


def test_the_scan_allows_pickle_only_in_the_restricted_unpickler(repo_root):
    cifar = (repo_root / "src/neurips26/common/data/cifar.py").read_text()
    report = Report()
    scan_source(cifar, "src/neurips26/papers/someone/cifar_copy.py", report)
    assert any("imports pickle" in v for v in report.violations)
    report = Report()
    scan_source(cifar + "\npickle.loads(b'')\n", "src/neurips26/common/data/cifar.py", report)
    assert any("pickle.loads" in v for v in report.violations)
    report = Report()
    scan_text('rule x:\n    run:\n        import pickle\n        torch.load(f)  # weights\n', "workflow/rules/x.smk", report)
    assert len(report.violations) == 2


def test_every_paper_with_prepared_files_reads_them_through_the_verifier(repo_root):
    """A paper that reads a data/raw/ folder with files in it (a package or Debian copy, a download) gets that folder
    from stage.prepared_data_dir (or provenance.verified_input); generator datasets have nothing to verify."""
    exempt = {"cytometry_encoder": ("ingest.py", "verify_sha256(path, f.sha256)")}  # FCS files checked vs the manifest
    datasets = yaml.safe_load((repo_root / "config/datasets.yaml").read_text())["datasets"]
    papers = {p for d in datasets if set(d.get("embedded", {})) - {"generator", "description"} or d.get("real")
              for p in d.get("papers", [])}
    assert {"wd_eos", "prequential_mdl", "kondo_gate", "ensemble_mi", "dofp_lut"} <= papers
    for paper in sorted(papers):
        folder = repo_root / "src/neurips26/papers" / paper
        if paper in exempt:
            module, check = exempt[paper]
            assert check in (folder / module).read_text(), f"{paper}: the exemption's reason no longer holds"
            continue
        sources = "".join(p.read_text() for p in folder.rglob("*.py"))
        assert "prepared_data_dir(" in sources or "verified_input(" in sources, (
            f"{paper} reads prepared files but never calls stage.prepared_data_dir or provenance.verified_input")


# ----------------------------------------------------------------------------------------------------------------------
# Prepared files, verified when read


def _digits_like(path: Path, rows: np.ndarray) -> None:
    with gzip.open(path, "wt") as handle:
        np.savetxt(handle, rows, delimiter=",", fmt="%d")


def _prepared(root: Path, dataset: str, files: dict[str, bytes], mode: str = "embedded") -> Path:
    folder = root / "data/raw" / dataset
    folder.mkdir(parents=True, exist_ok=True)
    for name, blob in files.items():
        (folder / name).write_bytes(blob)
    write_json(folder / "provenance.json", {"dataset": dataset, "mode": mode, "files": {
        name: {"sha256": sha256_of(folder / name)} for name in files}})
    return folder


def _ctx(folder: Path, mode: str = "embedded") -> StageContext:
    return StageContext("toy", OmegaConf.create({"data": mode}), inputs=[folder / "provenance.json"])


def test_a_replaced_prepared_file_of_valid_format_is_refused(tmp_path):
    """As a user would: after a run, digits.csv.gz is replaced by a valid gzip CSV with other digits; the next job
    that reads the folder stops, naming the file and the command that re-prepares it."""
    from neurips26.papers.wd_eos.data import read_digits

    rng = np.random.default_rng(0)
    table = np.concatenate([rng.integers(0, 17, (20, 64)), np.arange(20)[:, None] % 10], axis=1)
    _digits_like(tmp_path / "original.csv.gz", table)
    folder = _prepared(tmp_path, "digits", {"digits.csv.gz": (tmp_path / "original.csv.gz").read_bytes()})
    assert prepared_data_dir(_ctx(folder), "digits") == folder
    table[0, 64] = (table[0, 64] + 1) % 10  # one label flipped
    _digits_like(folder / "digits.csv.gz", table)
    assert read_digits(folder)[1][0] == table[0, 64]  # a valid file: the reader alone would take it silently
    with pytest.raises(UserError) as error:
        prepared_data_dir(_ctx(folder), "digits")
    message = str(error.value)
    assert f"{folder / 'digits.csv.gz'}: this file has sha256 {sha256_of(folder / 'digits.csv.gz')}" in message
    assert f"rm -r {folder} && snakemake --cores 1 {folder}/provenance.json --config data=embedded" in message


def test_a_replaced_cifar_archive_is_refused_before_it_is_unpickled(tmp_path):
    archive = cifar10_archive(tmp_path / "data/raw/cifar10", [py2_batch(_rows(2), [0, 1])])
    folder = _prepared(tmp_path, "cifar10", {archive.name: archive.read_bytes()}, mode="real")
    assert prepared_data_dir(_ctx(folder, "real"), "cifar10") == folder
    cifar10_archive(folder, [py2_batch(_rows(2, 7), [0, 1])])  # valid layout, other pixels
    with pytest.raises(UserError, match=r"cifar-10-python.tar.gz: this file has sha256 .* --config data=real"):
        prepared_data_dir(_ctx(folder, "real"), "cifar10")


def test_missing_files_folders_and_records_are_clear_errors(tmp_path):
    folder = _prepared(tmp_path, "toy", {"a.csv": b"1\n"})
    (folder / "a.csv").unlink()
    with pytest.raises(UserError, match=r"a.csv is missing, but .*provenance.json records it"):
        prov.verified_input(folder)
    write_json(folder / "provenance.json", {"dataset": "toy", "mode": "real"})
    with pytest.raises(UserError, match="records no file with its sha256"):
        prov.verified_input(folder)
    write_json(folder / "provenance.json", {"dataset": "toy", "mode": "real", "files": {"a.csv": {"md5": "0" * 32}}})
    with pytest.raises(UserError, match="'a.csv' has no recorded sha256"):
        prov.verified_input(folder)
    write_json(folder / "provenance.json", {"dataset": "toy", "mode": "real", "files": {"../x": {"sha256": "0" * 64}}})
    with pytest.raises(UserError, match="must be a path inside the folder"):
        prov.verified_input(folder)
    write_json(folder / "provenance.json", {"dataset": "toy", "mode": "embedded", "generator": "some.module"})
    assert prov.verified_input(folder) == folder  # generated inside the run: nothing on disk to verify
    with pytest.raises(UserError, match="provenance.json is missing"):
        prov.verified_input(tmp_path / "elsewhere")


def test_a_copied_folder_is_checked_by_its_tree_digest(tmp_path):
    folder = tmp_path / "data/raw/corpus"
    for name, text in {"data/a/1.txt": "one", "data/b/2.txt": "two"}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    digest = tree_digest({p.relative_to(folder / "data").as_posix(): p for p in (folder / "data").rglob("*.txt")})
    write_json(folder / "provenance.json", {"dataset": "corpus", "mode": "embedded",
                                            "files": {"data": {"package_path": "x/data", "tree_sha256": digest}}})
    assert prov.verified_input(folder) == folder
    (folder / "data/b/3.txt").write_text("an extra article")
    with pytest.raises(UserError, match=r"data: this folder \(tree digest of its files\) has sha256"):
        prov.verified_input(folder)


def test_each_folder_is_hashed_once_per_job_and_again_when_a_file_changes(tmp_path, monkeypatch):
    import neurips26.common.pipeline.digests as digests

    folder = _prepared(tmp_path, "toy", {"a.csv": b"1\n", "b.csv": b"2\n"})
    hashed = []
    real = digests.sha256_of
    monkeypatch.setattr(digests, "sha256_of", lambda path: hashed.append(Path(path).name) or real(path))
    for _ in range(3):
        prepared_data_dir(_ctx(folder), "toy")
    assert sorted(hashed) == ["a.csv", "b.csv"]
    (folder / "b.csv").write_bytes(b"3\n")
    with pytest.raises(UserError, match="b.csv: this file has sha256"):
        prepared_data_dir(_ctx(folder), "toy")


def test_the_data_prepare_records_are_what_the_verifier_reads(tmp_path, repo_root):
    """The provenance data_prepare writes (package copy with a tree, Debian-style copy, download) passes as made."""
    from neurips26.common.data.datasets import get_dataset, prepare

    registry = tmp_path / "datasets.yaml"
    installed = Path(yaml.__file__).parent
    files = {p.relative_to(installed.parent).as_posix(): p for p in installed.rglob("*.py")}
    first = sorted(files)[0]
    registry.write_text(yaml.safe_dump({"datasets": [{"id": "pkg", "papers": [], "embedded": {
        "package": "pyyaml", "files": [{"path": first, "sha256": sha256_of(files[first])}]}}]}))
    provenance = prepare(get_dataset("pkg", registry), "embedded", tmp_path)
    assert prov.verified_input(provenance.parent) == provenance.parent
    copied = provenance.parent / Path(first).name
    copied.write_bytes(copied.read_bytes() + b"\n# changed\n")
    with pytest.raises(UserError, match=f"{copied.name}: this file has sha256"):
        prov.verified_input(provenance.parent)


def test_the_issue_case_wd_eos_refuses_a_replaced_digits_file(tmp_path, repo_root):
    """The case issue 34 reports: data/raw/digits/digits.csv.gz replaced by a valid file after data_prepare; the wd_eos
    run stage now stops before training, naming the file and the command that re-prepares it."""
    from neurips26.common.data.datasets import get_dataset, prepare
    from neurips26.common.pipeline.config import compose
    from neurips26.papers.wd_eos.data import DIGITS_FILE, read_digits
    from neurips26.papers.wd_eos.stages import STAGES

    record = prepare(get_dataset("digits", repo_root / "config/datasets.yaml"), "embedded", tmp_path)
    pixels, labels = read_digits(record.parent)
    _digits_like(record.parent / DIGITS_FILE, np.concatenate([pixels, (labels[:, None] + 1) % 10], axis=1))
    cfg = compose("wd_eos", ["scale=tiny"])
    ctx = StageContext("wd_eos", cfg, inputs=[record], outputs=[tmp_path / "run.csv"], seed=0)
    with pytest.raises(UserError, match=rf"{DIGITS_FILE}: this file has sha256 .* refused\. Re-prepare it: rm -r "):
        STAGES["run"](ctx)
    assert not (tmp_path / "run.csv").exists()
