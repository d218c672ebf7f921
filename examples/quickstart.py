"""Quick start: list last month's invoices and print one in full.

Runs against the embedded sandbox unless ABWS_* credentials are set.
"""

import os
from datetime import date, timedelta

import abws

sandbox = None
if os.environ.get("ABWS_REFRESH_TOKEN"):
    client = abws.Client.from_env()
else:
    sandbox = abws.Sandbox(rate_limits="off")
    client = sandbox.client(region="JP", rate_limiting=False)

end = date.today().replace(day=1) - timedelta(days=1)
start = end.replace(day=1)
invoices = list(client.invoices.iter_invoices(start, end))
print(f"{len(invoices)} invoices issued {start} .. {end}")
first = client.invoices.get_invoice_detail_by_invoice_number(invoices[0].invoice_metadata.invoice_number)
print(first.invoice_metadata.invoice_number, first.total_amount, first.issuer.name)
for artifact in first.artifacts:
    for t in getattr(artifact, "tax_breakdown", None) or []:
        print(f"  tax {t.tax_rate}: {t.tax_amount}")
if sandbox is not None:
    sandbox.stop()
