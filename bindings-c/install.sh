#!/usr/bin/env bash
# Builds libabws in release mode and installs it with its headers and pkg-config file:
#   bindings-c/install.sh [PREFIX]        (default /usr/local)
#   bindings-c/install.sh PREFIX BUILT    the libraries already built in BUILT (no cargo
#                                         call; scripts/test-c.sh installs its dev build so)
# Result: PREFIX/lib/libabws.{so,a}, PREFIX/include/abws.{h,hpp},
#         PREFIX/lib/pkgconfig/abws.pc  (then: pkg-config --cflags --libs abws)
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-/usr/local}
built=${2:-}
if [ -z "$built" ]; then
    cargo build --release -p abws-c
    built=${CARGO_TARGET_DIR:-target}/release
fi
mkdir -p "$prefix/lib/pkgconfig" "$prefix/include"
for f in libabws.so libabws.dylib libabws.a; do
    if [ -e "$built/$f" ]; then cp "$built/$f" "$prefix/lib/"; fi
done
cp include/abws.h include/abws.hpp "$prefix/include/"
bindings-c/pkgconfig.sh "$prefix/lib" "$prefix/include" "$prefix" > "$prefix/lib/pkgconfig/abws.pc"
echo "installed libabws into $prefix (pkg-config file: $prefix/lib/pkgconfig/abws.pc)"
