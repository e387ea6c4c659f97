"""One run = one variant x seed: build the puzzles, train the tiny VLM, measure the solve rate by replay, probe the
hidden states for the intermediate board states (with the controls), and keep a few decoded boards for the figure."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import torch

from neurips26.papers.mental_imagery import data as puzzles_data
from neurips26.papers.mental_imagery.model import EOS, PAD, TinyVLM, action_positions, batch_loss, generate, step_stride
from neurips26.papers.mental_imagery.probes import cell_accuracy, fit_ridge
from neurips26.papers.mental_imagery.puzzles import make_families, replay

FAMILY_NAMES = ["rush_hour", "sokoban", "jigsaw", "rotation", "tangram"]


def action_offsets(families: dict) -> dict[str, int]:
    """Token id of each family's first action (0 and 1 are PAD and EOS)."""
    offsets, start = {}, 2
    for name in FAMILY_NAMES:
        offsets[name] = start
        start += len(families[name].actions)
    return offsets


def tensorize(examples, offsets: dict, T: int):
    """Stack a list of examples into tensors: image tokens of s_0, family ids, tokens (actions, EOS, PAD), visual tokens
    z of s_1..s_T, lengths."""
    n = len(examples)
    img = np.stack([puzzles_data.patches(e.images[0]) for e in examples])
    tokens = np.full((n, T), PAD)
    z = np.zeros((n, T, 16, 108), dtype=np.float32)
    for i, e in enumerate(examples):
        L = len(e.actions)
        tokens[i, :L] = np.array(e.actions) + offsets[e.family]
        tokens[i, L] = EOS
        z[i, :L] = puzzles_data.patches(e.images[1:])
    fam = np.array([FAMILY_NAMES.index(e.family) for e in examples])
    lengths = np.array([len(e.actions) for e in examples])
    return (torch.tensor(img, dtype=torch.float32), torch.tensor(fam), torch.tensor(tokens), torch.tensor(z),
            torch.tensor(lengths))


def build_model(cfg, variant: str, n_actions: int) -> TinyVLM:
    m = cfg.model
    return TinyVLM(n_actions, len(FAMILY_NAMES), int(m.d), int(m.layers), int(m.heads), int(cfg.puzzle.max_len), variant)


def train(model: TinyVLM, tensors, cfg, seed: int) -> list[float]:
    """AdamW for cfg.train.steps minibatches (cosine learning rate); returns the action cross-entropy per 50 steps."""
    t = cfg.train
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=float(t.lr), weight_decay=0.01)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, int(t.steps))
    n, curve, acc = tensors[0].shape[0], [], []
    model.train()
    for step in range(int(t.steps)):
        idx = torch.randint(n, (int(t.batch),), generator=gen)
        loss, ce = batch_loss(model, *[x[idx] for x in tensors[:3]], tensors[3][idx], tensors[4][idx],
                              float(t.z_weight))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        acc.append(ce.item())
        if (step + 1) % 50 == 0:
            curve.append(float(np.mean(acc)))
            acc = []
    model.eval()
    return curve


def solve_rates(model, test, families, offsets, cfg) -> dict[str, float]:
    out = {}
    for name in FAMILY_NAMES:
        ex = [e for e in test if e.family == name]
        img, fam = tensorize(ex, offsets, int(cfg.puzzle.max_len) + 1)[:2]
        allowed = torch.tensor([EOS, *range(offsets[name], offsets[name] + len(families[name].actions))])
        seqs = generate(model, img, fam, allowed, int(cfg.puzzle.max_len) + 1)
        ok = [replay(families[name], e.start, [s - offsets[name] for s in seq])[0] for e, seq in zip(ex, seqs)]
        out[name] = float(np.mean(ok))
    return out


@torch.no_grad()
def hidden_at_actions(model, examples, offsets, T: int, shuffle_rng=None):
    """Per layer (embeddings = 0), the hidden state at every action token: (layers + 1, N, T, d), teacher-forced with
    the solver's actions (or a random permutation of them when shuffle_rng is given)."""
    if shuffle_rng is not None:
        examples = [puzzles_data.Example(e.family, list(shuffle_rng.permutation(e.actions)), e.images, e.cells, e.start)
                    for e in examples]
    img, fam, tokens, z, _ = tensorize(examples, offsets, T)
    steps = [(tokens[:, t], z[:, t] if model.variant == "C" else None) for t in range(T)]
    hs = model(model.embed(img, fam, steps), hidden_states=True).hidden_states
    pos = action_positions(T, step_stride(model.variant))
    return np.stack([h[:, pos].numpy() for h in hs])


