#!/bin/bash
# plant, issue #14 round 2: pilot 2 (seeds 10-15, MiniLM LAAT and oracle, restarts 0 and 1), then the choice by the
# rule in tools/plant_pilot.py `choose2` (written in the README before the run). Needs the default-scale
# results/plant/{config.yaml,data/dataset.json,states/minilm.npz}. Run under the shared lock:
#   flock /tmp/neurips26-heavy.lock bash tools/plant_pilot2.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD/src PATH=$PWD/.venv/bin:$PATH
P=results/plant_pilot2
rm -rf $P && mkdir -p $P
start=$(date +%s)
python tools/plant_pilot.py noise $P/a.npz 10,11,12 2 > $P/a.log 2>&1 &
python tools/plant_pilot.py noise $P/b.npz 13,14,15 2 > $P/b.log 2>&1 &
wait
python tools/plant_pilot.py noisechoose $P/a.npz $P/b.npz > $P/choice.txt 2>&1
echo "pilot 2: $(( $(date +%s) - start )) s wall" | tee $P/wall.txt
