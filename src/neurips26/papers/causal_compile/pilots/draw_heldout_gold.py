"""Draw the held-out real-text gold abstracts by the written protocol (data/gold/causal_compile_heldout_protocol.md):
three word-defined strata of the pubmed21n1298 abstracts, one seeded generator, never redrawn. Usage:
python -m neurips26.papers.causal_compile.pilots.draw_heldout_gold <pubmed21n1298.xml.gz> <dev_gold.csv> <out.csv>"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from neurips26.common.data.medline import abstract_text, iter_records

SEED = 56
DESIGN = re.compile(r"randomi[sz]|trial|cohort|case-control|retrospective|prospective", re.I)
RATIO_WORD = re.compile(r"\bratios?\b", re.I)
CHANGE_WORD = re.compile(r"reduc|decreas|lower", re.I)
SIZES = {"ratio": 12, "percent_design": 9, "percent_reduction": 9}
# the protocol's addendum: the first draw held no relative change of risk; its own generator, drawn after the first
ADDENDUM_SEED, ADDENDUM_SIZE = 57, 8
RELATIVE_CHANGE = re.compile(
    r"\d+(?:\.\d+)?\s?%\s+(?:relative\s+)?(?:reduction|lower|higher|increased?|decreased?|reduced)\b", re.I
)
RISK_WORD = re.compile(r"risk|odds|hazard|incidence|mortality", re.I)


def strata(records: list[tuple[str, str]]) -> dict[str, list[str]]:
    """pmids per stratum, in file order; what an earlier stratum drew is removed from a later one in `draw`."""
    out = {k: [] for k in SIZES}
    for pmid, text in records:
        if RATIO_WORD.search(text):
            out["ratio"].append(pmid)
        elif "%" in text and DESIGN.search(text):
            out["percent_design"].append(pmid)
        if not RATIO_WORD.search(text) and "%" in text and CHANGE_WORD.search(text):
            out["percent_reduction"].append(pmid)
    return out


def draw(records: list[tuple[str, str]]) -> pd.DataFrame:
    rng = np.random.default_rng(SEED)
    rows, taken = [], set()
    for name, pool in strata(records).items():
        pool = [p for p in pool if p not in taken]
        for i in rng.choice(len(pool), SIZES[name], replace=False):
            rows.append({"pmid": pool[i], "stratum": name})
            taken.add(pool[i])
    pool = [p for p, text in records if p not in taken and RELATIVE_CHANGE.search(text) and RISK_WORD.search(text)]
    for i in np.random.default_rng(ADDENDUM_SEED).choice(len(pool), ADDENDUM_SIZE, replace=False):
        rows.append({"pmid": pool[i], "stratum": "relative_change"})
    return pd.DataFrame(rows)


def main(argv: list[str]) -> None:
    source, dev_gold, out = (Path(a) for a in argv)
    dev = {str(p) for p in pd.read_csv(dev_gold)["pmid"]}
    records = []
    for el in iter_records([source]):
        pmid, text = el.findtext(".//PMID"), abstract_text(el)
        if text and pmid not in dev:
            records.append((pmid, text))
    draw(records).to_csv(out, index=False)


if __name__ == "__main__":
    main(sys.argv[1:])
