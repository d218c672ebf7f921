"""B11's measured process (benches/run.py starts one per run): N `abws.Client`s with
distinct refresh tokens against one sandbox, in a fresh interpreter.

    python benches/many_clients.py SPEC.json

SPEC holds the sandbox's addresses and credentials, the N grants' refresh and access tokens
and the invoice numbers to call. Prints one JSON line: creation time, RSS, the round times
(one call per client, the first with each client's token refresh, then with tokens cached)
against N calls on one client, the connections the sandbox saw (`connectionsUsed` of
`GET /_sandbox/counters`) and this process holds open to it (`/proc/self/fd` against
`/proc/net/tcp`), and the same round against one account made by the least a client can be
(`BareAccount`).
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
from typing import Any, Dict, List, Sequence, Tuple

import abws

import raw_http

PASSES = 15  # passes of `paired`: each times one round and N calls on one client
CHUNK = 5  # calls a chunk: the round's chunks and the one client's alternate (`paired`)
STEADY_S = 0.25  # untimed calls after an idle pause, before a timed loop (`steady`)


class BareAccount:
    """The least a client of one account can be, the peer of B11's round: its headers
    prebuilt, each GET written by hand on one keep-alive socket all accounts share
    (`raw_http`), the answer read to its Content-Length and `json.loads`ed. Called as
    abws's clients are (`account.invoices.get_invoice_detail_by_invoice_number`), so
    `paired` times both through the same loop."""

    __slots__ = ("sock", "head")

    def __init__(self, sock: Any, host: str, token: str, user_email: str) -> None:
        self.sock = sock
        self.head = (f" HTTP/1.1\r\nhost: {host}\r\nx-svc-access-token: {token}\r\n"
                     f"x-svc-user-email: {user_email}\r\naccept: application/json\r\n\r\n").encode()

    @property
    def invoices(self) -> "BareAccount":
        return self

    def get_invoice_detail_by_invoice_number(self, invoice_number: str) -> Any:
        path = f"/ab-invoice/2026-02-01/invoices/{invoice_number}/detail?region=JP"
        return json.loads(raw_http.exchange(self.sock, b"GET " + path.encode() + self.head))


def paired(accounts: Sequence[Any], invs: List[str], chunk: int = CHUNK) -> Tuple[float, float]:
    """One pass: a round (one call on each of `accounts`, the i-th asking for invoice i) and
    the same calls on `accounts[0]` alone, in alternating chunks of `chunk` calls, which of
    the two goes first alternating too; returns the round's time and the one account's.
    Chunks of a few calls, not whole loops, so both see the same moment of this VM, whose
    speed drifts by several per cent within a second (a whole round against a whole loop:
    0.74-1.42x per pair; paired chunks: within 1 % of 1.0x for the same client on both
    sides; benches/analysis.md, "Noise")."""
    one = accounts[0]
    pc = time.perf_counter
    t_round = t_one = 0.0
    for k, j in enumerate(range(0, len(accounts), chunk)):
        for side in ((0, 1) if k % 2 == 0 else (1, 0)):
            t = pc()
            if side == 0:
                for i in range(j, min(j + chunk, len(accounts))):
                    accounts[i].invoices.get_invoice_detail_by_invoice_number(invs[i % len(invs)])
                t_round += pc() - t
            else:
                for i in range(j, min(j + chunk, len(accounts))):
                    one.invoices.get_invoice_detail_by_invoice_number(invs[i % len(invs)])
                t_one += pc() - t
    return t_round, t_one


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
        a pause would start in that fast spell (benches/analysis.md, "The fast spell")."""
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

    steady()
    ctl("POST", "/_sandbox/reset-counters")
    first = round_()  # each client refreshes its token, then calls
    conn_first = connections()
    open_first = sockets_open_to(port)
    gc.collect()
    time.sleep(0.2)
    rss_idle = rss_kb()

    # The round with tokens cached against one client, PASSES times; each pass also times
    # the control: the round's loop over one client, a list of it N times (its ratio is
    # this method's zero).
    same = [clients[0]] * len(clients)
    steady()
    ctl("POST", "/_sandbox/reset-counters")
    abws_pairs, control_pairs = [], []
    for _ in range(PASSES):
        abws_pairs.append(paired(clients, invs))
        control_pairs.append(paired(same, invs))
    conn_cached = connections()
    open_cached = sockets_open_to(port)

    # The peer: N bare accounts on one socket of their own, each called once (as each
    # client was by the first round), then the same passes.
    sock = raw_http.connect(base)
    bare = [BareAccount(sock, urllib.parse.urlsplit(base).netloc, at, spec["user_email"])
            for at in spec["access_tokens"]]
    for i, b in enumerate(bare):
        b.invoices.get_invoice_detail_by_invoice_number(invs[i % len(invs)])
    t = time.perf_counter()
    while time.perf_counter() - t < STEADY_S:
        bare[0].invoices.get_invoice_detail_by_invoice_number(invs[0])
    bare_pairs = [paired(bare, invs) for _ in range(PASSES)]
    sock.close()

    def ratios(pairs: List[Tuple[float, float]]) -> List[float]:
        return [r / o for r, o in pairs]

    print(json.dumps({
        "clients": len(clients), "create": create, "rss0_kb": rss0, "rss_created_kb": rss_created,
        "rss_idle_kb": rss_idle, "first_round": first,
        "cached_round": statistics.median(r for r, _ in abws_pairs),
        "single": statistics.median(o for _, o in abws_pairs),
        "ratio": statistics.median(ratios(abws_pairs)), "ratios": ratios(abws_pairs),
        "control": statistics.median(ratios(control_pairs)), "controls": ratios(control_pairs),
        "bare": statistics.median(ratios(bare_pairs)), "bares": ratios(bare_pairs),
        "bare_single": statistics.median(o for _, o in bare_pairs),
        "passes": PASSES, "chunk": CHUNK,
        "conn_first": conn_first, "conn_cached": conn_cached,
        "open_first": open_first, "open_cached": open_cached,
    }))


if __name__ == "__main__":
    main()
