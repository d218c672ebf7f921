"""The wheel's ``abws`` console script (the extension's ``run_cli``): with the ``ABWS_*``
variables of ``abws sandbox``, ``abws invoices get-invoices ... --output csv`` prints a
header and a row per invoice, the same invoices the Python client lists."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterator

import pytest

import abws

ABWS = Path(sys.executable).parent / ("abws.exe" if os.name == "nt" else "abws")


@pytest.fixture()
def sandbox_env() -> Iterator[Dict[str, str]]:
    """``abws sandbox``, its one JSON line turned into the ``ABWS_*`` variables."""
    proc = subprocess.Popen(
        [str(ABWS), "sandbox", "--region", "JP", "--rate-limits", "off", "--today", "2026-11-15"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        settings = json.loads(proc.stdout.readline())
        env = dict(os.environ)
        env.update({f"ABWS_{k.upper()}": v for k, v in settings.items()})
        yield env
    finally:
        assert proc.stdin is not None
        proc.stdin.close()  # the sandbox stops when its standard input closes
        assert proc.wait(timeout=10) == 0


def test_the_console_script_prints_a_csv_row_per_invoice(
    sandbox_env: Dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["--invoice-issue-start-date", "2026-10-01", "--invoice-issue-end-date", "2026-10-31"]
    out = subprocess.run(
        [str(ABWS), "--output", "csv", "invoices", "get-invoices", *args],
        env=sandbox_env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    for k, v in sandbox_env.items():
        if k.startswith("ABWS_"):
            monkeypatch.setenv(k, v)
    page = abws.Client.from_env().invoices.get_invoices("2026-10-01", "2026-10-31")
    expected = [i.invoice_metadata.invoice_number for i in page.invoices]
    assert expected, "October has invoices"
    assert [r["invoice_metadata.invoice_number"] for r in rows] == expected
    assert all(r["invoice_metadata.issue_date"].startswith("2026-10") for r in rows)


def test_an_invalid_argument_exits_2_with_the_library_message(sandbox_env: Dict[str, str]) -> None:
    out = subprocess.run(
        [str(ABWS), "invoices", "get-invoices", "--invoice-issue-start-date", "2026-10-31",
         "--invoice-issue-end-date", "2026-10-01"],
        env=sandbox_env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 2
    assert "invoice_issue_start_date" in out.stderr
