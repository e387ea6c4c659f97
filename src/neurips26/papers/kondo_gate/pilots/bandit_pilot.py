"""Pilot (issue #67): the papers' bandit on a pilot seed outside every configured set; prints the zero-price rows and
the rho = 0.3 screens. Usage: python -m neurips26.papers.kondo_gate.pilots.bandit_pilot SEED"""

import sys

import pandas as pd
from hydra import compose, initialize_config_dir

from neurips26.common.pipeline.registry import repo_root
from neurips26.papers.kondo_gate.experiments import run_bandit

with initialize_config_dir(str(repo_root() / "config" / "kondo_gate"), version_base=None):
    cfg = compose("config")
rows, _ = run_bandit(cfg, int(sys.argv[1]))
pd.set_option("display.width", 200)
print(rows[rows.keep_rate.isna() | (rows.keep_rate == 1) | (rows.keep_rate == 0.3)].to_string())
