#!/usr/bin/env bash
# `make dist-test`: installs each artifact of dist/ (scripts/dist.sh) in a clean place and
# uses it, the way a user would:
#   1. the wheel: auditwheel reports a manylinux tag and no outside library, the extension
#      is stripped and the wheel at most 8 MB (8,000,000 bytes); installed into a fresh venv (no index, no
#      other package), it runs examples/quickstart.py against its embedded sandbox;
#   2. the sdist: `pip install` builds it in another fresh venv, which then runs the quick
#      start too;
#   3. the C tarball, unpacked into a temporary prefix: the SONAME carries the major
#      version, `nm` finds only `abws_*` exported, and the C and C++ examples build through
#      pkg-config and through CMake (`find_package(abws CONFIG)`, cmake from PyPI when the
#      machine has none) and run against a sandbox (the wheel's);
#   4. one version everywhere: Cargo.toml's, abws.__version__ (wheel and sdist),
#      abws_version() and ABWS_VERSION_* of the header, pkg-config's and CMake's.
# Exits non-zero naming every check that failed.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=$ROOT/.venv/bin/python
export PATH="$ROOT/.venv/bin:$PATH"
VERSION=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' Cargo.toml)
MAJOR=${VERSION%%.*}
WORK=$(mktemp -d)
SANDBOX_PID=
cleanup() {
    [ -n "$SANDBOX_PID" ] && kill "$SANDBOX_PID" 2>/dev/null && wait "$SANDBOX_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

# shellcheck source=scripts/release-checks.sh
. scripts/release-checks.sh

shopt -s nullglob
wheels=(dist/abws-"$VERSION"-cp310-abi3-manylinux*_x86_64.whl)
sdists=(dist/abws-"$VERSION".tar.g[z])
ctars=(dist/libabws-"$VERSION"-linux-x86_64.tar.gz)
shopt -u nullglob
if [ "${#wheels[@]}" -ne 1 ] || [ "${#sdists[@]}" -ne 1 ] || [ "${#ctars[@]}" -ne 1 ]; then
    ko "dist/ holds one wheel, one sdist and one C tarball of version $VERSION (run 'make dist'): $(ls dist 2>&1 | tr '\n' ' ')"
    finish "dist tests"
fi
WHEEL=$ROOT/${wheels[0]}
SDIST=$ROOT/${sdists[0]}
CTAR=$ROOT/${ctars[0]}
ok "dist/ holds the three artifacts of $VERSION"

# 1. The wheel.
show=$("$PY" -m auditwheel show "$WHEEL" 2>&1)
flat=$(tr -s ' \n' ' ' <<< "$show") # auditwheel wraps its sentences
if grep -q 'is consistent with the following platform tag: "manylinux' <<< "$flat" &&
    ! grep -q "following external shared libraries are required" <<< "$flat"; then
    ok "auditwheel: $(grep -o 'platform tag: "manylinux[^"]*"' <<< "$flat" | head -1), no outside library"
else
    ko "auditwheel show"
    sed 's/^/    /' <<< "$show"
fi
size=$(stat -c %s "$WHEEL")
if [ "$size" -le 8000000 ]; then
    ok "the wheel is $size bytes (at most 8 MB)"
else
    ko "the wheel is $size bytes, over 8 MB"
fi
mkdir -p "$WORK/wheel"
(cd "$WORK/wheel" && "$PY" -m zipfile -e "$WHEEL" .)
# The long description: the README's user part (bindings-python/README.md), not its developers'.
meta=$(find "$WORK/wheel" -path '*.dist-info/METADATA' | head -1)
if [ -n "$meta" ] && grep -q '^Description-Content-Type: text/markdown' "$meta" \
    && grep -q '^## Python quick start' "$meta" && ! grep -q '^## The two commands' "$meta"; then
    ok "the wheel's long description is the README's user part"
else
    ko "the wheel's long description is the README's user part (${meta:-no METADATA})"
fi
ext=$(find "$WORK/wheel" -name '_abws*.so' | head -1)
if [ -n "$ext" ] && [ -z "$(nm "$ext" 2>/dev/null | head -1)" ]; then
    ok "the extension is stripped"
else
    ko "the extension ${ext:-(missing)} is stripped (nm lists symbols)"
fi

check_venv() { # name, pip args...: a fresh venv with only abws, then the quick start
    local name=$1
    shift
    local venv=$WORK/venv-$name
    if ! quiet "$PY" -m venv "$venv"; then ko "$name: a fresh venv"; return 1; fi
    if ! quiet "${PIP_ENV[@]}" "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@"; then
        ko "$name: pip install"; return 1
    fi
    ok "$name: installed into a fresh venv"
    local v
    v=$(cd "$WORK" && "$venv/bin/python" -c 'import abws; print(abws.__version__)' 2>&1)
    if [ "$v" = "$VERSION" ]; then ok "$name: abws.__version__ is $VERSION"; else ko "$name: abws.__version__ is '$v', not $VERSION"; fi
    # From an empty directory: the installed package, not the checkout's sources.
    if (cd "$WORK" && quiet "$venv/bin/python" "$ROOT/examples/quickstart.py"); then
        ok "$name: examples/quickstart.py against the embedded sandbox"
    else
        ko "$name: examples/quickstart.py"
    fi
}
PIP_ENV=(env)
check_venv wheel --no-index "$WHEEL"

# 2. The sdist: pip builds it as a user's pip would (maturin from PyPI in an isolated build
# environment, a target directory of its own: an existing one would let cargo take its
# artifacts as fresh and not compile the sdist's sources at all), in the dev profile: what
# is checked is that the sdist holds everything its build needs, and the release profile
# (the wheel's code, built above) would add minutes of optimisation to every CI run.
PIP_ENV=(env -u CARGO_TARGET_DIR MATURIN_PEP517_ARGS="--profile dev")
check_venv sdist "$SDIST"

# 3. The C tarball.
PREFIX=$WORK/prefix
mkdir -p "$PREFIX"
tar -xzf "$CTAR" -C "$PREFIX" --strip-components=1
for f in lib/libabws.so "lib/libabws.so.$MAJOR" "lib/libabws.so.$VERSION" lib/libabws.a include/abws.h \
    include/abws.hpp lib/pkgconfig/abws.pc lib/cmake/abws/abwsConfig.cmake \
    lib/cmake/abws/abwsConfigVersion.cmake LICENSE README.md CHANGELOG.md share/doc/abws/c-api.md \
    share/doc/abws/close.md; do
    [ -e "$PREFIX/$f" ] || ko "the C tarball holds $f"
done
soname=$(readelf -d "$PREFIX/lib/libabws.so.$VERSION" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" = "libabws.so.$MAJOR" ]; then ok "SONAME $soname"; else ko "SONAME is '$soname', not libabws.so.$MAJOR"; fi
exported=$(nm -D --defined-only "$PREFIX/lib/libabws.so.$VERSION" | awk '{print $NF}')
others=$(grep -v '^abws_' <<< "$exported")
if [ -n "$exported" ] && [ -z "$others" ]; then
    ok "libabws.so exports only abws_* ($(wc -l <<< "$exported") symbols)"
else
    ko "libabws.so exports only abws_*; also: $(head -5 <<< "$others" | tr '\n' ' ')"
fi

# A sandbox for the C programs: the wheel's, in its venv.
SB_OUT=$WORK/sandbox.env
"$WORK/venv-wheel/bin/python" - > "$SB_OUT" 2> "$WORK/sandbox.log" <<'PY' &
import json, shlex, time
from datetime import date, timedelta
import abws
sb = abws.Sandbox(rate_limits="off")
c = sb.credentials()
settings = {"region": "JP", "client_id": c["client_id"], "client_secret": c["client_secret"],
            "refresh_token": c["refresh_token"], "user_email": c["user_email"],
            "endpoint": sb.group_url("JP"), "auth_endpoint": sb.base_url, "rate_limiting": False}
end = date.today().replace(day=1) - timedelta(days=1)
print(f"ABWS_SETTINGS={shlex.quote(json.dumps(settings))}")
print(f"START={end.replace(day=1).isoformat()} END={end.isoformat()}", flush=True)
while True:  # until the script ends (cleanup kills it)
    time.sleep(3600)
PY
SANDBOX_PID=$!
for _ in $(seq 1 100); do grep -q '^START=' "$SB_OUT" 2>/dev/null && break; sleep 0.1; done
if ! grep -q '^START=' "$SB_OUT"; then
    ko "the wheel's sandbox started (log: $(tail -5 "$WORK/sandbox.log"))"
    finish "dist tests"
fi
. "$SB_OUT"
export ABWS_SETTINGS

run_example() { # label, program
    if timeout 120 "$2" "$START" "$END" > "$WORK/run.log" 2>&1; then
        ok "$1 runs against the sandbox: $(tail -n 1 "$WORK/run.log")"
    else
        ko "$1 runs against the sandbox"
        tail -n 20 "$WORK/run.log" | sed 's/^/    /'
    fi
}

if cmp -s docs/c-api.md "$PREFIX/share/doc/abws/c-api.md" && cmp -s docs/close.md "$PREFIX/share/doc/abws/close.md"; then
    ok "the C tarball ships docs/c-api.md and docs/close.md in share/doc/abws/"
else
    ko "the C tarball ships docs/c-api.md and docs/close.md in share/doc/abws/"
fi
if diff -r docs/schemas/results "$PREFIX/share/abws/schemas/results" > /dev/null 2>&1; then
    ok "the C tarball ships docs/schemas/results/ as share/abws/schemas/results/"
else
    ko "the C tarball ships docs/schemas/results/ as share/abws/schemas/results/"
fi
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
pcv=$(pkg-config --modversion abws 2>&1)
if [ "$pcv" = "$VERSION" ]; then ok "pkg-config --modversion abws is $VERSION"; else ko "pkg-config --modversion abws is '$pcv'"; fi
PC_FLAGS=$(pkg-config --cflags --libs abws)
BIN=$WORK/bin
mkdir -p "$BIN"
for src in examples/c/*.c; do
    name=$(basename "$src" .c)
    if quiet cc -std=c11 -Wall -Wextra -Werror "$src" -o "$BIN/$name" $PC_FLAGS -Wl,-rpath,"$PREFIX/lib"; then
        run_example "$src (pkg-config)" "$BIN/$name"
    else
        ko "$src builds with pkg-config"
    fi
done
if quiet c++ -std=c++17 -Wall -Wextra -Werror examples/cpp/erp_sync.cpp -o "$BIN/erp_sync" $PC_FLAGS \
    -Wl,-rpath,"$PREFIX/lib"; then
    run_example "examples/cpp/erp_sync.cpp (pkg-config)" "$BIN/erp_sync"
else
    ko "examples/cpp/erp_sync.cpp builds with pkg-config"
fi
# The version the program was compiled with (the header's macros) and the one it runs
# with (abws_version()), against the shared and the static library.
cat > "$WORK/version.c" <<'C'
#include <stdio.h>
#include "abws.h"
int main(void) {
    printf("%d.%d.%d %s %s\n", ABWS_VERSION_MAJOR, ABWS_VERSION_MINOR, ABWS_VERSION_PATCH,
           ABWS_VERSION_STRING, abws_version());
    return 0;
}
C
want="$VERSION $VERSION $VERSION"
for kind in shared static; do
    if [ "$kind" = shared ]; then libs=($PC_FLAGS -Wl,-rpath,"$PREFIX/lib"); else libs=($(pkg-config --cflags abws) "$PREFIX/lib/libabws.a" -lpthread -ldl -lm); fi
    if quiet cc -std=c11 "$WORK/version.c" -o "$BIN/version_$kind" "${libs[@]}"; then
        got=$("$BIN/version_$kind")
        if [ "$got" = "$want" ]; then ok "header macros and abws_version() ($kind): $VERSION"; else ko "versions ($kind): '$got', want '$want'"; fi
    else
        ko "version.c builds against the $kind library"
    fi
done

# CMake: the machine's, else cmake from PyPI in a venv of its own.
CMAKE=$(command -v cmake || true)
if [ -z "$CMAKE" ]; then
    if quiet "$PY" -m venv "$WORK/venv-cmake" && quiet "$WORK/venv-cmake/bin/pip" install --quiet cmake; then
        CMAKE=$WORK/venv-cmake/bin/cmake
    else
        ko "cmake from PyPI"
    fi
fi
if [ -n "$CMAKE" ]; then
    # No pkg-config path: the CMake package alone must find libabws.
    if (unset PKG_CONFIG_PATH; quiet "$CMAKE" -S examples/cpp -B "$WORK/cmake" -DABWS_FIND=config \
        -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror") &&
        quiet "$CMAKE" --build "$WORK/cmake"; then
        ok "examples/cpp builds with CMake (find_package(abws CONFIG), abws::abws)"
        run_example "erp_sync (CMake)" "$WORK/cmake/erp_sync"
        run_example "list_invoices (CMake)" "$WORK/cmake/list_invoices"
        if "$CMAKE" -LA -N "$WORK/cmake" 2>/dev/null | grep -q "abws_DIR:PATH=$PREFIX/lib/cmake/abws"; then
            ok "CMake found the package in the tarball ($PREFIX/lib/cmake/abws)"
        else
            ko "CMake found the package in the tarball"
        fi
    else
        ko "examples/cpp builds with CMake through find_package(abws CONFIG)"
    fi
fi
finish "dist tests"
