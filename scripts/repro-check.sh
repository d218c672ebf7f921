#!/usr/bin/env bash
# `make repro-check` (in `make release-check`, after `make dist`): the release artifacts of
# dist/ depend on the sources only (S7; scripts/release-env.sh,
# scripts/localize-static.sh):
#   R1 reproducible: the artifacts built again from a second checkout at another path (a
#      clone of this one holding the work tree's tracked files) in another, fresh target
#      directory equal dist/'s byte for byte: the sdist, this machine's wheel and its C
#      tarball. Meaningful only when dist/ was built in a fresh target directory too (a
#      clean clone's `make dist`, or CI's): dependencies compiled earlier under another
#      build's environment or SOURCE_DATE_EPOCH are reused by a later build
#      (docs/decisions/027-releases.md, "Reproducible builds"). Not in `make release-check` (a second
#      optimised build, ~8 minutes, against CI's 45); the release workflow's `reproducible`
#      job runs it on a fresh runner, and `bash scripts/repro-check.sh` here;
#   R2 no builder path: the wheel's extension, libabws.so and libabws.a hold none of the
#      checkout's, the target directory's, $CARGO_HOME's, the toolchain's or $HOME's paths;
#   R3 libabws.a keeps its Rust internals local: it defines no global symbol but abws_*,
#      and a C program links it beside another Rust static library (a small one built here
#      by rustc, with its own copy of the standard library), as usual and whole
#      (--whole-archive, as a plugin bundling static libraries links), then runs.
# `repro-check.sh DIR` checks R2 and R3 on the artifacts of DIR (another build) and skips R1.
# Writes the R lines of the reliability scorecard to target/scorecards/release.md (or
# $ABWS_SCORECARD_DIR); `make scorecards` adds them to docs/reliability.md.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DIST=${1:-dist}
VERSION=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' Cargo.toml)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

pass=0
failed=()
lines=()
ok() { pass=$((pass + 1)); echo "ok: $1"; }
ko() { failed+=("$1"); echo "FAILED: $1"; }
line() { lines+=("- $1: $2 ($3)"); }

shopt -s nullglob
wheels=("$DIST"/abws-"$VERSION"-cp310-abi3-manylinux*_x86_64.whl)
ctars=("$DIST"/libabws-"$VERSION"-linux-x86_64.tar.gz)
shopt -u nullglob
if [ "${#wheels[@]}" -ne 1 ] || [ "${#ctars[@]}" -ne 1 ]; then
    echo "repro-check: $DIST/ holds no x86_64 wheel and C tarball of $VERSION (run 'make dist')" >&2
    exit 2
fi
mkdir -p "$WORK/wheel" "$WORK/c"
python3 -m zipfile -e "${wheels[0]}" "$WORK/wheel"
tar -xzf "${ctars[0]}" -C "$WORK/c" --strip-components=1
EXT=$(find "$WORK/wheel" -name '_abws*.so' | head -1)
SO=$WORK/c/lib/libabws.so.$VERSION
A=$WORK/c/lib/libabws.a

# R2: the builder's paths, as scripts/release-env.sh names them for the dist build.
mapfile -t paths < <(CARGO_TARGET_DIR=$ROOT/target-dist bash -c \
    '. scripts/release-env.sh && printf "%s\n" "${ABWS_BUILDER_PATHS[@]}"')
