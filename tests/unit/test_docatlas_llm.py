"""The optional LLM agent against a local fake OpenAI-compatible endpoint (never the internet)."""

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from neurips26.common.docbench import doc_benchmark as B
from neurips26.common.pipeline.errors import UserError
from neurips26.papers.docatlas import agents, harness, retrieval, world
from neurips26.papers.docatlas.llm_agent import LLMAgent, parse_action


class _Endpoint(BaseHTTPRequestHandler):
    seen: list = []

    def do_POST(self):  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Endpoint.seen.append((self.headers["Authorization"], body))
        reply = {"choices": [{"message": {"content": 'I will answer. {"tool": "answer", "text": "Not answerable"}'}}]}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_llm_agent_drives_the_harness_through_an_openai_compatible_endpoint(monkeypatch, tmp_path):
    server = HTTPServer(("127.0.0.1", 0), _Endpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("DOCATLAS_TEST_KEY", "secret")
        agent = LLMAgent(f"http://127.0.0.1:{server.server_port}/v1", "any-model", "DOCATLAS_TEST_KEY")
        B.generate(tmp_path, B.Spec(n_docs=1, pages_min=5, pages_max=5, questions_per_doc=2,
                                    unanswerable_fraction=0.5), seed=0)
        (doc,), questions = world.load_generated(tmp_path, "t-", from_pdf=False)
        q = next(q for q in questions if q.qtype == "unanswerable")
        env = harness.DocAtlasEnv(doc, retrieval.Index([b.text for b in doc.blocks], retrieval.HashEncoder()), 96)
        r = agents.run_episode(env, agent, q)
        assert r["prediction"] == "Not answerable" and r["score"] == 1.0 and r["steps"] == 1
        auth, body = _Endpoint.seen[-1]
        assert auth == "Bearer secret" and body["model"] == "any-model" and q.text in body["messages"][1]["content"]
    finally:
        server.shutdown()


def test_missing_key_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("DOCATLAS_NO_KEY", raising=False)
    with pytest.raises(UserError, match="DOCATLAS_NO_KEY"):
        LLMAgent("http://127.0.0.1:1", "m", "DOCATLAS_NO_KEY")


def test_unparsable_reply_becomes_a_review():
    assert parse_action("no json here {") == {"tool": "review"}
    assert parse_action('x {"tool": "read", "ids": ["b1"]} y') == {"tool": "read", "ids": ["b1"]}
