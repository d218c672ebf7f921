"""abws.close_month: the core's month-end close from Python, against the embedded sandbox
(its clock fast, no server-side rate limits): the month filed, the typed result, its
DataFrames, progress (a callback, tqdm bars), the awaitable twin, and bad parameters
refused before any request."""

from __future__ import annotations

import asyncio
import csv
import os
import re
import sys
import threading
import time
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterator, List, Tuple

import pytest

import abws
from abws.close import ExceptionRow, LedgerRow
from conftest import ctrl_c_after

KEY = "5" * 64


@pytest.fixture(scope="module")
def month(sb: abws.Sandbox) -> str:
    """The sandbox's previous month (ended: it can be closed)."""
    today = date.fromisoformat(sb.dataset()["today"])
    return (today.replace(day=1) - timedelta(days=1)).strftime("%Y-%m")


@pytest.fixture(scope="module")
def closed(client: abws.Client, month: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One whole close, with a progress callback recording every step."""
    steps: List[Tuple[str, int, int]] = []
    out = tmp_path_factory.mktemp("close") / "month-end"
    r = abws.close_month(client, month, out=out, archive_key=KEY, poll_interval=0.02,
                         progress=lambda phase, done, total: steps.append((phase, done, total)))
    yield r, steps, out


def test_the_close_files_the_month(closed: Any, client: abws.Client, month: str) -> None:
    r, _, out = closed
    assert isinstance(r, abws.CloseResult)
    assert r.month == month and r.region == "JP" and r.complete
    # Every invoice of the month, once; the plan counted them before the work.
    assert len(r.ledger) == r.invoices + r.credit_memos == r.plan.invoices > 0
    assert len({row.invoice_number for row in r.ledger}) == len(r.ledger)
    # The files are where the result says, in `out`.
    assert r.archive_path is not None and r.ledger_path is not None and r.exceptions_path is not None
    for p in (r.archive_path, r.ledger_path, r.exceptions_path):
        assert isinstance(p, Path) and p.is_file() and p.parent == out
    assert r.pdfs_filed > 0 and r.archive_path.stat().st_size > 0
    with r.ledger_path.open(newline="") as f:
        assert sorted(row["invoice_number"] for row in csv.DictReader(f)) == sorted(
            row.invoice_number for row in r.ledger
        )


def test_the_result_is_typed(closed: Any) -> None:
    r, _, _ = closed
    assert isinstance(r.net_total, Decimal)
    assert r.net_total == sum((row.total for row in r.ledger), Decimal(0))
    assert r.tax_by_rate and all(isinstance(v, Decimal) for v in r.tax_by_rate.values())
    assert all(isinstance(row, LedgerRow) for row in r.ledger)
    assert all(isinstance(row, ExceptionRow) for row in r.exceptions)
    kinds = {row.type for row in r.ledger}
    assert kinds <= {"STANDARD", "CREDIT_MEMO"} and r.credit_memos == sum(
        row.type == "CREDIT_MEMO" for row in r.ledger
    )
    for row in r.ledger:
        assert isinstance(row.transaction_total, Decimal)
        assert row.difference is None or row.difference == row.total - row.transaction_total
    assert r.plan.slowest and r.plan.buckets and r.plan.buckets[0].operation


def test_to_pandas(closed: Any) -> None:
    pytest.importorskip("pandas")
    r, _, _ = closed
    df = r.to_pandas()
    assert len(df) == len(r.ledger)
    assert list(df.columns)[:2] == ["invoice_number", "type"]
    assert sum(df["total"], Decimal(0)) == r.net_total
    ex = r.exceptions_to_pandas()
    assert len(ex) == len(r.exceptions) and "detail" in ex.columns


def test_progress_reaches_the_callback_per_phase(closed: Any) -> None:
    r, steps, _ = closed
    assert steps[0][0] == "plan" and steps[-1][0] == "outputs"
    data = [s for s in steps if s[0] == "invoice_data"]
    assert len(data) == len(r.ledger) and data[-1][1] == data[-1][2] == len(r.ledger)
    assert {s[0] for s in steps} == {"plan", "invoice_data", "transactions", "pdfs", "outputs"}


def test_progress_true_shows_a_bar_per_phase(
    client: abws.Client, month: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("tqdm")
    r = abws.close_month(client, month, out=tmp_path / "o", no_pdfs=True, poll_interval=0.02, progress=True)
    assert r.complete and r.archive_path is None
    err = capsys.readouterr().err
    for phase in ("plan", "invoice_data", "transactions", "outputs"):
        assert f"close: {phase}" in err, err


def test_progress_without_tqdm_says_what_to_install(
    sb: abws.Sandbox, client: abws.Client, month: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    sb.reset_counters()
    with pytest.raises(ImportError, match=re.escape("pip install 'abws[progress]'")):
        abws.close_month(client, month, out=tmp_path / "o", plan_only=True, progress=True)
    assert not sb.counters()["requests"], "a request was sent"


def test_the_awaitable_twin(sb: abws.Sandbox, month: str, tmp_path: Path) -> None:
    async def main() -> Any:
        aclient = sb.async_client("JP", rate_limiting=False)
        return await abws.close_month(aclient, month, out=tmp_path / "a", plan_only=True)

    r = asyncio.run(main())
    assert isinstance(r, abws.CloseResult)
    assert not r.complete and r.plan.invoices > 0 and r.ledger == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_cancels_the_close_and_the_same_call_resumes_it(
    client: abws.Client, month: str, tmp_path: Path
) -> None:
    assert threading.current_thread() is threading.main_thread()
    out = tmp_path / "ctrl-c"
    with ctrl_c_after(0.5) as sent, pytest.raises(KeyboardInterrupt):
        # Polls a minute apart: without signal checks this would block for minutes.
        abws.close_month(client, month, out=out, archive_key=KEY, poll_interval=60)
    elapsed = time.monotonic() - sent["at"]
    assert elapsed < 0.5, elapsed
    # The job state kept what was done: the same close finishes only what is missing.
    r = abws.close_month(client, month, out=out, archive_key=KEY, poll_interval=0.02)
    assert r.complete and r.reports_reused > 0 and r.pdfs_filed > 0


@pytest.mark.parametrize(
    "change, param",
    [
        ({"month": "2026-13"}, "month"),
        ({"month": "2099-01"}, "month"),
        ({"archive_key": "12"}, "archive_key"),
        ({"archive_password": "pw"}, "archive_key"),  # and a key: one of the two
        ({"poll_interval": 0.0}, "poll_interval"),
        ({"region": "XX"}, "region"),
        ({"no_pdfs": "yes"}, "no_pdfs"),
        ({"pdfs_for": "INV-1"}, "pdfs_for"),
        ({"timezone": "Tokyo"}, "timezone"),
    ],
)
def test_a_bad_parameter_is_refused_before_any_request(
    sb: abws.Sandbox, client: abws.Client, month: str, tmp_path: Path, change: Any, param: str
) -> None:
    args: Any = {"month": month, "out": tmp_path / "bad", "archive_key": KEY, **change}
    sb.reset_counters()
    with pytest.raises(abws.ValidationError, match=param) as e:
        abws.close_month(client, **args)
    assert e.value.parameter == param
    assert not sb.counters()["requests"], "a request was sent for an invalid argument"


def test_a_month_counted_in_a_time_zone(client: abws.Client, month: str, tmp_path: Path) -> None:
    r = abws.close_month(client, month, out=tmp_path, timezone="Asia/Tokyo", no_pdfs=True)
    assert (r.month, r.timezone) == (month, "Asia/Tokyo")
    assert r.period_start == f"{month}-01T00:00:00+09:00" and r.period_end.endswith("23:59:59+09:00")
    assert r.ledger_path is not None and r.ledger_path.name == f"ledger-JP-{month}-Asia_Tokyo.csv"
    utc = abws.close_month(client, month, out=tmp_path, no_pdfs=True)
    assert (utc.timezone, utc.period_start) == ("UTC", f"{month}-01T00:00:00+00:00")
    assert utc.ledger_path is not None and utc.ledger_path.name == f"ledger-JP-{month}.csv"


PASSWORD = "correct horse battery staple"


def test_a_close_with_a_password_opens_with_it_alone(
    sb: abws.Sandbox, client: abws.Client, month: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``archive_password`` seals the archive under scrypt's key of it; the
    archive opens with the password alone (``abws.decrypt``, ``decrypt_file`` and ``python
    -m abws decrypt``, given or from ABWS_ARCHIVE_PASSWORD); a key or a wrong password does
    not; another password on a re-run (sync or awaitable) is refused before any request."""
    import io
    import subprocess
    import zipfile

    monkeypatch.delenv("ABWS_ARCHIVE_PASSWORD", raising=False)
    monkeypatch.delenv("ABWS_DOCUMENT_KEY", raising=False)
    out = tmp_path / "pw"
    r = abws.close_month(client, month, out=out, archive_password=PASSWORD, poll_interval=0.02)
    assert r.complete and r.pdfs_filed > 0 and r.archive_path is not None
    sealed = r.archive_path.read_bytes()
    assert sealed[:8] == b"ABWSPWD1" and PASSWORD.encode() not in sealed
    state = next(out.glob(".close-*.json")).read_text()
    assert PASSWORD not in state and '"kdf":"scrypt"' in state

    plain = abws.decrypt(sealed, password=PASSWORD)
    with zipfile.ZipFile(io.BytesIO(plain)) as z:
        assert len(z.namelist()) == r.pdfs_filed
        assert all(z.read(n).startswith(b"%PDF") for n in z.namelist())
    with pytest.raises(abws.DocumentError, match="password is wrong"):
        abws.decrypt(sealed, password=PASSWORD + "!")
    with pytest.raises(abws.ValidationError, match="ABWS_ARCHIVE_PASSWORD"):
        abws.decrypt(sealed, key=KEY)
    # The environment's password, by decrypt_file and by `python -m abws decrypt`.
    monkeypatch.setenv("ABWS_ARCHIVE_PASSWORD", PASSWORD)
    assert abws.decrypt_file(r.archive_path, tmp_path / "a.zip") == len(plain)
    assert (tmp_path / "a.zip").read_bytes() == plain
    run = subprocess.run(
        [sys.executable, "-m", "abws", "decrypt", str(r.archive_path), "-o", str(tmp_path / "b.zip")],
        capture_output=True, text=True, env={**os.environ, "ABWS_ARCHIVE_PASSWORD": PASSWORD},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "b.zip").read_bytes() == plain
    monkeypatch.delenv("ABWS_ARCHIVE_PASSWORD")

    sb.reset_counters()
    with pytest.raises(abws.ValidationError, match="fresh") as e:
        abws.close_month(client, month, out=out, archive_password="another", poll_interval=0.02)
    assert e.value.parameter == "archive_password"

    async def again(password: str) -> Any:
        aclient = sb.async_client("JP", rate_limiting=False)
        return await abws.close_month(aclient, month, out=out, archive_password=password, poll_interval=0.02)

    with pytest.raises(abws.ValidationError):
        asyncio.run(again("another"))
    assert not sb.counters()["requests"], "a request was sent for another password"
    r2 = asyncio.run(again(PASSWORD))
    assert r2.complete and r2.pdfs_filed == r.pdfs_filed and r2.reports_created == 0
