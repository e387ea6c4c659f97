"""PLANT: planted label attention for extreme multi-label classification (seed abstract 1)."""
