"""Time training steps on one core (seed 11 puzzles, outside every configured seed set), split into batch indexing,
forward + loss, backward and the optimizer step, for each variant of the base config and for variant A of each
--set (hydra overrides); --profile prints torch.profiler's top operators of A.

    PYTHONPATH=src python tools/mental_imagery_profile.py [--steps 40] [--profile] [--set "model.patch=4" ...]
"""

import argparse
import time
from pathlib import Path

import torch

from neurips26.common.config import compose
from neurips26.papers.mental_imagery import data, experiments
from neurips26.papers.mental_imagery.model import batch_loss
from neurips26.papers.mental_imagery.puzzles import make_families


def time_steps(cfg, variant, tensors, n_act, steps):
    torch.manual_seed(0)
    model = experiments.build_model(cfg, variant, n_act)
    opt = experiments.make_optimizer(model, cfg)
    parts = {"index": 0.0, "forward": 0.0, "backward": 0.0, "step": 0.0}
    for k in range(steps + 5):
        if k == 5:
            parts = dict.fromkeys(parts, 0.0)
        t = time.perf_counter()
        idx = torch.randint(tensors[0].shape[0], (int(cfg.train.batch),))
        batch = [x[idx] for x in tensors]
        t1 = time.perf_counter()
        loss, _ = batch_loss(model, *batch, 1.0)
        t2 = time.perf_counter()
        opt.zero_grad()
        loss.backward()
        t3 = time.perf_counter()
        opt.step()
        t4 = time.perf_counter()
        for name, dt in zip(parts, (t1 - t, t2 - t1, t3 - t2, t4 - t3)):
            parts[name] += 1000 * dt / steps
    return model, opt, parts


ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=40)
ap.add_argument("--profile", action="store_true")
ap.add_argument("--set", action="append", default=[], help="hydra overrides (space-separated) of one more A timing")
args = ap.parse_args()
torch.set_num_threads(1)
cfg = compose("mental_imagery", [])
raw = Path("data/raw")
t0 = time.time()
boards, photos = data.rush_boards(raw / "rush_hour_18k" / "rush_18k.txt"), data.jigsaw_photos(raw / "dofp_lut_skimage")
train_ex = data.generate(cfg, 11, int(cfg.data_sizes.train), boards, photos, "train")
fams = make_families()
offsets, n_act = experiments.action_offsets(fams), sum(len(f.actions) for f in fams.values())
print(f"puzzles {time.time() - t0:.1f} s", flush=True)
for overrides, variants in [("", "ABC"), *[(s, "A") for s in args.set]]:
    c = compose("mental_imagery", overrides.split())
    tensors = experiments.tensorize(train_ex, offsets, int(c.puzzle.max_len) + 1, int(c.model.patch))
    for variant in variants:
        model, opt, parts = time_steps(c, variant, tensors, n_act, args.steps)
        print(repr(overrides), variant, f"total {sum(parts.values()):.1f} ms/step:",
              {k: round(v, 2) for k, v in parts.items()}, flush=True)
        if args.profile and variant == "A" and not overrides:
            from torch.profiler import ProfilerActivity, profile

            with profile(activities=[ProfilerActivity.CPU]) as prof:
                for _ in range(10):
                    idx = torch.randint(tensors[0].shape[0], (int(c.train.batch),))
                    loss, _ = batch_loss(model, *[x[idx] for x in tensors], 1.0)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
            print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12))
