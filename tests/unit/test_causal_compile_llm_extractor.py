"""The LLM extractor path (issue 56 item 7, not wired): request, reply parsing, and scoring on a gold set through the
same code as the rule-based extractor; the endpoint is a local stub (no network)."""

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pandas as pd
import pytest

from neurips26.papers.causal_compile import llm_extractor, real_gold

GOLD = [
    {"kind": "ratio", "scale": "OR", "estimate": 6.67, "ci_low": 1.67, "ci_high": 25.0, "direction": -1},
    {"kind": "percent_pair", "scale": "RR", "arm_a": 9.8, "arm_b": 40.0, "direction": 1},
    {"kind": "relative_reduction", "scale": "OR", "estimate": -4.0, "direction": 1},
]


def _gold_frame() -> pd.DataFrame:
    cols = ("estimate", "ci_low", "ci_high", "arm_a", "arm_b")
    return pd.DataFrame([{"pmid": "7", **{c: None for c in cols}, **g} for g in GOLD])


def test_an_llm_reply_with_the_gold_statements_scores_perfectly_through_the_same_scoring():
    reply = "```json\n" + json.dumps({"statements": GOLD}) + "\n```"
    extract = llm_extractor.extractor("http://stub", "m", send=lambda url, body: reply)
    _, s = real_gold.score([{"pmid": "7", "text": "any"}], _gold_frame(), extract=extract)
    assert (s["found"], s["extracted"], s["canonical_correct_compiled"]) == (3, 3, 3)
    # the same reply without the inverted direction gets the ratio's canonical value wrong
    wrong = json.dumps({"statements": [{**GOLD[0], "direction": 1}, *GOLD[1:]]})
    extract = llm_extractor.extractor("http://stub", "m", send=lambda url, body: wrong)
    _, s = real_gold.score([{"pmid": "7", "text": "any"}], _gold_frame(), extract=extract)
    assert (s["found"], s["canonical_correct_compiled"]) == (3, 2)


def test_reply_parsing_drops_malformed_statements_and_refuses_non_json():
    reply = json.dumps(
        {
            "statements": [
                {"kind": "ratio", "scale": "SMR", "estimate": 1.2},
                {"kind": "percent_pair", "scale": "RR", "arm_a": 10},
                {"kind": "mean_difference", "scale": "RR", "estimate": 2},
                {"kind": "ratio", "scale": "HR", "estimate": "1.5", "ci_low": None},
            ]
        }
    )
    rows = llm_extractor.parse_reply("1", reply)
    assert [(r["kind"], r["scale"], r["estimate"]) for r in rows] == [("ratio", "HR", 1.5)]
    with pytest.raises(ValueError):
        llm_extractor.parse_reply("1", "I found two hazard ratios.")


def test_chat_posts_to_the_endpoint_with_the_key_from_the_environment(monkeypatch):
    seen = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's name)
            seen["path"], seen["auth"] = self.path, self.headers.get("Authorization")
            seen["body"] = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            payload = json.dumps({"choices": [{"message": {"content": '{"statements": []}'}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.handle_request, daemon=True).start()
    monkeypatch.setenv(llm_extractor.KEY_ENV, "k-test")
    try:
        extract = llm_extractor.extractor(f"http://127.0.0.1:{server.server_port}/v1", "model-x")
        assert extract("1", "Death: HR 0.80.") == []
    finally:
        server.server_close()
    assert seen["path"] == "/v1/chat/completions" and seen["auth"] == "Bearer k-test"
    assert seen["body"]["model"] == "model-x" and seen["body"]["messages"][0]["content"].endswith("Death: HR 0.80.")
