# The two commands of the README:
#   make month-end   run the main job (the month-end close against the embedded sandbox);
#                    make month-end REGION=US (or UK, DE, CA, ...) closes that region's month,
#                    make month-end-regions closes a US, a UK and a JP month
#   make test        install what is missing, then run every check and test
#
# Everything is installed into the project (.venv); nothing is assumed on the machine but
# the Rust toolchain, a C compiler and Python 3.10+.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export CARGO_TERM_COLOR := never

.PHONY: test month-end month-end-regions setup lint rust-test python-test python-install c-test header

# The region the month-end job closes (empty: the example's default, JP on the sandbox).
REGION ?=

test: setup lint rust-test python-test c-test
	$(PY) scripts/scorecard.py
	@echo "all checks passed"

month-end: setup python-install
	$(PY) examples/month_end_close.py $(if $(REGION),--region $(REGION) --out month-end/$(REGION))

month-end-regions: setup python-install
	for r in US UK JP; do $(PY) examples/month_end_close.py --region $$r --out month-end/$$r || exit 1; done

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
	cargo run --quiet -p xtask -- gen --check

rust-test:
	cargo test --workspace
	for r in JP US UK; do cargo run --quiet -p abws --example month_end -- --region $$r || exit 1; done

python-install:
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" CARGO_TARGET_DIR=$(CURDIR)/target-py $(PY) -m pip install --quiet --no-build-isolation --force-reinstall --no-deps .

python-test:
	bash scripts/test-python.sh

c-test:
	bash scripts/test-c.sh

header:
	cargo run --quiet -p xtask -- header
