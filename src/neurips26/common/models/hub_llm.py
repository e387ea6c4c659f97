"""Causal LMs from the Hugging Face hub, at a commit pinned on first download (the papers' paper-scale models).

`hub_snapshot(repo)` downloads the model's weights, config and tokenizer with huggingface_hub into data/cache/huggingface
(never the user's home), at the commit data/sources.lock pins for it; without a pin it resolves the current commit and
pins it, with the size and a digest of every downloaded file (sha256 over the sorted `path<TAB>sha256` lines), under
the lock's dataset id `hub_models`. A later download must give the same commit and the same bytes, else it stops with
both digests. A token for gated repositories (Llama, Gemma) is read from HF_TOKEN at run time only; a site mirror of
the hub is huggingface_hub's own HF_ENDPOINT, and HF_HUB_OFFLINE=1 reads only the cache. Re-pinning is deliberate:
delete the model's line from data/sources.lock.
"""

from __future__ import annotations

import os
from pathlib import Path

from neurips26.common.data.hf_source import CACHE, split_pinned_url
from neurips26.common.data.source_lock import Pin, lock_path, read_lock, record_pin
from neurips26.common.pipeline.digests import tree_digest, verify_tree_digest
from neurips26.common.pipeline.errors import UserError

LOCK_ID = "hub_models"
# the files a causal LM needs to load: weights (safetensors only: no pickled .bin is ever loaded), config, tokenizer
PATTERNS = ["*.json", "*.safetensors", "*.model", "*.txt", "*.tiktoken"]


def hub_snapshot(repo: str, root: Path) -> Path:
    """The local folder of `repo` at its pinned commit (pinning it on the first download), its bytes verified."""
    lock = lock_path(root)
    pin = read_lock(lock).get((LOCK_ID, repo))
    commit = split_pinned_url(pin.url)[1] if pin else None
    folder = _download(repo, root, commit)
    files = _snapshot_files(folder)
    if pin is None:
        size = sum(p.stat().st_size for p in files.values())
        record_pin(lock, Pin(LOCK_ID, repo, size, tree_digest(files), f"hf://models/{repo}@{folder.name}"))
        return folder
    hint = f" (pinned in {lock}; if the model changed on purpose, delete its line to re-pin it)"
    if folder.name != commit:  # huggingface_hub names a snapshot folder by its commit
        raise UserError(f"{repo}: the hub gave commit {folder.name}, not the pinned {commit}{hint}")
    verify_tree_digest(files, pin.sha256, f"{repo}@{commit}", hint)
    return folder


def _download(repo: str, root: Path, commit: str | None) -> Path:
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

    try:
        return Path(
            snapshot_download(
                repo,
                revision=commit,
                cache_dir=root / CACHE,
                allow_patterns=PATTERNS,
                token=os.environ.get("HF_TOKEN") or None,
            )
        )
    except (HfHubHTTPError, LocalEntryNotFoundError, OSError, ValueError) as exc:
        gated = " (a gated model: accept its licence on the hub and set HF_TOKEN)" if "401" in str(exc) else ""
        raise UserError(f"download of hf://models/{repo}@{commit or 'main'} failed{gated}: {exc}") from None


def _snapshot_files(folder: Path) -> dict[str, Path]:
    """The snapshot's files by relative path (huggingface_hub links them to its blobs; digests read the bytes)."""
    files = {p.relative_to(folder).as_posix(): p for p in folder.rglob("*") if p.is_file()}
    if not any(name.endswith(".safetensors") for name in files):
        raise UserError(f"{folder}: no .safetensors weights (a model with pickled weights only is not loaded)")
    return files


def load_hub_causal_lm(repo: str, root: Path, device: str, dtype: str):
    """(tokenizer, model) of `repo` at its pinned commit, in eval mode on `device` with weights in `dtype`."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = hub_snapshot(repo, root)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=getattr(torch, dtype), use_safetensors=True)
    return tokenizer, model.to(device).eval()
