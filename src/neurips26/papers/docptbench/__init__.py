"""DocPTBench: how much photographing a document costs parsing and translation (seed abstract 15)."""
