# Sourced by scripts/dist-test.sh and scripts/release-test.sh: their checks' bookkeeping.
#   ok TEXT / ko TEXT    a passed / failed check (printed "ok: ..." / "FAILED: ...");
#   quiet CMD...         runs CMD quietly (log in $WORK/step.log); on failure shows its end;
#   finish NAME          prints "NAME: N passed, M failed" (and the failed ones), exits 0 or 1.
pass=0
failed=()
ok() { pass=$((pass + 1)); echo "ok: $1"; }
ko() { failed+=("$1"); echo "FAILED: $1"; }
quiet() {
    local log=$WORK/step.log
    if "$@" > "$log" 2>&1; then return 0; fi
    tail -n 30 "$log" | sed 's/^/    /'
    return 1
}
finish() {
    echo "$1: $pass passed, ${#failed[@]} failed"
    if [ "${#failed[@]}" -ne 0 ]; then
        printf '  failed: %s\n' "${failed[@]}"
        exit 1
    fi
    exit 0
}
