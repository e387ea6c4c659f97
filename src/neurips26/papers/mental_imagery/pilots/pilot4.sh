#!/bin/bash
# Pilot 4 (seed 11; JOURNAL "Learnability pilot 4") -> its pre-registered choice (src/neurips26/papers/mental_imagery/pilots/choose4.py) -> the
# final default runs on seeds [0, 1, 2] then [3, 4, 5] -> the tiny run; logs and copies of the results under OUT. Run
# from the repository root under the heavy lock:  flock /tmp/neurips26-heavy.lock bash src/neurips26/papers/mental_imagery/pilots/pilot4.sh OUT
# It rewrites config/mental_imagery/scale/default.yaml (the choice; its diff is saved as OUT/choice4.diff) and replaces
# results/ and logs/ of mental_imagery (copies are kept under OUT). It commits nothing.
OUT=${1:-/tmp/mi4}
mkdir -p "$OUT"
export PYTHONPATH=$PWD/src
s=$(date +%s)
PIL=".venv/bin/python -m neurips26.papers.mental_imagery.pilot --seed 11 --cache $OUT/puzzles_seed11.npz"
$PIL --generate-only > "$OUT/puzzles.log" 2>&1 || exit 1
run() { $PIL "${@:2}" > "$OUT/pilot_$1.log" 2>&1; }
run g6_b32 model.patch=6 train.batch=32 train.max_steps=2100 &
run g6_b16 model.patch=6 train.batch=16 train.max_steps=3000 &
wait
run g4_b32 model.patch=4 train.batch=32 train.max_steps=1300 &
run g4_b16 model.patch=4 train.batch=16 train.max_steps=2300 &
wait
echo "pilot wall $(( $(date +%s) - s )) s" >> "$OUT/final_walls.txt"
.venv/bin/python src/neurips26/papers/mental_imagery/pilots/choose4.py "$OUT" > "$OUT/choice4.txt" 2>&1 || exit 1
git diff config/mental_imagery/scale/default.yaml > "$OUT/choice4.diff"  # the choice, recorded before any final run
export PATH=$PWD/.venv/bin:$PATH
STOP=${MI_STOP_AFTER:-$(cat "$OUT/stop_after" 2>/dev/null)}  # HH:MM UTC: start no final or tiny run after it
late() { [ -n "$STOP" ] && [ "$(date -u +%H:%M)" \> "$STOP" ] && echo "skipped $1: past $STOP" >> "$OUT/final_walls.txt"; }
for seeds in "0,1,2" "3,4,5"; do
  late "seeds $seeds" && continue
  rm -rf results/mental_imagery logs/mental_imagery
  s=$(date +%s)
  snakemake --cores 2 results/mental_imagery/claims.json --config "seeds=[$seeds]" > "$OUT/final_${seeds//,/}.log" 2>&1
  echo "seeds $seeds rc $? wall $(( $(date +%s) - s )) s" >> "$OUT/final_walls.txt"
  rm -rf "$OUT/final_${seeds//,/}"; mkdir -p "$OUT/final_${seeds//,/}/logs"
  cp -r results/mental_imagery "$OUT/final_${seeds//,/}/"; cp -r logs/mental_imagery "$OUT/final_${seeds//,/}/logs/"
done
late tiny && exit 0
rm -rf results/mental_imagery logs/mental_imagery
s=$(date +%s)
snakemake --cores 1 results/mental_imagery/claims.json --config scale=tiny > "$OUT/tiny.log" 2>&1
echo "tiny --cores 1 rc $? wall $(( $(date +%s) - s )) s" >> "$OUT/final_walls.txt"
rm -rf "$OUT/tiny"; mkdir -p "$OUT/tiny"; cp -r logs/mental_imagery "$OUT/tiny/"
