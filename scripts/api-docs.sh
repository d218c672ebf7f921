#!/usr/bin/env bash
# The Python API reference, docs/api/: HTML that pdoc generates from the installed abws
# package, one page per public module (`abws` and its submodules without a leading `_`).
#
#   scripts/api-docs.sh          regenerate docs/api/ (commit the result)
#   scripts/api-docs.sh --check  regenerate into a temporary directory; fail if pdoc prints
#                                any warning, or if the result differs from docs/api/
#
# The output is deterministic (no source links, no search index, no timestamp or path of
# this machine; the same on Python 3.10 to 3.13), so the committed copy can be checked for
# drift: `make test` runs --check (scripts/test-python.sh), as does `make api-docs-check`.
# Needs .venv with pdoc (scripts/requirements-dev.txt) and the package installed from this
# tree (make python-install-dev or make python-install).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
PY="$root/.venv/bin/python"
OUT=docs/api

check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *)
    echo "usage: scripts/api-docs.sh [--check]" >&2
    exit 2
    ;;
esac

if [ ! -x "$PY" ]; then
  echo "api-docs: .venv is missing; run 'make setup' first" >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/run"

# Outside the source tree, so that `abws` is the installed package; its Python files must
# be this tree's, else the reference would describe another version.
installed=$(cd "$tmp/run" && "$PY" -c 'import abws, os; print(os.path.dirname(abws.__file__))') || {
  echo "api-docs: abws is not installed in .venv; run 'make python-install-dev' first" >&2
  exit 2
}
for f in bindings-python/python/abws/*.py bindings-python/python/abws/*.pyi; do
  if ! cmp -s "$f" "$installed/$(basename "$f")"; then
    echo "api-docs: the installed abws is not this tree's ($(basename "$f") differs);" \
      "run 'make python-install-dev' first" >&2
    exit 2
  fi
done

# The public modules, in a stable order.
names=$(cd "$tmp/run" && "$PY" -c '
import pkgutil, abws
print(" ".join(["abws"] + sorted("abws." + m.name for m in pkgutil.iter_modules(abws.__path__)
                                 if not m.name.startswith("_"))))')
read -r -a modules <<<"$names"

# The docstrings are reStructuredText (``literals``, :class:`roles`). The template adds the
# submodules to the package page's navigation (scripts/pdoc-templates/).
if ! (cd "$tmp/run" && env -u PYTHONWARNINGS PYTHONHASHSEED=0 "$PY" -m pdoc \
  --docformat restructuredtext --no-show-source --no-search \
  -t "$root/scripts/pdoc-templates" -o "$tmp/api" "${modules[@]}") >"$tmp/log" 2>&1; then
  cat "$tmp/log" >&2
  echo "api-docs: pdoc failed" >&2
  exit 1
fi
if [ -s "$tmp/log" ]; then
  cat "$tmp/log" >&2
  echo "api-docs: pdoc printed warnings (above); fix the docstrings they name" >&2
  [ "$check" -eq 1 ] && exit 1
fi

if [ "$check" -eq 1 ]; then
  if ! diff -r -q "$OUT" "$tmp/api" >"$tmp/diff" 2>&1; then
    sed 's/^/  /' "$tmp/diff" >&2
    echo "api-docs: $OUT/ is stale: run scripts/api-docs.sh and commit $OUT/" >&2
    exit 1
  fi
  echo "api-docs: $OUT/ is up to date (${modules[*]})"
else
  rm -rf "$OUT"
  cp -R "$tmp/api" "$OUT"
  echo "api-docs: wrote $OUT/ (${modules[*]})"
  [ -s "$tmp/log" ] && exit 1
fi
exit 0
