"""Hub causal LMs (common/models/hub_llm.py) and ensemble_mi's LLM pool (issue #69 item 5), against an offline
huggingface_hub cache built here, never the internet: a tiny random-weight Llama-architecture model with its own
tokenizer, in the hub's snapshot layout. The first download pins the commit and a digest of every file; a changed byte
fails the next load with both digests; the pool's stage predicts every hub task of a seed through that model."""

from __future__ import annotations

import huggingface_hub.constants
import pandas as pd
import pytest
import torch

from neurips26.common.data.datasets import get_dataset, prepare
from neurips26.common.data.source_lock import read_lock
from neurips26.common.models.hub_llm import LOCK_ID, hub_snapshot, load_hub_causal_lm
from neurips26.common.pipeline.config import compose
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.stage import StageContext
from neurips26.papers.ensemble_mi.stages import STAGES
from tests.unit.test_hub_corpora import _build_cache

REPO, COMMIT = "org/tiny-llama", "d" * 40
# every word a prompt or label uses, so that each label word is its own token (the rest maps to [UNK])
WORDS = (
    "[UNK] [PAD] Review: Article: Question: Sentiment: Topic: Answer: negative positive No Yes Did the reviewer "
    "like movie? world sports business science technology This news article is about A B C D correct answer is "
    "Classify sentiment of movie reviews. multiple-choice questions. medical topic. Answer the"
).split()


def _tiny_model(folder, words=WORDS):
    """A 2-layer Llama-architecture decoder with random weights and a word-level tokenizer over `words`, saved as the hub
    serves it."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(dict.fromkeys(words))}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="[UNK]", pad_token="[PAD]").save_pretrained(folder)
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=4096,
    )
    LlamaForCausalLM(config).save_pretrained(folder)


@pytest.fixture
def hub(monkeypatch, tmp_path):
    """A repository root whose data/cache/huggingface holds the tiny model at COMMIT (refs/main) and the hub tasks."""
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    root = tmp_path / "repo"
    repo = root / "data" / "cache" / "huggingface" / f"models--{REPO.replace('/', '--')}"
    _tiny_model(repo / "snapshots" / COMMIT)
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(COMMIT)
    return root


def test_the_first_download_pins_the_commit_and_every_file(hub):
    folder = hub_snapshot(REPO, hub)
    pin = read_lock(hub / "data" / "sources.lock")[(LOCK_ID, REPO)]
    assert folder.name == COMMIT and pin.url == f"hf://models/{REPO}@{COMMIT}"
    assert pin.size == sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert hub_snapshot(REPO, hub) == folder  # a later load verifies against the pin and passes
    tokenizer, model = load_hub_causal_lm(REPO, hub, "cpu", "float32")
    assert model.config.num_hidden_layers == 2 and tokenizer(" Yes", add_special_tokens=False).input_ids


def test_a_changed_byte_after_pinning_fails_the_next_load(hub):
    folder = hub_snapshot(REPO, hub)
    config = folder / "config.json"
    config.write_text(config.read_text().replace('"hidden_size": 16', '"hidden_size": 16 '))
    with pytest.raises(UserError, match="tree digest .* if the model changed on purpose"):
        hub_snapshot(REPO, hub)


def test_pickled_weights_alone_are_refused(hub):
    folder = hub / "data" / "cache" / "huggingface" / f"models--{REPO.replace('/', '--')}" / "snapshots" / COMMIT
    (folder / "model.safetensors").unlink()
    with pytest.raises(UserError, match="no .safetensors"):
        hub_snapshot(REPO, hub)


def test_the_pool_stage_predicts_every_hub_task_of_a_seed(hub, tmp_path, repo_root):
    _build_cache(hub)
    registry = repo_root / "config" / "datasets.yaml"
    ids = {
        "imdb": "ensemble_mi_imdb",
        "ag_news": "ensemble_mi_bbc",
        "mmlu": "ensemble_mi_mmlu",
        "medmcqa": "ensemble_mi_mmlu",
    }
    provenance = {i: prepare(get_dataset(i, registry), "real", hub) for i in set(ids.values())}
    sizes = [f"tasks.{t}.{k}={v}" for t in ids for k, v in (("pool", 8), ("train", 20))]
    cfg = compose(
        "ensemble_mi",
        [
            "scale=tiny",
            "data=real",
            "device=cpu",
            "llm_pool.enabled=true",
            "+llm_pool.models.tiny=org/tiny-llama",
            "llm_pool.dtype=float32",
            "llm.max_tokens=8",
            "+model=tiny",
            *sizes,
        ],
        root=repo_root,
    )
    outputs = [tmp_path / f"{t}.csv" for t in ids]
    STAGES["predict_pool"](StageContext("ensemble_mi", cfg, [provenance[ids[t]] for t in ids], outputs, 0))
    for path in outputs:
        frame = pd.read_csv(path)
        members = [c for c in frame.columns if c.startswith("tiny_")]
        assert len(frame) == 8 and members and all(frame[m].between(0, 3).all() for m in members)
    with pytest.raises(UserError, match="needs model="):
        STAGES["predict_pool"](
            StageContext("ensemble_mi", compose("ensemble_mi", ["+model=absent"], root=repo_root), [], [], 0)
        )
