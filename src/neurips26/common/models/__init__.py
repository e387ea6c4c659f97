"""Models and training helpers two or more papers share: optimiser construction, Hessian spectra, the local LLM and
MiniLM loaders, device choice, the allocator setting. Imports only common.pipeline and common.data."""
