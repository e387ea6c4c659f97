"""docscope scale: paper: the OpenAI-compatible client against a local HTTP server (never the internet); the key comes
from the environment and goes only into the Authorization header."""

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from omegaconf import OmegaConf

from neurips26.common.docbench import documents as D
from neurips26.common.pipeline.errors import UserError
from neurips26.papers.docscope import mllm
from neurips26.papers.docscope.trajectory import TrajectoryError


def _serve(reply_text):
    seen = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen["auth"], seen["body"] = self.headers.get("Authorization"), body
            out = json.dumps({"choices": [{"message": {"content": reply_text}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, seen


@pytest.fixture
def pdf(tmp_path):
    b = D.PdfBuilder()
    b.add_paragraph("Coastal division revenue in 2019: 4,812.")
    b.save(tmp_path / "d.pdf")
    return tmp_path / "d.pdf"


def test_endpoint_round_trip(pdf, monkeypatch):
    server, seen = _serve(
        'Coastal revenue in 2019 was 4,812 [page=1, doc_page="1", bbox=[0.1, 0.05, 0.6, 0.1]].\n<answer>4812</answer>'
    )
    monkeypatch.setenv("DOCSCOPE_API_KEY", "secret-key")
    cfg = OmegaConf.create({"mllm": {"base_url": f"http://127.0.0.1:{server.server_port}/v1", "model": "m"}})
    t = mllm.ask(cfg, pdf, [1], "What was the revenue of the Coastal division in 2019?")
    server.shutdown()
    assert t.answer == "4812" and t.pages == [1] and t.citations[0].unit == "Coastal revenue in 2019 was 4,812"
    assert seen["auth"] == "Bearer secret-key"
    assert any(part.get("type") == "image_url" for part in seen["body"]["messages"][0]["content"])
    assert "secret-key" not in json.dumps(seen["body"])


def test_malformed_reply_and_missing_config(pdf):
    server, _ = _serve("I think it is 4812")
    cfg = OmegaConf.create({"mllm": {"base_url": f"http://127.0.0.1:{server.server_port}", "model": "m"}})
    with pytest.raises(TrajectoryError):
        mllm.ask(cfg, pdf, [1], "q?")
    server.shutdown()
    with pytest.raises(UserError, match="base_url"):
        mllm.ask(OmegaConf.create({"mllm": {"base_url": None, "model": None}}), pdf, [1], "q?")
