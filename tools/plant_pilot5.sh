#!/bin/bash
# plant, issue #14 round 4: pilot 5 (more dev documents; candidates, rule and plan in the README, written before it
# ran). Builds the default dataset plus 300 extra dev documents (dataset.extra_dev=300) and its MiniLM states, trains
# MiniLM LAAT and the oracle as the ablation job does (12 epochs, 2 restarts) on seeds 50-55, and evaluates the oracle
# control with LAAT's threshold chosen on 100 or on 400 dev documents (tools/plant_pilot.py devchoose / choose5).
# Writes results/plant_pilot5/{dataset.json,minilm.npz,a.npz,b.npz,*.log,choice.txt,wall.txt}. Under the shared lock:
#   flock /tmp/neurips26-heavy.lock bash tools/plant_pilot5.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD/src PATH=$PWD/.venv/bin:$PATH
P=results/plant_pilot5
rm -rf $P && mkdir -p $P
start=$(date +%s)
snakemake --cores 2 results/plant/config.yaml data/raw/plant_medline/provenance.json > $P/setup.log 2>&1
python -m neurips26 plant prepare --config results/plant/config.yaml --input data/raw/plant_medline/provenance.json \
  --output $P/dataset.json dataset.extra_dev=300 >> $P/setup.log 2>&1
python -m neurips26 plant cache --config results/plant/config.yaml --input $P/dataset.json --output $P/minilm.npz \
  --threads 1 backbone=minilm >> $P/setup.log 2>&1
python tools/plant_pilot.py devnoise $P/a.npz 50,51,52 $P > $P/a.log 2>&1 &
python tools/plant_pilot.py devnoise $P/b.npz 53,54,55 $P > $P/b.log 2>&1 &
wait
python tools/plant_pilot.py devchoose $P $P/a.npz $P/b.npz > $P/choice.txt 2>&1
echo "pilot 5: $(( $(date +%s) - start )) s wall" | tee $P/wall.txt
