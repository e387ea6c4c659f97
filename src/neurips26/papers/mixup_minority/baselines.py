"""Every trained method: the paper's BMLS + MS, its two ablations and the baselines, as (sampling, head, loss) choices.

    sampling: a Mixup pair sampler (samplers.SAMPLERS) or None (no Mixup, single instances by `single`)
    head:     linear (learned, bias-free) | etf (fixed K-simplex ETF, Yang et al. 2022) | ms (fixed ETF over the K pure
              classes + K (K - 1) / 2 pair singletons; Mixed-Singleton targets)
    loss:     ce (soft-label cross-entropy for Mixup) | la (logit-adjusted CE, Menon et al. 2021, tau = cfg)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Method:
    name: str
    mixup: str | None
    single: str = "instance"
    head: str = "linear"
    loss: str = "ce"
    role: str = "baseline"


METHODS = {m.name: m for m in [
    Method("ce", None),
    Method("cb_resample", None, single="class_balanced"),
    Method("logit_adjust", None, loss="la"),
    Method("fixed_etf", None, head="etf"),
    Method("mixup_instance", "instance"),
    Method("mixup_cb", "class_balanced"),
    Method("mixup_lobm", "class_class"),
    Method("bmls", "bmls", role="ablation: BMLS without MS"),
    Method("ms", "instance", head="ms", role="ablation: MS without BMLS"),
    Method("bmls_ms", "bmls", head="ms", role="proposed"),
]}
