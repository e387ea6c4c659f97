"""HyperIDAC: domain-conditioned class imbalance, controlled allocation, hypernetwork classifier (seed abstract 5)."""
