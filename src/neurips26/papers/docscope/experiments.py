"""One run per seed: the systems answer every question of that seed's benchmark as trajectories (text, parsed back),
the four stage scorers and the chain metric score them; plus the judge-calibration set and the R-manual questions."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import numpy as np
import pandas as pd
from tqdm import tqdm

from neurips26.common.docbench import doc_benchmark as B
from neurips26.common.docbench.documents import denormalize_box, render_page
from neurips26.papers.docscope import scorers as S
from neurips26.papers.docscope.index import Retriever, read_document
from neurips26.papers.docscope.ocr import OcrDocument
from neurips26.papers.docscope.reader import answer_trajectory, oracle_fact_trajectory
from neurips26.papers.docscope.trajectory import Citation, Trajectory, parse, render


class Embedder:
    """MiniLM with a per-run cache (texts repeat: templated filler, gold facts)."""

    def __init__(self, max_tokens: int = 64):
        self.cache: dict[str, np.ndarray] = {}
        self.max_tokens = max_tokens

    def __call__(self, texts: list[str]) -> np.ndarray:
        from neurips26.common.models.minilm import embed

        new = sorted({t for t in texts if t not in self.cache})
        if new:
            for t, v in zip(new, embed(new, self.max_tokens)):
                self.cache[t] = v
        return np.stack([self.cache[t] for t in texts]) if texts else np.zeros((0, 384), np.float32)


_FACT = re.compile(
    r"In (?P<year>\d+), the (?P<division>\w+) division reported (?P<metric>.+) of (?P<value>[\d,]+) (?P<unit>.+)\."
)


def fact_key(ev: dict) -> S.FactKey:
    """The judge's reading of a gold evidence item: a generated fact is (division, value) qualified by metric and year;
    an R-manual heading fact is (section title, page)."""
    m = _FACT.fullmatch(ev["fact"])
    if m:
        return S.FactKey(ev["page"], ev["fact"], m["division"], m["value"], (m["metric"], m["year"]))
    title = re.search(r"'([^']+)'", ev["fact"])
    return S.FactKey(ev["page"], ev["fact"], title.group(1) if title else ev["fact"], str(ev["value"]))


def score(q: dict, traj: Trajectory, size, cfg) -> dict:
    """The per-question stage scores of one trajectory (the official stages: pages over every question, regions and
    facts only on pages both gold and predicted)."""
    gold_pages = sorted({e["page"] for e in q["evidence"]})
    p, r, f1 = S.page_prf(gold_pages, traj.pages)
    row = {"answer_correct": S.answer_correct(q["answer"], traj.answer), "page_p": p, "page_r": r, "page_f1": f1}
    pred = [(pg, denormalize_box(b, size)) for pg, _, b in traj.regions]
    judge = lambda g, ps: S.box_label(g, ps, cfg.judges.covered, cfg.judges.imprecise)  # noqa: E731
    labels = S.region_labels(q["evidence"], pred, judge)
    keys = [S.FactKey(**k) for k in q["fact_keys"]] if "fact_keys" in q else [fact_key(e) for e in q["evidence"]]
    facts = S.fact_labels(keys, traj)  # the release's facts carry their own keys (release.py)
    row.update(
        n_gold_boxes=len(labels), n_covered=labels.count("covered"), n_imprecise=labels.count("imprecise"),
        n_not_covered=labels.count("not_covered"), n_unjudged=labels.count(None), n_facts=len(facts),
        n_fact_judged=sum(f is not None for f in facts), n_consistent=sum(f is True for f in facts),
    )  # fmt: skip
    if not q["answerable"]:
        row["chain_complete"] = row["answer_correct"]
    else:
        row["chain_complete"] = bool(row["answer_correct"] and r == 1.0 and row["n_covered"] == len(labels)
                                     and all(f is True for f in facts))  # fmt: skip
    return row


def _jitter(traj: Trajectory, rng, sigma: float) -> Trajectory:
    cites = []
    for c in traj.citations:
        nb = np.clip(np.asarray(c.box) + rng.normal(0, sigma, 4), 0, 1)
        nb = (min(nb[0], nb[2]), min(nb[1], nb[3]), max(nb[0], nb[2]) + 1e-4, max(nb[1], nb[3]) + 1e-4)
        cites.append(replace(c, box=tuple(float(min(v, 1.0)) for v in nb)))
    return Trajectory(cites, traj.answer, traj.reasoning)


def run_seed(cfg, bench_dir, seed: int, embed: Embedder | None = None) -> tuple[pd.DataFrame, list[dict]]:
    bm = B.load(bench_dir)
    embed = embed or Embedder(int(cfg.retrieval.minilm_max_tokens))
    lam, thr, top_k = float(cfg.reader.lam), float(cfg.reader.threshold), int(cfg.retrieval.top_k)
    xs = float(cfg.reader.x_scale)
    rng = np.random.default_rng([seed, 17])
    rows, trajectories = [], []
    ocr_docs = set(sorted(bm.documents)[: int(cfg.ocr.docs_per_seed)])
    ocr_left = float("inf") if cfg.ocr.get("max_questions") is None else int(cfg.ocr.max_questions)
    for doc_id, meta in tqdm(sorted(bm.documents.items()), desc="documents", file=None):
        pages = read_document(meta["path"])
        ocr = OcrDocument(meta["path"], float(cfg.ocr.dpi)) if doc_id in ocr_docs else None
        size = pages[0].size
        sizes = {p.number: p.size for p in pages}

        offset = int(meta.get("page_label_offset", 0))

        def label(n, off=offset):
            return str(n + off)

        retrievers = {k: Retriever(k, pages, embed if k == "minilm" else None) for k in cfg.retrievers}
        for q in [q for q in bm.questions if q["doc_id"] == doc_id]:
            ranked = {k: r.rank(q["question"]) for k, r in retrievers.items()}
            outs: dict[str, Trajectory] = {}
            for k in cfg.retrievers:
                for g in cfg.granularities:
                    outs[f"{k}_{g}"] = answer_trajectory(
                        q["question"], pages, ranked[k][:top_k], g, lam, thr, page_label=label
                    )
            if ocr is not None and ocr_left > 0:  # the pixel reader: OCR of the retrieved pages; boxes predicted
                ocr_left -= 1
                k = str(cfg.ocr.retriever)
                cand = ocr.candidates(ranked[k][:top_k])
                for g in cfg.ocr.granularities:
                    outs[f"{k}_ocr_{g}"] = answer_trajectory(
                        q["question"], cand, [p.number for p in cand], g, lam, thr, page_label=label, x_scale=xs
                    )
            main_k, main_g = str(cfg.main_system).split("_", 1)
            gold_pages = sorted({e["page"] for e in q["evidence"]}) or ranked[main_k][:top_k]
            outs["oracle_pages"] = answer_trajectory(
                q["question"], pages, gold_pages, main_g, lam, thr, page_label=label, x_scale=xs
            )  # noqa: E501
            if q["evidence"]:
                gold_regions: dict = {}
                for e in q["evidence"]:
                    gold_regions.setdefault(e["page"], []).append(tuple(e["bbox"]))
                outs["oracle_regions"] = answer_trajectory(
                    q["question"], pages, gold_pages, main_g, lam, thr, regions=gold_regions, page_label=label
                )
                outs["oracle_facts"] = oracle_fact_trajectory(q["question"], q, sizes, page_label=label)
            else:
                outs["oracle_regions"] = outs["oracle_facts"] = outs["oracle_pages"]
            for sigma in cfg.noise_sigmas:
                outs[f"noisy_boxes_{sigma:g}"] = _jitter(outs["oracle_facts"], rng, float(sigma))
            for system, traj in outs.items():
                text = render(traj)
                parsed = parse(text, n_pages=len(pages))  # every trajectory goes through the parser
                trajectories.append({"seed": seed, "system": system, "qid": q["qid"], "trajectory": text})
                rows.append(
                    {"seed": seed, "system": system, "qid": q["qid"], "doc_id": doc_id, "op": q["op"],
                     "answerable": q["answerable"], "n_evidence": q["n_evidence"], "distance": q["distance"],
                     "distance_bin": q["distance_bin"], "clusters": q["clusters"],
                     "kinds": ",".join(sorted({e["kind"] for e in q["evidence"]})),
                     **score(q, parsed, size, cfg)}
                )  # fmt: skip
    return pd.DataFrame(rows), trajectories


# ---- judge calibration -------------------------------------------------------------------------------------------
def _perturb(box, rng, size):
    """A predicted box derived from a gold box by one of several edits (what systems get wrong)."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    kind = rng.choice(["exact", "shift", "shrink", "grow", "top_part", "left_part", "elsewhere"])
    if kind == "exact":
        b = box
    elif kind == "shift":
        b = (x0 + rng.uniform(-0.6, 0.6) * w, y0 + rng.uniform(-0.6, 0.6) * h, x1, y1)
        b = (b[0], b[1], b[0] + w, b[1] + h)
    elif kind == "shrink":
        f = rng.uniform(0.5, 1.0)
        b = (x0 + (1 - f) * w / 2, y0 + (1 - f) * h / 2, x1 - (1 - f) * w / 2, y1 - (1 - f) * h / 2)
    elif kind == "grow":
        f = rng.uniform(0.0, 0.3)
        b = (x0 - f * w, y0 - f * h, x1 + f * w, y1 + f * h)
    elif kind == "top_part":
        b = (x0, y0, x1, y0 + rng.uniform(0.2, 1.0) * h)
    elif kind == "left_part":
        b = (x0, y0, x0 + rng.uniform(0.3, 1.0) * w, y1)
    else:
        dy = rng.uniform(1.2, 3.0) * h * rng.choice([-1, 1])
        b = (x0, y0 + dy, x1, y1 + dy)
    b = (max(b[0], 0), max(b[1], 0), min(b[2], size[0]), min(b[3], size[1]))
    return str(kind), b


