"""Result objects: attributes, wire form, equality, reprs, pickling, exact money, aware
date-times, unknown fields, pandas, conversion speed."""

from __future__ import annotations

import copy
import json
import pickle
import time
from datetime import datetime, timedelta
from decimal import Decimal

import pytest

import abws
from conftest import END, START


def test_attributes_money_and_datetimes(client):
    tx = client.reconciliation.get_transactions(START, END).transactions[0]
    assert isinstance(tx, abws.Model)
    assert isinstance(tx.amount, abws.Money)
    assert isinstance(tx.amount.amount, Decimal) and tx.amount.currency_code == "JPY"
    assert isinstance(tx.transaction_date, datetime) and tx.transaction_date.utcoffset() == timedelta(0)
    assert isinstance(tx.transaction_type, str)
    with pytest.raises(AttributeError):
        tx.no_such_field


def test_to_dict_is_the_wire_form(client):
    tx = client.reconciliation.get_transactions(START, END).transactions[0]
    wire = tx.to_dict()
    assert "transactionDate" in wire and "transaction_date" not in wire
    # date-times keep their wire text; string amounts stay strings with their scale
    assert isinstance(wire["transactionDate"], str) and wire["transactionDate"].endswith("Z")
    assert isinstance(wire["amount"]["amount"], str)
    json.dumps(wire, default=str)  # JSON-ready
    numeric = client.cart.get_cart("cart-0001").attributes[0].amount.to_dict()
    assert isinstance(numeric["amount"], Decimal)


def test_date_times_come_back_in_their_wire_text(sb, client):
    """Only a date-time the canonical rendering would change keeps its received text."""
    tx = client.reconciliation.get_transactions(START, END).transactions[0].to_dict()
    styles = ["2026-07-06T05:23:00Z", "2026-07-06T05:23:00+00:00", "2026-07-06T05:23:00.120Z",
              "2026-07-06T14:23:00+09:00", "2026-07-06T05:23:00.123456789Z"]
    body = {"transactions": [dict(tx, transactionDate=s) for s in styles]}
    sb.fail("getTransactions", action={"status": 200, "body": body}, times=1)
    got = client.reconciliation.get_transactions(START, END).transactions
    assert [t.to_dict()["transactionDate"] for t in got] == styles
    assert got[0].transaction_date == got[1].transaction_date
    assert got[3].transaction_date.utcoffset() == timedelta(hours=9)
    # the wire text is kept apart only where the canonical rendering differs
    assert [("transaction_date" in t.__dict__.get("_wire", {})) for t in got] == [False, True, True, False, True]


def test_negative_zero_keeps_its_sign(sb, client):
    tx = client.reconciliation.get_transactions(START, END).transactions[0].to_dict()
    tx["amount"] = {"currencyCode": "JPY", "amount": "-0.00"}
    sb.fail("getTransactions", action={"status": 200, "body": {"transactions": [tx]}}, times=1)
    got = client.reconciliation.get_transactions(START, END).transactions[0]
    assert str(got.amount.amount) == "-0.00" and got.amount.amount.is_signed()
    assert got.to_dict()["amount"] == {"currencyCode": "JPY", "amount": "-0.00"}


def test_results_stay_out_of_the_cyclic_gc(client):
    """A result is a tree: its objects are not tracked, so big pages cost no GC passes."""
    import gc

    page = client.reconciliation.get_transactions(START, END)
    tx = page.transactions[0]
    assert not gc.is_tracked(page) and not gc.is_tracked(page.transactions)
    assert not gc.is_tracked(tx) and not gc.is_tracked(tx.__dict__) and not gc.is_tracked(tx.amount)
    tx.note = [1]  # the user's own additions are tracked as usual
    assert gc.is_tracked(tx.__dict__)


