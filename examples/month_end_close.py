"""Month-end close: last month's invoices and credit memos, matched to the business
transactions, tax checked by rate, PDFs filed — the job abws exists for.

    python examples/month_end_close.py [--region US] [--month 2026-10] [--out month-end] [--archive encrypted|zip]
        [--no-pdfs | --pdfs-for NUMBERS] [--legal-entity NAME] [--plan-only] [--fresh] [--quiet] [--verbose]
    python examples/month_end_close.py --decrypt month-end/invoices-JP-2026-10.zip.aes plain.zip

With no ABWS_* credentials in the environment it starts the embedded sandbox (the whole
service on loopback) and closes the sandbox's previous month of ``--region`` (default JP),
at the sandbox's address for that region's group, at the spec's rate limits with the
sandbox's clock running ``--sandbox-time-scale`` (240) times faster. With ABWS_CLIENT_ID,
ABWS_CLIENT_SECRET, ABWS_REFRESH_TOKEN (and ABWS_REGION, ABWS_ENDPOINT, ...) set, it
closes the real account's month instead, paced at the service's published rates
(``--region`` overrides ABWS_REGION). Amounts print in the region's currency (JPY without
decimals, the others with two) and tax by rate under the region's name for it; in North
America only Pay-by-Invoice invoices have PDFs, so card-paid ones are listed, not requested.

The rates set the pace: createReport allows 0.0167 requests a second after a burst of 15,
so each PDF beyond the 15th costs a minute (a 500-invoice month: about 8 hours). So:

- **A plan first.** Before the first request it prints what each invoice costs; after the
  invoice list it prints the requests per rate bucket and the estimated duration (the
  slowest bucket). ``--plan-only`` stops there. ``--no-pdfs``, ``--pdfs-for`` (invoice
  numbers or ``*`` patterns) and ``--legal-entity`` make the close smaller.
- **Every bucket busy at once.** Invoice data, transactions and PDFs run side by side; an
  invoice's createReport goes as soon as its first line item is known.
- **Progress with an ETA** per phase: tqdm bars (a terminal or a notebook) when tqdm is
  installed, and log records of ``abws.month_end`` at INFO for unattended runs.
- **Resumable.** The job state ``.month-end-<region>-<month>.json`` in ``--out`` (owner-only,
  replaced whole at every change; no document bytes, no secrets) records each invoice's
  figures, each report's id and creation time, and each archived PDF. Run the same command
  again after Ctrl-C, a crash or a lost network and it does only what is missing, reusing
  report ids within the service's 30-day look-back instead of creating new ones (the
  service has no way to list reports, so a report whose createReport was sent but whose
  answer never arrived is created again: a window of milliseconds per report). Each PDF is
  written as its own sealed part (the SDK's "abws sealed file", atomic) in
  ``.invoices-<region>-<month>.parts/``; the archive is assembled from them and written
  whole at the end, so no half-written entry ever exists; sealed parts are kept, so a
  re-run of a finished close fetches nothing again. ``--fresh`` starts over.
- **Reconciled across the feed lag.** The feed comes hours after the event, so it is read
  to ``FEED_MARGIN`` (7 days) past the month's end (never past now) and matched by invoice;
  invoices without a transaction, an earlier month's transactions, differences and PDFs not
  filed are exceptions: in the summary, the ledger's ``exception`` column and
  ``exceptions-<region>-YYYY-MM.csv``.
- **Outputs by region and scope**: ``ledger-JP-2026-10.csv``, ``invoices-JP-2026-10.zip.aes``;
  ``--legal-entity`` and ``--pdfs-for`` add their scope to the names.

Invoice PDFs are sensitive (the service's documentation: never unencrypted on disk). By default
they go into a zip that is sealed with AES-256-GCM (the ``cryptography`` package) before it
touches the disk: ``invoices-<region>-YYYY-MM.zip.aes``. The key:

- ``ABWS_ARCHIVE_KEY``: 64 hex digits (a 256-bit key), or
- ``ABWS_ARCHIVE_PASSWORD``: a password (the key is derived with scrypt, N=2^17, r=8, p=1:
  128 MiB and about a second, once per archive; and a random 16-byte salt stored in the
  file; archives sealed before with N=2^15 still open), or
- a password prompt, when neither is set and a terminal is attached (a real run without
  any of these stops before its first request);
- a sandbox run with neither set uses the sandbox demo key, SHA-256 of the text
  ``abws month-end sandbox demo key (sandbox data only)``: it protects nothing and is for
  the made-up sandbox data only.

The key is never printed. ``--decrypt ARCHIVE OUT`` opens an archive with the same key
settings and writes the plain zip to OUT (a new file, mode 0600): the explicit way out.
File format (any AES-GCM implementation opens it): ``ABWSMEC1`` (8 bytes), the key
derivation (1 byte: 0 raw key, 2 scrypt N=2^17 r=8 p=1, 1 the earlier scrypt N=2^15 r=8
p=1, which is still opened, never written), the salt (16 bytes, zeros for a raw key), the
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
import fnmatch
import getpass
import hashlib
import io
import json
import logging
import os
import re
import secrets
import shutil
import stat
import sys
import threading
import time
import zipfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta, timezone, tzinfo
from decimal import Decimal
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

import abws


def zone(name: str) -> tzinfo:
    """The time zone of ``--timezone``: ``UTC`` (the service's dates) or an IANA name."""
    if name.upper() == "UTC":
        return timezone.utc
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise SystemExit(f"--timezone {name!r} is not a time zone: give an IANA name such as Asia/Tokyo, "
                         "Europe/London or America/New_York, or UTC") from None


def month_key(start: datetime) -> str:
    """``2026-10`` for a UTC month, ``2026-10-Asia_Tokyo`` for a month in another zone: the
    name of its job state and outputs, so closes in different zones never mix."""
    key = getattr(start.tzinfo, "key", None)
    return f"{start:%Y-%m}" if key is None else f"{start:%Y-%m}-{re.sub(r'[^A-Za-z0-9]+', '_', key)}"


def month_bounds(month: Optional[str], today: date, tz: tzinfo = timezone.utc) -> Tuple[datetime, datetime]:
    """First and last instant of the given month in ``tz`` (default: the month before today).
    A month that is not YYYY-MM, or that has not ended by ``today``, is refused with the reason."""
    if month:
        try:
            if not re.fullmatch(r"\d{4}-\d{2}", month):
                raise ValueError(month)
            first = datetime.strptime(month + "-01", "%Y-%m-%d").date()
        except ValueError:
            raise SystemExit(f"--month {month!r} is not a month: give it as YYYY-MM, e.g. 2026-10") from None
        if first > today.replace(day=1) - timedelta(days=1):
            raise SystemExit(f"--month {month} has not ended yet (today is {today}): only a past month can be "
                             "closed; the default is last month")
    else:
        first = (today.replace(day=1) - timedelta(days=1)).replace(day=1)
    nxt = (first.replace(day=28) + timedelta(days=4)).replace(day=1)
    start = datetime(first.year, first.month, 1, tzinfo=tz)
    # The last second before the next month's first instant, in that zone (a wall-clock
    # subtraction would be wrong across a change of offset).
    end = (datetime(nxt.year, nxt.month, 1, tzinfo=tz).astimezone(timezone.utc) - timedelta(seconds=1)).astimezone(tz)
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

# The transaction feed lags the event (about 6 hours on the service): an invoice issued late
# on the month's last day has its transaction fed in the next month. The close reads the
# feed up to this long past the month's end (never past now) and matches by invoice number.
FEED_MARGIN = timedelta(days=7)


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
# The key derivations: a raw key, or scrypt (r=8, p=1) at the cost N its byte names. New
# archives use 2^17 (current guidance); 2^15, the first version's, is still opened.
KDF_RAW, KDF_SCRYPT_2_15, KDF_SCRYPT = 0, 1, 2
SCRYPT_N = {KDF_SCRYPT_2_15: 2**15, KDF_SCRYPT: 2**17}
PART_MAGIC = b"ABWSENC1"  # the SDK's "abws sealed file" (the sealed parts)


class ArchiveSecret:
    """A 256-bit key, or a password the key is derived from (scrypt)."""

    def __init__(self, key: Optional[bytes] = None, password: Optional[str] = None, what: str = "") -> None:
        self.key, self.password, self.what = key, password, what

    def derive(self, kdf: int, salt: bytes) -> bytes:
        if kdf == KDF_RAW:
            if self.key is None:
                raise ValueError("this archive was sealed with a key (ABWS_ARCHIVE_KEY), not a password")
            return self.key
        if kdf not in SCRYPT_N:
            raise ValueError(f"unknown key derivation {kdf} (a newer version's archive, or not an archive)")
        if self.password is None:
            raise ValueError("this archive was sealed with a password (ABWS_ARCHIVE_PASSWORD)")
        from cryptography.hazmat.primitives.kdf.scrypt import Scrypt  # type: ignore[import-not-found,unused-ignore]

        return bytes(Scrypt(salt=salt, length=32, n=SCRYPT_N[kdf], r=8, p=1).derive(self.password.encode()))


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
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # type: ignore[import-not-found,unused-ignore]

    kdf = KDF_RAW if secret.key is not None else KDF_SCRYPT
    salt = bytes(16) if kdf == KDF_RAW else os.urandom(16)
    nonce = os.urandom(12)
    header = MAGIC + bytes([kdf]) + salt + nonce
    return header + AESGCM(secret.derive(kdf, salt)).encrypt(nonce, plain, header)


def open_archive(blob: bytes, secret: ArchiveSecret) -> bytes:
    """The zip inside a sealed archive (raises when the key is wrong or the file was
    changed)."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # type: ignore[import-not-found,unused-ignore]

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


# --- The plan: requests per rate bucket, and how long the slowest one takes -------------

# The published plans (rate per second, burst) of what the close calls; each operation is
# its own bucket (docs/decisions.md "Rate limits"). The client adopts the rate the service
# reports in x-svc-RateLimit-Limit; the plan uses these until then.
PLANS: Dict[str, Tuple[float, int]] = {
    "getInvoices": (0.5, 10),
    "getInvoiceDetailByInvoiceNumber": (0.5, 10),
    "getInvoiceLineItemsByInvoiceNumber": (0.5, 10),
    "getTransactions": (0.5, 10),
    "getInvoiceDetailsByOrderLineItems": (0.5, 10),
    "createReport": (0.0167, 15),
    "getReport": (2.0, 10),
    "getReportDocument": (2.0, 10),
}


def bucket_seconds(requests: int, rate: float, burst: int) -> float:
    """How long a bucket of ``rate``/``burst`` needs for ``requests``: the burst at once,
    the rest at the rate."""
    return max(0, requests - burst) / rate


def duration_text(seconds: float) -> str:
    if seconds < 10:
        return f"{seconds:.1f} s"
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def print_formula(scale: float, pdfs: bool) -> None:
    """The plan before the first request: what each invoice costs."""
    rate, burst = PLANS["createReport"]
    print("plan: per invoice 1 getInvoiceDetailByInvoiceNumber and 1+ getInvoiceLineItemsByInvoiceNumber pages"
          + (", and for its PDF 1 createReport, 1+ getReport, 1 getReportDocument" if pdfs else ""))
    if pdfs:
        print(f"  createReport allows {rate * scale:g}/s after a burst of {burst}: "
              f"{duration_text(1 / (rate * scale))} per PDF beyond the {burst}th; the count follows the invoice list")


def plan_lines(counts: Dict[str, int], scale: float) -> Tuple[List[str], float, str]:
    """One line per bucket, the estimated duration (the slowest bucket) and its name."""
    lines, slowest, which = [], 0.0, ""
    for op, n in counts.items():
        rate, burst = PLANS[op]
        t = bucket_seconds(n, rate * scale, burst)
        if t >= slowest:
            slowest, which = t, op
        lines.append(f"  {op:<34} {n:>5}  at {rate * scale:g}/s, burst {burst:<3} {duration_text(t):>12}")
    return lines, slowest, which


# --- Progress with an ETA: a bar (tqdm, also in notebooks) and log records -----------------

log = logging.getLogger("abws.month_end")


class Progress:
    """One phase: tqdm (``tqdm.auto``: a terminal or a notebook) when installed, otherwise a
    one-line counter on stderr; and a log record with the ETA at every tenth and at least
    every 30 seconds, for unattended runs."""

    def __init__(self, desc: str, total: int, quiet: bool = False) -> None:
        self.desc, self.total, self.n = desc, total, 0
        self.started = self.last_log = self.last_line = time.monotonic()
        self.lock = threading.Lock()
        self.bar: Any = None
        self.quiet = quiet
        if not quiet:
            try:
                from tqdm.auto import tqdm  # type: ignore[import-not-found,import-untyped,unused-ignore]

                self.bar = tqdm(total=total, desc=desc, unit="", leave=False)
            except ImportError:
                pass

    def eta(self) -> Optional[float]:
        elapsed = time.monotonic() - self.started
        if self.n == 0 or elapsed <= 0:
            return None
        return (self.total - self.n) * elapsed / self.n

    def update(self, k: int = 1) -> None:
        with self.lock:
            self.n += k
            now = time.monotonic()
            if self.bar is not None:
                self.bar.update(k)
            elif not self.quiet and now - self.last_line > 0.2:
                self.last_line = now
                print(f"\r  {self.desc}: {self.n}/{self.total}", end="", file=sys.stderr, flush=True)
            tenth = self.total and self.n * 10 // self.total != (self.n - k) * 10 // self.total
            if tenth or now - self.last_log > 30 or self.n == self.total:
                self.last_log = now
                eta = self.eta()
                log.info("%s: %d of %d, ETA %s", self.desc, self.n, self.total,
                         duration_text(eta) if eta is not None else "unknown")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif not self.quiet:
            print(f"\r  {self.desc}: {self.n} done" + " " * 10, file=sys.stderr)


# --- The job state: what is done, so that a re-run finishes only what is missing -----------


class JobState:
    """``.month-end-<region>-<month>.json`` in the output directory, owner-only, replaced
    whole (a new file, synced, renamed) at every change, so it is never half-written. It
    holds what the ledger needs of each invoice (no document bytes, no secrets), the
    transactions' figures, and per PDF: the report id and when it was created, and whether
    its sealed part is written. Report ids are reused within the service's 30-day
    look-back."""

    LOOK_BACK = timedelta(days=29)  # a day of margin on the service's 30

    def __init__(self, path: str, fresh: bool) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.data: Dict[str, Any] = {"version": 1, "invoices": {}, "reports": {}, "transactions": None,
                                     "confirmed": None, "entries": {}, "salt": None, "complete": False}
        if not fresh and os.path.exists(path):
            with open(path, "rb") as fh:
                loaded = json.loads(fh.read().decode("utf-8"))
            if loaded.get("version") == 1:
                self.data.update(loaded)

    def save(self) -> None:
        write_private(self.path, json.dumps(self.data, sort_keys=True).encode("utf-8"))

    def update(self, section: str, key: str, value: Any) -> None:
        with self.lock:
            self.data[section][key] = value
            self.save()

    def set(self, key: str, value: Any) -> None:
        with self.lock:
            self.data[key] = value
            self.save()

    def failed_report(self, number: str) -> Optional[str]:
        """Why the report of ``number`` ended CANCELLED/FATAL in an earlier run, if it did:
        such a report is reported as not filed, never created again."""
        r = self.data["reports"].get(number) or {}
        return str(r.get("why") or "the report failed") if r.get("status") == "failed" else None

    def reusable_report(self, number: str) -> Optional[str]:
        r = self.data["reports"].get(number) or {}
        if not r.get("report_id") or r.get("status") not in ("created", "archived"):
            return None
        created = datetime.fromisoformat(r["created"])
        return str(r["report_id"]) if datetime.now(timezone.utc) - created < self.LOOK_BACK else None


def invoice_number(summary: Any) -> str:
    """An invoice summary's number (the spec requires it; a summary without one stops the close
    with the reason, rather than with an AttributeError)."""
    meta = summary.invoice_metadata
    if meta is None or not meta.invoice_number:
        raise SystemExit(f"the service listed an invoice without an invoice number: {summary!r}")
    return str(meta.invoice_number)


def invoice_record(summary: Any, detail: Any, lines: List[Any]) -> Dict[str, Any]:
    """What the ledger and the PDF need of one invoice, as JSON."""
    meta = detail.invoice_metadata
    first = lines[0] if lines else None
    return {
        "type": meta.type,
        "issue_date": meta.issue_date.isoformat(),
        "status": summary.status,
        "customer": detail.customer.legal_entity_name if detail.customer else "",
        "currency": detail.total_amount.currency_code if detail.total_amount else "",
        "total": str(money(detail.total_amount)),
        "tax": {rate: str(amount) for rate, amount in tax_by_rate(detail).items()},
        "lines": len(lines),
        "pdf_ref": None if first is None else {
            "order_id": first.order_metadata.order_id,
            "order_line_item_id": first.line_item_metadata.order_line_item_id,
        },
    }


def in_scope(number: str, patterns: Optional[List[str]]) -> bool:
    return patterns is None or any(fnmatch.fnmatchcase(number, p) for p in patterns)


def scope_suffix(legal_entity: Optional[str], pdfs_for: Optional[str]) -> Tuple[str, str]:
    """The parts of the output names that say the close's scope: for the ledger (the legal
    entity) and for the archive (the entity and the ``--pdfs-for`` patterns), so closes of
    different scopes in one ``--out`` never replace each other."""
    ledger = ""
    if legal_entity:
        name = re.sub(r"[^A-Za-z0-9]+", "_", legal_entity).strip("_")[:40] or "entity"
        ledger = f"-{name}-{hashlib.sha256(legal_entity.casefold().encode()).hexdigest()[:6]}"
    archive = ledger
    if pdfs_for:
        patterns = sorted({p.strip() for p in pdfs_for.split(",") if p.strip()})
        archive += "-pdfs-" + hashlib.sha256(",".join(patterns).encode()).hexdigest()[:8]
    return ledger, archive


def output_names(region: str, month: str, legal_entity: Optional[str], pdfs_for: Optional[str],
                 sealed: bool) -> Tuple[str, str, str]:
    """The ledger, exceptions and archive file names of one close: by region and month, and
    by scope when ``--legal-entity`` or ``--pdfs-for`` narrows it (``ledger-JP-2026-10.csv``,
    ``exceptions-JP-2026-10.csv``, ``invoices-JP-2026-10.zip.aes``)."""
    ledger, archive = scope_suffix(legal_entity, pdfs_for)
    return (f"ledger-{region}-{month}{ledger}.csv", f"exceptions-{region}-{month}{ledger}.csv",
            f"invoices-{region}-{month}{archive}.zip" + (".aes" if sealed else ""))


# --- The close -----------------------------------------------------------------------------


class Close:
    """The month's close as concurrent phases: invoice data, transactions, and the PDFs,
    each PDF's createReport sent as soon as its invoice's first line item is known, so
    every rate bucket is busy at once and the close takes about what its slowest bucket
    (createReport) needs."""

    def __init__(self, client: abws.Client, region: str, start: datetime, end: datetime, args: Any,
                 secret: Optional[ArchiveSecret], scale: float, poll: Optional[float],
                 now: Optional[datetime] = None) -> None:
        self.client, self.region, self.start, self.end = client, region, start, end
        self.now = now or datetime.now(timezone.utc)
        self.args, self.secret, self.scale, self.poll = args, secret, scale, poll
        private_dir(args.out)
        month = month_key(start)
        self.state = JobState(os.path.join(args.out, f".month-end-{region}-{month}.json"), args.fresh)
        self.parts = os.path.join(args.out, f".invoices-{region}-{month}.parts")
        if args.fresh:
            shutil.rmtree(self.parts, ignore_errors=True)
        self.stop = threading.Event()
        self.created = self.reused = 0
        self.counter_lock = threading.Lock()
        self.failed: List[Tuple[str, str]] = []

    # The key of the sealed parts: the archive's key, or one derived once per job from the
    # password (its salt and derivation, not secret, are in the job state; a job state
    # without "kdf" was started with scrypt N=2^15, and its parts are opened so).
    def part_key(self) -> Optional[bytes]:
        if self.secret is None:
            return None
        if self.secret.key is not None:
            return self.secret.key
        salt_hex = self.state.data.get("salt")
        if not salt_hex:
            salt_hex = os.urandom(16).hex()
            self.state.set("kdf", KDF_SCRYPT)
            self.state.set("salt", salt_hex)
        kdf = self.state.data.get("kdf", KDF_SCRYPT_2_15)
        return self.secret.derive(kdf, bytes.fromhex(salt_hex))

    def load(self, summary: Any) -> Tuple[str, Dict[str, Any]]:
        n = invoice_number(summary)
        done = self.state.data["invoices"].get(n)
        if done is not None:
            return n, done
        detail = self.client.invoices.get_invoice_detail_by_invoice_number(n, region=self.region)
        lines = list(self.client.invoices.iter_invoice_line_items(n, region=self.region))
        record = invoice_record(summary, detail, lines)
        self.state.update("invoices", n, record)
        return n, record

    def feed_end(self) -> datetime:
        """The end of the feed window: the month's end plus FEED_MARGIN, never past now."""
        return min(self.end + timedelta(seconds=1) + FEED_MARGIN, self.now)

    def reconcile(self, numbers: Set[str]) -> None:
        """The transactions of the month's invoices and the month's other transactions, and
        the invoice data of their line items. The feed is read from the month's start to
        ``feed_end()``: a transaction fed after the month's end is kept only when it is one of
        the month's invoices' (the feed lags the event), so one fed within the month whose
        invoice is another month's is reported as such."""
        full = self.end + timedelta(seconds=1) + FEED_MARGIN
        read_to = self.state.data.get("feed_end")
        if self.state.data["transactions"] is not None and read_to and datetime.fromisoformat(read_to) >= full:
            return  # read whole in an earlier run (a window cut short by "now" is read again)
        feed_end = self.feed_end()
        everything = list(self.client.reconciliation.iter_transactions(self.start, feed_end))
        # The address lists every marketplace of its group (US, CA and MX for NA): keep the
        # marketplace(s) of this region's invoices.
        markets = {t.marketplace_id for t in everything if t.invoice_number in numbers}
        transactions = [t for t in everything if (not markets or t.marketplace_id in markets)
                        and (t.invoice_number in numbers or t.feed_date is None or t.feed_date <= self.end)]
        tx_lines = [li for t in transactions for li in (t.transaction_line_items or []) if li]
        invoice_data = self.client.reconciliation.invoice_details_for(tx_lines) if tx_lines else []
        confirmed = sorted({det.invoice_number for entry in invoice_data
                            for det in (entry.invoice_details or []) if det and det.invoice_number})
        self.state.set("confirmed", confirmed)
        self.state.set("feed_end", feed_end.isoformat())
        self.state.set("transactions", [
            {"id": t.transaction_id, "invoice_number": t.invoice_number or "", "amount": str(money(t.amount)),
             "lines": len(t.transaction_line_items or []), "entity": t.legal_entity_name or "",
             "date": t.transaction_date.isoformat() if t.transaction_date else "",
             "feed": t.feed_date.isoformat() if t.feed_date else ""} for t in transactions])

    def pdf(self, number: str, record: Dict[str, Any], key: Optional[bytes], bar: Progress) -> None:
        """One invoice's PDF into its sealed part: the recorded report if still served,
        otherwise a new createReport, recorded before anything else happens."""
        entry = self.state.data["entries"][number]
        part = os.path.join(self.parts, entry + ".part")
        if (self.state.data["reports"].get(number) or {}).get("status") == "archived" and os.path.exists(part):
            bar.update()
            return
        why_failed = self.state.failed_report(number)
        if why_failed is not None:  # CANCELLED/FATAL in an earlier run: never created again
            with self.counter_lock:
                self.failed.append((number, why_failed))
            bar.update()
            return
        ref = record["pdf_ref"]
        kind = "Credits" if record["type"] == "CREDIT_MEMO" else "Invoice"
        report_id = self.state.reusable_report(number)
        for _ in range(2):  # a report gone from the look-back is created once more
            if self.stop.is_set():
                return
            if report_id is None:
                self.state.update("reports", number, {"status": "creating"})
                created = self.client.documents.create_report(
                    {"order_id": ref["order_id"], "order_line_item_id": ref["order_line_item_id"],
                     "document_type": kind})
                report_id = str(created.report_id)
                self.state.update("reports", number, {"status": "created", "report_id": report_id,
                                                      "created": datetime.now(timezone.utc).isoformat()})
                with self.counter_lock:
                    self.created += 1
                fresh = True
            else:
                fresh = False
            try:
                report = self.wait(report_id)
            except abws.NotFound:
                report_id = None  # past the look-back: a new one, once
                continue
            except abws.ReportFailed as e:
                if not fresh:
                    with self.counter_lock:
                        self.reused += 1
                self.state.update("reports", number, {"status": "failed", "report_id": report_id, "why": str(e)})
                with self.counter_lock:
                    self.failed.append((number, str(e)))
                bar.update()
                return
            if report is None:
                return  # stopped
            if not fresh:
                with self.counter_lock:
                    self.reused += 1
            try:
                self.client.documents.download_to(report.report_document_id, part, key=key,
                                                  allow_plaintext=key is None)
            except abws.DocumentError as e:
                why = f"document error {e.error_code or ''}".strip()
                with self.counter_lock:
                    self.failed.append((number, why))
                bar.update()
                return
            r = dict(self.state.data["reports"][number])
            r["status"] = "archived"
            self.state.update("reports", number, r)
            bar.update()
            return

    def archived(self, number: str) -> bool:
        """Whether the PDF of ``number`` is in its part (fetched by this or an earlier run)."""
        entry = self.state.data["entries"].get(number)
        return ((self.state.data["reports"].get(number) or {}).get("status") == "archived" and entry is not None
                and os.path.exists(os.path.join(self.parts, entry + ".part")))

    def wait(self, report_id: str) -> Any:
        """The report once DONE (None when the close is stopping), in slices so that a
        Ctrl-C never waits for a report."""
        while not self.stop.is_set():
            try:
                return self.client.documents.wait_for_report(report_id, poll_interval=self.poll,
                                                             timeout=max(2.0, 4 * (self.poll or 15.0)))
            except abws.Timeout:
                continue
        return None

    def run(self) -> int:
        args, state = self.args, self.state
        pdfs = not args.no_pdfs
        patterns = [p.strip() for p in args.pdfs_for.split(",") if p.strip()] if args.pdfs_for else None
        entity = args.legal_entity.casefold() if args.legal_entity else None
        if state.data["complete"] and not args.fresh:
            print("this month is closed already (its job state says so); --fresh closes it again")
        print_formula(self.scale, pdfs)

        # 1. The list of invoices: the count the plan needs.
        summaries = list(self.client.invoices.iter_invoices(self.start, self.end, region=self.region))
        numbers = [invoice_number(s) for s in summaries]
        with_pdf: Set[str] = set(n for n in numbers if in_scope(n, patterns)) if pdfs else set()
        no_pdf: List[Tuple[str, str]] = []
        if pdfs and self.region.upper() in NORTH_AMERICA:
            # North America: PDFs exist only for Pay-by-Invoice orders (the credit account, BCA).
            bca = {invoice_number(s) for s in self.client.invoices.iter_invoices(
                self.start, self.end, region=self.region, payment_method_types=["BCA"])}
            no_pdf = [(n, "paid by card: no PDF in North America") for n in sorted(with_pdf - bca)]
            with_pdf &= bca
        taken: Set[str] = {e.lower() for e in state.data["entries"].values()}
        for n in numbers:  # stable names across runs
            if n in with_pdf and n not in state.data["entries"]:
                state.data["entries"][n] = entry_name(n, taken)[: -len(".pdf")]
        state.save()

        # 2. The plan with counts, and its estimate.
        todo = [n for n in numbers if n not in state.data["invoices"]]
        pdf_todo = [n for n in with_pdf if not self.archived(n) and state.failed_report(n) is None]
        create = sum(1 for n in pdf_todo if state.reusable_report(n) is None)
        counts = {
            "getInvoiceDetailByInvoiceNumber": len(todo),
            "getInvoiceLineItemsByInvoiceNumber": len(todo),
            "createReport": create,
            "getReport": len(pdf_todo),
            "getReportDocument": len(pdf_todo),
        }
        lines, slowest, which = plan_lines(counts, self.scale)
        print(f"plan for {len(numbers)} invoices, {len(with_pdf)} PDFs"
              + (f" ({len(numbers) - len(todo)} invoices and {len(with_pdf) - len(pdf_todo)} PDFs done or failed "
                 f"in an earlier run; {len(pdf_todo) - create} reports of it reused)" if len(todo) < len(numbers)
                 or len(pdf_todo) < len(with_pdf) else "") + ":")
        for line in lines:
            print(line)
        print(f"  + transactions and their invoice data (a few requests at {0.5 * self.scale:g}/s)")
        print(f"estimated duration: {duration_text(slowest)} ({which}'s bucket sets the pace"
              + ("; the sandbox runs at the spec's rates, time-scaled" if self.scale != 1 else
                 "; at the published rates, adjusted to the service's rate header") + ")")
        log.info("plan: %s", ", ".join(f"{k} {v}" for k, v in counts.items()))
        if args.plan_only:
            return 0

        # 3. Everything at once: invoice data (each invoice's PDF queued as soon as its data
        #    is in), transactions, PDFs.
        key = self.part_key() if with_pdf else None
        if with_pdf:
            os.makedirs(self.parts, mode=0o700, exist_ok=True)
            os.chmod(self.parts, 0o700)
            # A download cut off by a crash leaves its temporary file (never a part): gone.
            for name in os.listdir(self.parts):
                if not name.endswith(".part"):
                    os.unlink(os.path.join(self.parts, name))
            # Parts of an earlier run sealed otherwise than this run asks (--archive switched)
            # would end up in the archive as they are: refused.
            for name in os.listdir(self.parts):
                with open(os.path.join(self.parts, name), "rb") as fh:
                    sealed = fh.read(8) == PART_MAGIC
                if sealed != (key is not None):
                    raise SystemExit(
                        f"the PDFs of an earlier run in {self.parts} are {'sealed' if sealed else 'NOT sealed'} "
                        f"(--archive {'encrypted' if sealed else 'zip'}) and this run asks for --archive "
                        f"{args.archive}: run again with --archive {'encrypted' if sealed else 'zip'}, "
                        "or with --fresh to fetch them again")
        data_bar = Progress("invoice data", len(numbers), quiet=args.quiet)
        pdf_bar = Progress("invoice PDFs", len(with_pdf), quiet=args.quiet)
        records: Dict[str, Dict[str, Any]] = {}
        interrupted = False
        data_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="invoice-data")
        pdf_pool = ThreadPoolExecutor(max_workers=16, thread_name_prefix="invoice-pdf")
        side = ThreadPoolExecutor(max_workers=1, thread_name_prefix="transactions")
        pdf_jobs: List[Any] = []
        try:
            tx_job = side.submit(self.reconcile, set(numbers))
            for n, record in data_pool.map(self.load, summaries):
                records[n] = record
                data_bar.update()
                if n in with_pdf and entity is not None and record["customer"].casefold() != entity:
                    with_pdf.discard(n)  # another legal entity's
                    pdf_bar.update()
                elif n in with_pdf:
                    if record["pdf_ref"] is None:
                        no_pdf.append((n, "no line items"))
                        pdf_bar.update()
                    else:
                        pdf_jobs.append(pdf_pool.submit(self.pdf, n, record, key, pdf_bar))
            data_bar.close()
            for job in pdf_jobs:
                job.result()
            pdf_bar.close()
            tx_job.result()
        except KeyboardInterrupt:
            interrupted = True
        finally:
            # Ctrl-C: no new request; what is in flight ends and is recorded.
            if interrupted:
                self.stop.set()
            for pool in (data_pool, pdf_pool, side):
                pool.shutdown(wait=True, cancel_futures=interrupted)
        if interrupted:
            reports = state.data["reports"]
            archived = sum(1 for r in reports.values() if r.get("status") == "archived")
            print(f"\ninterrupted: {len(state.data['invoices'])} of {len(numbers)} invoices' data and "
                  f"{archived} of {len(with_pdf)} PDFs are done; run the same command again to finish "
                  "(reports already created are reused)", file=sys.stderr)
            return 130

        # 4. The ledger, the archive (assembled from the sealed parts, then written whole) and
        #    the summary.
        self.finish(summaries, records, with_pdf, no_pdf, key)
        return 0

    def finish(self, summaries: List[Any], records: Dict[str, Dict[str, Any]], with_pdf: Set[str],
               no_pdf: List[Tuple[str, str]], key: Optional[bytes]) -> None:
        args, state, start = self.args, self.state, self.start
        entity = args.legal_entity.casefold() if args.legal_entity else None
        numbers = [n for n in map(invoice_number, summaries)
                   if entity is None or records[n]["customer"].casefold() == entity]
        shown = set(numbers)
        # The transactions of the invoices shown, and (fed within the month) those of no
        # invoice of the month: an earlier month's invoice's (by its date), or unmatched.
        # With --legal-entity, the entity's only.
        transactions = [t for t in state.data["transactions"] or []
                        if t["invoice_number"] in shown or (t["invoice_number"] not in records and (
                            entity is None or str(t.get("entity", "")).casefold() == entity))]
        by_invoice: Dict[str, List[Dict[str, Any]]] = defaultdict(list)
        for t in transactions:
            by_invoice[t["invoice_number"]].append(t)
        matched = [t for t in transactions if t["invoice_number"] in shown]
        others = [t for t in transactions if t["invoice_number"] not in shown]
        earlier = [t for t in others if t.get("date") and t["date"] < start.isoformat()]
        unmatched = [t for t in others if t not in earlier]
        feed_end = state.data.get("feed_end") or ""
        no_tx = [n for n in numbers if not by_invoice.get(n)]
        differences = []
        for n in numbers:
            txs = by_invoice.get(n, [])
            if txs:
                billed = Decimal(records[n]["total"])
                paid = sum((Decimal(t["amount"]) for t in txs), Decimal(0))
                if billed != paid:
                    differences.append((n, billed, paid))
        tax: Dict[str, Decimal] = defaultdict(Decimal)
        for n in numbers:
            for rate, amount in records[n]["tax"].items():
                tax[rate] += Decimal(amount)
        rates = sorted(tax)
        total = sum((Decimal(records[n]["total"]) for n in numbers), Decimal(0))
        currency = next((records[n]["currency"] for n in numbers if records[n]["currency"]), "")
        ledger_name, exceptions_name, archive_name = output_names(
            self.region, month_key(start), args.legal_entity, args.pdfs_for, self.secret is not None)

        ledger_path = os.path.join(args.out, ledger_name)
        text = io.StringIO()
        w = csv.writer(text)
        w.writerow(["invoice_number", "type", "issue_date", "status", "customer", "currency", "total"]
                   + [f"tax_{r}" for r in rates]
                   + ["line_items", "transactions", "transaction_total", "difference", "exception"])
        for n in numbers:
            r = records[n]
            txs = by_invoice.get(n, [])
            paid = sum((Decimal(t["amount"]) for t in txs), Decimal(0))
            exception = ("no transaction" + (f" fed by {feed_end}" if feed_end else "") if not txs
                         else "amount differs" if paid != Decimal(r["total"]) else "")
            row = ([n, r["type"], r["issue_date"], r["status"], r["customer"], r["currency"], Decimal(r["total"])]
                   + [Decimal(r["tax"].get(rate, "0")) for rate in rates]
                   + [r["lines"], " ".join(t["id"] for t in txs), paid,
                      (Decimal(r["total"]) - paid) if txs else "", exception])
            w.writerow([csv_cell(v) for v in row])
        write_private(ledger_path, text.getvalue().encode("utf-8"))

        filed = 0
        archive_path = os.path.join(args.out, archive_name)
        if not args.no_pdfs:
            entries: Dict[str, bytes] = {}
            for n in numbers:
                if n not in with_pdf or not self.archived(n):
                    continue
                with open(os.path.join(self.parts, state.data["entries"][n] + ".part"), "rb") as fh:
                    sealed = fh.read()
                entries[state.data["entries"][n] + ".pdf"] = sealed if key is None else abws.decrypt(sealed, key)
            filed = len(entries)
            write_archive(archive_path, entries, self.secret)
            if key is None:
                # --archive zip: the parts are plain PDFs; not kept (a re-run fetches them again).
                shutil.rmtree(self.parts, ignore_errors=True)
        not_filed = [(n, why) for n, why in no_pdf + self.failed if n in shown]

        # Every exception, one a row: the summary lists the first ten of each kind.
        exceptions: List[List[Any]] = []
        exceptions += [["no transaction", n, "", Decimal(records[n]["total"]), "",
                        f"no transaction in the feed from {start:%Y-%m-%d} to {feed_end or 'the month end'}"]
                       for n in no_tx]
        exceptions += [["amount differs", n, " ".join(t["id"] for t in by_invoice[n]), billed, paid, ""]
                       for n, billed, paid in differences]
        exceptions += [["earlier month's invoice", t["invoice_number"], t["id"], "", Decimal(t["amount"]),
                        f"transaction of {t.get('date', '')[:10]}, fed {t.get('feed', '')[:10]}"] for t in earlier]
        exceptions += [["unmatched transaction", t["invoice_number"], t["id"], "", Decimal(t["amount"]),
                        f"transaction of {t.get('date', '')[:10]}, fed {t.get('feed', '')[:10]}"] for t in unmatched]
        exceptions += [["PDF not filed", n, "", "", "", why] for n, why in not_filed]
        exceptions_path = os.path.join(args.out, exceptions_name)
        text = io.StringIO()
        w = csv.writer(text)
        w.writerow(["exception", "invoice_number", "transactions", "billed", "transaction_total", "detail"])
        for row in exceptions:
            w.writerow([csv_cell(v) for v in row])
        write_private(exceptions_path, text.getvalue().encode("utf-8"))
        state.set("complete", True)

        def more(items: List[Any]) -> None:
            if len(items) > 10:
                print(f"  ... and {len(items) - 10} more (all in {exceptions_path})")

        n_std = sum(1 for n in numbers if records[n]["type"] == "STANDARD")
        n_cm = sum(1 for n in numbers if records[n]["type"] == "CREDIT_MEMO")
        confirmed = set(state.data["confirmed"] or [])
        print()
        if entity is not None:
            print(f"legal entity    {args.legal_entity}")
        print(f"invoices        {n_std:>6}")
        print(f"credit memos    {n_cm:>6}")
        print(f"net total       {amount_text(total, currency):>18}")
        for rate in rates:
            print(f"  {TAX_NAMES.get(self.region.upper(), 'VAT')} at {rate:<6} {amount_text(tax[rate], currency):>18}")
        print(f"transactions    {len(transactions):>6}  matched {len(matched)}, of an earlier month's invoices "
              f"{len(earlier)}, unmatched {len(unmatched)} (feed read to {feed_end or 'the month end'})")
        for t in (earlier + unmatched)[:10]:
            print(f"  {t['id']} of invoice {t['invoice_number'] or '(none)'}: "
                  + ("an earlier month's invoice" if t in earlier else "no invoice of the month"))
        more(earlier + unmatched)
        print(f"invoices without a transaction {len(no_tx)}")
        for n in no_tx[:10]:
            print(f"  {n}: no transaction")
        more(no_tx)
        print(f"line items sent for invoice data {sum(t['lines'] for t in transactions)}, "
              f"invoices confirmed {len(confirmed & shown)}")
        print(f"amount differences {len(differences)}")
        for number, billed, paid in differences[:10]:
            print(f"  {number}: billed {billed} vs transactions {paid}")
        more(differences)
        print(f"ledger          {ledger_path}")
        print(f"exceptions      {len(exceptions)} in {exceptions_path}")
        if not args.no_pdfs:
            sealed_with = f"sealed with {self.secret.what}" if self.secret is not None else "NOT encrypted: readable without a key"
            print(f"PDFs filed      {filed} into {archive_path} ({sealed_with}; owner-only)")
            print(f"reports         {self.created} created, {self.reused} reused from an earlier run")
            for number, why in not_filed[:10]:
                print(f"  not filed {number}: {why}")
            more(not_filed)


