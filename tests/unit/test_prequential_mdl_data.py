"""Data: pooling by hand, nested label noise at the right rate, digit-pair classes, clear errors for missing files
(the Debian package, the prepared folder), and the stage's checks of its run settings."""

import gzip

import numpy as np
import pytest
import yaml

from neurips26.common.data.cifar import ARCHIVES
from neurips26.common.data.datasets import get_dataset, prepare
from neurips26.common.pipeline.errors import UserError
from neurips26.papers.prequential_mdl import data


def test_pool_images_by_hand():
    images = np.arange(16, dtype=np.uint8).reshape(1, 4, 4)
    np.testing.assert_allclose(data.pool_images(images, 2)[0] * 255, [[2.5, 4.5], [10.5, 12.5]])
    with pytest.raises(UserError, match="cannot be pooled"):
        data.pool_images(np.zeros((1, 5, 4), np.uint8), 2)


def _task(n=20000, classes=10):
    x = np.zeros((n, 3), np.float32)
    y = np.arange(n) % classes
    return data.with_noise_draws(x, y, x[:5000], y[:5000], classes, seed=0)


def test_label_noise_is_nested_and_at_the_stated_rate():
    task = _task()
    _, clean = task.train(20000, 0.0)
    _, low = task.train(20000, 0.2)
    _, high = task.train(20000, 0.6)
    assert (clean == task.y_train).all()
    assert set(np.flatnonzero(low != clean)) <= set(np.flatnonzero(high != clean))  # nested in p
    # a label is redrawn with probability p and then differs with probability 1 - 1/C
    assert np.mean(high != clean) == pytest.approx(0.6 * 0.9, abs=0.015)
    _, fewer = task.train(100, 0.6)
    np.testing.assert_array_equal(fewer, high[:100])  # nested in n
    _, noisy, clean_test = task.test(0.6)
    assert np.mean(noisy != clean_test) == pytest.approx(0.54, abs=0.03)
    with pytest.raises(UserError, match="n=30000"):
        task.train(30000, 0.0)


def test_digit_pairs_label_left_and_right():
    images = np.stack([np.full((2, 2), d, np.float32) for d in range(10)])
    x, y = data.digit_pairs(images, np.arange(10), 50, np.random.default_rng(0))
    left, right = x.reshape(50, 2, 4)[:, 0, 0], x.reshape(50, 2, 4)[:, 0, 2]
    np.testing.assert_array_equal(y, 10 * left + right)


def test_missing_fashion_files_name_the_debian_package(tmp_path):
    with pytest.raises(UserError, match="dataset-fashion-mnist"):
        data.load_fashion(tmp_path)
    with pytest.raises(UserError, match="data_prepare"):
        data.load_mnist_5k(tmp_path)


def test_a_missing_system_package_file_stops_data_prepare_with_the_apt_command(tmp_path):
    registry = tmp_path / "datasets.yaml"
    registry.write_text(yaml.safe_dump({"datasets": [{
        "id": "toy", "papers": ["prequential_mdl"], "license": "MIT",
        "embedded": {"system_package": "dataset-toy", "files": [{"path": str(tmp_path / "absent.gz"),
                                                                 "sha256": "0" * 64}]}}]}))
    with pytest.raises(UserError, match="apt-get install dataset-toy"):
        prepare(get_dataset("toy", registry), "embedded", tmp_path)
    assert not (tmp_path / "data").exists()


def test_system_package_files_are_copied_and_checked(tmp_path):
    import hashlib

    origin = tmp_path / "pkg" / "file.gz"
    origin.parent.mkdir()
    origin.write_bytes(gzip.compress(b"abc"))
    digest = hashlib.sha256(origin.read_bytes()).hexdigest()
    registry = tmp_path / "datasets.yaml"
    entry = {"id": "toy", "papers": ["prequential_mdl"], "license": "MIT",
             "embedded": {"system_package": "dataset-toy", "files": [{"path": str(origin), "sha256": digest}]}}
    registry.write_text(yaml.safe_dump({"datasets": [entry]}))
    provenance = prepare(get_dataset("toy", registry), "embedded", tmp_path)
    assert (provenance.parent / "file.gz").read_bytes() == origin.read_bytes()
    entry["embedded"]["files"][0]["sha256"] = "f" * 64
    registry.write_text(yaml.safe_dump({"datasets": [entry]}))
    with pytest.raises(UserError, match="corrupted"):
        prepare(get_dataset("toy", registry), "embedded", tmp_path)


