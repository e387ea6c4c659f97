import yaml

from neurips26.common.registry import load_papers
from neurips26.dvc_yaml import render


def test_dvc_yaml_is_in_sync_with_the_registry(repo_root):
    assert (repo_root / "dvc.yaml").read_text() == render(repo_root), "run `python -m neurips26 dvc-yaml`"


def test_one_stage_per_implemented_paper_with_its_metrics(repo_root):
    stages = yaml.safe_load(render(repo_root))["stages"]
    implemented = [p for p in load_papers(repo_root) if p.implemented]
    assert set(stages) == {p.id for p in implemented} | {"report"}
    for paper in implemented:
        stage = stages[paper.id]
        assert stage["cmd"].endswith(f"results/{paper.id}/claims.json")
        assert stage["metrics"] == [{f"results/{paper.id}/metrics.json": {"cache": False, "persist": True}}]
        declared = {next(iter(o)) for o in stage["outs"] + stage["plots"]}
        assert {f"results/{paper.id}/{a}" for a in paper.artifacts} <= declared
