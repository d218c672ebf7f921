"""The exception tree: every core error kind, every API status, every class raised by
real calls, with their fields, and pickling."""

from __future__ import annotations

import pickle
import time

import pytest

import abws
from abws import _abws
from conftest import END, START, TODAY, order_line


def test_every_core_error_kind_maps_to_an_abws_error():
    samples = dict(_abws._sample_errors())
    assert list(samples) == _abws._error_kinds()  # every ErrorKind::ALL, in order
    expected = {
        "validation": abws.ValidationError,
        "api": abws.NotFound,
        "page_token_expired": abws.PageTokenExpired,
        "report_failed": abws.ReportFailed,
        "document": abws.DocumentError,
        "outcome_unknown": abws.OutcomeUnknown,
        "transport": abws.TransportError,
        "timeout": abws.Timeout,
        "auth": abws.AuthError,
        "runtime": abws.InternalError,
        "internal": abws.InternalError,
    }
    for kind, err in samples.items():
        assert isinstance(err, abws.Error), kind
        assert type(err) is expected.get(kind, abws.Error), kind
        assert err.kind == kind
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and str(back) == str(err) and back.__dict__ == err.__dict__
    assert samples["api"].status == 404 and samples["api"].code == "NotFound"
    assert samples["api"].message == "no such thing" and samples["api"].request_id == "req-1"
    assert samples["validation"].parameter == "invoice_number"
    assert samples["page_token_expired"].items_yielded == 7
    assert (samples["report_failed"].report_id, samples["report_failed"].processing_status) == ("r-1", "FATAL")
    assert samples["document"].error_code == "E1"
    assert samples["outcome_unknown"].external_id == "ext-1"
    assert isinstance(samples["timeout"], TimeoutError)


STATUSES = {
    400: abws.BadRequest, 401: abws.Unauthorized, 403: abws.Forbidden, 404: abws.NotFound,
    413: abws.PayloadTooLarge, 415: abws.UnsupportedMediaType, 429: abws.RateLimited,
    500: abws.ServerError, 502: abws.ServerError, 503: abws.ServerError, 504: abws.ServerError,
    418: abws.ApiError,
}


@pytest.mark.parametrize("status", sorted(STATUSES))
def test_api_statuses(sb, one_shot, status):
    sb.fail("getInvoices", status, times=1)
    with pytest.raises(abws.ApiError) as e:
        one_shot.invoices.get_invoices(START, END)
    err = e.value
    assert type(err) is STATUSES[status]
    assert err.status == status and err.request_id and err.operation == "getInvoices"
    assert isinstance(err.code, str) and isinstance(err.message, str) and isinstance(err.details, str)
    assert str(err).startswith(f"HTTP {status}")
    back = pickle.loads(pickle.dumps(err))
    assert (back.status, back.code, back.request_id, str(back)) == (err.status, err.code, err.request_id, str(err))


def test_an_exceptions_notes_survive_pickling():
    # The note that says an order's outcome is unknown goes with the error to another process.
    err = abws.OutcomeUnknown("lost", external_id="PO-1", raw_body=b"{", operation="placeOrder")
    err.__notes__ = ["the order PO-1 may have been placed: look it up before placing it again"]
    back = pickle.loads(pickle.dumps(err))
    assert back.__notes__ == err.__notes__ and back.external_id == "PO-1"
    assert not hasattr(pickle.loads(pickle.dumps(abws.Error("plain"))), "__notes__")


def test_real_400_names_the_problem(client):
    with pytest.raises(abws.BadRequest) as e:
        client.invoices.get_invoices(START, END, payment_method_types=["CARD"])
    assert e.value.code and "payment" in str(e.value).lower()


