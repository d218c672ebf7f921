#!/usr/bin/env bash
# scripts/localize-static.sh IN.a OUT.a: the static library with its Rust internals local.
#
# A Rust staticlib carries the whole standard library and every dependency with global
# symbols (`rust_eh_personality`, `ring_core_*`, `rust_begin_unwind`, ...): a program that
# links it beside another Rust static library fails with duplicate symbols (S7).
# Here every object of IN.a is linked into one relocatable object (`ld -r --whole-archive`:
# references between them are resolved inside it), then every defined symbol but the
# public API (`abws_*`) is made local (`objcopy --keep-global-symbols`); what the library
# takes from the system (libc, libpthread, libdl, libm, libgcc_s) stays undefined, for the
# program's link to resolve. OUT.a holds that one object (`ar D`: no time, owner or mode).
# Used by scripts/dist.sh on the C release's libabws.a; tested by scripts/repro-check.sh.
set -euo pipefail
if [ $# -ne 2 ]; then
    echo "usage: $0 IN.a OUT.a" >&2
    exit 2
fi
IN=$(realpath "$1")
OUT=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# --force-group-allocation: the COMDAT groups become plain sections, so that a group of the
# same name in another library (DW.ref.rust_eh_personality, ...) is not taken for ours.
ld -r --force-group-allocation -o "$WORK/abws.o" --whole-archive "$IN" --no-whole-archive -z noexecstack
readelf -sW "$WORK/abws.o" | awk '$5 == "GLOBAL" && $7 != "UND" && $8 ~ /^abws_/ {print $8}' | sort -u > "$WORK/keep"
if ! [ -s "$WORK/keep" ]; then
    echo "localize-static: no abws_* symbol defined in $1" >&2
    exit 1
fi
# The rlibs' embedded LLVM bitcode (.llvmbc, .llvmcmd), merged into one section by ld -r, is
# of no use to a C link, and binutils' LLVM plugin aborts on it ("Invalid encoding").
objcopy --keep-global-symbols="$WORK/keep" --remove-section=.llvmbc --remove-section=.llvmcmd "$WORK/abws.o"
rm -f "$OUT"
ar rcsD "$OUT" "$WORK/abws.o"
