#!/usr/bin/env bash
# `make release-check`, after `make release` (scripts/dist.sh all): checks every wheel and C
# release of dist/, and runs each C release's programs where this machine can run them.
#
#   release-test.sh              every platform whose artifacts are in dist/
#   release-test.sh PLATFORM...  those (linux-x86_64, linux-aarch64, linux-musl-x86_64,
#                                linux-musl-aarch64, windows-x86_64, macos-x86_64, macos-arm64)
#
# Each wheel: its tags (abi3, cp310, the platform's), at most 8 MB, and its libraries:
# auditwheel for Linux (the manylinux / musllinux tag it claims, no outside library), the PE
# import table for Windows (python3.dll and system DLLs only: not python3X.dll, no MinGW
# runtime), the load commands for macOS (system libraries and frameworks only).
# Each C release: its files; the shared library's dependencies (Linux glibc: no GLIBC_
# version above 2.17, `objdump -T`; Windows: system DLLs only); then the programs a C or C++
# user writes, compiled for the platform against the release (pkg-config's flags; on Windows
# once through the MinGW import library and once through the MSVC one, abws.lib) and run
# against a sandbox on loopback: examples/c/list_invoices.c (lists invoices),
# examples/c/download_invoice.c (a PDF through the streaming callback), examples/cpp/
# erp_sync.cpp (the C++ wrapper) and tests/release/errors.c (a missing parameter, a wrong
# secret, nothing listening), and list_invoices linked against the static library:
#   linux-x86_64, linux-musl-x86_64   natively (musl: zig cc / zig c++ -target *-linux-musl,
#                                     musl's loader from musl-tools);
#   linux-aarch64                     under qemu-aarch64 (-L /usr/aarch64-linux-gnu) on x86_64;
#   windows-x86_64                    cross-compiled with MinGW, under wine (with a stand-in for
#                                     bcryptprimitives.dll, which wine 8 lacks: tests only);
#   linux-musl-aarch64                natively on aarch64 only (no musl loader for qemu here);
#   macos-*, on their own machines    natively (the release workflow's runners).
# Each release's own sandbox binary starts and answers (natively, under qemu or wine); the
# programs talk to this machine's native one. Needs scripts/release-setup.sh's packages.
# Exits non-zero naming every check that failed.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=$ROOT/.venv/bin/python
[ -x "$PY" ] || PY=$ROOT/.venv/Scripts/python.exe
[ -x "$PY" ] || PY=$(command -v python3 || command -v python)
export PATH="$ROOT/.venv/bin:$ROOT/.venv/Scripts:$PATH"
VERSION=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' Cargo.toml)
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
    [ -n "${WINEPREFIX:-}" ] && command -v wineserver >/dev/null && wineserver -k 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

# shellcheck source=scripts/release-checks.sh
. scripts/release-checks.sh

ALL=(linux-x86_64 linux-aarch64 linux-musl-x86_64 linux-musl-aarch64 windows-x86_64 macos-x86_64 macos-arm64)
if [ "$#" -gt 0 ]; then platforms=("$@"); else
    platforms=()
    for p in "${ALL[@]}"; do
        compgen -G "dist/libabws-$VERSION-$p.*" >/dev/null && platforms+=("$p")
    done
fi
[ "${#platforms[@]}" -gt 0 ] || { ko "dist/ holds a C release of $VERSION (run 'make release')"; }

# wheel_tag PLATFORM: the glob of its wheel's platform tag.
wheel_glob() {
    case "$1" in
        linux-x86_64) echo "manylinux*_x86_64" ;;
        linux-aarch64) echo "manylinux*_aarch64" ;;
        linux-musl-x86_64) echo "musllinux_1_2_x86_64" ;;
        linux-musl-aarch64) echo "musllinux_1_2_aarch64" ;;
        windows-x86_64) echo "win_amd64" ;;
        macos-x86_64) echo "macosx_*_x86_64" ;;
        macos-arm64) echo "macosx_*_arm64" ;;
    esac
}

