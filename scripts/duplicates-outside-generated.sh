#!/usr/bin/env bash
# The `duplicates` pairs of the hand-written code: a copy of the tracked tree without the
# files `xtask gen` writes whole, without its marked sections in the others, and without
# the pdoc pages. Usage: scripts/duplicates-outside-generated.sh [duplicates' options].
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q -p xtask
out=$(mktemp -d /tmp/abws-nogen.XXXXXX)
trap 'rm -rf "$out"' EXIT
git ls-files -z | grep -zv '^docs/api/' | xargs -0 cp --parents -t "$out"
target/debug/xtask gen --list | while read -r f; do
  if grep -q 'BEGIN GENERATED' "$out/$f" 2>/dev/null; then
    # Keep the hand-written lines: drop every line from a BEGIN marker to its END marker.
    sed -i '/BEGIN GENERATED/,/END GENERATED/d' "$out/$f"
  else
    rm -f "$out/$f"
  fi
done
cd "$out" && git init -q && git add -A && duplicates --repo "$out" "$@"
