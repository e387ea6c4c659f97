"""Pilot (issue #57 item 1): how long does the bundled SmolLM2-135M take to answer a question from a shown text, on one
CPU thread, at the harness's observation size and at the length of a whole report (its context window)? Prints seconds
per answer (prefill + up to 8 greedy tokens) per prompt length.
Run: python -m neurips26.papers.docatlas.pilots.smollm2_timing
"""

from __future__ import annotations

import time

import torch

from neurips26.common.models.llm import load_smollm2

SENTENCE = "In 2019, the Coastal division reported shipments of 1,234 containers. "


def main() -> None:
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    tok, model = load_smollm2()
    print(f"load {time.perf_counter() - t0:.1f} s; context {model.config.max_position_embeddings}")
    for n_tokens in (256, 1024, 4096, 8000):
        words = SENTENCE * (n_tokens // 10 + 1)
        ids = tok(words, add_special_tokens=False).input_ids[:n_tokens]
        prompt = torch.tensor([ids])
        t0 = time.perf_counter()
        with torch.inference_mode():
            model.generate(
                prompt,
                attention_mask=torch.ones_like(prompt),
                max_new_tokens=8,
                do_sample=False,
                pad_token_id=tok.eos_token_id or 0,
            )
        print(f"{n_tokens} prompt tokens: {time.perf_counter() - t0:.2f} s per answer", flush=True)


if __name__ == "__main__":
    main()