# The DLLs a PE file imports (lower case, one a line).
pe_imports() { objdump -p "$1" 2>/dev/null | sed -n 's/^[[:space:]]*DLL Name: //p' | tr 'A-Z' 'a-z' | sort -u; }
# Windows' own DLLs (and the API sets that forward to them).
SYSTEM_DLLS='^(kernel32|advapi32|ntdll|ws2_32|userenv|bcrypt|bcryptprimitives|crypt32|secur32|ole32|oleaut32|shell32|user32|msvcrt|ucrtbase|dbghelp|iphlpapi|ncrypt|api-ms-win-[a-z0-9-]+)\.dll$'
# The load commands' libraries of a Mach-O file.
macho_libs() {
    if command -v otool >/dev/null; then otool -L "$1" | tail -n +2 | awk '{print $1}'
    else llvm-objdump --macho --dylibs-used "$1" | tail -n +2 | awk '{print $1}'; fi
}

check_wheel() { # PLATFORM
    local p=$1 wheels
    mapfile -t wheels < <(compgen -G "dist/abws-$VERSION-cp310-abi3-$(wheel_glob "$p").whl")
    if [ "${#wheels[@]}" -ne 1 ]; then
        ko "$p: one abi3 cp310 wheel tagged $(wheel_glob "$p") in dist/ (found ${#wheels[@]})"
        return
    fi
    local whl=${wheels[0]} size
    size=$(wc -c < "$whl")
    if [ "$size" -le 8000000 ]; then ok "$p: $(basename "$whl"), $size bytes (at most 8 MB)"
    else ko "$p: $(basename "$whl") is $size bytes, over 8 MB"; fi
    local dir=$WORK/wheel-$p
    mkdir -p "$dir"
    (cd "$dir" && "$PY" -m zipfile -e "$ROOT/$whl" .)
    local ext
    ext=$(find "$dir/abws" -name '_abws*' -type f | head -1)
    [ -n "$ext" ] || { ko "$p: the wheel holds the extension abws/_abws.*"; return; }
    case "$p" in
        linux-musl-*)
            # auditwheel cannot audit a musl wheel on a glibc machine (it resolves libc.so to
            # glibc's): its musllinux_1_2 policy is checked here, from its own policy file.
            local needed allowed others
            needed=$(readelf -d "$ext" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
            allowed=$("$PY" -c 'import json, pathlib, auditwheel
p = pathlib.Path(auditwheel.__file__).parent / "policy" / "musllinux-policy.json"
print("\n".join(next(x for x in json.loads(p.read_text()) if x["name"] == "musllinux_1_2")["lib_whitelist"]))')
            others=$(grep -vxF -f <(printf '%s\n' "$allowed") <<< "$needed")
            if [ -n "$needed" ] && [ -n "$allowed" ] && [ -z "$others" ] && ! objdump -T "$ext" | grep -q GLIBC_; then
                ok "$p: $(basename "$ext") needs only $(tr '\n' ' ' <<< "$needed")(auditwheel's musllinux_1_2 policy), no glibc symbol"
            else
                ko "$p: $(basename "$ext") needs only what musllinux_1_2 allows ($(tr '\n' ' ' <<< "$allowed")); it needs: $(tr '\n' ' ' <<< "$needed")"
            fi
            ;;
        linux-*)
            local show flat
            show=$("$PY" -m auditwheel show "$whl" 2>&1)
            flat=$(tr -s ' \n' ' ' <<< "$show")
            local want=manylinux
            if grep -q "is consistent with the following platform tag: \"$want" <<< "$flat" &&
                ! grep -q "following external shared libraries are required" <<< "$flat"; then
                ok "$p: auditwheel: $(grep -o "platform tag: \"$want[^\"]*\"" <<< "$flat" | head -1), no outside library"
            else
                ko "$p: auditwheel show"
                sed 's/^/    /' <<< "$show"
            fi
            ;;
        windows-*)
            local imports others
            imports=$(pe_imports "$ext")
            others=$(grep -Ev "$SYSTEM_DLLS" <<< "$imports" | grep -vx python3.dll)
            if grep -qx python3.dll <<< "$imports" && [ -z "$others" ]; then
                ok "$p: $(basename "$ext") imports python3.dll and system DLLs only ($(tr '\n' ' ' <<< "$imports"))"
            else
                ko "$p: $(basename "$ext") imports python3.dll and system DLLs only; it imports: $(tr '\n' ' ' <<< "$imports")"
            fi
            ;;
        macos-*)
            local libs others
            libs=$(macho_libs "$ext")
            others=$(grep -Ev '^(/usr/lib/|/System/Library/Frameworks/)' <<< "$libs")
            if [ -n "$libs" ] && [ -z "$others" ] && ! grep -q -i python <<< "$libs"; then
                ok "$p: $(basename "$ext") loads system libraries only ($(tr '\n' ' ' <<< "$libs"))"
            else
                ko "$p: $(basename "$ext") loads system libraries only; it loads: $(tr '\n' ' ' <<< "$libs")"
            fi
            ;;
    esac
}

