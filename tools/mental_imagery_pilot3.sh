#!/bin/bash
# Pilot 3 (seed 11) -> its pre-registered choice (tools/mental_imagery_choose.py, committed) -> the final default runs on
# seeds [0, 1, 2] then [3, 4, 5] -> the tiny run; logs and copies of the results under OUT. Run from the repository root
# under the heavy lock:  flock /tmp/neurips26-heavy.lock bash tools/mental_imagery_pilot3.sh /tmp/mi
# It rewrites config/mental_imagery/scale/default.yaml (the choice; its diff is saved as OUT/choice3.diff for you to
# review and commit) and replaces results/ and logs/ of mental_imagery (copies are kept under OUT). It commits nothing.
OUT=${1:-/tmp/mi}
mkdir -p "$OUT"
export PYTHONPATH=$PWD/src
PIL=".venv/bin/python -m neurips26.papers.mental_imagery.pilot --seed 11"
$PIL --time-variants model.patch=4 model.grid_pos=true train.batch=32 train.max_steps=800 > "$OUT/pilot_g4_b32.log" 2>&1 &
$PIL --time-variants model.patch=6 model.grid_pos=true train.batch=32 train.max_steps=1200 > "$OUT/pilot_g6_b32.log" 2>&1 &
wait
.venv/bin/python tools/mental_imagery_choose.py "$OUT" > "$OUT/choice3.txt" 2>&1 || exit 1
git diff config/mental_imagery/scale/default.yaml > "$OUT/choice3.diff"  # the choice, recorded before any final run
export PATH=$PWD/.venv/bin:$PATH
for seeds in "0,1,2" "3,4,5"; do
  rm -rf results/mental_imagery logs/mental_imagery
  s=$(date +%s)
  snakemake --cores 2 results/mental_imagery/claims.json --config "seeds=[$seeds]" > "$OUT/final_${seeds//,/}.log" 2>&1
  echo "seeds $seeds rc $? wall $(( $(date +%s) - s )) s" >> "$OUT/final_walls.txt"
  rm -rf "$OUT/final_${seeds//,/}"; mkdir -p "$OUT/final_${seeds//,/}/logs"
  cp -r results/mental_imagery "$OUT/final_${seeds//,/}/"; cp -r logs/mental_imagery "$OUT/final_${seeds//,/}/logs/"
done
rm -rf results/mental_imagery logs/mental_imagery
s=$(date +%s)
snakemake --cores 1 results/mental_imagery/claims.json --config scale=tiny > "$OUT/tiny.log" 2>&1
echo "tiny --cores 1 rc $? wall $(( $(date +%s) - s )) s" >> "$OUT/final_walls.txt"
