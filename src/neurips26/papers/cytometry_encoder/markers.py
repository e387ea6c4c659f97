"""Marker names: harmonisation through a documented alias table, and a frozen name embedding for unseen markers.

A channel's marker is its $PnS label when present (else $PnN). Harmonisation (1) drops a trailing fluorochrome
("CD3 FITC", "CD8-APC-Cy7"), (2) compares names on a key of upper-case letters and digits only ("HLA DR" = "HLA-DR"),
(3) maps synonyms through ALIASES (gene or CD-number spellings). A name the table does not know keeps its own key, so an
unseen marker stays a marker of its own; it still gets a vector, because the identity embedding is computed from the
name's characters (hashed character n-grams), not looked up in a vocabulary.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

# canonical name -> other spellings seen in panels (CD number, gene name, vendor spellings). Keys compare after KEY().
ALIASES: dict[str, list[str]] = {
    "CD3": ["CD3e", "CD3E", "Leu-4"], "CD4": ["Leu-3a"], "CD8": ["CD8a", "CD8alpha", "Leu-2a"],
    "CD45": ["PTPRC", "LCA"], "CD45RA": ["CD45-RA"], "CD45RO": ["CD45-RO"], "HLA-DR": ["HLADR", "MHC-II", "MHCII"],
    "CCR7": ["CD197"], "CXCR5": ["CD185"], "CXCR3": ["CD183"], "CCR6": ["CD196"], "PD-1": ["CD279", "PDCD1"],
    "CD127": ["IL7RA", "IL-7Ra"], "CD25": ["IL2RA", "IL-2Ra"], "CD56": ["NCAM1", "NCAM"], "CD16": ["FCGR3A", "FcgRIII"],
    "CD11c": ["ITGAX"], "CD11b": ["ITGAM", "Mac-1"], "CD14": ["LPS-R"], "CD19": ["B4"], "CD20": ["MS4A1"],
    "CD27": ["TNFRSF7"], "CD28": [], "CD38": [], "CD57": ["B3GAT1", "HNK-1"], "CD161": ["KLRB1"],
    "CD123": ["IL3RA"], "CD1c": ["BDCA-1"], "CD141": ["BDCA-3", "THBD"], "CD33": ["SIGLEC3"], "CD34": [],
    "CD117": ["KIT", "c-kit"], "CD10": ["MME", "CALLA"], "CD13": ["ANPEP"], "CD15": ["SSEA-1"], "CD64": ["FCGR1A"],
    "CD24": [], "IgD": [], "IgM": [], "TCRgd": ["TCR-gd", "TCRgammadelta", "gdTCR"], "CD5": [], "CD7": [], "CD2": [],
    "CD71": ["TFRC"], "CD69": [], "Ki-67": ["Ki67", "MKI67"], "CD95": ["FAS"], "CD122": ["IL2RB"],
    "FSC-A": ["FSC", "FS", "FS Lin", "FS INT LIN"], "SSC-A": ["SSC", "SS", "SS Log", "SS INT LIN"],
}
# trailing fluorochrome / detector words removed before lookup (case-insensitive)
FLUOROCHROMES = ("FITC", "PE", "APC", "PerCP", "PerCP-Cy5.5", "PE-Cy7", "PE-Cy5", "PE-Cy5.5", "APC-Cy7", "APC-H7",
                 "BV421", "BV510", "BV605", "BV650", "BV711", "BV786", "BUV395", "BUV737", "AF488", "AF647",
                 "Alexa488", "Alexa647", "Alexa700", "AF700", "ECD", "PC5", "PC7", "PB", "PacificBlue", "V450", "V500",
                 "KO", "Qdot605", "eFluor450", "PE-CF594", "PE-Dazzle594")
TIME_CHANNELS = {"TIME", "HDRT"}


def KEY(name: str) -> str:  # noqa: N802 (reads as the comparison key of a name)
    return re.sub(r"[^A-Z0-9]", "", name.upper())


_CANONICAL = {KEY(c): c for c in ALIASES}
_CANONICAL.update({KEY(a): c for c, spellings in ALIASES.items() for a in spellings})
_FLUOR = re.compile(r"[\s_\-/:]+(" + "|".join(re.escape(f) for f in sorted(FLUOROCHROMES, key=len, reverse=True))
                    + r")$", re.IGNORECASE)


def strip_fluorochrome(label: str) -> str:
    previous = None
    label = label.strip()
    while previous != label:  # "CD8 PE-Cy7" and "CD8-PE-Cy7" both lose the whole dye
        previous, label = label, _FLUOR.sub("", label).strip()
    return label


def harmonise(label: str) -> str:
    """The canonical marker name of a channel label (the alias table's name, else the label's own key)."""
    stripped = strip_fluorochrome(label)
    return _CANONICAL.get(KEY(stripped), KEY(stripped) or KEY(label))


def is_time(label: str) -> bool:
    return KEY(label) in TIME_CHANNELS


def name_embedding(name: str, dim: int = 128, ngrams: tuple[int, ...] = (2, 3), whole_slots: int = 8,
                   whole_weight: float = 1.5) -> np.ndarray:
    """Deterministic unit vector of a marker name: signed hashing of its character n-grams (with boundary marks) plus
    `whole_slots` signed hashes of the whole name.

    Names sharing n-grams (CD45RA, CD45RO) get nearby vectors; the whole-name part keeps near-identical spellings of
    different markers (CD13, CD14) apart; any name, seen or not, gets one. blake2b is stable across processes and
    machines (Python's hash() is salted per process); crc32 would not do: it is affine in its input, so two names
    differing in the same bytes collide with correlated signs in every slot.
    """
    key = KEY(name)
    text = f"^{key}$"
    vector = np.zeros(dim, dtype=np.float64)
    half = dim // 2  # n-grams hash into the first half, the whole name into the second: their collisions cannot mix
    features = [(f"{n}:{text[i:i + n]}", 1.0, 0) for n in ngrams for i in range(len(text) - n + 1)]
    features += [(f"whole{j}:{key}", whole_weight, half) for j in range(whole_slots)]
    for feature, weight, offset in features:
        h = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")
        vector[offset + h % half] += weight if (h >> 16) & 1 else -weight
    norm = np.linalg.norm(vector)
    return (vector / norm if norm > 0 else vector).astype(np.float32)


def name_matrix(names: list[str], dim: int) -> np.ndarray:
    return np.stack([name_embedding(n, dim) for n in names]) if names else np.zeros((0, dim), np.float32)