def test_repeated_values_are_one_object(client):
    """A page's repeated immutable values (currency, marketplace, a feed date) are shared,
    not made once per field: a big page holds ~40 % less memory for it (B2)."""
    txs = client.reconciliation.get_transactions(START, END).transactions
    a, b = txs[0], txs[1]
    assert a.marketplace_id == b.marketplace_id and a.marketplace_id is b.marketplace_id
    assert a.amount.currency_code is b.amount.currency_code
    same_day = [t.feed_date for t in txs if t.feed_date == a.feed_date]
    assert all(d is a.feed_date for d in same_day)
    # each transaction still has its own mutable objects
    assert a.amount is not b.amount and a.transaction_line_items is not b.transaction_line_items
    assert len({t.transaction_id for t in txs}) == len(txs)


def test_unknown_fields_are_kept(client, sb):
    number = client.invoices.get_invoices(START, END).invoices[0].invoice_metadata.invoice_number
    # a field this version does not declare (the sandbox sends none: docs/sandbox.md)
    body = {"lineItems": [{"invoiceNumber": number, "transactionType": "CHARGE",
                           "amountDetails": {"total": {"currencyCode": "JPY", "amount": 1100}}}]}
    sb.fail("getInvoiceLineItemsByInvoiceNumber", action={"status": 200, "body": body}, times=1)
    line = client.invoices.get_invoice_line_items_by_invoice_number(number).line_items[0]
    assert "amountDetails" in line.extra
    assert line.amount_details == line.extra["amountDetails"]
    assert line.to_dict()["amountDetails"] == line.extra["amountDetails"]
    assert "amountDetails" in repr(line)


def test_equality_repr_html_and_pickle(client):
    a = client.invoices.get_invoices(START, END).invoices
    b = client.invoices.get_invoices(START, END).invoices
    assert a == b and a[0] != a[1]
    text = repr(a[0])
    assert text.startswith("InvoiceSummary(") and "invoice_metadata=" in text
    html = a[0]._repr_html_()
    assert html.startswith("<table>") and "InvoiceSummary" in html
    detail = client.invoices.get_invoice_detail_by_invoice_number(a[0].invoice_metadata.invoice_number)
    back = pickle.loads(pickle.dumps(detail))
    assert back == detail and type(back) is type(detail)
    assert back.to_dict() == detail.to_dict()
    assert copy.deepcopy(detail) == detail


def test_money_value_type():
    m = abws.Money(Decimal("12.30"), "JPY")
    assert m == abws.Money("12.30", "JPY") and hash(m) == hash(abws.Money("12.30", "JPY"))
    assert m.to_dict() == {"currencyCode": "JPY", "amount": Decimal("12.30")}
    assert pickle.loads(pickle.dumps(m)) == m
    assert str(m) == "12.30 JPY"


def test_money_is_a_slotted_value(client):
    """A Money holds its four slots and no `__dict__`, made by `Money()` or by the
    extension; the wire form it came in survives a copy and a pickle."""
    from abws._model_base import _STRING_FORM

    tx = client.reconciliation.get_transactions(START, END).transactions[0]
    made, built = abws.Money(Decimal("1.5"), "JPY", _flags=_STRING_FORM), tx.amount
    assert abws.Money.__slots__ == ("amount", "currency_code", "_flags", "_extra")
    for m in (made, built):
        assert not hasattr(m, "__dict__")
        with pytest.raises(AttributeError):
            m.note = "x"  # type: ignore[attr-defined]
        assert m._flags == _STRING_FORM and isinstance(m.to_dict()["amount"], str)
        for back in (pickle.loads(pickle.dumps(m)), copy.copy(m), copy.deepcopy(m)):
            assert back == m and back.to_dict() == m.to_dict() and back._flags == _STRING_FORM
    numeric = client.cart.get_cart("cart-0001").attributes[0].amount
    assert numeric._flags == 0 and isinstance(numeric.to_dict()["amount"], Decimal)
    assert abws.Money(1)._flags == 0


