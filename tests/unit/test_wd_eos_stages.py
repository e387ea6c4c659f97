"""wd_eos stages: bad input gets a clear UserError; the claims follow from the table by the configured criteria."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

from neurips26.common.cifar import ARCHIVES, read_cifar
from neurips26.common.config import compose
from neurips26.common.errors import UserError
from neurips26.papers.wd_eos import data, experiments, paper_claims


def test_broken_digits_file_is_a_user_error(tmp_path):
    (tmp_path / data.DIGITS_FILE).write_bytes(b"\x1f\x8b not really gzip")
    with pytest.raises(UserError, match="corrupted or truncated"):
        data.read_digits(tmp_path)
    with pytest.raises(UserError, match="missing"):
        data.read_digits(tmp_path / "nowhere")
    with gzip.open(tmp_path / data.DIGITS_FILE, "wt") as handle:
        handle.write("1,2,3\n4,5,6\n")
    with pytest.raises(UserError, match="64 pixels"):
        data.read_digits(tmp_path)


@pytest.mark.parametrize("point", [("vit", "coupled", 0.1, 0.0), ("mlp", "adamw", 0.1, 0.0), ("mlp", "coupled", -1, 0.0),
                                   ("mlp", "coupled", 0.1, 20.0)])
def test_bad_grid_point_is_a_user_error(point):
    with pytest.raises(UserError):
        experiments.check_point(*point)


def _table(mlp_plateau, cnn_plateau, cnn_osc, velocity, align):
    wds = [0.0, 0.002, 0.005, 0.01]
    rows = []
    for arch, plateau in (("mlp", mlp_plateau), ("cnn", cnn_plateau)):
        for i, wd in enumerate(wds):
            rows.append({"arch": arch, "decay": "coupled", "eta": 0.2, "wd": wd, "sharpening_time": 100 + 50 * i,
                         "plateau": plateau[i], "threshold": 10 - wd, "plateau_ratio": plateau[i] / (10 - wd),
                         "osc_amplitude": cnn_osc[i], "osc_std_late": cnn_osc[i], "loss_osc": cnn_osc[i],
                         "osc_amplitude_common": cnn_osc[i], "eos_common_seeds": 3,
                         "eos_reached_fraction": 1.0, "kernel_velocity": velocity[i], "alignment": align[i]})
    return pd.DataFrame(rows)


def _runs(cnn_osc, velocity, seeds=3):
    """A run table (tables/runs.csv) whose seed means are the given values: seed levels differ by factors (as the CNN
    seeds do), with a small deterministic jitter so that the trend has residuals."""
    wds = [0.0, 0.002, 0.005, 0.01]
    rows = []
    for arch in ("mlp", "cnn"):
        for seed in range(seeds):
            for i, wd in enumerate(wds):
                jitter = 1 + 0.02 * ((7 * seed + 3 * i) % 5 - 2)
                rows.append({"arch": arch, "decay": "coupled", "eta": 0.2, "wd": wd, "seed": seed,
                             "osc_amplitude": cnn_osc[i] * (1 + seed) * jitter,
                             "kernel_velocity": velocity[i] * (1 + seed) * jitter,
                             "eos_complete": True, "eos_reached": True, "eos_measured": True})
    return pd.DataFrame(rows)


def test_claims_are_computed_from_the_table():
    cfg = compose("wd_eos", ["scale=tiny"])
    table = _table([10, 9.5, 6, 5], [10, 10.2, 9.8, 10.1], [1, 0.8, 0.5, 0.2], [4, 3, 2, 1], [0.05, 0.06, 0.3, 0.4])
    claims, measured = paper_claims.build(table, _runs([1, 0.8, 0.5, 0.2], [4, 3, 2, 1]), cfg)
    verdicts = {c.id: c.to_json()["holds"] for c in claims}
    assert verdicts == dict.fromkeys(verdicts, True)
    assert measured["mlp_transition_wd"] == 0.005 and measured["cnn_osc_trend_runs"] == 12
    # MLP at the threshold everywhere and rising velocity and amplitude: those claims must fail
    table = _table([10] * 4, [10, 10.2, 9.8, 10.1], [1, 1.2, 1.5, 2], [1, 2, 3, 4], [0.3, 0.2, 0.1, 0.05])
    runs = _runs([1, 1.2, 1.5, 2], [1, 2, 3, 4])
    verdicts = {c.id: c.to_json()["holds"] for c in paper_claims.build(table, runs, cfg)[0]}
    assert not verdicts["mlp_below_threshold"] and not verdicts["cnn_damped_oscillations"]
    assert not verdicts["ntk_stability"] and not verdicts["alignment_drives_transition"]
    # the verdict follows the runs' within-seed trend, not the seed means (whose Spearman is kept as an ablation)
    table = _table([10, 9.5, 6, 5], [10, 10.2, 9.8, 10.1], [1, 0.8, 0.5, 0.2], [4, 3, 2, 1], [0.05, 0.06, 0.3, 0.4])
    claims, m = paper_claims.build(table, _runs([1, 1.2, 1.5, 2], [4, 3, 2, 1]), cfg)
    assert claims[2].to_json()["holds"] is False and m["cnn_osc_spearman"] == pytest.approx(-1.0)
    # the amplitude trend is read over the seeds with an EoS window at every lambda only
    runs = _runs([1, 0.8, 0.5, 0.2], [4, 3, 2, 1])
    runs.loc[(runs.arch == "cnn") & (runs.seed == 2) & (runs.wd == 0.01), "eos_measured"] = False
    assert paper_claims.build(table, runs, cfg)[1]["cnn_osc_trend_runs"] == 8


def _cifar_archive(folder, batches):
    """A CIFAR-10 python archive in the official layout (pickled dicts of uint8 rows and lists of Python ints)."""
    import io
    import pickle
    import tarfile

    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(folder / ARCHIVES["cifar10"]["archive"], "w:gz") as archive:
        for i, (pixels, labels) in enumerate(batches, start=1):
            blob = pickle.dumps({b"data": pixels, b"labels": [int(y) for y in labels]})
            info = tarfile.TarInfo(f"cifar-10-batches-py/data_batch_{i}")
            info.size = len(blob)
            archive.addfile(info, io.BytesIO(blob))


def test_cifar_reader_keeps_the_official_order_across_batches(tmp_path):
    rng = np.random.default_rng(0)
    batches = [(rng.integers(0, 256, (6, 3072), dtype=np.uint8), rng.integers(0, 10, 6)) for _ in range(2)]
    _cifar_archive(tmp_path, batches)
    pixels, labels = read_cifar(tmp_path, "cifar10", "train", count=9)
    np.testing.assert_array_equal(pixels, np.concatenate([batches[0][0], batches[1][0][:3]]))
    np.testing.assert_array_equal(labels, np.concatenate([batches[0][1], batches[1][1][:3]]))
    with pytest.raises(UserError, match="data_batch_3. not found"):
        read_cifar(tmp_path, "cifar10", "train", count=20)
    (tmp_path / ARCHIVES["cifar10"]["archive"]).write_bytes(b"not a tar")
    with pytest.raises(UserError, match="not a readable cifar10"):
        read_cifar(tmp_path, "cifar10", "train", count=9)


def test_real_data_runs_on_the_first_cifar10_images(tmp_path):
    """data=real: the run stage reads the prepared CIFAR-10 archive: first n_train images train, the next ones probe,
    the CNN sees 3 x 32 x 32 images."""
    from neurips26.common.artifacts import write_json
    from neurips26.common.stage import StageContext
    from neurips26.papers.wd_eos.stages import STAGES

    rng = np.random.default_rng(1)
    raw = tmp_path / "data/raw/cifar10"
    _cifar_archive(raw, [(rng.integers(0, 256, (30, 3072), dtype=np.uint8), np.arange(30) % 10)])
    from neurips26.common.fetch import sha256_of

    archive = ARCHIVES["cifar10"]["archive"]
    write_json(raw / "provenance.json", {"dataset": "cifar10", "mode": "real",
                                         "files": {archive: {"sha256": sha256_of(raw / archive)}}})
    cfg = compose("wd_eos", ["scale=tiny", "data=real", "cifar10.n_train=20", "probe_size=5", "hessian_size=20",
                             "max_steps=2", "eig_freq=1", "run.arch=cnn"])
    split = data.load_split(raw, cfg)
    assert split.shape == (3, 32, 32) and split.x_train.shape == (20, 3072) and split.x_probe.shape == (5, 3072)
    np.testing.assert_array_equal(split.y_train, np.arange(20) % 10)
    ctx = StageContext("wd_eos", cfg, inputs=[raw / "provenance.json"], outputs=[tmp_path / "run.csv"], seed=0)
    STAGES["run"](ctx)
    assert len(pd.read_csv(tmp_path / "run.csv")) == 3


def test_constant_sharpening_time_is_untested_with_a_reason():
    cfg = compose("wd_eos", ["scale=tiny"])
    table = _table([10, 9.5, 6, 5], [10, 10.2, 9.8, 10.1], [1, 0.8, 0.5, 0.2], [4, 3, 2, 1], [0.05, 0.06, 0.3, 0.4])
    table.loc[table.arch == "cnn", "sharpening_time"] = 0.0
    entry = paper_claims.build(table, _runs([1, 0.8, 0.5, 0.2], [4, 3, 2, 1]), cfg)[0][0].to_json()
    assert entry["holds"] is None and "cnn" in entry["why_untested"]


def test_run_stops_by_the_eos_rule():
    """A step size whose 2/eta is below the initial sharpness puts the run at the EoS at step 0: with a rule of 2
    checkpoints it stops at the second checkpoint after it, long before the cap."""
    rng = np.random.default_rng(0)
    split = data.make_split(rng.integers(0, 17, (60, 64)).astype(float), np.arange(60) % 10, 40, 10, 0)
    cfg = compose("wd_eos", ["scale=tiny", "max_steps=50", "eig_freq=5", "eigen.iters=3", "grid.cnn.eos_checkpoints=2",
                             "hessian_size=40"])
    trace = experiments.run(cfg, split, "cnn", "coupled", 1.9, 0.0, 0, "cpu")
    assert trace.sharpness.iloc[0] >= 2 / 1.9
    assert list(trace.step) == [0, 5, 10]
    cfg = compose("wd_eos", ["scale=tiny", "max_steps=10", "eig_freq=5", "eigen.iters=3", "hessian_size=40"])
    assert list(experiments.run(cfg, split, "mlp", "coupled", 1.9, 0.0, 0, "cpu").step) == [0, 5, 10]  # no rule


def test_replicate_seeds_extend_only_the_arch_that_asks_for_them():
    from neurips26.papers.wd_eos.grid import run_seeds

    grid = {"mlp": {"etas": [0.2]}, "cnn": {"etas": [0.04], "replicates": 2}}
    assert run_seeds(grid, "mlp", [3, 4, 5]) == [3, 4, 5]
    assert run_seeds(grid, "cnn", [3, 4, 5]) == [3, 4, 5, 1003, 1004, 1005]
    with pytest.raises(ValueError, match="seeds must lie"):
        run_seeds(grid, "cnn", [1003])


def test_within_seed_trend_closed_form_and_able_to_fail():
    """The trend criterion: exact log-linear data with seed levels that differ by factors give the slope exactly (and a
    huge |t|: no residual but rounding); trendless data, or a rise, do not pass t < -2; a seed's level does not enter
    the slope."""
    wds = np.array([0.0, 0.002, 0.005, 0.01])
    exact = pd.DataFrame([{"seed": s, "wd": w, "v": (1 + 3 * s) * np.exp(-50 * w)} for s in range(3) for w in wds])
    r = paper_claims.within_seed_trend(exact, "v")
    assert r["slope"] == pytest.approx(-50) and r["t"] < -1e6 and (r["runs"], r["seeds"]) == (12, 3)
    assert r["change"] == pytest.approx(np.expm1(-0.5))
    # hand-computed: one seed, y = log v = [0, -1, 0, -1] at x = [0, 1, 2, 3] (as lambda x 1000): slope -0.2 per unit
    one = pd.DataFrame({"seed": 0, "wd": [0.0, 0.001, 0.002, 0.003], "v": np.exp([0.0, -1.0, 0.0, -1.0])})
    r = paper_claims.within_seed_trend(one, "v")
    resid = np.array([0, -1, 0, -1]) - (-0.5) - (-0.2) * (np.arange(4) - 1.5)
    se = np.sqrt((resid ** 2).sum() / 2 / 5.0)
    assert r["slope"] == pytest.approx(-200) and r["t"] == pytest.approx(-0.2 / se)
    assert r["t"] > -2  # a zig-zag with a small downward tilt does not pass
    rng = np.random.default_rng(0)
    noise = pd.DataFrame([{"seed": s, "wd": w, "v": (1 + s) * np.exp(0.3 * rng.standard_normal())}
                          for s in range(6) for w in wds])
    assert paper_claims.within_seed_trend(noise, "v")["t"] > -2
    rising = exact.assign(v=exact.v[::-1].to_numpy())
    assert paper_claims.within_seed_trend(rising, "v")["t"] > 0
    # missing or non-positive values are left out; a seed left with one lambda drops out; too few runs: NaN
    holes = exact.copy()
    holes.loc[[0, 1, 2], "v"] = [np.nan, 0.0, -1.0]
    assert paper_claims.within_seed_trend(holes, "v")["runs"] == 8
    assert np.isnan(paper_claims.within_seed_trend(exact.iloc[:2], "v")["t"])
