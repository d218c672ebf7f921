# The two commands of the README:
#   make month-end   run the main job (the month-end close against the embedded sandbox);
#                    make month-end REGION=US (or UK, DE, CA, ...) closes that region's month,
#                    make month-end-regions closes a US, a UK and a JP month
#   make test        install what is missing, then run every check and test
#   make release-check  build the release artifacts and test each one (after make test)
# and the one that writes tracked files:
#   make scorecards  run the reliability scenarios of every suite and write
#                    docs/reliability.md (docs/reliability-full.md with ABWS_RELIABILITY_FULL=1)
#
# `make test` writes only ignored files (target*/, dist/, .venv, tests/c/build; the suites' scorecard
# figures go to target/scorecards/): `git status` stays clean.
#
# Everything is installed into the project (.venv); nothing is assumed on the machine but
# the Rust toolchain, a C compiler and Python 3.10+.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export CARGO_TERM_COLOR := never

# Where cargo builds (CARGO_TARGET_DIR or target/), and where the wheel is built: a directory
# of its own (release profile), so its build never waits on the tests' lock.
BIN = $(abspath $(or $(CARGO_TARGET_DIR),target))/debug
PY_TARGET = $(abspath $(or $(ABWS_PY_TARGET_DIR),target-py))
# Where the suites leave their scorecard figures (make scorecards merges them into docs/).
SCORES = $(abspath $(or $(ABWS_SCORECARD_DIR),target/scorecards))

# The region the month-end job closes (empty: `abws close --sandbox`'s default, JP).
REGION ?=

.PHONY: dist dist-test repro-check test month-end month-end-regions scorecards setup lint lint-and-build rust-doc api-docs-check rust-build rust-test rust-test-run python-lane c-lane python-test-installed python-test python-install python-install-dev c-test c-test-built header

# Two stages, each keeping both cores busy:
# 1. the venv's packages (network) beside the lint and one build of the workspace (the tests'
#    selection: the C library, the sandbox binary, xtask and the example come out of it);
# 2. three lanes side by side, each one's output printed when it ends:
#    - the Rust tests (four test threads: most wait on sockets and timers, as do the
#      reliability scenarios, in four processes side by side);
#    - the Python extension in the dev profile into .venv (it reuses the build's
#      dependencies: ~1 CPU-minute where the release wheel took ~5; `make scorecards`
#      still installs the release wheel), then the Python tests;
#    - the C tests under valgrind, then `cargo doc`'s check.
#    `cargo test` holds the build directory's lock only while it builds, so the other
#    lanes' cargo calls do not wait for its tests (docs/decisions/026-tests-and-scorecard.md).
# The release builds and their tests are `make release-check` (`make test` is what
# a person waits for).
test:
	$(MAKE) --no-print-directory -j2 --output-sync=target setup lint-and-build
	@echo "the Rust, the Python and the C tests side by side (each one's output when it ends)"
	$(MAKE) --no-print-directory -j3 --output-sync=target rust-test-run python-lane c-lane
	@echo "all checks passed"

# After `make dist`: S7 (scripts/repro-check.sh; R lines of the scorecard).
# R2 and R3 only (`repro-check.sh dist`): R1, the byte-for-byte rebuild from another path, is a
# second optimised build (~8 minutes): the release workflow's `reproducible` job runs it, and
# `bash scripts/repro-check.sh` after a clean clone's `make dist`.
repro-check: setup
	bash scripts/repro-check.sh dist

# dist/: the manylinux abi3 wheel, the sdist and the C release tarball (scripts/dist.sh).
dist: setup
	bash scripts/dist.sh

# Installs each artifact of dist/ in a clean place and uses it (scripts/dist-test.sh).
dist-test: setup
	bash scripts/dist-test.sh

# The release, beside today's dist:
#   make release        every platform's wheel and C release into dist/ (scripts/dist.sh all:
#                       here the manylinux and musllinux ones, x86_64 and aarch64, and Windows;
#                       on macOS the two macOS ones), after scripts/release-setup.sh installed
#                       the Rust targets and Debian packages (MinGW, wine, qemu-user, ...) it needs;
#   make release-check  make release, then uses every artifact: scripts/dist-test.sh (the
#                       x86_64 wheel, the sdist and the Linux C release, installed) and
#                       scripts/release-test.sh (each wheel's tags and libraries; the C and C++
#                       programs natively, under wine and under qemu-aarch64), and actionlint
#                       checks the release workflow (.github/workflows/release.yml).
.PHONY: release release-check
release: setup
	bash scripts/release-setup.sh
	bash scripts/dist.sh all

