"""Baselines: naive conversion (OR and HR taken as RR, log OR as SMD), a pooled meta-analysis without conflict,
population or horizon checks (method.pooled_graph), and sentence retrieval (finds the sentences naming X and Y but
compiles nothing, so no query is executable)."""

from __future__ import annotations

from neurips26.papers.causal_compile.extractor import Vocabulary, sentences
from neurips26.papers.causal_compile.method import compile_records


def naive_kernels(records: list[dict], variables: dict):
    return compile_records(records, variables, naive=True)


class SentenceIndex:
    """Every sentence of the corpus with the variables it mentions."""

    def __init__(self, abstracts: list[dict], vocab: Vocabulary):
        self.entries = [(s, set(vocab.mentioned(s))) for a in abstracts for s in sentences(a["text"])]

    def retrieve(self, names: list[str]) -> list[str]:
        """Sentences that mention every variable of `names` (the retrieval baseline's evidence for a query)."""
        return [s for s, mentioned in self.entries if set(names) <= mentioned]
