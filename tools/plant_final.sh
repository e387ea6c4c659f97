#!/bin/bash
# plant, issue #14: the pilot (seeds 6 and 7, outside 0-5) and the final runs (seeds 0-2, then 3-5) in one hold of the
# shared lock: flock /tmp/neurips26-heavy.lock bash tools/plant_final.sh. The only setting the pilot chooses is the L2R
# scorer's (steps, lr, factors), by the rule in tools/plant_pilot.py `choose`, written before the run; the decoder
# pilot (paired differences on seeds 6, 7) is reported, not used to choose. Outputs under results/plant_pilot/.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD/src PATH=$PWD/.venv/bin:$PATH
P=results/plant_pilot
rm -rf $P && mkdir -p $P
date -u +"pilot start %T"
python tools/plant_pilot.py l2r $P/l2r_choice.json > $P/l2r.log 2>&1
if [ "$(date -u +%H%M)" -lt "${PLANT_PILOT_UNTIL:-1325}" ]; then  # the decoder pilot only when the lock came early enough
  python tools/plant_pilot.py decoders $P/seed6.csv $P/l2r_choice.json 6 > $P/seed6.log 2>&1 &
  python tools/plant_pilot.py decoders $P/seed7.csv $P/l2r_choice.json 7 > $P/seed7.log 2>&1 &
  wait
  python tools/plant_pilot.py show $P/seed6.csv $P/seed7.csv > $P/show.txt 2>&1
fi
python tools/plant_pilot.py apply $P/l2r_choice.json
git diff --stat config/plant > $P/config_change.txt
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
