"""The document benchmark docatlas, docscope and docptbench share: synthetic documents rendered to PDF and the
benchmark that builds and scores them. Imports only common.pipeline."""
