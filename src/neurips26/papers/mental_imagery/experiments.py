"""One run = one variant x seed: build the puzzles, train the tiny VLM, measure the solve rate by replay, probe the
hidden states for the intermediate board states (with the controls), and keep a few decoded boards for the figure."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import torch

from neurips26.common.models import optim
from neurips26.papers.mental_imagery import data as puzzles_data
from neurips26.papers.mental_imagery.build import build_model, input_patch, lr_factor
from neurips26.papers.mental_imagery.intermediate_probe import probe_scores
from neurips26.papers.mental_imagery.model import (
    EOS,
    Z_TOKENS,
    TinyVLM,
    action_positions,
    batch_loss,
    c_steps,
    generate,
    step_stride,
)
from neurips26.papers.mental_imagery.probes import cell_accuracy, fit_ridge
from neurips26.papers.mental_imagery.puzzles import make_families, replay
from neurips26.papers.mental_imagery.tensors import FAMILY_NAMES, action_offsets, tensorize


@torch.no_grad()
def dev_ce(model: TinyVLM, tensors, batch: int = 256) -> float:
    """Mean action cross-entropy (teacher-forced) over a held-out set."""
    model.eval()
    total, count = 0.0, 0
    n = tensors[0].shape[0]
    for i in range(0, n, batch):
        part = [x[i:i + batch] for x in tensors]
        _, ce = batch_loss(model, *part, 0.0)
        total += ce.item() * len(part[0])
        count += len(part[0])
    model.train()
    return total / count


def make_optimizer(model: TinyVLM, cfg):
    """AdamW (weight decay 0.01), its multi-tensor (foreach) form: one kernel per update step for all parameters."""
    return optim.AdamW(model.parameters(), lr=float(cfg.train.lr), weight_decay=0.01, foreach=True)


def train(model: TinyVLM, tensors, dev, cfg, seed: int) -> list[tuple[int, float, float]]:
    """AdamW, linear warm-up then a constant learning rate (train.decay: cosine decays it to 0 at train.max_steps).
    Convergence rule: every train.eval_every steps the
    teacher-forced action cross-entropy on the dev puzzles is measured; training stops when it has not improved by
    train.min_delta for train.patience evaluations in a row, or at train.max_steps; the best dev checkpoint is kept.
    Returns (step, mean train cross-entropy since the last evaluation, dev cross-entropy) per evaluation."""
    t = cfg.train
    gen = torch.Generator().manual_seed(seed)
    opt = make_optimizer(model, cfg)
    warm = max(1, int(t.warmup))
    cap, cosine = int(t.max_steps), str(t.get("decay", "constant")) == "cosine"
    n, curve, acc = tensors[0].shape[0], [], []
    best, best_state, bad = float("inf"), None, 0
    model.train()
    for step in range(int(t.max_steps)):
        idx = torch.randint(n, (int(t.batch),), generator=gen)
        loss, ce = batch_loss(model, *[x[idx] for x in tensors], float(t.z_weight))
        for group in opt.param_groups:  # the schedule (as torch's LambdaLR with `factor`, without its import)
            group["lr"] = float(t.lr) * lr_factor(step, warm, cap, cosine)
        opt.zero_grad()
        loss.backward()
        opt.step()
        acc.append(ce.item())
        if (step + 1) % int(t.eval_every) == 0 or step + 1 == int(t.max_steps):
            d = dev_ce(model, dev)
            curve.append((step + 1, float(np.mean(acc)), d))
            acc = []
            if d < best - float(t.min_delta):
                best, bad = d, 0
                best_state = {k: v.clone() for k, v in model.state_dict().items()}
            else:
                bad += 1
                if bad >= int(t.patience):
                    break
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    return curve


def constant_baseline(train_ex, test_ex, families) -> dict[str, float]:
    """The best image-blind policy among constants: of a family's 20 most frequent training solutions, the one that
    solves the most training puzzles, replayed on every test puzzle (its test solve rate)."""
    from collections import Counter

    out = {}
    for name in FAMILY_NAMES:
        fam = families[name]
        tr = [e for e in train_ex if e.family == name]
        cands = [list(seq) for seq, _ in Counter(tuple(e.actions) for e in tr).most_common(20)]
        best = max(cands, key=lambda seq: sum(replay(fam, e.start, seq)[0] for e in tr))
        out[name] = float(np.mean([replay(fam, e.start, best)[0] for e in test_ex if e.family == name]))
    return out


class TrueVisualTokens:
    """For variant C's positive control: after each decoded action, the true 16 visual tokens of the board that action
    leads to (the environment applies it; an illegal action or EOS leaves the board as it was)."""

    def __init__(self, family, examples, offset: int):
        self.family, self.offset, self.states = family, offset, [e.start for e in examples]

    def __call__(self, ids: torch.Tensor) -> torch.Tensor:
        boards = []
        for b, token in enumerate(ids.tolist()):
            action = token - self.offset
            if 0 <= action < len(self.family.actions):
                moved = self.family.apply(self.states[b], action)
                self.states[b] = self.states[b] if moved is None else moved
            boards.append(self.family.render(self.states[b]))
        return torch.tensor(puzzles_data.patches(np.stack(boards).astype(np.float32)))


def solve_rates(model, test, families, offsets, cfg, first: dict | None = None,
                true_tokens: bool = False) -> dict[str, float]:
    """Solve rate by replay per family. When `first` is a dict, it receives per family the accuracy of the first
    decoded action against the solver's first action (the learnability control). `true_tokens` (variant C): decode
    with the true visual tokens of each reached board fed in place of the model's own (TrueVisualTokens)."""
    out = {}
    for name in FAMILY_NAMES:
        ex = [e for e in test if e.family == name]
        img, fam = tensorize(ex, offsets, int(cfg.puzzle.max_len) + 1, input_patch(cfg))[:2]
        allowed = torch.tensor([EOS, *range(offsets[name], offsets[name] + len(families[name].actions))])
        given = TrueVisualTokens(families[name], ex, offsets[name]) if true_tokens else None
        seqs = generate(model, img, fam, allowed, int(cfg.puzzle.max_len) + 1, given_z=given)
        ok = [replay(families[name], e.start, [s - offsets[name] for s in seq])[0] for e, seq in zip(ex, seqs)]
        out[name] = float(np.mean(ok))
        if first is not None:
            first[name] = float(np.mean([bool(seq) and seq[0] - offsets[name] == e.actions[0]
                                         for e, seq in zip(ex, seqs)]))
    return out