def test_run_stage_rejects_a_noise_level_outside_the_sweep(tmp_path):
    from neurips26.cli import main

    code = main(["prequential_mdl", "run", "--seed", "0", "--output", str(tmp_path / "r.csv"), "scale=tiny",
                 "run.task=c10proxy", "run.noise=0.33"])
    assert code == 2 and not (tmp_path / "r.csv").exists()
    code = main(["prequential_mdl", "run", "--seed", "0", "--output", str(tmp_path / "r.csv"), "scale=tiny",
                 "run.task=cifar", "run.noise=0.2"])
    assert code == 2 and not (tmp_path / "r.csv").exists()


def _cifar_archive(path, which, n_train, n_test):
    """A miniature archive in the official layout: pickled dicts of uint8 rows (3 x 32 x 32, plane by plane)."""
    import io
    import pickle
    import tarfile

    spec, rng = ARCHIVES[which], np.random.default_rng(0)
    with tarfile.open(path, "w:gz") as archive:
        for split, count in (("train", n_train), ("test", n_test)):
            for member in spec[split]:
                rows = rng.integers(0, 256, (count, 3072), dtype=np.uint8)
                rows[:, :1024] = 255  # the red plane saturated: pooled red inputs must be exactly 1
                blob = pickle.dumps({b"data": rows, spec["label"]: (np.arange(count) % spec["classes"]).tolist()})
                info = tarfile.TarInfo(member)
                info.size = len(blob)
                archive.addfile(info, io.BytesIO(blob))


@pytest.mark.parametrize(("which", "members"), [("cifar10", 5), ("cifar100", 1)])
def test_cifar_archives_are_read_in_the_official_layout(tmp_path, which, members):
    _cifar_archive(tmp_path / ARCHIVES[which]["archive"], which, 8, 6)
    tr_x, tr_y, te_x, te_y = data.load_cifar(tmp_path, which)
    assert tr_x.shape == (8 * members, 3, 32, 32) and te_x.shape == (6, 3, 32, 32) and tr_y.dtype == np.int64
    task = data.cifar_task(tmp_path, which, 8, 4, 2, seed=0)
    assert task.x_train.shape == (8, 3 * 16 * 16) and task.classes == ARCHIVES[which]["classes"]
    np.testing.assert_allclose(task.x_train[:, :256], 1.0)
    (tmp_path / ARCHIVES[which]["archive"]).write_bytes(b"not a tarball")
    with pytest.raises(UserError, match="not a readable"):
        data.load_cifar(tmp_path, which)
    with pytest.raises(UserError, match="data=real"):
        data.load_cifar(tmp_path / "empty", which)


def test_control_task_layout_and_noise():
    from neurips26.papers.prequential_mdl.data import control_task

    task = control_task(classes=4, n=50, n_test=30, signal=2.0, id_scale=5.0, seed=0)
    assert task.x_train.shape == (50, 54) and task.x_test.shape == (30, 54)
    # the class part is signal * one-hot(clean class); each training example has its own coordinate, test has none
    np.testing.assert_array_equal(task.x_train[:, :4].argmax(1), task.y_train)
    np.testing.assert_array_equal(task.x_train[:, 4:], 5.0 * np.eye(50))
    assert not task.x_test[:, 4:].any() and set(np.unique(task.x_test[:, :4])) == {0.0, 2.0}


def test_positive_control_ties_regret_and_test_error_together():
    """Trained with the sweep's own protocol, the control reaches interpolation, its noisy-label test error is
    p (1 - 1/C) up to sampling, and the regret per example rises with p."""
    from neurips26.common.pipeline.config import compose
    from neurips26.papers.prequential_mdl.experiments import run_control

    cfg = compose("prequential_mdl", ["scale=tiny", "control.n=300", "control.n_test=1000",
                                      "control.noise=[0.0,0.2,0.4]", "train.max_epochs=30"])
    runs = run_control(cfg, seed=11, device="cpu")
    assert (runs.train_err <= 0.01 + 1e-9).all()
    np.testing.assert_allclose(runs.test_err, runs.noise * 0.9, atol=0.05)
    assert np.all(np.diff(runs.regret_per_example) > 0)


def test_a_task_design_is_merged_over_the_shared_settings_for_that_task_only():
    from neurips26.common.pipeline.config import compose
    from neurips26.papers.prequential_mdl.data import task_config

    cfg = compose("prequential_mdl", [])
    c10, c100 = task_config(cfg, "c10proxy"), task_config(cfg, "c100proxy")
    assert c10.pool == 1 and c10.model.depth == 2 and c10.train.schedule == "cosine"
    assert list(c10.sweep.label_noise) == list(cfg.sweep.label_noise)  # the noise grid stays the shared one
    assert c10.regime == cfg.regime and c100 == cfg
    tiny = task_config(compose("prequential_mdl", ["scale=tiny"]), "c10proxy")
    assert list(tiny.sweep.n) == [100, 200] and tiny.train.max_epochs == 3
