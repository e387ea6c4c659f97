#!/bin/bash
# plant, issue #14 round 4: the final default runs from scratch with the committed config (pilot 5's choice), one
# seed set per call, wall time and per-job benchmarks kept under results/plant_pilot5/final_<seeds>/:
#   flock /tmp/neurips26-heavy.lock bash tools/plant_final4.sh 0,1,2
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD/src PATH=$PWD/.venv/bin:$PATH
P=results/plant_pilot5
set=$1
mkdir -p $P
rm -rf results/plant logs/plant data/raw/plant_medline
start=$(date +%s.%N)
snakemake --cores 2 results/plant/claims.json --config "seeds=[$set]" > $P/final_${set//,/}.log 2>&1
end=$(date +%s.%N)
echo "seeds $set: $(python -c "print(round($end - $start, 1))") s wall ($(date -u +%T) UTC)" | tee -a $P/wall.txt
rm -rf $P/final_${set//,/}
cp -r results/plant $P/final_${set//,/}
cp -r logs/plant/benchmarks $P/final_${set//,/}/benchmarks
