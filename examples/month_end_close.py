"""Month-end close: last month's invoices and credit memos, matched to the business
transactions, tax checked by rate, PDFs filed — the job abws exists for.

    python examples/month_end_close.py [--region US] [--month 2026-10] [--out month-end] [--archive encrypted|zip]
    python examples/month_end_close.py --decrypt month-end/invoices-2026-10.zip.aes plain.zip

With no ABWS_* credentials in the environment it starts the embedded sandbox (the whole
service on loopback) and closes the sandbox's previous month of ``--region`` (default JP),
at the sandbox's address for that region's group. With ABWS_CLIENT_ID,
ABWS_CLIENT_SECRET, ABWS_REFRESH_TOKEN (and ABWS_REGION, ABWS_ENDPOINT, ...) set, it
closes the real account's month instead, paced at the service's published rates
(``--region`` overrides ABWS_REGION). Amounts print in the region's currency (JPY without
decimals, the others with two) and tax by rate under the region's name for it; in North
America only Pay-by-Invoice invoices have PDFs, so card-paid ones are listed, not requested.

Invoice PDFs are sensitive (seed 000, section 4: never unencrypted on disk). By default
they go into a zip that is sealed with AES-256-GCM (the ``cryptography`` package) before it
touches the disk: ``invoices-YYYY-MM.zip.aes``. The key:

- ``ABWS_ARCHIVE_KEY``: 64 hex digits (a 256-bit key), or
- ``ABWS_ARCHIVE_PASSWORD``: a password (the key is derived with scrypt, N=2^15, r=8, p=1,
  and a random 16-byte salt stored in the file), or
- a password prompt, when neither is set and a terminal is attached (a real run without
  any of these stops before its first request);
- a sandbox run with neither set uses the sandbox demo key, SHA-256 of the text
  ``abws month-end sandbox demo key (sandbox data only)``: it protects nothing and is for
  the made-up sandbox data only.

The key is never printed. ``--decrypt ARCHIVE OUT`` opens an archive with the same key
settings and writes the plain zip to OUT (a new file, mode 0600): the explicit way out.
File format (any AES-GCM implementation opens it): ``ABWSMEC1`` (8 bytes), the key
derivation (1 byte: 0 raw key, 1 scrypt), the salt (16 bytes, zeros for a raw key), the
nonce (12 bytes), then the AES-256-GCM ciphertext and tag of the zip, with the first 37
bytes as associated data. ``--archive zip`` writes an unsealed zip instead (readable by
anyone who can read the file: an explicit opt-in).

Every file is created under a new random name (exclusive, no-follow, mode 0600), synced and
renamed into place; a destination that is a symbolic link is refused. The output directory
is made (or tightened to) mode 0700. Zip entry names come from invoice numbers the service
sends, so they are reduced to safe file names. In the CSV ledger a text cell that starts
with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'`` so a
spreadsheet shows it instead of running it as a formula; amounts stay numbers (a negative
credit-memo amount is written ``-12.50`` and read as a number), since the job formats them
itself from decimals.
"""

from __future__ import annotations

import argparse
import csv
import getpass
import hashlib
import io
import os
import re
import secrets
import stat
import sys
import time
import zipfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

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


# --- Files: private, exclusive, never through a link ------------------------------------


