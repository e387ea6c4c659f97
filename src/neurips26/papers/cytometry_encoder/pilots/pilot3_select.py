"""The third pilot's selection rule (JOURNAL 'Third pilot', written and committed before the pilot ran), applied to its
pilot.json files (one per pilot seed):

    python src/neurips26/papers/cytometry_encoder/pilots/pilot3_select.py \
        /tmp/cyto3/pilot_97/pilot.json /tmp/cyto3/pilot_98/pilot.json [--write]

Rule: the budget S is converged when doubling it (S -> 2 S) changes the frozen AUROC averaged over the four signal tasks,
averaged over the pilot seeds, by less than TOLERANCE (absolute), and so does every further doubling measured (S is not
called converged on a flat step followed by a rise; the second pilot's seed 99: +0.001 for 300 -> 600, +0.067 for
600 -> 1200). Chosen: the smallest affordable S (S <= AFFORDABLE)
that is converged; if none is, the largest affordable S, reported as unconverged. The first two pilots' loss rule
(doubling lowers the end loss by < 5 %) and the positive control's change are printed beside it, never used to choose.
--write puts the chosen S into config/cytometry_encoder/scale/default.yaml.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

TOLERANCE, AFFORDABLE = 0.01, 900
SCALE = Path(__file__).resolve().parents[5] / "config/cytometry_encoder/scale/default.yaml"


def main(argv: list[str]) -> None:
    reports = [json.loads(Path(a).read_text()) for a in argv if not a.startswith("--")]
    keys = sorted((k for k in reports[0]["doubling"] if all(k in r["doubling"] for r in reports)),
                  key=lambda k: int(k.split("->")[0]))
    print("| doubling | signal-mean AUROC change (per seed) | mean | cross_study change (per seed) | end-loss drop "
          "(per seed) | loss rule < 5 % | rule: abs(mean) < 0.01 |")
    print("|---|---|---|---|---|---|---|")
    rows = []
    for key in keys:
        d = [r["doubling"][key] for r in reports]
        change = float(np.mean([x["signal_mean_auroc_change"] for x in d]))
        rows.append({"S": int(key.split("->")[0]), "change": change, "step_ok": abs(change) < TOLERANCE})

        def per(f: str, k: str, d: list = d) -> str:
            return " / ".join(f.format(x[k]) for x in d)

        print(f"| {key} | {per('{:+.3f}', 'signal_mean_auroc_change')} | {change:+.3f} | "
              f"{per('{:+.3f}', 'cross_study_auroc_change')} | {per('{:.1%}', 'loss_improvement')} | "
              f"{'yes' if all(x['converged'] for x in d) else 'no'} | {'yes' if rows[-1]['step_ok'] else 'no'} |")
    for i, r in enumerate(rows):  # converged: this doubling and every later one within the tolerance
        r["converged"] = all(later["step_ok"] for later in rows[i:])
    affordable = [r for r in rows if r["S"] <= AFFORDABLE]
    converged = [r for r in affordable if r["converged"]]
    pick = min(converged, key=lambda r: r["S"]) if converged else max(affordable, key=lambda r: r["S"])
    beyond = [r["S"] for r in rows if r["S"] > AFFORDABLE and r["converged"]]
    print(json.dumps({"chosen_steps": pick["S"], "rule_met": bool(converged), "converged_beyond_affordable": beyond}))
    if "--write" in argv:
        text = SCALE.read_text()
        note = "converged" if converged else "NOT converged"
        block = (f"  steps: {pick['S']}         # the third pilot (seeds 97, 98; JOURNAL): {note} by its downstream rule "
                 f"(doubling\n                     # changes the signal-task mean AUROC by {pick['change']:+.3f}, rule "
                 f"< {TOLERANCE}), chosen by the rule stated before it\n")
        text, n = re.subn(r"  steps: \d+ .*\n(?:\s+#.*\n)*", block, text)
        assert n == 1, "no steps line in the default scale"
        SCALE.write_text(text)


if __name__ == "__main__":
    main(sys.argv[1:])
