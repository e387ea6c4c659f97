"""Pilot 5 step 2's pre-registered choice (JOURNAL "Pilot 5"): among the pretraining candidates whose estimated
per-seed job CPU (P + 4.55 F + 60 s) is at most 1.15 x today's (272 s), the largest mean margin of variant A over
blind (seed 11), a margin within 0.01 of the best going to the cheaper; none unless it beats today's 0.076 by 0.05.
Then the probe rule: the positive control random_code on the chosen candidate's probes (pooled, else changed cells).
Writes config/mental_imagery/scale/default.yaml (pretrain.steps, train.max_steps) when a candidate is chosen.

    python src/neurips26/papers/mental_imagery/pilots/choose5.py OUT
"""

import re
import sys
from pathlib import Path

import pandas as pd

out = sys.argv[1]
TODAY_MARGIN, TODAY_COST = 0.076, 46.5 * 4.55 + 60
cands = [("pt1000_c2100", 1000, 2100), ("pt2000_c1500", 2000, 1500), ("pt3000_c1000", 3000, 1000)]
scored = []
for name, pre, cap in cands:
    f = Path(f"{out}/pilot_{name}.log")
    text = f.read_text() if f.exists() else ""
    m = re.search(r"^mean\s+train (\S+)\s+test (\S+)\s+blind (\S+)\s+first (\S+) \(majority (\S+)\)", text, re.M)
    p = re.search(r"^pretrain (\S+)s,", text, re.M)
    t = re.search(r"^train (\S+)s,", text, re.M)
    if not (m and p and t):
        print(name, "failed")
        continue
    margin = float(m.group(2)) - float(m.group(3))
    cost = float(p.group(1)) + 4.55 * float(t.group(1)) + 60
    ok = cost <= 1.15 * TODAY_COST
    print(f"{name}: test {m.group(2)} blind {m.group(3)} margin {margin:.3f} first {m.group(4)} (majority "
          f"{m.group(5)}); pretrain {p.group(1)} s, fine-tune {t.group(1)} s, est. CPU {cost:.0f} s "
          f"(bound {1.15 * TODAY_COST:.0f}) {'eligible' if ok else 'NOT eligible'}")
    if ok:
        scored.append((margin, cost, name, pre, cap))
best = max((s[0] for s in scored), default=None)
if best is None or best < TODAY_MARGIN + 0.05:
    print(f"no candidate beats today's margin {TODAY_MARGIN} by 0.05: the default keeps no pretraining")
    sys.exit(0)
margin, cost, name, pre, cap = min((s for s in scored if s[0] >= best - 0.01), key=lambda s: s[1])
print(f"chose {name} (pretrain {pre} steps, fine-tune cap {cap}; margin {margin:.3f}, est. CPU {cost:.0f} s)")

probe = pd.read_csv(f"{out}/probe_{name}.csv")
for label, frame, col in (("pooled", probe[probe["step"] == 0], "acc"),
                          ("changed", probe[probe["step"] > 0], "changed_acc")):
    t = frame.pivot_table(index="family", columns="kind", values=col)
    if label == "changed":
        t["copy"] = 0.0
    rc = t["random_code"]
    worst = {"over_copy": (rc - t["copy"]).min(), "over_untrained": (rc - t[["untrained", "pretrained"]].max(axis=1)).min(),
             "over_start_only": (rc - t["start_only"]).min()}
    print(f"random_code on {label} cells: " + ", ".join(f"min margin {k} {v:.3f}" for k, v in worst.items()))
    if min(worst.values()) > 0:
        print(f"probe rule: random_code passes on {label} cells -> criterion on {label} cells")
        break
else:
    print("probe rule: random_code fails on pooled and changed cells -> the probe claim is untestable at this size")

path = Path("config/mental_imagery/scale/default.yaml")
text = path.read_text()
text = re.sub(r"max_steps: \d+ ", f"max_steps: {cap} ", text)
text = text.replace("scale_name: default\n", f"scale_name: default\npretrain:\n  steps: {pre}   # pilot 5 step 2's "
                    f"choice ({name}: margin of A over blind {margin:.3f} on seed 11)\n")
path.write_text(text)
