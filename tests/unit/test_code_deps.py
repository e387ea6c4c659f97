"""common/pipeline/code_deps: a rule's code inputs are the modules it names plus everything they import inside the package.

Two independent references: Python's own parser (every import statement of every module of the package, which the
line scan must not miss), and Python's import system (what importing a module in a fresh interpreter really loads)."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from neurips26.common.pipeline.code_deps import code_closure, imported_names, module_files, module_name
from neurips26.common.pipeline.registry import repo_root

ROOT = repo_root()
SRC = ROOT / "src"
ALL_MODULES = sorted((SRC / "neurips26").rglob("*.py"))


def _parsed_imports(path: Path) -> set[str]:
    """The reference: every module named by an import statement of the file, from the syntax tree."""
    current = module_name(path, SRC)
    package = current if path.name == "__init__.py" else current.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
    return {name for name in names if name.split(".")[0] == "neurips26"}


@pytest.mark.parametrize("path", ALL_MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_the_line_scan_finds_every_import_statement(path):
    assert _parsed_imports(path) <= imported_names(path, SRC)


def test_relative_multiline_and_lazy_imports_resolve(tmp_path):
    package = tmp_path / "neurips26"
    for folder in (package / "common", package / "papers" / "toy"):
        folder.mkdir(parents=True)
        (folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "papers" / "__init__.py").write_text("")
    for name in ("a", "b", "c", "d", "unused"):
        (package / "common" / f"{name}.py").write_text("")
    (package / "common" / "sub").mkdir()
    (package / "common" / "sub" / "__init__.py").write_text("")
    (package / "common" / "sub" / "e.py").write_text("")
    (package / "papers" / "toy" / "helper.py").write_text("")
    (package / "papers" / "toy" / "other.py").write_text("")
    main = package / "papers" / "toy" / "main.py"
    main.write_text(
        "from neurips26.common import (\n    a,\n    b as bee,\n)\n"
        "from . import helper\n"
        "def late():\n    import neurips26.common.c\n"
        'X = lazy_modules("neurips26.common", "d")\n'
        'Z = lazy_modules("neurips26.common.sub", "e")  # a subpackage of common/\n'
        'Y = lazy_modules("neurips26.papers.toy", "other")  # a paper\'s own lazy module: named by the rule instead\n'
    )
    closure = {Path(p).relative_to(tmp_path / "neurips26").as_posix() for p in code_closure([main], tmp_path)}
    assert closure == {
        "__init__.py", "common/__init__.py", "common/a.py", "common/b.py", "common/c.py", "common/d.py",
        "common/sub/__init__.py", "common/sub/e.py",
        "papers/__init__.py", "papers/toy/__init__.py", "papers/toy/helper.py", "papers/toy/main.py",
    }


def test_the_module_index_covers_the_package():
    assert set(module_files(SRC).values()) == set(ALL_MODULES)


# Light modules (no torch), from several papers and common/: each imported alone in a fresh interpreter.
RUNTIME_CASES = ["neurips26.papers.wd_eos.figures", "neurips26.papers.docscope.stages", "neurips26.papers.plant.stages",
                 "neurips26.common.pipeline.claims", "neurips26.cli"]


@pytest.mark.parametrize("module", RUNTIME_CASES)
def test_everything_python_loads_is_in_the_closure(module):
    script = (f"import json, sys; import {module}; "
              "print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items() "
              "if n.split('.')[0] == 'neurips26' and getattr(m, '__file__', None))))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True,
                                       cwd=ROOT).stdout)
    closure = {str(Path(p).resolve()) for p in code_closure([module_files(SRC)[module]], SRC)}
    assert {str(Path(p).resolve()) for p in loaded} <= closure
    assert len(loaded) >= 3  # the check saw real imports (the package, common/, the module)
