"""Data loading and bad input: IDX round trip, truncated files, the embedded CSV layout; training determinism."""

import gzip

import numpy as np
import pandas as pd
import pytest
import torch
from omegaconf import OmegaConf

from neurips26.common.data.idx import read_idx
from neurips26.common.pipeline.errors import UserError
from neurips26.papers.kondo_gate.data import load_mnist
from neurips26.papers.kondo_gate.tables import table_main
from neurips26.papers.kondo_gate.tasks import ReversalTask
from neurips26.papers.kondo_gate.training import Spec, specs, train


def idx_bytes(array: np.ndarray) -> bytes:
    header = bytes([0, 0, 0x08, array.ndim]) + b"".join(int(n).to_bytes(4, "big") for n in array.shape)
    return header + array.astype(np.uint8).tobytes()


def test_idx_round_trip_and_truncation(tmp_path):
    images = np.random.default_rng(0).integers(0, 256, (3, 28, 28))
    path = tmp_path / "train-images-idx3-ubyte.gz"
    path.write_bytes(gzip.compress(idx_bytes(images)))
    np.testing.assert_array_equal(read_idx(path), images)
    path.write_bytes(gzip.compress(idx_bytes(images)[:-5]))
    with pytest.raises(UserError, match="truncated"):
        read_idx(path)


def test_real_layout_is_loaded_and_missing_files_are_reported(tmp_path):
    images = np.random.default_rng(1).integers(0, 256, (4, 28, 28))
    (tmp_path / "train-images-idx3-ubyte.gz").write_bytes(gzip.compress(idx_bytes(images)))
    (tmp_path / "train-labels-idx1-ubyte.gz").write_bytes(gzip.compress(idx_bytes(np.array([0, 3, 9, 1]))))
    x, y = load_mnist(tmp_path, real=True)
    assert x.shape == (4, 784) and y.tolist() == [0, 3, 9, 1] and x.max() <= 1.0
    with pytest.raises(UserError, match="no MNIST files"):
        load_mnist(tmp_path / "empty", real=True)
    with pytest.raises(UserError, match="mnist_5k.csv.gz is missing"):
        load_mnist(tmp_path)  # embedded mode never falls back to the real files


def test_embedded_csv_with_wrong_width_is_rejected(tmp_path):
    pd.DataFrame(np.zeros((2, 10))).to_csv(tmp_path / "mnist_5k.csv.gz", header=False, index=False)
    with pytest.raises(UserError, match="785 columns"):
        load_mnist(tmp_path)


def test_unknown_method_is_a_user_error():
    with pytest.raises(UserError, match="unknown method"):
        specs({"delight": [0.3], "oracle": [1.0]})


def test_training_is_deterministic_and_counts_backward_passes():
    block = OmegaConf.create({"vocab": 4, "d_model": 16, "layers": 1, "heads": 2, "ff": 16, "batch": 8, "lr": 0.01,
                              "eta": 1.0, "eval_size": 16, "stale_every": 2, "steps": 4, "eval_every": 2})
    cfg = OmegaConf.create({"gate": {"survivor_weight": "advantage", "additive_alpha": 0.5}})
    torch.set_num_threads(1)
    task = ReversalTask(3, block, 0)
    first = train(task, Spec("stale_delight", 0.25), cfg, block, 0)
    second = train(task, Spec("stale_delight", 0.25), cfg, block, 0)
    assert pd.DataFrame(first).drop(columns="wall_s").equals(pd.DataFrame(second).drop(columns="wall_s"))
    assert first[-1]["backward_passes"] == 4 * 2  # ceil(0.25 * 8) kept per step, 4 steps
    assert train(task, Spec("dg", 1.0), cfg, block, 0)[-1]["backward_passes"] == 4 * 8


def test_grouped_baseline_centres_each_prompts_answers():
    """The official grouped baseline: S answers per prompt in a row, advantage = reward - the prompt's mean reward."""
    block = OmegaConf.create({"vocab": 4, "batch": 6, "samples_per_prompt": 3, "baseline": "prompt", "eval_size": 4})
    task = ReversalTask(5, block, 0)
    x, _ = task.batch(torch.Generator().manual_seed(0))
    assert torch.equal(x[0], x[1]) and torch.equal(x[1], x[2]) and torch.equal(x[3], x[5])
    reward = torch.tensor([1.0, 0.5, 0.0, 0.2, 0.2, 0.8])
    torch.testing.assert_close(task.advantage(reward), torch.tensor([0.5, 0.0, -0.5, -0.2, -0.2, 0.4]))
    batch = ReversalTask(5, OmegaConf.merge(block, {"baseline": "batch"}), 0)
    torch.testing.assert_close(batch.advantage(reward), reward - reward.mean())
    with pytest.raises(UserError, match="multiple"):
        ReversalTask(5, OmegaConf.merge(block, {"batch": 7}), 0).batch(torch.Generator())


def test_main_table_ratios_to_dg():
    runs = pd.DataFrame({"task": "t", "method": ["dg", "delight"], "keep_rate": [1.0, 0.3], "price": np.nan,
                         "seed": 0, "step": 10, "backward_passes": [100, 25], "backward_flops": [10, 2],
                         "score": [0.8, 0.6]})
    table = table_main(runs).set_index("method")
    assert table.loc["delight", "score_vs_dg"] == pytest.approx(0.75)
    assert table.loc["delight", "backward_reduction_vs_dg"] == pytest.approx(4.0)
