"""The probes behind the notes of benches/analysis.md, figures no benchmark table gives:

    .venv/bin/python benches/probes.py b2 [--rounds 9]
        B2's 10,000-transaction page: abws against requests + json.loads, interleaved, one
        process; prints the medians, min – max and the per-round ratio. An A/B of two builds: install each wheel in turn (or in two
        venvs) and run this with each.
    .venv/bin/python benches/probes.py rotation [--rounds 4]
        B1's loop (getInvoiceDetailByInvoiceNumber, 1.5 s per loop, alternating) on the
        previous-month invoices in turn against the first invoice alone, and their sizes.
    .venv/bin/python benches/probes.py clients [--rounds 7]
        1,000 `abws.Client`s on one access token: a round of one call per client against
        1,000 calls on one client, timed as B11 times it (`many_clients.paired`: alternating
        chunks of a few calls), through the generated methods and through each client's
        compiled client (`_native.call`), each with its zero (one client on both sides).
    .venv/bin/python benches/probes.py chunks [--rounds 15]
        How fine B11's chunks must be: `many_clients.paired`'s zero (one client on both
        sides, true ratio 1) with chunks of 1,000, 100, 25 and 5 calls; a pass's spread.
    .venv/bin/python benches/probes.py misses [--python PY] [--keep DIR]
        The same comparison counted, not timed (B11, 1,000 refresh-token clients): the
        last-level-cache misses valgrind's cachegrind simulates in a child making 2 rounds
        against one making the same calls on one client; prints the round's extra misses
        per call. `--python` runs the children with another interpreter (an A/B of wheels);
        `--keep` keeps the two cachegrind files there, for `cg_diff` and `cg_annotate`
        (with a wheel built with symbols: `CARGO_PROFILE_DIST_STRIP=false
        CARGO_PROFILE_DIST_DEBUG=line-tables-only scripts/dist.sh wheel`).
    .venv/bin/python benches/probes.py sandbox-misses [--python PY] [--keep DIR]
        The sandbox's side of the same comparison: the sandbox itself under cachegrind while
        the children make their calls; prints the sandbox's extra last-level misses per call
        of the round (its table of distinct access tokens), not the client's.
    .venv/bin/python benches/probes.py sandbox-instructions [--sandbox BIN]...
        What B1's call costs the sandbox, counted: the sandbox binary under cachegrind
        answering 200, then (a fresh one) 1,200 of B1's floor GETs (`run.RawGet`, the
        invoices in turn); the difference per request, so its start and its dataset cancel
        out. One line per `--sandbox` (default: target-bench's), an A/B of two builds.
    .venv/bin/python benches/probes.py idle-spell [--rounds 3]
        This VM's round trips after an idle pause: B1's floor GETs (`run.RawGet`, no client)
        in chunks of 250, timed each, right after a pause of each kind (sleeps of 0.01 to
        1 s, a child process, a CPU spin of 0.3 s, none), each after 2,000 GETs in the
        steady state; prints µs a GET per chunk. Why B11 calls untimed after its pauses.
    .venv/bin/python benches/probes.py page-memory
        What a decoded page holds: the bytes Python's allocations still hold (`tracemalloc`,
        after `gc.collect()`) per transaction of the sandbox's getTransactions page (the
        embedded sandbox, region US, October 2026), after a warm-up page. Run it with each
        venv's python for an A/B of wheels.
    .venv/bin/python benches/probes.py wheels --python PY_A --python PY_B [--rounds 6]
        B1's call on one client (getInvoiceDetailByInvoiceNumber, the invoices in turn) with
        two interpreters, each with its wheel, alternating: a child per round and
        interpreter, 5 loops of 1,000 calls each; prints each one's median µs a call.

    .venv/bin/python benches/probes.py instructions [--python PY]...
        B1's call counted, not timed: the instructions one Python call of
        getInvoiceDetailByInvoiceNumber (the invoices in turn, one access-token client)
        executes in user space, under valgrind's cachegrind: a child making 200 warm-up
        calls and then 1,200 more against one making 200 more, the difference per call.
        Repeatable to ~0.5 %, where the timed per-call figures spread by ±20 %; one
        line per `--python` (an A/B of wheels in two venvs).

after `scripts/bench.sh` has built target-bench/ (the release sandbox) and installed the wheel.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator, List, Tuple

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402  (benches/run.py: the sandboxes, B2's page)

import abws  # noqa: E402


def spread(xs: List[float], fmt: str) -> str:
    return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))} – {fmt.format(max(xs))})"


def b2(rounds: int) -> None:
    base = run.Sandbox.binary()
    try:
        page, _ = run.build_big_page(base, 10_000)
    finally:
        base.stop()
    with tempfile.TemporaryDirectory() as tmp:
        rule = Path(tmp) / "rule.json"
        rule.write_text(json.dumps({"path": "getTransactions", "times": 1_000_000,
                                    "action": {"status": 200, "body": page}}))
        sb = run.Sandbox.hosted(str(rule))
    try:
        start, end = "2026-06-01T00:00:00Z", "2026-11-01T00:00:00Z"
        client = sb.client()
        session = requests.Session()
        session.headers.update(sb.headers())
        url = f"{sb.base}/reconciliation/2021-01-08/transactions"

        def f_abws() -> Any:
            return client.reconciliation.get_transactions(start, end)

        def f_requests() -> Any:
            r = session.get(url, params={"feedStartDate": start, "feedEndDate": end})
            r.raise_for_status()
            return json.loads(r.content)

        assert len(f_abws().transactions) == 10_000 and len(f_requests()["transactions"]) == 10_000
        ta: List[float] = []
        tr: List[float] = []
        for _ in range(rounds):
            for f, out in ((f_abws, ta), (f_requests, tr)):
                gc.collect()
                t0 = time.perf_counter()
                p = f()
                out.append(time.perf_counter() - t0)
                del p
        ratios = [a / r for a, r in zip(ta, tr)]
        print(f"abws {spread(ta, '{:.4f}')} s, requests + json.loads {spread(tr, '{:.4f}')} s, "
              f"abws ÷ requests {spread(ratios, '{:.3f}')}")
    finally:
        sb.stop()


def loop(f: Callable[[int], Any], seconds: float = 1.5) -> float:
    """Calls per second of `f(i)` for `seconds` (the clock read every 16 calls, as B1)."""
    n, t0 = 0, time.perf_counter()
    while True:
        for _ in range(16):
            f(n)
            n += 1
        if time.perf_counter() - t0 > seconds:
            return n / (time.perf_counter() - t0)


def rotation(rounds: int) -> None:
    sb = run.Sandbox.binary()
    try:
        invs = run.invoice_numbers(sb)
        get = sb.client().invoices.get_invoice_detail_by_invoice_number
        sizes = [len(json.dumps(get(i).to_dict(), default=str)) for i in invs]
        print(f"{len(invs)} invoices, to_dict() JSON {min(sizes)} – {max(sizes)} characters "
              f"(median {statistics.median(sizes):.0f}), the first {sizes[0]}")
        turn: List[float] = []
        first: List[float] = []
        for _ in range(rounds):
            turn.append(loop(lambda n: get(invs[n % len(invs)])))
            first.append(loop(lambda n: get(invs[0])))
        print(f"µs a call: in turn {1e6 / statistics.median(turn):.1f}, the first alone {1e6 / statistics.median(first):.1f}")
    finally:
        sb.stop()


def idle_spell(rounds: int) -> None:
    import subprocess

    def spin(seconds: float) -> None:
        t = time.perf_counter()
        while time.perf_counter() - t < seconds:
            pass

    pauses: List[tuple[str, Callable[[], Any]]] = [
        ("none", lambda: None),
        ("sleep 0.01 s", lambda: time.sleep(0.01)),
        ("sleep 0.03 s", lambda: time.sleep(0.03)),
        ("sleep 0.05 s", lambda: time.sleep(0.05)),
        ("sleep 0.3 s", lambda: time.sleep(0.3)),
        ("sleep 1 s", lambda: time.sleep(1.0)),
        ("a child process (python -c pass)", lambda: subprocess.run([sys.executable, "-c", "pass"], check=True)),
        ("a CPU spin of 0.3 s (this process)", lambda: spin(0.3)),
    ]
    sb = run.Sandbox.binary()
    try:
        invs = run.invoice_numbers(sb)
        get = run.RawGet(sb, [run.detail_url(sb, i) for i in invs])

        def chunk(n: int = 250) -> float:
            t = time.perf_counter()
            for i in range(n):
                get(i)
            return (time.perf_counter() - t) / n * 1e6

        print("µs a GET, chunks of 250 after the pause (each pause after 2,000 GETs):")
        for r in range(rounds):
            for name, pause in pauses:
                for _ in range(8):
                    chunk()
                pause()
                print(f"  round {r + 1}, {name}: " + " ".join(f"{chunk():.0f}" for _ in range(10)))
        get.close()
    finally:
        sb.stop()


def page_memory() -> None:
    from datetime import datetime, timezone

    from abws.sandbox import Sandbox

    start, end = datetime(2026, 10, 1, tzinfo=timezone.utc), datetime(2026, 10, 31, tzinfo=timezone.utc)
    with Sandbox() as sb:
        client = sb.client()

        def fetch() -> Any:
            return client.reconciliation.get_transactions(start, end)

        fetch()  # warm-up: the runtime, caches
        held = run.b2_memory(fetch)["held"]
        page = fetch()
        n = len(page.transactions)
        count = {"Money": 0, "models": 0}

        def walk(v: Any) -> None:
            if isinstance(v, abws.Money):
                count["Money"] += 1
            elif isinstance(v, list):
                for x in v:
                    walk(x)
            elif isinstance(v, abws.Model):
                count["models"] += 1
                for name in v.fields():
                    walk(getattr(v, name))

        walk(page.transactions)
        print(f"{sys.executable}: {n} transactions, {held / n:,.0f} bytes held a transaction; "
              f"a transaction has {count['Money'] / n:.1f} Money in {count['models'] / n:.1f} models")


class _Compiled:
    """A client called through its compiled client (`_native.call`), shaped as `paired` calls
    an account: the generated methods' Python frames left out."""

    __slots__ = ("native",)

    def __init__(self, client: abws.Client) -> None:
        self.native = client._native

    @property
    def invoices(self) -> "_Compiled":
        return self

    def get_invoice_detail_by_invoice_number(self, invoice_number: str) -> Any:
        return self.native.call("get_invoice_detail_by_invoice_number", {"invoice_number": invoice_number})