def majority_first_action(train_ex, test_ex) -> dict[str, float]:
    """The image-blind control of the first action: the most frequent first action of a family's training solutions,
    its accuracy on the test puzzles."""
    from collections import Counter

    out = {}
    for name in FAMILY_NAMES:
        top = Counter(e.actions[0] for e in train_ex if e.family == name).most_common(1)[0][0]
        out[name] = float(np.mean([e.actions[0] == top for e in test_ex if e.family == name]))
    return out


@torch.no_grad()
def hidden_at_actions(model, examples, offsets, T: int, patch: int, shuffle_rng=None):
    """Per layer (embeddings = 0), the hidden state at every action token: (layers + 1, N, T, d), teacher-forced with
    the solver's actions (or a random permutation of them when shuffle_rng is given)."""
    if shuffle_rng is not None:
        examples = [puzzles_data.Example(e.family, list(shuffle_rng.permutation(e.actions)), e.images, e.cells, e.start)
                    for e in examples]
    img, fam, tokens, z, _ = tensorize(examples, offsets, T, patch)
    hs = model(model.embed(img, fam, c_steps(model.variant, tokens, z)), hidden_states=True).hidden_states
    pos = action_positions(T, step_stride(model.variant), model.n_img)
    if model.variant == "C":  # the last visual token of step t: its inputs include the true board s_t
        pos = pos[:T - 1] + Z_TOKENS
    return np.stack([h[:, pos].numpy() for h in hs])


def probe_rows(models: dict, fit, test, families, offsets, cfg, seed: int):
    """Probe accuracy per family, layer and step. Every probe reads [one-hot start board s_0, hidden state h_t]: the
    start board is given for free, so a probe beats the copy-the-start-board baseline only with information about the
    moves made. Kinds: each model in `models` (name -> model), 'shuffled' (the 'trained' model, when given, fed a
    permutation of the actions), 'start_only' (s_0 alone) and 'oracle' (the true s_t). Probes are fit on the first
    probe.fit training puzzles of a family (`fit`, all steps pooled) and scored on its test puzzles."""
    T = int(cfg.puzzle.max_len) + 1
    rows, decoded = [], []
    for name in FAMILY_NAMES:
        fit_ex = [e for e in fit if e.family == name][:int(cfg.probe.fit)]
        ex = fit_ex + [e for e in test if e.family == name]
        half = len(fit_ex)
        K = families[name].n_classes
        patch = input_patch(cfg)
        feats = {k: hidden_at_actions(m, ex, offsets, T, patch) for k, m in models.items()}
        if "trained" in models:
            feats["shuffled"] = hidden_at_actions(models["trained"], ex, offsets, T, patch, np.random.default_rng(seed))
        # the claim's probe: strictly intermediate states, changed cells, goal-only control (intermediate_probe.py)
        for kind, layer, changed, exact, n in probe_scores(feats, ex, half, K, float(cfg.probe.alpha), int(cfg.model.d),
                                                           seed):
            rows += [(f"{kind}_mid_changed", name, layer, -1, changed, n), (f"{kind}_mid_exact", name, layer, -1, exact, n)]
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
        true_hot = np.eye(K)[true].reshape(len(steps), -1)
        design[("oracle", 0)] = np.hstack([start_hot, true_hot])
        # positive control: a d-dimensional linear code of the true board (as many numbers as h_t holds), fixed
        # random Gaussian, with the start board as for every probe
        code = np.random.default_rng(seed + 104729).normal(size=(true_hot.shape[1], int(cfg.model.d)))
        design[("random_code", 0)] = np.hstack([start_hot, true_hot @ code])
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
            if best and i - half < int(cfg.probe.decoded_examples):
                decoded.append((name, i, t + 1, " ".join(map(str, true[j])), " ".join(map(str, best["pred"][row])),
                                " ".join(map(str, start[j]))))
    return rows, decoded


