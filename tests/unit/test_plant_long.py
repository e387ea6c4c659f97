"""The long scale (issue #65 item 4): its design composes (all MEDLINE records, 128 word pieces, its own design so
that it decides the claims moved to it), its experiments run end to end in a tiny smoke form, and a claim decided at
long is decided there (by its tests and controls), while at default it names long."""

from __future__ import annotations

import numpy as np
from omegaconf import OmegaConf

from neurips26.common.pipeline.claims import claims_document
from neurips26.common.pipeline.config import compose
from neurips26.papers.plant import experiments, paper_claims
from tests.unit.test_plant_fair import _tables, _tiny_case


def test_long_composes_its_own_design():
    cfg = compose("plant", ["scale=long"])
    default = compose("plant", [])
    assert cfg.scale_name == "long" and cfg.long_design is True
    assert cfg.dataset.n_docs == 15162 and cfg.dataset.n_docs + cfg.dataset.extra_dev <= 15162
    assert cfg.max_tokens == 128 > default.max_tokens
    # the method and its budget are default's: only the data grow
    assert cfg.decoder == default.decoder and list(cfg.controls) == list(default.controls) == ["oracle"]


def test_long_experiments_run_in_a_tiny_smoke_form():
    states, corpus, tiny = _tiny_case(restarts=1)
    long = compose("plant", ["scale=long"])
    # long's settings with the tiny case's sizes: the experiments, variants and controls long runs
    cfg = OmegaConf.merge(
        long,
        {k: tiny[k] for k in ("l2r", "decoder", "thresholds", "tfidf", "inattention_k")},
        {"fractions": [0.5, 1.0], "backbones": {"minilm": {}, "smollm2": {}}},
    )
    for kind, methods in (
        ("main", {"plant", "laat", "oracle"}),
        ("fraction", {"plant", "laat", "oracle"}),
        ("ablation", {"random_relevance"}),
    ):
        rows = experiments.run(kind, "minilm", states, corpus, cfg, 0)[0]
        assert set(rows["method"]) == methods and np.isfinite(rows["macro_f1"]).all()


def test_a_claim_moved_to_long_is_decided_at_long():
    # the oracle's rare gap (0.5 points) fails its 5-point control: rare_labels moves to long
    main, rare, fraction, ablation, paired = _tables(0.05)
    paired["oracle_laat_rare"] = 0.005 + np.array([-0.002, 0.0, 0.002])
    claims, _ = paper_claims.build(main, rare, fraction, ablation, paired)
    at = {
        scale: {e["id"]: e for e in claims_document("plant", compose("plant", [f"scale={scale}"]), claims, {})["claims"]}
        for scale in ("default", "long")
    }
    assert at["default"]["rare_labels"]["decided_at"] == "long"
    assert "decided at scale=long" in at["default"]["rare_labels"]["why_inconclusive"]
    assert "did not pass" in at["long"]["rare_labels"]["why_inconclusive"]  # at long the control itself decides
    assert at["long"]["beats_laat"]["verdict"] == at["default"]["beats_laat"]["verdict"]