def private_dir(path: str) -> None:
    """Creates ``path`` with mode 0700, or tightens an existing directory to 0700. A
    symbolic link or a directory of another user is refused."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise SystemExit(f"{path} is not a directory (a symbolic link is refused): choose another --out")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise SystemExit(f"{path} belongs to another user: choose another --out")
    os.chmod(path, 0o700)


def write_private(path: str, data: bytes) -> None:
    """Writes ``data`` to ``path`` through a new file of a random name beside it (created
    exclusive, no-follow, mode 0600), synced, then renamed into place. A ``path`` that is a
    symbolic link is refused; an existing file is replaced whole."""
    if os.path.islink(path):
        raise SystemExit(f"{path} is a symbolic link: refused (remove it or choose another --out)")
    directory = os.path.dirname(path) or "."
    tmp = os.path.join(directory, f".{os.path.basename(path)}.{secrets.token_hex(8)}.part")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(tmp, flags, 0o600)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


# --- The sealed archive --------------------------------------------------------------------

SANDBOX_DEMO_KEY = hashlib.sha256(b"abws month-end sandbox demo key (sandbox data only)").digest()
MAGIC = b"ABWSMEC1"
KDF_RAW, KDF_SCRYPT = 0, 1


class ArchiveSecret:
    """A 256-bit key, or a password the key is derived from (scrypt)."""

    def __init__(self, key: Optional[bytes] = None, password: Optional[str] = None, what: str = "") -> None:
        self.key, self.password, self.what = key, password, what

    def derive(self, kdf: int, salt: bytes) -> bytes:
        if kdf == KDF_RAW:
            if self.key is None:
                raise ValueError("this archive was sealed with a key (ABWS_ARCHIVE_KEY), not a password")
            return self.key
        if self.password is None:
            raise ValueError("this archive was sealed with a password (ABWS_ARCHIVE_PASSWORD)")
        from cryptography.hazmat.primitives.kdf.scrypt import Scrypt  # type: ignore[import-not-found]

        return bytes(Scrypt(salt=salt, length=32, n=2**15, r=8, p=1).derive(self.password.encode()))


def archive_secret(sandbox: bool, interactive: bool) -> ArchiveSecret:
    """The archive's key: ABWS_ARCHIVE_KEY, ABWS_ARCHIVE_PASSWORD, a prompt, or (sandbox
    runs only) the documented demo key. Never printed."""
    key_hex = os.environ.get("ABWS_ARCHIVE_KEY")
    if key_hex:
        try:
            key = bytes.fromhex(key_hex)
        except ValueError:
            key = b""
        if len(key) != 32:
            raise SystemExit("ABWS_ARCHIVE_KEY must be 64 hex digits (a 256-bit key)")
        return ArchiveSecret(key=key, what="the key from ABWS_ARCHIVE_KEY")
    password = os.environ.get("ABWS_ARCHIVE_PASSWORD")
    if password:
        return ArchiveSecret(password=password, what="the password from ABWS_ARCHIVE_PASSWORD")
    if sandbox:
        return ArchiveSecret(key=SANDBOX_DEMO_KEY, what="the sandbox demo key (sandbox data only)")
    if interactive:
        first = getpass.getpass("archive password: ")
        if first and first == getpass.getpass("archive password again: "):
            return ArchiveSecret(password=first, what="the password typed at the prompt")
        raise SystemExit("the passwords were empty or differed")
    raise SystemExit(
        "the invoice PDFs are archived encrypted: set ABWS_ARCHIVE_KEY (64 hex digits) or "
        "ABWS_ARCHIVE_PASSWORD, run from a terminal to be asked for a password, or pass --no-pdfs"
    )


def seal_archive(plain: bytes, secret: ArchiveSecret) -> bytes:
    """The zip, sealed with AES-256-GCM (the format in the module's docstring). The one
    place the archive format lives."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # type: ignore[import-not-found]

    kdf = KDF_RAW if secret.key is not None else KDF_SCRYPT
    salt = bytes(16) if kdf == KDF_RAW else os.urandom(16)
    nonce = os.urandom(12)
    header = MAGIC + bytes([kdf]) + salt + nonce
    return header + AESGCM(secret.derive(kdf, salt)).encrypt(nonce, plain, header)


def open_archive(blob: bytes, secret: ArchiveSecret) -> bytes:
    """The zip inside a sealed archive (raises when the key is wrong or the file was
    changed)."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # type: ignore[import-not-found]

    if len(blob) < 37 + 16 or blob[:8] != MAGIC:
        raise ValueError("not a sealed month-end archive")
    kdf, salt, nonce, header = blob[8], blob[9:25], blob[25:37], blob[:37]
    return bytes(AESGCM(secret.derive(kdf, salt)).decrypt(nonce, blob[37:], header))


def write_archive(path: str, entries: Dict[str, bytes], secret: Optional[ArchiveSecret]) -> None:
    """Writes the PDFs as one zip, sealed unless ``secret`` is None (``--archive zip``).
    The zip is built in memory: no plain PDF reaches the disk."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o600 << 16
            zf.writestr(info, data)
    plain = buf.getvalue()
    write_private(path, plain if secret is None else seal_archive(plain, secret))


# --- Untrusted text in files ---------------------------------------------------------------

_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)), *(f"LPT{i}" for i in range(1, 10))}


