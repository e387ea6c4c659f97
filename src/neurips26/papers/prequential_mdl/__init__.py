"""Prequential regret as an MDL generalization signal (seed abstract 12)."""