# Unpacks PLATFORM's C release into $WORK/c-PLATFORM (PREFIX).
unpack() {
    local p=$1 archive
    PREFIX=$WORK/c-$p
    mkdir -p "$PREFIX"
    archive=$(compgen -G "dist/libabws-$VERSION-$p.*" | head -1)
    case "$archive" in
        *.zip) "$PY" -m zipfile -e "$archive" "$WORK/unzip-$p" && cp -a "$WORK/unzip-$p/libabws-$VERSION-$p/." "$PREFIX/" ;;
        *) tar -xzf "$archive" -C "$PREFIX" --strip-components=1 ;;
    esac
}

check_files() { # PLATFORM: what each C release holds
    local p=$1 files missing=()
    files=(include/abws.h include/abws.hpp lib/libabws.a lib/pkgconfig/abws.pc lib/cmake/abws/abwsConfig.cmake
        lib/cmake/abws/abwsConfigVersion.cmake LICENSE README.md CHANGELOG.md share/doc/abws/c-api.md
        share/doc/abws/close.md)
    case "$p" in
        windows-*) files+=(bin/abws.dll lib/abws.lib lib/libabws.dll.a bin/abws-sandbox.exe bin/abws.exe) ;;
        macos-*) files+=(lib/libabws.dylib "lib/libabws.${VERSION%%.*}.dylib" bin/abws-sandbox bin/abws) ;;
        *) files+=(lib/libabws.so "lib/libabws.so.$VERSION" bin/abws-sandbox bin/abws) ;;
    esac
    for f in "${files[@]}"; do [ -e "$PREFIX/$f" ] || missing+=("$f"); done
    if [ "${#missing[@]}" -eq 0 ]; then ok "$p: the C release holds its ${#files[@]} files"
    else ko "$p: the C release lacks ${missing[*]}"; fi
}

