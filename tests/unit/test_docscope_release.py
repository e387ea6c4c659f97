"""docscope data=real: the DocScope release read from a local stand-in in the official layout (benchmark.json + pdfs/;
never the internet): splits, 144-dpi pixel boxes to PDF points, fact keys on their evidence page, pinned sha256, and an
oracle trajectory scored through the official stages."""

import json

import pytest
from omegaconf import OmegaConf

from neurips26.common.docbench import documents as D
from neurips26.common.pipeline.errors import UserError
from neurips26.papers.docscope import release
from neurips26.papers.docscope.experiments import score
from neurips26.papers.docscope.trajectory import Citation, Trajectory, parse, render


@pytest.fixture
def stand_in(tmp_path):
    (tmp_path / "pdfs").mkdir()
    b = D.PdfBuilder()
    b.add_paragraph("Ward A has an overall score of 65%.")
    b.save(tmp_path / "pdfs" / "urnuuid-1.pdf")
    entry = {"id": "q1", "split": "dev", "pdf": {"doc_id_str": "urnuuid-1"}, "question": "Overall score of Ward A?",
             "answer": {"answer_text": "65%", "is_answerable": True},
             "evidences": [{"local_id": "e1", "page": 1, "bbox": [144, 144, 1000, 200], "element_type": "text"}],
             "facts": [{"local_id": "f1", "evidence_local_id": "e1", "key_entity": "Ward A", "key_value": "65%",
                        "text_description": "Ward A has an overall score of 65%."}]}  # fmt: skip
    other = {**entry, "id": "q2", "split": "test", "answer": {"answer_text": "Unanswerable", "is_answerable": False},
             "evidences": [], "facts": []}  # fmt: skip
    (tmp_path / "benchmark.json").write_text(json.dumps([entry, other]))
    return tmp_path


def test_release_layout_loads_and_scores(stand_in):
    dev = release.load(stand_in, "dev")
    assert [q["qid"] for q in dev] == ["q1"] and len(release.load(stand_in)) == 2
    q = dev[0]
    assert q["evidence"][0]["bbox"] == pytest.approx([72, 72, 500, 100])  # 144 dpi pixels -> points
    assert q["fact_keys"] == [{"page": 1, "text": "Ward A has an overall score of 65%.", "entity": "Ward A",
                               "value": "65%"}]  # fmt: skip
    cfg = OmegaConf.create({"judges": {"covered": 0.9, "imprecise": 0.1}})
    box = (72 / 612, 72 / 792, 500 / 612, 100 / 792)
    good = parse(render(Trajectory([Citation(1, "1", box, "Ward A has an overall score of 65%")], "65%")))
    row = score(q, good, (612.0, 792.0), cfg)
    assert row["n_fact_judged"] == 1 and row["n_consistent"] == 1 and row["chain_complete"]
    wrong = parse(render(Trajectory([Citation(1, "1", box, "Ward B has an overall score of 65%")], "65%")))
    assert score(q, wrong, (612.0, 792.0), cfg)["n_consistent"] == 0  # right value, wrong object


def test_release_checks_pins_and_files(stand_in):
    pins = {"benchmark.json": release.sha256(stand_in / "benchmark.json")}
    assert len(release.load(stand_in, manifest=pins)) == 2
    with pytest.raises(UserError, match="pinned sha256"):
        release.load(stand_in, manifest={"benchmark.json": "0" * 64})
    (stand_in / "pdfs" / "urnuuid-1.pdf").unlink()
    with pytest.raises(UserError, match="PDF"):
        release.load(stand_in)
