"""Frozen token states of a backbone, cached once per backbone: MiniLM (the bundled all-MiniLM-L6-v2 encoder, last
layer) and SmolLM2-135M (the bundled decoder, the residual stream after layer `layer`: the layers above it are never run).
Every model file is sha256-checked before from_pretrained reads it."""

from __future__ import annotations

import numpy as np

from neurips26.common.pipeline.errors import UserError


def token_states(backbone: str, texts: list[str], max_tokens: int, batch: int, layer: int | None = None) -> dict:
    """{ids (N, T) int32, mask (N, T) bool, states (N, T, d) float16, vocab, tokens (vocab,) str} of the texts,
    right-padded to T."""
    import torch
    from tqdm import tqdm

    if backbone == "minilm":
        from neurips26.common.models.minilm import load_minilm

        tokenizer, model = load_minilm()
        run = lambda ids, mask: model(input_ids=ids, attention_mask=mask).last_hidden_state  # noqa: E731
        special = True
    elif backbone == "smollm2":
        from neurips26.common.models.llm import load_smollm2

        tokenizer, model = load_smollm2()
        if layer is None or not 1 <= layer <= model.config.num_hidden_layers:
            raise UserError(f"plant: smollm2 needs 1 <= layer <= {model.config.num_hidden_layers}, got {layer}")
        model.model.layers = model.model.layers[:layer]  # the residual stream after `layer` decoder layers

        def run(ids, mask):
            return model.model(input_ids=ids, attention_mask=mask, output_hidden_states=True).hidden_states[layer]

        special = False
    else:
        raise UserError(f"plant: unknown backbone {backbone!r}; known: minilm, smollm2")
    ids_all, mask_all, states = [], [], []
    with torch.inference_mode():
        for start in tqdm(range(0, len(texts), batch), desc=f"{backbone} states"):
            enc = [tokenizer(t, add_special_tokens=special, truncation=True, max_length=max_tokens).input_ids
                   for t in texts[start:start + batch]]
            ids = torch.full((len(enc), max_tokens), tokenizer.pad_token_id or 0, dtype=torch.long)
            mask = torch.zeros((len(enc), max_tokens), dtype=torch.long)
            for row, e in enumerate(enc):
                ids[row, :len(e)] = torch.tensor(e[:max_tokens])
                mask[row, :len(e)] = 1
            h = run(ids, mask)
            ids_all.append(ids.numpy().astype(np.int32))
            mask_all.append(mask.numpy().astype(bool))
            states.append((h * mask[..., None]).numpy().astype(np.float16))
    return {"ids": np.concatenate(ids_all), "mask": np.concatenate(mask_all), "states": np.concatenate(states),
            "vocab": np.array(len(tokenizer)),
            "tokens": np.array(tokenizer.convert_ids_to_tokens(list(range(len(tokenizer)))), dtype=str)}