def test_money_is_immutable(client):
    """A Money is a value, like the Decimal it holds: no attribute can be set or deleted
    (so a Money in a set or a dict key stays findable), made by `Money()` or by the
    extension; equality, hashing, pickling and copies are unchanged."""
    built = client.reconciliation.get_transactions(START, END).transactions[0].amount
    made = abws.Money(Decimal("10.00"), "JPY")
    for m in (made, built):
        before = (m.amount, m.currency_code, m.to_dict())
        s = {m}
        for name in ("amount", "currency_code", "_flags", "_extra", "note"):
            with pytest.raises(AttributeError, match="immutable"):
                setattr(m, name, Decimal("99"))
            with pytest.raises(AttributeError, match="immutable"):
                delattr(m, name)
        assert (m.amount, m.currency_code, m.to_dict()) == before
        assert m in s and hash(m) == hash(abws.Money(m.amount, m.currency_code))
        for back in (pickle.loads(pickle.dumps(m)), copy.copy(m), copy.deepcopy(m)):
            assert back == m and hash(back) == hash(m) and back in s
            with pytest.raises(AttributeError):
                back.amount = Decimal("1")  # type: ignore[misc]
    assert {abws.Money("1.50", "USD"): 1}[abws.Money(Decimal("1.5"), "USD")] == 1


def test_money_keeps_nulls_and_unknown_fields():
    """A Money without an amount, a null that came and unknown fields survive
    `to_dict()`, pickling and copies (an older pickle's bool third argument still reads
    as the string form)."""
    from abws._model_base import _NULL_AMOUNT, _NULL_CURRENCY, _STRING_FORM

    m = abws.Money(None, None, _NULL_AMOUNT | _NULL_CURRENCY, {"formatted": "$1.50"})
    assert m.amount is None and m.currency_code is None
    assert m.to_dict() == {"currencyCode": None, "amount": None, "formatted": "$1.50"}
    assert m.extra == {"formatted": "$1.50"} and str(m) == "null" and repr(m) == "Money(None, None)"
    for back in (pickle.loads(pickle.dumps(m)), copy.copy(m), copy.deepcopy(m)):
        assert back.to_dict() == m.to_dict() and back == m
    assert abws.Money("1.5", "JPY").to_dict() == {"currencyCode": "JPY", "amount": Decimal("1.5")}
    assert abws.Money(None).to_dict() == {}
    old = abws.Money("2.0", "JPY", True)
    assert old._flags == _STRING_FORM and old.to_dict()["amount"] == "2.0"


def test_large_page_converts_quickly(sb, client):
    """A 10,000-transaction page (34 MB, served by a sandbox fault) arrives as objects
    within a small multiple of the time Python's own json.loads needs for its text."""
    tx = client.reconciliation.get_transactions(START, END).transactions[0].to_dict()
    text = json.dumps({"transactions": [tx] * 10_000}, default=str)
    start = time.perf_counter()
    body = json.loads(text, parse_float=Decimal)
    baseline = time.perf_counter() - start
    sb.fail("getTransactions", action={"status": 200, "body": body}, times=1)
    start = time.perf_counter()
    page = client.reconciliation.get_transactions(START, END)
    elapsed = time.perf_counter() - start
    assert len(page.transactions) == 10_000
    assert page.transactions[-1].amount.amount == Decimal(tx["amount"]["amount"])
    assert page.transactions[-1] == page.transactions[0]
    if not abws._abws._debug_build:  # timings mean nothing in a debug build
        assert elapsed < max(3.0, 8 * baseline), (elapsed, baseline)


def test_to_pandas(client):
    pd = pytest.importorskip("pandas")
    txs = list(client.reconciliation.iter_transactions(START, END))
    df = abws.to_pandas(txs)
    assert isinstance(df, pd.DataFrame) and len(df) == len(txs)
    assert "amount.amount" in df.columns and "amount.currency_code" in df.columns


def test_to_pandas_gives_a_missing_nested_object_its_columns_only():
    import pandas as pd

    from abws.models import CartItem

    with_tax = CartItem(item_id="1", price=abws.Money(Decimal("10.00"), "JPY"),
                        tax_exclusive_price=abws.Money(Decimal("9.09"), "JPY"))
    without = CartItem(item_id="2", price=abws.Money(Decimal("5.00"), "JPY"), tax_exclusive_price=None)
    df = abws.to_pandas([with_tax, without])
    assert "tax_exclusive_price" not in df.columns, list(df.columns)
    assert df["tax_exclusive_price.amount"][0] == Decimal("9.09")
    assert pd.isna(df["tax_exclusive_price.amount"][1])
    alone = abws.to_pandas([without])  # no row has the object: its one column stays
    assert "tax_exclusive_price" in alone.columns


