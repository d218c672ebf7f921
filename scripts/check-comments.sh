#!/usr/bin/env bash
# Comments (and docstrings, and the text a test or a script writes) state facts about this
# repository. They name no work history and no document outside it: no issue numbers, no
# session names, no specification seed files, no published-facts or design notes kept
# elsewhere. Say the fact itself, or name the record (docs/decisions/NNN-title.md) or the
# scorecard/benchmark id (S7, B11) that holds it. Checks the tracked source files; prints
# file:line of every reference and fails when there is one. Run by `make lint-and-build`.
set -euo pipefail
cd "$(dirname "$0")/.."

pattern='\bissues? [0-9]+|\bseeds? [0-9]{3}\b|published[- ]facts|DESIGN\.md|\.\./shared/|/work/shared|\b(tenth|eleventh|twelfth|[a-z]+teenth|twentieth|twenty-[a-z]+) session\b'

# The sources: code, scripts, build files. Generated files are produced from these, so they
# are checked too (a reference there means one in their source).
mapfile -t files < <(git ls-files -- '*.rs' '*.py' '*.pyi' '*.sh' '*.c' '*.h' '*.hpp' \
    '*.toml' '*.yml' '*.yaml' 'Makefile' '*/Makefile' | grep -v '^scripts/check-comments\.sh$')

if found=$(grep -n -i -E -H "$pattern" -- "${files[@]}"); then
    echo "check-comments: these lines point outside the repository (an issue, a session, a seed" >&2
    echo "file, published facts or DESIGN.md); state the fact, or name the docs/decisions/ record" >&2
    echo "or the scorecard/benchmark id instead:" >&2
    echo "$found" | cut -c1-200 >&2
    exit 1
fi
echo "check-comments: no comment points outside the repository (${#files[@]} files)"
