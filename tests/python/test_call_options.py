"""Per-call options (``timeout=``, ``max_attempts=`` on every operation method),
``Listing.to_pandas()`` and a listing resumed from a saved cursor (``next_token``,
``start_token=``), against the shared sandbox over loopback."""

from __future__ import annotations

import builtins
import math
import time
from decimal import Decimal
from typing import Any

import pytest

import abws
from abws.models import Transaction
from conftest import END, START


def _requests(sb: abws.Sandbox, op: str) -> int:
    return sum(sb.counters()["requests"].get(op, {}).values())


def test_max_attempts_of_one_call_replaces_the_clients(sb, client):
    before = _requests(sb, "getInvoices")
    sb.fail("getInvoices", 503, times=2)
    with pytest.raises(abws.ServerError):
        client.invoices.get_invoices(START, END, max_attempts=1)
    assert _requests(sb, "getInvoices") == before + 1
    # The client's own three attempts are untouched: the second 503, then the page.
    client.invoices.get_invoices(START, END)
    assert _requests(sb, "getInvoices") == before + 3


def test_timeout_of_one_call_bounds_it_whole(sb, client):
    sb.fail("getInvoices", delay_ms=3000)
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        client.invoices.get_invoices(START, END, timeout=0.5)
    assert time.monotonic() - started < 2.0
    listing = client.invoices.iter_invoices(START, END, timeout=0.5)
    started = time.monotonic()
    with pytest.raises(abws.Error) as e:
        next(listing)
    assert isinstance(e.value, TimeoutError), repr(e.value)
    assert time.monotonic() - started < 2.0


@pytest.mark.parametrize(
    "options, name",
    [
        ({"timeout": 0}, "timeout"),
        ({"timeout": -1.0}, "timeout"),
        ({"timeout": math.nan}, "timeout"),
        ({"timeout": math.inf}, "timeout"),
        ({"max_attempts": 0}, "max_attempts"),
        ({"max_attempts": 11}, "max_attempts"),
    ],
)
def test_bad_options_name_the_parameter_before_any_request(sb, client, options: Any, name: str):
    before = _requests(sb, "getTransactions")
    with pytest.raises(abws.ValidationError, match=name):
        client.reconciliation.get_transactions(START, END, **options)
    with pytest.raises(abws.ValidationError, match=name):
        client.reconciliation.iter_transactions(START, END, **options)
    assert _requests(sb, "getTransactions") == before


@pytest.mark.asyncio
async def test_async_methods_take_the_options_too(sb):
    aclient = sb.async_client("JP", rate_limiting=False)
    before = _requests(sb, "getInvoices")
    sb.fail("getInvoices", 503, times=1)
    with pytest.raises(abws.ServerError):
        await aclient.invoices.get_invoices(START, END, max_attempts=1)
    assert _requests(sb, "getInvoices") == before + 1
    with pytest.raises(abws.ValidationError, match="timeout"):
        await aclient.invoices.get_invoices(START, END, timeout=0)


def test_a_listing_resumes_in_a_new_client_from_its_next_token(sb, client):
    everything = list(client.reconciliation.iter_transactions(START, END))
    listing = client.reconciliation.iter_transactions(START, END)
    assert listing.next_token is None
    first = next(listing.pages())
    token = listing.next_token
    assert token is not None
    seen = len([t for t in first.transactions if t is not None])
    assert 0 < seen < len(everything)
    del listing

    fresh = sb.client("JP", rate_limiting=False)
    rest = fresh.reconciliation.iter_transactions(START, END, start_token=token)
    assert list(rest) == everything[seen:]
    assert rest.next_token is None


@pytest.mark.asyncio
async def test_an_async_listing_resumes_from_its_next_token(sb, client):
    everything = list(client.reconciliation.iter_transactions(START, END))
    aclient = sb.async_client("JP", rate_limiting=False)
    listing = aclient.reconciliation.iter_transactions(START, END)
    async for page in listing.pages():
        seen = len([t for t in page.transactions if t is not None])
        break
    rest = [t async for t in aclient.reconciliation.iter_transactions(START, END, start_token=listing.next_token)]
    assert rest == everything[seen:]


def test_start_token_where_it_cannot_resume_is_refused(client):
    with pytest.raises(abws.ValidationError, match="start_token"):
        client.reconciliation.iter_transactions(START, END, next_page_token="abc", start_token="abc")


def test_listing_to_pandas(client):
    pd = pytest.importorskip("pandas")
    items = list(client.reconciliation.iter_transactions(START, END))
    df = client.reconciliation.iter_transactions(START, END).to_pandas()
    assert isinstance(df, pd.DataFrame) and len(df) == len(items)
    fields = [name for name, _ in Transaction._fields]
    # A column per field, in the model's order (a nested one as its dotted columns).
    heads = list(dict.fromkeys(str(c).split(".")[0] for c in df.columns))
    assert heads[: len(fields)] == fields, heads
    assert df["amount.amount"].dtype == object
    assert all(isinstance(v, Decimal) for v in df["amount.amount"]), df["amount.amount"].head()
    assert list(df["amount.amount"]) == [t.amount.amount for t in items]
    assert list(df["transaction_id"]) == [t.transaction_id for t in items]


@pytest.mark.asyncio
async def test_async_listing_to_pandas(sb):
    pytest.importorskip("pandas")
    aclient = sb.async_client("JP", rate_limiting=False)
    df = await aclient.reconciliation.iter_transactions(START, END).to_pandas()
    assert len(df) > 0 and isinstance(df["amount.amount"][0], Decimal)


def test_listing_to_pandas_without_pandas_says_what_to_install(sb, client, monkeypatch):
    real_import = builtins.__import__

    def no_pandas(name: str, *a: Any, **k: Any) -> Any:
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("No module named 'pandas'")
        return real_import(name, *a, **k)

    listing = client.reconciliation.iter_transactions(START, END)
    before = _requests(sb, "getTransactions")
    monkeypatch.setattr(builtins, "__import__", no_pandas)
    with pytest.raises(ImportError, match=r"pip install 'abws\[pandas\]'"):
        listing.to_pandas()
    assert _requests(sb, "getTransactions") == before, "no page fetched"
