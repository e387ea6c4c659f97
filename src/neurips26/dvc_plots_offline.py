"""Make the page of `dvc plots show` / `dvc plots diff` viewable without network access.

    dvc plots show && python -m neurips26 dvc-plots-offline            # rewrites dvc_plots/index.html
    dvc plots diff HEAD exp -o /tmp/p && python -m neurips26 dvc-plots-offline /tmp/p

DVC's page loads Vega, Vega-Lite and Vega-Embed from cdn.jsdelivr.net when it is opened. Snakemake (already installed,
for its --report) ships the same libraries (Vega 5.21.0, Vega-Lite 5.2.0, Vega-Embed 6.20.8, with their licenses): this
copies them into <folder>/vendor/ and points the page's three script tags there. Nothing is downloaded.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from neurips26.common.pipeline.artifacts import write_text
from neurips26.common.pipeline.errors import UserError

LIBRARIES = ("vega", "vega-lite", "vega-embed")
CDN_SCRIPT = re.compile(r'<script src="https://cdn\.jsdelivr\.net/npm/(vega|vega-lite|vega-embed)@[^"]*"></script>')


def snakemake_assets() -> Path:
    import snakemake

    return Path(snakemake.__file__).parent / "assets" / "data"


def make_offline(folder: Path) -> Path:
    page = folder / "index.html"
    if not page.is_file():
        raise UserError(f"{page} does not exist: run `dvc plots show` (or `dvc plots diff ... -o {folder}`) first")
    assets = snakemake_assets()
    vendor = folder / "vendor"
    vendor.mkdir(exist_ok=True)
    for name in LIBRARIES:
        source = assets / name / f"{name}.js"
        if not source.is_file():
            raise UserError(f"{source} is missing: the installed snakemake ships no {name}.js (reinstall requirements.lock)")
        shutil.copyfile(source, vendor / f"{name}.js")
        shutil.copyfile(assets / name / "LICENSE", vendor / f"{name}.LICENSE")
    html = CDN_SCRIPT.sub(lambda m: f'<script src="vendor/{m.group(1)}.js"></script>', page.read_text())
    if "cdn.jsdelivr.net" in html:
        raise UserError(f"{page}: a script tag still points to the CDN (an unexpected DVC page format); left unchanged")
    write_text(page, html)
    return page


def main(argv: list[str]) -> None:
    if len(argv) > 1:
        raise UserError("usage: python -m neurips26 dvc-plots-offline [FOLDER]   (default: dvc_plots)")
    print(make_offline(Path(argv[0] if argv else "dvc_plots")))
