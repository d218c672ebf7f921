"""The children of `benches/probes.py` that may run another interpreter (an A/B of wheels):
they import abws only, so any interpreter with a wheel installed can run them.

    python benches/clients_child.py SPEC.json round|single LOOPS
        (`probes.py misses`, under cachegrind) 1,000 refresh-token clients, each refreshed
        and called once, then LOOPS rounds of one call per client (round) or as many calls
        on the first client (single).
    python benches/clients_child.py SPEC.json time LOOPS
        (`probes.py wheels`) one access-token client, 200 calls to warm it, then LOOPS
        loops of 1,000 calls; prints the median µs a call.
    python benches/clients_child.py SPEC.json calls N
        (`probes.py instructions`, under cachegrind) the same client, 200 calls to warm
        it, then N more; prints nothing.
    python benches/clients_child.py SPEC.json walks N
        (`probes.py walk-instructions`, under cachegrind) the same client walks the
        transactions of June to October (`iter_transactions`, B5's listing) once to warm
        it, then N more times; prints the items of a walk.
"""

import json
import statistics
import sys
import time

import abws

WALK = ("2026-06-01T00:00:00Z", "2026-11-01T00:00:00Z")  # the listing `walks` follows


def main() -> None:
    spec = json.loads(open(sys.argv[1]).read())
    mode, loops = sys.argv[2], int(sys.argv[3])
    invs = spec["invoices"]

    def call(c: abws.Client, i: int) -> None:
        c.invoices.get_invoice_detail_by_invoice_number(invs[i % len(invs)])

    if mode in ("time", "calls", "walks"):
        one = abws.Client("JP", access_token=spec["token"], user_email=spec["user_email"], endpoint=spec["base"],
                          auth_endpoint=spec["auth"], rate_limiting=False)
        if mode == "walks":
            for _ in range(loops + 1):
                items = sum(1 for _ in one.reconciliation.iter_transactions(*WALK))
            print(items)
            return
        for i in range(200):
            call(one, i)
        if mode == "calls":
            for i in range(loops):
                call(one, i)
            return
        per_call = []
        for _ in range(loops):
            t = time.perf_counter()
            for i in range(1000):
                call(one, i)
            per_call.append((time.perf_counter() - t) * 1e3)  # ms a loop = µs a call
        print(f"{statistics.median(per_call):.1f}")
        return
    many = [abws.Client("JP", client_id=spec["client_id"], client_secret=spec["client_secret"], refresh_token=rt,
                        user_email=spec["user_email"], endpoint=spec["base"], auth_endpoint=spec["auth"],
                        rate_limiting=False) for rt in spec["tokens"]]
    for i, c in enumerate(many):  # each client's token refresh; everything warm once
        call(c, i)
    for _ in range(loops):
        for i in range(len(many)):
            call(many[i] if mode == "round" else many[0], i)


if __name__ == "__main__":
    main()