def test_validation_before_sending(sb, client):
    sb.reset_counters()
    with pytest.raises(abws.ValidationError) as e:
        client.invoices.get_invoices("yesterday", END)
    assert e.value.parameter == "invoice_issue_start_date" and isinstance(e.value, ValueError)
    with pytest.raises(abws.ValidationError) as e:
        client.invoices.get_invoices(START, "2999-01-01")
    assert e.value.parameter == "invoice_issue_end_date"
    with pytest.raises(abws.ValidationError):
        client.invoices.get_invoices(12345, END)
    with pytest.raises(abws.ValidationError):
        abws.Client("XX", access_token="t")
    with pytest.raises(abws.ValidationError) as e:
        abws.Client("JP", client_id="id", client_secret="s")
    assert e.value.parameter == "refresh_token"
    assert not sb.counters()["requests"].get("getInvoices")


def test_settings_are_checked_by_the_core_reader(sb, line_item):
    """Settings go through the core's reader (shared with C): wrong types name the key and
    never echo the value; the size limits apply."""
    for kwargs, key in [
        (dict(max_attempts="3"), "max_attempts"),
        (dict(connect_timeout=0), "connect_timeout"),
        (dict(client_id="id"), "access_token"),
        (dict(max_document_bytes=-1), "max_document_bytes"),
    ]:
        with pytest.raises(abws.ValidationError) as e:
            abws.Client("JP", access_token="SENTINEL-S3CRET", **kwargs)
        assert e.value.parameter == key and "SENTINEL" not in str(e.value)
    small = sb.client("JP", rate_limiting=False, max_document_bytes=100)
    assert small.settings["max_document_bytes"] == 100
    created = small.documents.create_report(
        {"order_id": line_item.order_id, "order_line_item_id": line_item.order_line_item_id}
    )
    report = small.documents.wait_for_report(created.report_id, poll_interval=0.1, timeout=30)
    with pytest.raises(abws.Error, match="larger than 100 bytes.*max_document_bytes"):
        small.documents.download(report.report_document_id)


def test_page_token_expired():
    with abws.Sandbox(time_scale=60, today=TODAY, rate_limits="off", page_token_lifetime=30) as sb:
        c = sb.client("JP", rate_limiting=False)
        listing = c.invoices.iter_invoices(START, END)
        first = [next(listing) for _ in range(10)]
        time.sleep(0.8)  # 48 s of sandbox time: the token is 30 s old
        with pytest.raises(abws.PageTokenExpired) as e:
            list(listing)
        assert e.value.items_yielded == len(first)


def test_page_token_expired_on_a_direct_call():
    with abws.Sandbox(time_scale=60, today=TODAY, rate_limits="off", page_token_lifetime=30) as sb:
        c = sb.client("JP", rate_limiting=False)
        token = c.invoices.get_invoices(START, END).next_page_token
        assert token
        time.sleep(0.8)  # 48 s of sandbox time: the token is 30 s old
        with pytest.raises(abws.PageTokenExpired) as e:
            c.invoices.get_invoices(START, END, next_page_token=token)
        assert e.value.items_yielded == 0 and e.value.operation == "getInvoices"


def _first_line(client, order_id):
    orders = client.reporting.get_orders_by_order_id(order_id, include_line_items=True)
    return orders.orders[0].line_items[0].order_line_item_id


def test_report_failed(client, dataset):
    order_id = dataset["specials"]["fatalOrderId"]
    created = client.documents.create_report(
        {"order_id": order_id, "order_line_item_id": _first_line(client, order_id)}
    )
    with pytest.raises(abws.ReportFailed) as e:
        client.documents.wait_for_report(created.report_id, poll_interval=0.1, timeout=30)
    assert e.value.report_id == created.report_id and e.value.processing_status == "FATAL"


def test_document_error(client, dataset):
    order_id = dataset["specials"]["errorDocumentOrderId"]
    line_id = _first_line(client, order_id)
    with pytest.raises(abws.DocumentError) as e:
        client.documents.fetch_pdf(order_id=order_id, order_line_item_id=line_id, poll_interval=0.1, timeout=30)
    assert e.value.error_code == "CLIENT_ERROR"


