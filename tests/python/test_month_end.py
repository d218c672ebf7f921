"""The month-end close at the spec's rate limits, time-scaled: its plan, and a close that is
interrupted halfway (SIGKILL, Ctrl-C) and run again finishes with one createReport per
invoice and an archive that is never corrupt.

The sandbox runs in this process, outside the example: the example sees it as "the
service" (the ABWS_* variables of a real run), so it survives the example's death and its
counters show every createReport of both runs."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from datetime import date, timedelta
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest

import abws

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "month_end_close.py"
SCALE = 600.0  # createReport: 0.0167 × 600 ≈ 10 a second after its burst of 15
KEY = "7" * 64
TODAY = "2026-11-01"


@pytest.fixture()
def service() -> Iterator[Tuple[abws.Sandbox, Dict[str, str], str]]:
    # The data set follows its date: pinned, so every run closes the same month.
    sb = abws.Sandbox(rate_limits="spec", time_scale=SCALE, today=TODAY, token_lifetime=3600 * SCALE,
                      page_token_lifetime=900 * SCALE, presigned_lifetime=300 * SCALE)
    c = sb.credentials()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ABWS_")}
    env.update({
        "ABWS_REGION": "JP", "ABWS_CLIENT_ID": c["client_id"], "ABWS_CLIENT_SECRET": c["client_secret"],
        "ABWS_REFRESH_TOKEN": c["refresh_token"], "ABWS_USER_EMAIL": c["user_email"],
        "ABWS_ENDPOINT": sb.group_url("JP"), "ABWS_AUTH_ENDPOINT": sb.base_url, "ABWS_ARCHIVE_KEY": KEY,
    })
    today = date.fromisoformat(sb.dataset()["today"])
    month = (today.replace(day=1) - timedelta(days=1)).strftime("%Y-%m")
    try:
        yield sb, env, month
    finally:
        sb.stop()


def command(out: Path, month: str, *more: str) -> List[str]:
    return [sys.executable, str(EXAMPLE), "--out", str(out), "--month", month, "--poll-interval", "0.02",
            "--quiet", *more]


def reports_recorded(state: Path) -> int:
    try:
        data = json.loads(state.read_text())
    except (OSError, ValueError):
        return 0
    return sum(1 for r in data["reports"].values() if r.get("report_id"))


def interrupt_halfway(cmd: List[str], env: Dict[str, str], state: Path, sig: int) -> Tuple[int, str]:
    """Starts the close and sends ``sig`` right after the 35th report id is recorded: past
    createReport's burst, the next one is a tenth of a second away, so no createReport is
    in flight (the one window the service leaves open: it cannot list reports)."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while reports_recorded(state) < 35:
        assert proc.poll() is None, proc.communicate()[0]
        assert time.monotonic() < deadline, "no progress"
        time.sleep(0.005)
    proc.send_signal(sig)
    out, _ = proc.communicate(timeout=60)
    return proc.returncode, out


def check_archive(out: Path, sb: abws.Sandbox) -> None:
    archive, = out.glob("invoices-*.zip.aes")
    assert archive.name.startswith("invoices-JP-"), archive.name
    module = load_example()
    plain = module.open_archive(archive.read_bytes(), module.ArchiveSecret(key=bytes.fromhex(KEY)))
    with zipfile.ZipFile(io.BytesIO(plain)) as z:
        names = z.namelist()
        assert len(names) == invoices(sb)
        for n in names:
            pdf = z.read(n)
            assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF"), n


