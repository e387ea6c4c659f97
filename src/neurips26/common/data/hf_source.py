"""A real-data file on the Hugging Face hub, fetched with huggingface_hub at a pinned commit.

config/datasets.yaml names it `hf: {repo: owner/name, type: dataset | model, file: path/in/repo[, revision: <commit>]}`.
Without a revision, the first fetch resolves the repository's current commit and data/sources.lock records it in the
pin's URL, `hf://<type>s/<repo>@<commit>/<file>`, beside the file's sha256; every later fetch downloads that commit and
must give the same bytes. The hub's cache lives under data/cache/huggingface/ (never the user's home), and a token for
gated repositories is read from HF_TOKEN at run time only (huggingface_hub never writes it to the cache). A site mirror
of the hub is huggingface_hub's own HF_ENDPOINT; HF_HUB_OFFLINE=1 reads only the cache.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from neurips26.common.pipeline.artifacts import atomic_path
from neurips26.common.pipeline.errors import UserError

CACHE = Path("data") / "cache" / "huggingface"
REPO_TYPES = ("dataset", "model")


@dataclass(frozen=True)
class HubFile:
    repo: str
    type: str
    file: str
    revision: str | None = None

    def check(self, where: str) -> None:
        if self.type not in REPO_TYPES or self.repo.count("/") != 1 or not self.file:
            raise UserError(f"{where}: hf needs repo (owner/name), type ({' or '.join(REPO_TYPES)}) and file")

    def url(self, commit: str | None = None) -> str:
        """The pin's URL: the registered file, at `commit` once it is resolved."""
        at = f"@{commit}" if commit else ""
        return f"hf://{self.type}s/{self.repo}{at}/{self.file}"


def split_pinned_url(url: str) -> tuple[str, str | None]:
    """hf://datasets/o/n@<commit>/f -> (hf://datasets/o/n/f, <commit>): the registered file and its pinned commit."""
    head, sep, rest = url.partition("@")
    if not sep:
        return url, None
    commit, _, file = rest.partition("/")
    return f"{head}/{file}", commit


def fetch_hub_file(source: HubFile, dest: Path, root: Path, commit: str | None) -> str:
    """Download `source` at `commit` (else its registered revision, else the current one) to `dest`, atomically;
    return the commit it came from."""
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

    revision = commit or source.revision
    try:
        cached = Path(hf_hub_download(source.repo, source.file, repo_type=source.type, revision=revision,
                                      cache_dir=root / CACHE, token=os.environ.get("HF_TOKEN") or None))
    except (HfHubHTTPError, LocalEntryNotFoundError, OSError, ValueError) as exc:
        raise UserError(f"download of {source.url(revision)} failed: {exc}; nothing was kept") from None
    resolved = _snapshot_commit(cached)
    if revision and len(revision) == 40 and resolved != revision:
        raise UserError(f"{source.url(revision)}: the hub served commit {resolved}, not the pinned {revision}")
    with atomic_path(dest) as tmp:
        shutil.copyfile(cached, tmp)
    return resolved


def _snapshot_commit(cached: Path) -> str:
    """The commit of a file in huggingface_hub's cache: its path is <repo folder>/snapshots/<commit>/<file>."""
    parts = cached.parts
    if "snapshots" not in parts:
        raise UserError(f"{cached}: not a huggingface_hub snapshot path; cannot tell which commit it came from")
    return parts[parts.index("snapshots") + 1]
