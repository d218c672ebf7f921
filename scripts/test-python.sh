#!/usr/bin/env bash
# The Python half of `make test`: builds the abi3 wheel with `pip install .` into .venv,
# runs the pytest suite (against the embedded sandbox, offline), then checks the type
# stubs against the runtime module (mypy's stubtest) and the package with mypy --strict,
# and the committed API reference docs/api/ against the package (scripts/api-docs.sh --check).
# With arguments, runs pytest with them only (`make scorecards`: test_reliability.py), not
# the stub checks. `--installed` first: the wheel is installed already (make test built it
# beside the Rust tests). Exits non-zero on any failure. Needs .venv (make setup).
set -uo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
if [ ! -x "$PY" ]; then
  echo "test-python: .venv is missing; run 'make setup' first" >&2
  exit 2
fi
# libabws for the same-JSON test (tests/python/test_same_json.py calls every operation
# from Python and from C), and the abws-sandbox binary beside it (test_endpoints.py): built
# where scripts/test-c.sh builds them, so `make test` builds them once.
# ABWS_LIBABWS given (make test, after its workspace build): that one, no cargo call.
if [ -z "${ABWS_LIBABWS:-}" ]; then
  C_TARGET=${CARGO_TARGET_DIR:-target}
  case "$C_TARGET" in /*) ;; *) C_TARGET="$PWD/$C_TARGET" ;; esac
  # The sandbox binary too: test_endpoints.py starts it as a process of its own.
  CARGO_TARGET_DIR="$C_TARGET" cargo build --quiet -p abws-c -p abws-sandbox || {
    echo "test-python: cargo build -p abws-c -p abws-sandbox failed" >&2
    exit 1
  }
  ABWS_LIBABWS="$C_TARGET/debug/libabws.so"
  [ -e "$ABWS_LIBABWS" ] || ABWS_LIBABWS="$C_TARGET/debug/libabws.dylib"
fi
export ABWS_LIBABWS

# Our own target directory: never wait on another build's lock.
export PATH="$PWD/.venv/bin:$PATH"
export CARGO_TARGET_DIR="${ABWS_PY_TARGET_DIR:-$PWD/target-py}"

installed=0
if [ "${1:-}" = --installed ]; then
  installed=1
  shift
fi
if [ "$installed" -eq 0 ]; then
  "$PY" -m pip install --quiet -r scripts/requirements-dev.txt || exit 1
  # --no-build-isolation: build with the maturin of .venv (no download of the backend).
  "$PY" -m pip install --quiet --no-build-isolation --force-reinstall --no-deps . || {
    echo "test-python: pip install . failed" >&2
    exit 1
  }
fi

status=0
# Run from outside the source tree so `abws` is the installed wheel.
(cd tests/python && ../../"$PY" -m pytest -q -p no:cacheprovider "$@") || status=1
[ $# -gt 0 ] && exit "$status"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && "$OLDPWD/$PY" -m mypy.stubtest abws) || {
  echo "test-python: stubtest found differences between the stubs and the module" >&2
  status=1
}
(cd "$tmp" && "$OLDPWD/$PY" -m mypy --strict --no-incremental -p abws) || {
  echo "test-python: mypy --strict failed on the package" >&2
  status=1
}
# The committed Python API reference (docs/api/) is the installed package's, without a pdoc
# warning.
bash scripts/api-docs.sh --check || {
  echo "test-python: the Python API reference (docs/api/) is stale or pdoc warned" >&2
  status=1
}
[ "$status" -eq 0 ] && echo "test-python: all Python checks passed"
exit "$status"
