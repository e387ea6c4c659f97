"""wd_eos stages: bad input gets a clear UserError; the claims (contract v2) follow from the run table by the configured
criteria; the split follows the run seed."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

from neurips26.common.data.cifar import ARCHIVES, read_cifar
from neurips26.common.pipeline.config import compose
from neurips26.common.pipeline.errors import UserError
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


WDS = [0.0, 0.002, 0.005, 0.01]
FRESH = 300  # the synthetic runs carry fresh seeds (the claims stage refuses development seeds, below 100)


def _runs(mlp_plateau, cnn_plateau, cnn_osc, velocity, align, sharpening=(100, 150, 200, 250), seeds=3, cnn_align=None,
          cnn_wds=WDS):
    """A run table (tables/runs.csv) whose per-lambda values are the given ones for every seed: seed levels differ by
    factors (as the CNN seeds do), with a small deterministic jitter so that every per-seed statistic has a spread.
    MLP at 2/eta = 10 (eta 0.2), CNN at 2/eta = 50 (eta 0.04); plateaus are given as a fraction of 2/eta."""
    rows = []
    for arch, eta, plateau, wds in (("mlp", 0.2, mlp_plateau, WDS), ("cnn", 0.04, cnn_plateau, cnn_wds)):
        for seed in range(seeds):
            for i, wd in enumerate(wds):
                jitter = 1 + 0.02 * ((7 * seed + 3 * i) % 5 - 2)
                alignment = (cnn_align if arch == "cnn" and cnn_align is not None else align)[i]
                rows.append({"arch": arch, "decay": "coupled", "eta": eta, "wd": wd, "seed": FRESH + seed,
                             "sharpening_time": sharpening[i] + 10 * seed, "reached": True,
                             "sharpening_time_bound": np.nan, "rate_censored": False, "sharpening_rate_bound": np.nan,
                             "sharpening_rate": 2 / eta / (sharpening[i] + 10 * seed) if sharpening[i] else np.nan,
                             "flat": True,
                             "plateau": plateau[i] * 2 / eta * jitter, "threshold": 2 / eta - wd,
                             "eos_onset": 100.0, "osc_amplitude": cnn_osc[i] * (1 + seed) * jitter,
                             "osc_std_late": 0.1, "loss_osc": 0.01, "alignment": alignment * jitter,
                             "kernel_velocity": velocity[i] * (1 + seed) * jitter, "final_loss": 0.1,
                             "final_accuracy": 1.0, "eos_complete": True, "eos_reached": True, "eos_measured": True})
    return pd.DataFrame(rows)


def _build(runs, cfg):
    from neurips26.papers.wd_eos import summary

    main = summary.aggregate(runs, {"cnn": 8})
    return {c.id: c for c in paper_claims.build(main, runs, cfg)}, paper_claims.measure(main, runs, cfg)


def _outcomes(claim):
    return [t.outcome()[0] for t in claim.tests]


WIN = dict(mlp_plateau=[1.0, 0.98, 0.6, 0.4], cnn_plateau=[1.0, 1.02, 0.99, 1.01], cnn_osc=[1, 0.8, 0.5, 0.2],
           velocity=[4, 3, 2, 1], align=[0.05, 0.05, 0.3, 0.4], cnn_align=[0.25, 0.24, 0.25, 0.24])


def test_claims_hold_on_a_clear_win_and_fail_on_a_clear_loss():
    """Claims contract v2: per-seed values through the t interval. A clear win holds at default scale; the MLP at the
    threshold everywhere, rising oscillations, velocity and sharpening times that fall with lambda fail."""
    cfg = compose("wd_eos", [])
    claims, measured = _build(_runs(**WIN), cfg)
    assert measured["mlp_transition_wd"] == 0.005
    verdicts = {k: c.to_json("default", "embedded")["verdict"] for k, c in claims.items()}
    assert verdicts["sharpening_slows"] == "holds" and verdicts["cnn_damped_oscillations"] == "holds"
    assert verdicts["ntk_stability"] == "holds" and verdicts["alignment_drives_transition"] == "holds"
    # decided at scale=long: the tests hold, the verdict names the deciding scale
    entry = claims["mlp_below_threshold"].to_json("default", "embedded")
    assert entry["outcome"] == "holds" and entry["verdict"] == "inconclusive"
    assert "scale=long" in entry["why_inconclusive"]
    assert claims["mlp_below_threshold"].to_json("long", "embedded")["verdict"] == "holds"
    # the CNN grid stops at eta x lambda 4e-4, short of the MLP's 2e-3: its side of the contrast is missing, never read
    # as "no transition in the CNN" (issue #71)
    entry = claims["architecture_dependent_transition"].to_json("long", "embedded")
    assert entry["verdict"] == "inconclusive" and entry["tests"][1]["n"] == 0 and "none" in entry["tests"][1]["name"]
    framework = claims["framework_models_phenomena"].to_json("default", "embedded")
    assert framework["verdict"] == "inconclusive" and "could not be read" in framework["why_inconclusive"]
    # a clear loss
    loss = _runs(mlp_plateau=[1.0] * 4, cnn_plateau=[1.0, 1.02, 0.99, 1.01], cnn_osc=[1, 1.2, 1.5, 2],
                 velocity=[1, 2, 3, 4], align=[0.3, 0.2, 0.1, 0.05], sharpening=(250, 200, 150, 100))
    claims, _ = _build(loss, cfg)
    verdicts = {k: c.to_json("long", "embedded")["verdict"] for k, c in claims.items()}
    assert verdicts["sharpening_slows"] == "fails" and verdicts["cnn_damped_oscillations"] == "fails"
    assert verdicts["ntk_stability"] == "fails" and verdicts["mlp_below_threshold"] == "fails"
    assert verdicts["alignment_drives_transition"] == "fails"
    # a CNN plateau 30% above 2/eta fails the band, whatever the amplitude does
    off = _runs(**{**WIN, "cnn_plateau": [1.3, 1.3, 1.3, 1.3]})
    assert _outcomes(_build(off, cfg)[0]["cnn_damped_oscillations"]) == ["holds", "fails"]


def test_alignment_negative_controls_gate_the_claim():
    """|alpha| that rises with lambda in the CNN too (no transition there) or in the MLP below its transition: the
    test alone holds, but a negative control does not pass, so the claim is inconclusive, never 'holds'."""
    cfg = compose("wd_eos", [])
    rising_cnn = _runs(**{**WIN, "cnn_align": [0.1, 0.15, 0.3, 0.4]})
    entry = _build(rising_cnn, cfg)[0]["alignment_drives_transition"].to_json("default", "embedded")
    assert entry["outcome"] == "holds" and entry["verdict"] == "inconclusive"
    assert "cnn_no_transition" in entry["why_inconclusive"]
    # MLP |alpha| rising smoothly from lambda 0 on: below the transition (0.002) it already rose
    smooth = _runs(**{**WIN, "align": [0.05, 0.2, 0.3, 0.4]})
    entry = _build(smooth, cfg)[0]["alignment_drives_transition"].to_json("default", "embedded")
    assert entry["verdict"] == "inconclusive" and "mlp_below_transition" in entry["why_inconclusive"]


def test_constant_sharpening_time_leaves_the_seed_missing():
    """A seed whose sharpening time is the same at every lambda (at or above 0.9 x 2/eta from the start, or censored
    everywhere) has no Spearman: it is missing, and with every seed so the claim is inconclusive, never failed."""
    cfg = compose("wd_eos", [])
    claims, _ = _build(_runs(**WIN, sharpening=(0, 0, 0, 0)), cfg)
    entry = claims["sharpening_slows"].to_json("default", "embedded")
    assert entry["verdict"] == "inconclusive" and entry["tests"][0]["n"] == 0
    assert "0 seed value(s)" in entry["why_inconclusive"]


def test_split_follows_the_run_seed():
    """Claims contract v2: the digits subset and probe set are drawn from the run's seed (stream 'split'): two seeds
    give different draws, the same seed identical bytes; the split stays stratified and disjoint."""
    rng = np.random.default_rng(0)
    pixels, labels = rng.uniform(0, 16, size=(300, 64)), np.repeat(np.arange(10), 30)
    a, b, a2 = (data.make_split(pixels, labels, 100, 50, seed) for seed in (0, 1, 0))
    assert a.x_train.tobytes() == a2.x_train.tobytes() and a.x_probe.tobytes() == a2.x_probe.tobytes()
    assert a.x_train.tobytes() != b.x_train.tobytes() and a.x_probe.tobytes() != b.x_probe.tobytes()
    assert np.bincount(b.y_train, minlength=10).tolist() == [10] * 10
    cfg = compose("wd_eos", [])
    assert "split_seed" not in cfg
    with pytest.raises(UserError, match="seed"):
        data.load_split("nowhere", cfg)


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
    from neurips26.common.pipeline.artifacts import write_json
    from neurips26.common.pipeline.stage import StageContext
    from neurips26.papers.wd_eos.stages import STAGES

    rng = np.random.default_rng(1)
    raw = tmp_path / "data/raw/cifar10"
    _cifar_archive(raw, [(rng.integers(0, 256, (30, 3072), dtype=np.uint8), np.arange(30) % 10)])
    from neurips26.common.pipeline.digests import sha256_of

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
    assert list(experiments.run(cfg, split, "mlp", "coupled", 0.2, 0.0, 0, "cpu").step) == [0, 5, 10]  # no rule


def test_replicate_seeds_extend_only_the_arch_that_asks_for_them():
    from neurips26.papers.wd_eos.grid import run_seeds

    grid = {"mlp": {"etas": [0.2]}, "cnn": {"etas": [0.04], "replicates": 2}}
    assert run_seeds(grid, "mlp", [3, 4, 5]) == [3, 4, 5]
    assert run_seeds(grid, "cnn", [3, 4, 5]) == [3, 4, 5, 1003, 1004, 1005]
    with pytest.raises(ValueError, match="must lie in"):
        run_seeds(grid, "cnn", [1003])
    with pytest.raises(ValueError, match="must lie in"):
        run_seeds(grid, "cnn", [700], offset=300)
    assert run_seeds(grid, "cnn", [0, 1], offset=300) == [300, 301, 1300, 1301]


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


MATCHED_WDS = [0.0, 0.01, 0.025, 0.05]  # CNN eta 0.04: eta x lambda up to 2e-3, the MLP's (0.2 x 0.01)


def test_architecture_contrast_at_matched_strength_and_its_sub_threshold_failure():
    """Issue #71 items 3 and 7: with a CNN grid that reaches the MLP's eta x lambda, a CNN at 2/eta holds the contrast;
    a CNN that plateaus below 2/eta at large lambda (the MLP's signature) fails it."""
    cfg = compose("wd_eos", [])
    matched = _runs(**{**WIN, "cnn_wds": MATCHED_WDS})
    entry = _build(matched, cfg)[0]["architecture_dependent_transition"].to_json("long", "embedded")
    assert entry["verdict"] == "holds" and "lambda 0.05" in entry["tests"][1]["name"]
    sub = _runs(**{**WIN, "cnn_wds": MATCHED_WDS, "cnn_plateau": [1.0, 0.95, 0.75, 0.55]})
    entry = _build(sub, cfg)[0]["architecture_dependent_transition"].to_json("long", "embedded")
    assert entry["tests"][1]["outcome"] == "fails" and entry["verdict"] == "fails"


def test_claims_refuse_development_seeds():
    """Issue #71 items 1 and 7: runs on development seeds (configured sets 0-5, 10-12, pilots, anything below 100 and
    its CNN replicates s + 1000) are never counted as fresh: alone they give no verdict; mixed with fresh runs they
    are excluded and counted, and the verdicts equal those of the fresh runs alone."""
    from neurips26.papers.wd_eos import preregistration

    cfg = compose("wd_eos", [])
    assert preregistration.fresh_offset(cfg) == 300
    for seed in (0, 5, 10, 12, 7, 31, 73, 99, 1000, 1012, 1099):
        assert preregistration.is_development(seed, cfg)
    for seed in (300, 301, 302, 1300, 1302):
        assert not preregistration.is_development(seed, cfg)
    fresh = _runs(**WIN)
    dev = fresh.assign(seed=fresh.seed - FRESH)  # the same values on seeds 0, 1, 2
    claims, _ = _build(dev, cfg)
    for claim in claims.values():
        entry = claim.to_json("long", "embedded")
        assert entry["verdict"] == "inconclusive" and entry["tests"] == []
        if claim.id != "framework_models_phenomena":
            assert "development run(s) excluded" in entry["why_inconclusive"]
    mixed, _ = _build(pd.concat([fresh, dev.assign(plateau=dev.plateau * 0.1)]), cfg)
    alone, _ = _build(fresh, cfg)
    for key, claim in mixed.items():
        a, b = claim.to_json("long", "embedded"), alone[key].to_json("long", "embedded")
        assert a["verdict"] == b["verdict"] and a["per_seed"] == b["per_seed"]
        assert key == "framework_models_phenomena" or a["measured"]["development_runs_excluded"] == len(dev)
    # the run seeds the pipeline schedules: configured seed s runs as s + 300 (CNN replicates + 1000)
    from neurips26.papers.wd_eos.grid import run_seeds

    assert run_seeds(cfg.grid, "cnn", [0, 1, 2], preregistration.fresh_offset(cfg)) == [300, 301, 302, 1300, 1301, 1302]
    assert preregistration.fresh_offset(compose("wd_eos", ["scale=tiny"])) == 0  # tiny: plumbing on development seeds


def test_a_slowly_sharpening_mlp_is_not_read_as_a_plateau():
    """Issue #71 item 7: an MLP whose S still rises over the late window (slope interval above 0) has no plateau: its
    seed is missing from mlp_below_threshold, so a low S that is still climbing never makes the claim hold."""
    cfg = compose("wd_eos", [])
    climbing = _runs(**WIN)
    top = (climbing.arch == "mlp") & (climbing.wd == max(WDS))
    climbing.loc[top, "flat"] = False
    entry = _build(climbing, cfg)[0]["mlp_below_threshold"].to_json("long", "embedded")
    assert entry["tests"][0]["n"] == 0 and entry["verdict"] == "inconclusive"


def test_long_design_runs_until_flat_in_a_tiny_cpu_form():
    """Issue #71 item 3, the long design's CPU tiny form: both nets tanh at a common 2/eta, CNN lambdas to eta x
    lambda 4e-3, and a run continues until S is flat over its last k checkpoints (here k = 3 from step 10 at a step
    size far too small to move S: it stops at the first checkpoint the rule allows, long before the cap); long still
    decides nothing until its budgets are piloted (long_design: false)."""
    from neurips26.papers.wd_eos.grid import flat_rule

    cfg = compose("wd_eos", ["scale=long"])
    assert cfg.mlp.activation == cfg.cnn.activation == "tanh" and cfg.long_design is False
    assert cfg.grid.mlp.etas == cfg.grid.cnn.etas and cfg.grid.cnn.eos_checkpoints is None
    assert max(cfg.grid.cnn.etas) * max(cfg.grid.cnn.wds) >= 2 * 0.2 * 0.01  # beyond the MLP's default transition
    assert flat_rule(cfg, "cnn") == (10, 1000.0)
    rng = np.random.default_rng(0)
    split = data.make_split(rng.integers(0, 17, (60, 64)).astype(float), np.arange(60) % 10, 40, 10, 0)
    tiny = compose("wd_eos", ["scale=long", "hessian_size=40", "eigen.iters=3", "grid.cnn.max_steps=200",
                              "grid.cnn.eig_freq=5", "grid.cnn.flat_checkpoints=3", "grid.cnn.flat_min_steps=10"])
    trace = experiments.run(tiny, split, "cnn", "coupled", 1e-6, 0.0, 0, "cpu")
    assert list(trace.step) == [0, 5, 10]
