# shellcheck shell=bash
# Sourced by the release builds (scripts/dist.sh, scripts/release*.sh; S7): the
# environment under which an artifact depends on the sources only, not on when, where or by
# whom it was built.
#   SOURCE_DATE_EPOCH   the last commit's time: maturin stamps the wheel's files and its
#                       CycloneDX SBOM (metadata.timestamp) with it, and then leaves out the
#                       SBOM's random serialNumber; tar and zip dates follow it too.
#   CARGO_ENCODED_RUSTFLAGS
#                       --remap-path-prefix for the checkout (-> abws), the target directory
#                       (-> target), $CARGO_HOME (-> cargo: the registry's sources) and the
#                       toolchain's sysroot (-> rust): panic locations and file!() keep
#                       relative names. Any RUSTFLAGS already set are kept, before them.
#   CFLAGS, CXXFLAGS    the same as -ffile-prefix-map, for the C the build scripts compile
#                       (ring's).
# Needs CARGO_TARGET_DIR set (absolute) before it is sourced; defaults to <checkout>/target.
# Changing RUSTFLAGS rebuilds everything in that target directory: release builds use
# target directories of their own (target-dist, ...), never the tests' target/.
_abws_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
_abws_target=${CARGO_TARGET_DIR:-$_abws_root/target}
case "$_abws_target" in /*) ;; *) _abws_target=$_abws_root/$_abws_target ;; esac
_abws_cargo_home=$(cd "${CARGO_HOME:-$HOME/.cargo}" 2>/dev/null && pwd -P || echo "${CARGO_HOME:-$HOME/.cargo}")
_abws_sysroot=$(rustc --print sysroot)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$_abws_root" log -1 --format=%ct 2>/dev/null || echo 0)}
# rustc applies the last prefix that matches: the target directory (often inside the
# checkout) after the checkout.
_abws_maps=("$_abws_cargo_home=cargo" "$_abws_sysroot=rust" "$_abws_root=abws" "$_abws_target=target")
# zig's own headers (the C code of ring and mimalloc includes them): their directory is the
# `ziglang` package's, wherever the venv is (a venv outside the checkout, or one linked into
# it, is not under the checkout's map). Last, so it wins: clang applies the last map that matches.
_abws_zig=$(python3 -c 'import os, ziglang; print(os.path.dirname(os.path.realpath(ziglang.__file__)))' 2>/dev/null || true)
[ -n "$_abws_zig" ] && _abws_maps+=("$_abws_zig=zig")
_abws_flags=()
if [ -n "${CARGO_ENCODED_RUSTFLAGS:-}" ]; then
    IFS=$'\x1f' read -r -a _abws_flags <<< "$CARGO_ENCODED_RUSTFLAGS"
elif [ -n "${RUSTFLAGS:-}" ]; then
    read -r -a _abws_flags <<< "$RUSTFLAGS"
fi
_abws_cflags=
for _abws_map in "${_abws_maps[@]}"; do
    _abws_flags+=("--remap-path-prefix=$_abws_map")
    _abws_cflags+=" -ffile-prefix-map=$_abws_map"
done
CARGO_ENCODED_RUSTFLAGS=$(IFS=$'\x1f'; echo "${_abws_flags[*]}")
export CARGO_ENCODED_RUSTFLAGS
unset RUSTFLAGS
export CFLAGS="${CFLAGS:-}$_abws_cflags" CXXFLAGS="${CXXFLAGS:-}$_abws_cflags"
# What the checks look for: every builder path that must not be in an artifact.
ABWS_BUILDER_PATHS=("$_abws_root" "$_abws_target" "$_abws_cargo_home" "$_abws_sysroot" "$HOME/" ${_abws_zig:+"$_abws_zig"})
unset _abws_zig _abws_root _abws_target _abws_cargo_home _abws_sysroot _abws_maps _abws_flags _abws_cflags _abws_map
