#!/usr/bin/env bash
# wd_eos on a GPU: one short paper-scale point per architecture with device=cuda (the same code as on CPU), timed.
#   bash benchmarks/wd_eos_cuda_check.sh [OUTDIR]      (needs scikit-learn and a CUDA build of torch; ~2-5 minutes)
# Checks: the stage runs on cuda end to end (Lanczos, sharpness gradient, exact NTK) and the trace reaches the EoS
# (max sharpness above 0.8 x 2/eta). Steps are capped at 1500 of the paper scale's 5000 to keep it short.
set -euo pipefail
out=${1:-${OUT:-/tmp/wd_eos_cuda}}
mkdir -p "$out"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
python -c "import torch; assert torch.cuda.is_available(), 'no CUDA device visible'; print(torch.cuda.get_device_name(0))"
python -m neurips26 data digits --mode embedded
python -m neurips26 wd_eos config --output "$out/config.yaml" scale=paper device=cuda 'seeds=[0]'
for arch in mlp cnn; do
  start=$(date +%s)
  python -m neurips26 wd_eos run --config "$out/config.yaml" --input data/raw/digits/provenance.json --seed 0 \
    --output "$out/${arch}_eta0.1_wd0.005.csv" run.arch=$arch run.eta=0.1 run.wd=0.005 max_steps=1500 2> "$out/$arch.log"
  echo "$arch: $(( $(date +%s) - start )) s"
  python - "$out/${arch}_eta0.1_wd0.005.csv" <<'PY'
import sys, pandas as pd
t = pd.read_csv(sys.argv[1])
print(t[["step", "loss", "accuracy", "sharpness", "alignment", "kernel_velocity"]].iloc[::10].to_string(index=False))
ok = t.sharpness.max() > 0.8 * 20
print("max sharpness", round(t.sharpness.max(), 3), "vs 2/eta = 20:", "EoS reached" if ok else "EoS NOT reached")
PY
done
