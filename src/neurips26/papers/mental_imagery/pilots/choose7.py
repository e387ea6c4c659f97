"""Pilot 7's pre-registered choice (JOURNAL "Pilot 7", seed 11), from OUT/pilot7_{reference,gradient4,gradient6}.json
(pilots/pilot7.py). Per candidate (variant A, test solve rates, 100 puzzles per family): J its jigsaw
solve rate, Jb the jigsaw blind baseline, F / Fm A's first-action accuracy on jigsaw / the majority first action's, O
the mean solve rate of the other four families; O_ref the `reference` run's O (today's jigsaw).

A gradient candidate is eligible when J > Jb + 0.1 (the margin learns_puzzles asks), F > Fm, and O >= O_ref - 0.05.
Of the eligible, the larger J wins; gradient6 only if its J exceeds gradient4's by more than 0.03 (gradient4 keeps
the tiles on the 6x6 layout grid's 4x4 cells). None eligible: the jigsaw stays as it is and no finals are run.

Prints the numbers and the choice; writes the chosen definition (puzzle.jigsaw) into config/mental_imagery/config.yaml.

    python src/neurips26/papers/mental_imagery/pilots/choose7.py OUT
"""

import json
import sys
from pathlib import Path

out = Path(sys.argv[1])
res = {name: json.loads((out / f"pilot7_{name}.json").read_text()) for name in ("reference", "gradient4", "gradient6")}
OTHERS = ["rush_hour", "sokoban", "rotation", "tangram"]


def others(r):
    return sum(r["solve"][f] for f in OTHERS) / len(OTHERS)


o_ref = others(res["reference"])
eligible = {}
for name, r in res.items():
    J, Jb, F, Fm = r["solve"]["jigsaw"], r["blind"]["jigsaw"], r["first"]["jigsaw"], r["majority_first"]["jigsaw"]
    O = others(r)  # noqa: E741
    ok = name != "reference" and J > Jb + 0.1 and F > Fm and O >= o_ref - 0.05
    print(f"{name}: jigsaw {J:.3f} (blind {Jb:.3f}), first {F:.3f} (majority {Fm:.3f}), first swap on misplaced tiles "
          f"{r['first_touches_misplaced']:.3f}, others' mean {O:.3f} (reference {o_ref:.3f}), mean of five "
          f"{(O * 4 + J) / 5:.3f}; tile description {r['tile_acc']:.3f} (identity guess {r['identity_acc']:.3f}); "
          f"pretrain {r['pretrain_s']:.0f} s, fine-tune {r['train_s']:.0f} s ({r['steps']} steps)"
          + ("" if name == "reference" else f" -> eligible: {ok}"))
    if ok:
        eligible[name] = J

if not eligible:
    print("choice: none eligible; the jigsaw stays as it is, no finals")
    sys.exit(0)
choice = "gradient4"
if "gradient4" not in eligible or ("gradient6" in eligible and eligible["gradient6"] > eligible["gradient4"] + 0.03):
    choice = "gradient6"
tile = 4 if choice == "gradient4" else 6
print(f"choice: {choice}")
path = Path("config/mental_imagery/config.yaml")
text = path.read_text()
anchor = "  rotation_turns: 3       # the target is the start turned 1..3 times (+90 degrees about x, y or z)\n"
assert anchor in text
line = (f"  jigsaw: {{gradient: 0.8, tile: {tile}, reference: false}}   # pilot 7's rule ({choice}): no reference; a "
        "position-coding\n                          # colour gradient in the tiles (data.jigsaw_image)\n")
text = text.replace(anchor, anchor + line)
path.write_text(text)
print("wrote", path)
