"""From Python: waits that say so (a paced wait over a second is
logged, invoice_details_for shows progress, progress=True without tqdm raises, a shared
state that cannot be used fails fast when it is required), and messages that read well (a
wrong keyword suggests the parameter meant; the request id once; no internal terms or
seed files; "missing key")."""

from __future__ import annotations

import asyncio
import logging
import re
import socket
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

import abws
from conftest import END, START, order_line
from test_shared_state import redis_server

# --- messages ---------------------------------------------------------------------------


def test_a_misspelt_keyword_names_the_parameter_meant(client: abws.Client) -> None:
    with pytest.raises(TypeError) as e:
        client.invoices.get_invoices(START, END, next_page_tokn="x")  # type: ignore[call-arg]
    assert isinstance(e.value, abws.ValidationError) and e.value.parameter == "next_page_tokn"
    assert str(e.value) == "get_invoices() has no parameter 'next_page_tokn'; did you mean 'next_page_token'?"
    # The conveniences too, and a listing.
    with pytest.raises(abws.ValidationError, match="did you mean 'progress'"):
        client.reconciliation.invoice_details_for([], progres=True)  # type: ignore[call-arg]
    with pytest.raises(abws.ValidationError, match="did you mean 'region'"):
        client.invoices.iter_invoices(START, END, regoin="JP")  # type: ignore[call-arg]


def test_a_camel_case_keyword_is_refused_with_its_snake_case_name(client: abws.Client) -> None:
    with pytest.raises(TypeError) as e:
        client.invoices.get_invoices(START, END, nextPageToken="x")  # type: ignore[call-arg]
    assert str(e.value) == (
        "get_invoices() has no parameter 'nextPageToken'; parameters are snake_case: "
        "did you mean 'next_page_token'?"
    )


def test_the_async_client_suggests_the_parameter_too(sb: abws.Sandbox) -> None:
    aclient = sb.async_client("JP", rate_limiting=False)
    with pytest.raises(abws.ValidationError, match="did you mean 'region'") as e:
        asyncio.run(aclient.invoices.get_invoices(START, END, regoin="JP"))  # type: ignore[call-arg]
    assert isinstance(e.value, TypeError)
    # A right call still works through the check.
    page = asyncio.run(aclient.invoices.get_invoices(START, END))
    assert page.invoices is not None


def test_an_unknown_outcome_names_its_request_id_once(sb: abws.Sandbox, client: abws.Client, offer: Any) -> None:
    sb.fail("placeOrder", 500, times=1)
    with pytest.raises(abws.OutcomeUnknown) as e:
        client.ordering.place_order("py-msg-once-1", [order_line(*offer)], attributes=[], expectations=[])
    text = str(e.value)
    assert e.value.request_id and text.count(e.value.request_id) == 1, text
    assert text.count("request id") == 1 and text.count("[placeOrder]") == 1, text


def test_the_retry_log_says_what_happened_in_plain_words(sb: abws.Sandbox, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="abws"):
        client = sb.client("JP", rate_limiting=False)  # built here: it logs at INFO
        sb.fail("getInvoices", 429, times=1)
        client.invoices.get_invoices(START, END)
    retries = [r.getMessage() for r in caplog.records if "retrying in" in r.getMessage()]
    assert retries, [r.getMessage() for r in caplog.records]
    assert "getInvoices: attempt 1 of 3: the service refused the request before processing it (HTTP 429" in retries[0]
    assert not any("RejectedBeforeProcessing" in r.getMessage() for r in caplog.records)


