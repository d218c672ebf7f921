#!/usr/bin/env bash
# The benchmark suite: abws against requests/httpx + json/orjson, libabws
# from C against the Rust facade, 1,000 clients in one process, the main job at the spec's
# rates, in one run against the same sandbox; writes docs/benchmarks.md. Not part of
# `make test`. Takes ~13 minutes on 2 cores once built (B1 with its busy-machine variant ~2,
# B3 ~3, B9 ~2.5, B12 ~3, B11 ~2 with its count under valgrind's cachegrind).
#
#   scripts/bench.sh                 every benchmark (B1–B12), rewrites docs/benchmarks.md
#   scripts/bench.sh --only B1,B11   some of them, into target-bench/benchmarks-partial.md
#   scripts/bench.sh --only B4 --merge   re-run some, keep the rest of the last full run
#   scripts/bench.sh --runs 11       more repetitions (default 9 for B1 and B2, 5 for the
#                                    others; also --b3-runs, --b4-runs, --b9-runs, --b11-runs,
#                                    --b12-runs, --out FILE)
#
# Needs what `make setup` installs (.venv). Installs the peers (benches/requirements.txt)
# into .venv, and abws itself as users get it: the wheel of `scripts/dist.sh wheel` (profile
# dist, in target-dist/), so every figure is of the current tree. Builds the sandbox binary,
# libabws and the two small bench programs in release mode in its own target directory (ABWS_BENCH_TARGET, default target-bench/) so that it
# never waits on another build's lock.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=.venv/bin/python
if [ ! -x "$PY" ]; then
  echo "bench: .venv is missing; run 'make setup' first" >&2
  exit 2
fi
# B11 counts its round under valgrind's cachegrind: installed as the C tests install it, and
# missing, stop now rather than after ten minutes of runs.
if ! command -v valgrind >/dev/null 2>&1; then
  . scripts/apt.sh
  echo "bench: installing valgrind (B11's count)..."
  apt_install valgrind || true
  command -v valgrind >/dev/null 2>&1 || { echo "bench: valgrind is missing and could not be installed (B11 counts under it)" >&2; exit 2; }
fi
export ABWS_BENCH_TARGET="${ABWS_BENCH_TARGET:-$ROOT/target-bench}"
export CARGO_TARGET_DIR="$ABWS_BENCH_TARGET"
export CARGO_TERM_COLOR=never

echo "bench: installing the peers (benches/requirements.txt)" >&2
"$PY" -m pip install --quiet -r benches/requirements.txt
# What users install: the wheel of `make dist` (profile dist), built from this tree (a few
# minutes from scratch; incremental in target-dist), installed into .venv.
echo "bench: the wheel (scripts/dist.sh wheel), installed into .venv" >&2
(unset CARGO_TARGET_DIR; bash scripts/dist.sh wheel >&2)
"$PY" -m pip install --quiet --force-reinstall --no-deps dist/abws-*.whl

echo "bench: building abws-sandbox and libabws (release)" >&2
cargo build --quiet --release -p abws-sandbox -p abws-c

echo "bench: building benches/rust (release)" >&2
# Its own workspace; start from the root lock file so it uses the same versions.
[ -f benches/rust/Cargo.lock ] || cp Cargo.lock benches/rust/Cargo.lock
(cd benches/rust && cargo build --quiet --release)
export ABWS_BENCH_RUST="$ABWS_BENCH_TARGET/release/abws-bench"

echo "bench: compiling benches/c/bench_c.c" >&2
export ABWS_BENCH_C="$ABWS_BENCH_TARGET/bench_c"
${CC:-cc} -O2 -std=c11 -Wall -Wextra -Werror -I include benches/c/bench_c.c \
  -L "$ABWS_BENCH_TARGET/release" -labws -Wl,-rpath,"$ABWS_BENCH_TARGET/release" -o "$ABWS_BENCH_C"

# Run from outside the source tree so `abws` is the installed package, not bindings-python/.
exec "$PY" "$ROOT/benches/run.py" "$@"