check_deps() { # PLATFORM: the shared library's and the sandbox's dependencies
    local p=$1
    case "$p" in
        linux-x86_64 | linux-aarch64)
            local f newest
            for f in "lib/libabws.so.$VERSION" bin/abws-sandbox bin/abws; do
                newest=$(objdump -T "$PREFIX/$f" | grep -o 'GLIBC_[0-9.]*' | sort -t. -k1,1 -k2,2n -k3,3n -u | tail -1)
                if [ -n "$newest" ] && [ "$(printf '%s\n' "$newest" GLIBC_2.17 | sort -V | tail -1)" = GLIBC_2.17 ]; then
                    ok "$p: $f needs glibc $newest at most (objdump -T: nothing above GLIBC_2.17)"
                else
                    ko "$p: $f needs ${newest:-no GLIBC_ version?}, above GLIBC_2.17"
                fi
            done
            ;;
        linux-musl-*)
            local needed
            needed=$(readelf -d "$PREFIX/lib/libabws.so.$VERSION" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
            if [ "$needed" = "libc.so " ]; then ok "$p: libabws.so needs only musl's libc.so"
            else ko "$p: libabws.so needs only musl's libc.so; it needs: $needed"; fi
            ;;
        windows-*)
            local f imports others
            for f in bin/abws.dll bin/abws-sandbox.exe bin/abws.exe; do
                imports=$(pe_imports "$PREFIX/$f")
                others=$(grep -Ev "$SYSTEM_DLLS" <<< "$imports")
                if [ -n "$imports" ] && [ -z "$others" ]; then ok "$p: $f imports system DLLs only ($(tr '\n' ' ' <<< "$imports"))"
                else ko "$p: $f imports system DLLs only; also: $(tr '\n' ' ' <<< "$others")"; fi
            done
            ;;
        macos-*)
            local libs
            libs=$(macho_libs "$PREFIX/lib/libabws.${VERSION%%.*}.dylib")
            if head -1 <<< "$libs" | grep -qx "@rpath/libabws.${VERSION%%.*}.dylib" &&
                [ -z "$(tail -n +2 <<< "$libs" | grep -Ev '^(/usr/lib/|/System/Library/Frameworks/)')" ]; then
                ok "$p: libabws.dylib's install name is @rpath/libabws.${VERSION%%.*}.dylib; it loads system libraries only"
            else
                ko "$p: libabws.dylib's install name and libraries: $(tr '\n' ' ' <<< "$libs")"
            fi
            ;;
    esac
}

ARCH=$(uname -m)
case "$ARCH" in arm64) ARCH=aarch64 ;; esac
# The platform's compilers and how to run its programs here: sets CC_, CXX_, EXE, RUN (the
# emulator, if any) and RUNS (0: nothing here runs them).
toolchain() { # PLATFORM
    RUN=() CC_=(cc) CXX_=(c++) SCC_=() EXE= RUNS=1 CXX_RUNS=1
    local arch=${1##*-}
    [ "$arch" = arm64 ] && arch=aarch64
    case "$1" in
        linux-musl-*)
            # C: musl-gcc, the machine's musl (musl-tools, with its loader); C++: zig c++ (musl
            # has no libstdc++ here), whose musl 1.2.5 runtime links statx: it runs only where
            # the machine's musl is 1.2.5 or later (CXX_RUNS). The static program: zig cc.
            CC_=(python-zig cc -target "$arch-linux-musl") CXX_=(python-zig c++ -target "$arch-linux-musl")
            SCC_=("${CC_[@]}") # the static program: zig's own musl, linked in whole
            command -v musl-gcc >/dev/null && [ "$arch" = "$ARCH" ] && CC_=(musl-gcc)
            [ "$arch" = "$ARCH" ] && [ -e "/lib/ld-musl-$arch.so.1" ] || RUNS=0
            local v
            v=$("/lib/ld-musl-$arch.so.1" --version 2>&1 | sed -n 's/^Version //p')
            [ "$(printf '%s\n' "${v:-0}" 1.2.5 | sort -V | head -1)" = 1.2.5 ] || CXX_RUNS=0
            ;;
        linux-aarch64)
            if [ "$ARCH" != aarch64 ]; then
                CC_=(aarch64-linux-gnu-gcc) CXX_=(aarch64-linux-gnu-g++)
                RUN=(qemu-aarch64-static -L /usr/aarch64-linux-gnu)
            fi
            ;;
        windows-x86_64)
            CC_=(x86_64-w64-mingw32-gcc -static-libgcc) CXX_=(x86_64-w64-mingw32-g++ -static) EXE=.exe
            case "$(uname -s)" in Linux) RUN=(wine) ;; esac
            ;;
    esac
}

