"""Every operation of both documents, through the public API, against the sandbox."""

from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys
import zipfile
from datetime import date, datetime, timezone
from decimal import Decimal

import pytest

import abws
from conftest import END, START, order_line


# --- invoices -------------------------------------------------------------------------


def test_get_invoices_page_and_dates_in_every_form(client):
    page = client.invoices.get_invoices(START, END, region="JP")
    assert type(page).__name__ == "InvoicesPage"
    assert len(page.invoices) == 10 and page.next_page_token
    as_dates = client.invoices.get_invoices(date(2026, 2, 1), date(2026, 3, 1), region="JP")
    naive = client.invoices.get_invoices(datetime(2026, 2, 1), datetime(2026, 3, 1), region="JP")
    aware = client.invoices.get_invoices(
        datetime(2026, 2, 1, tzinfo=timezone.utc), datetime(2026, 3, 1, tzinfo=timezone.utc), region="JP"
    )
    assert page.invoices == as_dates.invoices == naive.invoices == aware.invoices
    nxt = client.invoices.get_invoices(START, END, region="JP", next_page_token=page.next_page_token)
    assert nxt.invoices[0] != page.invoices[0]


def test_iter_invoices_walks_every_page(client):
    listing = client.invoices.iter_invoices(START, END)
    numbers = [inv.invoice_metadata.invoice_number for inv in listing]
    assert len(numbers) > 10 and len(set(numbers)) == len(numbers)
    assert listing.items_yielded == len(numbers)
    pages = list(client.invoices.iter_invoices(START, END).pages())
    assert sum(len(p.invoices) for p in pages) == len(numbers)
    assert pages[-1].next_page_token in (None, "")


def test_invoice_detail_and_line_items(client):
    number = client.invoices.get_invoices(START, END).invoices[0].invoice_metadata.invoice_number
    detail = client.invoices.get_invoice_detail_by_invoice_number(number)
    assert detail.invoice_metadata.invoice_number == number
    assert detail.invoice_metadata.issue_date.tzinfo is not None
    page = client.invoices.get_invoice_line_items_by_invoice_number(number, region="JP")
    assert page.line_items and all(li.invoice_number == number for li in page.line_items)
    every = list(client.invoices.iter_invoice_line_items(number))
    assert every[: len(page.line_items)] == page.line_items


# --- reconciliation -------------------------------------------------------------------


def test_transactions_page_and_pager(client):
    page = client.reconciliation.get_transactions(START, END)
    tx = page.transactions[0]
    assert isinstance(tx.amount, abws.Money) and isinstance(tx.amount.amount, Decimal)
    assert tx.transaction_date.tzinfo is not None
    every = list(client.reconciliation.iter_transactions(START, END))
    assert len(every) >= len(page.transactions)
    assert every[0] == tx


def test_invoice_details_by_order_line_items(client, line_item):
    as_dict = {"orderId": line_item.order_id, "orderLineItemId": line_item.order_line_item_id,
               "shipmentId": line_item.shipment_id}
    r = client.reconciliation.get_invoice_details_by_order_line_items([line_item])
    r2 = client.reconciliation.get_invoice_details_by_order_line_items([as_dict])
    assert r == r2
    entry = r.invoice_details_by_order_line_items[0]
    assert entry.invoice_details[0].invoice_number


def _details_requests(sb) -> int:
    """The getInvoiceDetailsByOrderLineItems requests the sandbox answered (200), not any its
    token check refused: a call that meets its token's end is answered 403 and sent again
    after a refresh (conftest's `shared_sandbox` makes the session's tokens last a real
    hour; before it, they ended after a real minute and this count once read 2)."""
    return sb.counters()["requests"].get("getInvoiceDetailsByOrderLineItems", {}).get("200", 0)


