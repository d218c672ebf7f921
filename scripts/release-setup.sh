#!/usr/bin/env bash
# `make release` / `make release-check`, step 0: what the cross builds and their tests need,
# installed on a clean machine that has only the Rust toolchain, a C compiler and Python:
#   - the Rust targets (rustup target add);
#   - Debian packages: MinGW (the Windows linker and the import library's dlltool), wine (runs
#     the Windows programs), qemu-user (runs the aarch64 programs), the aarch64 cross gcc and
#     its glibc (links the test programs, qemu's -L), musl-tools (musl-gcc);
#   - into .venv (make setup): cargo-zigbuild (links the Linux libraries against glibc 2.17 and
#     the musl and macOS targets with zig), actionlint (the workflow's lint).
# `release-setup.sh targets` adds only the Rust targets; `release-setup.sh apt` only the
# Debian packages (the workflow's native runners need neither).
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/apt.sh
. scripts/apt.sh
TARGETS=(x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-unknown-linux-musl
    aarch64-unknown-linux-musl x86_64-pc-windows-gnu x86_64-apple-darwin aarch64-apple-darwin)
# package:command that shows it is installed
PACKAGES=(gcc-mingw-w64-x86-64:x86_64-w64-mingw32-gcc g++-mingw-w64-x86-64:x86_64-w64-mingw32-g++
    wine64:/usr/lib/wine/wine64 wine:wine qemu-user-static:qemu-aarch64-static gcc-aarch64-linux-gnu:aarch64-linux-gnu-gcc
    g++-aarch64-linux-gnu:aarch64-linux-gnu-g++ libc6-arm64-cross:/usr/aarch64-linux-gnu/lib/libc.so.6
    musl-tools:musl-gcc)
# An aarch64 machine (the workflow's ARM runners) runs its own programs: musl's loader only.
[ "$(uname -m)" = x86_64 ] || PACKAGES=(musl-tools:musl-gcc)
what=${1:-all}
status=0
if [ "$what" = all ] || [ "$what" = targets ]; then
    have=$(rustup target list --installed)
    missing=()
    for t in "${TARGETS[@]}"; do grep -qx "$t" <<< "$have" || missing+=("$t"); done
    if [ "${#missing[@]}" -ne 0 ]; then
        echo "release-setup: rustup target add ${missing[*]}"
        rustup target add "${missing[@]}" >/dev/null || status=1
    fi
fi
if [ "$what" = all ] || [ "$what" = apt ]; then
    for p in "${PACKAGES[@]}"; do
        pkg=${p%%:*} probe=${p#*:}
        if [ -e "$probe" ] || command -v "$probe" >/dev/null 2>&1; then continue; fi
        echo "release-setup: installing $pkg..."
        apt_install "$pkg" || { echo "release-setup: apt-get could not install $pkg (as root or through sudo -n)" >&2; status=1; }
    done
fi
exit $status