def clients(rounds: int) -> None:
    """B11's round on 1,000 access-token clients, timed as B11 times it (`many_clients.paired`),
    through the generated methods and through the compiled clients, with each one's zero."""
    import many_clients

    sb = run.Sandbox.binary()
    try:
        invs = run.invoice_numbers(sb)
        token = sb.token()
        many = [abws.Client("JP", access_token=token, endpoint=sb.base, auth_endpoint=sb.auth,
                            rate_limiting=False, user_email=sb.cred["user_email"]) for _ in range(1000)]
        for i, c in enumerate(many):
            c.invoices.get_invoice_detail_by_invoice_number(invs[i % len(invs)])
        for name, accounts in (("generated methods", many), ("_native.call", [_Compiled(c) for c in many])):
            for what, xs in (("round", accounts), ("zero", [accounts[0]] * len(accounts))):
                pairs = [many_clients.paired(xs, invs) for _ in range(rounds)]
                ratio = [a / b for a, b in pairs]
                print(f"{name}, {what}: {statistics.median(a for a, _ in pairs) * 1e3:.2f} ms, one client "
                      f"{statistics.median(b for _, b in pairs) * 1e3:.2f} ms, ÷ one client {spread(ratio, '{:.4f}')}")
    finally:
        sb.stop()


