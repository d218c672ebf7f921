"""Month-end close: last month's invoices and credit memos, matched to the business
transactions, tax checked by rate, PDFs filed — the job abws exists for.

    python examples/month_end_close.py [--region US] [--month 2026-10] [--out month-end] [--archive zip|encrypted]

With no ABWS_* credentials in the environment it starts the embedded sandbox (the whole
service on loopback) and closes the sandbox's previous month of ``--region`` (default JP),
at the sandbox's address for that region's group. With ABWS_CLIENT_ID,
ABWS_CLIENT_SECRET, ABWS_REFRESH_TOKEN (and ABWS_REGION, ABWS_ENDPOINT, ...) set, it
closes the real account's month instead, paced at the service's published rates
(``--region`` overrides ABWS_REGION). Amounts print in the region's currency (JPY without
decimals, the others with two) and tax by rate under the region's name for it; in North
America only Pay-by-Invoice invoices have PDFs, so card-paid ones are listed, not requested.

Invoice PDFs are sensitive: they are never written as plain files. By default they go
into a zip archive readable by the owner only (mode 0600 in a 0700 directory); with
``--archive encrypted`` the archive is additionally encrypted with AES-GCM (needs the
``cryptography`` package) under a key read from ABWS_ARCHIVE_KEY (64 hex digits) or
generated and printed once.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import sys
import time
import zipfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any, Dict, Iterable, List, Optional, Tuple

import abws


class Progress:
    """tqdm when installed, otherwise a one-line counter on stderr."""

    def __init__(self, desc: str, total: Optional[int] = None) -> None:
        self.desc, self.total, self.n = desc, total, 0
        try:
            from tqdm import tqdm  # type: ignore[import-not-found]

            self.bar: Any = tqdm(total=total, desc=desc, unit="", leave=False)
        except ImportError:
            self.bar = None
        self.last = 0.0

    def update(self, k: int = 1) -> None:
        self.n += k
        if self.bar is not None:
            self.bar.update(k)
        elif time.monotonic() - self.last > 0.2:
            self.last = time.monotonic()
            of = f"/{self.total}" if self.total else ""
            print(f"\r  {self.desc}: {self.n}{of}", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        else:
            print(f"\r  {self.desc}: {self.n} done" + " " * 10, file=sys.stderr)


def month_bounds(month: Optional[str], today: date) -> Tuple[datetime, datetime]:
    """First and last instant of the given month (default: the month before today)."""
    if month:
        first = datetime.strptime(month + "-01", "%Y-%m-%d").date()
    else:
        first = (today.replace(day=1) - timedelta(days=1)).replace(day=1)
    nxt = (first.replace(day=28) + timedelta(days=4)).replace(day=1)
    start = datetime(first.year, first.month, 1, tzinfo=timezone.utc)
    end = datetime(nxt.year, nxt.month, 1, tzinfo=timezone.utc) - timedelta(seconds=1)
    return start, end


def money(m: Any) -> Decimal:
    return m.amount if m is not None else Decimal(0)


def amount_text(amount: Decimal, currency: str) -> str:
    """12,345 JPY; 1,234.50 USD: JPY has no decimals, the other currencies two."""
    places = Decimal(1) if currency == "JPY" else Decimal("0.01")
    return f"{amount.quantize(places):,} {currency}"


# What each region's invoices call their tax lines.
TAX_NAMES = {"JP": "consumption tax", "US": "sales tax", "CA": "HST/GST", "MX": "IVA", "IN": "GST", "AU": "GST"}
NORTH_AMERICA = {"US", "CA", "MX"}


def tax_by_rate(detail: Any) -> Dict[str, Decimal]:
    out: Dict[str, Decimal] = defaultdict(Decimal)
    for artifact in detail.artifacts or []:
        for t in getattr(artifact, "tax_breakdown", None) or []:
            out[t.tax_rate] += money(t.tax_amount)
    return out


def open_archive(path: str, mode: str) -> Tuple[zipfile.ZipFile, Any, Optional[bytes]]:
    """A zip that only the owner can read; with ``encrypted``, written to memory and
    sealed with AES-GCM at the end."""
    os.makedirs(os.path.dirname(path) or ".", mode=0o700, exist_ok=True)
    if mode == "encrypted":
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # type: ignore[import-not-found]

        key_hex = os.environ.get("ABWS_ARCHIVE_KEY")
        key = bytes.fromhex(key_hex) if key_hex else AESGCM.generate_key(bit_length=256)
        if not key_hex:
            print(f"archive key (keep it safe, it is not stored): {key.hex()}")
        buf = io.BytesIO()
        return zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED), buf, key
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    fh = os.fdopen(fd, "wb")
    return zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED), fh, None


def close_archive(path: str, zf: zipfile.ZipFile, fh: Any, key: Optional[bytes]) -> None:
    zf.close()
    if key is None:
        fh.close()
        return
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # type: ignore[import-not-found]

    nonce = os.urandom(12)
    sealed = nonce + AESGCM(key).encrypt(nonce, fh.getvalue(), b"abws-month-end")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(sealed)


def fetch_pdf(
    client: abws.Client, inv: Any, lines: List[Any], poll: Optional[float]
) -> Tuple[str, Optional[bytes], str]:
    """The PDF of one invoice or credit memo, by its first line item (JP needs the line)."""
    meta = inv.invoice_metadata
    number = meta.invoice_number
    kind = "Credits" if meta.type == "CREDIT_MEMO" else "Invoice"
    if not lines:
        return number, None, "no line items"
    first = lines[0]
    try:
        pdf = client.documents.fetch_pdf(
            order_id=first.order_metadata.order_id,
            order_line_item_id=first.line_item_metadata.order_line_item_id,
            document_type=kind,
            poll_interval=poll,
            timeout=600,
        )
        return number, pdf, ""
    except abws.ReportFailed as e:
        return number, None, str(e)
    except abws.DocumentError as e:
        return number, None, f"document error {e.error_code or ''}".strip()


def main(argv: Optional[Iterable[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--region", help="region to close, e.g. US, UK, DE, JP (default: ABWS_REGION, or JP on the sandbox)")
    ap.add_argument("--month", help="YYYY-MM (default: last month)")
    ap.add_argument("--out", default="month-end", help="output directory (created 0700)")
    ap.add_argument("--archive", choices=["zip", "encrypted"], default="zip")
    ap.add_argument("--no-pdfs", action="store_true", help="skip the PDF archive")
    args = ap.parse_args(list(argv) if argv is not None else None)

    started = time.monotonic()
    sandbox = None
    poll: Optional[float] = None  # the library's poll interval (15 s) for the live service
    if os.environ.get("ABWS_REFRESH_TOKEN") or os.environ.get("ABWS_ACCESS_TOKEN"):
        client = abws.Client.from_env(**({"region": args.region} if args.region else {}))
        today = datetime.now(timezone.utc).date()
        print(f"abws {abws.__version__}: closing the month of {client!r}")
    else:
        # The whole service on loopback; reports finish in seconds at 120x time.
        sandbox = abws.Sandbox(rate_limits="off", time_scale=120.0)
        code = (args.region or "JP").strip().upper()
        code = "UK" if code == "GB" else code
        # The region's own regional address (/na, /eu, /fe; docs/sandbox.md).
        group = sandbox.dataset()["regions"][code]["group"].lower()
        client = sandbox.client(region=code, rate_limiting=False, endpoint=f"{sandbox.base_url}/{group}")
        today, poll = date.fromisoformat(sandbox.dataset()["today"]), 0.2
        print(f"abws {abws.__version__}: no ABWS_* credentials set, closing the embedded sandbox's month")
    region = client.region
    start, end = month_bounds(args.month, today)
    print(f"month: {start:%Y-%m-%d} .. {end:%Y-%m-%d}, region {region}")

    # 1. Invoices and credit memos, with details and line items.
    summaries = list(client.invoices.iter_invoices(start, end, region=region, progress=True))
    details: Dict[str, Any] = {}
    lines: Dict[str, List[Any]] = {}
    bar = Progress("invoice details and line items", len(summaries))

    def load(s: Any) -> Tuple[str, Any, List[Any]]:
        n = s.invoice_metadata.invoice_number
        return n, client.invoices.get_invoice_detail_by_invoice_number(n, region=region), list(
            client.invoices.iter_invoice_line_items(n, region=region)
        )

    with ThreadPoolExecutor(max_workers=8) as pool:
        for n, d, li in pool.map(load, summaries):
            details[n], lines[n] = d, li
            bar.update()
    bar.close()

    # 2. The month's transactions, and the invoice data of every transaction line item
    #    (one request per order and shipment, 25 per request).
    transactions = list(client.reconciliation.iter_transactions(start, end, progress=True))
    # The address lists every marketplace of its group (US, CA and MX for NA): keep the
    # marketplace(s) of this region's invoices.
    markets = {t.marketplace_id for t in transactions if t.invoice_number in details}
    transactions = [t for t in transactions if not markets or t.marketplace_id in markets]
    tx_lines = [li for t in transactions for li in (t.transaction_line_items or [])]
    invoice_data = client.reconciliation.invoice_details_for(tx_lines) if tx_lines else []

    # 3. Match transactions to invoices.
    by_invoice: Dict[str, List[Any]] = defaultdict(list)
    for t in transactions:
        by_invoice[t.invoice_number or ""].append(t)
    matched, unmatched, differences = [], [], []
    for t in transactions:
        if t.invoice_number in details:
            matched.append(t)
        else:
            unmatched.append(t)
    for number, d in details.items():
        txs = by_invoice.get(number, [])
        if txs:
            billed = money(d.total_amount)
            paid = sum((money(t.amount) for t in txs), Decimal(0))
            if billed != paid:
                differences.append((number, billed, paid))
    jp_numbers = {
        det.invoice_number
        for entry in invoice_data
        for det in (entry.invoice_details or [])
        if det.invoice_number
    }

    # 4. Totals and tax by rate.
    n_std = sum(1 for d in details.values() if d.invoice_metadata.type == "STANDARD")
    n_cm = sum(1 for d in details.values() if d.invoice_metadata.type == "CREDIT_MEMO")
    total = sum((money(d.total_amount) for d in details.values()), Decimal(0))
    currency = next((d.total_amount.currency_code for d in details.values() if d.total_amount), "")
    tax: Dict[str, Decimal] = defaultdict(Decimal)
    for d in details.values():
        for rate, amount in tax_by_rate(d).items():
            tax[rate] += amount

    # 5. The ledger, as CSV.
    os.makedirs(args.out, mode=0o700, exist_ok=True)
    ledger_path = os.path.join(args.out, f"ledger-{start:%Y-%m}.csv")
    rates = sorted(tax)
    fd = os.open(ledger_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["invoice_number", "type", "issue_date", "status", "customer", "currency", "total"]
                   + [f"tax_{r}" for r in rates] + ["line_items", "transactions", "transaction_total", "difference"])
        for s in summaries:
            n = s.invoice_metadata.invoice_number
            d = details[n]
            txs = by_invoice.get(n, [])
            paid = sum((money(t.amount) for t in txs), Decimal(0))
            t_rates = tax_by_rate(d)
            w.writerow([n, d.invoice_metadata.type, d.invoice_metadata.issue_date.isoformat(), s.status,
                        d.customer.legal_entity_name if d.customer else "", d.total_amount.currency_code,
                        money(d.total_amount)] + [t_rates.get(r, Decimal(0)) for r in rates]
                       + [len(lines[n]), " ".join(t.transaction_id for t in txs), paid,
                          (money(d.total_amount) - paid) if txs else ""])

    # 6. Every PDF, into a protected archive; never a plain file.
    filed, failed = 0, []
    archive_path = os.path.join(args.out, f"invoices-{start:%Y-%m}.zip" + (".aes" if args.archive == "encrypted" else ""))
    if not args.no_pdfs:
        # North America: PDFs exist only for Pay-by-Invoice orders (the credit account, BCA).
        with_pdf = list(summaries)
        if region.upper() in NORTH_AMERICA:
            bca = {s.invoice_metadata.invoice_number
                   for s in client.invoices.iter_invoices(start, end, region=region, payment_method_types=["BCA"])}
            with_pdf = [s for s in summaries if s.invoice_metadata.invoice_number in bca]
            failed += [(s.invoice_metadata.invoice_number, "paid by card: no PDF in North America")
                       for s in summaries if s.invoice_metadata.invoice_number not in bca]
        zf, fh, key = open_archive(archive_path, args.archive)
        bar = Progress("invoice PDFs", len(with_pdf))
        with ThreadPoolExecutor(max_workers=8) as pool:
            jobs = [pool.submit(fetch_pdf, client, s, lines[s.invoice_metadata.invoice_number], poll) for s in with_pdf]
            for job in jobs:
                number, pdf, why = job.result()
                if pdf is not None:
                    zf.writestr(f"{number}.pdf", pdf)
                    filed += 1
                else:
                    failed.append((number, why))
                bar.update()
        bar.close()
        close_archive(archive_path, zf, fh, key)

    # 7. The summary.
    print()
    print(f"invoices        {n_std:>6}")
    print(f"credit memos    {n_cm:>6}")
    print(f"net total       {amount_text(total, currency):>18}")
    for rate in rates:
        print(f"  {TAX_NAMES.get(region.upper(), 'VAT')} at {rate:<6} {amount_text(tax[rate], currency):>18}")
    print(f"transactions    {len(transactions):>6}  matched {len(matched)}, unmatched {len(unmatched)}")
    print(f"line items sent for invoice data {len(tx_lines)}, invoices confirmed {len(jp_numbers & set(details))}")
    print(f"amount differences {len(differences)}")
    for number, billed, paid in differences[:10]:
        print(f"  {number}: billed {billed} vs transactions {paid}")
    print(f"ledger          {ledger_path}")
    if not args.no_pdfs:
        print(f"PDFs filed      {filed} into {archive_path} ({args.archive}, owner-only)")
        for number, why in failed[:10]:
            print(f"  not filed {number}: {why}")
    print(f"done in {time.monotonic() - started:.1f} s")
    if sandbox is not None:
        sandbox.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
