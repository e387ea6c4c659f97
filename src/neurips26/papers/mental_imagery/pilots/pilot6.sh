#!/bin/bash
# Pilot 6 (seed 11; JOURNAL "Pilot 6"): C's visual tokens through the shared patch encoder vs a separate embedding, and
# a jigsaw-weighted pretraining mix; then the pre-registered choice (src/neurips26/papers/mental_imagery/pilots/choose6.py, which writes
# config/mental_imagery/scale/default.yaml). OUT must hold pilot 5's puzzle cache of seed 11 (puzzles_seed11.npz).
# Run from the repository root under the heavy lock:
#   flock /tmp/neurips26-heavy.lock bash src/neurips26/papers/mental_imagery/pilots/pilot6.sh OUT
OUT=${1:-/tmp/mi6}
export PYTHONPATH=$PWD/src
s=$(date +%s)
P=".venv/bin/python src/neurips26/papers/mental_imagery/pilots/pilot6.py $OUT"
$P uniform A:shared C:shared C:separate > "$OUT/pilot6_uniform.log" 2>&1 &
$P jigsaw3 A:shared C:shared > "$OUT/pilot6_jigsaw3.log" 2>&1 &
wait
echo "pilot6 wall $(( $(date +%s) - s )) s" >> "$OUT/walls.txt"
.venv/bin/python src/neurips26/papers/mental_imagery/pilots/choose6.py "$OUT" > "$OUT/choice6.txt" 2>&1
git diff config/mental_imagery/scale/default.yaml > "$OUT/choice6.diff"
