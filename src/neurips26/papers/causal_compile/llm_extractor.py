"""An LLM extractor of effect statements behind an OpenAI-compatible chat endpoint (issue 56 item 7, the paper's
extractor): the prompt states the held-out protocol's definitions, the reply is JSON, each statement is checked and
returned in the rule-based extractor's shape, so `real_gold.score(..., extract=...)` scores it on the same gold set.
Not wired into the pipeline yet (no endpoint here); the API key is read from CAUSAL_COMPILE_API_KEY at call time and
never written anywhere."""

from __future__ import annotations

import json
import math
import os
import urllib.request
from collections.abc import Callable

KEY_ENV = "CAUSAL_COMPILE_API_KEY"
KINDS = {"ratio", "percent_pair", "relative_reduction"}
SCALES = {"HR", "OR", "RR", "rate_ratio"}
PROMPT = (
    "List every comparative effect estimate of a binary, event or rate outcome between two groups in the abstract "
    "below. Kinds: 'ratio' (hazard, odds, risk or rate ratio, with its 95% CI when given; 'direction': -1 when the "
    "ratio is stated inverted, as in '3 times less likely'), 'percent_pair' (the percentages of the same outcome in "
    "two groups: arm_a the group named first, arm_b the other), 'relative_reduction' (a relative change of risk, "
    "odds, hazard or rate in percent, signed: -30 for '30% lower'). 'scale' is HR, OR, RR or rate_ratio (RR for "
    "pairs and changes of risk). Give the numbers as written. Answer only with JSON: "
    '{"statements": [{"kind": ..., "scale": ..., "estimate": ..., "ci_low": ..., "ci_high": ..., "arm_a": ..., '
    '"arm_b": ..., "direction": 1}]} (null for what the statement does not give).\n\nAbstract:\n'
)


def request_body(model: str, text: str) -> dict:
    return {"model": model, "temperature": 0, "messages": [{"role": "user", "content": PROMPT + text}]}


def chat(base_url: str, body: dict, timeout: float = 120.0) -> str:
    """POST to {base_url}/chat/completions; the reply's first message content."""
    headers = {"Content-Type": "application/json"}
    key = os.environ.get(KEY_ENV, "")
    if key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(
        base_url.rstrip("/") + "/chat/completions", data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())["choices"][0]["message"]["content"]


def _number(x) -> float | None:
    if x is None:
        return None
    value = float(x)
    return value if math.isfinite(value) else None


def parse_reply(pmid: str, content: str) -> list[dict]:
    """The statements of a reply (a ```json fence is allowed); a statement of unknown kind or scale, or without the
    numbers its kind needs, is dropped. A reply that is not the promised JSON raises ValueError."""
    text = content.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    statements = json.loads(text)["statements"]
    out = []
    for s in statements:
        kind, scale = s.get("kind"), s.get("scale")
        if kind not in KINDS or scale not in SCALES:
            continue
        row = {
            "pmid": pmid,
            "kind": kind,
            "scale": scale,
            "direction": -1 if s.get("direction") == -1 else 1,
            "span": json.dumps(s),
        }
        row.update({k: _number(s.get(k)) for k in ("estimate", "ci_low", "ci_high", "arm_a", "arm_b")})
        needed = ("arm_a", "arm_b") if kind == "percent_pair" else ("estimate",)
        if all(row[k] is not None for k in needed):
            out.append(row)
    return out


def extractor(base_url: str, model: str, send: Callable[[str, dict], str] = chat) -> Callable[[str, str], list]:
    """extract(pmid, text) for `real_gold.score`: one request per abstract."""

    def extract(pmid: str, text: str) -> list[dict]:
        return parse_reply(pmid, send(base_url, request_body(model, text)))

    return extract