def chunks(rounds: int) -> None:
    """How fine `many_clients.paired`'s chunks must be: its zero (one access-token client on
    both sides, whose true ratio is 1) with chunks of 1,000 (whole loops), 100, 25 and 5
    calls, `rounds` passes each; prints the median and the min – max of a pass."""
    import many_clients

    sb = run.Sandbox.binary()
    try:
        invs = run.invoice_numbers(sb)
        one = abws.Client("JP", access_token=sb.token(), endpoint=sb.base, auth_endpoint=sb.auth,
                          rate_limiting=False, user_email=sb.cred["user_email"])
        for i in range(200):
            one.invoices.get_invoice_detail_by_invoice_number(invs[i % len(invs)])
        same = [one] * 1000
        for chunk in (1000, 100, 25, 5):
            pairs = [many_clients.paired(same, invs, chunk) for _ in range(rounds)]
            print(f"chunks of {chunk}: the zero {spread([a / b for a, b in pairs], '{:.3f}')}")
    finally:
        sb.stop()


CHILD = Path(__file__).resolve().parent / "clients_child.py"


def misses(python: str, keep: str | None) -> None:
    """B11's round against one client's loop, counted instead of timed (`run.b11_counted`)."""
    c = run.b11_counted(python, keep)
    print(f"{python}: LL misses {c['single_ll']:,} (one client) / {c['round_ll']:,} (rounds); "
          f"the round's extra per call: {c['extra_ll']:.1f} LL misses, {c['extra_ir']:+.0f} instructions")


