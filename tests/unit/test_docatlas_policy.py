"""The REINFORCE gradient against finite differences, the policy's action mask, the R-manual questions' gold answers,
and the run stage's refusal of data: real."""

from pathlib import Path

import numpy as np
import pytest
from omegaconf import OmegaConf

from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.stage import StageContext
from neurips26.papers.docatlas import manuals, slots
from neurips26.papers.docatlas.agents import N_FEATURES
from neurips26.papers.docatlas.policy import MLPPolicy
from neurips26.papers.docatlas.stages import STAGES


def _objective(pol, record, advantage, entropy):
    total = 0.0
    for x, _, _, a in record:
        p, _ = pol.probs(x, np.array([True, True, True]))
        total += advantage * np.log(p[a]) - entropy * (p * np.log(p)).sum()
    return -total  # the loss whose gradient `grads` returns


def test_reinforce_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    pol = MLPPolicy(rng, hidden=5)
    pol.record = []
    for _ in range(3):
        pol(rng.normal(size=N_FEATURES), np.array([True, True, True]))
    record = pol.record
    g = pol.grads(record, advantage=0.7, entropy=0.05)
    for key in ("w1", "b2"):
        flat = pol.params[key].reshape(-1)
        for i in range(0, flat.size, max(1, flat.size // 6)):
            old = flat[i]
            flat[i] = old + 1e-6
            up = _objective(pol, record, 0.7, 0.05)
            flat[i] = old - 1e-6
            down = _objective(pol, record, 0.7, 0.05)
            flat[i] = old
            assert g[key].reshape(-1)[i] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-7)


def test_masked_action_is_never_chosen():
    pol = MLPPolicy(np.random.default_rng(1))
    mask = np.array([False, True, True])
    assert all(pol(np.ones(N_FEATURES), mask) != 0 for _ in range(200))


@pytest.mark.skipif(not (manuals.MANUAL_DIR / "R-data.pdf").is_file(), reason="r-doc-pdf is not installed")
def test_manual_questions_have_their_gold_in_the_evidence_blocks():
    doc, outline, headings = manuals.load_manual(manuals.MANUAL_DIR / "R-data.pdf")
    assert doc.pages >= 40 and len(headings) > 20
    qs = manuals.make_manual_questions(np.random.default_rng(0), doc, outline, headings, ["Not a title here"], 20,
                                       [0.4, 0.4, 0.2])
    by_id = {b.id: b for b in doc.blocks}
    for q in qs:
        texts = [by_id[b].text for b in q.evidence_blocks]
        assert slots.read_context(slots.parse(q.text), texts) == q.answer


def test_missing_manual_is_a_clear_error(tmp_path):
    with pytest.raises(UserError, match="r-doc-pdf"):
        manuals.load_manual(tmp_path / "R-intro.pdf")


def test_real_data_is_refused_without_output(tmp_path):
    cfg = OmegaConf.load(Path(__file__).parents[2] / "config" / "docatlas" / "config.yaml")
    cfg.data = "real"
    outs = [tmp_path / "e.csv", tmp_path / "c.csv", tmp_path / "t.jsonl.gz"]
    with pytest.raises(UserError, match="not wired"):
        STAGES["run"](StageContext("docatlas", cfg, [], outs, 0))
    assert not any(p.exists() for p in outs)


@pytest.mark.slow
def test_a_seed_gives_the_same_episodes_twice():
    from neurips26.common.pipeline.config import compose
    from neurips26.papers.docatlas import experiments

    cfg = compose("docatlas", ["scale=tiny", "manuals.enabled=false", "corpus.pdf=false", "corpus.questions_per_doc=8"])
    first, curve1, _ = experiments.run(cfg, 5)
    second, curve2, _ = experiments.run(cfg, 5)
    assert first.equals(second) and curve1.equals(curve2)
    assert set(first["agent"]) == {"direct", "static_rag", "harness", "no_notes", "no_review", "no_refine", "rl_policy",
                                 "rl_init"}


def test_the_convergence_rule_compares_windows_of_passes():
    from neurips26.papers.docatlas.policy import plateaued

    rising = [0.1 * i for i in range(8)]
    assert not plateaued(rising, window=4, min_delta=0.005)
    assert not plateaued(rising[:7], window=4, min_delta=0.005)  # too few passes to compare two windows
    flat = [0.5, 0.6, 0.7, 0.8, 0.80, 0.81, 0.79, 0.80]
    assert not plateaued(flat, window=4, min_delta=0.005)  # 0.80 vs 0.65: still learning
    assert plateaued(flat + [0.80, 0.80, 0.81, 0.79], window=4, min_delta=0.005)  # 0.80 vs 0.80
