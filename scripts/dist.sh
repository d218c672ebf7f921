#!/usr/bin/env bash
# `make dist`: the three artifacts people install, into dist/:
#   abws-V-cp310-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
#       the Python package for CPython >= 3.10 (abi3), linked by zig against glibc 2.17
#       (maturin --zig, zig from its PyPI package `ziglang`), so any manylinux2014 system
#       loads it;
#   abws-V.tar.gz          the sdist (`pip install` builds it with Rust and maturin);
#   libabws-V-linux-x86_64.tar.gz
#       the C release: lib/libabws.so.V (SONAME libabws.so.MAJOR), lib/libabws.a,
#       include/abws.h + abws.hpp, lib/pkgconfig/abws.pc, lib/cmake/abws/ (abws::abws),
#       LICENSE, README.md.
# All built with the `dist` profile of Cargo.toml (LTO, one codegen unit, stripped) into
# CARGO_TARGET_DIR (default target-dist). Needs .venv (make setup: maturin, ziglang).
# `scripts/dist-test.sh` installs each one in a clean place and uses it. `dist.sh wheel`
# builds the wheel alone.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$ROOT/.venv/bin:$PATH"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target-dist}
case "$CARGO_TARGET_DIR" in /*) ;; *) CARGO_TARGET_DIR="$ROOT/$CARGO_TARGET_DIR" ;; esac
. scripts/release-env.sh # reproducible, no builder path (S7): SOURCE_DATE_EPOCH, path remaps
for tool in maturin python-zig; do
    command -v "$tool" >/dev/null || { echo "dist: $tool is missing from .venv; run 'make setup'" >&2; exit 2; }
done

VERSION=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' Cargo.toml)
MAJOR=${VERSION%%.*}
[ -n "$VERSION" ] || { echo "dist: no version in Cargo.toml [workspace.package]" >&2; exit 1; }
if [ -n "$(git status --porcelain 2>/dev/null)" ]; then
    echo "dist: note: the work tree has uncommitted changes; they are in the artifacts"
fi
wheel() {
    echo "dist: the wheel (manylinux2014, abi3, profile dist)"
    maturin build --quiet --profile dist --zig --compatibility manylinux2014 --out dist
}
# `dist.sh wheel`: the wheel only (scripts/bench.sh measures what users install).
if [ "${1:-}" = wheel ]; then
    mkdir -p dist
    rm -f dist/abws-*.whl
    wheel
    exit 0
fi
rm -rf dist
mkdir -p dist
wheel
echo "dist: the sdist"
maturin sdist --out dist

echo "dist: libabws (profile dist, SONAME libabws.so.$MAJOR)"
# The SONAME goes to the final link of libabws only (`cargo rustc`), not to the debug
# builds the tests link against by their plain name.
cargo rustc --quiet -p abws-c --lib --profile dist -- -C "link-arg=-Wl,-soname,libabws.so.$MAJOR"
BUILT=$CARGO_TARGET_DIR/dist
NAME=libabws-$VERSION-linux-$(uname -m)
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
P=$STAGE/$NAME
mkdir -p "$P/lib/pkgconfig" "$P/lib/cmake/abws" "$P/include"
cp "$BUILT/libabws.so" "$P/lib/libabws.so.$VERSION"
ln -s "libabws.so.$VERSION" "$P/lib/libabws.so.$MAJOR"
ln -s "libabws.so.$MAJOR" "$P/lib/libabws.so"
bash scripts/localize-static.sh "$BUILT/libabws.a" "$P/lib/libabws.a" # only abws_* global (S7)
cp include/abws.h include/abws.hpp "$P/include/"
# Relocatable: pkg-config finds the prefix from the .pc file's own directory.
bindings-c/pkgconfig.sh '${prefix}/lib' '${prefix}/include' '${pcfiledir}/../..' > "$P/lib/pkgconfig/abws.pc"
MINOR=$(echo "$VERSION" | cut -d. -f2)
for f in abwsConfig.cmake abwsConfigVersion.cmake; do
    sed -e "s|@VERSION@|$VERSION|g" -e "s|@MAJOR@|$MAJOR|g" -e "s|@MINOR@|$MINOR|g" \
        "bindings-c/cmake/$f.in" > "$P/lib/cmake/abws/$f"
done
sed -e "s|@VERSION@|$VERSION|g" -e "s|@MAJOR@|$MAJOR|g" bindings-c/dist/README.md > "$P/README.md"
cp LICENSE CHANGELOG.md "$P/"
# Reproducible: sorted names, fixed owner and time (the last commit's).
STAMP=$SOURCE_DATE_EPOCH
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$STAMP" \
    -C "$STAGE" -czf "dist/$NAME.tar.gz" "$NAME"

echo "dist: done"
ls -l dist