def test_a_path_without_a_key_says_the_key_is_missing(
    client: abws.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ABWS_DOCUMENT_KEY", raising=False)
    with pytest.raises(abws.ValidationError) as e:
        client.documents.download_to("doc-1", tmp_path / "x.pdf")
    assert e.value.parameter == "key"
    assert str(e.value).startswith("missing key: a document written to a path is encrypted"), str(e.value)
    assert "is needed" not in str(e.value)


def test_the_user_documentation_cites_no_seed_file() -> None:
    # The installed package (docstrings, stubs) and the user guides and C headers of the
    # checkout: our specification's file names mean nothing to a user.
    root = Path(__file__).resolve().parents[2]
    files = sorted(Path(abws.__file__).parent.glob("*.py*")) + [
        root / "README.md", root / "docs/python-api.md", root / "docs/c-api.md", root / "docs/sandbox.md",
        root / "docs/configuration.md", root / "docs/cli.md", root / "docs/install.md", root / "docs/testing.md",
        root / "include/abws.h", root / "include/abws.hpp", root / "examples/month_end_close.py",
    ]
    for f in files:
        found = re.findall(r"seed \d{3}", f.read_text(encoding="utf-8"))
        assert not found, f"{f} cites {found}: say what the service does instead"


# --- visible waits ------------------------------------------------------------------------

OP = "getInvoiceDetailByInvoiceNumber"


def test_a_paced_wait_over_a_second_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    with abws.Sandbox(rate_limits="spec", today="2026-03-18") as sb:
        sb.set_rate(OP, 0.5, 1)  # learned from the first answer: a slot every 2 s
        numbers = sb.dataset()["previousMonthInvoices"]
        with caplog.at_level(logging.INFO, logger="abws"):
            client = sb.client("JP")
            for n in numbers[:3]:
                client.invoices.get_invoice_detail_by_invoice_number(n)
    waits = [r for r in caplog.records if "for the rate limit" in r.getMessage()]
    assert waits, [r.getMessage() for r in caplog.records]
    text = waits[0].getMessage()
    assert waits[0].levelno == logging.INFO
    m = re.match(rf"{OP}: waited (\d+\.\d) s for the rate limit \(bucket {OP} of region group FE, ", text)
    assert m and 1.0 < float(m.group(1)) < 4.0, text


def _line_items(client: abws.Client) -> Any:
    return [li for tx in client.reconciliation.iter_transactions(START, END) for li in tx.transaction_line_items or []]


def test_invoice_details_for_shows_progress(client: abws.Client, sb: abws.Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    items = _line_items(client)
    assert len(items) > 25
    capsys.readouterr()
    out = client.reconciliation.invoice_details_for(items, progress=True)
    assert len(out) == len(items)
    err = capsys.readouterr().err
    assert "invoice_details_for" in err and f"{len(items)}/{len(items)}" in err, err
    aclient = sb.async_client("JP", rate_limiting=False)
    assert len(asyncio.run(aclient.reconciliation.invoice_details_for(items, progress=True))) == len(items)
    err = capsys.readouterr().err
    assert "invoice_details_for" in err and f"{len(items)}/{len(items)}" in err, err


def test_progress_without_tqdm_says_what_to_install(
    client: abws.Client, line_item: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    with pytest.raises(ImportError, match=re.escape("pip install 'abws[progress]'")):
        client.invoices.iter_invoices(START, END, progress=True)
    with pytest.raises(ImportError, match=re.escape("pip install 'abws[progress]'")):
        client.reconciliation.invoice_details_for([line_item], progress=True)
    # Without progress, nothing changes.
    assert len(client.reconciliation.invoice_details_for([line_item])) == 1


# --- shared_state_required ---------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture()
def redis_with_password() -> Iterator[int]:
    """A real redis-server on a free loopback port, with the password `right-pw`."""
    with redis_server("--requirepass", "right-pw") as port:
        yield port


def test_shared_state_required_fails_fast_on_a_wrong_password(sb: abws.Sandbox, redis_with_password: int) -> None:
    wrong = f"redis://:wrong-pw@127.0.0.1:{redis_with_password}/0"
    with pytest.raises(abws.ValidationError) as e:
        sb.client("JP", shared_state=wrong, shared_state_required=True)
    assert e.value.parameter == "shared_state"
    assert "password" in str(e.value) and "wrong-pw" not in str(e.value), str(e.value)
    with pytest.raises(abws.ValidationError, match="password"):
        sb.async_client("JP", shared_state=wrong, shared_state_required=True)
    # Not required: built, and the check says what is wrong.
    lenient = sb.client("JP", shared_state=wrong)
    with pytest.raises(abws.ValidationError, match="password"):
        lenient.check_shared_state()


def test_shared_state_required_fails_fast_when_redis_is_unreachable(sb: abws.Sandbox) -> None:
    nowhere = f"redis://127.0.0.1:{_free_port()}/0"
    start = time.monotonic()
    with pytest.raises(abws.TransportError, match="unreachable"):
        sb.client("JP", shared_state=nowhere, shared_state_required=True)
    assert time.monotonic() - start < 5


def test_a_working_shared_state_passes_the_check(sb: abws.Sandbox, redis_with_password: int) -> None:
    right = f"redis://:right-pw@127.0.0.1:{redis_with_password}/0"
    client = sb.client("JP", shared_state=right, shared_state_required=True, rate_limiting=False)
    assert client.settings["shared_state_required"] is True
    client.check_shared_state()  # raises when the shared state cannot be used
    assert client.invoices.get_invoices(START, END).invoices is not None
    aclient = sb.async_client("JP", shared_state=right, shared_state_required=True)
    asyncio.run(aclient.check_shared_state())
