"""Results built straight from the JSON answer (bindings-python/src/from_json.rs, the one
builder of Python results: it reads the answers, and the results the core makes itself as
their wire JSON).

These tests feed it the answers that make its rules work: explicit nulls, unknown fields,
escaped strings, repeated keys, amounts as strings and numbers, negative zero, date-times
Python writes back differently, unsorted map keys, one-ofs it reads in a second pass, and
values the core refuses (the core's error). A debug build of the extension (the tests')
fails a call whose answer the builder refuses but the core reads; test_same_json.py
compares every operation's result with the core's own JSON of it (the C library).
"""

from __future__ import annotations

import pickle
from decimal import Decimal
from typing import Any

import pytest

import abws
from conftest import END, START


def canned(sb: abws.Sandbox, body: str, op: str = "getTransactions") -> None:
    """The next answer of `op` is `body`, sent as it is written."""
    sb.fail(op, action={"status": 200, "body": body}, times=1)


def test_pages_are_built_from_the_json(client: abws.Client) -> None:
    page = client.reconciliation.get_transactions(START, END)
    invoices = client.invoices.get_invoices(START, END, region="JP")
    carts = client.cart.list_carts()
    assert page.transactions and invoices.invoices and carts.cart_details_list


def test_a_result_held_in_a_field_is_built_from_the_json(client: abws.Client, sb: abws.Sandbox) -> None:
    """getInvoiceDetailByInvoiceNumber answers `{"invoiceDetail": {...}}`: the result is
    taken from the body built; without the field, the decoded answer's error."""
    number = client.invoices.get_invoices(START, END, region="JP").invoices[0].invoice_metadata.invoice_number
    detail = client.invoices.get_invoice_detail_by_invoice_number(number)
    assert type(detail).__name__ == "InvoiceDetail"
    assert detail.invoice_metadata.invoice_number == number
    canned(sb, '{"invoiceDetail": null, "other": 1}', op="getInvoiceDetailByInvoiceNumber")
    with pytest.raises(abws.Error, match="getInvoiceDetailByInvoiceNumber answered without invoiceDetail"):
        client.invoices.get_invoice_detail_by_invoice_number(number)


def detail_with(artifacts: str) -> str:
    """An invoiceDetail answer whose artifacts are `artifacts` (a JSON list's items)."""
    return '{"invoiceDetail": {"paymentMethod": "Invoice", "artifacts": [%s]}}' % artifacts


BILLING = '{"amountDetails": [{"type": "amountDue", "amount": {"currencyCode": "JPY", "amount": 1100}}], "artifactType": "BillingDetails"}'


def test_artifacts_are_built_in_one_pass_whatever_their_key_order(client: abws.Client, sb: abws.Sandbox) -> None:
    """A one-of (an invoice's artifacts) is built as it is read, its tag met before or after
    its fields (or as an escaped key); a field no shape declares is kept as unknown, a null
    as an explicit null."""
    tax = ('{"artifact\\u0054ype": "PurchaseFromQualifiedIssuer", "taxBreakdown": [{"taxRate": "10%",'
           ' "taxAmount": {"currencyCode": "JPY", "amount": "100"}}], "newField": [1, "x"]}')
    other = '{"taxBreakdown": null, "artifactType": "PurchaseFromOtherIssuer"}'
    canned(sb, detail_with(",".join([BILLING, tax, other])), op="getInvoiceDetailByInvoiceNumber")
    detail = client.invoices.get_invoice_detail_by_invoice_number("JP-ANY")
    billing, qualified, other_issuer = detail.artifacts
    assert type(billing).__name__ == "BillingDetails" and billing.amount_details[0].amount.amount == Decimal(1100)
    assert type(qualified).__name__ == "TaxArtifact" and qualified.tax_breakdown[0].tax_amount.amount == Decimal("100")
    assert type(other_issuer).__name__ == "TaxArtifact" and other_issuer.tax_breakdown is None
    d = detail.to_dict()["artifacts"]
    assert d[1]["newField"] == [1, "x"], "an unknown field given back"
    assert "taxBreakdown" in d[2] and d[2]["taxBreakdown"] is None, "an explicit null given back"
    assert pickle.loads(pickle.dumps(detail)) == detail


