"""The source files a set of modules runs: the modules plus everything inside `neurips26` they import, transitively.

A rule's code inputs come from here (workflow/rules/common.smk `code_files`), so editing a module re-runs exactly the jobs
whose code imports it, and the DAG carries a few code files per job instead of every module of common/ (those inputs were
nine tenths of all the DAG's input files, and Snakemake's dry run pays per input file).

Found statically, by a scan of the import statements, and read conservatively: an import anywhere in a file counts
(inside a function too), and so does a `lazy_modules("neurips26.common.<subpackage>", ...)` call (pipeline/lazy.py).
A paper's own lazily loaded modules are not followed: its stages.py names all of them, and a rule names the ones its
stage runs. Importing `a.b.c` also runs the package files `a/__init__.py` and `a/b/__init__.py`, so those count as well.
tests/unit/test_code_deps.py checks the result against what Python really imports.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

PACKAGE = "neurips26"
LAZY_FOLLOWED = "neurips26.common"  # lazy_modules(...) calls into this package (or a subpackage) count as imports


def module_name(path: Path, src: Path) -> str:
    parts = path.relative_to(src).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def module_files(src: Path) -> dict[str, Path]:
    """Every module of the package by dotted name (one directory walk, instead of a stat per name)."""
    return {module_name(path, src): path for path in (src / PACKAGE).rglob("*.py")}


IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w. \t,]+)", re.M)
FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]+)", re.M)
LAZY = re.compile(r"lazy_modules\(\s*[\"'](" + re.escape(LAZY_FOLLOWED) + r"(?:\.\w+)*)[\"']\s*,([^)]*)\)")
NAME = re.compile(r"[\w.]+")
COMMENT = re.compile(r"#[^\n]*")


def _absolute(dots: str, module: str, current: str, is_package: bool) -> str:
    if not dots:
        return module
    parts = current.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (len(dots) - 1)]
    return ".".join([*base, *([module] if module else [])])


def imported_names(path: Path, src: Path, text: str | None = None) -> set[str]:
    """The dotted names of every `neurips26` module (or module attribute) the file imports (`text`: its contents, if
    already read). A line scan, not a parse (parsing every module took over a second of each dry run): an import
    anywhere counts, in a function too, and so may one in a docstring, which only adds an input."""
    text = COMMENT.sub("", path.read_text() if text is None else text)  # a comment in `from x import (...)` may hold a ")"
    current = module_name(path, src)
    is_package = path.name == "__init__.py"
    names: set[str] = set()
    for match in IMPORT.finditer(text):
        names.update(item.split()[0] for item in match.group(1).split(",") if item.strip())
    for match in FROM_IMPORT.finditer(text):
        base = _absolute(match.group(1), match.group(2), current, is_package)
        imported = [item.split()[0] for item in match.group(3).strip("()").split(",") if item.strip()]
        names.add(base)
        names.update(f"{base}.{name}" for name in imported if name != "*")
    for match in LAZY.finditer(text):
        names.update(f"{match.group(1)}.{name}" for name in re.findall(r"[\"'](\w+)[\"']", match.group(2)))
    return {name for name in names if NAME.fullmatch(name) and (name == PACKAGE or name.startswith(PACKAGE + "."))}


Names = Callable[[Path, Path], "set[str] | frozenset[str]"]  # imported_names, or a cached copy of it


@cache
def _direct(path: Path, src: Path, names: Names) -> frozenset[Path]:
    """Files run by importing the file: its packages' __init__.py, and for each name it imports, that name's module (a
    name that is an attribute, not a module, resolves to nothing) and the __init__.py of every package on the way."""
    modules = module_files(src)
    own = module_name(path, src).split(".")
    files = {modules[p] for p in (".".join(own[:d]) for d in range(1, len(own))) if p in modules}  # its packages
    for name in names(path, src):
        parts = name.split(".")
        prefixes = (".".join(parts[:depth]) for depth in range(1, len(parts) + 1))
        files.update(modules[prefix] for prefix in prefixes if prefix in modules)
    return frozenset(files)


def code_closure(paths: Iterable[str | Path], src: str | Path = "src", names: Names = imported_names) -> list[str]:
    """`paths` and every file they import inside the package, transitively; sorted, as given (relative stays relative).
    `names` finds a file's imports (the workflow passes a copy cached for the parse)."""
    src = Path(src)
    todo = [Path(p) for p in paths]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        todo.extend(_direct(path, src, names) - seen)
    return sorted(str(p) for p in seen)