def test_to_pandas_without_pandas_says_so(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake(name, *a, **k):
        if name == "pandas":
            raise ImportError("no pandas")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(ImportError, match="pandas"):
        abws.to_pandas([])


# --- generated classes ----------------------------------------------------------------


def test_results_are_instances_of_the_generated_classes(client):
    from abws import models

    page = client.invoices.get_invoices(START, END)
    assert type(page) is models.InvoicesPage and type(page).__module__ == "abws.models"
    summary = page.invoices[0]
    assert isinstance(summary, models.InvoiceSummary) and isinstance(summary, abws.Model)
    assert models.InvoiceMetadata.__annotations__["type"] == "Optional[str]"
    assert "invoice_type" not in dir(summary.invoice_metadata)
    assert pickle.loads(pickle.dumps(page)) == page


def test_type_is_type(client):
    """The spec's `type` fields are `.type` (not invoice_type, amount_type, charge_type)."""
    meta = client.invoices.get_invoices(START, END).invoices[0].invoice_metadata
    assert meta.type in ("STANDARD", "CREDIT_MEMO") and meta.to_dict()["type"] == meta.type
    detail = client.invoices.get_invoice_detail_by_invoice_number(meta.invoice_number)
    billing = next(a for a in detail.artifacts if getattr(a, "artifact_type", None) == "BillingDetails")
    assert billing.amount_details and all(isinstance(d.type, str) for d in billing.amount_details)
    assert billing.amount_details[0].to_dict()["type"] == billing.amount_details[0].type


def test_explicit_nulls_come_back_as_null_and_absent_stays_absent(sb, client, offer):
    """The service sends declared fields as null (docs/decisions/003-unknown-fields.md)."""
    asin, _ = offer
    real = client.products.search_offers_request(asin, "JP", "ja-JP")
    body = real.to_dict()
    first = body["offers"][0]
    first["quantityInStock"] = None
    first["condition"] = None
    first["badges"] = None
    first["merchant"] = dict(first.get("merchant") or {}, merchantId=None)
    first.pop("deliveryInformation", None)
    first.pop("productConditionNote", None)
    sb.fail("searchOffersRequest", action={"status": 200, "body": json.loads(json.dumps(body, default=str))},
            times=1)
    got = client.products.search_offers_request(asin, "JP", "ja-JP")
    o = got.offers[0]
    assert o.quantity_in_stock is None and o.condition is None and o.badges is None
    assert o.merchant.merchant_id is None
    wire = o.to_dict()
    for key in ("quantityInStock", "condition", "badges"):
        assert key in wire and wire[key] is None, key
    assert "merchantId" in wire["merchant"] and wire["merchant"]["merchantId"] is None
    assert "deliveryInformation" not in wire and "productConditionNote" not in wire
    # null and absent differ, and the difference survives pickling
    assert pickle.loads(pickle.dumps(o)).to_dict() == wire
    assert o != real.offers[0]
    # the other offers had no nulls: their wire form is unchanged
    def text(offers):
        return json.dumps([x.to_dict() for x in offers], default=str)

    assert text(got.offers[1:]) == text(real.offers[1:])


def test_a_null_list_element_is_none_and_not_an_item(sb, client):
    """A `null` inside a list reads as `None` and goes back as `null`; a
    listing's items are the elements that are not `null` (as the core's pagers give them)."""
    body = {"products": [None, {"asin": "B01", "features": [None, "Light"], "upcValues": [None]}],
            "numberOfPages": 1}
    sb.fail("searchProductsRequest", action={"status": 200, "body": body}, times=2)
    page = client.products.search_products_request(product_region="JP", locale="ja-JP")
    assert page.products[0] is None and page.products[1].features == [None, "Light"]
    assert page.products[1].upc_values == [None]
    assert page.to_dict() == body
    items = list(client.products.iter_search_products(product_region="JP", locale="ja-JP"))
    assert [p.asin for p in items] == ["B01"]
