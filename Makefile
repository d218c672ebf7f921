# The two commands of the README:
#   make month-end   run the main job (the month-end close against the embedded sandbox)
#   make test        install what is missing, then run every check and test
#
# Everything is installed into the project (.venv); nothing is assumed on the machine but
# the Rust toolchain, a C compiler and Python 3.10+.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export CARGO_TERM_COLOR := never
C_BUILD := tests/c/build
CFLAGS_TEST := -std=c11 -Wall -Wextra -Werror -Iinclude
CXXFLAGS_TEST := -std=c++17 -Wall -Wextra -Werror -Iinclude
LIBDIR := target/debug

.PHONY: test month-end setup lint rust-test python-test c-test header

test: setup lint rust-test python-test c-test
	@echo "all checks passed"

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

python-install:
	$(PY) -m pip install --quiet --force-reinstall --no-deps .

python-test: python-install
	cd tests/python && ../../$(PY) -m pytest -q

c-test:
	cargo build --quiet -p abws-c
	@mkdir -p $(C_BUILD)
	@command -v valgrind >/dev/null || (apt-get install -y -q valgrind >/dev/null 2>&1 || (apt-get update -q >/dev/null && apt-get install -y -q valgrind >/dev/null)) || echo "valgrind unavailable: C tests run without it"
	@set -e; pass=0; fail=0; \
	for src in tests/c/*.c; do \
	  name=$$(basename $$src .c); \
	  cc $(CFLAGS_TEST) $$src -o $(C_BUILD)/$$name -L$(LIBDIR) -labws -Wl,-rpath,$$PWD/$(LIBDIR) -lpthread -ldl -lm; \
	  if command -v valgrind >/dev/null; then \
	    runner="valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"; \
	  else runner=""; fi; \
	  if $$runner $(C_BUILD)/$$name; then pass=$$((pass+1)); else fail=$$((fail+1)); echo "FAILED: $$name"; fi; \
	done; \
	echo "c tests: $$pass passed, $$fail failed"; test $$fail -eq 0

header:
	cargo run --quiet -p xtask -- header
