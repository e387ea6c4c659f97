"""Stages through the CLI: outputs written, bad input refused clearly with no partial output."""

import gzip
import hashlib
import json

import pandas as pd
import pytest

from neurips26.cli import main

TINY = ["scale=tiny", "seeds=[0]", "queries.per_type=3", "corpus.studies=12", "corpus.conflicts=2", "cohort.n=500"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    paths = [out / f"{k}.csv" for k in ("kernels", "queries", "conflicts")]
    assert main(["causal_compile", "run", "--seed", "0", "--output", *map(str, paths), *TINY]) == 0
    return paths


def test_run_writes_the_three_run_files(runs):
    kernels, queries, conflicts = (pd.read_csv(p) for p in runs)
    assert len(kernels) >= 12 and kernels["injected_conflict"].sum() == 2
    assert set(queries["method"]) == {"compiled", "naive", "pooled", "retrieval"}
    assert not queries.loc[queries["method"] == "retrieval", "executable"].any()
    assert conflicts["default"].sum() == 1


def test_tables_figures_and_claims_from_the_runs(runs, tmp_path):
    tables = [tmp_path / "tables" / f"{t}.csv" for t in ("main", "conversion_bias", "conflict_pr", "executability",
                                               "cohort_validation")]
    assert main(["causal_compile", "tables", "--input", *map(str, runs), "--output", *map(str, tables), *TINY]) == 0
    main_table = pd.read_csv(tables[0])
    assert set(main_table["method"]) == {"compiled", "naive", "pooled", "retrieval"}
    figures = [tmp_path / "figures" / f"{f}.png" for f in ("conversion_bias_vs_p0", "conflict_pr",
                                                           "executability_by_query", "cohort_validation")]
    for figure, table in zip(figures, tables[1:]):
        assert main(["causal_compile", f"figure_{figure.stem}", "--input", str(table), "--output", str(figure),
                     *TINY]) == 0
    assert all(f.stat().st_size > 1000 for f in figures)
    real = tmp_path / "tables" / "real_text.csv"
    pd.DataFrame({"metric": ["abstracts", "statements", "schema_valid", "recall", "precision"],
                  "value": [1, 2, 2, 0.5, 1.0]}).to_csv(real, index=False)
    claims = tmp_path / "claims.json"
    assert main(["causal_compile", "claims", "--input", *map(str, tables), str(real), str(runs[0]), "--output",
                 str(claims), str(tmp_path / "metrics.json"), *TINY]) == 0
    doc = json.loads(claims.read_text())
    assert [c["id"] for c in doc["claims"]] == ["canonicalisation", "conflict_recall", "executability",
                                               "naive_bias_grows", "cohort_agreement", "paper_scale"]
    assert doc["claims"][-1]["holds"] is None and "why_untested" in doc["claims"][-1]


def test_data_real_is_refused(tmp_path, capsys):
    out = [str(tmp_path / f"{k}.csv") for k in ("kernels", "queries", "conflicts")]
    assert main(["causal_compile", "run", "--seed", "0", "--output", *out, "data=real", *TINY]) == 2
    assert "data: real is not wired" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_tables_need_every_run_kind(runs, tmp_path, capsys):
    out = [str(tmp_path / f"{t}.csv") for t in ("main", "conversion_bias", "conflict_pr", "executability",
                                                 "cohort_validation")]
    assert main(["causal_compile", "tables", "--input", str(runs[0]), "--output", *out, *TINY]) == 2
    assert "kernels.csv queries.csv conflicts.csv" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_a_truncated_medline_file_fails_clearly_and_writes_nothing(tmp_path, capsys):
    raw = tmp_path / "raw"
    raw.mkdir()
    payload = gzip.compress(b"<PubmedArticleSet><PubmedArticle>" * 2000)
    (raw / "pubmed.xml.gz").write_bytes(payload[: len(payload) // 2])
    digest = hashlib.sha256(payload[: len(payload) // 2]).hexdigest()  # recorded: the verifier passes, the reader fails
    (raw / "provenance.json").write_text(json.dumps({"dataset": "causal_compile_pubmed", "mode": "embedded",
                                                     "files": {"pubmed.xml.gz": {"sha256": digest}}}))
    gold = tmp_path / "gold.csv"
    gold.write_text("pmid,kind,scale,estimate,ci_low,ci_high,arm_a,arm_b,note\n1,none,,,,,,,\n")
    out = [tmp_path / "out" / "statements.csv", tmp_path / "out" / "real_text.csv"]
    assert main(["causal_compile", "real_text", "--input", str(raw / "provenance.json"), str(gold), "--output",
                 *map(str, out), *TINY]) == 2
    assert "pubmed.xml.gz: cannot read the MEDLINE file" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
