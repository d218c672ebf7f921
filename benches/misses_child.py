"""The counted child of `benches/probes.py misses` (run under cachegrind): 1,000
refresh-token clients, each refreshed and called once, then LOOPS rounds of one call per
client (MODE round) or as many calls on the first client (MODE single).

    python benches/misses_child.py SPEC.json round|single LOOPS

Imports abws only, so that any interpreter with a wheel installed can run it.
"""

import json
import sys

import abws


def main() -> None:
    spec = json.loads(open(sys.argv[1]).read())
    mode, loops = sys.argv[2], int(sys.argv[3])
    invs = spec["invoices"]
    many = [abws.Client("JP", client_id=spec["client_id"], client_secret=spec["client_secret"], refresh_token=rt,
                        user_email=spec["user_email"], endpoint=spec["base"], auth_endpoint=spec["auth"],
                        rate_limiting=False) for rt in spec["tokens"]]
    for i, c in enumerate(many):  # each client's token refresh; everything warm once
        c.invoices.get_invoice_detail_by_invoice_number(invs[i % len(invs)])
    for _ in range(loops):
        for i in range(len(many)):
            c = many[i] if mode == "round" else many[0]
            c.invoices.get_invoice_detail_by_invoice_number(invs[i % len(invs)])


if __name__ == "__main__":
    main()
