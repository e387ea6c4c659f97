#!/bin/bash
# Pilot 7 (seed 11; JOURNAL "Pilot 7"): three jigsaw definitions, each its own puzzles, VLM pretraining and variant A
# (src/neurips26/papers/mental_imagery/pilots/pilot7.py), two processes on the 2 cores, then the pre-registered choice
# (src/neurips26/papers/mental_imagery/pilots/choose7.py, which writes puzzle.jigsaw into config/mental_imagery/config.yaml).
# Run from the repository root under the heavy lock:
#   flock /tmp/neurips26-heavy.lock bash src/neurips26/papers/mental_imagery/pilots/pilot7.sh OUT
OUT=${1:-/tmp/mi7}
mkdir -p "$OUT"
export PYTHONPATH=$PWD/src
s=$(date +%s)
P=".venv/bin/python src/neurips26/papers/mental_imagery/pilots/pilot7.py $OUT"
( $P gradient4 > "$OUT/pilot7_gradient4.log" 2>&1; $P reference > "$OUT/pilot7_reference.log" 2>&1 ) &
$P gradient6 > "$OUT/pilot7_gradient6.log" 2>&1 &
wait
echo "pilot7 wall $(( $(date +%s) - s )) s" >> "$OUT/walls.txt"
.venv/bin/python src/neurips26/papers/mental_imagery/pilots/choose7.py "$OUT" > "$OUT/choice7.txt" 2>&1
git diff config/mental_imagery/config.yaml > "$OUT/choice7.diff"
