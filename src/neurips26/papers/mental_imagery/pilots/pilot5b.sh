#!/bin/bash
# Pilot 5, step 2 (seed 11; JOURNAL "Pilot 5"): VLM pretraining candidates, variant A, image input, then the
# pre-registered choice (src/neurips26/papers/mental_imagery/pilots/choose5.py, which rewrites config/mental_imagery/scale/default.yaml).
# Run from the repository root under the heavy lock, after step 1 (its puzzle cache):
#   flock /tmp/neurips26-heavy.lock bash src/neurips26/papers/mental_imagery/pilots/pilot5b.sh OUT
OUT=${1:-/tmp/mi5}
mkdir -p "$OUT"
export PYTHONPATH=$PWD/src
s=$(date +%s)
PIL=".venv/bin/python -m neurips26.papers.mental_imagery.pilot --seed 11 --cache $OUT/puzzles_seed11.npz"
$PIL --generate-only > "$OUT/puzzles.log" 2>&1 || exit 1
run() { $PIL --probe-csv "$OUT/probe_$1.csv" pretrain.steps=$2 train.max_steps=$3 > "$OUT/pilot_$1.log" 2>&1; }
run pt1000_c2100 1000 2100 &
run pt2000_c1500 2000 1500 &
wait
run pt3000_c1000 3000 1000
echo "pilot5 step 2 wall $(( $(date +%s) - s )) s" >> "$OUT/walls.txt"
.venv/bin/python src/neurips26/papers/mental_imagery/pilots/choose5.py "$OUT" > "$OUT/choice5.txt" 2>&1
git diff config/mental_imagery/scale/default.yaml > "$OUT/choice5.diff"
