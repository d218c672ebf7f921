"""Month-end close: last month's invoices and credit memos matched to the business
transactions, tax by rate, a CSV ledger and exceptions, and every invoice's PDF in a sealed
archive. One call, ``abws.close_month`` (docs/close.md: the plan, the pacing, the resumable
job state, the archive's format); ``abws close`` is the same close from a shell.

    python examples/month_end_close.py [--region JP] [--month 2026-10] [--out month-end/JP]

With ABWS_* credentials set it closes that account's month, the archive sealed under
ABWS_ARCHIVE_KEY (64 hex digits), or under ABWS_ARCHIVE_PASSWORD (read by the library when
no key is set; ``python -m abws decrypt`` opens the archive with it). Without them it closes the embedded sandbox's month at the
spec's rate limits, its clock 240 times faster, the archive sealed under the documented
sandbox demo key (it protects nothing: for the made-up sandbox data only). Interrupted, the
same command again finishes only what is missing.
"""

import argparse
import hashlib
import os
from datetime import date, timedelta
from typing import Optional

import abws

SCALE = 240.0


def previous_month() -> str:
    return (date.today().replace(day=1) - timedelta(days=1)).strftime("%Y-%m")


def main() -> None:
    ap = argparse.ArgumentParser(description="Month-end close: one call, abws.close_month.")
    ap.add_argument("--region", default="JP")
    ap.add_argument("--month", default=previous_month())
    ap.add_argument("--out")
    args = ap.parse_args()
    out = args.out or os.path.join("month-end", args.region)

    sandbox: Optional[abws.Sandbox] = None
    key = os.environ.get("ABWS_ARCHIVE_KEY")
    poll: Optional[float] = None
    if os.environ.get("ABWS_REFRESH_TOKEN"):
        client = abws.Client.from_env()
    else:
        sandbox = abws.Sandbox(rate_limits="spec", time_scale=SCALE, token_lifetime=3600 * SCALE,
                               page_token_lifetime=900 * SCALE, presigned_lifetime=300 * SCALE)
        client = sandbox.client(args.region)  # at its group's address
        key = key or hashlib.sha256(b"abws month-end sandbox demo key (sandbox data only)").hexdigest()
        poll = 15 / SCALE  # the report's processing runs on the sandbox's faster clock
    try:
        result = abws.close_month(client, args.month, out=out, region=args.region, archive_key=key,
                                  poll_interval=poll)
    finally:
        if sandbox is not None:
            sandbox.stop()

    print(f"{result.region} {result.month}: {result.invoices} invoices, {result.credit_memos} credit memos, "
          f"net {result.net_total} {result.currency}")
    for rate, tax in result.tax_by_rate.items():
        print(f"  tax at {rate}: {tax} {result.currency}")
    print(f"  exceptions: {len(result.exceptions)}; PDFs filed: {result.pdfs_filed}")
    for path in (result.ledger_path, result.exceptions_path, result.archive_path):
        if path is not None:
            print(f"  {path}")


if __name__ == "__main__":
    main()
