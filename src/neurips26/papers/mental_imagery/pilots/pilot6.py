"""Pilot 6 (JOURNAL "Pilot 6"; seed 11, outside every configured seed set): one VLM pretraining per mix, then the
requested variants fine-tuned from it with experiments.run (the pipeline's own run: convergence rule, solve rates,
blind baseline, probes), at the default scale. Writes OUT/pilot6_<mix>.json:
{'mix', 'pretrain_s', 'description_acc', 'family_acc', 'runs': {'<variant>_<z_embed>': {'solve': {family: rate},
'blind': {...}, 'first': {...}, 'steps', 'wall_s'}}}.

    python src/neurips26/papers/mental_imagery/pilots/pilot6.py OUT MIX RUN [RUN ...]
    # MIX: uniform | jigsaw3; RUN: A:shared, C:separate
"""

import json
import sys
import time
from pathlib import Path

import torch

from neurips26.common.pipeline.config import compose
from neurips26.papers.mental_imagery import data, experiments, pretrain

MIXES = {"uniform": [], "jigsaw3": ["+pretrain.family_weight.jigsaw=3"]}


def main(out: str, mix: str, runs: list[str]) -> None:
    torch.set_num_threads(1)
    seed = 11
    base = compose("mental_imagery", MIXES[mix])
    parts = data.load_puzzles(Path(out) / "puzzles_seed11.npz")  # pilot 5's cache: data.generate at default sizes
    t0 = time.time()
    ck = pretrain.run_pretraining(base, seed, parts)
    res = {"mix": mix, "pretrain_s": time.time() - t0, "description_acc": ck["curve"][-1][2],
           "family_acc": ck["family_acc"], "runs": {}}
    print(mix, "pretrain", round(res["pretrain_s"], 1), "s, description acc", round(res["description_acc"], 3),
          {k: round(v, 3) for k, v in ck["family_acc"].items()}, flush=True)
    for spec in runs:
        variant, z_embed = spec.split(":")
        cfg = compose("mental_imagery", MIXES[mix] + [f"variants=[{variant}]", f"model.z_embed={z_embed}"])
        t0 = time.time()
        frame, _ = experiments.run(cfg, seed, parts, ck)
        get = {m: frame[frame["metric"] == m].set_index("family")["value"].to_dict()
               for m in ("solve_rate", "blind_solve_rate", "first_action_acc")}
        steps = float(frame[frame["metric"] == "steps"]["value"].iloc[0])
        res["runs"][f"{variant}_{z_embed}"] = {"solve": get["solve_rate"], "blind": get["blind_solve_rate"],
                                               "first": get["first_action_acc"], "steps": steps,
                                               "wall_s": time.time() - t0}
        mean = sum(get["solve_rate"].values()) / len(get["solve_rate"])
        print(mix, spec, "mean", round(mean, 3), {k: round(v, 3) for k, v in get["solve_rate"].items()},
              "steps", steps, "wall", round(time.time() - t0, 1), flush=True)
    (Path(out) / f"pilot6_{mix}.json").write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