def load_example() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("month_end_close", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def invoices(sb: abws.Sandbox) -> int:
    """The invoices and credit memos of the month closed (each gets one PDF)."""
    n = len(sb.dataset()["previousMonthInvoices"])
    assert n > 40, "the data set's month is too small for these tests"
    return n


def one_report_per_invoice(sb: abws.Sandbox) -> Dict[str, int]:
    per_invoice: Dict[str, int] = sb.counters()["reportJobsPerInvoice"]
    assert len(per_invoice) == invoices(sb), per_invoice
    assert set(per_invoice.values()) == {1}, {k: v for k, v in per_invoice.items() if v != 1}
    return per_invoice


def test_the_close_prints_its_plan_and_keeps_to_the_spec_rates(service: Any, tmp_path: Path) -> None:
    sb, env, month = service
    out = tmp_path / "close"
    plan = subprocess.run(command(out, month, "--plan-only"), env=env, capture_output=True, text=True, timeout=120)
    assert plan.returncode == 0, plan.stdout + plan.stderr
    n = invoices(sb)
    assert f"plan for {n} invoices, {n} PDFs" in plan.stdout
    # createReport sets the pace: a burst of 15, then one every 1/0.0167 s.
    minutes = int((n - 15) / 0.0167 // 60)
    assert f"estimated duration: {minutes} min" in plan.stdout, plan.stdout
    assert "createReport" not in json.dumps(sb.counters()["requests"]), "the plan sends no createReport"
    done = subprocess.run(command(out, month), env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"PDFs filed      {n}" in done.stdout and f"{n} created, 0 reused" in done.stdout
    one_report_per_invoice(sb)
    # createReport, the bucket that sets the pace, is never overrun (at 600x a getReport
    # bucket refills every ~1 ms, where a rare 429 from timer jitter is retried).
    throttled = sb.counters()["throttled"]
    assert not any(k.endswith(":createReport") for k in throttled), throttled
    check_archive(out, sb)

    # A re-run of the finished close fetches nothing again: its sealed parts are kept.
    before = sb.counters()["requests"]
    again = subprocess.run(command(out, month), env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"{n} PDFs done or failed in an earlier run; 0 reports of it reused" in again.stdout, again.stdout
    assert f"PDFs filed      {n}" in again.stdout and "0 created, 0 reused" in again.stdout, again.stdout
    after = sb.counters()["requests"]
    for op in ("createReport", "getReport", "getReportDocument"):
        assert after.get(op) == before.get(op), (op, before.get(op), after.get(op))
    check_archive(out, sb)

    # A report that ended CANCELLED/FATAL is reported as not filed and never created again.
    state = out / f".month-end-JP-{month}.json"
    data = json.loads(state.read_text())
    number = sorted(data["reports"])[0]
    data["reports"][number] = {"status": "failed", "report_id": data["reports"][number]["report_id"],
                               "why": "report CANCELLED"}
    (next(out.glob(".invoices-*.parts")) / (data["entries"][number] + ".part")).unlink()
    state.write_text(json.dumps(data))
    third = subprocess.run(command(out, month), env=env, capture_output=True, text=True, timeout=120)
    assert third.returncode == 0, third.stdout + third.stderr
    assert f"not filed {number}: report CANCELLED" in third.stdout, third.stdout
    assert f"PDFs filed      {n - 1}" in third.stdout and "0 created" in third.stdout, third.stdout
    one_report_per_invoice(sb)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "Ctrl-C"])
def test_an_interrupted_close_resumes_without_a_second_report(service: Any, tmp_path: Path, sig: int) -> None:
    sb, env, month = service
    out = tmp_path / "close"
    state = out / f".month-end-JP-{month}.json"
    code, text = interrupt_halfway(command(out, month), env, state, sig)
    if sig == signal.SIGINT:
        assert code == 130 and "run the same command again to finish" in text, text
    else:
        assert code == -signal.SIGKILL
    # Nothing half-written: no archive yet, every part a whole sealed file.
    assert not list(out.glob("invoices-*")), "no archive before the close ends"
    assert os.stat(state).st_mode & 0o777 == 0o600
    assert b"%PDF" not in state.read_bytes() and KEY not in state.read_text()
    parts = list(next(out.glob(".invoices-*.parts")).iterdir())
    for p in parts:
        if p.name.endswith(".part"):
            assert abws.decrypt(p.read_bytes(), KEY).startswith(b"%PDF-")
    created_before = sb.counters()["reportJobsCreated"]
    n = invoices(sb)
    assert 35 <= created_before < n
    if sig == signal.SIGINT:
        # The parts are sealed: a re-run asking for a plain zip is refused, not mixed in.
        mixed = subprocess.run(command(out, month, "--archive", "zip"), env=env, capture_output=True, text=True,
                               timeout=120)
        assert mixed.returncode != 0 and "--archive encrypted" in mixed.stderr, mixed.stdout + mixed.stderr
        assert "Traceback" not in mixed.stderr and not list(out.glob("invoices-*")), mixed.stderr

    again = subprocess.run(command(out, month), env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"PDFs filed      {n}" in again.stdout
    assert f"{n - created_before} created" in again.stdout, again.stdout
    one_report_per_invoice(sb)
    check_archive(out, sb)


@pytest.fixture(scope="module")
def late_month() -> Iterator[Tuple[abws.Sandbox, Dict[str, str], str]]:
    """A sandbox whose last month's transactions have all been fed (the feed lags ~6 h):
    October 2026 seen from November 28th, where a JP invoice of October 31st late has its
    transaction fed on November 1st, and a US transaction fed on October 1st is a September
    invoice's."""
    scale = 1200.0
    sb = abws.Sandbox(rate_limits="spec", time_scale=scale, today="2026-11-28", token_lifetime=3600 * scale,
                      page_token_lifetime=900 * scale, presigned_lifetime=300 * scale)
    c = sb.credentials()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ABWS_")}
    env.update({
        "ABWS_CLIENT_ID": c["client_id"], "ABWS_CLIENT_SECRET": c["client_secret"],
        "ABWS_REFRESH_TOKEN": c["refresh_token"], "ABWS_USER_EMAIL": c["user_email"],
        "ABWS_AUTH_ENDPOINT": sb.base_url, "ABWS_ARCHIVE_KEY": KEY,
    })
    try:
        yield sb, env, "2026-10"
    finally:
        sb.stop()


def close_region(sb: abws.Sandbox, env: Dict[str, str], out: Path, month: str, region: str,
                 *more: str) -> subprocess.CompletedProcess[str]:
    env = dict(env, ABWS_REGION=region, ABWS_ENDPOINT=sb.group_url(region))
    done = subprocess.run(command(out, month, "--no-pdfs", *more), env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def ledger_rows(path: Path) -> Dict[str, Dict[str, str]]:
    import csv

    with open(path, newline="") as fh:
        return {row["invoice_number"]: row for row in csv.DictReader(fh)}


@pytest.mark.parametrize("region", ["JP", "US"])
def test_every_invoice_is_matched_across_the_feed_lag(late_month: Any, tmp_path: Path, region: str) -> None:
    sb, env, month = late_month
    done = close_region(sb, env, tmp_path, month, region)
    # Recomputed here: the month's invoices, the transactions of a wide feed window.
    client = sb.client(region=region, endpoint=sb.group_url(region))
    start, end = "2026-10-01T00:00:00Z", "2026-11-01T00:00:00Z"
    numbers = {s.invoice_metadata.invoice_number for s in client.invoices.iter_invoices(start, end, region=region)
               if s.invoice_metadata.issue_date.isoformat() < "2026-11-01"}
    wide = list(client.reconciliation.iter_transactions("2026-09-20T00:00:00Z", "2026-11-20T00:00:00Z"))
    markets = {t.marketplace_id for t in wide if t.invoice_number in numbers}
    wide = [t for t in wide if t.marketplace_id in markets]
    paid = {t.invoice_number for t in wide}
    late = {t.invoice_number for t in wide if t.invoice_number in numbers and t.feed_date.isoformat() >= end[:10]}
    fed_in_month = [t for t in wide if start[:10] <= t.feed_date.isoformat()[:10] < end[:10]]
    earlier = {t.transaction_id for t in fed_in_month if t.invoice_number not in numbers
               and t.transaction_date.isoformat() < start[:10]}
    unmatched = {t.transaction_id for t in fed_in_month if t.invoice_number not in numbers} - earlier
    if region == "JP":
        assert "JPXOT58U7WAT" in late, "the data set lost its invoice whose transaction is fed next month"
    else:
        assert earlier, "the data set lost its September invoice's transaction fed in October"

    rows = ledger_rows(tmp_path / f"ledger-{region}-{month}.csv")
    assert set(rows) == numbers
    without = {n for n, row in rows.items() if not row["transactions"]}
    assert without == numbers - paid, (without, numbers - paid)
    for n in late:
        assert rows[n]["transactions"] and rows[n]["exception"] == "", rows[n]
    for n in without:
        assert rows[n]["exception"].startswith("no transaction"), rows[n]
    assert f"invoices without a transaction {len(numbers - paid)}" in done.stdout, done.stdout
    assert (f"matched {sum(1 for t in wide if t.invoice_number in numbers)}, "
            f"of an earlier month's invoices {len(earlier)}, unmatched {len(unmatched)}") in done.stdout, done.stdout
    exceptions = (tmp_path / f"exceptions-{region}-{month}.csv").read_text()
    for tx in earlier:
        assert tx in exceptions and "earlier month's invoice" in exceptions, exceptions


def test_outputs_of_regions_and_scopes_side_by_side(late_month: Any, tmp_path: Path) -> None:
    sb, env, month = late_month
    close_region(sb, env, tmp_path, month, "JP")
    close_region(sb, env, tmp_path, month, "UK")
    jp, uk = tmp_path / f"ledger-JP-{month}.csv", tmp_path / f"ledger-UK-{month}.csv"
    whole = ledger_rows(jp)
    assert set(whole) and set(ledger_rows(uk)) and not set(whole) & set(ledger_rows(uk))
    # One legal entity: its own ledger beside the whole one, and its transactions only.
    entity = "Sandbox Manufacturing K.K."
    mine = {n for n, row in whole.items() if row["customer"] == entity}
    assert 0 < len(mine) < len(whole)
    done = close_region(sb, env, tmp_path, month, "JP", "--legal-entity", entity)
    scoped = [p for p in tmp_path.glob(f"ledger-JP-{month}-*.csv")]
    assert len(scoped) == 1 and set(ledger_rows(scoped[0])) == mine
    assert ledger_rows(jp) == whole, "the whole month's ledger is still there"
    assert f"matched {sum(1 for n in mine if whole[n]['transactions'])}," in done.stdout, done.stdout
    assert f"invoices confirmed {len(mine)}" in done.stdout, done.stdout


def test_the_month_is_checked_and_progress_can_be_shown(late_month: Any, tmp_path: Path) -> None:
    sb, env, _ = late_month
    env = dict(env, ABWS_REGION="JP", ABWS_ENDPOINT=sb.group_url("JP"))
    this_month = time.strftime("%Y-%m", time.gmtime())
    for month, why in (("2026-13", "is not a month"), ("10/2026", "is not a month"),
                       (this_month, "has not ended yet")):
        bad = subprocess.run(command(tmp_path, month, "--no-pdfs"), env=env, capture_output=True, text=True,
                             timeout=60)
        assert bad.returncode != 0 and why in bad.stderr and "Traceback" not in bad.stderr, bad.stderr
    loud = subprocess.run(command(tmp_path, "2026-10", "--no-pdfs", "--verbose"), env=env, capture_output=True,
                          text=True, timeout=120)
    assert loud.returncode == 0, loud.stdout + loud.stderr
    assert "abws.month_end INFO invoice data: " in loud.stderr, loud.stderr


def test_a_month_in_the_accountants_time_zone(late_month: Any, tmp_path: Path) -> None:
    """`--timezone Asia/Tokyo` closes October in Japan's time: an invoice issued on October
    31st at 21:52 UTC is November's there, one of September 30th after 15:00 UTC is October's."""
    from datetime import timezone
    from zoneinfo import ZoneInfo

    sb, env, month = late_month
    done = close_region(sb, env, tmp_path, month, "JP", "--timezone", "Asia/Tokyo")
    assert "(Asia/Tokyo)" in done.stdout, done.stdout
    client = sb.client(region="JP", endpoint=sb.group_url("JP"))
    tokyo = ZoneInfo("Asia/Tokyo")
    wide = client.invoices.iter_invoices("2026-09-25T00:00:00Z", "2026-11-05T00:00:00Z", region="JP")
    issued = {s.invoice_metadata.invoice_number: s.invoice_metadata.issue_date for s in wide}
    october = {n for n, d in issued.items() if d.astimezone(tokyo).strftime("%Y-%m") == month}
    rows = ledger_rows(tmp_path / f"ledger-JP-{month}-Asia_Tokyo.csv")
    assert set(rows) == october
    assert "JPXOT58U7WAT" not in rows, "issued on November 1st in Tokyo"
    utc_october = {n for n, d in issued.items() if d.astimezone(timezone.utc).strftime("%Y-%m") == month}
    assert october != utc_october, "the data set has invoices on either side of the two month ends"
    assert not (tmp_path / f"ledger-JP-{month}.csv").exists(), "the UTC close's name is left to it"
    bad = subprocess.run(command(tmp_path, month, "--no-pdfs", "--timezone", "Mars/Olympus"),
                         env=dict(env, ABWS_REGION="JP", ABWS_ENDPOINT=sb.group_url("JP")),
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "is not a time zone" in bad.stderr and "Traceback" not in bad.stderr
