"""mental_imagery VLM pretraining: its targets are the start board's symbols (nothing about actions or later states),
it learns to describe boards, and the fine-tuned model starts from exactly its backbone."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch
from omegaconf import OmegaConf

from neurips26.papers.mental_imagery import data, pretrain
from neurips26.papers.mental_imagery.build import build_model
from neurips26.papers.mental_imagery.puzzles import make_families

torch.set_num_threads(1)

CFG = OmegaConf.create({
    "puzzle": {"max_len": 2, "sokoban_inner_walls": 2, "cubes": 4, "rotation_turns": 3,
               "rush_board_moves": 6, "lengths": {"rush_hour": 2, "sokoban": 2, "jigsaw": 2, "rotation": 2,
                                                  "tangram": 2}},
    "model": {"patch": 6, "grid_pos": True, "d": 32, "layers": 1, "heads": 2},
    "train": {"batch": 16, "warmup": 5, "eval_every": 50},
    "pretrain": {"steps": 150, "lr": 0.01}})


@pytest.fixture(scope="module")
def parts():
    spec = importlib.util.find_spec("reasoning_gym")  # locates the package without importing it
    if spec is None:
        pytest.skip("reasoning-gym is not installed")
    rush_file = Path(list(spec.submodule_search_locations)[0]) / "data" / "rush_18k.txt"
    rng = np.random.default_rng(5)
    photos = [rng.uniform(size=(64, 96, 3)) for _ in range(2)]
    boards = data.rush_boards(rush_file)
    return {"train": data.generate(CFG, 3, 12, boards, photos, "train"),
            "dev": data.generate(CFG, 4, 4, boards, photos, "dev")}


def test_block_targets_are_the_cells_of_each_2x2_block():
    sym = np.random.default_rng(0).integers(0, data.N_SYMBOLS, size=(5, 36))
    t = pretrain.block_targets(sym)
    assert t.shape == (5, 9, 4)
    for r in range(6):
        for c in range(6):
            assert (t[:, (r // 2) * 3 + c // 2, (r % 2) * 2 + c % 2] == sym[:, r * 6 + c]).all()
    assert (pretrain.unblock(t) == sym).all()


def test_targets_are_the_start_boards_symbols_only(parts):
    """The description targets are data.symbols of the start state; changing the actions (or what follows) of a
    puzzle changes neither the inputs nor the targets of the pretraining."""
    ex = parts["train"]
    img, fam, targets = pretrain.board_tensors(ex)
    for i, e in enumerate(ex):
        assert (targets[i].numpy() == pretrain.block_targets(data.symbols(e.family, e.start)[None])[0]).all()
    scrambled = [data.Example(e.family, list(reversed(e.actions)), e.images[::-1].copy(), e.cells[::-1].copy(), e.start)
                 for e in ex]
    img2, fam2, targets2 = pretrain.board_tensors(scrambled)
    assert torch.equal(targets, targets2) and torch.equal(fam, fam2)
    assert not torch.equal(img, img2)  # images[0] is what the model sees: s_0 here, the last state there
    # so the objective reads images[0], which must be the start board: it is, for every generated example
    fams = make_families()
    for e in ex:
        assert np.allclose(e.images[0], fams[e.family].render(e.start))


def test_pretraining_learns_to_describe_and_hands_over_its_backbone(parts):
    ck = pretrain.run_pretraining(CFG, 0, parts)
    curve = ck["curve"]
    assert [s for s, _, _ in curve] == [50, 100, 150]
    assert curve[-1][1] < 0.5 * curve[0][1]  # the description loss falls
    torch.manual_seed(0)
    fresh = build_model(CFG, "A", 211)
    img, fam, targets = pretrain.board_tensors(parts["train"])
    before = pretrain.describe_loss(pretrain.Describer(fresh), img, fam, targets)[1].item()
    assert set(ck["backbone"]) == {k for k in fresh.state_dict() if k.startswith(pretrain.BACKBONE)}
    model = build_model(CFG, "C", 211)
    head = model.head.weight.clone()
    pretrain.load_backbone(model, ck["backbone"])
    for k, v in ck["backbone"].items():
        assert torch.equal(model.state_dict()[k], v)
    assert torch.equal(model.head.weight, head)  # the action head is not part of the backbone
    assert before < 0.9  # an untrained describer does not already know the boards
    with pytest.raises(ValueError, match="backbone keys"):
        pretrain.load_backbone(model, {k: v for k, v in ck["backbone"].items() if not k.startswith("patch")})
    assert set(ck["family_acc"]) == {e.family for e in parts["dev"]}
    assert all(0 <= v <= 1 for v in ck["family_acc"].values())
    assert pretrain.run_pretraining(OmegaConf.merge(CFG, {"pretrain": {"steps": 0}}), 0, parts) == {
        "backbone": {}, "curve": [], "family_acc": {}}


def test_family_weight_tilts_the_pretraining_mix():
    """pretrain.family_weight: boards of a family weighted w are drawn w times as often; all weights 1 (or none
    named) is the uniform draw; an unknown family is an error."""
    from neurips26.papers.mental_imagery.experiments import FAMILY_NAMES

    fam = torch.arange(5).repeat(200)
    assert pretrain.sample_weights(CFG, fam) is None
    assert pretrain.sample_weights(OmegaConf.merge(CFG, {"pretrain": {"family_weight": {"jigsaw": 1}}}), fam) is None
    w = pretrain.sample_weights(OmegaConf.merge(CFG, {"pretrain": {"family_weight": {"jigsaw": 3}}}), fam)
    jig = FAMILY_NAMES.index("jigsaw")
    assert torch.equal(w, torch.where(fam == jig, 3.0, 1.0))
    draw = fam[torch.multinomial(w, 20000, replacement=True, generator=torch.Generator().manual_seed(0))]
    assert abs((draw == jig).float().mean().item() - 3 / 7) < 0.02
    with pytest.raises(ValueError, match="unknown families"):
        pretrain.sample_weights(OmegaConf.merge(CFG, {"pretrain": {"family_weight": {"chess": 2}}}), fam)


def test_tiny_scale_runs_the_pretraining_and_defaults_visual_tokens():
    """The tiny end-to-end (CI) must run the pretraining path and C's visual-token embedding as default runs it (the
    pilots' z_embed; the shared embedding is tested in test_mental_imagery_model.py)."""
    from neurips26.common.pipeline.config import compose

    cfg = compose("mental_imagery", ["scale=tiny"])
    assert int(cfg.pretrain.steps) > 0
    default = compose("mental_imagery", ["scale=default"])
    assert build_model(cfg, "C", 211).z_shared == build_model(default, "C", 211).z_shared


