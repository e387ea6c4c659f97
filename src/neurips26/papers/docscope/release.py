"""The DocScope release (Hugging Face dataset `MiliLab/DocScope`) read from its official layout, for `scale=paper
data=real` (issue #58 item 7; nothing in the default DAG calls it yet).

Layout (the official `code/infer/benchmark_io.py` and `code/eval/*`): `<root>/benchmark.json`, a list of questions
    {"id", "split": "test" | "dev", "pdf": {"doc_id_str"}, "question", "answer": {"answer_text", "is_answerable"},
     "evidences": [{"local_id", "page" (1-based), "bbox" (pixels of the page rendered at 144 dpi), "element_type"}],
     "facts": [{"local_id", "evidence_local_id", "text_description", "key_entity", "key_value"}]}
and `<root>/pdfs/<doc_id_str>.pdf`. `load` turns them into the question records the scorers take (boxes in PDF points,
top-left origin; one fact key per fact, on the page of its evidence) and checks every file against a pinned sha256
manifest when one is given (the fetch step records it; a changed file is an error, never silently used).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from neurips26.common.pipeline.errors import UserError

GOLD_DPI = 144.0  # the official gold boxes are pixels of the page rendered at 144 dpi (render_eval_page.py)


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _verify(root: Path, manifest: dict[str, str]) -> None:
    for rel, want in manifest.items():
        path = root / rel
        if not path.is_file():
            raise UserError(f"DocScope release: {rel} is missing under {root}")
        if sha256(path) != want:
            raise UserError(f"DocScope release: {rel} does not match its pinned sha256 (the release changed?)")


def _question(entry: dict, root: Path) -> dict:
    try:
        doc_id = entry["pdf"]["doc_id_str"]
        evidences = entry.get("evidences") or []
        scale = 72.0 / GOLD_DPI
        evidence = [{"page": int(e["page"]), "local_id": e.get("local_id"), "kind": e.get("element_type", ""),
                     "bbox": [float(v) * scale for v in e["bbox"]]} for e in evidences]  # fmt: skip
        page_of = {e["local_id"]: e["page"] for e in evidence if e["local_id"]}
        fact_keys = [{"page": page_of[f["evidence_local_id"]], "text": f.get("text_description", ""),
                      "entity": str(f.get("key_entity") or ""), "value": str(f.get("key_value") or "")}
                     for f in entry.get("facts") or [] if f.get("evidence_local_id") in page_of]  # fmt: skip
        answer = entry["answer"]
        return {
            "qid": str(entry["id"]), "split": entry.get("split", ""), "doc_id": doc_id,
            "doc_path": str(root / "pdfs" / f"{doc_id}.pdf"), "question": entry["question"],
            "answer": str(answer.get("answer_text", "")), "answerable": bool(answer.get("is_answerable", True)),
            "evidence": evidence, "fact_keys": fact_keys, "n_evidence": len(evidence),
        }  # fmt: skip
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"DocScope release: question {entry.get('id')!r} is malformed ({exc!r})") from exc


def load(root: str | Path, split: str | None = None, manifest: dict[str, str] | None = None) -> list[dict]:
    """The questions of `split` ('test', 'dev' or None for all), each with its PDF present."""
    root = Path(root)
    if manifest:
        _verify(root, manifest)
    path = root / "benchmark.json"
    if not path.is_file():
        raise UserError(f"DocScope release: no benchmark.json under {root}")
    raw = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(raw, list):
        raise UserError("DocScope release: benchmark.json is not a list of questions")
    out = [_question(e, root) for e in raw if split is None or e.get("split") == split]
    missing = sorted({q["doc_id"] for q in out if not Path(q["doc_path"]).is_file()})
    if missing:
        raise UserError(f"DocScope release: {len(missing)} PDF(s) missing under {root / 'pdfs'}, e.g. {missing[0]}")
    return out
