"""scale: paper only: a multimodal LLM behind a user-configured OpenAI-compatible endpoint answers a question from page
images in the official DocScope trajectory format (cited sentences, then <answer>). Never used by default; nothing here
runs without `mllm.base_url` set.

The API key is read from the environment variable DOCSCOPE_API_KEY at call time and is never written anywhere.
"""

from __future__ import annotations

import base64
import io
import json
import os
import urllib.request

from neurips26.common.docbench.documents import render_page
from neurips26.common.pipeline.errors import UserError
from neurips26.papers.docscope.trajectory import Trajectory, parse

# The official inference contract (MiliLab/DocScope code/infer/reasoning_prompts.py), in our words: page images wrapped
# in global-page markers; every fact-bearing sentence ends with exactly one citation; the final answer in a tag.
PROMPT = (
    "You are given page images of a PDF, each between the text markers '=== GLOBAL PAGE X (start) ===' and "
    "'=== GLOBAL PAGE X (end) ===', and a question. Reason in plain prose. Every sentence that states a fact from the "
    'document must end with exactly one citation [page=N, doc_page="L", bbox=[x1, y1, x2, y2]] and a period, where N '
    'is the global page number, L the page label printed on the page ("none" if there is none) and the box is '
    "normalised to [0, 1] with a top-left origin; state one fact per sentence; arithmetic on cited facts needs no "
    "citation; never cite pages in words. End with <answer> your concise answer </answer>, or <answer> Unanswerable "
    "</answer> if the document does not answer the question.\nQuestion: {question}"
)


def ask(cfg, pdf_path, pages: list[int], question: str, dpi: float = 72.0, timeout: float = 120.0) -> Trajectory:
    """One chat-completions call with the listed pages as PNG images; the reply is parsed (TrajectoryError if malformed)."""
    from PIL import Image

    base_url, model = cfg.mllm.base_url, cfg.mllm.model
    if not base_url or not model:
        raise UserError("docscope: the MLLM systems need mllm.base_url and mllm.model (an OpenAI-compatible endpoint)")
    key = os.environ.get("DOCSCOPE_API_KEY", "")
    content = [{"type": "text", "text": PROMPT.format(question=question)}]
    for p in pages:
        buf = io.BytesIO()
        Image.fromarray(render_page(pdf_path, p, dpi)).save(buf, format="PNG")
        content.append({"type": "text", "text": f"=== GLOBAL PAGE {p} (start) ==="})
        content.append(
            {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()}}
        )
        content.append({"type": "text", "text": f"=== GLOBAL PAGE {p} (end) ==="})
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": content}], "temperature": 0}).encode()
    request = urllib.request.Request(
        base_url.rstrip("/") + "/chat/completions", data=body,
        headers={"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=timeout) as response:
        reply = json.loads(response.read())
    try:
        text = reply["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise UserError(f"docscope: the endpoint {base_url} answered without choices[0].message.content") from exc
    return parse(text)
