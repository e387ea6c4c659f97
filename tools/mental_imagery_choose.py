"""Pilot 3's pre-registered choice (README): of the candidates' pilot logs in OUT, the one with the larger mean margin
of variant A over the blind baseline; writes config/mental_imagery/scale/default.yaml with its settings.

    python tools/mental_imagery_choose.py OUT
"""

import re
import sys
from pathlib import Path

out = sys.argv[1]
cands = [("g4_b32", 4, 32, 800), ("g6_b32", 6, 32, 1200)]
best = None
for name, patch, batch, steps in cands:
    f = Path(f"{out}/pilot_{name}.log")
    text = f.read_text() if f.exists() else ""
    m = re.search(r"^mean\s+train (\S+)\s+test (\S+)\s+blind (\S+)\s+first (\S+) \(majority (\S+)\)", text, re.M)
    if not m:
        print(name, "failed")
        continue
    margin = float(m.group(2)) - float(m.group(3))
    print(name, "test", m.group(2), "blind", m.group(3), "margin", round(margin, 3), "first", m.group(4),
          "majority", m.group(5))
    if best is None or margin > best[0]:
        best = (margin, name, patch, batch, steps)
assert best is not None
margin, name, patch, batch, steps = best
Path("config/mental_imagery/scale/default.yaml").write_text(f"""# @package _global_
# Embedded CPU run: one puzzles job per seed, one run job per seed and variant. The settings below were chosen by the
# pre-registered rule of pilot 3 (README, seed 11): candidate {name}, the larger mean margin of variant A over the
# blind baseline ({margin:.3f}).
scale_name: default
data_sizes:
  train: 1000   # puzzles per family
  dev: 50       # per family: the convergence rule's held-out puzzles
  test: 100     # per family: solve rate on all; probes are fit on probe.fit training puzzles and scored on these
train:
  max_steps: {steps}   # the cap of the convergence rule (the CPU budget: the default run in about 7 minutes)
  batch: {batch}
model:
  patch: {patch}        # input patch side: 4 = 36 cell-aligned patches, 6 = 16 patches
  grid_pos: true    # a learned 2D (row + column) position added to each input patch
  d: 64
  layers: 2
  heads: 2
""")
print(f"chose {name} (patch {patch}, batch {batch}, cap {steps}, grid_pos; pilot margin over blind {margin:.3f})")
