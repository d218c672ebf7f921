#!/usr/bin/env bash
# Renders bindings-c/abws.pc.in for a library directory and an include directory:
#   bindings-c/pkgconfig.sh LIBDIR INCLUDEDIR [PREFIX] > abws.pc
# Used by bindings-c/install.sh (installed layout) and scripts/test-c.sh (build tree).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
libdir=${1:?usage: pkgconfig.sh LIBDIR INCLUDEDIR [PREFIX]}
includedir=${2:?usage: pkgconfig.sh LIBDIR INCLUDEDIR [PREFIX]}
prefix=${3:-$(dirname "$libdir")}
version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' "$here/../Cargo.toml")
sed -e "s|@PREFIX@|$prefix|" -e "s|@LIBDIR@|$libdir|" -e "s|@INCLUDEDIR@|$includedir|" \
    -e "s|@VERSION@|$version|" "$here/abws.pc.in"