def _expected_requests(items) -> int:
    """One representative per (order, shipment), 25 representatives per request."""
    shipments = {(li.order_id, li.shipment_id) for li in items}
    return -(-len(shipments) // 25)


def test_invoice_details_for_batches_and_keeps_order(client, sb):
    items = [li for tx in client.reconciliation.iter_transactions(START, END) for li in tx.transaction_line_items or []]
    assert len(items) > 25  # more than one request's worth
    sb.reset_counters()
    out = client.reconciliation.invoice_details_for(items)
    assert [(o.order_line_item.order_id, o.order_line_item.order_line_item_id) for o in out] == [
        (li.order_id, li.order_line_item_id) for li in items
    ]
    assert _details_requests(sb) == _expected_requests(items)


def test_invoice_details_for_asks_once_per_shipment(client, sb):
    page = client.reconciliation.get_transactions(START, END)
    some = [li for tx in page.transactions for li in tx.transaction_line_items or []][:10]
    # 60 line items of at most 10 shipments: 3 requests without de-duplication, 1 with it.
    items = some * 6
    assert _expected_requests(items) == 1 and len(items) > 2 * 25
    sb.reset_counters()
    out = client.reconciliation.invoice_details_for(items)
    assert _details_requests(sb) == 1
    assert len(out) == len(items)
    # every copy gets its shipment's answer
    for i, o in enumerate(out):
        assert o.invoice_details == out[i % len(some)].invoice_details
        assert o.order_line_item.order_line_item_id == items[i].order_line_item_id


def test_more_than_25_line_items_is_rejected_before_sending(client, line_item):
    with pytest.raises(abws.ValidationError) as e:
        client.reconciliation.get_invoice_details_by_order_line_items([line_item] * 26)
    assert e.value.parameter == "order_line_items"


# --- documents ------------------------------------------------------------------------


def test_report_lifecycle_and_download(client, line_item):
    created = client.documents.create_report(
        {"order_id": line_item.order_id, "order_line_item_id": line_item.order_line_item_id}
    )
    report = client.documents.get_report(created.report_id)
    assert report.processing_status in ("IN_QUEUE", "IN_PROGRESS", "DONE")
    done = client.documents.wait_for_report(created.report_id, poll_interval=0.1, timeout=30)
    assert done.processing_status == "DONE"
    doc = client.documents.get_report_document(done.report_document_id)
    assert doc.compression_algorithm == "GZIP"
    pdf = client.documents.download(done.report_document_id, progress=True)
    assert pdf.startswith(b"%PDF-")


def test_fetch_pdf(client, line_item):
    pdf = client.documents.fetch_pdf(
        order_id=line_item.order_id, order_line_item_id=line_item.order_line_item_id,
        document_type="Invoice", poll_interval=0.1, timeout=30,
    )
    assert pdf.startswith(b"%PDF-")


def test_fetch_pdf_to_a_path_files_it_sealed_in_one_call(sb, client, line_item, tmp_path, monkeypatch):
    opts = {"order_id": line_item.order_id, "order_line_item_id": line_item.order_line_item_id, "document_type": "Invoice"}
    monkeypatch.delenv("ABWS_DOCUMENT_KEY", raising=False)
    created = sb.counters()["reportJobsCreated"]
    # No key (argument or environment): refused before any request, no file.
    with pytest.raises(abws.ValidationError, match="key=.*ABWS_DOCUMENT_KEY"):
        client.documents.fetch_pdf(**opts, to=tmp_path / "x.abws", poll_interval=0.1, timeout=30)
    # A key without to= would be ignored: refused.
    with pytest.raises(abws.ValidationError, match="to=path"):
        client.documents.fetch_pdf(**opts, key=os.urandom(32))  # type: ignore[call-overload]
    assert sb.counters()["reportJobsCreated"] == created and list(tmp_path.iterdir()) == []
    key = os.urandom(32)
    target = tmp_path / "invoice.pdf.abws"
    n = client.documents.fetch_pdf(**opts, to=target, key=key, poll_interval=0.1, timeout=30)
    data = target.read_bytes()
    assert data.startswith(b"ABWSENC1") and b"%PDF" not in data
    assert (target.stat().st_mode & 0o777) == 0o600
    pdf = abws.decrypt(data, key)
    assert pdf.startswith(b"%PDF-") and len(pdf) == n
    # The environment's key, a str path, progress: the same PDF.
    monkeypatch.setenv("ABWS_DOCUMENT_KEY", key.hex())
    again = str(tmp_path / "again.abws")
    assert client.documents.fetch_pdf(**opts, to=again, progress=True, poll_interval=0.1, timeout=30) == n
    assert abws.decrypt(open(again, "rb").read()) == pdf
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again.abws", "invoice.pdf.abws"]
    assert sb.counters()["reportJobsCreated"] == created + 2


def test_encrypt_and_decrypt_bytes(tmp_path, monkeypatch):
    monkeypatch.delenv("ABWS_DOCUMENT_KEY", raising=False)
    data = b"%PDF-1.7\n" + os.urandom(200_000)
    key = os.urandom(32)
    sealed = abws.encrypt(data, key=key)
    assert sealed.startswith(b"ABWSENC1") and data[:64] not in sealed
    assert sealed != abws.encrypt(data, key=key)  # a fresh salt each time
    assert abws.decrypt(sealed, key=key) == abws.decrypt(sealed, key=key.hex()) == data
    assert _open_with_cryptography(sealed, key) == data
    with pytest.raises(abws.ValidationError, match="key=.*ABWS_DOCUMENT_KEY"):
        abws.encrypt(data)
    with pytest.raises(abws.DocumentError):
        abws.decrypt(sealed, key=os.urandom(32))
    monkeypatch.setenv("ABWS_DOCUMENT_KEY", key.hex())
    assert abws.decrypt(abws.encrypt(b"")) == b""
    # The command line opens what encrypt sealed; without a key it names --key-file.
    path = tmp_path / "x.abws"
    path.write_bytes(sealed)
    env = {k: v for k, v in os.environ.items() if k != "ABWS_DOCUMENT_KEY"}
    r = subprocess.run([sys.executable, "-m", "abws", "decrypt", str(path), "-o", str(tmp_path / "x.pdf")],
                       env=env, capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 1 and "--key-file" in r.stderr and "key=" not in r.stderr, r.stderr
    key_file = tmp_path / "key.txt"
    key_file.write_text(key.hex())
    r = subprocess.run([sys.executable, "-m", "abws", "decrypt", str(path), "--key-file", str(key_file), "-o", str(tmp_path / "x.pdf")],
                       env=env, capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "x.pdf").read_bytes() == data


def _ready_document(client, line_item) -> str:
    created = client.documents.create_report(
        {"order_id": line_item.order_id, "order_line_item_id": line_item.order_line_item_id}
    )
    return client.documents.wait_for_report(created.report_id, poll_interval=0.1, timeout=30).report_document_id


def _archive(pdf: bytes, *, streamed: bool) -> bytes:
    """gzip(zip(pdf)); a streamed zip declares no size up front (a data descriptor)."""

    class Unseekable(io.RawIOBase):
        def __init__(self) -> None:
            self.data = bytearray()

        def writable(self) -> bool:
            return True

        def write(self, b) -> int:  # type: ignore[override]
            self.data += b
            return len(b)

    sink = Unseekable() if streamed else io.BytesIO()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("invoice.pdf", pdf)
    body = bytes(sink.data) if streamed else sink.getvalue()
    assert (body[6] & 0x08 != 0) == streamed  # general purpose flag: data descriptor
    return gzip.compress(body)


@pytest.mark.parametrize("streamed", [False, True], ids=["declared-size", "data-descriptor"])
def test_download_returns_exactly_the_pdf(sb, client, line_item, streamed):
    document_id = _ready_document(client, line_item)
    pdf = b"%PDF-1.7\n" + os.urandom(300_000) + b"\n%%EOF\n"
    sb.fail("*", listener="documents", action={"body_hex": _archive(pdf, streamed=streamed).hex()}, times=1)
    got = client.documents.download(document_id)
    assert type(got) is bytes and got == pdf


def test_download_starts_over_after_a_reset_mid_body(sb, client, line_item):
    """The first answer (the sandbox's own document) breaks off after part of its body;
    the retry gets a bigger document: what the first attempt wrote must not survive."""
    document_id = _ready_document(client, line_item)
    pdf = b"%PDF-1.7\n" + os.urandom(300_000) + b"\n%%EOF\n"
    sb.fail("*", listener="documents", action={"reset_after_bytes": 600}, times=1)
    sb.fail("*", listener="documents", action={"body_hex": _archive(pdf, streamed=False).hex()}, times=1)
    before = sb.counters()["faultsFired"].get("reset_after_bytes", 0)
    assert client.documents.download(document_id) == pdf
    assert sb.counters()["faultsFired"]["reset_after_bytes"] == before + 1


def test_download_to_streams_into_a_writer_or_a_path(sb, client, line_item, tmp_path):
    document_id = _ready_document(client, line_item)
    pdf = b"%PDF-1.7\n" + os.urandom(300_000) + b"\n%%EOF\n"
    archive = _archive(pdf, streamed=False).hex()
    sb.fail("*", listener="documents", action={"body_hex": archive}, times=2)

    class Chunks:
        def __init__(self) -> None:
            self.chunks: list = []

        def write(self, b: bytes) -> int:
            self.chunks.append(bytes(b))
            return len(b)

    sink = Chunks()
    assert client.documents.download_to(document_id, sink) == len(pdf)
    assert b"".join(sink.chunks) == pdf and len(sink.chunks) > 1  # streamed, not one piece
    target = tmp_path / "invoice.pdf"
    assert client.documents.download_to(document_id, target, allow_plaintext=True, progress=True) == len(pdf)
    assert target.read_bytes() == pdf and (target.stat().st_mode & 0o777) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["invoice.pdf"]


def test_download_to_a_path_is_encrypted_unless_asked_in_clear(sb, client, line_item, tmp_path, monkeypatch, capsys):
    document_id = _ready_document(client, line_item)
    pdf = client.documents.download(document_id)
    monkeypatch.delenv("ABWS_DOCUMENT_KEY", raising=False)
    # Neither a key nor the opt-in: refused before any request, no file.
    before = sb.counters()["requests"].get("getReportDocument", {})
    with pytest.raises(abws.ValidationError, match="allow_plaintext"):
        client.documents.download_to(document_id, tmp_path / "x.pdf")
    assert sb.counters()["requests"].get("getReportDocument", {}) == before
    assert list(tmp_path.iterdir()) == []
    # With a key (bytes, hex, or the environment): a sealed file that holds no PDF.
    key = os.urandom(32)
    sealed = tmp_path / "x.pdf.abws"
    assert client.documents.download_to(document_id, sealed, key=key) == len(pdf)
    data = sealed.read_bytes()
    assert data.startswith(b"ABWSENC1") and b"%PDF" not in data
    assert (sealed.stat().st_mode & 0o777) == 0o600
    assert abws.decrypt(data, key) == pdf
    assert abws.decrypt(data, key.hex()) == pdf
    monkeypatch.setenv("ABWS_DOCUMENT_KEY", key.hex())
    again = tmp_path / "again.abws"
    client.documents.download_to(document_id, again)
    assert abws.decrypt(again.read_bytes()) == pdf
    # A wrong key, a cut file: DocumentError.
    with pytest.raises(abws.DocumentError):
        abws.decrypt(data, os.urandom(32))
    with pytest.raises(abws.DocumentError):
        abws.decrypt(data[:-1], key)
    # The documented recipe, with the cryptography package alone.
    assert _open_with_cryptography(data, key) == pdf
    # The command line: python -m abws decrypt FILE -o OUT.
    out = tmp_path / "opened.pdf"
    r = subprocess.run(
        [sys.executable, "-m", "abws", "decrypt", str(sealed), "-o", str(out)],
        env={**os.environ, "ABWS_DOCUMENT_KEY": key.hex()},
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == pdf and (out.stat().st_mode & 0o777) == 0o600
    assert key.hex() not in r.stdout + r.stderr
    # A key given badly is refused without being repeated; both key and opt-in: refused.
    with pytest.raises(abws.ValidationError) as e:
        client.documents.download_to(document_id, tmp_path / "y", key="not-a-key-0123456789")
    assert "not-a-key" not in str(e.value)
    with pytest.raises(abws.ValidationError):
        client.documents.download_to(document_id, tmp_path / "y", key=key, allow_plaintext=True)
    # A file object with a key receives the sealed file.
    buf = io.BytesIO()
    client.documents.download_to(document_id, buf, key=key)
    assert abws.decrypt(buf.getvalue(), key) == pdf


def test_a_symlink_destination_is_refused(sb, client, line_item, tmp_path):
    document_id = _ready_document(client, line_item)
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    link = tmp_path / "invoice.pdf"
    link.symlink_to(victim)
    with pytest.raises(abws.DocumentError, match="symbolic link"):
        client.documents.download_to(document_id, link, allow_plaintext=True)
    # The old `.part` name, pre-created as a link, receives nothing either.
    part = tmp_path / "other.pdf.part"
    part.symlink_to(victim)
    client.documents.download_to(document_id, tmp_path / "other.pdf", allow_plaintext=True)
    assert victim.read_bytes() == b"keep"


def _open_with_cryptography(data: bytes, key: bytes) -> bytes:
    """The recipe of docs/python-api.md ("Encrypted document files"), verbatim."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    header, body = data[:28], data[28:]
    assert header[:8] == b"ABWSENC1"
    segment = int.from_bytes(header[8:12], "big") + 16
    file_key = HKDF(algorithm=hashes.SHA256(), length=32, salt=header[12:28], info=b"abws document v1").derive(key)
    aead, out, index = AESGCM(file_key), [], 0
    while True:
        chunk, body = body[:segment], body[segment:]
        last = not body
        nonce = bytes(7) + index.to_bytes(4, "big") + bytes([last])
        out.append(aead.decrypt(nonce, chunk, header))
        if last:
            return b"".join(out)
        index += 1


def test_download_to_reraises_the_writers_exception_and_leaves_no_partial_file(
    sb, client, line_item, tmp_path
):
    document_id = _ready_document(client, line_item)

    class Full:
        def write(self, b: bytes) -> int:
            raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        client.documents.download_to(document_id, Full())
    sb.fail("*", listener="documents", action={"reset_after_bytes": 600}, times=10)
    target = tmp_path / "invoice.pdf"
    with pytest.raises(abws.Error):
        client.documents.download_to(document_id, target, key=b"k" * 32)
    assert list(tmp_path.iterdir()) == []


# --- cart -----------------------------------------------------------------------------


def test_carts_listing(client):
    page = client.cart.list_carts(page_size=2)
    assert len(page.cart_details_list) == 2 and page.next_page_token
    nxt = client.cart.list_carts(page_size=2, page_token=page.next_page_token)
    assert nxt.cart_details_list[0].id != page.cart_details_list[0].id
    ids = [c.id for c in client.cart.iter_carts(page_size=2)]
    assert "cart-0001" in ids and len(ids) == len(set(ids))
    cart = client.cart.get_cart("cart-0001")
    assert cart.id == "cart-0001"
    assert client.cart.get_items("cart-0001").items


def test_cart_mutations_and_estimate(client, offer):
    asin, offer_id = offer
    added = client.cart.add_items("cart-0005", [
        {"product_identifier": asin, "buying_option_identifier": offer_id, "quantity": 1, "external_id": "py-1"}
    ])
    item = next(i for i in added.items if i.product_identifier == asin)
    modified = client.cart.modify_items("cart-0005", [{"itemId": item.item_id, "quantity": 2}])
    assert next(i for i in modified.items if i.item_id == item.item_id).quantity == 2
    cost = client.cart.get_estimated_total_purchase_cost("cart-0005", {
        "full_name": "Accounts", "address_line1": "1-1-1 Marunouchi", "city": "Tokyo",
        "state_or_region": "Tokyo", "postal_code": "100-0005", "country_code": "JP",
    })
    assert cost.charges and all(isinstance(c.amount.amount, Decimal) for c in cost.charges)
    assert client.cart.delete_items("cart-0005") is None
    assert not client.cart.get_items("cart-0005").items


def test_estimate_needs_an_address_before_sending(client, sb):
    sb.reset_counters()
    with pytest.raises(abws.ValidationError) as e:
        client.cart.get_estimated_total_purchase_cost("cart-0001", {"city": "Tokyo"})
    assert "address" in e.value.parameter
    assert not sb.counters()["requests"].get("getEstimatedTotalPurchaseCost")


# --- products -------------------------------------------------------------------------


def test_product_search_and_offers(client, offer):
    asin, offer_id = offer
    result = client.products.search_products_request("JP", "ja-JP", keywords=["paper"], page_size=3)
    assert result.products and result.number_of_pages >= 1
    every = list(client.products.iter_search_products("JP", "ja-JP", keywords=["paper"], page_size=3))
    assert len(every) == result.matching_product_count
    product = client.products.products_request(asin, "JP", "ja-JP")
    assert product.asin == asin
    offers = client.products.search_offers_request(asin, "JP", "ja-JP")
    assert any(o.offer_id == offer_id for o in offers.offers)
    assert [o.offer_id for o in client.products.iter_search_offers(asin, "JP", "ja-JP")] == [
        o.offer_id for o in offers.offers
    ]
    by_asin = client.products.get_products_by_asins(product_ids=[asin], product_region="JP", locale="ja-JP")
    assert by_asin.products[0].asin == asin
    by_offer = client.products.get_offers_by_offer_ids(
        offer_ids=[offer_id], inclusions_for_offers=["PRICE"], product_region="JP", locale="ja-JP"
    )
    assert by_offer.offers[0].offer_id == offer_id


def test_products_need_a_locale(client):
    with pytest.raises(abws.ValidationError) as e:
        client.products.search_products_request("JP", None, keywords=["paper"])  # type: ignore[arg-type]
    assert e.value.parameter == "locale"
    with pytest.raises(abws.ValidationError) as e:
        client.products.search_products_request("JP", "xx", keywords=["paper"])
    assert e.value.parameter == "locale"


# --- ordering, reporting, tracking ----------------------------------------------------


def test_place_order_and_report_it(client, offer, sb):
    asin, offer_id = offer
    result = client.ordering.place_order("py-order-1", [order_line(asin, offer_id)], attributes=[], expectations=[])
    kinds = [a.acceptance_artifact_type for a in result.acceptance_artifacts]
    assert "OrderIdentifier" in kinds
    order_id = next(a.identifier for a in result.acceptance_artifacts if a.acceptance_artifact_type == "OrderIdentifier")
    again = client.ordering.place_order("py-order-1", [order_line(asin, offer_id)], attributes=[], expectations=[])
    assert again == result  # the service answers a repeated externalId with the original
    orders = client.reporting.get_orders_by_order_id(order_id, include_line_items=True)
    assert orders.orders[0].order_id == order_id


def test_orders_shipments_and_tracking(client, line_item):
    orders = client.reporting.get_orders_by_order_id(
        line_item.order_id, include_line_items=True, include_shipments=True, include_charges=True
    )
    order = orders.orders[0]
    assert isinstance(order.order_net_total, abws.Money)
    shipment = order.shipments[0]
    package = shipment["packages"][0]
    details = client.tracking.get_package_tracking_details(
        line_item.order_id, shipment["shipmentId"], package["packageId"]
    )
    assert type(details).__name__ == "PackageTrackingDetails"
    assert details.to_dict()


def test_shipment_line_item_reports(client):
    page = client.reporting.get_shipment_line_item_reports(START, END)
    assert page.shipment_line_items_report
    every = list(client.reporting.iter_shipment_line_item_reports(START, END, progress=True))
    assert len(every) >= len(page.shipment_line_items_report)
    assert every[0] == page.shipment_line_items_report[0]


def test_old_package_is_not_found(client, dataset):
    old = dataset["specials"]["oldPackage"]
    with pytest.raises(abws.NotFound) as e:
        client.tracking.get_package_tracking_details(old["orderId"], old["shipmentId"], old["packageId"])
    assert e.value.status == 404 and e.value.request_id


# --- argument shapes ------------------------------------------------------------------


def test_line_items_as_dicts_camel_or_snake_models_or_tuples(client, line_item):
    ids = (line_item.order_id, line_item.order_line_item_id, line_item.shipment_id)
    as_model = client.reconciliation.get_invoice_details_by_order_line_items([line_item])
    for item in (
        {"order_id": ids[0], "order_line_item_id": ids[1], "shipment_id": ids[2]},
        {"orderId": ids[0], "orderLineItemId": ids[1], "shipmentId": ids[2]},
        ids,
    ):
        assert client.reconciliation.get_invoice_details_by_order_line_items([item]) == as_model
    out = client.reconciliation.invoice_details_for(
        [line_item, ids, {"orderId": ids[0], "orderLineItemId": ids[1], "shipmentId": ids[2]}]
    )
    assert len(out) == 3 and out[0] == out[1] == out[2]


def test_place_order_reads_snake_and_camel_keys(client, offer):
    asin, offer_id = offer
    snake = order_line(asin, offer_id, external_id="7")
    camel = dict(snake)
    camel["externalId"] = camel.pop("external_id")
    a = client.ordering.place_order("py-order-keys", [snake])
    b = client.ordering.place_order("py-order-keys", [camel])
    assert a == b and a.acceptance_artifacts


def test_a_str_where_a_list_of_str_is_expected_is_one_item(client, offer):
    asin, _ = offer
    one = client.products.get_products_by_asins(asin, "JP", "ja-JP")
    assert [p.asin for p in one.products] == [asin]


# --- the wire form the service accepts -------------------------------------------------


def _received(sb, path_part):
    """(path, headers, body as JSON or None) of each request the sandbox received whose
    path holds ``path_part``, in order."""
    import json

    return [
        (h["path"], h["headers"], json.loads(h["body"], parse_float=Decimal) if "body" in h else None)
        for h in sb.counters()["headersSeen"]["api"]
        if path_part in h["path"]
    ]


def test_get_offers_by_offer_ids_sends_the_declared_body(client, offer, sb):
    _, offer_id = offer
    sb.reset_counters()
    got = client.products.get_offers_by_offer_ids(
        offer_ids=[offer_id], inclusions_for_offers=["ALL"], product_region="jp", locale="ja_JP"
    )
    assert got.offers[0].offer_id == offer_id
    [(path, headers, body)] = _received(sb, "/offers/getOffersByOfferIds")
    assert body == {"offersByOfferIdsRequest": [{"offerId": offer_id}], "productRegion": "JP", "locale": "ja-JP"}
    assert path.endswith("?inclusionsForOffers=ALL")
    assert headers["x-svc-user-email"] == sb.credentials()["user_email"]


def test_add_items_makes_an_external_id_per_item_and_returns_them(client, offer, sb):
    asin, offer_id = offer
    item = {"product_identifier": asin, "buying_option_identifier": offer_id, "quantity": 1}
    sb.reset_counters()
    sb.fail("addItems", 429, times=1)  # refused before processing: the retry is the same request
    added = client.cart.add_items("cart-0004", [item, {**item, "external_id": "py-own"}, item])
    sent = [body["items"] for _, _, body in _received(sb, "/carts/cart-0004/items")]
    assert len(sent) == 2 and sent[0] == sent[1]
    ids = [i["externalId"] for i in sent[0]]
    assert ids[1] == "py-own" and ids[0] != ids[2] and all(len(i) == 36 for i in (ids[0], ids[2]))
    assert added.external_ids == ids
    assert added.to_dict()["externalIds"] == ids
    again = client.cart.add_items("cart-0004", [item])
    assert len(again.external_ids) == 1 and again.external_ids[0] not in ids


def _distribution(amount):
    return {"attributeType": "Distribution", "charge": {"amount": {"currencyCode": "JPY", "amount": amount}},
            "accounting": {"name": "Dept", "segments": [{"id": "7", "type": "COST_CENTER"}]}}


def test_money_given_as_text_goes_out_as_a_json_number(client, offer, sb):
    asin, offer_id = offer
    sb.reset_counters()
    line = order_line(asin, offer_id)
    line["attributes"].append(_distribution(Decimal("250.50")))
    client.ordering.place_order("py-money-1", [line], attributes=[_distribution("500.00")], expectations=[])
    [(_, _, body)] = _received(sb, "/ordering/")
    assert body["attributes"][0]["charge"]["amount"]["amount"] == Decimal("500.00")
    assert body["lineItems"][0]["attributes"][2]["charge"]["amount"]["amount"] == Decimal("250.50")
    [raw] = [h["body"] for h in sb.counters()["headersSeen"]["api"] if "/ordering/" in h["path"]]
    assert '"amount":500.00' in raw and '"amount":250.50' in raw, raw
    with pytest.raises(abws.ValidationError) as e:
        client.ordering.place_order("py-money-2", [order_line(asin, offer_id)], attributes=[_distribution("lots")],
                                    expectations=[])
    assert e.value.parameter == "attributes[0].charge.amount.amount"
    assert len(_received(sb, "/ordering/")) == 1  # nothing sent


def test_user_email_only_where_an_operation_declares_it(client, offer, sb, line_item):
    asin, _ = offer
    sb.reset_counters()
    client.cart.list_carts()
    client.cart.get_items("cart-0001")
    client.products.products_request(asin, "JP", "ja-JP")
    client.invoices.get_invoices(START, END)
    client.reconciliation.get_transactions(START, END)
    client.reporting.get_orders_by_order_id(line_item.order_id)
    client.reporting.get_shipment_line_item_reports(START, END)
    seen = [h for h in sb.counters()["headersSeen"]["api"] if "/auth/" not in h["path"]]
    assert len(seen) == 7
    for h in seen:
        declared = "/carts?" in h["path"] or "/products/" in h["path"]
        assert ("x-svc-user-email" in h["headers"]) == declared, h["path"]


def test_get_orders_by_order_id_needs_no_user_email(sb, line_item):
    client = sb.client("JP", rate_limiting=False, user_email=None)
    orders = client.reporting.get_orders_by_order_id(line_item.order_id)
    assert orders.orders[0].order_id == line_item.order_id
    with pytest.raises(TypeError):
        client.reporting.get_orders_by_order_id(line_item.order_id, user_email="buyer@sandbox-business.example")  # type: ignore[call-arg]
    with pytest.raises(abws.ValidationError) as e:
        client.cart.list_carts()  # declared there: still required
    assert e.value.parameter == "user_email"