def _outcome_unknown(sb, client, offer, action, external_id):
    """The OutcomeUnknown of a place_order the sandbox's fault `action` meets once; it carries
    the order's external id."""
    sb.fail("placeOrder", action=action, times=1)
    with pytest.raises(abws.OutcomeUnknown) as e:
        client.ordering.place_order(external_id, [order_line(*offer)], attributes=[], expectations=[])
    assert e.value.external_id == external_id
    return e.value


def test_outcome_unknown_carries_the_external_id(sb, client, offer):
    _outcome_unknown(sb, client, offer, {"reset": True}, "py-ambiguous-1")
    assert sb.counters()["placeOrderRequests"]["py-ambiguous-1"] == 1  # sent once, never resent


def test_an_undecodable_order_answer_is_outcome_unknown_with_the_body(sb, client, offer):
    error = _outcome_unknown(sb, client, offer, {"garbled": True}, "py-garbled-1")
    assert isinstance(error.raw_body, bytes) and error.raw_body.startswith(b"{")
    assert sb.counters()["ordersCreated"]["py-garbled-1"] == 1  # applied, and not resent
    assert pickle.loads(pickle.dumps(error)).raw_body == error.raw_body


def test_transport_error(sb, one_shot):
    sb.fail("getInvoices", action={"non_json": True}, times=1)
    with pytest.raises(abws.TransportError):
        one_shot.invoices.get_invoices(START, END)
    closed = abws.Client("JP", access_token="t", endpoint="http://127.0.0.1:9", max_attempts=1)
    with pytest.raises(abws.TransportError):
        closed.invoices.get_invoices(START, END)


def test_timeout_is_also_builtin_timeout_error(sb):
    c = sb.client("JP", rate_limiting=False, max_attempts=1, attempt_timeout=0.3)
    sb.fail("getInvoices", delay_ms=2000, times=1)
    start = time.monotonic()
    with pytest.raises(TimeoutError) as e:
        c.invoices.get_invoices(START, END)
    assert isinstance(e.value, abws.Timeout) and isinstance(e.value, abws.TransportError)
    assert time.monotonic() - start < 1.5


def test_auth_error(sb):
    creds = sb.credentials()
    bad = abws.Client("JP", client_id=creds["client_id"], client_secret="wrong", refresh_token=creds["refresh_token"],
                      endpoint=sb.base_url, auth_endpoint=sb.base_url, rate_limiting=False)
    with pytest.raises(abws.AuthError) as e:
        bad.invoices.get_invoices(START, END)
    assert "wrong" not in str(e.value)


def test_expired_access_token_is_refreshed_transparently(sb, client):
    client.invoices.get_invoices(START, END)
    sb.expire_tokens()
    assert client.invoices.get_invoices(START, END).invoices


def test_a_client_of_one_attempt_outlives_its_token():
    """The expired token's one replay is the auth layer's, not one of ``max_attempts``."""
    with abws.Sandbox(today=TODAY, rate_limits="off") as own:
        c = own.client("JP", rate_limiting=False, max_attempts=1)
        c.invoices.get_invoices(START, END)
        own.expire_tokens()
        assert c.invoices.get_invoices(START, END).invoices
        assert own.counters()["tokenCalls"]["refresh_token"] == 2


def test_revoked_consent_is_an_auth_error():
    with abws.Sandbox(today=TODAY, rate_limits="off") as own:
        c = own.client("JP", rate_limiting=False)
        own.revoke()
        with pytest.raises(abws.AuthError) as e:
            c.invoices.get_invoices(START, END)
        assert "consent" in str(e.value)


# --- arguments: one reader in the core, errors naming the parameter's path ------------


def _invalid(sb, call):
    """The ValidationError a call raises, checking that nothing was sent."""
    sb.reset_counters()
    with pytest.raises(abws.ValidationError) as e:
        call()
    assert not sb.counters()["requests"], "a request was sent"
    assert isinstance(e.value, ValueError)
    return e.value