def run(cfg, seed: int, puzzles: dict[str, list], pretrained: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every variant of cfg.variants on the same puzzles of one seed (data.make_puzzles). `pretrained`: the seed's
    pretraining checkpoint (pretrain.run_pretraining; None or an empty backbone = no pretraining): every variant is
    fine-tuned from its backbone, and the probes get the pretrained-but-not-fine-tuned model as a control
    ('pretrained')."""
    from neurips26.papers.mental_imagery.backbone import load_backbone

    backbone = (pretrained or {}).get("backbone") or {}
    families = make_families()
    offsets = action_offsets(families)
    n_actions = sum(len(f.actions) for f in families.values())
    sizes, T = cfg.data_sizes, int(cfg.puzzle.max_len) + 1
    train_ex, dev_ex, test_ex = puzzles["train"], puzzles["dev"], puzzles["test"]
    patch = input_patch(cfg)
    tensors, dev = tensorize(train_ex, offsets, T, patch), tensorize(dev_ex, offsets, T, patch)
    blind = constant_baseline(train_ex, test_ex, families)
    blind_first = majority_first_action(train_ex, test_ex)
    frames, decs = [], []
    for variant in cfg.variants:
        t0 = time.time()
        torch.manual_seed(seed)
        untrained = build_model(cfg, variant, n_actions).eval()
        torch.manual_seed(seed)
        model = build_model(cfg, variant, n_actions)
        controls = {"untrained": untrained}
        if backbone:
            load_backbone(model, backbone)
            torch.manual_seed(seed)
            controls["pretrained"] = build_model(cfg, variant, n_actions).eval()
            load_backbone(controls["pretrained"], backbone)
        curve = train(model, tensors, dev, cfg, seed)
        first: dict = {}
        rows = [("solve_rate", name, -1, -1, v, int(sizes.test))
                for name, v in solve_rates(model, test_ex, families, offsets, cfg, first).items()]
        rows += [("first_action_acc", name, -1, -1, v, int(sizes.test)) for name, v in first.items()]
        if variant == "C":  # the visual-token claim's positive control: C fed the true tokens of the boards it reaches
            rows += [("solve_rate_given_z", name, -1, -1, v, int(sizes.test))
                     for name, v in solve_rates(model, test_ex, families, offsets, cfg, true_tokens=True).items()]
        rows += [("blind_solve_rate", name, -1, -1, v, int(sizes.test)) for name, v in blind.items()]
        rows += [("blind_first_action_acc", name, -1, -1, v, int(sizes.test)) for name, v in blind_first.items()]
        rows += [(m, "all", -1, step, v, 0) for step, tr_ce, dev_loss in curve
                 for m, v in (("train_ce", tr_ce), ("dev_ce", dev_loss))]
        rows.append(("steps", "all", -1, -1, curve[-1][0], 0))
        rows += [("pretrain_dev_acc", "all", -1, int(step), float(acc), 0)
                 for step, _, acc in (pretrained or {}).get("curve", [])]
        rows += [("pretrain_family_acc", name, -1, -1, float(acc), 0)
                 for name, acc in (pretrained or {}).get("family_acc", {}).items()]
        decoded = []
        if variant in cfg.probe.variants:
            prows, decoded = probe_rows({"trained": model, **controls}, train_ex, test_ex, families, offsets, cfg,
                                        seed)
            rows += prows
        elif variant == "C":  # positive control: a model whose inputs hold the true board s_t
            rows += probe_rows({"given_board": model}, train_ex, test_ex, families, offsets, cfg, seed)[0]
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