def main(argv: Optional[Iterable[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--region", help="region to close, e.g. US, UK, DE, JP (default: ABWS_REGION, or JP on the sandbox)")
    ap.add_argument("--month", help="YYYY-MM (default: last month)")
    ap.add_argument("--timezone", default="UTC", metavar="ZONE",
                    help="the zone the month is counted in: UTC (default, the service's dates) or an IANA "
                         "name such as Asia/Tokyo; outputs of another zone carry its name")
    ap.add_argument("--out", default="month-end", help="output directory (made or tightened to 0700)")
    ap.add_argument(
        "--archive", choices=["encrypted", "zip"], default="encrypted",
        help="encrypted (default): AES-256-GCM; zip: unsealed, readable by whoever can read the file",
    )
    ap.add_argument("--no-pdfs", action="store_true", help="skip the PDF archive")
    ap.add_argument("--pdfs-for", metavar="NUMBERS",
                    help="PDFs only for these invoice numbers (comma-separated; * and ? patterns)")
    ap.add_argument("--legal-entity", metavar="NAME", help="the ledger and summary of one legal entity only")
    ap.add_argument("--plan-only", action="store_true", help="print the plan and its estimate, then stop")
    ap.add_argument("--fresh", action="store_true", help="ignore the job state of an earlier run")
    ap.add_argument("--poll-interval", type=float, help="seconds between report polls (default: the library's 15)")
    ap.add_argument("--sandbox-time-scale", type=float, default=240.0,
                    help="sandbox runs only: how much faster its clock runs (rate limits and reports; default 240)")
    ap.add_argument("--quiet", action="store_true", help="no progress bars (log records only)")
    ap.add_argument("--verbose", "-v", action="store_true",
                    help="show the progress log records (abws.month_end at INFO) on stderr")
    ap.add_argument("--decrypt", nargs=2, metavar=("ARCHIVE", "OUT"), help="write the plain zip of a sealed archive")
    args = ap.parse_args(list(argv) if argv is not None else None)
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.verbose:  # the job's own progress records, whatever the root logger's level
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False

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

    tz = zone(args.timezone)
    started = time.monotonic()
    sandbox = None
    scale, poll = 1.0, args.poll_interval
    if live:
        client = abws.Client.from_env(**({"region": args.region} if args.region else {}))
        today = datetime.now(tz).date()
        print(f"abws {abws.__version__}: closing the month of {client!r}")
    else:
        # The whole service on loopback at the spec's rate limits, its clock (rate buckets,
        # report processing) running `scale` times faster; lifetimes stay the service's in
        # real seconds.
        scale = args.sandbox_time_scale
        sandbox = abws.Sandbox(rate_limits="spec", time_scale=scale, token_lifetime=3600 * scale,
                               page_token_lifetime=900 * scale, presigned_lifetime=300 * scale)
        code = (args.region or "JP").strip().upper()
        code = "UK" if code == "GB" else code
        # The region's own regional address (/na, /eu, /fe; docs/sandbox.md).
        client = sandbox.client(region=code, endpoint=sandbox.group_url(code))
        today = date.fromisoformat(sandbox.dataset()["today"])
        poll = poll if poll is not None else 15.0 / scale
        print(f"abws {abws.__version__}: no ABWS_* credentials set, closing the embedded sandbox's month "
              f"(the spec's rates, {scale:g}x time)")
    start, end = month_bounds(args.month, today, tz)
    print(f"month: {start:%Y-%m-%d} .. {end:%Y-%m-%d} ({args.timezone if tz is not timezone.utc else 'UTC'}), "
          f"region {client.region}")
    try:
        code = Close(client, client.region, start, end, args, secret, scale, poll,
                     now=datetime.now(timezone.utc)).run()
    finally:
        if sandbox is not None:
            sandbox.stop()
    if code == 0:
        print(f"done in {time.monotonic() - started:.1f} s")
    return code


if __name__ == "__main__":
    sys.exit(main())
