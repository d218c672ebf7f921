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
    archive = next(out.glob("invoices-*.zip.aes"))
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
    assert not list(out.glob(".invoices-*.parts")), "the parts are gone once the archive is written"


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

    again = subprocess.run(command(out, month), env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"PDFs filed      {n}" in again.stdout
    assert f"{n - created_before} created" in again.stdout, again.stdout
    one_report_per_invoice(sb)
    check_archive(out, sb)
