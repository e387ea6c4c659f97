"""Pilot 7 (JOURNAL "Pilot 7"; seed 11, outside every configured seed set): one jigsaw definition per process. The
seed's puzzles with that jigsaw (data.make_puzzles), the seed's VLM pretraining (pretrain.pretrain, default scale),
variant A fine-tuned from it exactly as the run job does (build.build_model / load_backbone / train), then the
test solve rates, the blind baseline, first-action accuracy and the jigsaw diagnostics:

* tile_acc: the pretraining's description accuracy on the six tile cells of the dev jigsaw start boards (the cells that
  vary; the other 30 are fixed), next to identity_acc, that of describing every tile as sitting at its home position;
* first_touches_misplaced: the share of A's first decoded jigsaw swaps (test) whose two positions both hold a misplaced
  tile (every solver swap does), and first_action: A's first swap equals the solver's.

Writes OUT/pilot7_<candidate>.json.

    python src/neurips26/papers/mental_imagery/pilots/pilot7.py OUT CANDIDATE
    # CANDIDATE: reference | gradient4 | gradient6
"""

import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

from neurips26.common.pipeline.config import compose
from neurips26.papers.mental_imagery import build, data, experiments, pretrain
from neurips26.papers.mental_imagery.model import EOS, generate
from neurips26.papers.mental_imagery.puzzles import make_families

CANDIDATES = {
    "reference": [],  # today's jigsaw (photo tiles, the solved photograph shown below them)
    "gradient4": ["+puzzle.jigsaw.gradient=0.8", "+puzzle.jigsaw.tile=4", "+puzzle.jigsaw.reference=false"],
    "gradient6": ["+puzzle.jigsaw.gradient=0.8", "+puzzle.jigsaw.tile=6", "+puzzle.jigsaw.reference=false"],
}
SEED = 11
TILE_CELLS = [0, 1, 2, 6, 7, 8]  # the six positions on the 6x6 layout grid (rows 0-1, columns 0-2)


def main(out: str, name: str, extra: list[str]) -> None:
    torch.set_num_threads(1)
    cfg = compose("mental_imagery", CANDIDATES[name] + ["variants=[A]"] + extra)
    raw = Path("data/raw")
    t0 = time.time()
    parts = data.make_puzzles(cfg, SEED, raw / "rush_hour_18k" / "rush_18k.txt", raw / "dofp_lut_skimage")
    res = {"candidate": name, "overrides": CANDIDATES[name], "puzzles_s": time.time() - t0}
    fams = make_families()
    offsets = experiments.action_offsets(fams)
    n_act = sum(len(f.actions) for f in fams.values())

    t0 = time.time()
    torch.manual_seed(SEED)
    vlm = build.build_model(cfg, "A", n_act)
    family_acc, keep = {}, {}
    curve = pretrain.pretrain(cfg, SEED, parts, vlm, family_acc, keep)
    backbone = pretrain.backbone_state(vlm)
    res.update(pretrain_s=time.time() - t0, description_acc=curve[-1][2], family_acc=family_acc)
    jig_dev = [e for e in parts["dev"] if e.family == "jigsaw"]
    img, fam, targets = pretrain.board_tensors(jig_dev, patch=build.input_patch(cfg))
    with torch.no_grad():
        keep["describer"].eval()
        pred = keep["describer"](img, fam).argmax(-1).numpy()
    pred, true = pretrain.unblock(pred)[:, TILE_CELLS], pretrain.unblock(targets.numpy())[:, TILE_CELLS]
    home = data.SYM_OFFSETS["jigsaw"] + np.arange(6)
    res.update(tile_acc=float((pred == true).mean()), identity_acc=float((true == home).mean()))
    print(name, "pretrain", round(res["pretrain_s"], 1), "s; description", round(res["description_acc"], 3),
          {k: round(v, 3) for k, v in family_acc.items()}, "; jigsaw tiles", round(res["tile_acc"], 3),
          "(identity guess", round(res["identity_acc"], 3), ")", flush=True)

    t0 = time.time()
    T, patch = int(cfg.puzzle.max_len) + 1, build.input_patch(cfg)
    torch.manual_seed(SEED)
    model = build.build_model(cfg, "A", n_act)
    pretrain.load_backbone(model, backbone)
    curve = experiments.train(model, experiments.tensorize(parts["train"], offsets, T, patch),
                              experiments.tensorize(parts["dev"], offsets, T, patch), cfg, SEED)
    first: dict = {}
    solve = experiments.solve_rates(model, parts["test"], fams, offsets, cfg, first)
    res.update(train_s=time.time() - t0, steps=curve[-1][0], dev_ce=curve[-1][2], solve=solve, first=first,
               blind=experiments.constant_baseline(parts["train"], parts["test"], fams),
               majority_first=experiments.majority_first_action(parts["train"], parts["test"]))
    jig = [e for e in parts["test"] if e.family == "jigsaw"]
    img, fam = experiments.tensorize(jig, offsets, T, patch)[:2]
    allowed = torch.tensor([EOS, *range(offsets["jigsaw"], offsets["jigsaw"] + len(fams["jigsaw"].actions))])
    seqs = generate(model, img, fam, allowed, T)
    touches = []
    for e, seq in zip(jig, seqs):
        if seq:
            i, j = fams["jigsaw"].pairs[seq[0] - offsets["jigsaw"]]
            touches.append(e.start[1][i] != i and e.start[1][j] != j)
        else:
            touches.append(False)
    res["first_touches_misplaced"] = float(np.mean(touches))
    (Path(out) / f"pilot7_{name}.json").write_text(json.dumps(res, indent=1))
    print(name, "A", {k: round(v, 3) for k, v in solve.items()}, "blind", {k: round(v, 3) for k, v in res["blind"].items()},
          "first", {k: round(v, 3) for k, v in first.items()}, "jigsaw first swap on misplaced tiles",
          round(res["first_touches_misplaced"], 3), "steps", res["steps"], "train", round(res["train_s"], 1), "s",
          flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])  # extra hydra overrides: smoke tests only (scale=tiny)
