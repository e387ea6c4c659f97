"""Parse-time work remembered across runs, under .snakemake/neurips26/: every `snakemake` call (a dry run, each cluster
job) parses the Snakefile again, and two of its steps give the same answer on the same inputs.

- `SourceFacts`: each source file's SHA-256 (for code stamps, pipeline/code_stamp) and the package modules it imports
  (for the code inputs, common/pipeline/code_deps). Reading, hashing, scanning ~300 modules costs ~0.15 s of each ~2.5 s dry
  run (measured 2026-12-02). One JSON file keeps both; a file is read again only when its stat key changes.
- `check_once`: a check (the run config's schema validation, ~0.07 s with jsonschema's import) runs once per distinct
  input, a marker file recording each pass.

The stat key is (size, mtime, ctime, inode). Any write to a file sets its ctime to the current time, and no tool can set
it back (`touch -d`, `os.utime`, `rsync -t` and archive extraction set only mtime and atime), so an edit is always seen.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from neurips26.common.pipeline.artifacts import write_text  # atomic: concurrent parses (cluster jobs) may write at once
from neurips26.common.pipeline.code_deps import imported_names

MEMO_DIR = Path(".snakemake/neurips26")
FACTS_VERSION = 1  # bump when imported_names or the entry layout changes, so that old entries are recomputed


def _stat_key(path: str) -> list[int]:
    status = os.stat(path)
    return [status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino]


class SourceFacts:
    """The SHA-256 and the imported package names of source files, kept in `<folder>/source_facts.json` for the sources
    under `src`. Within one parse a file is looked at once (the files do not change while Snakemake parses)."""

    def __init__(self, src: str | Path = "src", folder: Path = MEMO_DIR):
        self.src = Path(src)
        self.path = folder / "source_facts.json"
        self.entries = self._load()
        self.looked_at: dict[str, dict] = {}
        self.changed = False

    def _load(self) -> dict[str, dict]:
        try:
            stored = json.loads(self.path.read_text())
        except (FileNotFoundError, ValueError):  # none yet, or damaged (edited by hand): start afresh
            return {}
        same_layout = stored.get("version") == FACTS_VERSION and stored.get("src") == str(self.src)
        return stored.get("entries", {}) if same_layout else {}

    def _entry(self, path: str | Path) -> dict:
        name = str(path)
        entry = self.looked_at.get(name)
        if entry is None:
            key = _stat_key(name)
            entry = self.entries.get(name)
            if entry is None or entry["key"] != key:
                data = Path(name).read_bytes()
                imports = imported_names(Path(name), self.src, data.decode("utf-8"))
                entry = {"key": key, "sha256": hashlib.sha256(data).hexdigest(), "imports": sorted(imports)}
                self.entries[name] = entry
                self.changed = True
            self.looked_at[name] = entry
        return entry

    def sha256(self, path: str | Path) -> str:
        return self._entry(path)["sha256"]

    def imported_names(self, path: Path, src: Path) -> frozenset[str]:
        """code_deps.imported_names, remembered (the same signature, so code_closure takes either)."""
        if Path(src) != self.src:
            raise ValueError(f"these facts are for sources under {self.src}, not {src}")
        return frozenset(self._entry(path)["imports"])

    def save(self) -> None:
        """Write the facts if any were computed in this parse; entries of files that no longer exist are dropped."""
        if not self.changed:
            return
        kept = {name: entry for name, entry in self.entries.items() if os.path.exists(name)}
        write_text(self.path, json.dumps({"version": FACTS_VERSION, "src": str(self.src), "entries": kept}))
        self.changed = False


def check_once(check: Callable[[], object], inputs: Iterable[str], folder: Path = MEMO_DIR / "checked") -> None:
    """Run `check` (it raises when its input is bad) unless it passed before on exactly these `inputs` (texts: the data
    checked, and what decides the verdict, such as the schema and the checking code). A failed check leaves no marker."""
    digest = hashlib.sha256()
    for text in inputs:
        digest.update(hashlib.sha256(text.encode("utf-8")).digest())  # hash of hashes: no two input lists collide
    marker = folder / digest.hexdigest()[:32]
    if marker.exists():
        return
    check()
    write_text(marker, "")
