#!/usr/bin/env bash
# The C ABI's test command (called by `make test`; runs alone on a fresh clone too):
#   0. makes sure valgrind is there (installs it with apt-get; fails without it);
#   1. builds libabws (abws-c) and the sandbox binary (with the rest of the workspace);
#   2. checks that include/abws.h is what cbindgen generates (fails when stale);
#   3. compiles the header as C and as C++, every tests/c/*.c with
#      `cc -std=c11 -Wall -Wextra -Werror` and every tests/c/*.cpp with
#      `c++ -std=c++17 -Wall -Wextra -Werror` (version.c also against the static library);
#   4. starts the sandbox on an ephemeral port and hands its addresses, credentials and
#      data-set ids to the tests through ABWS_TEST_* environment variables;
#   5. runs every test program under valgrind memcheck (no leaks, no invalid accesses);
#   6. stops the sandbox and prints `c tests: N passed, M failed`.
# Needs: cargo, cc, c++, python3 (JSON of the sandbox line) and valgrind: installs valgrind
# (and pkg-config, cmake) with apt-get — through `sudo -n` when not root — when missing, and
# fails when valgrind still is not there. Writes the C lines of the reliability scorecard
# (section K) to target/scorecards/c.md (or $ABWS_SCORECARD_DIR); `make scorecards` merges
# them into docs/reliability.md.
set -uo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
TARGET=${CARGO_TARGET_DIR:-target}
case "$TARGET" in /*) ;; *) TARGET="$ROOT/$TARGET" ;; esac
export CARGO_TARGET_DIR=$TARGET
LIBDIR=$TARGET/debug
BUILD=$ROOT/tests/c/build
mkdir -p "$BUILD"

# shellcheck source=scripts/apt.sh
. "$ROOT/scripts/apt.sh"

pass=0
fail=0
failed_names=()
ok() { pass=$((pass + 1)); echo "ok: $1"; }
ko() { fail=$((fail + 1)); failed_names+=("$1"); echo "FAILED: $1"; }
finish() {
    echo "c tests: $pass passed, $fail failed"
    if [ "$fail" -ne 0 ]; then
        printf '  failed: %s\n' "${failed_names[@]}"
        exit 1
    fi
    exit 0
}

# 0. Valgrind: without it the tests would prove nothing about leaks and invalid accesses, so
# a missing valgrind fails the run (ABWS_VALGRIND names another binary).
VALGRIND=${ABWS_VALGRIND:-valgrind}
if ! command -v "$VALGRIND" >/dev/null 2>&1; then
    echo "installing valgrind..."
    apt_install valgrind || true
fi
if ! command -v "$VALGRIND" >/dev/null 2>&1; then
    ko "$VALGRIND is not installed and apt-get (as root or through sudo -n) could not install it: install valgrind and run again"
    finish
fi

# 1. Build: the selection of `cargo test --workspace` (every member, with dev units), so that
# after `make test`'s Rust tests nothing is compiled again (`-p abws-c` alone would resolve
# other features and build the core anew).
# ABWS_PREBUILT=1 (make test, after its build): no cargo call, which would wait for the lock
# of the target directory that the Rust tests running beside this suite hold.
if [ "${ABWS_PREBUILT:-}" != 1 ] && ! cargo build --quiet --workspace --lib --bins --examples; then
    ko "cargo build --workspace --lib --bins --examples"
    finish
fi
for f in "$LIBDIR/libabws.so" "$LIBDIR/libabws.a" "$LIBDIR/abws-sandbox" "$LIBDIR/xtask"; do
    [ -e "$f" ] || [ -e "${f%.so}.dylib" ] || { ko "missing $f"; finish; }
done

# 2. The committed header is the generated one.
if "$LIBDIR/xtask" header --check; then ok "header is fresh"; else ko "header is fresh"; fi

# 3. Compile.
CFLAGS=(-std=c11 -Wall -Wextra -Werror -Iinclude)
CXXFLAGS=(-std=c++17 -Wall -Wextra -Werror -Iinclude)
LINK=(-L"$LIBDIR" -labws -Wl,-rpath,"$LIBDIR" -lpthread -ldl -lm)
STATIC=("$LIBDIR/libabws.a" -lpthread -ldl -lm)

printf '#include "abws.h"\nint main(void) { return abws_version() == 0; }\n' > "$BUILD/header_c.c"
printf '#include "abws.h"\n#include "abws.h"\n#include "abws.hpp"\nint main() { return abws::version().empty(); }\n' > "$BUILD/header_cpp.cpp"
if cc "${CFLAGS[@]}" -pedantic "$BUILD/header_c.c" -o "$BUILD/header_c" "${LINK[@]}"; then
    ok "abws.h compiles as C11 (-pedantic)"
else ko "abws.h compiles as C11"; fi
if c++ "${CXXFLAGS[@]}" -pedantic "$BUILD/header_cpp.cpp" -o "$BUILD/header_cpp" "${LINK[@]}"; then
    ok "abws.h and abws.hpp compile as C++17 (-pedantic)"
else ko "abws.h and abws.hpp compile as C++17"; fi

# docs/c-api.md's "complete program" is examples/c/list_invoices.c, whole.
if python3 - docs/c-api.md examples/c/list_invoices.c <<'PY'
import sys
doc = open(sys.argv[1]).read()
section = doc.split("## A complete program", 1)[1]
block = section.split("```c\n", 1)[1].split("```", 1)[0]
sys.exit(0 if block == open(sys.argv[2]).read() else 1)
PY
then ok "docs/c-api.md's complete program is examples/c/list_invoices.c"
else ko "docs/c-api.md's complete program is examples/c/list_invoices.c"; fi

# The misuse test walks every operation and pager constructor of the header: their
# table is generated from include/abws.h, so a new operation is covered automatically.
if ! python3 - include/abws.h > "$BUILD/ops_table.h" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
sig = r"abws_status (abws_[a-z_]+)\(const abws_client \*client,\s*const char \*params_json,\s*{}\s*abws_error \*\*err\);"
ops = re.findall(sig.format(r"char \*\*result_json,"), text)
pagers = re.findall(sig.format(r"abws_pager \*\*pager,"), text)
if len(ops) < 25 or len(pagers) < 5:
    sys.exit(f"found only {len(ops)} operations and {len(pagers)} pagers in the header")
print("/* Generated by scripts/test-c.sh from include/abws.h. */")
print("typedef abws_status (*op_fn)(const abws_client *, const char *, char **, abws_error **);")
print("typedef abws_status (*pager_fn)(const abws_client *, const char *, abws_pager **, abws_error **);")
print("static const struct { const char *name; op_fn fn; } OPS[] = {")
for o in ops: print(f'    {{"{o}", {o}}},')
print("};")
print("static const struct { const char *name; pager_fn fn; } PAGERS[] = {")
for o in pagers: print(f'    {{"{o}", {o}}},')
print("};")
PY
then
    ko "generating the operation table from abws.h"
