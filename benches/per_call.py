"""Where B1's per-call time goes: the floor of a round trip
to the sandbox, and the CPU each client spends per call.

    .venv/bin/python benches/per_call.py [--hog] [--calls 5000]

after `scripts/bench.sh` has built target-bench/ (the release sandbox and benches/rust) and
`make python-install` the release wheel. Prints, for the same sandbox:
- a raw keep-alive socket loop from Python (`run.RawGet`: one pre-built GET, read to its
  Content-Length):
  wall time per call and the sandbox's CPU per request (`/proc/PID/stat`) — every client's
  floor;
- abws (`abws.Client`, typed result): wall and CPU (`time.process_time`) per call;
- the Rust facade (`benches/rust calls`): wall and CPU (the child's rusage) per call;
- the Python wrapper alone: an `abws.Client` whose compiled client is a stub.
`--hog` runs it all while a child spins on CPU 0 (as B1's busy table).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any, Callable, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402  (benches/run.py: the sandbox, the Rust program, the CPU hog)


def sandbox_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(sb: run.Sandbox, f: Callable[[], Any], n: int) -> Tuple[float, float, float]:
    """(wall µs, this process's CPU µs, the sandbox's CPU µs) per call."""
    for _ in range(200):
        f()
    s0, c0, w0 = sandbox_cpu(sb.proc.pid), time.process_time(), time.perf_counter()
    for _ in range(n):
        f()
    w, c, s = time.perf_counter() - w0, time.process_time() - c0, sandbox_cpu(sb.proc.pid) - s0
    return w / n * 1e6, c / n * 1e6, s / n * 1e6


def rust(sb: run.Sandbox, inv: str, n: int) -> Tuple[float, float, float]:
    r0, s0 = resource.getrusage(resource.RUSAGE_CHILDREN), sandbox_cpu(sb.proc.pid)
    x = run.rust_calls(sb, "calls", inv, str(n))
    r1, s = resource.getrusage(resource.RUSAGE_CHILDREN), sandbox_cpu(sb.proc.pid) - s0
    cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    # the child's CPU includes its start and its warm-up calls (50 in builds before 0af697b)
    calls = n + x.get("warm_up", 50)
    return x["seconds"] / n * 1e6, cpu / calls * 1e6, s / calls * 1e6


class _StubNative:
    def call(self, op: str, args: Any) -> None:
        return None


def wrapper_only(n: int = 200_000) -> float:
    """µs per call of the Python layer alone (the compiled client replaced by a stub)."""
    c = run.abws.Client("JP", client_id="stub", client_secret="stub", refresh_token="stub",
                        endpoint="http://127.0.0.1:9", auth_endpoint="http://127.0.0.1:9",
                        rate_limiting=False)
    c._native = _StubNative()
    f = c.invoices.get_invoice_detail_by_invoice_number
    for _ in range(1000):
        f("X")
    t = time.perf_counter()
    for _ in range(n):
        f("X")
    return (time.perf_counter() - t) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hog", action="store_true", help="a child spinning on CPU 0 meanwhile")
    ap.add_argument("--calls", type=int, default=5000)
    a = ap.parse_args()
    sb = run.Sandbox.binary("off")
    try:
        inv = run.invoice_numbers(sb)[0]
        client = sb.client()
        rows = [
            ("raw socket loop (floor)", lambda: measure(sb, partial(run.RawGet(sb, [run.detail_url(sb, inv)]), 0),
                                                        a.calls)),
            ("abws (Python)", lambda: measure(
                sb, lambda: client.invoices.get_invoice_detail_by_invoice_number(inv), a.calls)),
            ("Rust facade", lambda: rust(sb, inv, a.calls)),
        ]
        with run.CpuHog() if a.hog else contextlib.nullcontext():
            print(f"{'':26} {'wall µs':>9} {'CPU µs':>9} {'sandbox CPU µs':>15}  (per call)")
            for name, m in rows:
                w, c, s = m()
                print(f"{name:26} {w:9.1f} {c:9.1f} {s:15.1f}")
            print(f"{'Python wrapper alone':26} {wrapper_only():9.2f}")
    finally:
        sb.stop()


if __name__ == "__main__":
    main()
