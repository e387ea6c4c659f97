"""Seed robustness (docs/robustness.md): each paper's claims rerun on K seed sets disjoint from the configured seeds."""