def _fact_variants(ev: dict, rng, other: dict) -> list[tuple[str, str, int, bool]]:
    """(kind, evidence unit, cited page, gold label consistent?) for one gold fact. The negatives include the
    official prompt's 'right value but wrong object' (same number, another division or metric) and a right statement
    cited on another page (not admissible): a judge that only matches numbers gets these wrong."""
    m = _FACT.fullmatch(ev["fact"])
    y, d, metric, v, unit = m["year"], m["division"], m["metric"], m["value"], m["unit"]
    val = int(v.replace(",", ""))
    wrong = val + int(rng.choice([-1, 1]) * rng.integers(10, 900))
    other_division = str(rng.choice([x for x in B.DIVISIONS if x != d]))
    other_metric, other_unit = B.METRICS[int(rng.choice([i for i, (x, _) in enumerate(B.METRICS) if x != metric]))]
    page, elsewhere = ev["page"], ev["page"] + 1
    return [
        ("copy", ev["fact"], page, True),
        ("table_style", f"{d} division, {metric} ({unit}), {y}: {val}", page, True),
        ("reworded", f"The {metric} of the {d} division in {y} amounted to {v} {unit}.", page, True),
        ("wrong_value", f"In {y}, the {d} division reported {metric} of {wrong:,} {unit}.", page, False),
        ("wrong_year", f"In {int(y) - 1}, the {d} division reported {metric} of {v} {unit}.", page, False),
        ("other_fact", other["fact"], page, False),
        ("unrelated", f"The {d} division reviewed its {metric} reporting and met regional partners.", page, False),
        ("wrong_entity", f"In {y}, the {other_division} division reported {metric} of {v} {unit}.", page, False),
        ("wrong_metric", f"In {y}, the {d} division reported {other_metric} of {v} {other_unit}.", page, False),
        ("wrong_page", ev["fact"], elsewhere, False),
    ]


