"""Code that two papers or more use, by concern: pipeline/ (the framework), data/, models/, docbench/
(docs/architecture.md)."""