def program_totals(cachegrind_file: Path) -> List[int]:
    """The counts of a cachegrind file's PROGRAM TOTALS line, in its events' order."""
    import subprocess

    totals = subprocess.run(["cg_annotate", str(cachegrind_file)], capture_output=True, text=True,
                            check=True).stdout
    line = next(ln for ln in totals.splitlines() if "PROGRAM TOTALS" in ln)
    return [int(f.replace(",", "")) for f in line.split() if f[0].isdigit() and "%" not in f]


def sandbox_misses(python: str, keep: str | None) -> None:
    """The sandbox's side of B11's round: the sandbox itself under cachegrind (same cache as
    `misses`), a fresh one per child, while a child makes `run.B11_COUNTED_LOOPS` rounds over 1,000
    refresh-token clients, and while one makes the same calls on one client; the
    difference of the sandbox's last-level misses per call is what the round's distinct
    tokens cost the emulated service (its token table), not the client."""
    import subprocess

    misses_ll = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("single", "round"):
            out = Path(keep or tmp) / f"cg.sandbox.{mode}"
            sb = run.Sandbox([*run.CACHEGRIND_B11, f"--cachegrind-out-file={out}", str(run.SANDBOX_BIN),
                              "--rate-limits", "off", "--today", run.TODAY])
            try:
                spec = Path(tmp) / "spec.json"
                spec.write_text(json.dumps({"base": sb.base, "auth": sb.auth, **sb.cred,
                                            "invoices": run.invoice_numbers(sb),
                                            "tokens": run.mint_refresh_tokens(sb, run.B11_CLIENTS)}))
                subprocess.run([python, str(CHILD), str(spec), mode, str(run.B11_COUNTED_LOOPS)],
                               check=True, timeout=1800)
            finally:
                sb.stop()
                sb.proc.wait(timeout=120)  # cachegrind writes its file as the sandbox ends
            misses_ll[mode] = program_totals(out)[5]  # Ir I1mr ILmr Dr D1mr DLmr ...: the data reads' LL misses
    extra = (misses_ll["round"] - misses_ll["single"]) / (run.B11_COUNTED_LOOPS * run.B11_CLIENTS)
    print(f"sandbox: LL read misses {misses_ll['single']:,} (one client) / {misses_ll['round']:,} (rounds); "
          f"the round's extra per call: {extra:.1f}")


SANDBOX_REQUESTS = (200, 1_200)  # the two sandboxes' requests (`sandbox_instructions`)


def sandbox_instructions(binaries: List[str]) -> None:
    """The sandbox's user-space instructions a request of B1's call (the floor's GETs, so no
    client's work is counted): two sandboxes under cachegrind, the difference per request."""
    with tempfile.TemporaryDirectory() as tmp:
        for binary in binaries:
            refs = []
            for n in SANDBOX_REQUESTS:
                out = Path(tmp) / f"cg.{n}"
                sb = run.Sandbox(["valgrind", "-q", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}",
                                  binary, "--rate-limits", "off", "--today", run.TODAY])
                try:
                    get = run.RawGet(sb, [run.detail_url(sb, i) for i in run.invoice_numbers(sb)])
                    for i in range(n):
                        get(i)
                finally:
                    # Not `stop()`, which kills after 10 s: cachegrind writes its file as the
                    # sandbox ends.
                    sb.proc.terminate()
                    sb.proc.wait(timeout=300)
                refs.append(program_totals(out)[0])  # Ir
            per = (refs[1] - refs[0]) / (SANDBOX_REQUESTS[1] - SANDBOX_REQUESTS[0])
            print(f"{binary}: {per:,.0f} instructions a request")


@contextlib.contextmanager
def one_client_spec() -> Iterator[Path]:
    """A sandbox and the spec file of `clients_child.py`'s one access-token client (its
    `time` and `calls` modes), for the `with` block."""
    sb = run.Sandbox.binary()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            spec = Path(tmp) / "spec.json"
            spec.write_text(json.dumps({"base": sb.base, "auth": sb.auth, "user_email": sb.cred["user_email"],
                                        "token": sb.token(), "invoices": run.invoice_numbers(sb)}))
            yield spec
    finally:
        sb.stop()


