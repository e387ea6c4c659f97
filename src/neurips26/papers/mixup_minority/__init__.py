"""Minority collapse under Mixup: the Balanced Mixed Label Sampler (BMLS) and the Mixed-Singleton (MS) classifier."""
