"""DocScope: trajectory-level evaluation of long-document QA (seed abstract 14)."""
