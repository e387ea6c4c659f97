"""zo_dominant_layer with data: real (issue #55 item 5): MeZO's SST-2, RTE and BoolQ in MeZO's templates and sampling,
read from the hub's parquet files, and the paper's decoders from the hub; run end to end against an offline hub cache
built here (the real file paths and columns, a tiny random-weight Llama standing in for Llama-2-7B), never the
internet."""

from __future__ import annotations

import huggingface_hub.constants
import numpy as np
import pandas as pd
import pytest

from neurips26.common.data.datasets import get_dataset, prepare
from neurips26.common.pipeline.config import compose
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.stage import StageContext
from neurips26.papers.zo_dominant_layer import data, mezo_tasks
from neurips26.papers.zo_dominant_layer.stages import STAGES
from tests.unit.test_hub_llm import WORDS, _tiny_model

COMMIT = "e" * 40


def _frames():
    n = 60
    sst2 = pd.DataFrame(
        {"sentence": [f"a fine film {i} " for i in range(n)], "label": np.arange(n) % 2, "idx": np.arange(n)}
    )
    rte = pd.DataFrame(
        {
            "sentence1": [f"Premise {i}." for i in range(n)],
            "sentence2": [f"hypothesis {i}" for i in range(n)],
            "label": np.arange(n) % 2,
            "idx": np.arange(n),
        }
    )
    boolq = pd.DataFrame(
        {
            "question": [f"is it {i}" for i in range(n)],
            "answer": np.arange(n) % 2 == 0,
            "passage": [f"Passage {i}." for i in range(n)],
        }
    )
    return {
        "nyu-mll/glue": {
            "sst2/train-00000-of-00001.parquet": sst2,
            "sst2/validation-00000-of-00001.parquet": sst2[:20],
            "rte/train-00000-of-00001.parquet": rte,
            "rte/validation-00000-of-00001.parquet": rte[:20],
        },
        "google/boolq": {"data/train-00000-of-00001.parquet": boolq, "data/validation-00000-of-00001.parquet": boolq[:20]},
    }


@pytest.fixture
def hub(monkeypatch, tmp_path, repo_root):
    """A root with the MeZO tasks prepared with data: real and a tiny decoder at models--org--tiny-llama."""
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    root = tmp_path / "repo"
    cache = root / "data" / "cache" / "huggingface"
    for repo, files in _frames().items():
        for name, frame in files.items():
            path = cache / f"datasets--{repo.replace('/', '--')}" / "snapshots" / COMMIT / name
            path.parent.mkdir(parents=True, exist_ok=True)
            frame.to_parquet(path)
        (cache / f"datasets--{repo.replace('/', '--')}" / "refs").mkdir()
        (cache / f"datasets--{repo.replace('/', '--')}" / "refs" / "main").write_text(COMMIT)
    model = cache / "models--org--tiny-llama"
    _tiny_model(model / "snapshots" / COMMIT, WORDS + "terrible great It was".split())
    (model / "refs").mkdir()
    (model / "refs" / "main").write_text(COMMIT)
    registry = repo_root / "config" / "datasets.yaml"
    provenance = {i: prepare(get_dataset(i, registry), "real", root) for i in ("mezo_glue", "mezo_boolq")}
    return root, provenance


def _cfg(repo_root, *extra):
    return compose(
        "zo_dominant_layer",
        [
            "scale=tiny",
            "data=real",
            "device=cpu",
            "tasks.n_train=24",
            "tasks.n_dev=8",
            "tasks.n_test=8",
            "+hub_models.tiny=org/tiny-llama",
            "hub_dtype=float32",
            *extra,
        ],
        root=repo_root,
    )


def test_mezo_templates_are_mezos():
    row = pd.Series(
        {
            "sentence": " a gripping film ",
            "sentence1": "It rained.",
            "sentence2": "the ground is wet",
            "question": "is the sky blue",
            "passage": "The sky is blue.",
        }
    )
    assert mezo_tasks._sst2(row) == "a gripping film It was"
    assert mezo_tasks._rte(row) == 'It rained.\nDoes this mean that "the ground is wet" is true? Yes or No?\n'
    assert mezo_tasks._boolq(row) == "The sky is blue. Is the sky blue?\n"
    assert mezo_tasks.TASKS["boolq"][4](pd.DataFrame({"answer": [True, False]})).tolist() == [0, 1]  # Yes, No


def test_mezo_sampling_draws_train_and_dev_from_training_and_test_from_validation(hub, repo_root):
    root, provenance = hub
    cfg = _cfg(repo_root)
    assert data.task_names(cfg) == ["sst2", "rte", "boolq"]
    task = data.load_task("rte", provenance["mezo_glue"].parent, cfg, 0)
    assert (task.n_train, task.n_dev, len(task.y)) == (24, 8, 40) and task.words == ["Yes", "No"]
    validation = {f"Premise {i}." for i in range(20)}
    test = [p.split("\n")[0] for p in task.prompts[32:]]
    assert set(test) <= validation and len(set(test)) == 8
    again = data.load_task("rte", provenance["mezo_glue"].parent, cfg, 0)
    other = data.load_task("rte", provenance["mezo_glue"].parent, cfg, 1)
    assert again.prompts == task.prompts and other.prompts != task.prompts  # the run seed draws the sample
    with pytest.raises(UserError, match="needs 1032"):
        data.load_task("rte", provenance["mezo_glue"].parent, _cfg(repo_root, "tasks.n_train=1024"), 0)


def test_embedded_and_real_tasks_do_not_mix(repo_root):
    with pytest.raises(UserError, match="no real source"):
        data.task_names(compose("zo_dominant_layer", ["data=real", "tasks.real_names=[imdb]"], root=repo_root))
    assert data.task_names(compose("zo_dominant_layer", [], root=repo_root)) == ["imdb", "bbc", "mmlu_subject"]


def test_the_probe_and_the_second_family_run_a_hub_decoder_on_mezo_tasks(hub, repo_root, tmp_path):
    root, provenance = hub
    cfg = _cfg(repo_root, "model=tiny", "second_model=tiny", "+task=sst2")
    out = tmp_path / "layers.csv"
    STAGES["probe"](StageContext("zo_dominant_layer", cfg, [provenance["mezo_glue"]], [out], 0))
    layers = pd.read_csv(out)
    assert set(layers.model) == {"tiny"} and set(layers.task) == {"sst2"} and (layers.n_layers == 2).all()
    profile = tmp_path / "profile.csv"
    inputs = [provenance["mezo_glue"], provenance["mezo_glue"], provenance["mezo_boolq"]]
    STAGES["second_model"](StageContext("zo_dominant_layer", cfg, inputs, [profile], 0))
    second = pd.read_csv(profile)
    assert set(second.task) == {"sst2", "rte", "boolq"} and set(second.model) == {"tiny"} and set(second.layer) == {0, 1}


def test_the_layer_sweep_fine_tunes_a_hub_decoder_on_a_mezo_task(hub, repo_root, tmp_path):
    root, provenance = hub
    cfg = _cfg(repo_root, "train.model=tiny", "+task=boolq")
    outputs = [tmp_path / "sweep.csv", tmp_path / "curves.csv"]
    STAGES["train"](StageContext("zo_dominant_layer", cfg, [provenance["mezo_boolq"]], outputs, 0))
    sweep = pd.read_csv(outputs[0])
    assert set(sweep[sweep.method == "zo_layer"].layer) == {0, 1}  # every layer of the decoder alone
