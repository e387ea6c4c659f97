"""The package's layers (docs/architecture.md): papers never import each other; common/ never imports a paper, the CLI,
the report or the robustness tools, and inside it pipeline/ < data/ < models/ (docbench/ on pipeline/ alone); the
report and the robustness tools never import a paper; and no cycle of imports
anywhere in src/neurips26 (imports inside functions included: a cycle there breaks as soon as someone hoists one)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "neurips26"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """The neurips26 modules a file imports (`from neurips26.x import y` counts as neurips26.x, and as neurips26.x.y
    when that is a module)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return {n for n in names if n.startswith("neurips26")}


def graph() -> dict[str, set[str]]:
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: {m for m in imported(path) if m in files and m != name} for name, path in files.items()}


def test_papers_never_import_each_other():
    bad = [(m, i) for m, deps in graph().items() if m.startswith("neurips26.papers.")
           for i in deps if i.startswith("neurips26.papers.") and i.split(".")[2] != m.split(".")[2]]
    assert not bad, bad


def test_common_report_and_robustness_stay_below_the_papers_and_the_cli():
    above = {"neurips26.common": ("neurips26.papers", "neurips26.cli", "neurips26.report", "neurips26.robustness",
                                  "neurips26.scaffold"),
             "neurips26.report": ("neurips26.papers", "neurips26.cli"),
             "neurips26.robustness": ("neurips26.papers", "neurips26.cli")}
    bad = [(m, i) for m, deps in graph().items() for layer, forbidden in above.items() if m.startswith(layer)
           for i in deps if i.startswith(forbidden)]
    assert not bad, bad


# What each subpackage of common/ may import from common/: the framework at the bottom, data on it, models on both.
COMMON_MAY_IMPORT = {
    "pipeline": {"pipeline"},
    "data": {"pipeline", "data"},
    "models": {"pipeline", "data", "models"},
    "docbench": {"pipeline", "docbench"},
}


def test_common_is_split_by_concern():
    common = PACKAGE / "common"
    loose = sorted(p.name for p in common.glob("*.py") if p.name != "__init__.py")
    assert not loose, f"modules directly in common/ (put each in one of {sorted(COMMON_MAY_IMPORT)}): {loose}"
    assert {p.name for p in common.iterdir() if (p / "__init__.py").exists()} == set(COMMON_MAY_IMPORT)


def test_common_subpackages_import_only_below_themselves():
    bad = [(m, i) for m, deps in graph().items() if m.startswith("neurips26.common.")
           for i in deps if i.startswith("neurips26.common.")
           if i.split(".")[2] not in COMMON_MAY_IMPORT[m.split(".")[2]]]
    assert not bad, bad


def test_no_import_cycle():
    deps = graph()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles = []

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(deps[node]):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in sorted(deps):
        if node not in state:
            visit(node, [node])
    assert not cycles, cycles