@pytest.mark.parametrize(
    "artifact,expect",
    [
        ('{"artifactType": "BillingDetails", "amountDetails": null, "amountDetails": []}',
         {"amountDetails": [], "artifactType": "BillingDetails"}),
        ('{"amountDetails": [], "artifactType": "BillingDetails", "amountDetails": null, "z": 1, "z": 2}',
         {"amountDetails": None, "artifactType": "BillingDetails", "z": 2}),
    ],
)
def test_repeated_fields_of_an_artifact_are_kept_as_the_core_keeps_them(
    client: abws.Client, sb: abws.Sandbox, artifact: str, expect: Any
) -> None:
    """The last value, and a null noted once it came."""
    canned(sb, detail_with(artifact), op="getInvoiceDetailByInvoiceNumber")
    detail = client.invoices.get_invoice_detail_by_invoice_number("JP-ANY")
    (got,) = detail.artifacts
    assert type(got).__name__ == "BillingDetails"
    assert detail.to_dict()["artifacts"] == [expect]


@pytest.mark.parametrize(
    "artifact,expect",
    [
        ('{"artifactType": "SomethingNew", "x": 1}', {"artifactType": "SomethingNew", "x": 1}),
        ('{"x": 1}', {"x": 1}),
        ('{"artifactType": null, "x": 1}', {"artifactType": None, "x": 1}),
        ('{"artifactType": "Billing\\u0044etails", "amountDetails": []}', "BillingDetails"),
        ('{"artifactType": "BillingDetails", "taxBreakdown": [], "amountDetails": []}', "BillingDetails"),
        # A field another shape declares, in a form that shape refuses: the tag names a
        # shape for which it is only an unknown field.
        ('{"artifactType": "PurchaseFromOtherIssuer", "taxBreakdown": [], "amountDetails": {"x": 1}}', "TaxArtifact"),
        ('{"artifactType": "SomethingNew", "amountDetails": [{"amount": {"currencyCode": "JPY"}}]}',
         {"artifactType": "SomethingNew", "amountDetails": [{"amount": {"currencyCode": "JPY"}}]}),
        ('["X"]', ["X"]),
    ],
)
def test_artifacts_the_one_pass_does_not_build_are_read_as_the_core_reads_them(
    client: abws.Client, sb: abws.Sandbox, artifact: str, expect: Any
) -> None:
    """The fallback shape (raw JSON), an escaped tag value, a field another shape declares,
    an artifact that is not an object: declined by the one pass, and read in a second pass
    as the core reads them (its chooser, then the shape it names)."""
    canned(sb, detail_with(artifact), op="getInvoiceDetailByInvoiceNumber")
    (got,) = client.invoices.get_invoice_detail_by_invoice_number("JP-ANY").artifacts
    if not isinstance(expect, str):
        assert got == expect
    elif expect == "BillingDetails":
        assert type(got).__name__ == expect and got.amount_details == []
    else:
        assert type(got).__name__ == expect and got.tax_breakdown == []


def test_a_repeated_artifact_type_gives_the_cores_error(one_shot: abws.Client, sb: abws.Sandbox) -> None:
    body = detail_with('{"artifactType": "BillingDetails", "artifactType": "BillingDetails"}')
    canned(sb, body, op="getInvoiceDetailByInvoiceNumber")
    with pytest.raises(abws.Error, match="duplicate field"):
        one_shot.invoices.get_invoice_detail_by_invoice_number("JP-ANY")


def test_results_made_by_the_handler_are_built_from_the_cores_json(client: abws.Client) -> None:
    """deleteItems answers an empty body: its result is the handler's (no value), built
    from the core's JSON of it as any result is."""
    assert client.cart.delete_items("cart-0005") is None


