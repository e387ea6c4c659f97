"""MEC-MMD: measurement-error-corrected MMD with an audited subset (seed abstract 2)."""
