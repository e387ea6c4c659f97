"""neurips26: one reproducible pipeline for the 19 papers of a NeurIPS 2026 batch."""

__version__ = "0.1.0"