def test_a_bad_argument_names_its_parameter_and_the_rule(sb, client, line_item):
    e = _invalid(sb, lambda: client.documents.get_report_document(None))  # type: ignore[arg-type]
    assert e.parameter == "report_document_id"
    assert "report_document_id" in str(e) and "must be a string (got null)" in str(e)
    e = _invalid(sb, lambda: client.documents.get_report(42))  # type: ignore[arg-type]
    assert e.parameter == "report_id" and "integer" in str(e)
    e = _invalid(sb, lambda: client.invoices.get_invoices(START, 20260301))  # type: ignore[arg-type]
    assert e.parameter == "invoice_issue_end_date" and "datetime, a date or ISO 8601 text" in str(e)
    e = _invalid(sb, lambda: client.invoices.get_invoices(START, "not a date"))
    assert e.parameter == "invoice_issue_end_date"
    e = _invalid(sb, lambda: client.cart.list_carts(page_size="five"))  # type: ignore[arg-type]
    assert e.parameter == "page_size"
    e = _invalid(sb, lambda: client.documents.download(None))  # type: ignore[arg-type]
    assert e.parameter == "report_document_id"


def test_nested_errors_name_the_path(sb, client, line_item):
    ok = {"order_id": line_item.order_id, "order_line_item_id": line_item.order_line_item_id,
          "shipment_id": line_item.shipment_id}
    items = [ok, ok, ok, {"order_id": "1", "order_line_item_id": "2"}]
    e = _invalid(sb, lambda: client.reconciliation.get_invoice_details_by_order_line_items(items))
    assert e.parameter == "order_line_items[3].shipment_id" and "is required" in str(e)
    items = [ok, dict(ok, shipment_id=7)]
    e = _invalid(sb, lambda: client.reconciliation.get_invoice_details_by_order_line_items(items))
    assert e.parameter == "order_line_items[1].shipment_id"
    items = [ok, dict(ok, colour="red")]
    e = _invalid(sb, lambda: client.reconciliation.get_invoice_details_by_order_line_items(items))
    assert e.parameter == "order_line_items[1].colour"
    e = _invalid(sb, lambda: client.reconciliation.invoice_details_for([("1", "2")]))  # type: ignore[list-item]
    assert e.parameter == "line_items[0]" and "3 values" in str(e)
    e = _invalid(sb, lambda: client.reconciliation.invoice_details_for(["1-2-3"]))  # type: ignore[list-item]
    assert e.parameter == "line_items[0]"
    e = _invalid(sb, lambda: client.cart.add_items("cart-0001", [{"quantity": 1}]))
    assert e.parameter.startswith("items[0].")
    e = _invalid(sb, lambda: client.documents.create_report({"order_id": "1", "colour": "red"}))
    assert e.parameter == "report_options.colour"


def test_the_reader_never_quotes_a_value_back(sb, client, line_item):
    secret = "s3cr3t-value-0042"
    e = _invalid(sb, lambda: client.cart.list_carts(page_size=secret))  # type: ignore[arg-type]
    assert secret not in str(e) and secret not in repr(e.args)
    item = {"order_id": "1", "order_line_item_id": "2", "shipment_id": "3", secret: secret}
    e = _invalid(sb, lambda: client.reconciliation.invoice_details_for([item]))
    assert e.parameter == f"line_items[0].{secret}"  # the unknown key is named, its value never
    assert str(e).count(secret) == 1


def test_wait_and_fetch_read_their_arguments_in_the_core(sb, client):
    e = _invalid(sb, lambda: client.documents.wait_for_report("r-1", poll_interval=0))
    assert e.parameter == "poll_interval"
    e = _invalid(sb, lambda: client.documents.wait_for_report("r-1", poll_interval=1, timeout=-1))
    assert e.parameter == "timeout"
    e = _invalid(sb, lambda: client.documents.fetch_pdf(order_id="1", poll_interval=-2))
    assert e.parameter == "poll_interval"