@pytest.mark.slow
def test_run_fine_tunes_every_variant_from_the_checkpoint(parts, tmp_path):
    """experiments.run with a pretraining checkpoint (through its npz arrays, as the stages pass it): every variant
    starts from the backbone, the probes get the pretrained-only control and the random-code positive control, and
    the pretraining curve is reported; without a checkpoint there is no 'pretrained' control."""
    from neurips26.common.pipeline.config import compose
    from neurips26.papers.mental_imagery import experiments

    cfg = compose("mental_imagery", ["scale=tiny", "probe.fit=8", "train.max_steps=4", "data_sizes.test=4"])
    puzzles = {"train": parts["train"], "dev": parts["dev"], "test": parts["dev"]}
    ck = pretrain.run_pretraining(cfg, 0, puzzles)  # the tiny scale's own few pretraining steps
    assert ck["backbone"] and ck["curve"][-1][0] == int(cfg.pretrain.steps)
    from neurips26.common.pipeline.artifacts import write_npz

    write_npz(tmp_path / "pre.npz", pretrain.to_arrays(ck), compress=False)  # through the file, as the stages do
    with np.load(tmp_path / "pre.npz") as stored:
        back = pretrain.from_arrays(stored)
    assert back["curve"] == [tuple(map(float, c)) for c in ck["curve"]]
    assert back["family_acc"] == ck["family_acc"]
    assert all(torch.equal(back["backbone"][k], v) for k, v in ck["backbone"].items())
    frame, _ = experiments.run(cfg, 0, puzzles, back)
    metrics = set(frame["metric"])
    assert {"pretrained_acc_all", "random_code_acc_all", "untrained_acc_all", "pretrain_dev_acc",
            "pretrain_family_acc"} <= metrics
    assert set(frame[frame["metric"] == "pretrained_acc_all"]["variant"]) == {"A", "B"}
    frame0, _ = experiments.run(cfg, 0, puzzles, None)
    assert "pretrained_acc_all" not in set(frame0["metric"])
    # the same seed without the checkpoint trains a different model: the backbone was used
    solve = frame[frame["metric"] == "dev_ce"]["value"].to_numpy()
    solve0 = frame0[frame0["metric"] == "dev_ce"]["value"].to_numpy()
    assert not np.allclose(solve, solve0)
