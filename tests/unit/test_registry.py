import pytest

from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.registry import get_paper, load_papers, selected_papers
from tests.conftest import mark_planned

CONTRACT_IDS = ["plant", "mec_mmd", "ensemble_mi", "zo_dominant_layer", "hyperidac", "rldp", "wd_eos", "kondo_gate",
                "sparse_eos", "mixup_minority", "cytometry_encoder", "prequential_mdl", "dodge_it", "docscope", "docptbench",
                "docatlas", "dofp_lut", "causal_compile", "mental_imagery"]


def test_registry_lists_the_contract_ids_in_seed_order(repo_root):
    papers = load_papers(repo_root)
    assert [p.id for p in papers] == CONTRACT_IDS
    assert [p.seed_index for p in papers] == list(range(1, 20))


def test_every_implemented_paper_has_rules_config_and_package(repo_root):
    """A planned paper may have all of these too (`python -m neurips26 new-paper` writes them): the Snakefile includes
    only implemented papers' rule files (tests/workflow/test_scaffold.py dry-runs a scaffolded one)."""
    for paper in [p for p in load_papers(repo_root) if p.implemented]:
        files = [repo_root / "workflow/rules" / f"{paper.id}.smk", repo_root / "config" / paper.id / "config.yaml",
                 repo_root / "src/neurips26/papers" / paper.id / "README.md"]
        assert all(f.is_file() for f in files), paper.id
        assert paper.figures and paper.tables, f"{paper.id} promises no artifacts"


def test_unknown_and_planned_ids_are_refused_with_the_known_ids(repo_root, tmp_path):
    with pytest.raises(UserError, match="unknown paper id 'nope'.*mec_mmd"):
        get_paper("nope", repo_root)
    mark_planned(tmp_path, "plant")
    with pytest.raises(UserError, match="planned, not implemented"):
        selected_papers(["plant"], tmp_path)
    assert "plant" not in [p.id for p in selected_papers([], tmp_path)]
    assert [p.id for p in selected_papers([], repo_root)] == [p.id for p in load_papers(repo_root) if p.implemented]
