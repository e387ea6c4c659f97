#!/bin/bash
# plant, issue #14 round 2: pilot 3 (seeds 16-21, MiniLM LAAT and oracle, patience 6, restarts 1), then the choice by
# tools/plant_pilot.py `choose3` (written in the README before the run). Under the shared lock:
#   flock /tmp/neurips26-heavy.lock bash tools/plant_pilot3.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD/src PATH=$PWD/.venv/bin:$PATH
P=results/plant_pilot3
rm -rf $P && mkdir -p $P
start=$(date +%s)
python tools/plant_pilot.py noise $P/a.npz 16,17,18 1 6 oracle > $P/a.log 2>&1 &
python tools/plant_pilot.py noise $P/b.npz 19,20,21 1 6 oracle > $P/b.log 2>&1 &
wait
python tools/plant_pilot.py noisechoose3 $P/a.npz $P/b.npz > $P/choice.txt 2>&1
echo "pilot 3: $(( $(date +%s) - start )) s wall" | tee $P/wall.txt
