#!/bin/bash
# Pilot 5, step 1 (seed 11; JOURNAL "Pilot 5"): variant A at the default budget, image input vs symbolic input (perfect
# perception), side by side on the 2 cores. Run from the repository root under the heavy lock:
#   flock /tmp/neurips26-heavy.lock bash src/neurips26/papers/mental_imagery/pilots/pilot5.sh OUT
# It writes logs under OUT only (commits nothing, touches no configured seed).
OUT=${1:-/tmp/mi5}
mkdir -p "$OUT"
export PYTHONPATH=$PWD/src
s=$(date +%s)
PIL=".venv/bin/python -m neurips26.papers.mental_imagery.pilot --seed 11 --cache $OUT/puzzles_seed11.npz"
$PIL --generate-only > "$OUT/puzzles.log" 2>&1 || exit 1
/usr/bin/time -v $PIL > "$OUT/pilot_image.log" 2>&1 &
/usr/bin/time -v $PIL model.patch=symbols > "$OUT/pilot_symbols.log" 2>&1 &
wait
echo "pilot5 step 1 wall $(( $(date +%s) - s )) s" >> "$OUT/walls.txt"
