from neurips26.common.pipeline.registry import papers_markdown


def test_readme_paper_table_is_in_sync_with_the_registry(repo_root):
    readme = (repo_root / "README.md").read_text()
    table = readme.split("<!-- papers:begin -->\n", 1)[1].split("<!-- papers:end -->", 1)[0]
    assert table == papers_markdown(repo_root), "regenerate it with `python -m neurips26 papers`"


def test_readme_gives_the_commands_ci_runs(repo_root):
    readme = (repo_root / "README.md").read_text()
    ci = (repo_root / ".ci" / "run").read_text()
    assert "make results" in readme and "make test" in readme and "make test" in ci
