"""Through the Python API: proxies (loopback never proxied, the ``proxy``
setting redacted everywhere), the bound of report waits, and the redacted repr of a
presigned address."""

from __future__ import annotations

import inspect
import pickle

import pytest

import abws
from abws import _abws
from abws.client import DEFAULT_WAIT_TIMEOUT

PASSWORD = "PY-PROXY-PASSWORD"
DEAD_PROXY = "http://127.0.0.1:9"


def _detail(client: abws.Client, dataset) -> None:
    number = dataset["previousMonthInvoices"][0]
    client.invoices.get_invoice_detail_by_invoice_number(number, region="JP")


def test_loopback_is_never_sent_through_an_environment_proxy(sb, dataset, monkeypatch):
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.setenv(var, DEAD_PROXY)
    client = sb.client("JP", rate_limiting=False, max_attempts=1)  # reads the environment now
    _detail(client, dataset)  # a dead proxy would fail it


def test_the_proxy_setting_is_redacted_and_checked(sb, dataset):
    proxy = f"http://pyuser:{PASSWORD}@127.0.0.1:9"
    client = sb.client("JP", rate_limiting=False, max_attempts=1, proxy=proxy)
    _detail(client, dataset)  # loopback: direct, even with an explicit proxy
    shown = client.settings["proxy"]
    assert shown == "http://***@127.0.0.1:9/"
    assert PASSWORD not in repr(client) + str(client.settings)
    assert PASSWORD.encode() not in pickle.dumps(client)
    with pytest.raises(abws.ValidationError) as e:
        sb.client("JP", proxy=f"socks5://pyuser:{PASSWORD}@127.0.0.1:1080")
    assert e.value.parameter == "proxy"
    assert PASSWORD not in str(e.value) + repr(e.value)


def test_proxy_from_the_environment_variable(sb, monkeypatch):
    monkeypatch.setenv("ABWS_REGION", "JP")
    monkeypatch.setenv("ABWS_ACCESS_TOKEN", "Atza|x")
    monkeypatch.setenv("ABWS_ENDPOINT", sb.base_url)
    monkeypatch.setenv("ABWS_PROXY", f"http://u:{PASSWORD}@127.0.0.1:3128")
    client = abws.Client.from_env()
    assert client.settings["proxy"] == "http://***@127.0.0.1:3128/"


def test_report_waits_are_bounded_by_default(client, line_item):
    for method in (client.documents.wait_for_report, client.documents.fetch_pdf):
        assert inspect.signature(method).parameters["timeout"].default == DEFAULT_WAIT_TIMEOUT
    assert DEFAULT_WAIT_TIMEOUT == _abws.DEFAULT_WAIT_TIMEOUT == 1800.0
    created = client.documents.create_report(
        {"order_id": line_item.order_id, "order_line_item_id": line_item.order_line_item_id}
    )
    # None asks for no bound (the report ends long before).
    done = client.documents.wait_for_report(created.report_id, poll_interval=0.1, timeout=None)
    assert done.processing_status == "DONE"
    with pytest.raises(abws.ValidationError) as e:
        client.documents.wait_for_report(created.report_id, poll_interval=0.1, timeout=0)
    assert e.value.parameter == "timeout"


def test_a_presigned_address_is_redacted_in_repr(client, line_item):
    created = client.documents.create_report(
        {"order_id": line_item.order_id, "order_line_item_id": line_item.order_line_item_id}
    )
    done = client.documents.wait_for_report(created.report_id, poll_interval=0.1, timeout=30)
    doc = client.documents.get_report_document(done.report_document_id)
    query = doc.url.split("?", 1)[1]
    assert query and doc.to_dict()["url"] == doc.url  # the data keeps it
    for text in (repr(doc), str(doc), doc._repr_html_(), repr([doc])):
        assert query not in text
        assert "?***" in text
    assert type(doc)._sensitive == ("url",)