fi
CFLAGS+=(-I"$BUILD")

programs=()
for src in tests/c/*.c; do
    name=$(basename "$src" .c)
    if cc "${CFLAGS[@]}" "$src" -o "$BUILD/$name" "${LINK[@]}"; then
        programs+=("$name")
    else
        ko "compile $src"
    fi
done
if cc "${CFLAGS[@]}" tests/c/version.c -o "$BUILD/version_static" "${STATIC[@]}"; then
    programs+=("version_static")
else
    ko "compile tests/c/version.c against libabws.a"
fi
for src in tests/c/*.cpp; do
    [ -e "$src" ] || continue
    name=$(basename "$src" .cpp)
    if c++ "${CXXFLAGS[@]}" "$src" -o "$BUILD/$name" "${LINK[@]}"; then
        programs+=("$name")
    else
        ko "compile $src"
    fi
done

# The examples, found the way a plugin's build finds the library: pkg-config (a .pc
# rendered for the build tree) and CMake (when cmake is installed).
PCDIR=$BUILD/pkgconfig
mkdir -p "$PCDIR"
bindings-c/pkgconfig.sh "$LIBDIR" "$ROOT/include" > "$PCDIR/abws.pc"
if ! command -v pkg-config >/dev/null 2>&1; then
    apt_install pkg-config || true
fi
if ! command -v pkg-config >/dev/null 2>&1; then
    echo "skipped: the pkg-config example (pkg-config is not installed)"
elif PKG_CONFIG_PATH=$PCDIR pkg-config --exists abws; then
    PC_FLAGS=$(PKG_CONFIG_PATH=$PCDIR pkg-config --cflags --libs abws)
    for src in examples/c/*.c; do
        name=example_$(basename "$src" .c)
        # shellcheck disable=SC2086
        if cc -std=c11 -Wall -Wextra -Werror "$src" -o "$BUILD/$name" $PC_FLAGS -Wl,-rpath,"$LIBDIR"; then
            ok "$src builds with pkg-config"
            programs+=("$name")
        else
            ko "$src builds with pkg-config"
        fi
    done
    # shellcheck disable=SC2086
    if c++ -std=c++17 -Wall -Wextra -Werror -Iinclude examples/cpp/erp_sync.cpp -o "$BUILD/example_erp_sync" \
        $PC_FLAGS -Wl,-rpath,"$LIBDIR"; then
        ok "examples/cpp/erp_sync.cpp builds with pkg-config"
        programs+=("example_erp_sync")
    else
        ko "examples/cpp/erp_sync.cpp builds with pkg-config"
    fi
else
    ko "examples/c builds with pkg-config"
fi
if ! command -v cmake >/dev/null 2>&1; then
    echo "installing cmake..."
    apt_install cmake || true
fi
if command -v cmake >/dev/null 2>&1; then
    rm -rf "$BUILD/cmake"
    if PKG_CONFIG_PATH=$PCDIR cmake -S examples/cpp -B "$BUILD/cmake" -DCMAKE_BUILD_TYPE=Debug \
        -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" > "$BUILD/cmake.log" 2>&1 &&
        cmake --build "$BUILD/cmake" >> "$BUILD/cmake.log" 2>&1; then
        ok "examples/cpp builds with CMake"
    else
        ko "examples/cpp builds with CMake (log $BUILD/cmake.log)"
    fi
else
    echo "skipped: the CMake example (cmake is not installed)"
fi

# The README's C quick start, as written: its build commands (from `export PKG_CONFIG_PATH`
# on) and its app.c, against this build installed the README's way from source
# (bindings-c/install.sh PREFIX, here with the dev build: no release build in `make test`);
# the program runs below under valgrind with no LD_LIBRARY_PATH: it finds libabws by the
# rpath of the README's link line.
QUICK=$BUILD/quickstart
rm -rf "$QUICK" && mkdir -p "$QUICK"
if bindings-c/install.sh "$QUICK/prefix" "$LIBDIR" > "$QUICK/install.log" 2>&1 &&
    python3 - README.md "$QUICK" <<'PY'
import re, sys
readme, out = open(sys.argv[1]).read(), sys.argv[2]
section = readme.split("## C quick start\n", 1)[1].split("\n## ", 1)[0]
sh = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
c = re.search(r"```c\n(.*?)```", section, re.S).group(1)
lines = sh.splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith("export PKG_CONFIG_PATH="))
build = [l for l in lines[start:] if "./app" not in l]
assert any(l.startswith("cc app.c") for l in build), build
open(f"{out}/app.c", "w").write(c)
open(f"{out}/build.sh", "w").write("set -e\n" + "\n".join(build) + "\n")
PY
then
    if (cd "$QUICK" && env -u LD_LIBRARY_PATH PREFIX="$QUICK/prefix" PATH="$PATH" bash build.sh > build.log 2>&1) &&
        cp "$QUICK/app" "$BUILD/quickstart_app"; then
        ok "the README's C quick start builds as written (app.c, pkg-config, rpath)"
        programs+=("quickstart_app")
    else
        ko "the README's C quick start builds as written (log $QUICK/build.log)"
    fi
else
    ko "the README's C quick start: install and extraction (log $QUICK/install.log)"
fi

# 4. The sandbox: scaled time (x60) so report jobs finish in about a second, its tokens
# lasting 60 hours of its time, a real hour (the `expires_in` it sends is in its own
# seconds: a one-hour token would end after a real minute, under valgrind a program's
# length); and a second one that rotates refresh tokens, with two-second access tokens
# (tests/c/rotation.c, tests/c/wrapper.cpp) on a clock ten times slower: the clients
# refresh after 1.6 s, as `expires_in` says, but the server keeps a token 20 real
# seconds, so a program slowed by valgrind on a loaded machine never meets an expired
# token between a refresh and its use (an extra refresh would break the exact counts).
SANDBOX_OUT=$BUILD/sandbox.json
ROTATING_OUT=$BUILD/sandbox-rotating.json
: > "$SANDBOX_OUT"
: > "$ROTATING_OUT"
"$LIBDIR/abws-sandbox" --rate-limits off --time-scale 60 --token-lifetime 216000 > "$SANDBOX_OUT" 2> "$BUILD/sandbox.log" &
SANDBOX_PID=$!
"$LIBDIR/abws-sandbox" --rate-limits off --rotate-refresh-tokens --token-lifetime 2 --time-scale 0.1 \
    > "$ROTATING_OUT" 2> "$BUILD/sandbox-rotating.log" &
ROTATING_PID=$!
# A redis-server on a free loopback port for tests/c/shared_state.c and tests/c/messages.c
# (ABWS_TEST_REDIS), with a password: messages.c gives a wrong one.
if ! bash "$ROOT/scripts/ensure-redis.sh"; then
    ko "redis-server for tests/c/shared_state.c"
    finish
fi
REDIS_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$BUILD/redis"
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$BUILD/redis" \
    --requirepass c-test-pw > "$BUILD/redis.log" 2>&1 &
REDIS_PID=$!
export ABWS_TEST_REDIS="redis://:c-test-pw@127.0.0.1:$REDIS_PORT/0"
trap 'kill "$SANDBOX_PID" "$ROTATING_PID" "$REDIS_PID" 2>/dev/null; wait "$SANDBOX_PID" "$ROTATING_PID" "$REDIS_PID" 2>/dev/null' EXIT
for _ in $(seq 1 100); do
    [ -s "$SANDBOX_OUT" ] && [ -s "$ROTATING_OUT" ] && break
    sleep 0.1
done
if ! [ -s "$SANDBOX_OUT" ] || ! [ -s "$ROTATING_OUT" ]; then
    ko "sandbox did not start (see $BUILD/sandbox.log, $BUILD/sandbox-rotating.log)"
    finish
fi
ENV_FILE=$BUILD/test.env
if ! python3 - "$SANDBOX_OUT" "$ROTATING_OUT" > "$ENV_FILE" <<'PY'
import datetime, json, shlex, sys, urllib.error, urllib.request

sys.path.insert(0, "tests/release")
from sandbox_env import settings_of  # noqa: E402 (one definition of the C settings)


def consented(sb):
    """The sandbox's settings with a refresh token of its own, from the consent flow (Allow,
    then the code exchange): a new token family, so a program that rotates it does not
    consume the token another program starts from."""
    import urllib.parse

    c = sb["credentials"]

    class Keep(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    query = urllib.parse.urlencode(
        {"state": "s1", "redirect_uri": c["redirect_uri"], "applicationId": c["application_id"]}
    )
    try:
        urllib.request.build_opener(Keep).open(f"{sb['consent_url']}/b2b/abws/oauth/allow?{query}", timeout=10)
        raise SystemExit("the consent page did not redirect")
    except urllib.error.HTTPError as e:
        location = e.headers["Location"]
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["code"][0]
    form = urllib.parse.urlencode(
        {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": c["redirect_uri"],
            "client_id": c["client_id"],
            "client_secret": c["client_secret"],
        }
    ).encode()
    token = json.load(urllib.request.urlopen(f"{sb['auth_url']}/auth/O2/token", data=form, timeout=10))
    return dict(settings_of(sb), refresh_token=token["refresh_token"])


sb = json.load(open(sys.argv[1]))
rotating = json.load(open(sys.argv[2]))
settings = settings_of(sb)
d = json.load(urllib.request.urlopen(sb["base_url"] + "/_sandbox/dataset", timeout=10))
today = datetime.date.fromisoformat(d["today"])
first = today.replace(day=1)
prev_end = first - datetime.timedelta(days=1)
prev_start = prev_end.replace(day=1)
group = next(g["id"] for g in d["groups"] if g.get("eInvoicing"))
einvoice_buyer = next(u["email"] for u in d["users"] if u["group"] == group)
env = {
    "ABWS_TEST_SETTINGS": json.dumps(settings),
    "ABWS_TEST_ROTATING_SETTINGS": json.dumps(settings_of(rotating)),
    # The C++ wrapper's rotation check starts from a token family of its own.
    "ABWS_TEST_ROTATING_SETTINGS_2": json.dumps(consented(rotating)),
    # So does the check of a C++ Pager outliving its Client (wrapper_pager_lifetime.cpp).
    "ABWS_TEST_ROTATING_SETTINGS_3": json.dumps(consented(rotating)),
    "ABWS_TEST_BASE_URL": sb["base_url"],
    "ABWS_TEST_TODAY": d["today"],
    "ABWS_TEST_PREV_START": prev_start.isoformat() + "T00:00:00Z",
    "ABWS_TEST_PREV_END": prev_end.isoformat() + "T23:59:59Z",
    "ABWS_TEST_PREV_INVOICES": ",".join(d["previousMonthInvoices"]),
    "ABWS_TEST_EINVOICE_GROUP": group,
    "ABWS_TEST_EINVOICE_BUYER": einvoice_buyer,
    "ABWS_TEST_FATAL_ORDER": d["specials"]["fatalOrderId"],
    "ABWS_TEST_ERROR_DOC_ORDER": d["specials"]["errorDocumentOrderId"],
    "ABWS_TEST_SPECIAL_ORDERS": ",".join(
        d["specials"]["digitalOrderIds"]
        + [d["specials"]["fatalOrderId"], d["specials"]["errorDocumentOrderId"]]
    ),
}
for k, v in env.items():
    print(f"export {k}={shlex.quote(v)}")
PY
then
    ko "reading the sandbox's addresses and data set"
    finish
fi
# shellcheck disable=SC1090
. "$ENV_FILE"
# The version the library must report: the workspace's, from Cargo.toml.
ABWS_TEST_VERSION=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' Cargo.toml)
export ABWS_TEST_VERSION
if [ -z "$ABWS_TEST_VERSION" ]; then
    ko "reading the workspace version from Cargo.toml"
fi

# 5. Run under valgrind (checked at the start).
RUNNER=("$VALGRIND" --quiet --error-exitcode=99 --leak-check=full
    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect
    --suppressions="$ROOT/tests/c/valgrind.supp")
for name in "${programs[@]}"; do
    # ABWS_C_ONLY="endpoints misuse": run only these programs (a change's own tests).
    if [ -n "${ABWS_C_ONLY:-}" ] && [[ " $ABWS_C_ONLY " != *" $name "* ]]; then
        continue
    fi
    log=$BUILD/$name.log
    args=()
    if [[ "$name" == example_* ]]; then
        args=("${ABWS_TEST_PREV_START%%T*}" "${ABWS_TEST_PREV_END%%T*}")
    fi
    if [ "$name" = quickstart_app ]; then
        args=("${ABWS_TEST_PREV_INVOICES%%,*}")
    fi
    runner=("${RUNNER[@]}")
    how=valgrind
    # Not under valgrind: every Redis operation is bounded by 250 ms (shared/mod.rs), which a
    # program slowed twenty-fold misses, so Redis would count as down and the write
    # ledger be skipped or left half-written (its C surface is abws_client_new's, which the
    # other programs run under valgrind).
    # messages.c's shared-state check waits 2 s at most for Redis, as a client's
    # construction does: native too.
    if [ "$name" = shared_state ] || [ "$name" = messages ]; then
        runner=()
        how=native
    fi
    if ABWS_SETTINGS=$ABWS_TEST_SETTINGS timeout 300 env -u LD_LIBRARY_PATH "${runner[@]}" "$BUILD/$name" "${args[@]}" > "$log" 2>&1; then
        ok "$name ($how)"
        tail -n 1 "$log" | sed 's/^/    /'
    else
        ko "$name (exit $?; log $log)"
        tail -n 40 "$log" | sed 's/^/    /'
    fi
done

# 6. The C lines of the reliability scorecard (section K), then stop the sandbox (the
# trap) and report.
last_line() { [ -f "$BUILD/$1.log" ] && tail -n 1 "$BUILD/$1.log" || echo "not run"; }
verdict() { [[ " ${failed_names[*]:-} " == *" $1 "* ]] && echo "FAILED" || echo "passed"; }
{
    echo "### C ABI (K), from \`scripts/test-c.sh\`"
    echo
    echo "- K1-K5: misuse program $(verdict misuse): $(last_line misuse) (NULL for every pointer of every operation and pager, invalid UTF-8, malformed and wrongly typed JSON, unknown keys, double free and use after free through the handle registry, foreign strings); 0 crashes. Panics: every entry point returns ABWS_STATUS_PANIC under an injected panic (Rust unit test of abws-c)"
    echo "- K6: $(last_line threads) ($(verdict threads))"
    echo "- K7: every C/C++ program and example under valgrind memcheck: $pass passed, $fail failed (an error or a definitely/indirectly lost byte fails the program)"
    echo "- K8: include/abws.h regenerated by the pinned cbindgen: $(verdict 'header is fresh') (0 diff lines when passed)"
    echo "- D7 (C): $(last_line cancel) ($(verdict cancel))"
    echo "- K9: refresh-token rotation through abws_client_set_refresh_token_callback: $(last_line rotation) ($(verdict rotation))"
} > "$BUILD/reliability-k.md"
SCORES=${ABWS_SCORECARD_DIR:-$ROOT/target/scorecards}
mkdir -p "$SCORES" && cp "$BUILD/reliability-k.md" "$SCORES/c.md"

finish
