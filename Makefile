# The two commands of the README:
#   make month-end   run the main job (the month-end close against the embedded sandbox)
#   make test        install what is missing, then run every check and test
# and the one that writes tracked files:
#   make scorecards  run the reliability scenarios of every suite and write
#                    docs/reliability.md (docs/reliability-full.md with ABWS_RELIABILITY_FULL=1)
#
# `make test` writes only ignored files (target*/, .venv, tests/c/build; the suites' scorecard
# figures go to target/scorecards/): `git status` stays clean.
#
# Everything is installed into the project (.venv); nothing is assumed on the machine but
# the Rust toolchain, a C compiler and Python 3.10+.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export CARGO_TERM_COLOR := never

.PHONY: test month-end scorecards setup lint rust-test python-test python-install c-test header

test: setup lint rust-test python-test c-test
	@echo "all checks passed"

# Fresh figures from the three suites' reliability scenarios (Rust A–I and L, Python J, C K),
# merged into the tracked scorecard.
scorecards: setup
	rm -rf target/scorecards
	cargo test --workspace --test it -- reliability::
	bash scripts/test-python.sh test_reliability.py
	bash scripts/test-c.sh
	$(PY) scripts/scorecard.py

month-end: setup python-install
	$(PY) examples/month_end_close.py

setup: $(VENV)/.installed
	@rustup component add rustfmt clippy >/dev/null 2>&1 || true

$(VENV)/.installed: scripts/requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r scripts/requirements-dev.txt
	touch $@

lint:
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo run --quiet -p xtask -- header --check

rust-test:
	cargo test --workspace
	cargo run --quiet -p abws --example month_end

python-install:
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" CARGO_TARGET_DIR=$(CURDIR)/target-py $(PY) -m pip install --quiet --no-build-isolation --force-reinstall --no-deps .

python-test:
	bash scripts/test-python.sh

c-test:
	bash scripts/test-c.sh

header:
	cargo run --quiet -p xtask -- header
