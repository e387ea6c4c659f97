"""Pilot 6's pre-registered choice (JOURNAL "Pilot 6", seed 11), from OUT/pilot6_uniform.json and
OUT/pilot6_jigsaw3.json (src/neurips26/papers/mental_imagery/pilots/pilot6.py):

1. C's visual-token embedding: 'shared' (the patch encoder + the 2D positions of the input patches) unless C_shared's
   mean solve rate is below C_separate's by more than 0.03 (uniform mix).
2. The jigsaw-weighted pretraining mix (jigsaw boards drawn 3x as often, same steps) only if (a) jigsaw's description
   accuracy under the uniform mix is below the mean of the other four families' by >= 0.05, (b) the weighted mix
   raises jigsaw's description accuracy by > 0.01 and (c) raises A's mean margin over blind by >= 0.02.

Prints the numbers and the choice, and writes it into config/mental_imagery/scale/default.yaml (model.z_embed, and
pretrain.family_weight when (2) holds).

    python src/neurips26/papers/mental_imagery/pilots/choose6.py OUT
"""

import json
import sys
from pathlib import Path

out = Path(sys.argv[1])
uni = json.loads((out / "pilot6_uniform.json").read_text())
jig = json.loads((out / "pilot6_jigsaw3.json").read_text())


def mean(d):
    return sum(d.values()) / len(d)


def margin(run):
    return mean(run["solve"]) - mean(run["blind"])


for res in (uni, jig):
    print(f"{res['mix']}: pretrain {res['pretrain_s']:.1f} s, description acc {res['description_acc']:.3f}, per family "
          + ", ".join(f"{k} {v:.3f}" for k, v in res["family_acc"].items()))
    for name, run in res["runs"].items():
        print(f"  {name}: mean {mean(run['solve']):.3f} (blind {mean(run['blind']):.3f}, margin {margin(run):.3f}), "
              + ", ".join(f"{k} {v:.3f}" for k, v in run["solve"].items())
              + f"; first {mean(run['first']):.3f}; steps {run['steps']:.0f}; {run['wall_s']:.1f} s")

c_sh, c_sep = mean(uni["runs"]["C_shared"]["solve"]), mean(uni["runs"]["C_separate"]["solve"])
z_embed = "separate" if c_sh < c_sep - 0.03 else "shared"
print(f"rule 1: C_shared {c_sh:.3f} vs C_separate {c_sep:.3f} -> z_embed {z_embed}")

fa = uni["family_acc"]
others = mean({k: v for k, v in fa.items() if k != "jigsaw"})
a = fa["jigsaw"] <= others - 0.05
b = jig["family_acc"]["jigsaw"] > fa["jigsaw"] + 0.01
gain = margin(jig["runs"]["A_shared"]) - margin(uni["runs"]["A_shared"])
c = gain >= 0.02
print(f"rule 2: (a) jigsaw description {fa['jigsaw']:.3f} vs others {others:.3f}: {a}; (b) weighted jigsaw "
      f"description {jig['family_acc']['jigsaw']:.3f}: {b}; (c) A's margin over blind {margin(uni['runs']['A_shared']):.3f}"
      f" -> {margin(jig['runs']['A_shared']):.3f} (gain {gain:+.3f}): {c} -> jigsaw weighting "
      + ("taken" if a and b and c else "not taken"))

path = Path("config/mental_imagery/scale/default.yaml")
text = path.read_text()
text = text.replace("  grid_pos: true    # a learned 2D (row + column) position added to each input patch\n",
                    "  grid_pos: true    # a learned 2D (row + column) position added to each input patch\n"
                    f"  z_embed: {z_embed}   # pilot 6 rule 1: C's visual tokens (shared: patch encoder + 2D positions)\n")
if a and b and c:
    text = text.replace("  steps: 2000   #", "  family_weight: {jigsaw: 3}   # pilot 6 rule 2: jigsaw boards 3x as often\n"
                        "  steps: 2000   #")
path.write_text(text)
print("wrote", path)
