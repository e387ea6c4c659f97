"""Data: pinned downloads (URLs and Hugging Face hub files), the source lock, the dataset registry, and readers of the
shared formats (IDX, CIFAR batches, CSVs, text corpora). Imports only common.pipeline."""
