"""One file that stands for a rule's source files as its code input (workflow/rules/common.smk `code_files`).

Listing every source file a job runs as an input (about 5,600 input entries over the ~300 jobs of `results/all`) cost
~0.5 s of the ~3.5 s of CPU of each dry run (measured 2026-12-02): Snakemake resolves, checks and prints every input of
every job. A stamp replaces each list:

- its text is the list in `sha256sum` format (`<hex digest>  <path>` per line), so `sha256sum -c <stamp>` checks it;
- it is rewritten (atomically) only when that text changes, that is when a listed file's content changes;
- its modification time is then set to the newest listed file's.

Snakemake therefore decides as it did with the files themselves: a job reruns when a listed file is newer than its
outputs (the stamp is as new as the newest file) unless the input's checksum is the one Snakemake recorded (touching a
file leaves the stamp's text, and so its checksum, alone). A results tree pulled from DVC into a fresh clone is up to
date, as before: the stamp is only as new as the checked-out sources.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from neurips26.common.pipeline.artifacts import atomic_path

STAMP_DIR = Path(".snakemake/neurips26/code")


def file_sha256(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def listing(files: Sequence[str], sha256: Callable[[str], str] = file_sha256) -> tuple[str, int]:
    """The stamp's text for `files` (sha256sum format, in the given order) and the newest file's mtime in ns. `sha256`
    hashes a file (the workflow passes one that remembers each file within a parse)."""
    lines, newest = [], 0
    for path in files:
        lines.append(f"{sha256(path)}  {path}\n")
        newest = max(newest, os.stat(path).st_mtime_ns)
    return "".join(lines), newest


def stamp_path(files: Sequence[str], folder: Path = STAMP_DIR) -> Path:
    """The stamp of a list of files: named by the list (not the contents), so a rule keeps its input path."""
    name = hashlib.sha256("\n".join(files).encode()).hexdigest()[:16]
    return folder / f"{name}.sha256"


def code_stamp(files: Sequence[str], folder: Path = STAMP_DIR, sha256: Callable[[str], str] = file_sha256) -> str:
    """The path of the stamp of `files`, written now if it is missing or its text is out of date."""
    if not files:
        raise ValueError("a code stamp needs at least one file")
    text, newest = listing(files, sha256)
    path = stamp_path(files, folder)
    try:
        if path.read_text() == text:
            return str(path)
    except FileNotFoundError:
        pass
    with atomic_path(path) as partial:  # a cluster job may parse at the same moment
        partial.write_text(text)
        os.utime(partial, ns=(newest, newest))
    return str(path)
