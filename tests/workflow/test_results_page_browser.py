"""results/all/index.html in a real headless Chromium: every image decodes, every claim is on the page, and the page asks
the network for nothing.

A copy of the page gets a Content-Security-Policy that allows only inline styles and data: images, and a probe that
records every load the policy blocks (any http(s), font, stylesheet, script or frame the page would fetch). The browser's
own traffic (time sync, updater) goes to a local proxy that answers 502, so nothing leaves the machine."""

import csv
import json
import os
import shutil
import socket
import subprocess
import threading

import pytest

pytestmark = pytest.mark.workflow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Put first in the page's <head>: the policy, then a probe that collects blocked loads and, after load, writes what the
# browser saw into the DOM, which --dump-dom prints.
PROBE = """<meta http-equiv="Content-Security-Policy"
  content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<script>const blocked = [];
document.addEventListener("securitypolicyviolation", e => blocked.push(e.blockedURI + " (" + e.violatedDirective + ")"));
window.addEventListener("load", () => {
  const images = [...document.images].map(i => ({alt: i.alt, ok: i.complete && i.naturalWidth > 0}));
  const counts = {};
  document.querySelectorAll("tr[data-paper]").forEach(r => { counts[r.dataset.paper] = {};
    r.querySelectorAll("td[data-count]").forEach(c => counts[r.dataset.paper][c.dataset.count] = +c.textContent); });
  const links = [...document.querySelectorAll("a[href]")].map(a => a.getAttribute("href"));
  const filtered = {};
  if (typeof filterVerdict === "function") {
    for (const v of ["holds", "fails", "inconclusive", "sanity", "all"]) { filterVerdict(v);
      filtered[v] = [...document.querySelectorAll("tr.claim")].filter(r => r.offsetParent !== null)
        .map(r => r.dataset.verdict); }
  }
  const out = document.createElement("pre"); out.id = "browser-probe";
  out.textContent = JSON.stringify({images, blocked, counts, links, filtered, text: document.body.innerText});
  document.body.appendChild(out);
});</script>"""


class RecordingProxy:
    """A TCP listener standing in for an HTTP proxy: records the first line of every request, answers 502."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.requests = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            with connection:
                connection.settimeout(2)
                try:
                    self.requests.append(connection.recv(4096).split(b"\r\n", 1)[0].decode(errors="replace"))
                    connection.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                except OSError:
                    pass

    def close(self):
        self.server.close()


def render(tree, workdir):
    """Load <tree>/results/all/index.html (with the probe) in headless Chromium; what the probe saw."""
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: config/debian-packages.txt lists it for the tests (tools/debian_packages.py)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    workdir.mkdir(parents=True, exist_ok=True)
    page = workdir / "index.html"
    tiny_run = tree
    original = (tiny_run / "results/all/index.html").read_text()
    assert "<head>" in original
    page.write_text(original.replace("<head>", "<head>" + PROBE, 1))
    proxy = RecordingProxy()
    try:
        result = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-default-apps", "--disable-extensions", f"--user-data-dir={page.parent / 'profile'}",
             f"--proxy-server=http://127.0.0.1:{proxy.port}", "--proxy-bypass-list=<-loopback>",
             "--virtual-time-budget=10000", "--dump-dom", page.as_uri()],
            capture_output=True, text=True, timeout=180)
    finally:
        proxy.close()
    assert result.returncode == 0, result.stderr[-2000:]
    marker = '<pre id="browser-probe">'
    assert marker in result.stdout, "the page's load event never ran in the browser"
    probe = result.stdout.split(marker, 1)[1].split("</pre>", 1)[0]
    probe = probe.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&")
    return json.loads(probe)


def test_the_page_makes_no_network_request(browser_view):
    assert browser_view["blocked"] == [], f"the results page tried to load {browser_view['blocked']}"


def test_the_network_probe_catches_a_page_that_loads_from_the_network(tmp_path):
    """Positive control: the same probe on a page with a remote stylesheet and image reports both."""
    (tmp_path / "results/all").mkdir(parents=True)
    (tmp_path / "results/all/index.html").write_text(
        "<!doctype html><html><head><link rel=stylesheet href='https://cdn.example.org/x.css'></head>"
        "<body><img alt=remote src='http://example.org/a.png'></body></html>")
    view = render(tmp_path, tmp_path / "page")
    assert len(view["blocked"]) == 2 and [i["ok"] for i in view["images"]] == [False]


def test_every_figure_decodes_in_the_browser(browser_view, tiny_run):
    view = browser_view
    promised = sum(1 for _ in tiny_run.glob("results/*/figures/*.png"))
    broken = [image["alt"] for image in view["images"] if not image["ok"]]
    assert not broken, f"images that do not decode: {broken}"
    assert len(view["images"]) >= promised > 0


def _claims_csv(tiny_run):
    with open(tiny_run / "results/all/claims.csv") as handle:
        return list(csv.DictReader(handle))


def test_every_claim_and_the_summary_table_are_on_the_rendered_page(browser_view, tiny_run):
    view = browser_view
    claims = _claims_csv(tiny_run)
    missing = [f"{c['paper_id']}:{c['claim_id']}" for c in claims if c["claim_id"] not in view["text"]]
    assert claims and not missing, f"claims missing from the rendered page: {missing}"
    assert "scale=tiny is plumbing only" in view["text"], "the tiny run's page must carry the scale banner"


def test_the_summary_counts_each_papers_verdicts(browser_view, tiny_run):
    expected = {}
    for claim in _claims_csv(tiny_run):
        key = "sanity" if claim["kind"] == "sanity" else claim["verdict"]
        counts = expected.setdefault(claim["paper_id"], dict.fromkeys(("holds", "fails", "inconclusive", "sanity"), 0))
        counts[key] += 1
    assert browser_view["counts"] == expected


def test_every_link_on_the_page_opens_a_file_of_the_run(browser_view, tiny_run):
    links = [h for h in browser_view["links"] if not h.startswith("#")]
    assert any(h.endswith("/config.yaml") for h in links) and any("/tables/" in h for h in links)
    broken = [h for h in links if not (tiny_run / "results/all" / h).resolve().is_file()]
    assert not broken, f"links to files that do not exist: {broken}"


def test_the_verdict_filter_shows_exactly_the_chosen_verdict(browser_view, tiny_run):
    filtered = browser_view["filtered"]
    claims = _claims_csv(tiny_run)
    assert len(filtered["all"]) == len(claims)
    for verdict in ("holds", "fails", "inconclusive", "sanity"):
        want = sum(1 for c in claims if ("sanity" if c["kind"] == "sanity" else c["verdict"]) == verdict)
        assert filtered[verdict] == [verdict] * want, verdict


@pytest.fixture(scope="module")
def browser_view(tiny_run, tmp_path_factory):
    return render(tiny_run, tmp_path_factory.mktemp("page"))
