"""One check for the papers' claims tests: the claims.json document a list of claims makes at default scale validates
against workflow/schemas/claims.schema.json and matches the paper's registered claims (config/claims/<id>.yaml)."""

from types import SimpleNamespace

from neurips26.common.pipeline.claims import check_registered, claims_document, validate_claims

PROVENANCE = {"commit": None, "dirty": None, "python": "3", "packages": {}, "scale": "default", "data": "embedded",
              "seeds": [0, 1, 2], "config_sha256": None, "inputs": {}}


def checked_document(paper_id: str, claims: list, tmp_path, seeds=(0, 1, 2)) -> dict:
    """The document, after the schema and registry checks; the evidence files the claims cite are stubbed under
    tmp_path (the check that they exist is the claims stage's, tested in test_claims)."""
    for path in {e for c in claims for e in c.evidence}:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x")
    cfg = SimpleNamespace(scale_name="default", data="embedded", seeds=list(seeds))
    document = claims_document(paper_id, cfg, claims, {**PROVENANCE, "seeds": list(seeds)})
    validate_claims(document, base=tmp_path)
    check_registered(document)
    return document
