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


@pytest.mark.slow
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
                                               "naive_bias_grows", "cohort_agreement", "paper_scale",
                                               "auditable_reasoning"]
    assert doc["contract"] == 2 and all(c["verdict"] == "inconclusive" for c in doc["claims"])
    assert "decided at scale=default" in doc["claims"][0]["why_inconclusive"]
    assert "754-study" in doc["claims"][-2]["why_inconclusive"]


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


def _main_table(accuracy=(0.99, 0.985, 0.992), naive=(0.71, 0.72, 0.70), recall=(1.0, 1.0, 1.0),
                agreement=(0.94, 0.95, 0.93), rho=(0.9, 0.85, 0.8)) -> pd.DataFrame:
    rows = []
    for seed in ("all", 0, 1, 2):
        k = 0 if seed == "all" else seed

        def pick(v, k=k, seed=seed):
            return sum(v) / 3 if seed == "all" else v[k]

        rows.append({"seed": seed, "method": "compiled", "kernels": 300, "studies": 150,
                     "canonical_accuracy": pick(accuracy), "exact_conversion_accuracy": 1.0, "malformed_rejected": 1.0,
                     "conflict_recall": pick(recall), "conflict_precision": 0.97, "executability": 0.46 + 0.01 * k,
                     "do_sign_vs_cohort": pick(agreement), "do_sign_vs_truth": 1.0, "do_executable": 40,
                     "naive_bias_rho": pick(rho), "naive_bias_max": 0.18 + 0.01 * k, "compiled_bias_max": 0.02})
        for method in ("naive", "pooled"):
            rows.append({"seed": seed, "method": method, "canonical_accuracy": pick(naive) if method == "naive"
                         else float("nan"), "executability": 0.5, "do_sign_vs_cohort": 0.94})
    return pd.DataFrame(rows)


def _build(main_table, scale="default"):
    from omegaconf import OmegaConf

    from neurips26.common.config import compose
    from neurips26.papers.causal_compile import paper_claims

    cfg = compose("causal_compile", ["scale=tiny"])
    bias = pd.DataFrame({"source": ["measured"] * 4, "scale": "OR", "p0": [0.05, 0.15, 0.25, 0.35],
                         "naive_bias": [0.01, 0.05, 0.1, 0.18], "compiled_bias": 0.01})
    execut = pd.DataFrame({"type": ["do", "joint"], "method": "compiled", "queries": 40, "executable": [0.6, 0.3],
                           "not_executable_with_named_kernels": [1.0, 1.0], "median_abs_error": 0.02})
    real = pd.DataFrame({"metric": ["abstracts", "statements", "schema_valid", "recall", "precision"],
                         "value": [162, 24, 22, 0.575, 1.0]})
    claims, _ = paper_claims.build(main_table, bias, None, execut, None, real, 1.0, OmegaConf.create(cfg))
    return {c.id: c.to_json(scale, "embedded") for c in claims}


def test_claims_from_hand_made_tables_hold_and_fail():
    claims = _build(_main_table())
    assert {k: c["verdict"] for k, c in claims.items()} == {
        "canonicalisation": "holds", "conflict_recall": "holds", "executability": "inconclusive",
        "naive_bias_grows": "holds", "cohort_agreement": "holds", "paper_scale": "inconclusive",
        "auditable_reasoning": "inconclusive"}
    # executability is decided on the real corpus only; the embedded tests still run and are shown
    assert claims["executability"]["outcome"] == "holds" and "data=real" in claims["executability"]["why_inconclusive"]
    assert [c["passed"] for c in claims["canonicalisation"]["controls"]] == [True, True]
    assert set(claims["canonicalisation"]["per_seed"]) == {"0", "1", "2"}
    # a compiler below the bar on every seed fails; one missed conflict on one seed fails the 100% recall
    low = _build(_main_table(accuracy=(0.90, 0.91, 0.89), recall=(1.0, 0.95, 1.0), agreement=(0.80, 0.82, 0.79)))
    assert low["canonicalisation"]["verdict"] == "fails" and low["conflict_recall"]["verdict"] == "fails"
    assert low["cohort_agreement"]["verdict"] == "fails"
    # naive conversion as good as the compiler: the negative control does not pass, the claim is inconclusive
    leak = _build(_main_table(naive=(0.99, 0.985, 0.992)))["canonicalisation"]
    assert leak["outcome"] == "holds" and leak["verdict"] == "inconclusive"
    assert "'naive_conversion' did not pass" in leak["why_inconclusive"]
    # a seed spread that straddles the bound is inconclusive
    assert _build(_main_table(rho=(0.9, 0.2, 0.7)))["naive_bias_grows"]["verdict"] == "inconclusive"
