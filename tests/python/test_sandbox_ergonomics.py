"""The sandbox as a notebook user meets it: report waits that
follow its clock, ``sb.now()``, fault rules that can fire, and unknown numbers kept exact."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any, Dict

import pytest

import abws
from conftest import order_line


def _pdf_line(client: abws.Client) -> Dict[str, str]:
    """A charged JP order line of the last 60 days (its invoice PDF exists)."""
    now = datetime.now(timezone.utc)
    txs = client.reconciliation.get_transactions(now - timedelta(days=60), now - timedelta(days=1)).transactions
    line = next(t for t in txs if t.transaction_type == "CHARGE").transaction_line_items[0]
    return {"order_id": line.order_id, "order_line_item_id": line.order_line_item_id}


def test_fetch_pdf_with_the_readme_defaults_takes_at_most_two_seconds() -> None:
    # The README's quick start: abws.Sandbox(rate_limits="off"), time_scale 1. The spec's
    # 15 s between polls made this 45 s; the sandbox's Retry-After sets the interval.
    with abws.Sandbox(rate_limits="off") as sb:
        client = sb.client(region="JP", rate_limiting=False)
        started = time.monotonic()
        pdf = client.documents.fetch_pdf(**_pdf_line(client), document_type="Invoice")
        took = time.monotonic() - started
    assert pdf.startswith(b"%PDF-")
    assert took <= 2.0, took


def test_wait_for_report_at_time_scale_60_takes_about_a_second() -> None:
    with abws.Sandbox(time_scale=60, rate_limits="off") as sb:
        client = sb.client(region="JP", rate_limiting=False)
        created = client.documents.create_report({**_pdf_line(client), "document_type": "Invoice"})
        started = time.monotonic()
        report = client.documents.wait_for_report(created.report_id)
        took = time.monotonic() - started
    assert report.processing_status == "DONE"
    assert took < 1.5, took


def test_an_order_placed_now_is_in_the_last_30_days_of_the_wall_clock(offer: Any) -> None:
    asin, offer_id = offer
    with abws.Sandbox(time_scale=60, rate_limits="off") as sb:
        client = sb.client(region="JP", rate_limiting=False)
        time.sleep(1)  # a minute of the sandbox's scaled time
        result = client.ordering.place_order("py-now-1", [order_line(asin, offer_id)], attributes=[], expectations=[])
        order_id = next(
            a.identifier for a in result.acceptance_artifacts if a.acceptance_artifact_type == "OrderIdentifier"
        )
        now = sb.now()
        wall = datetime.now(timezone.utc)
        assert now.tzinfo is not None and now <= wall, (now, wall)
        for end in (wall, now):
            page = client.reporting.get_shipment_line_item_reports(end - timedelta(days=30), end, order_ids=[order_id])
            assert [r.order_metadata.order_id for r in page.shipment_line_items_report] == [order_id], end


def test_now_of_a_pinned_day_starts_at_its_noon() -> None:
    with abws.Sandbox(today="2026-03-18", time_scale=60, rate_limits="off") as sb:
        now = sb.now()
    noon = datetime(2026, 3, 18, 12, tzinfo=timezone.utc)
    assert noon <= now < noon + timedelta(minutes=10), now


def test_a_fault_for_an_unknown_operation_is_refused_with_the_names(sb: abws.Sandbox) -> None:
    with pytest.raises(abws.ValidationError) as e:
        sb.fail("getInvoice", status=503)
    assert e.value.parameter == "path"
    message = str(e.value)
    assert '"getInvoice" is not an operationId' in message, message
    assert "getInvoices, getInvoiceDetailByInvoiceNumber" in message, message
    sb.fail("getInvoices", status=503, times=0)  # a real one is taken


def test_unknown_numbers_in_extra_are_exact_decimals(sb: abws.Sandbox, client: abws.Client) -> None:
    # As text: json.dumps of a dict would write 0.10 as 0.1 before the sandbox sent it.
    body = (
        '{"transactions": [{"transactionId": "T-1", '
        '"amount": {"currencyCode": "JPY", "amount": 1750, "amountInclusive": 1925}, '
        '"yenRounding": 1750, "rate": 0.10, "big": 12345678901234567.12}]}'
    )
    sb.fail("getTransactions", action={"status": 200, "body": body}, times=1)
    tx = client.reconciliation.get_transactions("2026-02-01", "2026-02-28T23:59:59Z").transactions[0]
    for key, text in (("yenRounding", "1750"), ("rate", "0.10"), ("big", "12345678901234567.12")):
        value = tx.extra[key]
        assert type(value) is Decimal and str(value) == text, (key, value)
    inclusive = tx.amount.extra["amountInclusive"]
    assert type(inclusive) is Decimal and inclusive == 1925
    assert tx.to_dict()["yenRounding"] == Decimal(1750)
