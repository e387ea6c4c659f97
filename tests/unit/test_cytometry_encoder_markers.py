"""Marker-name harmonisation (the alias table) and the frozen name embedding."""

import itertools

import numpy as np
import pytest

from neurips26.papers.cytometry_encoder.markers import ALIASES, FLUOROCHROMES, harmonise, name_embedding
from neurips26.papers.cytometry_encoder.universe import MARKERS


@pytest.mark.parametrize("label, expected", [
    ("CD3e FITC", "CD3"), ("HLA DR-BV421", "HLA-DR"), ("CD279 PE-Cy7", "PD-1"), ("cd8a_APC", "CD8"),
    ("CD45-RA", "CD45RA"), ("CD197 PerCP-Cy5.5", "CCR7"), ("FS INT LIN", "FSC-A"), ("Ki67:AF647", "Ki-67"),
    ("FooBar-7 PE", "FOOBAR7"), ("CD45RO", "CD45RO"),
])
def test_known_spellings_map_to_their_canonical_name(label, expected):
    assert harmonise(label) == expected


def test_every_spelling_the_universe_writes_maps_back_exhaustively():
    for marker in MARKERS:
        for name, dye, sep in itertools.product([marker, *ALIASES[marker]], FLUOROCHROMES[:20], " -_"):
            assert harmonise(f"{name}{sep}{dye}") == marker, (name, dye, sep)


def test_no_two_canonical_markers_share_a_key():
    keys = [harmonise(m) for m in ALIASES]
    assert len(keys) == len(set(keys))


def test_name_embedding_is_deterministic_unit_and_similarity_follows_spelling():
    a, b, c = (name_embedding(n, 128) for n in ("CD45RA", "CD45RO", "CCR7"))
    np.testing.assert_array_equal(a, name_embedding("CD45RA", 128))
    assert abs(np.linalg.norm(a) - 1) < 1e-6 and a @ b > a @ c
    assert np.allclose(name_embedding("HLA DR", 128), name_embedding("HLA-DR", 128))