FACT_JUDGES = {"fact": S.supports, "fact_numbers_only": S.numbers_only}  # the second: the negative control


def _fact_rows(seed: int, ev: dict, rng, other: dict) -> list[dict]:
    """One labelled case judged through the official path: the unit is written as a cited sentence, parsed, and the
    fact on its gold page judged on the admissible units (both judges on the same case)."""
    variants = _fact_variants(ev, rng, other)
    kind, unit, page, label = variants[int(rng.integers(len(variants)))]
    parsed = parse(render(Trajectory([Citation(page, str(page), (0.1, 0.1, 0.9, 0.2), unit)], "1")))
    rows = []
    for name, judge in FACT_JUDGES.items():
        judged = S.fact_labels([fact_key(ev)], parsed, judge)[0]
        rows.append({"seed": seed, "judge": name, "variant": kind, "element_kind": ev["kind"], "gold": str(label),
                     "judged": str(judged is True)})  # fmt: skip
    return rows


def _answer_variants(q: dict, rng) -> list[tuple[str, str, bool]]:
    a = q["answer"]
    if a == B.UNANSWERABLE:
        return [("exact", "Unanswerable", True), ("phrase", "The document does not say; not answerable.", True),
                ("guess", str(int(rng.integers(100, 9999))), False)]  # fmt: skip
    try:
        v = int(a)
    except ValueError:
        others = [e["division"] for e in q["evidence"] if e["division"] != a]
        return [("exact", a, True), ("lower", a.lower(), True), ("with_words", f"The {a} division", True),
                ("other", others[0] if others else "Central", False), ("unanswerable", "Unanswerable", False),
                ("list", " and ".join([a] + others), False)]  # fmt: skip
    return [("exact", a, True), ("commas", f"{v:,}", True), ("unit", f"{v:,} units in total", True),
            ("sentence", f"The answer is {v}.", True), ("off", str(v + int(rng.integers(1, 50))), False),
            ("scaled", str(v * 10), False), ("unanswerable", "Unanswerable", False)]  # fmt: skip


