#!/bin/bash
# plant, issue #14 round 3: pilot 4 (the stopping rule). Builds the default-scale dataset and MiniLM states, trains
# MiniLM LAAT and the oracle for exactly 30 epochs on seeds 30-35 (restart 0), records dev and test numbers after
# every epoch, and chooses by tools/plant_pilot.py `epochschoose` / `choose4` (rule written in the README before it
# ran). Writes results/plant_pilot4/{a,b}.{npz,log}, choice.txt, wall.txt; config/plant is changed by `apply4` after
# it, by hand (then committed before the final runs). Under the shared lock:
#   flock /tmp/neurips26-heavy.lock bash tools/plant_pilot4.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD/src PATH=$PWD/.venv/bin:$PATH
P=results/plant_pilot4
rm -rf $P && mkdir -p $P
start=$(date +%s)
snakemake --cores 2 results/plant/config.yaml results/plant/data/dataset.json results/plant/states/minilm.npz \
  > $P/setup.log 2>&1
python tools/plant_pilot.py epochs $P/a.npz 30,31,32 30 > $P/a.log 2>&1 &
python tools/plant_pilot.py epochs $P/b.npz 33,34,35 30 > $P/b.log 2>&1 &
wait
python tools/plant_pilot.py epochschoose $P/a.npz $P/b.npz > $P/choice.txt 2>&1
echo "pilot 4: $(( $(date +%s) - start )) s wall" | tee $P/wall.txt
