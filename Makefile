# docqa: the two commands of the quick start.
#   make reproduce   set up (once) and run the whole pipeline on config/config.yaml
#   make test        set up (once) and run the test suite
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
SETUP_DONE := $(VENV)/.docqa-setup-done
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup reproduce test lint lock env-locks tesseract bubblewrap chromium slurm graphviz dag docs-options clean-results

setup: $(SETUP_DONE) tesseract bubblewrap

# Re-installs only when the pins change; a second `make` installs nothing.
$(SETUP_DONE): requirements.lock pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "docqa needs Python 3.11: install it, or run make PYTHON=/path/to/python3.11"; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@$(BIN)/python -m pip check
	@touch $@

# osd: the script detection of pages in another script (docs/text-stage.md); tesseract-ocr
# depends on it in Debian, but a tesseract from elsewhere may lack it
tesseract:
	@{ command -v tesseract >/dev/null && tesseract --list-langs 2>/dev/null | grep -qx osd; } || { \
		echo "installing tesseract-ocr and tesseract-ocr-osd (apt)"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) apt-get install -y -qq tesseract-ocr tesseract-ocr-osd fonts-dejavu-core; }

# The Solve sandbox's kernel isolation (src/docqa/sandbox/isolation.py); without it Solve refuses.
bubblewrap:
	@command -v bwrap >/dev/null || { \
		echo "installing bubblewrap (apt)"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq bubblewrap; }

# Headless Chromium opens the HTML report and a trace page in the tests (tests/report).
chromium:
	@command -v chromium >/dev/null || { \
		echo "installing chromium (apt)"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium; }

# A one-node SLURM cluster that tests/test_slurm_e2e.py starts for profiles/slurm (no systemd
# service is used). Where apt cannot install them, that test is skipped and says why.
slurm:
	@{ command -v slurmctld >/dev/null && command -v munged >/dev/null; } || { \
		echo "installing slurm-wlm and munge (apt)"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq slurm-wlm munge; } || \
		echo "could not install slurm-wlm and munge: the SLURM cluster test will be skipped"

# graphviz's dot draws the rule graph (make dag); nothing else needs it.
graphviz:
	@command -v dot >/dev/null || { \
		echo "installing graphviz (apt)"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq graphviz; }

# docs/rulegraph.svg, the picture of the workflow in the README: every rule, drawn for the grid
# of docs/rulegraph.yaml (one run of each kind). Rerun after adding or renaming a rule.
# PYTHONHASHSEED fixes Snakemake's node order, so an unchanged workflow redraws the same file.
dag: setup graphviz
	PYTHONHASHSEED=0 $(BIN)/snakemake --rulegraph dot --configfile config/config.yaml config/datasets.yaml \
		docs/rulegraph.yaml > docs/rulegraph.dot
	dot -Tsvg docs/rulegraph.dot > docs/rulegraph.svg
	rm docs/rulegraph.dot

# docs/configuration.md's option tables, from the option specs the implementations register
# (tests/workflow/test_options_cli.py fails when they are stale). Rerun after changing a spec.
docs-options: setup
	$(BIN)/docqa options --all --markdown --write docs/configuration.md

reproduce: setup
	$(BIN)/snakemake --cores 8

test: setup chromium slurm
	$(BIN)/python -m pytest

# The habits every change keeps (also .pre-commit-config.yaml): ruff's rules and format (rules
# in pyproject.toml), snakefmt on the workflow, mypy on src/docqa, the package's layers
# (lint-imports, contracts in pyproject.toml), hadolint on the Dockerfile.
lint: setup
	$(BIN)/ruff check src tests rules benchmarks
	$(BIN)/ruff format --check src tests rules benchmarks
	$(BIN)/snakefmt --check Snakefile rules
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/hadolint Dockerfile

# Refresh requirements.lock from a fresh install of pyproject.toml's pins.
lock:
	rm -rf .venv-lock && $(PYTHON) -m venv .venv-lock
	.venv-lock/bin/python -m pip install --quiet ".[test]"
	{ echo "# Every package docqa's environment holds, exactly pinned (pip freeze of a working install)."; \
	  echo "# Regenerate after changing pyproject.toml: make lock"; \
	  .venv-lock/bin/python -m pip freeze --exclude docqa | sort -f; } > requirements.lock
	rm -rf .venv-lock

# Refresh envs/<name>.lock.txt (each conda env's pip packages, closed over their dependencies)
# from requirements.lock; run after `make lock` or an edit of envs/*.yaml.
env-locks: setup
	$(BIN)/python envs/make_locks.py

clean-results:
	rm -rf results/*/ .snakemake