def run_calibration(cfg, bench_dir, seed: int) -> pd.DataFrame:
    """Labelled sets for the three offline judges; the gold label comes from construction (facts, answers) or from the
    rendered page (boxes: share of the gold element's ink covered, at the official 90% / 10% rule). The fact set is
    also judged by the numbers-only judge (`fact_numbers_only`), the negative control of the calibration."""
    bm = B.load(bench_dir)
    rng = np.random.default_rng([seed, 23])
    dpi = float(cfg.judges.render_dpi)
    rows = []
    evs = [(q, e) for q in bm.questions for e in q["evidence"]]
    picks = rng.choice(len(evs), size=min(int(cfg.calibration.boxes), len(evs)), replace=False)
    images: dict = {}
    for i in sorted(picks):
        q, e = evs[int(i)]
        key = (q["doc_id"], e["page"])
        if key not in images:
            images[key] = render_page(bm.documents[q["doc_id"]]["path"], e["page"], dpi)
        size = (612.0, 792.0)
        kind, pred = _perturb(tuple(e["bbox"]), rng, size)
        gold = S.label_of(S.ink_coverage(images[key], dpi, e["bbox"], [pred]), cfg.judges.covered, cfg.judges.imprecise)
        judged = S.box_label(e["bbox"], [pred], cfg.judges.covered, cfg.judges.imprecise)
        rows.append(
            {"seed": seed, "judge": "region", "variant": kind, "element_kind": e["kind"], "gold": gold, "judged": judged}
        )
    fact_picks = rng.choice(len(evs), size=min(int(cfg.calibration.facts), len(evs)), replace=False)
    for i in fact_picks:
        q, e = evs[int(i)]
        other = evs[int(rng.integers(len(evs)))][1]
        if other["fact"] == e["fact"]:
            continue
        rows += _fact_rows(seed, e, rng, other)
    qs = bm.questions
    for i in rng.choice(len(qs), size=min(int(cfg.calibration.answers), len(qs)), replace=False):
        q = qs[int(i)]
        variants = _answer_variants(q, rng)
        kind, cand, label = variants[int(rng.integers(len(variants)))]
        rows.append({"seed": seed, "judge": "answer", "variant": kind, "element_kind": q["op"], "gold": str(label),
                     "judged": str(S.answer_correct(q["answer"], cand))})  # fmt: skip
    return pd.DataFrame(rows)


# ---- real long PDFs ----------------------------------------------------------------------------------------------
def run_real(cfg, questions: list[dict], manual_dir) -> pd.DataFrame:
    """BM25 / MiniLM page retrieval + a heading reader on the R manuals; the same scorers (answers are page numbers or
    section titles)."""
    from pathlib import Path

    from neurips26.papers.docscope.index import tokens

    embed = Embedder(int(cfg.retrieval.minilm_max_tokens))
    rows = []
    docs = {}
    for q in questions:
        path = Path(manual_dir) / Path(q["doc_path"]).name
        if path not in docs:
            pages = read_document(path)
            docs[path] = (pages, {k: Retriever(k, pages, embed if k == "minilm" else None) for k in cfg.real.retrievers})
        pages, retrievers = docs[path]
        titles = re.findall(r"'([^']+)'", q["question"])
        for k, retriever in retrievers.items():
            ranked = retriever.rank(q["question"])[: int(cfg.retrieval.top_k)]
            for g in cfg.granularities:
                found = []
                for t in titles:
                    want = tokens(t)
                    best = None
                    for pn in ranked:
                        page = pages[pn - 1]
                        for j, ln in enumerate(page.lines):
                            have = tokens(ln["text"])
                            if (
                                want
                                and have
                                and len(set(want) & set(have)) / len(set(want)) >= 0.99
                                and len(have) <= len(want) + 3
                            ):
                                best = best or (pn, j)
                    found.append((t, best))
                if any(b is None for _, b in found):
                    traj = Trajectory([], "Unanswerable")
                else:
                    cites = []
                    for t, (pn, j) in found:
                        page = pages[pn - 1]
                        box = {"page": (0, 0, *page.size), "line": page.lines[j]["bbox"]}.get(g)
                        if box is None:
                            box = next(b["bbox"] for b in page.blocks if j in b["lines"])
                        norm = tuple(min(max(v / s, 0.0), 1.0) for v, s in zip(box, page.size * 2))
                        cites.append(Citation(pn, str(pn), norm, f"The section titled '{t}' starts on page {pn}"))
                    answer = str(found[0][1][0]) if len(found) == 1 else min(found, key=lambda f: f[1][0])[0]
                    traj = Trajectory(cites, answer)
                parsed = parse(render(traj), n_pages=len(pages))
                rows.append({"system": f"{k}_{g}", "qid": q["qid"], "doc_id": q["doc_id"], "op": q["op"],
                             "answerable": True, "n_evidence": q["n_evidence"], "distance": q["distance"],
                             "distance_bin": q["distance_bin"], "clusters": q["clusters"], "kinds": "heading",
                             **score(q, parsed, pages[0].size, cfg)})  # fmt: skip
    return pd.DataFrame(rows)


def load_jsonl(path) -> list[dict]:
    return [json.loads(x) for x in open(path).read().splitlines() if x.strip()]
