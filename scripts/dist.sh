#!/usr/bin/env bash
# `make dist` and `make release`: the artifacts people install, into dist/.
#
#   dist.sh                 the sdist, and the wheel and C release of this machine's platform
#                           (`make dist`; scripts/dist-test.sh uses them);
#   dist.sh wheel           this platform's wheel alone (scripts/bench.sh measures it);
#   dist.sh all             `make release`: the sdist, and the wheel and C release of every
#                           platform this machine builds (on Linux: the four Linux ones and
#                           Windows; on macOS: the two macOS ones);
#   dist.sh PLATFORM...     those platforms' wheel and C release (the release workflow).
#
# PLATFORM       wheel (abi3, CPython >= 3.10)           C release
# linux-x86_64   manylinux2014_x86_64 (glibc 2.17)        libabws-V-linux-x86_64.tar.gz
# linux-aarch64  manylinux2014_aarch64 (glibc 2.17)       libabws-V-linux-aarch64.tar.gz
# linux-musl-x86_64   musllinux_1_2_x86_64                libabws-V-linux-musl-x86_64.tar.gz
# linux-musl-aarch64  musllinux_1_2_aarch64               libabws-V-linux-musl-aarch64.tar.gz
# windows-x86_64 win_amd64 (.pyd importing python3.dll)   libabws-V-windows-x86_64.zip
# macos-x86_64   macosx_10_12_x86_64                      libabws-V-macos-x86_64.tar.gz
# macos-arm64    macosx_11_0_arm64                        libabws-V-macos-arm64.tar.gz
#
# The Linux ones are linked by zig (PyPI `ziglang`; maturin --zig for the wheel,
# cargo-zigbuild for libabws and the sandbox) against glibc 2.17 or musl, from any Linux
# machine; Windows by MinGW (x86_64-pc-windows-gnu: the DLL imports only system DLLs); macOS
# only on macOS: its libraries link Apple's Security and CoreFoundation frameworks
# (rustls-native-certs through redis, iana-time-zone through chrono), which zig does not
# ship (docs/decisions/027-releases.md, "Every platform's artifacts").
# A C release holds the shared library (lib/libabws.so.V with SONAME libabws.so.MAJOR;
# bin/abws.dll with lib/abws.lib for MSVC and lib/libabws.dll.a for MinGW;
# lib/libabws.MAJOR.dylib with install name @rpath/libabws.MAJOR.dylib), the static library
# lib/libabws.a, include/abws.h + abws.hpp, lib/pkgconfig/abws.pc, lib/cmake/abws/
# (abws::abws, abws::abws_static), bin/abws-sandbox (the emulator, for the user's own tests),
# bin/abws (the command line: every operation, fetch-pdf, decrypt, sandbox; `abws --help`),
# share/abws/schemas/{requests,results}/ (every operation's JSON Schemas, docs/schemas/),
# share/doc/abws/c-api.md and close.md (the C guide; the close's parameters and result),
# LICENSE, README.md, CHANGELOG.md.
# All built with the `dist` profile of Cargo.toml into CARGO_TARGET_DIR (default
# target-dist), one directory per Rust target. Needs .venv (make setup: maturin, ziglang,
# cargo-zigbuild) and, for the cross builds, scripts/release-setup.sh (Rust targets, MinGW).
# scripts/dist-test.sh and scripts/release-test.sh install each one and use it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$ROOT/.venv/bin:$ROOT/.venv/Scripts:$PATH"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target-dist}
case "$CARGO_TARGET_DIR" in /* | [A-Za-z]:*) ;; *) CARGO_TARGET_DIR="$ROOT/$CARGO_TARGET_DIR" ;; esac
# Reproducible builds (docs/decisions/027-releases.md): SOURCE_DATE_EPOCH and the path remapping, when present.
# shellcheck source=/dev/null
[ -f scripts/release-env.sh ] && . scripts/release-env.sh
# DIST_PROFILE: another Cargo profile than `dist` (e.g. `release`, without LTO: a quicker build).
PROFILE=${DIST_PROFILE:-dist}
# Progress lines carry the seconds since the start (where a release's time goes, in CI's log).
say() { echo "dist: [${SECONDS}s] $*"; }
command -v maturin >/dev/null || { echo "dist: maturin is missing from .venv; run 'make setup'" >&2; exit 2; }

VERSION=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' Cargo.toml)
MAJOR=${VERSION%%.*}
MINOR=$(echo "$VERSION" | cut -d. -f2)
[ -n "$VERSION" ] || { echo "dist: no version in Cargo.toml [workspace.package]" >&2; exit 1; }
if [ -n "$(git status --porcelain 2>/dev/null)" ]; then
    echo "dist: note: the work tree has uncommitted changes; they are in the artifacts"
fi

case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) HOST=linux-x86_64 ;;
    Linux-aarch64) HOST=linux-aarch64 ;;
    Darwin-arm64) HOST=macos-arm64 ;;
    Darwin-x86_64) HOST=macos-x86_64 ;;
    MINGW*-x86_64 | MSYS*-x86_64 | CYGWIN*-x86_64) HOST=windows-x86_64 ;;
    *) HOST=unknown ;;
esac

# platform NAME: sets TRIPLE (Rust's target), OS (linux, windows, macos), LINK (zig or
# native: the toolchain's own linker, MinGW for Windows) and COMPAT (the wheel's tag policy).
platform() {
    COMPAT=
    case "$1" in
        linux-x86_64) TRIPLE=x86_64-unknown-linux-gnu OS=linux COMPAT=manylinux2014 ;;
        linux-aarch64) TRIPLE=aarch64-unknown-linux-gnu OS=linux COMPAT=manylinux2014 ;;
        linux-musl-x86_64) TRIPLE=x86_64-unknown-linux-musl OS=linux COMPAT=musllinux_1_2 ;;
        linux-musl-aarch64) TRIPLE=aarch64-unknown-linux-musl OS=linux COMPAT=musllinux_1_2 ;;
        windows-x86_64) TRIPLE=x86_64-pc-windows-gnu OS=windows ;;
        macos-x86_64) TRIPLE=x86_64-apple-darwin OS=macos ;;
        macos-arm64) TRIPLE=aarch64-apple-darwin OS=macos ;;
        *)
            echo "dist: unknown platform '$1' (linux-x86_64, linux-aarch64, linux-musl-x86_64, linux-musl-aarch64, windows-x86_64, macos-x86_64, macos-arm64)" >&2
            exit 2
            ;;
    esac
    LINK=native
    if [ "$OS" = linux ]; then LINK=zig; fi
    if [ "$OS" = macos ] && [ "${HOST%-*}" != macos ]; then
        echo "dist: $1 is built on macOS only: its libraries link Apple's Security and CoreFoundation frameworks, which are not on this machine (zig: unable to find system framework \"Security\")" >&2
        exit 2
    fi
    # musl: a shared library (the C release's and the wheel's) needs the C runtime linked
    # dynamically; the same flags for both builds, so they share the dependencies. Cargo reads
    # CARGO_ENCODED_RUSTFLAGS (release-env.sh's path remaps) before RUSTFLAGS, ignoring the
    # latter: the flag goes with the remaps, or in RUSTFLAGS when there are none.
    FLAGS_PLATFORM=${CARGO_ENCODED_RUSTFLAGS:-}
    if [ -z "$FLAGS_PLATFORM" ] && [ -n "${RUSTFLAGS:-}" ]; then
        read -r -a _flags <<< "$RUSTFLAGS"
        FLAGS_PLATFORM=$(IFS=$'\x1f'; echo "${_flags[*]}")
    fi
    local us=$'\x1f'
    case "$TRIPLE" in *-musl) FLAGS_PLATFORM="${FLAGS_PLATFORM:+$FLAGS_PLATFORM$us}-Ctarget-feature=-crt-static" ;; esac
    # Prints nothing but for the static library (which libraries it needs); among the flags
    # of every build of the platform, since a flag that differs rebuilds every crate.
    FLAGS_PLATFORM="${FLAGS_PLATFORM:+$FLAGS_PLATFORM$us}--print=native-static-libs"
}

wheel() { # PLATFORM
    platform "$1"
    say "the wheel for $1 ($TRIPLE, abi3, profile $PROFILE)"
    # Into a directory of its own: the SBOM's package ids name the checkout and are
    # replaced (scripts/wheel-sbom.py) before the wheel joins dist/, where the other lane
    # may be writing its own wheel at the same time.
    local out w
    out=$(mktemp -d "$ROOT/dist/.wheel-XXXXXX")
    local args=(build --quiet --profile "$PROFILE" --target "$TRIPLE" --out "$out")
    [ -n "$COMPAT" ] && args+=(--compatibility "$COMPAT")
    local via=()
    # zig links it through cargo-zigbuild, as it links the C release (scripts/cargo-via-zig).
    if [ "$LINK" = zig ]; then
        via=(env "PATH=$ROOT/scripts/cargo-via-zig:$PATH" "ABWS_CARGO_PATH=$PATH"
            "ABWS_ZIG_TRIPLE=$TRIPLE" "ABWS_ZIG_TARGET=$(zig_target)")
    fi
    "${via[@]}" env CARGO_ENCODED_RUSTFLAGS="$FLAGS_PLATFORM" maturin "${args[@]}" || { rm -rf "$out"; return 1; }
    for w in "$out"/abws-*.whl; do
        python3 scripts/wheel-sbom.py "$w" "${ABWS_BUILDER_PATHS[@]}" && mv "$w" dist/ || { rm -rf "$out"; return 1; }
    done
    rmdir "$out"
}

# cargo-zigbuild's name of the platform's target: glibc 2.17 for the gnu ones.
zig_target() {
    case "$TRIPLE" in *-gnu) echo "$TRIPLE.2.17" ;; *) echo "$TRIPLE" ;; esac
}

# cargo for PLATFORM's libraries: cargo-zigbuild's or cargo.
cargo_for() { # rustc|build, args...
    local sub=$1
    shift
    if [ "$LINK" = zig ]; then
        CARGO_ENCODED_RUSTFLAGS=$FLAGS_PLATFORM cargo-zigbuild "$sub" --quiet --profile "$PROFILE" --target "$(zig_target)" "$@"
    else
        CARGO_ENCODED_RUSTFLAGS=$FLAGS_PLATFORM cargo "$sub" --quiet --profile "$PROFILE" --target "$TRIPLE" "$@"
    fi
}

# The exported functions of a DLL, as a module-definition file (for the MSVC import library).
def_of_dll() { # DLL
    local objdump=objdump
    command -v x86_64-w64-mingw32-objdump >/dev/null && objdump=x86_64-w64-mingw32-objdump
    echo "LIBRARY abws.dll"
    echo "EXPORTS"
    "$objdump" -p "$1" | awk '/\[Ordinal\/Name Pointer\] Table/ {t=1; next} t && NF == 0 {t=0} t {print "    " $NF}'
}

c_release() { # PLATFORM
    platform "$1"
    say "libabws for $1 ($TRIPLE, profile $PROFILE)"
    local link= built=$CARGO_TARGET_DIR/$TRIPLE/$PROFILE
    case "$OS" in
        # The SONAME / install name goes to the link of libabws only (bindings-c/build.rs),
        # not to the debug builds the tests link against by their plain name.
        linux) link="-Wl,-soname,libabws.so.$MAJOR" ;;
        macos) link="-Wl,-install_name,@rpath/libabws.$MAJOR.dylib" ;;
    esac
    mkdir -p "$built"
    # One build of the three, so that they resolve the same features and share one build of
    # the core and its dependencies (and of the wheel's, built with the same flags just
    # before); their final links run side by side. rustc names the system libraries the
    # static library needs (--print=native-static-libs, among the platform's flags: kept
    # beside it for a fresh build). DIST_PREBUILT=1: package what is built.
    if [ "${DIST_PREBUILT:-}" != 1 ]; then
        ABWS_CDYLIB_LINK_ARGS=$link cargo_for build -p abws-c -p abws-cli -p abws-sandbox 2> "$built/abws-c.log" ||
            { cat "$built/abws-c.log" >&2; return 1; }
        say "$1 built: libabws, the abws command, the sandbox binary"
        # The wheel's build and this one share one build of the core and its dependencies
        # when their flags, C compiler and features agree (each other build of it costs
        # minutes): say so when they stopped agreeing.
        # (Those built by this platform's run: a reused target directory keeps older ones.)
        local cores
        cores=$(find "$built/deps" -maxdepth 1 -name 'libabws-*.rlib' -newer "$built/.platform-start" | wc -l)
        [ "$cores" -le 1 ] || say "warning: the core was built $cores times for $1: the wheel's build and the C release's differ in flags, C compiler or features (compare \`cargo tree -e normal,build -f '{p} {f}'\` of the two)"
    fi
    local libs
    libs=$(sed -n 's/.*native-static-libs: //p' "$built/abws-c.log" 2>/dev/null | tail -1 || true)
    if [ -n "$libs" ]; then echo "$libs" > "$built/native-static-libs"; fi
    libs=$(cat "$built/native-static-libs" 2>/dev/null || true)
    if [ -z "$libs" ]; then # the standard library's, which is what they are
        echo > "$built/empty.rs"
        libs=$(rustc --crate-type staticlib --target "$TRIPLE" --print native-static-libs "$built/empty.rs" \
            -o "$built/empty.a" 2>&1 | sed -n 's/.*native-static-libs: //p')
    fi

    local name=libabws-$VERSION-$1 stage shared soname exe=
    stage=$(mktemp -d)
    local P=$stage/$name
    mkdir -p "$P/bin" "$P/lib/pkgconfig" "$P/lib/cmake/abws" "$P/include"
    case "$OS" in
        linux)
            shared=lib/libabws.so.$VERSION soname=libabws.so.$MAJOR
            cp "$built/libabws.so" "$P/$shared"
            ln -s "libabws.so.$VERSION" "$P/lib/libabws.so.$MAJOR"
            ln -s "libabws.so.$MAJOR" "$P/lib/libabws.so"
            ;;
        macos)
            shared=lib/libabws.$MAJOR.dylib soname=@rpath/libabws.$MAJOR.dylib
            cp "$built/libabws.dylib" "$P/$shared"
            ln -s "libabws.$MAJOR.dylib" "$P/lib/libabws.dylib"
            ;;
        windows)
            shared=bin/abws.dll soname= exe=.exe
            cp "$built/abws.dll" "$P/bin/"
            cp "$built/libabws.dll.a" "$P/lib/"
            def_of_dll "$built/abws.dll" > "$P/lib/abws.def"
            # The import library MSVC links (llvm-dlltool, from zig).
            python-zig dlltool -m i386:x86-64 -d "$P/lib/abws.def" -D abws.dll -l "$P/lib/abws.lib"
            ;;
    esac
    # Its Rust internals made local (the host's ld -r: the x86_64 ones).
    if [ "$OS" = linux ] && [ "${TRIPLE%%-*}" = "$(uname -m)" ] && [ -f scripts/localize-static.sh ]; then
        bash scripts/localize-static.sh "$built/libabws.a" "$P/lib/libabws.a"
    else
        cp "$built/libabws.a" "$P/lib/"
    fi
    cp "$built/abws-sandbox$exe" "$built/abws$exe" "$P/bin/"
    cp include/abws.h include/abws.hpp "$P/include/"
    mkdir -p "$P/share/abws/schemas" "$P/share/doc/abws"
    cp -R docs/schemas/requests docs/schemas/results "$P/share/abws/schemas/"
    # The C guide and the close's (its parameters, result and archive format) beside them.
    cp docs/c-api.md docs/close.md "$P/share/doc/abws/"
    # Relocatable: pkg-config finds the prefix from the .pc file's own directory.
    bindings-c/pkgconfig.sh '${prefix}/lib' '${prefix}/include' '${pcfiledir}/../..' |
        sed "s|^Libs.private:.*|Libs.private: $libs|" > "$P/lib/pkgconfig/abws.pc"
    local cmake_libs
    cmake_libs=$(for l in $libs; do case "$l" in -l*) printf ';%s' "${l#-l}" ;; -framework) ;; *) printf ';-framework %s' "$l" ;; esac; done)
    for f in abwsConfig.cmake abwsConfigVersion.cmake; do
        sed -e "s|@VERSION@|$VERSION|g" -e "s|@MAJOR@|$MAJOR|g" -e "s|@MINOR@|$MINOR|g" \
            -e "s|@SHARED@|$shared|g" -e "s|@SONAME@|$soname|g" -e "s|;@STATIC_LIBS@|$cmake_libs|g" \
            "bindings-c/cmake/$f.in" > "$P/lib/cmake/abws/$f"
    done
    sed -e "s|@VERSION@|$VERSION|g" -e "s|@MAJOR@|$MAJOR|g" -e "s|@PLATFORM@|$1|g" bindings-c/dist/README.md > "$P/README.md"
    cp LICENSE CHANGELOG.md "$P/"
    # Reproducible: sorted names, fixed owner and time (the last commit's).
    local stamp
    stamp=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
    if [ "$OS" = windows ]; then
        python3 scripts/release-zip.py "$stamp" "$stage" "$name" "dist/$name.zip"
    else
        tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$stamp" \
            -C "$stage" -czf "dist/$name.tar.gz" "$name"
    fi
    rm -rf "$stage"
}

# `dist.sh wheel`: this platform's wheel only (scripts/bench.sh measures what users install).
if [ "${1:-}" = wheel ]; then
    mkdir -p dist
    rm -f dist/abws-*.whl
    wheel "$HOST"
    exit 0
fi
sdist=0
case "${1:-}" in
    "") platforms=("$HOST") sdist=1 ;;
    all)
        sdist=1
        case "$HOST" in
            linux-*) platforms=(linux-x86_64 linux-aarch64 linux-musl-x86_64 linux-musl-aarch64 windows-x86_64) ;;
            macos-*) platforms=(macos-x86_64 macos-arm64) ;;
            *) platforms=("$HOST") ;;
        esac
        ;;
    *) platforms=("$@") ;;
esac
for p in "${platforms[@]}"; do platform "$p"; done # unknown names fail before any build
if [ "$sdist" = 1 ]; then rm -rf dist; fi
mkdir -p dist
# DIST_PARTS: what to build of each platform (default both).
build_platform() {
    platform "$1"
    mkdir -p "$CARGO_TARGET_DIR/$TRIPLE/$PROFILE"
    touch "$CARGO_TARGET_DIR/$TRIPLE/$PROFILE/.platform-start"
    case " ${DIST_PARTS:-wheel c} " in *" wheel "*) wheel "$1" ;; esac
    case " ${DIST_PARTS:-wheel c} " in *" c "*) c_release "$1" ;; esac
}
# DIST_JOBS lanes of platforms side by side (default 2 for `all`, else 1): an optimised build
# spends much of its time in single-threaded steps (the core crate and the final link, one
# codegen unit each), so two lanes keep both cores busy. Each lane has a target directory of
# its own (a cargo build locks its directory) and takes the next platform nobody has taken
# (a directory made under dist/ claims it), so neither waits while the other has two left;
# its output goes to dist/lane-N.log.
jobs=${DIST_JOBS:-1}
[ "${1:-}" = all ] && jobs=${DIST_JOBS:-2}
if [ "$jobs" -le 1 ] || [ "${#platforms[@]}" -le 1 ]; then
    for p in "${platforms[@]}"; do build_platform "$p"; done
else
    pids=()
    rm -rf dist/.taken-*
    for ((lane = 0; lane < jobs; lane++)); do
        (
            [ "$lane" -gt 0 ] && export CARGO_TARGET_DIR=$CARGO_TARGET_DIR-lane$lane
            for p in "${platforms[@]}"; do
                mkdir "dist/.taken-$p" 2>/dev/null || continue
                say "lane $lane takes $p"
                build_platform "$p" || exit 1
            done
        ) > "dist/lane-$lane.log" 2>&1 &
        pids+=($!)
    done
    status=0
    for ((lane = 0; lane < jobs; lane++)); do
        wait "${pids[$lane]}" || status=1
        sed "s/^/[lane $lane] /" "dist/lane-$lane.log"
        rm -f "dist/lane-$lane.log"
    done
    rm -rf dist/.taken-*
    [ "$status" = 0 ] || { echo "dist: a platform's build failed (above)" >&2; exit 1; }
fi
if [ "$sdist" = 1 ]; then
    say "the sdist"
    maturin sdist --out dist
fi
say "done"
ls -l dist
