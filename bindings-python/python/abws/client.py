"""The client and its API groups.

Every operation keeps the specification's name (snake_case operationId) and parameter
names; the work is done by the Rust core (validation, rate limits, retries, paging,
documents). Each blocking call releases the GIL and can be interrupted with Ctrl-C.
"""

from __future__ import annotations

import logging
import os
import time
from datetime import date, datetime, timezone
from typing import (
    Any,
    BinaryIO,
    Dict,
    Generic,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    TypeVar,
    Union,
)

from . import _abws
from .exceptions import ValidationError
from .models import Model

__all__ = [
    "Client",
    "Listing",
    "DateLike",
    "Invoices",
    "Reconciliation",
    "Documents",
    "Cart",
    "Products",
    "Ordering",
    "Reporting",
    "Tracking",
]

logger = logging.getLogger("abws")

DateLike = Union[datetime, date, str]
"""A date-time argument: an aware ``datetime`` (a naive one is read as UTC), a ``date``
(midnight UTC) or ISO 8601 text."""

T = TypeVar("T")

_ENV = {
    "region": "ABWS_REGION",
    "client_id": "ABWS_CLIENT_ID",
    "client_secret": "ABWS_CLIENT_SECRET",
    "refresh_token": "ABWS_REFRESH_TOKEN",
    "access_token": "ABWS_ACCESS_TOKEN",
    "user_email": "ABWS_USER_EMAIL",
    "endpoint": "ABWS_ENDPOINT",
    "auth_endpoint": "ABWS_AUTH_ENDPOINT",
    "consent_endpoint": "ABWS_CONSENT_ENDPOINT",
}
_SECRETS = ("client_secret", "refresh_token", "access_token")