def entry_name(number: str, taken: Set[str]) -> str:
    """A safe zip entry name for an invoice number sent by the service: letters, digits,
    ``.``, ``_`` and ``-`` only (no path separators, drive letters, streams or control
    characters), no leading dot, at most 100 characters, no Windows device name, unique
    (case-insensitively) among ``taken``; ``.pdf`` appended."""
    base = re.sub(r"[^A-Za-z0-9._-]", "_", number or "")[:100].lstrip(".") or "invoice"
    if base.split(".")[0].upper() in _RESERVED:
        base = "_" + base
    name, n = f"{base}.pdf", 1
    while name.lower() in taken:
        n += 1
        name = f"{base}-{n}.pdf"
    taken.add(name.lower())
    return name


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A ledger cell. Numbers the job formats itself (Decimal, int) stay numbers, so a
    negative amount is still a number to a spreadsheet; any text (from the service: invoice
    numbers, names, statuses, ids) that a spreadsheet would run as a formula gets a leading
    ``'``."""
    if isinstance(value, (Decimal, int)) and not isinstance(value, bool):
        return value
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


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
    ap.add_argument("--out", default="month-end", help="output directory (made or tightened to 0700)")
    ap.add_argument(
        "--archive", choices=["encrypted", "zip"], default="encrypted",
        help="encrypted (default): AES-256-GCM; zip: unsealed, readable by whoever can read the file",
    )
    ap.add_argument("--no-pdfs", action="store_true", help="skip the PDF archive")
    ap.add_argument("--decrypt", nargs=2, metavar=("ARCHIVE", "OUT"), help="write the plain zip of a sealed archive")
    args = ap.parse_args(list(argv) if argv is not None else None)

    live = bool(os.environ.get("ABWS_REFRESH_TOKEN") or os.environ.get("ABWS_ACCESS_TOKEN"))
    if args.decrypt:
        src, dst = args.decrypt
        with open(src, "rb") as fh:
            plain = open_archive(fh.read(), archive_secret(not live, sys.stdin.isatty()))
        if os.path.lexists(dst):
            raise SystemExit(f"{dst} exists: choose a new file for the plain zip")
        write_private(dst, plain)
        print(f"wrote the plain zip {dst} (mode 0600)")
        return 0
    # Before any request: the archive's key (a real run without one stops here).
    secret = None
    if args.archive == "encrypted" and not args.no_pdfs:
        secret = archive_secret(not live, sys.stdin.isatty())

    started = time.monotonic()
    sandbox = None
    poll: Optional[float] = None  # the library's poll interval (15 s) for the live service
    if live:
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

    # 5. The ledger, as CSV (text cells neutralised, amounts as numbers).
    private_dir(args.out)
    ledger_path = os.path.join(args.out, f"ledger-{start:%Y-%m}.csv")
    rates = sorted(tax)
    text = io.StringIO()
    w = csv.writer(text)
    w.writerow(["invoice_number", "type", "issue_date", "status", "customer", "currency", "total"]
               + [f"tax_{r}" for r in rates] + ["line_items", "transactions", "transaction_total", "difference"])
    for s in summaries:
        n = s.invoice_metadata.invoice_number
        d = details[n]
        txs = by_invoice.get(n, [])
        paid = sum((money(t.amount) for t in txs), Decimal(0))
        t_rates = tax_by_rate(d)
        row = ([n, d.invoice_metadata.type, d.invoice_metadata.issue_date.isoformat(), s.status,
                d.customer.legal_entity_name if d.customer else "", d.total_amount.currency_code,
                money(d.total_amount)] + [t_rates.get(r, Decimal(0)) for r in rates]
               + [len(lines[n]), " ".join(t.transaction_id for t in txs), paid,
                  (money(d.total_amount) - paid) if txs else ""])
        w.writerow([csv_cell(v) for v in row])
    write_private(ledger_path, text.getvalue().encode("utf-8"))

    # 6. Every PDF, into a sealed archive built in memory; never a plain file.
    filed, failed = 0, []
    archive_path = os.path.join(args.out, f"invoices-{start:%Y-%m}.zip" + (".aes" if secret is not None else ""))
    if not args.no_pdfs:
        entries: Dict[str, bytes] = {}
        taken: Set[str] = set()
        # North America: PDFs exist only for Pay-by-Invoice orders (the credit account, BCA).
        with_pdf = list(summaries)
        if region.upper() in NORTH_AMERICA:
            bca = {s.invoice_metadata.invoice_number
                   for s in client.invoices.iter_invoices(start, end, region=region, payment_method_types=["BCA"])}
            with_pdf = [s for s in summaries if s.invoice_metadata.invoice_number in bca]
            failed += [(s.invoice_metadata.invoice_number, "paid by card: no PDF in North America")
                       for s in summaries if s.invoice_metadata.invoice_number not in bca]
        bar = Progress("invoice PDFs", len(with_pdf))
        with ThreadPoolExecutor(max_workers=8) as pool:
            jobs = [pool.submit(fetch_pdf, client, s, lines[s.invoice_metadata.invoice_number], poll) for s in with_pdf]
            for job in jobs:
                number, pdf, why = job.result()
                if pdf is not None:
                    entries[entry_name(number, taken)] = pdf
                    filed += 1
                else:
                    failed.append((number, why))
                bar.update()
        bar.close()
        write_archive(archive_path, entries, secret)

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
        sealed = f"sealed with {secret.what}" if secret is not None else "NOT encrypted: readable without a key"
        print(f"PDFs filed      {filed} into {archive_path} ({sealed}; owner-only)")
        for number, why in failed[:10]:
            print(f"  not filed {number}: {why}")
    print(f"done in {time.monotonic() - started:.1f} s")
    if sandbox is not None:
        sandbox.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