def wheels(pythons: List[str], rounds: int) -> None:
    import subprocess

    with one_client_spec() as spec:
        got: dict = {py: [] for py in pythons}
        for k in range(rounds):
            for py in pythons if k % 2 == 0 else pythons[::-1]:
                out = subprocess.run([py, str(CHILD), str(spec), "time", "5"], capture_output=True, text=True,
                                     check=True, timeout=600).stdout
                got[py].append(float(out.split()[-1]))
    for py, xs in got.items():
        print(f"{py}: {spread(xs, '{:.1f}')} µs a call")


INSTRUCTION_CALLS = (200, 1_400)  # the two children's calls after the warm-up


def child_instructions(py: str, spec: Path, mode: str, counts: Tuple[int, int]) -> Tuple[float, str]:
    """User-space instructions one unit of `clients_child.py`'s `mode` costs under
    cachegrind: the difference of two children that differ only in their count of units,
    so the interpreter's start, the import and the warm-up cancel out. Also the second
    child's output."""
    import subprocess

    refs, out = [], ""
    for n in counts:
        p = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                            f"--cachegrind-out-file={spec.parent}/cg.out", py, str(CHILD), str(spec),
                            mode, str(n)], capture_output=True, text=True, timeout=1800)
        if p.returncode != 0:
            raise RuntimeError(p.stderr[-2000:])
        line = [ln for ln in p.stderr.splitlines() if "I refs:" in ln or "I   refs:" in ln][-1]
        refs.append(int(line.split(":")[1].split()[0].replace(",", "")))
        out = p.stdout.strip()
    return (refs[1] - refs[0]) / (counts[1] - counts[0]), out


def instructions(pythons: List[str]) -> None:
    """User-space instructions a Python call (B1's), counted by cachegrind."""
    with one_client_spec() as spec:
        for py in pythons:
            per_call, _ = child_instructions(py, spec, "calls", INSTRUCTION_CALLS)
            print(f"{py}: {per_call:,.0f} instructions a call")


WALKS = (1, 4)  # the two children's walks after the warm-up


def walk_instructions(pythons: List[str]) -> None:
    """User-space instructions a Python listing walk costs (`iter_transactions` over B5's
    five months), counted by cachegrind. The sandbox runs in its own process, so only the
    client is counted."""
    with one_client_spec() as spec:
        for py in pythons:
            per_walk, items = child_instructions(py, spec, "walks", WALKS)
            print(f"{py}: {per_walk:,.0f} instructions a walk of {items} transactions")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("probe", choices=["b2", "rotation", "clients", "chunks", "misses", "sandbox-misses", "wheels",
                                      "instructions", "walk-instructions", "sandbox-instructions", "idle-spell",
                                      "page-memory"])
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--python", action="append", default=[],
                    help="misses: the interpreter (and abws) of the children; wheels, (walk-)instructions: each one")
    ap.add_argument("--keep", default=None, help="misses: a directory for the cachegrind files")
    ap.add_argument("--sandbox", action="append", default=[],
                    help="sandbox-instructions: a sandbox binary (default: target-bench's)")
    a = ap.parse_args()
    if a.probe == "misses":
        return misses(a.python[0] if a.python else sys.executable, a.keep)
    if a.probe == "sandbox-misses":
        return sandbox_misses(a.python[0] if a.python else sys.executable, a.keep)
    if a.probe == "instructions":
        return instructions(a.python or [sys.executable])
    if a.probe == "walk-instructions":
        return walk_instructions(a.python or [sys.executable])
    if a.probe == "sandbox-instructions":
        return sandbox_instructions(a.sandbox or [str(run.SANDBOX_BIN)])
    if a.probe == "wheels":
        if len(a.python) != 2:
            ap.error("wheels takes two --python")
        return wheels(a.python, a.rounds or 6)
    if a.probe == "page-memory":
        return page_memory()
    probe = {"b2": (b2, 9), "rotation": (rotation, 4), "clients": (clients, 7), "chunks": (chunks, 15), "idle-spell": (idle_spell, 3)}[a.probe]
    probe[0](a.rounds or probe[1])


if __name__ == "__main__":
    main()