def probe_rows(models: dict, test, families, offsets, cfg, seed: int):
    """Probe accuracy per family, layer and step. Every probe reads [one-hot start board s_0, hidden state h_t]: the
    start board is given for free, so a probe beats the copy-the-start-board baseline only with information about the
    moves made. Kinds: each model in `models` (name -> model), 'shuffled' (the trained model fed a permutation of the
    actions), 'start_only' (s_0 alone) and 'oracle' (the true s_t: the positive control). Probes are fit on the first
    half of a family's test puzzles (all steps pooled) and scored on the second half."""
    T = int(cfg.puzzle.max_len) + 1
    rows, decoded = [], []
    for name in FAMILY_NAMES:
        ex = [e for e in test if e.family == name]
        half = len(ex) // 2
        K = families[name].n_classes
        feats = {k: hidden_at_actions(m, ex, offsets, T) for k, m in models.items()}
        feats["shuffled"] = hidden_at_actions(models["trained"], ex, offsets, T, np.random.default_rng(seed))
        steps = [(i, t) for i, e in enumerate(ex) for t in range(len(e.actions))]
        true = np.stack([ex[i].cells[t + 1] for i, t in steps])
        start = np.stack([ex[i].cells[0] for i, t in steps])
        start_hot = np.eye(K)[start].reshape(len(steps), -1)
        tr = np.array([i < half for i, _ in steps])
        step_of = np.array([t + 1 for _, t in steps])
        for t in sorted(set(step_of[~tr])):
            sel = ~tr & (step_of == t)
            rows.append(("copy_acc", name, -1, t, cell_accuracy(start[sel], true[sel]), int(sel.sum())))
        design = {(k, layer): np.hstack([start_hot, np.stack([H[layer, i, t] for i, t in steps])])
                  for k, H in feats.items() for layer in range(H.shape[0])}
        design[("start_only", 0)] = start_hot
        design[("oracle", 0)] = np.hstack([start_hot, np.eye(K)[true].reshape(len(steps), -1)])
        best = {}
        for (kind, layer), X in design.items():
            pred = fit_ridge(X[tr], true[tr], K, float(cfg.probe.alpha))(X[~tr])
            acc_all = cell_accuracy(pred, true[~tr])
            rows.append((f"{kind}_acc_all", name, layer, -1, acc_all, int((~tr).sum())))
            for t in sorted(set(step_of[~tr])):
                sel = step_of[~tr] == t
                p, y, s0 = pred[sel], true[~tr][sel], start[~tr][sel]
                changed = y != s0
                rows.append((f"{kind}_acc", name, layer, t, cell_accuracy(p, y), int(sel.sum())))
                rows.append((f"{kind}_changed_acc", name, layer, t,
                             float((p[changed] == y[changed]).mean()) if changed.any() else np.nan,
                             int(changed.sum())))
            if kind == "trained" and acc_all > best.get("acc", -1):
                best = {"acc": acc_all, "pred": pred}
        held = np.flatnonzero(~tr)
        for row, j in enumerate(held):
            i, t = steps[j]
            if i - half < int(cfg.probe.decoded_examples):
                decoded.append((name, i, t + 1, " ".join(map(str, true[j])), " ".join(map(str, best["pred"][row])),
                                " ".join(map(str, start[j]))))
    return rows, decoded


def run(cfg, seed: int, rush_file, photo_dir) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every variant of cfg.variants on the same puzzles of one seed (one job: the puzzles and imports are shared)."""
    families = make_families()
    offsets = action_offsets(families)
    n_actions = sum(len(f.actions) for f in families.values())
    boards = puzzles_data.rush_boards(rush_file)
    photos = puzzles_data.jigsaw_photos(photo_dir)
    train_ex = puzzles_data.generate(cfg, seed * 1000 + 1, int(cfg.data_sizes.train), boards, photos, "train")
    test_ex = puzzles_data.generate(cfg, seed * 1000 + 2, int(cfg.data_sizes.test), boards, photos, "test")
    tensors = tensorize(train_ex, offsets, int(cfg.puzzle.max_len) + 1)
    frames, decs = [], []
    for variant in cfg.variants:
        t0 = time.time()
        torch.manual_seed(seed)
        untrained = build_model(cfg, variant, n_actions).eval()
        torch.manual_seed(seed)
        model = build_model(cfg, variant, n_actions)
        curve = train(model, tensors, cfg, seed)
        rows = [("solve_rate", name, -1, -1, v, int(cfg.data_sizes.test))
                for name, v in solve_rates(model, test_ex, families, offsets, cfg).items()]
        rows += [("train_ce", "all", -1, k, v, 50) for k, v in enumerate(curve)]
        decoded = []
        if variant in cfg.probe.variants:
            prows, decoded = probe_rows({"trained": model, "untrained": untrained}, test_ex, families, offsets, cfg,
                                        seed)
            rows += prows
        rows.append(("wall_s", "all", -1, -1, time.time() - t0, 0))
        frame = pd.DataFrame(rows, columns=["metric", "family", "layer", "step", "value", "n"])
        frame.insert(0, "seed", seed)
        frame.insert(0, "variant", variant)
        dec = pd.DataFrame(decoded, columns=["family", "example", "step", "true", "decoded", "start"])
        dec.insert(0, "seed", seed)
        dec.insert(0, "variant", variant)
        frames.append(frame)
        decs.append(dec)
    return pd.concat(frames, ignore_index=True), pd.concat(decs, ignore_index=True)