release-check: release
	$(VENV)/bin/actionlint
	bash scripts/dist-test.sh
	bash scripts/release-test.sh
	$(MAKE) --no-print-directory repro-check
	@echo "all release checks passed"

lint-and-build:
	@rustup component add rustfmt clippy >/dev/null 2>&1 || true
	bash scripts/check-comments.sh
	python3 scripts/module-cycles.py core/src
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(MAKE) --no-print-directory rust-build
	"$(BIN)/xtask" gen --check

python-lane: python-install-dev
	$(MAKE) --no-print-directory python-test-installed

# The Rust docs' check (rustdoc warnings) waits here, in the shortest lane, after the C tests
# (by then the extension's build, which needs the build directory's lock too, is over), not
# in the build every lane waits for.
c-lane: c-test-built
	$(MAKE) --no-print-directory rust-doc

# After python-install-dev: the installed extension, and the C library of rust-build.
python-test-installed:
	ABWS_LIBABWS="$(BIN)/libabws.so" bash scripts/test-python.sh --installed

# Fresh figures from the three suites' reliability scenarios (Rust A–I and L, Python J, C K),
# merged into the tracked scorecard.
scorecards: setup python-install
	cd "$(SCORES)" 2>/dev/null && rm -f reliability.md reliability-full.md python.md c.md || true
	cargo test --workspace --test it -- reliability::
	bash scripts/test-python.sh test_reliability.py
	bash scripts/test-c.sh
	$(PY) scripts/scorecard.py

# The main job needs only the `abws` command (no venv, no test toolchain, no release
# wheel; a fresh clone's dev build of the command and its dependencies: docs/decisions/019-month-end-close.md,
# "make month-end: the command, not the test toolchain"). The close writes month-end/REGION.
month-end:
	cargo build --quiet -p abws-cli
	"$(BIN)/abws" $(if $(REGION),--region $(REGION)) close --sandbox

month-end-regions:
	cargo build --quiet -p abws-cli
	for r in US UK JP; do "$(BIN)/abws" --region $$r close --sandbox || exit 1; done

setup: $(VENV)/.installed
	@bash scripts/ensure-redis.sh

$(VENV)/.installed: scripts/requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r scripts/requirements-dev.txt
	touch $@

lint:
	bash scripts/check-comments.sh
	python3 scripts/module-cycles.py core/src
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(MAKE) --no-print-directory rust-doc
	cargo run --quiet -p xtask -- gen --check

# The Rust API reference builds without a rustdoc warning (broken or private links, bare
# URLs, ...), and the core documents every public item (`#![deny(missing_docs)]`). Two runs:
# the C library's crate is named `abws` too (libabws), and one run cannot document both.
rust-doc:
	RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps -p abws -p abws-sandbox
	RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps -p abws-c

# The Python API reference (docs/api/, pdoc) matches the installed package and pdoc has no
# warning (scripts/test-python.sh runs it in `make test`; `scripts/api-docs.sh` regenerates).
api-docs-check:
	bash scripts/api-docs.sh --check

# Everything the tests and the C suite run, in one selection (--workspace, with dev units), so
# each crate is compiled once: `cargo run -p abws --example` or `cargo build -p abws-c` would
# resolve other features and compile the core again.
rust-build:
	cargo test --workspace --no-run
	cargo build --quiet --workspace --lib --bins --examples

rust-test: rust-build rust-test-run

rust-test-run:
	+cargo test --workspace -- --test-threads=4
	for r in JP US UK; do "$(BIN)/examples/month_end" --region $$r || exit 1; done

python-install:
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" CARGO_TARGET_DIR="$(PY_TARGET)" $(PY) -m pip install --quiet --no-build-isolation --force-reinstall --no-deps .

# The tests' install: the dev profile, in the workspace's target directory (after rust-build).
python-install-dev: setup
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" CARGO_TARGET_DIR="$(dir $(BIN))" MATURIN_PEP517_ARGS="--profile dev" $(PY) -m pip install --quiet --no-build-isolation --force-reinstall --no-deps .

python-test:
	bash scripts/test-python.sh

c-test:
	bash scripts/test-c.sh

# After rust-build: no cargo call (it would wait for the lock the running Rust tests hold).
c-test-built:
	ABWS_PREBUILT=1 bash scripts/test-c.sh

header:
	cargo run --quiet -p xtask -- header
