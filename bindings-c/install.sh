#!/usr/bin/env bash
# Builds libabws in release mode and installs it with its headers and pkg-config file:
#   bindings-c/install.sh [PREFIX]        (default /usr/local)
# Result: PREFIX/lib/libabws.{so,a}, PREFIX/include/abws.{h,hpp},
#         PREFIX/lib/pkgconfig/abws.pc  (then: pkg-config --cflags --libs abws)
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-/usr/local}
target=${CARGO_TARGET_DIR:-target}
cargo build --release -p abws-c
mkdir -p "$prefix/lib/pkgconfig" "$prefix/include"
for f in libabws.so libabws.dylib libabws.a; do
    [ -e "$target/release/$f" ] && cp "$target/release/$f" "$prefix/lib/"
done
cp include/abws.h include/abws.hpp "$prefix/include/"
bindings-c/pkgconfig.sh "$prefix/lib" "$prefix/include" "$prefix" > "$prefix/lib/pkgconfig/abws.pc"
echo "installed libabws into $prefix (pkg-config file: $prefix/lib/pkgconfig/abws.pc)"