EDGES = r"""{
  "transactions": [
    {
      "transactionId": "caf\u00e9 \"one\"",
      "marketplaceId": null,
      "transactionType": "CHARGE",
      "transactionType": "REFUND",
      "feedDate": "2026-07-06T05:23:00Z",
      "transactionDate": "2026-07-06T14:23:00.123456789+09:00",
      "amount": {"amount": "-0.00", "currencyCode": "JPY", "zz": [1, {"a": null}]},
      "buyer": {"id": "b-1", "name": "Ann", "email": null, "nickname": "annie"},
      "payer": null,
      "associatedTransactionDetails": [],
      "newTopLevel": {"nested": [1, 2.50, "x"]},
      "transactionLineItems": [
        {
          "totalAmount": {"amount": "1751.0", "currencyCode": "JPY"},
          "principalAmount": {"amount": 12.30, "currencyCode": "JPY"},
          "shippingCharge": {"amount": "1e3"},
          "discount": {"amount": "0", "currencyCode": null},
          "tax": {"currencyCode": "", "amount": "-1.50"},
          "itemQuantity": 3,
          "shipmentDate": "2026-07-06",
          "businessOrderInfo": {"z": "last", "a\u00e9": "esc", "m": "1", "m": "2"},
          "productTitle": "Caf\u00e9 \\ cable",
          "unknownLine": true
        },
        {"itemQuantity": -7, "shipmentDate": "2026-07-06T05:23:00+00:00", "businessOrderInfo": {}}
      ]
    },
    {"transactionId": "T2", "feedDate": "2026-07-06T05:23:00Z", "transactionLineItems": null}
  ],
  "nextPageToken": null,
  "pageMeta": {"count": 2}
}"""


def test_edge_cases_are_built_as_the_decoded_result(client: abws.Client, sb: abws.Sandbox) -> None:
    canned(sb, EDGES)
    page = client.reconciliation.get_transactions(START, END)
    t, t2 = page.transactions
    assert t.transaction_id == 'café "one"'
    assert t.transaction_type == "REFUND", "the last of a repeated key"
    assert t.amount.amount == Decimal("-0.00") and str(t.amount.amount) == "-0.00"
    line = t.transaction_line_items[0]
    assert str(line.total_amount.amount) == "1751.0"
    assert line.principal_amount.amount == Decimal("12.30")
    assert line.business_order_info == {"aé": "esc", "m": "2", "z": "last"}
    assert list(line.business_order_info) == ["aé", "m", "z"], "key order as the core's map"
    assert line.product_title == "Café \\ cable"
    assert t2.transaction_line_items is None
    d = page.to_dict()
    assert d["nextPageToken"] is None and "nextPageToken" in d, "explicit null given back"
    assert d["pageMeta"] == {"count": 2}, "unknown fields given back"
    tx = d["transactions"][0]
    assert tx["marketplaceId"] is None and "payer" in tx and tx["payer"] is None
    assert tx["transactionDate"] == "2026-07-06T14:23:00.123456789+09:00", "wire text kept"
    assert tx["newTopLevel"] == {"nested": [1, Decimal("2.50"), "x"]}
    assert str(tx["newTopLevel"]["nested"][1]) == "2.50"
    assert tx["amount"]["amount"] == "-0.00"
    assert tx["buyer"]["nickname"] == "annie" and tx["buyer"]["email"] is None
    assert tx["transactionLineItems"][0]["shipmentDate"] == "2026-07-06"
    assert tx["transactionLineItems"][0]["unknownLine"] is True
    assert pickle.loads(pickle.dumps(page)) == page
    assert repr(page).startswith("TransactionsPage(")


