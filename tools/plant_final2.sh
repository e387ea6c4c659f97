#!/bin/bash
# plant, issue #14 round 2, in one hold of the shared lock: pilot 3 (tools/plant_pilot3.sh), its choice written into
# config/plant by the rule fixed before it (tools/plant_pilot.py choose3/apply3), then the final default runs from
# scratch on seeds 0-2 and 3-5 (wall times and per-job benchmarks kept under results/plant_pilot3/):
#   flock /tmp/neurips26-heavy.lock bash tools/plant_final2.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD/src PATH=$PWD/.venv/bin:$PATH
date -u +"start %T"
bash tools/plant_pilot3.sh
P=results/plant_pilot3
python tools/plant_pilot.py apply3 $P/choice.txt | tee $P/applied.txt
git diff config/plant > $P/config_change.txt
for set in "0,1,2" "3,4,5"; do
  rm -rf results/plant logs/plant data/raw/plant_medline
  start=$(date +%s.%N)
  snakemake --cores 2 results/plant/claims.json --config "seeds=[$set]" > $P/final_${set//,/}.log 2>&1
  end=$(date +%s.%N)
  echo "seeds $set: $(python -c "print(round($end - $start, 1))") s wall" | tee -a $P/wall.txt
  cp -r results/plant $P/final_${set//,/}
  cp -r logs/plant/benchmarks $P/final_${set//,/}/benchmarks
done
rm -rf results/plant && cp -r $P/final_012 results/plant   # the configured seeds' results in place
date -u +"end %T"
