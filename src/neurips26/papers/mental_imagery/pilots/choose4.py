"""Pilot 4's pre-registered choice (JOURNAL "Learnability pilot 4"): of the candidates' pilot logs in OUT, the one with
the largest mean margin of variant A's test solve rate over the blind baseline (seed 11); a margin within 0.005 of the
best goes to the earlier candidate in the list. Writes config/mental_imagery/scale/default.yaml with its settings.

    python src/neurips26/papers/mental_imagery/pilots/choose4.py OUT
"""

import re
import sys
from pathlib import Path

out = sys.argv[1]
cands = [("g6_b32", 6, 32, 2100), ("g6_b16", 6, 16, 3000), ("g4_b32", 4, 32, 1300), ("g4_b16", 4, 16, 2300)]
scored = []
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
    scored.append((margin, name, patch, batch, steps))
assert scored, "no candidate finished"
top = max(s[0] for s in scored)
margin, name, patch, batch, steps = next(s for s in scored if s[0] >= top - 0.005)
Path("config/mental_imagery/scale/default.yaml").write_text(f"""# @package _global_
# Embedded CPU run: one puzzles job per seed, one run job per seed and variant. The settings below were chosen by the
# pre-registered rule of pilot 4 (JOURNAL, seed 11): candidate {name}, the largest mean margin of variant A over the
# blind baseline ({margin:.3f}), the earlier candidate within 0.005.
scale_name: default
data_sizes:
  train: 1000   # puzzles per family
  dev: 50       # per family: the convergence rule's held-out puzzles
  test: 100     # per family: solve rate on all; probes are fit on probe.fit training puzzles and scored on these
train:
  max_steps: {steps}   # the cap of the convergence rule (the CPU budget: about 45 s of variant A's training per seed)
  batch: {batch}
model:
  patch: {patch}        # input patch side: 4 = 36 cell-aligned patches, 6 = 16 patches
  grid_pos: true    # a learned 2D (row + column) position added to each input patch
  d: 64
  layers: 2
  heads: 2
""")
print(f"chose {name} (patch {patch}, batch {batch}, cap {steps}, grid_pos; pilot margin over blind {margin:.3f})")