r2=()
for f in "$EXT" "$SO" "$A"; do
    if ! [ -f "$f" ]; then
        ko "a builder path check of '$f': no such file in the artifacts"
        continue
    fi
    n=$(strings -a "$f" | grep -c -F "${paths[@]/#/-e}")
    r2+=("$(basename "$f") $n")
    if [ "$n" -eq 0 ]; then
        ok "no builder path in $(basename "$f")"
    else
        ko "$n builder paths in $(basename "$f"), e.g. $(strings -a "$f" | grep -m1 -F "${paths[@]/#/-e}" | cut -c1-120)"
    fi
done
r2_verdict=passed
[[ " ${failed[*]:-} " == *"builder path"* ]] && r2_verdict=FAILED
line R2 "builder paths (checkout, target directory, \$CARGO_HOME, toolchain, \$HOME) in the release binaries: $(IFS=,; echo "${r2[*]}" | sed 's/,/, /g')" "$r2_verdict"

# R3: readelf, not nm: binutils' LLVM plugin aborts on the rlibs' embedded bitcode.
globals=$(readelf -sW "$A" | awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" {print $8}' | sort -u)
others=$(grep -vc '^abws_' <<< "$globals")
if [ "$others" -eq 0 ]; then
    ok "libabws.a defines only abws_* globally ($(wc -l <<< "$globals") symbols)"
else
    ko "libabws.a defines $others global symbols besides abws_*, e.g. $(grep -v '^abws_' <<< "$globals" | grep -m3 -E 'rust_eh|ring_core|.' | tr '\n' ' ')"
fi
cat > "$WORK/other.rs" <<'RS'
// Another vendor's Rust static library: its own standard library, one C function.
#[no_mangle]
pub extern "C" fn other_sum(a: i32, b: i32) -> i32 {
    let v: Vec<i32> = vec![a, b];
    std::panic::catch_unwind(|| v.iter().sum()).unwrap_or(-1)
}
RS
cat > "$WORK/both.c" <<'C'
#include <stdio.h>
#include <string.h>
#include "abws.h"
int other_sum(int a, int b);
int main(void) {
    const char *v = abws_version();
    int s = other_sum(2, 3);
    printf("abws %s, other_sum %d\n", v, s);
    return (v != NULL && strlen(v) > 0 && s == 5) ? 0 : 1;
}
C
linked=()
if rustc --edition 2021 --crate-type staticlib -O "$WORK/other.rs" -o "$WORK/libother.a"; then
    for how in usual whole; do
        libs=("$A" "$WORK/libother.a")
        [ "$how" = whole ] && libs=(-Wl,--whole-archive "${libs[@]}" -Wl,--no-whole-archive)
        if cc -std=c11 -I"$WORK/c/include" "$WORK/both.c" "${libs[@]}" -lpthread -ldl -lm -o "$WORK/both_$how" \
            > "$WORK/link.log" 2>&1 && out=$("$WORK/both_$how"); then
            ok "a C program links libabws.a beside another Rust static library ($how) and runs: $out"
            linked+=("$how: links and runs")
        else
            n=$(grep -c 'multiple definition' "$WORK/link.log")
            ko "a C program links libabws.a beside another Rust static library ($how): $n duplicate symbols, e.g. $(grep -m1 -o 'multiple definition of .*' "$WORK/link.log")"
            tail -n 5 "$WORK/link.log" | sed 's/^/    /'
            linked+=("$how: $n duplicate symbols")
        fi
    done
else
    ko "rustc builds the second Rust static library"
fi
r3_verdict=passed
[[ " ${failed[*]:-} " == *"libabws.a"* ]] && r3_verdict=FAILED
line R3 "libabws.a's global symbols besides abws_*: $others; a C program with it and another Rust static library: $(IFS=';'; echo "${linked[*]}" | sed 's/;/; /g')" "$r3_verdict"

# R1: the same artifacts from another path.
if [ $# -eq 0 ]; then
    COPY=$WORK/elsewhere/abws
    echo "repro-check: dist/ again from $COPY (target directory $WORK/elsewhere/target)"
    git clone --quiet --shared "$ROOT" "$COPY"
    git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$COPY"
    ln -s "$ROOT/.venv" "$COPY/.venv"
    if (export SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)
        CARGO_TARGET_DIR=$WORK/elsewhere/target bash "$COPY/scripts/dist.sh") > "$WORK/dist2.log" 2>&1; then
        same=()
        differ=()
        # What the second build made (the sdist, this platform's wheel and C release),
        # against dist/'s.
        for f in "$COPY"/dist/*; do
            f=dist/${f##*/}
            if cmp -s "$f" "$COPY/$f"; then same+=("$(basename "$f")"); else differ+=("$(basename "$f")"); fi
        done
        if [ "${#differ[@]}" -eq 0 ] && [ "${#same[@]}" -gt 0 ]; then
            ok "built again from another path, ${#same[@]} artifacts are byte for byte the same: ${same[*]}"
        else
            ko "built again from another path, ${#differ[@]} of $((${#same[@]} + ${#differ[@]})) artifacts differ: ${differ[*]}"
            # Which members differ, for the next person to look.
            for d in "${differ[@]}"; do
                case "$d" in
                    *.whl | *.zip) python3 - "dist/$d" "$COPY/dist/$d" <<'PY' ;;
import sys, zipfile
a, b = (zipfile.ZipFile(p) for p in sys.argv[1:])
ia, ib = ({i.filename: i.CRC for i in z.infolist()} for z in (a, b))
print("    members that differ:", sorted(n for n in ia.keys() | ib.keys() if ia.get(n) != ib.get(n)))
PY
                    *.tar.gz) python3 - "dist/$d" "$COPY/dist/$d" <<'PY' ;;
import hashlib, sys, tarfile
def sums(p):
    with tarfile.open(p) as t:
        return {m.name: hashlib.sha256(t.extractfile(m).read()).hexdigest() for m in t if m.isfile()}
a, b = (sums(p) for p in sys.argv[1:])
print("    members that differ:", sorted(n for n in a.keys() | b.keys() if a.get(n) != b.get(n)))
PY
                esac
            done
        fi
        line R1 "release artifacts built twice, from two checkout paths and target directories: ${#same[@]} identical, ${#differ[@]} different${differ[*]:+ (${differ[*]})}" \
            "$([ "${#differ[@]}" -eq 0 ] && echo passed || echo FAILED)"
    else
        ko "dist.sh from another path (log: $(tail -n 3 "$WORK/dist2.log" | tr '\n' ' '))"
        line R1 "release artifacts built twice, from two checkout paths: the second build failed" FAILED
    fi
fi

SCORES=${ABWS_SCORECARD_DIR:-$ROOT/target/scorecards}
mkdir -p "$SCORES"
{
    echo "### Release builds (R), from \`scripts/repro-check.sh\` (\`make release-check\`)"
    echo
    printf '%s\n' "${lines[@]}" | sort
} > "$SCORES/release.md"
echo "repro checks: $pass passed, ${#failed[@]} failed"
if [ "${#failed[@]}" -ne 0 ]; then
    printf '  failed: %s\n' "${failed[@]}"
    exit 1
fi
