"""One run job = one seed x one document kind (en, es: generated reports; rman: R manual pages): every page goes
through the conditions original, and per severity photographed / unwarped (detected quad) / oracle-unwarped (true
homography); every image through every parser; every parse scored, then translated (one apertium call per job) and
scored against the translation of the gold. Returns the rows and the camera parameters of every image."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.docptbench import camera, corpus, evaluate, layout, parsers, unwarp
from neurips26.papers.docptbench.translate import translate

KINDS = {"en": 0, "es": 1, "rman": 2}
GEOMETRIC = "geo"   # severity label of the geometric capture (config `geometric`): warp-dominated, faint photometric
PAIR = {"en": "eng-spa", "es": "spa-eng"}


def load_pages(kind: str, seed: int, cfg, manuals: Path | None = None) -> list[corpus.Page]:
    count = int(cfg.pages[kind])
    if kind == "rman":
        return corpus.r_manual_pages(count, seed, cfg.real, manuals)
    if kind not in PAIR:
        raise UserError(f"unknown document kind {kind!r}; known: {', '.join(KINDS)}")
    with tempfile.TemporaryDirectory() as tmp:
        return corpus.generated_pages(kind, count, seed, cfg.documents, Path(tmp))


def _conditions(page: corpus.Page, severity, params: dict, unwarped: bool = True):
    """The photograph and, when `unwarped`, its detected-quad and oracle unwarps."""
    photo = camera.photograph(page.image, params)
    yield severity, "photographed", photo, params, True, np.nan
    if not unwarped:
        return
    flat, found = unwarp.unwarp(photo, page.image.shape)
    yield severity, "unwarped", flat, params, found, unwarp.corner_error(photo, params)
    yield severity, "oracle_unwarped", unwarp.oracle_unwarp(photo, params), params, True, 0.0


def captures(page: corpus.Page, page_index: int, kind: str, seed: int, cfg, unwarp_all: bool = False):
    """(severity, condition, image, params, quad_found, corner_error) of every condition of one page: the severity
    levels (unwarped only at the levels of `unwarp_severities`, default all), then (when configured) the geometric
    capture, labelled severity GEOMETRIC, always with its unwarps (the unwarping claim is judged there)."""
    yield 0, "original", page.image, {"severity": 0}, True, 0.0
    frame_scale = float(cfg.camera.frame_scale)
    levels = cfg.severities if unwarp_all else cfg.get("unwarp_severities", cfg.severities)
    unwarp_levels = {int(s) for s in levels}
    for severity in cfg.severities:
        rng = np.random.default_rng([seed, KINDS[kind], page_index, int(severity)])
        params = camera.draw_params(int(severity), page.image.shape, rng, frame_scale)
        yield from _conditions(page, int(severity), params, int(severity) in unwarp_levels)
    geo = cfg.get("geometric")
    if geo is not None and geo.get("enabled", False):
        rng = np.random.default_rng([seed, KINDS[kind], page_index, 1000])
        scale = {str(k): float(v) for k, v in geo.scale.items()}
        params = {**camera.draw_params(int(geo.severity), page.image.shape, rng, frame_scale, scale),
                  "profile": GEOMETRIC}
        yield from _conditions(page, GEOMETRIC, params)


def run(kind: str, seed: int, cfg, manuals: Path | None = None) -> tuple[pd.DataFrame, list[dict]]:
    pages = load_pages(kind, seed, cfg, manuals)
    rows, parsed_units, camera_log = [], [], []
    for index, page in enumerate(pages):
        for severity, condition, image, params, found, error in captures(page, index, kind, seed, cfg):
            if condition != "unwarped":
                camera_log.append({"page_id": page.page_id, "severity": severity, "condition": condition,
                                   "params": params})
            for parser in tqdm(list(cfg.parsers), desc=f"{page.page_id} s{severity} {condition}", leave=False):
                blocks = layout.layout(parsers.parse_segments(parser, image, page.language))
                rows.append({"seed": seed, "kind": kind, "page_id": page.page_id, "language": page.language,
                             "source": page.source, "severity": severity, "condition": condition,
                             "parser": parser, "quad_found": bool(found), "corner_error": error,
                             **evaluate.score_page(page, blocks)})
                parsed_units.append(evaluate.translation_units(blocks))
    _add_translation(rows, parsed_units, pages, cfg)
    return pd.DataFrame(rows), camera_log


def _add_translation(rows: list[dict], parsed_units: list, pages: list[corpus.Page], cfg) -> None:
    """Reference = MT(gold blocks); hypothesis = MT(parsed blocks); one apertium call for all texts of the job."""
    if not cfg.translation.enabled:
        for row in rows:
            row.update({"bleu": np.nan, "chrf": np.nan, "meteor": np.nan, "steds": np.nan})
        return
    gold_units = {p.page_id: evaluate.translation_units(p.blocks) for p in pages}
    language = pages[0].language
    texts = [t for units in gold_units.values() for _, t in units] + [t for units in parsed_units for _, t in units]
    out = iter(translate(texts, PAIR[language]))
    gold_mt = {pid: [(k, next(out)) for k, _ in units] for pid, units in gold_units.items()}
    structured = {p.page_id: p.structured for p in pages}
    for row, units in zip(rows, parsed_units):
        hyp = [(k, next(out)) for k, _ in units]
        row.update(evaluate.score_translation(hyp, gold_mt[row["page_id"]], structured[row["page_id"]]))


def examples(seed: int, cfg) -> dict[str, np.ndarray]:
    """The first English page of `seed` under every condition at the highest severity (for the example figure)."""
    page = load_pages("en", seed, cfg)[0]
    out = {}
    for severity, condition, image, _params, _found, _error in captures(page, 0, "en", seed, cfg, unwarp_all=True):
        if severity in (0, max(cfg.severities)):
            out[condition] = image
    return out
