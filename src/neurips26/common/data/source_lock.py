"""data/sources.lock: the sha256 and size of every real-data file pinned on its first fetch, committed to git.

A source in config/datasets.yaml without a sha256 of its own (none at all, or only the md5 its maintainers publish) is
pinned here by its first download; every later fetch, on any machine, must give the same bytes. One tab-separated line
per file, sorted by dataset id and file name, so a new or changed pin is one line in a diff:

    <dataset id>  <file name>  <size in bytes>  <sha256>  <url from config/datasets.yaml>

The URL is the registered one, never a mirror's (a mirror must serve the pinned bytes). Changing a pin is deliberate:
`python -m neurips26 lock-data <dataset id>` (`make lock-data DATASETS=...`), never a side effect of a fetch."""

from __future__ import annotations

import fcntl
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from neurips26.common.pipeline.artifacts import write_text
from neurips26.common.pipeline.errors import UserError

LOCK_NAME = "sources.lock"
HEADER = (
    "# Real-data files pinned on first fetch (docs/data.md#pins). Written by common.data.source_lock: do not edit;\n"
    "# re-pin deliberately with `make lock-data DATASETS=<id>`. Columns, tab-separated:\n"
    "# dataset\tfile\tsize\tsha256\turl\n"
)
SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class Pin:
    dataset: str
    name: str
    size: int
    sha256: str
    url: str

    @property
    def key(self) -> tuple[str, str]:
        return self.dataset, self.name

    def line(self) -> str:
        return f"{self.dataset}\t{self.name}\t{self.size}\t{self.sha256}\t{self.url}\n"


def lock_path(root: Path) -> Path:
    return Path(root) / "data" / LOCK_NAME


def read_lock(path: Path) -> dict[tuple[str, str], Pin]:
    """Every pin by (dataset id, file name); no file is an empty lock (nothing pinned yet)."""
    if not path.is_file():
        return {}
    pins = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if line.strip() and not line.startswith("#"):
            pin = _parse(line, f"{path}:{number}")
            pins[pin.key] = pin
    return pins


def _parse(line: str, where: str) -> Pin:
    fields = line.split("\t")
    if len(fields) != 5 or not fields[2].isdigit() or not SHA256.match(fields[3]):
        raise UserError(f"{where}: malformed pin (want dataset, file, size, sha256, url separated by tabs): {line!r}")
    return Pin(fields[0], fields[1], int(fields[2]), fields[3], fields[4])


def record_pin(path: Path, pin: Pin) -> None:
    """Add or replace one pin. Data jobs of different datasets may run at once, so the read-modify-write holds a lock
    on the folder; an unchanged pin leaves the file untouched (no needless diff or mtime change)."""
    with _folder_locked(path.parent):
        pins = read_lock(path)
        if pins.get(pin.key) == pin:
            return
        pins[pin.key] = pin
        write_text(path, HEADER + "".join(pins[key].line() for key in sorted(pins)))


@contextmanager
def _folder_locked(folder: Path) -> Iterator[None]:
    # flock on the folder itself: the lock file is replaced by rename, so locking it would lock a stale inode
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