NULLS = r"""{"transactions": [
  {"transactionId": "T1", "amount": {"amount": null, "currencyCode": "USD"},
   "transactionLineItems": [
     {"orderId": "O1", "businessOrderInfo": {"Cost Center": "CC-1", "Project": null},
      "totalAmount": {"amount": 5.10, "currencyCode": null},
      "principalAmount": {"amount": "1.50", "currencyCode": "USD", "formatted": "$1.50", "n": null},
      "tax": {"currencyCode": "USD"}}
   ]},
  {"transactionId": "T2", "amount": {"amount": 5.10}}
]}"""


def test_nulls_in_money_and_string_maps_decode_and_round_trip(client: abws.Client, sb: abws.Sandbox) -> None:
    """One unexpected `null` (a money's amount or currency, a value of a label map) does
    not make the answer unreadable, and `to_dict()` gives the wire form back: a `null`
    as `None`, an absent key left out, a money's unknown fields kept."""
    import json

    canned(sb, NULLS)
    page = client.reconciliation.get_transactions(START, END)
    t, t2 = page.transactions
    assert t.amount.amount is None and t.amount.currency_code == "USD"
    line = t.transaction_line_items[0]
    assert line.business_order_info == {"Cost Center": "CC-1", "Project": None}
    assert line.total_amount == abws.Money(Decimal("5.10")) and line.total_amount.currency_code is None
    assert line.principal_amount.extra == {"formatted": "$1.50", "n": None}
    assert line.tax.amount is None
    assert page.to_dict() == json.loads(NULLS, parse_float=Decimal)
    assert _same(page.to_dict(), NULLS), "scales kept"
    assert pickle.loads(pickle.dumps(page)).to_dict() == page.to_dict()


NULLS_IN_LISTS = r"""{"products": [
  {"asin": "B01", "features": ["Waterproof", null, "Light"],
   "taxonomies": [null, {"taxonomyCode": "44121700", "type": "UNSPSC"}],
   "includedDataTypes": {"OFFERS": [null, {"offerId": "O1", "buyingRestrictions": [null]}]}},
  null
], "numberOfPages": 1}"""


def test_a_null_inside_a_list_reads_as_none_and_round_trips(client: abws.Client, sb: abws.Sandbox) -> None:
    """A `null` element of a list (strings, objects, the page's own items) does
    not make the answer unreadable: it reads as `None` and `to_dict()` gives it back as
    `null`, built straight from the JSON."""
    import json

    canned(sb, NULLS_IN_LISTS, op="searchProductsRequest")
    page = client.products.search_products_request(product_region="JP", locale="ja-JP")
    product, missing = page.products
    assert missing is None
    assert product.features == ["Waterproof", None, "Light"]
    assert product.taxonomies[0] is None and product.taxonomies[1].type == "UNSPSC"
    offers = product.included_data_types.offers
    assert offers[0] is None and offers[1].offer_id == "O1" and offers[1].buying_restrictions == [None]
    assert page.to_dict() == json.loads(NULLS_IN_LISTS)
    assert pickle.loads(pickle.dumps(page)).to_dict() == page.to_dict()


def _same(got: Any, wire: str) -> bool:
    """`to_dict()` is the wire JSON (a string-form amount compared as its text)."""
    import json

    return json.loads(json.dumps(got, default=str)) == json.loads(wire, parse_float=str)


@pytest.mark.parametrize(
    "body,message",
    [
        ('{"transactions": [{"amount": {"amount": "twelve"}}]}', "twelve"),
        ('{"transactions": [{"transactionId": 12}]}', "invalid type"),
        ('{"transactions": [{"transactionLineItems": [{"itemQuantity": 1.5}]}]}', None),
        ('{"transactions": [{"feedDate": "yesterday"}]}', "yesterday"),
        ('{"transactions": []} trailing', "trailing"),
    ],
)
def test_values_the_core_refuses_give_its_error(one_shot: abws.Client, sb: abws.Sandbox, body: str, message: Any) -> None:
    canned(sb, body)
    with pytest.raises(abws.Error) as e:
        one_shot.reconciliation.get_transactions(START, END)
    assert "getTransactions" in str(e.value)
    if message:
        assert message in str(e.value)
