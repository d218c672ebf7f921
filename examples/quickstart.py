"""Quick start: list last month's invoices and print one in full.

Runs against the embedded sandbox unless ABWS_* credentials are set.
"""

import os
from datetime import datetime, timedelta, timezone

import abws

sandbox = None
if os.environ.get("ABWS_REFRESH_TOKEN"):
    client = abws.Client.from_env()
else:
    sandbox = abws.Sandbox(rate_limits="off")
    client = sandbox.client(region="JP", rate_limiting=False)

# Last month, to its last second: a bare date would be its midnight, leaving out the last day.
first_of_this_month = datetime.now(timezone.utc).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
end = first_of_this_month - timedelta(seconds=1)
start = end.replace(day=1, hour=0, minute=0, second=0)
invoices = list(client.invoices.iter_invoices(start, end))
print(f"{len(invoices)} invoices issued {start:%Y-%m-%d} .. {end:%Y-%m-%d}")
# Every field of a result may be None (the service sends explicit nulls), so typed code
# checks the ones it relies on.
meta = invoices[0].invoice_metadata
if meta is None or meta.invoice_number is None:
    raise SystemExit("the first invoice came without its number")
first = client.invoices.get_invoice_detail_by_invoice_number(meta.invoice_number)
print(meta.invoice_number, first.total_amount, first.issuer.name if first.issuer else "")
for artifact in first.artifacts or []:
    for t in getattr(artifact, "tax_breakdown", None) or []:
        print(f"  tax {t.tax_rate}: {t.tax_amount}")
if sandbox is not None:
    sandbox.stop()
