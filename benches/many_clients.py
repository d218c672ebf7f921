"""B11's measured process (benches/run.py starts one per run): N `abws.Client`s with
distinct refresh tokens against one sandbox, in a fresh interpreter.

    python benches/many_clients.py SPEC.json

SPEC holds the sandbox's addresses and credentials, the N refresh tokens and the invoice
numbers to call. Prints one JSON line: creation time, RSS, the round times (one call per
client, the first with each client's token refresh, then with tokens cached) against N
calls on one client, and the connections the sandbox saw (`connectionsUsed` of
`GET /_sandbox/counters`) and this process holds open to it (`/proc/self/fd` against
`/proc/net/tcp`).
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import sys
import time
import urllib.parse
import urllib.request
from typing import Any, Dict, List

import abws

REPEATS = 9  # the tokens-cached round and the one-client loop, alternated (which goes first, too)
STEADY_S = 0.25  # untimed calls after an idle pause, before a timed loop (`steady`)


def rss_kb() -> int:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def sockets_open_to(port: int) -> int:
    """TCP connections of this process whose remote port is `port` (any state but LISTEN)."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    n = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            remote_port = int(f[2].rsplit(":", 1)[1], 16)
            if remote_port == port and f[3] != "0A" and f[9] in inodes:
                n += 1
    return n


def main() -> None:
    spec: Dict[str, Any] = json.loads(open(sys.argv[1]).read())
    base, invs = spec["base"], spec["invoices"]
    root = spec.get("control", spec["auth"])  # the control path is at the API listener's root
    port = urllib.parse.urlsplit(base).port
    assert port is not None, base

    def ctl(method: str, path: str) -> Any:
        req = urllib.request.Request(root + path, method=method)
        with urllib.request.urlopen(req, timeout=30) as r:
            text = r.read()
        return json.loads(text) if text else None

    def connections() -> Dict[str, Any]:
        c = ctl("GET", "/_sandbox/counters")
        return {"used": c.get("connectionsUsed", {}).get("api"),  # None: an older sandbox
                "refreshes": c.get("tokenCalls", {}).get("refresh_token", 0),
                "calls": sum(c.get("requests", {}).get("getInvoiceDetailByInvoiceNumber", {}).values())}

    def make(rt: str) -> abws.Client:
        return abws.Client("JP", client_id=spec["client_id"], client_secret=spec["client_secret"],
                           refresh_token=rt, user_email=spec["user_email"], endpoint=base,
                           auth_endpoint=spec["auth"], rate_limiting=False)

    # The runtime, the extension and the first pages of the allocator: one client, used
    # before the baseline (and kept: `steady` calls through it).
    warm = make(spec["refresh_token"])
    for i in range(20):
        warm.invoices.get_invoice_detail_by_invoice_number(invs[i % len(invs)])

    def steady() -> None:
        """Calls on the warm-up client for STEADY_S, untimed, after an idle pause. On this
        VM a round trip runs up to 4x faster for the first ~60 ms after the machine has
        idled (the sleeps before the RSS readings), then settles: a loop timed right after
        a pause would start in that fast spell (benches/analysis.md, sixteenth session)."""
        t = time.perf_counter()
        i = 0
        while time.perf_counter() - t < STEADY_S:
            warm.invoices.get_invoice_detail_by_invoice_number(invs[i % len(invs)])
            i += 1

    gc.collect()
    time.sleep(0.2)
    rss0 = rss_kb()

    tokens: List[str] = spec["tokens"]
    t0 = time.perf_counter()
    clients = [make(rt) for rt in tokens]
    create = time.perf_counter() - t0
    rss_created = rss_kb()

    def round_() -> float:
        t = time.perf_counter()
        for i, c in enumerate(clients):
            c.invoices.get_invoice_detail_by_invoice_number(invs[i % len(invs)])
        return time.perf_counter() - t

    def one_client() -> float:
        c = clients[0]
        t = time.perf_counter()
        for i in range(len(clients)):
            c.invoices.get_invoice_detail_by_invoice_number(invs[i % len(invs)])
        return time.perf_counter() - t

    steady()
    ctl("POST", "/_sandbox/reset-counters")
    first = round_()  # each client refreshes its token, then calls
    conn_first = connections()
    open_first = sockets_open_to(port)
    gc.collect()
    time.sleep(0.2)
    rss_idle = rss_kb()

    steady()
    ctl("POST", "/_sandbox/reset-counters")
    cached: List[float] = []
    single: List[float] = []
    for k in range(REPEATS):
        if k % 2:
            single.append(one_client())
            cached.append(round_())
        else:
            cached.append(round_())
            single.append(one_client())
    conn_cached = connections()
    open_cached = sockets_open_to(port)
    print(json.dumps({
        "clients": len(clients), "create": create, "rss0_kb": rss0, "rss_created_kb": rss_created,
        "rss_idle_kb": rss_idle, "first_round": first, "cached_round": statistics.median(cached),
        "single": statistics.median(single), "cached_rounds": cached, "singles": single, "repeats": REPEATS,
        "conn_first": conn_first, "conn_cached": conn_cached,
        "open_first": open_first, "open_cached": open_cached,
    }))


if __name__ == "__main__":
    main()