def test_a_float_is_refused_where_money_is_taken(sb, client):
    from decimal import Decimal

    def order(amount):
        line = {"external_id": "1", "quantity": 1, "attributes": [],
                "expectations": [{"expectationType": "ExpectedUnitPrice",
                                  "amount": {"amount": amount, "currencyCode": "JPY"}}]}
        return lambda: client.ordering.place_order("PO-float-1", [line])

    for amount in (0.1 + 0.2, 12.0, float("nan")):
        e = _invalid(sb, order(amount))
        assert e.parameter == "line_items[0].expectations[0].amount.amount", e
        assert "float" in str(e) and "Decimal" in str(e) and "str" in str(e), e
    with pytest.raises(TypeError, match="Decimal, an int or a str, not float"):
        abws.Money(0.1 + 0.2, "USD")
    with pytest.raises(TypeError):
        abws.Money(True, "USD")  # type: ignore[arg-type]
    assert abws.Money("0.30", "USD").amount == Decimal("0.30")
    assert abws.Money(12, "JPY").amount == Decimal(12)


def test_list_elements_sent_comma_joined_refuse_a_comma(sb, client):
    e = _invalid(sb, lambda: client.products.search_products_request("JP", "ja-JP", keywords=["pens", "paper, A4"]))
    assert e.parameter == "keywords[1]" and "comma" in str(e)
    e = _invalid(sb, lambda: client.invoices.get_invoices(START, END, payment_method_types=["BCA,X"]))
    assert e.parameter == "payment_method_types[0]"
    e = _invalid(sb, lambda: client.reporting.get_shipment_line_item_reports(START, END, purchase_order_numbers=["PO,1"]))
    assert e.parameter == "purchase_order_numbers[0]"


def test_rules_read_in_the_callers_terms(sb, client):
    e = _invalid(sb, lambda: client.invoices.get_invoices(START, END, payment_method_types=[]))
    assert str(e) == "invalid payment_method_types: must hold at least 1 entry (got 0)"
    e = _invalid(sb, lambda: client.cart.add_items("cart-0001", []))
    assert e.parameter == "items" and "at least 1 entry" in str(e)
    e = _invalid(sb, lambda: client.cart.list_carts(page_size=True))
    assert str(e).startswith("invalid page_size: must be an integer (got a boolean)")
    e = _invalid(sb, lambda: client.cart.list_carts(page_size=5.0))  # type: ignore[arg-type]
    assert str(e).startswith("invalid page_size: must be an integer (got a floating-point number)")


def test_settings_are_checked_when_the_client_is_built(sb):
    for kw, param in [
        (dict(app_name="会計システム"), "app_name"),
        (dict(app_name="erp\r\nX-Evil: 1"), "app_name"),
        (dict(max_response_bytes=0), "max_response_bytes"),
        (dict(max_response_bytes=1000), "max_response_bytes"),
    ]:
        with pytest.raises(abws.ValidationError) as e:
            abws.Client("JP", access_token="AT-1", endpoint=sb.base_url, **kw)
        assert e.value.parameter == param, kw
    for token in ["AT-SECRET-abc\r\nX-Evil: 1", "AT-SECRET-é"]:
        with pytest.raises(abws.ValidationError) as e:
            abws.Client("JP", access_token=token, endpoint=sb.base_url)
        assert e.value.parameter == "access_token"
        assert "AT-SECRET" not in str(e.value) and "AT-SECRET" not in repr(e.value.args)


def test_the_user_agent_names_python(sb):
    sb.reset_counters()
    c = sb.client("JP", rate_limiting=False, app_name="MyErp/2.1")
    c.invoices.get_invoices(START, END)
    agents = {h["headers"]["user-agent"] for h in sb.counters()["headersSeen"]["api"]}
    assert agents and all("(Language=Python;" in a and a.startswith("MyErp/2.1 ") for a in agents), agents
