"""A static scan of the project's Python sources for unsafe loading (tests/unit/test_safe_loading.py runs it on src/,
benchmarks/ and the Snakemake files, so papers added later are covered without being listed).

Rules (a violation names file:line and the rule):
- pickle and its relatives (dill, cloudpickle, joblib, shelve, marshal, pandas' read_pickle) are never imported or
  called, except `pickle` in common/data/cifar.py, whose restricted unpickler is the one way to read a pickle;
- torch.load only as a call with the literal `weights_only=True` (no **kwargs); numpy.load only with the literal
  `allow_pickle=False`; yaml only through safe_load / safe_load_all / load(..., Loader=SafeLoader or CSafeLoader);
  referring to these functions without calling them (an alias, functools.partial) counts as a violation;
- `from_pretrained` only in a function that checks sha256 (a call to verify_sha256 or verify_tree_digest, directly or
  through a function of the same module that makes one), model weights only as safetensors or GGUF
  (`use_safetensors=True` or `gguf_file=`),
  and never `trust_remote_code=True`; no torch.hub.
Names are resolved through the module's imports (`import numpy as n`, `from torch import load as f`), and getattr()
with a literal name or `from X import *` of a watched module is refused as well.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

PICKLE_MODULES = {"pickle", "_pickle", "cPickle", "dill", "cloudpickle", "joblib", "shelve", "marshal", "pickletools"}
PICKLE_ALLOWED_IN = {"src/neurips26/common/data/cifar.py"}  # the restricted unpickler
WATCHED = {"torch", "numpy", "yaml", "pandas", "pickle", "transformers"}
# a sha256 check of model files: of one file, or of a folder's files (a hub snapshot, common/models/hub_llm.py)
CHECKS = {"verify_sha256", "verify_tree_digest"}
SAFE_YAML_LOADERS = {"SafeLoader", "CSafeLoader"}
FORBIDDEN = {
    "yaml.unsafe_load": "yaml.unsafe_load runs constructors: use yaml.safe_load",
    "yaml.unsafe_load_all": "yaml.unsafe_load_all runs constructors: use yaml.safe_load_all",
    "yaml.full_load": "yaml.full_load: use yaml.safe_load",
    "yaml.full_load_all": "yaml.full_load_all: use yaml.safe_load_all",
    "yaml.Loader": "yaml.Loader is the unsafe loader: use yaml.SafeLoader",
    "yaml.UnsafeLoader": "yaml.UnsafeLoader: use yaml.SafeLoader",
    "yaml.FullLoader": "yaml.FullLoader: use yaml.SafeLoader",
    "pandas.read_pickle": "pandas.read_pickle unpickles: store tables as CSV",
    "numpy.loads": "numpy.loads unpickles",
    "pickle.load": "pickle.load runs any callable the file names: use common/data/cifar.py's restricted unpickler",
    "pickle.loads": "pickle.loads runs any callable the data names: use common/data/cifar.py's restricted unpickler",
    "pickle._load": "pickle._load: use common/data/cifar.py's restricted unpickler",
    "pickle._loads": "pickle._loads: use common/data/cifar.py's restricted unpickler",
    "pickle._Unpickler": "pickle._Unpickler: use common/data/cifar.py's restricted unpickler",
    "torch.hub": "torch.hub downloads and runs code",
}
# callee -> (keyword, required literal value)
REQUIRED_KEYWORD = {
    "torch.load": ("weights_only", True),
    "torch.serialization.load": ("weights_only", True),
    "numpy.load": ("allow_pickle", False),
    "numpy.lib.npyio.load": ("allow_pickle", False),
}
YAML_LOADS = {"yaml.load", "yaml.load_all"}
TEXT_PATTERNS = {  # the Snakemake files are not Python modules: a plain text scan
    r"\bpickle\b|\bdill\b|\bcloudpickle\b|\bjoblib\b|\bshelve\b|\bmarshal\b": "pickle-like module",
    r"torch\.load\b|np\.load\b|numpy\.load\b": "load in a Snakemake file (call a stage instead)",
    r"yaml\.(load|unsafe_load|full_load)\b": "yaml loader other than safe_load",
    r"read_pickle|allow_pickle\s*=\s*True|weights_only\s*=\s*False|trust_remote_code\s*=\s*True": "unsafe option",
}


@dataclass
class Report:
    violations: list[str] = field(default_factory=list)
    checked: dict[str, int] = field(default_factory=dict)  # what was seen and passed, so the scan cannot be vacuous
    files: int = 0

    def seen(self, what: str) -> None:
        self.checked[what] = self.checked.get(what, 0) + 1


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Local name -> the dotted name it stands for, from every import in the module (scope-insensitive on purpose)."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    names[a.asname] = a.name
                else:
                    top = a.name.split(".")[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    base = aliases.get(node.id)
    if base is None:
        return None
    return ".".join([base, *reversed(parts)])


def _keyword(call: ast.Call, name: str):
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def _literal(node, value) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def _enclosing_functions(tree: ast.AST) -> dict[ast.AST, ast.AST | None]:
    parent = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parent[child] = node
    out = {}
    for node in ast.walk(tree):
        up = parent.get(node)
        while up is not None and not isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef)):
            up = parent.get(up)
        out[node] = up
    return out


def _called_names(function: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                names.add(node.func.id)
            elif isinstance(node.func, ast.Attribute):
                names.add(node.func.attr)
    return names


def _safe_loader_subclasses(tree: ast.AST) -> set[str]:
    """Classes of this module whose bases name only safe loaders (a subclass adding checks, e.g. duplicate keys)."""
    safe = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            named = {n.id if isinstance(n, ast.Name) else n.attr for base in node.bases for n in ast.walk(base)
                     if isinstance(n, (ast.Name, ast.Attribute))}
            loaders = {n for n in named if n.endswith("Loader")}
            if loaders and loaders <= SAFE_YAML_LOADERS:
                safe.add(node.name)
    return safe


def scan_source(source: str, rel: str, report: Report) -> None:
    """Check one Python module's source; `rel` is its path relative to the repository root (for messages)."""
    tree = ast.parse(source, filename=rel)
    aliases = _aliases(tree)
    safe_loaders = SAFE_YAML_LOADERS | _safe_loader_subclasses(tree)

    def flag(node: ast.AST, message: str) -> None:
        report.violations.append(f"{rel}:{getattr(node, 'lineno', 0)}: {message}")

    # imports of pickle-like modules
    for node in ast.walk(tree):
        modules = []
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module]
            if any(a.name == "*" for a in node.names) and node.module.split(".")[0] in WATCHED:
                flag(node, f"`from {node.module} import *` hides which loaders are used")
        for module in modules:
            top = module.split(".")[0]
            if top in PICKLE_MODULES and not (top == "pickle" and rel in PICKLE_ALLOWED_IN):
                flag(node, f"imports {module}: unpickling runs code; read data through a safe format "
                           "(CSV, npz with allow_pickle=False, safetensors) or common/data/cifar.py's restricted unpickler")
            elif top == "pickle":
                report.seen("pickle import in the restricted unpickler")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__import__" or (
                isinstance(node, ast.Call) and _dotted(node.func, aliases) == "importlib.import_module"):
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and str(arg.value).split(".")[0] in PICKLE_MODULES:
                flag(node, f"imports {arg.value} dynamically")

    calls = {id(node.func): node for node in ast.walk(tree) if isinstance(node, ast.Call)}
    enclosing = _enclosing_functions(tree)
    restricted_bases = {id(base) for c in ast.walk(tree) if isinstance(c, ast.ClassDef)
                        and any(isinstance(f, ast.FunctionDef) and f.name == "find_class" for f in c.body)
                        for base in c.bases}
    verifiers = {f.name for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and CHECKS & _called_names(f)}

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" and \
                len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
            target = _dotted(node.args[0], aliases)
            if target and f"{target}.{node.args[1].value}" in {*REQUIRED_KEYWORD, *YAML_LOADS, *FORBIDDEN}:
                flag(node, f"getattr({target}, {node.args[1].value!r}) hides a loader from this scan")
        if isinstance(node, ast.keyword) and node.arg == "trust_remote_code" and not _literal(node.value, False):
            flag(node.value, "trust_remote_code runs code shipped with a model: never")
        if isinstance(node, ast.keyword) and node.arg == "allow_pickle" and not _literal(node.value, False):
            flag(node.value, "allow_pickle must be the literal False")
        if isinstance(node, ast.Attribute) and node.attr == "read_pickle":
            flag(node, "read_pickle unpickles: store tables as CSV")
        if not isinstance(node, (ast.Name, ast.Attribute)) or not isinstance(getattr(node, "ctx", None), ast.Load):
            continue
        name = _dotted(node, aliases)
        if name is None:
            continue
        if name == "pickle.Unpickler":
            if id(node) not in restricted_bases:
                flag(node, "pickle.Unpickler only as the base of a class that overrides find_class")
            else:
                report.seen("restricted unpickler")
        call = calls.get(id(node))
        for forbidden, why in FORBIDDEN.items():
            if name == forbidden or name.startswith(forbidden + "."):
                flag(node, why)
        if name in REQUIRED_KEYWORD:
            keyword, value = REQUIRED_KEYWORD[name]
            if call is None:
                flag(node, f"{name} used without being called here (an alias hides its arguments from this scan)")
            elif any(kw.arg is None for kw in call.keywords):
                flag(node, f"{name}(**...) hides {keyword}: pass {keyword}={value} literally")
            elif not _literal(_keyword(call, keyword), value):
                flag(node, f"{name} needs {keyword}={value}")
            else:
                report.seen(name)
        elif name in YAML_LOADS:
            loader = _keyword(call, "Loader") if call is not None else None
            if call is not None and loader is None and len(call.args) >= 2:
                loader = call.args[1]
            named = set()
            for n in ast.walk(loader) if loader is not None else []:
                named |= {n.id} if isinstance(n, ast.Name) else {n.attr} if isinstance(n, ast.Attribute) else \
                    {n.value} if isinstance(n, ast.Constant) and isinstance(n.value, str) else set()
            loaders = {n for n in named if n.endswith("Loader")}
            if call is None or not loaders or not loaders <= safe_loaders:
                flag(node, f"{name} needs Loader=yaml.SafeLoader (or CSafeLoader); prefer yaml.safe_load")
            else:
                report.seen("yaml.load with a safe loader")
        elif name.startswith("yaml.safe_load"):
            report.seen("yaml.safe_load")

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "from_pretrained":
            function = enclosing.get(node)
            called = _called_names(function) if function is not None else set()
            if not (CHECKS | verifiers) & called:
                flag(node, "from_pretrained without a sha256 check of the model files in the same function "
                           "(call verify_sha256, directly or through a function of this module that does)")
            owner = ast.unparse(node.func.value)
            if "Tokenizer" not in owner and _keyword(node, "gguf_file") is None and \
                    not _literal(_keyword(node, "use_safetensors"), True):
                flag(node, f"{owner}.from_pretrained needs use_safetensors=True (or gguf_file=): a .bin is a pickle")
            report.seen("from_pretrained")


def scan_text(text: str, rel: str, report: Report) -> None:
    for number, line in enumerate(text.splitlines(), start=1):
        code = line.split("#", 1)[0]
        for pattern, what in TEXT_PATTERNS.items():
            if re.search(pattern, code):
                report.violations.append(f"{rel}:{number}: {what}")


def scan_repository(root: Path) -> Report:
    report = Report()
    paths = sorted([*(root / "src").rglob("*.py"), *(root / "benchmarks").rglob("*.py")])
    for path in paths:
        scan_source(path.read_text(), path.relative_to(root).as_posix(), report)
        report.files += 1
    for path in sorted([root / "Snakefile", *(root / "workflow").rglob("*.smk")]):
        scan_text(path.read_text(), path.relative_to(root).as_posix(), report)
        report.files += 1
    return report
