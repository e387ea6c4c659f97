"""Learnability pilot (run by hand, on a seed outside the configured seeds; its numbers are written in the JOURNAL):

    python -m neurips26.papers.mental_imagery.pilot --seed 11 [--overfit 100] [--time-variants] [hydra overrides ...]

Trains variant A (actions only) with the config's convergence rule and prints, per family, the solve rate on 100
training puzzles and on the test puzzles next to the best image-blind constant policy, the first-action accuracy next
to the majority first action (the learnability control), and the probe summary (trained / untrained / copy /
start_only / oracle, pooled over steps, best layer). --overfit N trains on N puzzles per family only (teacher-forcing
sanity check). --time-variants also times 20 training steps of B and C. --cache FILE keeps the seed's puzzles between
candidates (generated and written on the first call).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd
import torch

from neurips26.common.models import optim
from neurips26.common.pipeline.config import compose
from neurips26.papers.mental_imagery import build, data, experiments, tables
from neurips26.papers.mental_imagery.model import batch_loss
from neurips26.papers.mental_imagery.puzzles import make_families


def step_ms(cfg, variant: str, n_act: int, tensors, steps: int = 20) -> float:
    torch.manual_seed(0)
    model = build.build_model(cfg, variant, n_act)
    opt = optim.AdamW(model.parameters(), lr=1e-3)
    for k in range(steps + 3):
        if k == 3:
            t0 = time.time()
        idx = torch.randint(tensors[0].shape[0], (int(cfg.train.batch),))
        loss, _ = batch_loss(model, *[x[idx] for x in tensors], 1.0)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return 1000 * (time.time() - t0) / steps


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--overfit", type=int, default=0)
    ap.add_argument("--variant", default="A")
    ap.add_argument("--time-variants", action="store_true")
    ap.add_argument("--data", default="data/raw")
    ap.add_argument("--generate-only", action="store_true", help="write the --cache file and stop")
    ap.add_argument("--cache", default="", help="an .npz of the seed's puzzles: read when it exists, else written")
    ap.add_argument("--probe-csv", default="", help="write the probe table (tables.table_probe) here")
    ap.add_argument("overrides", nargs="*")
    args = ap.parse_args(argv)
    cfg = compose("mental_imagery", args.overrides)
    print("overrides:", args.overrides, flush=True)
    torch.set_num_threads(1)
    raw = Path(args.data)
    boards = data.rush_boards(raw / "rush_hour_18k" / "rush_18k.txt")
    photos = data.jigsaw_photos(raw / "dofp_lut_skimage")
    fams = make_families()
    offsets = experiments.action_offsets(fams)
    n_act = sum(len(f.actions) for f in fams.values())
    T, patch = int(cfg.puzzle.max_len) + 1, build.input_patch(cfg)
    t0 = time.time()
    n_train = args.overfit or int(cfg.data_sizes.train)
    cache = Path(args.cache) if args.cache else None
    if cache is not None and cache.is_file():  # the same puzzles as data.make_puzzles(cfg, seed) at these sizes
        parts = data.load_puzzles(cache)
    else:
        parts = {"train": data.generate(cfg, args.seed, n_train, boards, photos, "train"),
                 "dev": data.generate(cfg, args.seed, int(cfg.data_sizes.dev), boards, photos, "dev"),
                 "test": data.generate(cfg, args.seed, int(cfg.data_sizes.test), boards, photos, "test")}
        if cache is not None:
            data.save_puzzles(cache, parts)
    train_ex, dev_ex, test_ex = parts["train"], parts["dev"], parts["test"]
    if args.generate_only:
        return
    print(f"data {time.time() - t0:.1f}s", flush=True)
    blind = experiments.constant_baseline(train_ex, test_ex, fams)
    blind_first = experiments.majority_first_action(train_ex, test_ex)
    tensors = experiments.tensorize(train_ex, offsets, T, patch)
    if args.time_variants:
        print({v: round(step_ms(cfg, v, n_act, tensors), 1) for v in "ABC"}, "ms/step", flush=True)
    torch.manual_seed(args.seed)
    model = build.build_model(cfg, args.variant, n_act)
    untrained = build.build_model(cfg, args.variant, n_act).eval()
    controls = {"untrained": untrained}
    if int(cfg.pretrain.steps) > 0:  # the seed's VLM pretraining (describe the start boards), then fine-tuning
        from neurips26.papers.mental_imagery import pretrain

        t0 = time.time()
        ck = pretrain.run_pretraining(cfg, args.seed, parts)
        wall = time.time() - t0
        print(f"pretrain {wall:.1f}s, {ck['curve'][-1][0]} steps ({1000 * wall / ck['curve'][-1][0]:.1f} ms/step)")
        print("pretrain curve (step, train ce, dev description acc):",
              [(s, round(a, 3), round(b, 3)) for s, a, b in ck["curve"]], flush=True)
        pretrain.load_backbone(model, ck["backbone"])
        controls["pretrained"] = build.build_model(cfg, args.variant, n_act).eval()
        pretrain.load_backbone(controls["pretrained"], ck["backbone"])
    t0 = time.time()
    dev = train_ex if args.overfit else dev_ex
    curve = experiments.train(model, tensors, experiments.tensorize(dev, offsets, T, patch), cfg, args.seed)
    wall = time.time() - t0
    print(f"train {wall:.1f}s, {curve[-1][0]} steps ({1000 * wall / curve[-1][0]:.1f} ms/step)")
    print("curve (step, train ce, dev ce):", [(s, round(a, 3), round(b, 3)) for s, a, b in curve])
    sub = [e for name in experiments.FAMILY_NAMES for e in [x for x in train_ex if x.family == name][:100]]
    tr = experiments.solve_rates(model, sub, fams, offsets, cfg)
    first: dict = {}
    te = experiments.solve_rates(model, test_ex, fams, offsets, cfg, first)
    for name in experiments.FAMILY_NAMES:
        print(f"{name:10s} train {tr[name]:.3f}  test {te[name]:.3f}  blind {blind[name]:.3f}  "
              f"first {first[name]:.3f} (majority {blind_first[name]:.3f})")
    print(f"mean       train {sum(tr.values()) / 5:.3f}  test {sum(te.values()) / 5:.3f}  "
          f"blind {sum(blind.values()) / 5:.3f}  first {sum(first.values()) / 5:.3f} "
          f"(majority {sum(blind_first.values()) / 5:.3f})  (total {time.time() - t0:.1f}s)", flush=True)
    rows, _ = experiments.probe_rows({"trained": model, **controls}, train_ex, test_ex, fams, offsets, cfg, args.seed)
    runs = pd.DataFrame(rows, columns=["metric", "family", "layer", "step", "value", "n"]).assign(variant="A", seed=0)
    probe = tables.table_probe(runs)
    if args.probe_csv:
        probe.to_csv(args.probe_csv, index=False)
    print(probe[probe["step"] == 0].pivot(index="family", columns="kind", values="acc").round(3).to_string())
    print("changed cells (mean over steps):")
    print(probe[probe["step"] > 0].pivot_table(index="family", columns="kind", values="changed_acc").round(3)
          .to_string())
    print(f"(total with probes {time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