# The sandbox the programs talk to: the first unpacked release whose sandbox runs here
# without an emulator (else the workspace's debug build), started once.
SB_ENV=
start_sandbox() {
    local bin= p
    for p in "${platforms[@]}"; do
        toolchain "$p"
        if [ "$RUNS" = 1 ] && [ "${#RUN[@]}" -eq 0 ] && [ -x "$WORK/c-$p/bin/abws-sandbox$EXE" ]; then
            bin=$WORK/c-$p/bin/abws-sandbox$EXE
            break
        fi
    done
    [ -n "$bin" ] || bin=$ROOT/target/debug/abws-sandbox
    "$bin" --rate-limits off > "$WORK/sandbox.json" 2> "$WORK/sandbox.log" &
    PIDS+=($!)
    for _ in $(seq 1 100); do [ -s "$WORK/sandbox.json" ] && break; sleep 0.1; done
    if [ -s "$WORK/sandbox.json" ] && "$PY" tests/release/sandbox_env.py "$WORK/sandbox.json" > "$WORK/sandbox.env"; then
        SB_ENV=$WORK/sandbox.env
        set -a
        # shellcheck source=/dev/null
        . "$SB_ENV"
        set +a
        echo "the programs' sandbox: $bin"
    else
        ko "the sandbox for the programs started ($bin; $(tail -3 "$WORK/sandbox.log"))"
    fi
}

setup_wine() {
    [ -n "${WINEPREFIX:-}" ] && return 0
    export WINEPREFIX=$WORK/wine WINEDEBUG=-all WINEARCH=win64
    if ! quiet wineboot --init; then ko "windows-x86_64: wine starts (wineboot --init)"; return 1; fi
}

run_program() { # PLATFORM LABEL PROGRAM ARGS...
    local p=$1 label=$2
    shift 2
    if timeout 300 "${RUN[@]}" "$@" > "$WORK/run.log" 2>&1; then
        ok "$p: $label: $(tail -n 1 "$WORK/run.log")"
    else
        ko "$p: $label"
        tail -n 20 "$WORK/run.log" | sed 's/^/    /'
    fi
}

check_sandbox_binary() { # PLATFORM BINDIR: the release's own sandbox starts and answers
    local p=$1 out=$WORK/own-sandbox-$p.json
    # From the programs' directory (on Windows: beside the tests' bcryptprimitives.dll).
    cp "$PREFIX/bin/abws-sandbox$EXE" "$2/"
    "${RUN[@]}" "$2/abws-sandbox$EXE" --rate-limits off > "$out" 2> "$WORK/own-sandbox-$p.log" &
    local pid=$!
    for _ in $(seq 1 600); do grep -q base_url "$out" 2>/dev/null && break; sleep 0.1; done
    if grep -q base_url "$out" && "$PY" -c 'import json,sys,urllib.request as u; j=json.loads(open(sys.argv[1]).readline()); u.urlopen(j["base_url"]+"/_sandbox/dataset", timeout=30).read()' "$out"; then
        ok "$p: its bin/abws-sandbox$EXE starts and answers on loopback${RUN:+ (under ${RUN[0]})}"
    else
        ko "$p: its bin/abws-sandbox$EXE starts and answers ($(tail -3 "$WORK/own-sandbox-$p.log"))"
    fi
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    [ "${RUN[0]:-}" = wine ] && wineserver -w 2>/dev/null
    return 0
}