def _iso(name: str, value: Optional[DateLike]) -> Optional[str]:
    """ISO 8601 text for the core (which validates it and names the parameter)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value.isoformat()
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc).isoformat()
    raise ValidationError(
        f"invalid {name}: must be a datetime, a date or ISO 8601 text (got {type(value).__name__})",
        parameter=name,
        kind="validation",
    )


def _list(name: str, value: Any) -> Optional[List[Any]]:
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    try:
        return list(value)
    except TypeError:
        raise ValidationError(
            f"invalid {name}: must be a list (got {type(value).__name__})",
            parameter=name,
            kind="validation",
        ) from None


def _snake_keys(value: Any) -> Any:
    """Dict keys as snake_case (callers may use the wire's camelCase)."""
    from .models import _snake

    if isinstance(value, Model):
        value = value.fields()
    if isinstance(value, Mapping):
        return {_snake(str(k)): v for k, v in value.items()}
    return value


def _line_item_ref(name: str, i: int, item: Any) -> Dict[str, Any]:
    if isinstance(item, (tuple, list)) and len(item) == 3:
        return {"order_id": item[0], "order_line_item_id": item[1], "shipment_id": item[2]}
    if isinstance(item, Model):
        # A result model (a transaction line item): read the three fields directly; turning
        # every field name to snake_case cost ~0.1 ms per item (benchmark B5).
        return {
            "order_id": getattr(item, "order_id", None),
            "order_line_item_id": getattr(item, "order_line_item_id", None),
            "shipment_id": getattr(item, "shipment_id", None),
        }
    d = _snake_keys(item)
    if isinstance(d, dict):
        return {
            "order_id": d.get("order_id"),
            "order_line_item_id": d.get("order_line_item_id"),
            "shipment_id": d.get("shipment_id"),
        }
    raise ValidationError(
        f"invalid {name}[{i}]: must be a dict, a model with order_id, order_line_item_id and "
        "shipment_id, or a tuple of the three",
        parameter=f"{name}[{i}]",
        kind="validation",
    )


def _progress(enabled: bool, desc: str, unit: str) -> Any:
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        logger.info("progress=True needs tqdm (pip install tqdm); continuing without a bar")
        return None
    return tqdm(desc=desc, unit=unit, unit_scale=unit == "B")


class Listing(Iterator[T], Generic[T]):
    """The items of a paged listing, fetched page by page as you iterate.

    Iterate it for the items; ``pages()`` walks the remaining pages instead;
    ``items_yielded`` counts the items delivered so far.
    """

    def __init__(self, pager: Any, items_field: str, op: str, progress: bool) -> None:
        self._pager = pager
        self._field = items_field
        self._op = op
        self._buffer: List[Any] = []
        self._pos = 0
        self._bar = _progress(progress, op, "item")
        self._done = False

    def _fetch(self) -> Optional[Model]:
        if self._done:
            return None
        start = time.monotonic()
        try:
            page = self._pager.next_page()
        except BaseException:
            self._close_bar()
            self._done = True
            raise
        if page is None:
            self._done = True
            self._close_bar()
            return None
        items = getattr(page, self._field, None) or []
        logger.debug("%s: page of %d item(s) in %.3f s", self._op, len(items), time.monotonic() - start)
        if self._bar is not None:
            self._bar.update(len(items))
        return page  # type: ignore[no-any-return]

    def _close_bar(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __iter__(self) -> "Listing[T]":
        return self

    def __next__(self) -> T:
        while self._pos >= len(self._buffer):
            page = self._fetch()
            if page is None:
                raise StopIteration
            self._buffer = list(getattr(page, self._field, None) or [])
            self._pos = 0
        item = self._buffer[self._pos]
        self._pos += 1
        return item  # type: ignore[no-any-return]

    def pages(self) -> Iterator[Model]:
        """The remaining pages, whole (with their next_page_token and other fields)."""
        while True:
            page = self._fetch()
            if page is None:
                return
            yield page

    @property
    def items_yielded(self) -> int:
        """Items received so far, over every page fetched."""
        return int(self._pager.items_yielded)

    def __repr__(self) -> str:
        return f"<abws.Listing {self._op} items_yielded={self.items_yielded}>"


def _drop_none(d: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


class _Group:
    def __init__(self, client: "Client") -> None:
        self._client = client

    def _call(self, op: str, args: Dict[str, Any]) -> Any:
        return self._client._call(op, args)

    def _listing(self, op: str, field: str, args: Dict[str, Any], progress: bool) -> Listing[Any]:
        return self._client._listing(op, field, args, progress)

    def _region(self, region: Optional[str]) -> str:
        return region if region is not None else self._client.region

    def __repr__(self) -> str:
        return f"<abws.{type(self).__name__} of {self._client!r}>"


class Invoices(_Group):
    """Invoices 2026-02-01."""

    def get_invoices(
        self,
        invoice_issue_start_date: DateLike,
        invoice_issue_end_date: DateLike,
        *,
        region: Optional[str] = None,
        payment_method_types: Optional[Sequence[str]] = None,
        next_page_token: Optional[str] = None,
    ) -> Any:
        """getInvoices: one page of invoices issued in a date range (at most 366 days,
        end not in the future). ``region`` filters (omitted: every marketplace of the
        client's address). Naive datetimes are read as UTC. Returns an ``InvoicesPage``."""
        return self._call(
            "get_invoices",
            _drop_none(
                {
                    "invoice_issue_start_date": _iso("invoice_issue_start_date", invoice_issue_start_date),
                    "invoice_issue_end_date": _iso("invoice_issue_end_date", invoice_issue_end_date),
                    "region": region,
                    "payment_method_types": _list("payment_method_types", payment_method_types),
                    "next_page_token": next_page_token,
                }
            ),
        )

    def iter_invoices(
        self,
        invoice_issue_start_date: DateLike,
        invoice_issue_end_date: DateLike,
        *,
        region: Optional[str] = None,
        payment_method_types: Optional[Sequence[str]] = None,
        progress: bool = False,
    ) -> Listing[Any]:
        """Every invoice of the range (``InvoiceSummary``), page after page, lazily."""
        return self._listing(
            "iter_invoices",
            "invoices",
            _drop_none(
                {
                    "invoice_issue_start_date": _iso("invoice_issue_start_date", invoice_issue_start_date),
                    "invoice_issue_end_date": _iso("invoice_issue_end_date", invoice_issue_end_date),
                    "region": region,
                    "payment_method_types": _list("payment_method_types", payment_method_types),
                }
            ),
            progress,
        )

    def get_invoice_detail_by_invoice_number(self, invoice_number: str, *, region: Optional[str] = None) -> Any:
        """getInvoiceDetailByInvoiceNumber: one invoice (``InvoiceDetail``). ``region``
        defaults to the client's."""
        return self._call(
            "get_invoice_detail_by_invoice_number",
            {"invoice_number": invoice_number, "region": self._region(region)},
        )

    def get_invoice_line_items_by_invoice_number(
        self,
        invoice_number: str,
        *,
        region: Optional[str] = None,
        next_page_token: Optional[str] = None,
    ) -> Any:
        """getInvoiceLineItemsByInvoiceNumber: one page of an invoice's line items."""
        return self._call(
            "get_invoice_line_items_by_invoice_number",
            _drop_none(
                {
                    "invoice_number": invoice_number,
                    "region": self._region(region),
                    "next_page_token": next_page_token,
                }
            ),
        )

    def iter_invoice_line_items(
        self, invoice_number: str, *, region: Optional[str] = None, progress: bool = False
    ) -> Listing[Any]:
        """Every line item of an invoice (``InvoiceLineItem``), lazily."""
        return self._listing(
            "iter_invoice_line_items",
            "line_items",
            {"invoice_number": invoice_number, "region": self._region(region)},
            progress,
        )


class Reconciliation(_Group):
    """Reconciliation 2021-01-08."""

    def get_transactions(
        self,
        feed_start_date: DateLike,
        feed_end_date: DateLike,
        *,
        next_page_token: Optional[str] = None,
    ) -> Any:
        """getTransactions: one page of the transactions of a feed-date range."""
        return self._call(
            "get_transactions",
            _drop_none(
                {
                    "feed_start_date": _iso("feed_start_date", feed_start_date),
                    "feed_end_date": _iso("feed_end_date", feed_end_date),
                    "next_page_token": next_page_token,
                }
            ),
        )

    def iter_transactions(
        self, feed_start_date: DateLike, feed_end_date: DateLike, *, progress: bool = False
    ) -> Listing[Any]:
        """Every transaction of the range (``Transaction``), lazily."""
        return self._listing(
            "iter_transactions",
            "transactions",
            {
                "feed_start_date": _iso("feed_start_date", feed_start_date),
                "feed_end_date": _iso("feed_end_date", feed_end_date),
            },
            progress,
        )

    def get_invoice_details_by_order_line_items(self, order_line_items: Sequence[Any]) -> Any:
        """getInvoiceDetailsByOrderLineItems: the invoice data of 1 to 25 order line items.

        Each item is a dict (``order_id``, ``order_line_item_id``, ``shipment_id``; the
        wire's camelCase also works), a result model with those fields (a transaction
        line item) or a tuple of the three."""
        items = [_line_item_ref("order_line_items", i, x) for i, x in enumerate(order_line_items)]
        return self._call("get_invoice_details_by_order_line_items", {"items": items})

    def invoice_details_for(self, line_items: Sequence[Any]) -> List[Any]:
        """The invoice data of any number of line items with the fewest requests
        (batches of 25; one request per order and shipment). One result per input, in
        input order."""
        items = [_line_item_ref("line_items", i, x) for i, x in enumerate(line_items)]
        return self._call("invoice_details_for", {"items": items})  # type: ignore[no-any-return]


class _CountingWriter:
    """A writer that moves a progress bar by every chunk written through it."""

    def __init__(self, target: Any, bar: Any) -> None:
        self._target = target
        self._bar = bar

    def write(self, chunk: bytes) -> Any:
        written = self._target.write(chunk)
        self._bar.update(len(chunk))
        return written

    def flush(self) -> None:
        if hasattr(self._target, "flush"):
            self._target.flush()


class Documents(_Group):
    """Reports and documents 2021-09-30 (PDF invoices and credit notes)."""

    def create_report(
        self,
        report_options: Mapping[str, Any],
        *,
        report_type: Optional[str] = None,
        marketplace_ids: Optional[Sequence[str]] = None,
    ) -> Any:
        """createReport. ``report_options``: ``invoice_id``, ``order_id``,
        ``order_line_item_id``, ``shipment_id``, ``document_type`` (Invoice or Credits).
        ``report_type`` defaults to GET_AB_INVOICE_PDF, ``marketplace_ids`` to the
        client region's marketplace."""
        return self._call(
            "create_report",
            _drop_none(
                {
                    "report_type": report_type,
                    "marketplace_ids": _list("marketplace_ids", marketplace_ids),
                    "report_options": _drop_none(_snake_keys(dict(report_options))),
                }
            ),
        )

    def get_report(self, report_id: str) -> Any:
        """getReport: a report's processing status (and document id once DONE)."""
        return self._call("get_report", {"id": report_id})

    def get_report_document(self, report_document_id: str) -> Any:
        """getReportDocument: the document's presigned address and compression."""
        return self._call("get_report_document", {"id": report_document_id})

    def wait_for_report(self, report_id: str, poll_interval: float = 15.0, timeout: Optional[float] = None) -> Any:
        """Polls getReport every ``poll_interval`` seconds until DONE (returns the
        ``Report``); CANCELLED/FATAL raise ``ReportFailed``; ``timeout`` (seconds) bounds
        the wait with ``Timeout``. Ctrl-C interrupts it."""
        return self._call(
            "wait_for_report",
            _drop_none({"report_id": report_id, "poll_interval": float(poll_interval), "timeout": timeout}),
        )

    def download(self, report_document_id: str, *, progress: bool = False) -> bytes:
        """Downloads a report document and returns the PDF, unpacked in memory (gzip and
        zip); an error document inside raises ``DocumentError``."""
        bar = _progress(progress, "download", "B")
        try:
            data: bytes = self._call("download", {"id": report_document_id})
            if bar is not None:
                bar.update(len(data))
            return data
        finally:
            if bar is not None:
                bar.close()

    def download_to(
        self, report_document_id: str, writer: Union[BinaryIO, str, "os.PathLike[str]"], *, progress: bool = False
    ) -> int:
        """Downloads a report document and streams the PDF into ``writer`` as it arrives
        (gzip and zip unpacked on the fly: memory does not grow with the document);
        returns its size in bytes.

        ``writer`` is a binary file object (anything with ``write(bytes)``) or a path: the
        PDF is then written to ``<path>.part`` (owner-only permissions) and renamed into
        place once complete, so a failed download never leaves a partial file behind. A
        file object that fails part-way holds the bytes written so far; an exception its
        ``write`` raises is re-raised as it is.
        """
        bar = _progress(progress, "download", "B")
        try:
            if isinstance(writer, (str, os.PathLike)):
                return self._download_to_path(report_document_id, os.fspath(writer), bar)
            return self._download_to(report_document_id, writer, bar)
        finally:
            if bar is not None:
                bar.close()

    def _download_to(self, report_document_id: str, writer: Any, bar: Any) -> int:
        if bar is not None:
            writer = _CountingWriter(writer, bar)
        size: int = self._client._native.download_to(report_document_id, writer)
        return size

    def _download_to_path(self, report_document_id: str, path: str, bar: Any) -> int:
        report = None
        if bar is not None:
            def report(written: int) -> None:
                bar.update(written - bar.n)

        size: int = self._client._native.download_to_path(report_document_id, path, report)
        return size

    def fetch_pdf(
        self,
        *,
        order_id: Optional[str] = None,
        order_line_item_id: Optional[str] = None,
        shipment_id: Optional[str] = None,
        invoice_id: Optional[str] = None,
        document_type: Optional[str] = None,
        report_type: Optional[str] = None,
        marketplace_ids: Optional[Sequence[str]] = None,
        poll_interval: float = 15.0,
        timeout: Optional[float] = None,
        progress: bool = False,
    ) -> bytes:
        """create → wait → document → download in one call; returns the PDF bytes."""
        bar = _progress(progress, "fetch_pdf", "B")
        try:
            data: bytes = self._call(
                "fetch_pdf",
                _drop_none(
                    {
                        "params": _drop_none(
                            {
                                "report_type": report_type,
                                "marketplace_ids": _list("marketplace_ids", marketplace_ids),
                                "report_options": _drop_none(
                                    {
                                        "order_id": order_id,
                                        "order_line_item_id": order_line_item_id,
                                        "shipment_id": shipment_id,
                                        "invoice_id": invoice_id,
                                        "document_type": document_type,
                                    }
                                ),
                            }
                        ),
                        "poll_interval": float(poll_interval),
                        "timeout": timeout,
                    }
                ),
            )
            if bar is not None:
                bar.update(len(data))
            return data
        finally:
            if bar is not None:
                bar.close()


class Cart(_Group):
    """Cart 2025-04-30."""

    def list_carts(
        self, *, region: Optional[str] = None, page_size: Optional[int] = None, page_token: Optional[str] = None
    ) -> Any:
        """listCarts: one page of the user's carts (needs the client's user_email)."""
        return self._call(
            "list_carts",
            _drop_none({"region": self._region(region), "page_size": page_size, "page_token": page_token}),
        )

    def iter_carts(
        self, *, region: Optional[str] = None, page_size: Optional[int] = None, progress: bool = False
    ) -> Listing[Any]:
        """Every cart (``CartDetails``), lazily."""
        return self._listing(
            "iter_carts",
            "cart_details_list",
            _drop_none({"region": self._region(region), "page_size": page_size}),
            progress,
        )

    def get_cart(self, cart_id: str, *, region: Optional[str] = None) -> Any:
        """getCart."""
        return self._call("get_cart", {"cart_id": cart_id, "region": self._region(region)})

    def get_items(self, cart_id: str, *, region: Optional[str] = None) -> Any:
        """getItems: the items of a cart."""
        return self._call("get_items", {"cart_id": cart_id, "region": self._region(region)})

    def add_items(self, cart_id: str, items: Sequence[Mapping[str, Any]], *, region: Optional[str] = None) -> Any:
        """addItems. Each item: ``product_identifier``, ``buying_option_identifier``,
        ``quantity``, optional ``external_id``. Not resent after an ambiguous failure:
        that raises ``OutcomeUnknown``."""
        return self._call(
            "add_items",
            {
                "cart_id": cart_id,
                "region": self._region(region),
                "items": [_drop_none(_snake_keys(dict(x))) for x in items],
            },
        )

    def modify_items(self, cart_id: str, items: Sequence[Mapping[str, Any]], *, region: Optional[str] = None) -> Any:
        """modifyItems. Each item: ``item_id`` and the new absolute ``quantity`` (0 removes)."""
        return self._call(
            "modify_items",
            {
                "cart_id": cart_id,
                "region": self._region(region),
                "items": [_snake_keys(dict(x)) for x in items],
            },
        )

    def delete_items(self, cart_id: str, *, region: Optional[str] = None) -> None:
        """deleteItems: empties the cart."""
        self._call("delete_items", {"cart_id": cart_id, "region": self._region(region)})

    def get_estimated_total_purchase_cost(
        self, cart_id: str, address: Mapping[str, Any], *, region: Optional[str] = None
    ) -> Any:
        """getEstimatedTotalPurchaseCost for a delivery address (``full_name``,
        ``address_line1``, ``city``, ``state_or_region``, ``postal_code``,
        ``country_code`` required; ``phone_number``, ``company_name``,
        ``address_line2`` optional)."""
        return self._call(
            "get_estimated_total_purchase_cost",
            {
                "cart_id": cart_id,
                "region": self._region(region),
                "address": _drop_none(_snake_keys(dict(address))),
            },
        )


class Products(_Group):
    """Product search 2020-08-26. ``product_region`` defaults to the client's region;
    ``locale`` (e.g. ``en-US``) is required; the client needs a ``user_email``."""

    def _context(
        self,
        product_region: Optional[str],
        locale: Optional[str],
        shipping_region: Optional[str],
        shipping_postal_code: Optional[str],
        group_tag: Optional[str],
    ) -> Dict[str, Any]:
        return _drop_none(
            {
                "product_region": self._region(product_region),
                "locale": locale,
                "shipping_region": shipping_region,
                "shipping_postal_code": shipping_postal_code,
                "group_tag": group_tag,
            }
        )

    def _search_args(self, kw: Dict[str, Any]) -> Dict[str, Any]:
        ctx = self._context(
            kw.pop("product_region"),
            kw.pop("locale"),
            kw.pop("shipping_region"),
            kw.pop("shipping_postal_code"),
            kw.pop("group_tag"),
        )
        for name in (
            "keywords",
            "facets",
            "search_refinements",
            "product_filters",
            "inclusions_for_products",
            "inclusions_for_offers",
        ):
            kw[name] = _list(name, kw[name])
        return {**ctx, **_drop_none(kw)}

    def search_products_request(
        self,
        *,
        keywords: Optional[Sequence[str]] = None,
        product_region: Optional[str] = None,
        locale: Optional[str] = None,
        shipping_region: Optional[str] = None,
        shipping_postal_code: Optional[str] = None,
        group_tag: Optional[str] = None,
        facets: Optional[Sequence[str]] = None,
        page_number: Optional[int] = None,
        page_size: Optional[int] = None,
        category: Optional[str] = None,
        sub_category: Optional[str] = None,
        availability: Optional[str] = None,
        delivery_day: Optional[str] = None,
        eligible_for_free_shipping: Optional[str] = None,
        prime_eligible: Optional[str] = None,
        upc: Optional[str] = None,
        isbn: Optional[str] = None,
        sku: Optional[str] = None,
        ean: Optional[str] = None,
        part_number: Optional[str] = None,
        oem_part_number: Optional[str] = None,
        search_refinements: Optional[Sequence[str]] = None,
        product_filters: Optional[Sequence[str]] = None,
        inclusions_for_products: Optional[Sequence[str]] = None,
        inclusions_for_offers: Optional[Sequence[str]] = None,
        sort_key: Optional[str] = None,
        min_price: Optional[int] = None,
        max_price: Optional[int] = None,
    ) -> Any:
        """searchProductsRequest: one page of products (``page_number`` 0–13,
        ``page_size`` up to 24)."""
        kw = dict(locals())
        kw.pop("self")
        return self._call("search_products_request", self._search_args(kw))

    def iter_search_products(
        self,
        *,
        keywords: Optional[Sequence[str]] = None,
        product_region: Optional[str] = None,
        locale: Optional[str] = None,
        shipping_region: Optional[str] = None,
        shipping_postal_code: Optional[str] = None,
        group_tag: Optional[str] = None,
        facets: Optional[Sequence[str]] = None,
        page_size: Optional[int] = None,
        category: Optional[str] = None,
        sub_category: Optional[str] = None,
        availability: Optional[str] = None,
        delivery_day: Optional[str] = None,
        eligible_for_free_shipping: Optional[str] = None,
        prime_eligible: Optional[str] = None,
        upc: Optional[str] = None,
        isbn: Optional[str] = None,
        sku: Optional[str] = None,
        ean: Optional[str] = None,
        part_number: Optional[str] = None,
        oem_part_number: Optional[str] = None,
        search_refinements: Optional[Sequence[str]] = None,
        product_filters: Optional[Sequence[str]] = None,
        inclusions_for_products: Optional[Sequence[str]] = None,
        inclusions_for_offers: Optional[Sequence[str]] = None,
        sort_key: Optional[str] = None,
        min_price: Optional[int] = None,
        max_price: Optional[int] = None,
        progress: bool = False,
    ) -> Listing[Any]:
        """Every product of every result page (``Product``), lazily."""
        kw = dict(locals())
        kw.pop("self")
        kw.pop("progress")
        return self._listing("iter_search_products", "products", self._search_args(kw), progress)

    def products_request(
        self,
        product_id: str,
        *,
        product_region: Optional[str] = None,
        locale: Optional[str] = None,
        shipping_region: Optional[str] = None,
        shipping_postal_code: Optional[str] = None,
        group_tag: Optional[str] = None,
        quantity: Optional[int] = None,
        facets: Optional[Sequence[str]] = None,
        inclusions_for_products: Optional[Sequence[str]] = None,
        inclusions_for_offers: Optional[Sequence[str]] = None,
    ) -> Any:
        """productsRequest: one product by ASIN."""
        params = {
            **self._context(product_region, locale, shipping_region, shipping_postal_code, group_tag),
            **_drop_none(
                {
                    "quantity": quantity,
                    "facets": _list("facets", facets),
                    "inclusions_for_products": _list("inclusions_for_products", inclusions_for_products),
                    "inclusions_for_offers": _list("inclusions_for_offers", inclusions_for_offers),
                }
            ),
        }
        return self._call("products_request", {"product_id": product_id, "params": params})

    def _offers_params(self, kw: Dict[str, Any]) -> Dict[str, Any]:
        ctx = self._context(
            kw.pop("product_region"),
            kw.pop("locale"),
            kw.pop("shipping_region"),
            kw.pop("shipping_postal_code"),
            kw.pop("group_tag"),
        )
        kw["filter_ids"] = _list("filter_ids", kw["filter_ids"])
        kw["inclusions_for_offers"] = _list("inclusions_for_offers", kw["inclusions_for_offers"])
        return {**ctx, **_drop_none(kw)}

    def search_offers_request(
        self,
        product_id: str,
        *,
        product_region: Optional[str] = None,
        locale: Optional[str] = None,
        shipping_region: Optional[str] = None,
        shipping_postal_code: Optional[str] = None,
        group_tag: Optional[str] = None,
        page_number: Optional[int] = None,
        page_size: Optional[int] = None,
        filter_ids: Optional[Sequence[str]] = None,
        quantity: Optional[int] = None,
        inclusions_for_offers: Optional[Sequence[str]] = None,
    ) -> Any:
        """searchOffersRequest: one page of a product's offers."""
        kw = dict(locals())
        kw.pop("self")
        product_id = kw.pop("product_id")
        return self._call("search_offers_request", {"product_id": product_id, "params": self._offers_params(kw)})

    def iter_search_offers(
        self,
        product_id: str,
        *,
        product_region: Optional[str] = None,
        locale: Optional[str] = None,
        shipping_region: Optional[str] = None,
        shipping_postal_code: Optional[str] = None,
        group_tag: Optional[str] = None,
        page_size: Optional[int] = None,
        filter_ids: Optional[Sequence[str]] = None,
        quantity: Optional[int] = None,
        inclusions_for_offers: Optional[Sequence[str]] = None,
        progress: bool = False,
    ) -> Listing[Any]:
        """Every offer of a product (``Offer``), lazily."""
        kw = dict(locals())
        kw.pop("self")
        kw.pop("progress")
        product_id = kw.pop("product_id")
        return self._listing(
            "iter_search_offers",
            "offers",
            {"product_id": product_id, "params": self._offers_params(kw)},
            progress,
        )

    def _by_ids(
        self,
        op: str,
        ids: Sequence[str],
        product_region: Optional[str],
        locale: Optional[str],
        shipping_region: Optional[str],
        shipping_postal_code: Optional[str],
        group_tag: Optional[str],
        quantity: Optional[int],
        facets: Optional[Sequence[str]],
        inclusions_for_products: Optional[Sequence[str]],
        inclusions_for_offers: Optional[Sequence[str]],
    ) -> Any:
        params = {
            **self._context(product_region, locale, shipping_region, shipping_postal_code, group_tag),
            **_drop_none(
                {
                    "ids": _list("ids", ids),
                    "quantity": quantity,
                    "facets": _list("facets", facets),
                    "inclusions_for_products": _list("inclusions_for_products", inclusions_for_products),
                    "inclusions_for_offers": _list("inclusions_for_offers", inclusions_for_offers),
                }
            ),
        }
        return self._call(op, params)

    def get_products_by_asins(
        self,
        product_ids: Sequence[str],
        *,
        product_region: Optional[str] = None,
        locale: Optional[str] = None,
        shipping_region: Optional[str] = None,
        shipping_postal_code: Optional[str] = None,
        group_tag: Optional[str] = None,
        quantity: Optional[int] = None,
        facets: Optional[Sequence[str]] = None,
        inclusions_for_products: Optional[Sequence[str]] = None,
        inclusions_for_offers: Optional[Sequence[str]] = None,
    ) -> Any:
        """getProductsByAsins: 1 to 30 products by ASIN."""
        return self._by_ids(
            "get_products_by_asins",
            product_ids,
            product_region,
            locale,
            shipping_region,
            shipping_postal_code,
            group_tag,
            quantity,
            facets,
            inclusions_for_products,
            inclusions_for_offers,
        )

    def get_offers_by_offer_ids(
        self,
        offer_ids: Sequence[str],
        *,
        inclusions_for_offers: Sequence[str],
        product_region: Optional[str] = None,
        locale: Optional[str] = None,
        shipping_region: Optional[str] = None,
        shipping_postal_code: Optional[str] = None,
        group_tag: Optional[str] = None,
        quantity: Optional[int] = None,
        facets: Optional[Sequence[str]] = None,
        inclusions_for_products: Optional[Sequence[str]] = None,
    ) -> Any:
        """getOffersByOfferIds: 1 to 30 offers by id (``inclusions_for_offers`` required)."""
        return self._by_ids(
            "get_offers_by_offer_ids",
            offer_ids,
            product_region,
            locale,
            shipping_region,
            shipping_postal_code,
            group_tag,
            quantity,
            facets,
            inclusions_for_products,
            inclusions_for_offers,
        )


_LINE_KEYS = {"external_id": "externalId"}


class Ordering(_Group):
    """Ordering 2022-10-30."""

    def place_order(
        self,
        external_id: str,
        line_items: Sequence[Mapping[str, Any]],
        *,
        attributes: Optional[Sequence[Mapping[str, Any]]] = None,
        expectations: Optional[Sequence[Mapping[str, Any]]] = None,
        e_invoicing: bool = False,
    ) -> Any:
        """placeOrder. ``line_items``: dicts with ``external_id`` (or ``externalId``),
        ``quantity``, ``attributes`` and ``expectations`` in the spec's wire form
        (``{"attributeType": "SelectedProductReference", "productReference": {...}}``).
        Never resent after an ambiguous failure: that raises ``OutcomeUnknown`` with the
        ``external_id`` to check."""
        lines = [{_LINE_KEYS.get(k, k): v for k, v in dict(li).items()} for li in line_items]
        body: Dict[str, Any] = {"externalId": external_id, "lineItems": lines}
        if attributes is not None:
            body["attributes"] = list(attributes)
        if expectations is not None:
            body["expectations"] = list(expectations)
        if e_invoicing:
            body["e_invoicing"] = True
        return self._call("place_order", body)


class Reporting(_Group):
    """Order reporting 2021-01-08 and shipment line item reporting 2025-06-09."""

    def get_orders_by_order_id(
        self,
        order_id: str,
        *,
        include_line_items: bool = False,
        include_shipments: bool = False,
        include_charges: bool = False,
    ) -> Any:
        """getOrdersByOrderId."""
        return self._call(
            "get_orders_by_order_id",
            {
                "order_id": order_id,
                "includes": {
                    "include_line_items": bool(include_line_items),
                    "include_shipments": bool(include_shipments),
                    "include_charges": bool(include_charges),
                },
            },
        )

    def _shipment_args(self, kw: Dict[str, Any]) -> Dict[str, Any]:
        return _drop_none(
            {
                "order_start_date": _iso("order_start_date", kw["order_start_date"]),
                "order_end_date": _iso("order_end_date", kw["order_end_date"]),
                "purchase_order_numbers": _list("purchase_order_numbers", kw["purchase_order_numbers"]),
                "region": kw["region"],
                "order_ids": _list("order_ids", kw["order_ids"]),
                "next_page_token": kw.get("next_page_token"),
            }
        )

    def get_shipment_line_item_reports(
        self,
        order_start_date: DateLike,
        order_end_date: DateLike,
        *,
        purchase_order_numbers: Optional[Sequence[str]] = None,
        region: Optional[str] = None,
        order_ids: Optional[Sequence[str]] = None,
        next_page_token: Optional[str] = None,
    ) -> Any:
        """getShipmentLineItemReports: one page (range at most 366 days)."""
        return self._call("get_shipment_line_item_reports", self._shipment_args(dict(locals())))

    def iter_shipment_line_item_reports(
        self,
        order_start_date: DateLike,
        order_end_date: DateLike,
        *,
        purchase_order_numbers: Optional[Sequence[str]] = None,
        region: Optional[str] = None,
        order_ids: Optional[Sequence[str]] = None,
        progress: bool = False,
    ) -> Listing[Any]:
        """Every shipment line item report (``ShipmentLineItemReport``), lazily."""
        return self._listing(
            "iter_shipment_line_item_reports",
            "shipment_line_items_report",
            self._shipment_args(dict(locals())),
            progress,
        )


class Tracking(_Group):
    """Package tracking 2025-07-02."""

    def get_package_tracking_details(
        self,
        order_id: str,
        shipment_id: str,
        package_id: str,
        *,
        region: Optional[str] = None,
        locale: Optional[str] = None,
    ) -> Any:
        """getPackageTrackingDetails."""
        return self._call(
            "get_package_tracking_details",
            _drop_none(
                {
                    "order_id": order_id,
                    "shipment_id": shipment_id,
                    "package_id": package_id,
                    "region": self._region(region),
                    "locale": locale,
                }
            ),
        )


class Client:
    """A client of every API group. Safe to share between threads; usable in a child
    after ``os.fork`` (its connections are rebuilt there); picklable.

    Pickling carries the settings but not the secrets unless ``pickle_secrets=True``:
    an unpickled client reads ``ABWS_CLIENT_SECRET`` and ``ABWS_REFRESH_TOKEN`` (or
    ``ABWS_ACCESS_TOKEN``) from its own environment.
    """

    invoices: Invoices
    reconciliation: Reconciliation
    documents: Documents
    cart: Cart
    products: Products
    ordering: Ordering
    reporting: Reporting
    tracking: Tracking

    def __init__(
        self,
        region: str = "US",
        *,
        client_id: Optional[str] = None,
        client_secret: Optional[str] = None,
        refresh_token: Optional[str] = None,
        access_token: Optional[str] = None,
        user_email: Optional[str] = None,
        endpoint: Optional[str] = None,
        auth_endpoint: Optional[str] = None,
        consent_endpoint: Optional[str] = None,
        connect_timeout: Optional[float] = None,
        attempt_timeout: Optional[float] = None,
        operation_timeout: Optional[float] = None,
        max_attempts: Optional[int] = None,
        rate_limiting: Optional[bool] = None,
        app_name: Optional[str] = None,
        max_response_bytes: Optional[int] = None,
        max_document_bytes: Optional[int] = None,
        pickle_secrets: bool = False,
    ) -> None:
        args = {
            "region": region,
            "client_id": client_id,
            "client_secret": client_secret,
            "refresh_token": refresh_token,
            "access_token": access_token,
            "user_email": user_email,
            "endpoint": endpoint,
            "auth_endpoint": auth_endpoint,
            "consent_endpoint": consent_endpoint,
            "connect_timeout": connect_timeout,
            "attempt_timeout": attempt_timeout,
            "operation_timeout": operation_timeout,
            "max_attempts": max_attempts,
            "rate_limiting": rate_limiting,
            "app_name": app_name,
            "max_response_bytes": max_response_bytes,
            "max_document_bytes": max_document_bytes,
        }
        _abws._refresh_logging()  # logging configured since the last client applies
        self._native = _abws.Client(_abws._to_json(_drop_none(args)))
        self._settings: Dict[str, Any] = self._native.settings()
        self.pickle_secrets = pickle_secrets
        self.invoices = Invoices(self)
        self.reconciliation = Reconciliation(self)
        self.documents = Documents(self)
        self.cart = Cart(self)
        self.products = Products(self)
        self.ordering = Ordering(self)
        self.reporting = Reporting(self)
        self.tracking = Tracking(self)

    @classmethod
    def from_env(cls, **overrides: Any) -> "Client":
        """A client from ``ABWS_REGION``, ``ABWS_CLIENT_ID``, ``ABWS_CLIENT_SECRET``,
        ``ABWS_REFRESH_TOKEN`` (or ``ABWS_ACCESS_TOKEN``), ``ABWS_USER_EMAIL``,
        ``ABWS_ENDPOINT``, ``ABWS_AUTH_ENDPOINT``, ``ABWS_CONSENT_ENDPOINT``; keyword
        arguments override them."""
        kw: Dict[str, Any] = {}
        for name, var in _ENV.items():
            value = os.environ.get(var)
            if value:
                kw[name] = value
        kw.update(overrides)
        return cls(**kw)

    @property
    def region(self) -> str:
        """The default region of calls that take one."""
        return str(self._settings["region"])

    @property
    def settings(self) -> Dict[str, Any]:
        """The settings in force, without secrets."""
        return dict(self._settings)

    def _call(self, op: str, args: Dict[str, Any]) -> Any:
        text = _abws._to_json(args)
        start = time.monotonic()
        logger.debug("%s: calling", op)
        try:
            result = self._native.call(op, text)
        except Exception as e:
            logger.debug("%s: failed after %.3f s: %s", op, time.monotonic() - start, e)
            raise
        logger.debug("%s: done in %.3f s", op, time.monotonic() - start)
        return result

    def _listing(self, op: str, field: str, args: Dict[str, Any], progress: bool) -> Listing[Any]:
        pager = self._native.pager(op, _abws._to_json(args))
        logger.debug("%s: listing started", op)
        return Listing(pager, field, op, progress)

    def close(self) -> None:
        """Nothing to release explicitly (connections close when the client is
        collected); present so the client works as a context manager."""

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        s = self._settings
        return f"<abws.Client region={s['region']} endpoint={s['api_address']} auth={s['auth']}>"

    def __reduce__(self) -> Any:
        keep = (
            "region",
            "user_email",
            "endpoint",
            "auth_endpoint",
            "consent_endpoint",
            "connect_timeout",
            "attempt_timeout",
            "operation_timeout",
            "max_attempts",
            "rate_limiting",
            "app_name",
            "max_response_bytes",
            "max_document_bytes",
            "client_id",
        )
        settings = {k: self._settings.get(k) for k in keep if self._settings.get(k) is not None}
        secrets = self._native._credentials() if self.pickle_secrets else None
        return (_restore_client, (settings, secrets, self.pickle_secrets))


def _restore_client(settings: Dict[str, Any], secrets: Optional[Dict[str, Any]], pickle_secrets: bool) -> Client:
    kw = dict(settings)
    if secrets is not None:
        kw.update(secrets)
    else:
        for name in ("client_id",) + _SECRETS:
            value = os.environ.get(_ENV[name])
            if value and (name != "client_id" or "client_id" not in kw):
                kw[name] = value
        if "access_token" in kw:
            kw.pop("client_secret", None)
            kw.pop("refresh_token", None)
    return Client(**kw, pickle_secrets=pickle_secrets)


