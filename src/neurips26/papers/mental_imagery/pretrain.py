"""VLM pretraining (the stand-in for the paper's pretrained VLM): one per seed, before any puzzle action is seen.

Objective: describe the start board. After [image patches of s_0] [family token], 9 learned query tokens each predict
the symbols (data.symbols: what the image shows, as the symbolic input would give it) of one 2x2 block of the 6x6
layout grid (cross-entropy over the symbol vocabulary). Boards: the start boards of the seed's training puzzles of
every family. No action, no solution and no intermediate state enters the objective. The backbone it trains (patch
encoder, 2D patch positions, family embedding, decoder) is the starting point of every variant's fine-tuning (A, B and
C alike); the action embeddings and heads start from random, as without pretraining.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from neurips26.common.models import optim
from neurips26.papers.mental_imagery import data as puzzles_data
from neurips26.papers.mental_imagery.backbone import BACKBONE, backbone_state, load_backbone  # noqa: F401
from neurips26.papers.mental_imagery.build import build_model, input_patch, lr_factor
from neurips26.papers.mental_imagery.model import TinyVLM
from neurips26.papers.mental_imagery.tensors import FAMILY_NAMES, tensorize

N_QUERIES, BLOCK = 9, 4  # 3x3 queries, each a 2x2 block of layout cells


def unblock(blocks: np.ndarray) -> np.ndarray:
    """The inverse of block_targets: (N, 9, 4) -> (N, 36) in raster order of the 6x6 grid."""
    n = len(blocks)
    return blocks.reshape(n, 3, 3, 2, 2).transpose(0, 1, 3, 2, 4).reshape(n, 36)


def block_targets(symbols: np.ndarray) -> np.ndarray:
    """(N, 36) symbols in raster order of the 6x6 grid -> (N, 9, 4): query q = (block row, block column) in raster
    order, its 4 cells in raster order within the block."""
    n = len(symbols)
    return symbols.reshape(n, 3, 2, 3, 2).transpose(0, 1, 3, 2, 4).reshape(n, N_QUERIES, BLOCK)


class Describer(nn.Module):
    """The VLM with the pretraining queries and the symbol head."""

    def __init__(self, vlm: TinyVLM):
        super().__init__()
        d = vlm.patch.out_features
        self.vlm = vlm
        self.queries = nn.Parameter(0.02 * torch.randn(N_QUERIES, d))
        self.head = nn.Linear(d, BLOCK * puzzles_data.N_SYMBOLS)

    def forward(self, image_tokens, family):
        x = self.vlm.embed(image_tokens, family, [])
        x = torch.cat([x, self.queries.expand(len(x), -1, -1)], dim=1)
        h = self.vlm(x).last_hidden_state[:, -N_QUERIES:]
        return self.head(h).view(len(x), N_QUERIES, BLOCK, puzzles_data.N_SYMBOLS)


def describe_loss(model: Describer, image_tokens, family, targets):
    """(cross-entropy, cell accuracy) of the description against targets (B, 9, 4)."""
    logits = model(image_tokens, family)
    ce = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
    return ce, (logits.argmax(-1) == targets).float().mean()




def board_tensors(examples, patch: int | str = 6):
    """Image tokens of the start boards, family ids and the description targets."""
    img = tensorize(examples, {name: 2 for name in FAMILY_NAMES}, 1 + max(len(e.actions) for e in examples),
                    patch)[0]
    fam = torch.tensor([FAMILY_NAMES.index(e.family) for e in examples])
    sym = np.stack([puzzles_data.symbols(e.family, e.start) for e in examples])
    return img, fam, torch.tensor(block_targets(sym))


@torch.no_grad()
def family_accuracy(model: Describer, dev) -> dict[str, float]:
    """Description cell accuracy on the dev start boards of each family."""
    model.eval()
    logits = model(dev[0], dev[1])
    hits = (logits.argmax(-1) == dev[2]).float().mean(dim=(1, 2))
    model.train()
    return {name: float(hits[dev[1] == i].mean()) for i, name in enumerate(FAMILY_NAMES) if (dev[1] == i).any()}


def sample_weights(cfg, family_ids: torch.Tensor) -> torch.Tensor | None:
    """Per-board sampling weights of the pretraining batches from pretrain.family_weight ({family: weight}, 1 for a
    family not named); None when every weight is 1 (uniform sampling over the boards, as before the option)."""
    weights = dict(cfg.pretrain.get("family_weight") or {})
    unknown = set(weights) - set(FAMILY_NAMES)
    if unknown:
        raise ValueError(f"pretrain.family_weight names unknown families: {sorted(unknown)}")
    w = torch.tensor([float(weights.get(name, 1.0)) for name in FAMILY_NAMES])
    return None if bool((w == 1).all()) else w[family_ids]


@torch.no_grad()
def dev_accuracy(model: Describer, dev, batch: int = 256) -> float:
    model.eval()
    n, hits = dev[0].shape[0], 0.0
    for i in range(0, n, batch):
        part = [x[i:i + batch] for x in dev]
        hits += describe_loss(model, *part)[1].item() * len(part[0])
    model.train()
    return hits / n


def pretrain(cfg, seed: int, puzzles: dict, vlm: TinyVLM, family_acc: dict | None = None,
             keep: dict | None = None) -> list[tuple[int, float, float]]:
    """Train vlm (in place) to describe the start boards of puzzles['train'] for pretrain.steps steps of batch
    train.batch (AdamW, lr pretrain.lr, train.warmup warm-up steps, cosine decay to 0 at the last step; boards drawn
    uniformly, or by pretrain.family_weight). Returns (step, mean train cross-entropy since the last evaluation,
    description accuracy on the dev start boards) every train.eval_every steps and at the end; family_acc (if given)
    receives the final per-family dev accuracy, keep (if given) the trained Describer under 'describer' (pilots)."""
    steps = int(cfg.pretrain.steps)
    if steps <= 0:
        return []
    patch = input_patch(cfg)
    tensors, dev = board_tensors(puzzles["train"], patch=patch), board_tensors(puzzles["dev"], patch=patch)
    model = Describer(vlm)
    opt = optim.AdamW(model.parameters(), lr=float(cfg.pretrain.lr), weight_decay=0.01, foreach=True)
    gen = torch.Generator().manual_seed(seed + 7919)
    warm, lr, every = max(1, int(cfg.train.warmup)), float(cfg.pretrain.lr), int(cfg.train.eval_every)
    n, curve, acc = tensors[0].shape[0], [], []
    weights = sample_weights(cfg, tensors[1])
    model.train()
    for step in range(steps):
        for group in opt.param_groups:
            group["lr"] = lr * lr_factor(step, warm, steps)
        if weights is None:
            idx = torch.randint(n, (int(cfg.train.batch),), generator=gen)
        else:
            idx = torch.multinomial(weights, int(cfg.train.batch), replacement=True, generator=gen)
        loss, _ = describe_loss(model, *[x[idx] for x in tensors])
        opt.zero_grad()
        loss.backward()
        opt.step()
        acc.append(loss.item())
        if (step + 1) % every == 0 or step + 1 == steps:
            curve.append((step + 1, float(np.mean(acc)), dev_accuracy(model, dev)))
            acc = []
    if family_acc is not None:
        family_acc.update(family_accuracy(model, dev))
    if keep is not None:
        keep["describer"] = model
    vlm.eval()
    return curve


def run_pretraining(cfg, seed: int, puzzles: dict) -> dict:
    """The seed's pretraining checkpoint: {'backbone': the pretrained backbone tensors (empty when pretrain.steps is
    0), 'curve': [(step, train cross-entropy, dev description accuracy)], 'family_acc': {family: final dev
    description accuracy}}. The model is initialised exactly as the variants' (torch seed = the seed), then
    pretrained."""
    from neurips26.papers.mental_imagery.puzzles import make_families

    if int(cfg.pretrain.steps) <= 0:
        return {"backbone": {}, "curve": [], "family_acc": {}}
    n_actions = sum(len(f.actions) for f in make_families().values())
    torch.manual_seed(seed)
    vlm = build_model(cfg, "A", n_actions)
    family_acc: dict = {}
    curve = pretrain(cfg, seed, puzzles, vlm, family_acc)
    return {"backbone": backbone_state(vlm), "curve": curve, "family_acc": family_acc}


def to_arrays(checkpoint: dict) -> dict:
    """A checkpoint as named numpy arrays (for common.artifacts.write_npz): 'curve', 'backbone/<name>' and
    'family_acc/<family>'."""
    out = {"curve": np.array(checkpoint["curve"], dtype=np.float64).reshape(-1, 3)}
    out.update({f"backbone/{k}": v.numpy() for k, v in checkpoint["backbone"].items()})
    out.update({f"family_acc/{k}": np.array([v], dtype=np.float64) for k, v in checkpoint.get("family_acc", {}).items()})
    return out


def from_arrays(arrays) -> dict:
    """The inverse of to_arrays (arrays: a mapping such as np.load's)."""
    return {"backbone": {k.split("/", 1)[1]: torch.tensor(arrays[k]) for k in arrays if k.startswith("backbone/")},
            "curve": [tuple(row) for row in np.asarray(arrays["curve"]).tolist()],
            "family_acc": {k.split("/", 1)[1]: float(np.asarray(arrays[k]).reshape(-1)[0]) for k in arrays
                           if k.startswith("family_acc/")}}
