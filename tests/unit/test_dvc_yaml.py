import json

import pytest
import yaml

from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.registry import Paper, load_papers
from neurips26.dvc_yaml import curve_plot, out_of_date, render, render_all, run_keys, series_template


def test_dvc_yaml_and_its_templates_are_in_sync_with_the_registry(repo_root):
    assert (repo_root / "dvc.yaml").read_text() == render(repo_root), "run `python -m neurips26 dvc-yaml`"
    assert out_of_date(repo_root) == [], "run `python -m neurips26 dvc-yaml`"


def test_one_stage_per_implemented_paper_with_its_params_outputs_metrics_and_plots(repo_root):
    document = yaml.safe_load(render(repo_root))
    stages = document["stages"]
    implemented = [p for p in load_papers(repo_root) if p.implemented]
    assert set(stages) == {p.id for p in implemented} | {"data", "report"}
    assert run_keys(repo_root) == ["scale", "data", "seeds", "device"]
    plots = document["plots"]
    images = {p for p in plots if isinstance(p, str)}
    for paper in implemented:
        stage = stages[paper.id]
        assert stage["cmd"] == f"mkdir -p logs/{paper.id} && snakemake --cores all results/{paper.id}/claims.json"
        assert "data/raw" in stage["deps"]
        params = {next(iter(p)): next(iter(p.values())) for p in stage["params"]}
        assert params["config/config.yaml"] == ["scale", "data", "seeds", "device"]
        hydra = sorted(str(p.relative_to(repo_root)) for p in (repo_root / "config" / paper.id).rglob("*.yaml"))
        assert [f for f, keys in params.items() if keys is None] == hydra  # the whole Hydra tree, every key
        assert stage["outs"] == [{f"results/{paper.id}": {"persist": True}}, {f"logs/{paper.id}": {"persist": True}}]
        assert f"results/{paper.id}/metrics.json" in document["metrics"]
        assert {f"results/{paper.id}/{f}" for f in paper.figures} <= images
        curves = [p for p in plots if isinstance(p, dict) and next(iter(p)).startswith(f"{paper.id}/")]
        assert len(curves) == len(paper.plots)
    assert stages["data"]["outs"][0] == {"data/raw": {"persist": True}}
    assert stages["data"]["cmd"] == "python -m neurips26 dvc-yaml --data-stage"


def test_a_curve_with_by_columns_uses_its_generated_template_and_dvc_fills_it():
    from dvc_render import VegaRenderer
    from dvc_render.vega_templates import Template

    paper = Paper(id="demo", title="t", seed_index=1, status="implemented", tables=["tables/main.csv"])
    plot = curve_plot(paper, {"table": "tables/main.csv", "x": "n", "y": "rmse", "by": ["method", "noise"]})
    (plot_id, props), = plot.items()
    assert props["template"] == ".dvc/plots/by_method-noise.json"
    assert props["y"] == {"results/demo/tables/main.csv": "rmse"}
    spec = json.loads(series_template(["method", "noise"]))
    assert spec["transform"] == [{"calculate": "datum[\"method\"] + ' / ' + datum[\"noise\"]", "as": "series"}]
    rows = [{"n": "10", "rmse": "0.3", "method": "mec", "noise": "0.5", "rev": "workspace"},
            {"n": "20", "rmse": "0.2", "method": "mec", "noise": "0.5", "rev": "workspace"}]
    renderer = VegaRenderer(rows, plot_id, x="n", y="rmse", title=props["title"],
                            template=Template(spec, name="by_method-noise"))
    filled = renderer.get_filled_template()
    assert filled["encoding"]["x"]["field"] == "n" and filled["encoding"]["y"]["field"] == "rmse"
    assert filled["data"]["values"] == rows
    assert "<DVC_METRIC" not in json.dumps(filled)


@pytest.mark.parametrize("curve, message", [
    ({"table": "tables/main.csv", "x": "n"}, "expected the keys"),
    ({"table": "figures/a.png", "x": "n", "y": "r"}, "under tables/"),
    ({"table": "tables/main.csv", "x": "n", "y": "r", "by": "method"}, "list of column names"),
    ({"table": "tables/main.csv", "x": "n", "y": "r", "template": "fancy"}, "one of DVC's"),
    ({"table": "tables/main.csv", "x": "n", "y": "r", "by": ["m"], "template": "linear"}, "not both"),
])
def test_a_bad_curve_declaration_names_the_paper_and_the_problem(curve, message):
    paper = Paper(id="demo", title="t", seed_index=1, status="implemented")
    with pytest.raises(UserError, match=message) as error:
        curve_plot(paper, curve)
    assert "'demo'" in str(error.value)


def test_every_template_file_is_one_a_curve_uses(repo_root):
    generated = {rel for rel in render_all(repo_root) if rel.startswith(".dvc/plots/")}
    on_disk = {str(p.relative_to(repo_root)) for p in (repo_root / ".dvc/plots").glob("by_*.json")}
    assert generated == on_disk