run_programs() { # PLATFORM
    local p=$1 bin=$WORK/bin-$1
    toolchain "$p"
    [ "$RUNS" = 1 ] || { echo "note: $p: no way to run its programs on this machine (checks only)"; return; }
    [ -n "$SB_ENV" ] || return
    if [ "${RUN[0]:-}" = wine ]; then setup_wine || return; fi
    mkdir -p "$bin"
    local inc=(-I"$PREFIX/include") shared static=("$PREFIX/lib/libabws.a")
    case "$p" in
        windows-*)
            shared=("$PREFIX/lib/libabws.dll.a")
            static+=($(sed -n 's/^Libs.private: //p' "$PREFIX/lib/pkgconfig/abws.pc"))
            cp "$PREFIX/bin/abws.dll" "$bin/"
            # Wine 8 lacks bcryptprimitives.dll (ProcessPrng): the tests' stand-in.
            if ! quiet x86_64-w64-mingw32-gcc -shared -O2 tests/release/bcryptprimitives.c -o "$bin/bcryptprimitives.dll" -ladvapi32; then
                ko "$p: the tests' bcryptprimitives.dll builds"
                return
            fi
            ;;
        *)
            shared=(-L"$PREFIX/lib" -labws -Wl,-rpath,"$PREFIX/lib")
            static+=($(sed -n 's/^Libs.private: //p' "$PREFIX/lib/pkgconfig/abws.pc"))
            ;;
    esac
    local src name
    for src in examples/c/list_invoices.c examples/c/download_invoice.c tests/release/errors.c; do
        name=$(basename "$src" .c)
        if quiet "${CC_[@]}" -std=c11 -Wall -Wextra -Werror "${inc[@]}" "$src" -o "$bin/$name$EXE" "${shared[@]}"; then
            if [ "$name" = errors ]; then run_program "$p" "$src" "$bin/$name$EXE"
            else run_program "$p" "$src" "$bin/$name$EXE" "$START" "$END"; fi
        else
            ko "$p: $src compiles against the release"
        fi
    done
    if quiet "${CXX_[@]}" -std=c++17 -Wall -Wextra -Werror "${inc[@]}" examples/cpp/erp_sync.cpp -o "$bin/erp_sync$EXE" "${shared[@]}"; then
        if [ "$CXX_RUNS" = 1 ]; then
            run_program "$p" "examples/cpp/erp_sync.cpp" "$bin/erp_sync$EXE" "$START" "$END"
        else
            ok "$p: examples/cpp/erp_sync.cpp compiles and links (zig c++; not run: this machine's musl is older than 1.2.5, which zig's C++ runtime needs)"
        fi
    else
        ko "$p: examples/cpp/erp_sync.cpp compiles against the release"
    fi
    [ "${#SCC_[@]}" -gt 0 ] || SCC_=("${CC_[@]}")
    if quiet "${SCC_[@]}" -std=c11 "${inc[@]}" examples/c/list_invoices.c -o "$bin/list_invoices_static$EXE" "${static[@]}"; then
        run_program "$p" "list_invoices.c against lib/libabws.a" "$bin/list_invoices_static$EXE" "$START" "$END"
    else
        ko "$p: list_invoices.c links against lib/libabws.a"
    fi
    if [ "$p" = windows-x86_64 ]; then # the import library MSVC links, read by MinGW's ld
        if quiet "${CC_[@]}" -std=c11 "${inc[@]}" examples/c/download_invoice.c -o "$bin/download_msvc_implib$EXE" "$PREFIX/lib/abws.lib"; then
            run_program "$p" "download_invoice.c through lib/abws.lib" "$bin/download_msvc_implib$EXE" "$START" "$END"
        else
            ko "$p: download_invoice.c links through lib/abws.lib"
        fi
    fi
    check_sandbox_binary "$p" "$bin"
}

for p in "${platforms[@]}"; do
    echo "== $p"
    check_wheel "$p"
    unpack "$p"
    check_files "$p"
    check_deps "$p"
done
for p in "${platforms[@]}"; do
    [ -z "$SB_ENV" ] && start_sandbox
    PREFIX=$WORK/c-$p
    echo "== $p: the programs"
    run_programs "$p"
done

finish "release tests"
