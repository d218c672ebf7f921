"""The asyncio client: ``abws.Client``'s API, awaitable.

Every operation and convenience of ``Client`` is here with the same name, parameters,
results and errors (the operation methods come from the same table, ``_operations.py``).
A call runs the core's future on the core's own I/O runtime — no thread per call — and the
event loop only waits for its result, so it is never blocked. Cancelling the awaiting task
(``task.cancel()``, ``asyncio.timeout``) drops the core's future at once: its connection
is closed, its buffers are freed, and a placeOrder or addItems cut off in flight is never
resent — its ``external_id`` is logged and put on the ``CancelledError``.

The same compiled client serves both: an ``AsyncClient`` shares the process's pacing,
token refresh and ``shared_state`` with every ``Client`` of the same account.
"""

from __future__ import annotations

import functools
import os
from typing import Any, BinaryIO, Dict, List, Optional, Sequence, Union, overload

from ._group import AsyncListing, _awaited, _start_listing
from ._log import logger
from ._operations import (
    _AsyncCartOperations,
    _AsyncDocumentsOperations,
    _AsyncInvoicesOperations,
    _AsyncOrderingOperations,
    _AsyncProductsOperations,
    _AsyncReconciliationOperations,
    _AsyncReportingOperations,
    _AsyncTrackingOperations,
)
from .client import (
    DEFAULT_WAIT_TIMEOUT,
    LineItemRef,
    _Bar,
    PathLike,
    _ClientBase,
    _download_to_call,
    _fetch_pdf_args,
    _fetch_pdf_call,
    _wait_args,
)
from .models import InvoiceDetailsByOrderLineItem, Report

__all__ = [
    "AsyncClient",
    "AsyncListing",
    "AsyncInvoices",
    "AsyncReconciliation",
    "AsyncDocuments",
    "AsyncCart",
    "AsyncProducts",
    "AsyncOrdering",
    "AsyncReporting",
    "AsyncTracking",
]


class AsyncInvoices(_AsyncInvoicesOperations):
    """Invoices 2026-02-01 (awaitable)."""

    __slots__ = ()


class AsyncReconciliation(_AsyncReconciliationOperations):
    """Reconciliation 2021-01-08 (awaitable)."""

    __slots__ = ()

    # BEGIN GENERATED: reconciliation conveniences (cargo run -p xtask -- gen; do not edit)
    async def invoice_details_for(
        self, line_items: Sequence[LineItemRef], *, progress: bool = False
    ) -> List[InvoiceDetailsByOrderLineItem]:
        """As ``Reconciliation.invoice_details_for``: the invoice data of any number of line
        items with the fewest requests; one result per input, in input order.
        ``progress=True`` shows a bar of the line items answered (needs tqdm)."""
        with _Bar(progress, "invoice_details_for", "line item") as bar:
            out: List[InvoiceDetailsByOrderLineItem] = await self._client._run(
                "invoice_details_for", {"line_items": line_items}, bar.counter()
            )
        return out
    # END GENERATED: reconciliation conveniences


class AsyncDocuments(_AsyncDocumentsOperations):
    """Reports and documents 2021-09-30 (awaitable)."""

    __slots__ = ()

    # BEGIN GENERATED: documents conveniences (cargo run -p xtask -- gen; do not edit)
    async def wait_for_report(
        self,
        report_id: str,
        poll_interval: Optional[float] = None,
        timeout: Optional[float] = DEFAULT_WAIT_TIMEOUT,
    ) -> Report:
        """As ``Documents.wait_for_report``: polls getReport until DONE (the ``Report``);
        CANCELLED/FATAL raise ``ReportFailed``; ``timeout`` (seconds, default 1800) raises
        ``Timeout``. Cancelling the task stops the polling."""
        report: Report = await self._client._run("wait_for_report", _wait_args(report_id, poll_interval, timeout))
        return report

    async def download(self, report_document_id: str, *, progress: bool = False) -> bytes:
        """As ``Documents.download``: the PDF, unpacked in memory. A cancelled download
        frees what it had received."""
        with _Bar(progress, "download") as bar:
            data: bytes = await self._client._run("download", report_document_id)
            bar.add(len(data))
            return data

    async def download_to(
        self,
        report_document_id: str,
        writer: Union[BinaryIO, str, "os.PathLike[str]"],
        *,
        key: Union[bytes, str, None] = None,
        allow_plaintext: bool = False,
        progress: bool = False,
    ) -> int:
        """As ``Documents.download_to``: streams the document into a path (sealed under
        ``key`` or ``ABWS_DOCUMENT_KEY`` unless ``allow_plaintext=True``) or a binary file
        object; returns the PDF's size. A file object's ``write`` is called on the
        library's I/O thread, never on the event loop (a plain file is fine; an async
        file object is not a writer). A cancelled download to a path leaves no file."""
        with _Bar(progress, "download") as bar:
            size: int = await self._client._run(*_download_to_call(report_document_id, writer, key, allow_plaintext, bar))
            return size

    @overload
    async def fetch_pdf(
        self,
        *,
        order_id: Optional[str] = ...,
        order_line_item_id: Optional[str] = ...,
        shipment_id: Optional[str] = ...,
        invoice_id: Optional[str] = ...,
        document_type: Optional[str] = ...,
        report_type: Optional[str] = ...,
        marketplace_ids: Optional[Sequence[str]] = ...,
        poll_interval: Optional[float] = ...,
        timeout: Optional[float] = ...,
        progress: bool = ...,
        to: None = ...,
        key: None = ...,
    ) -> bytes: ...
    @overload
    async def fetch_pdf(
        self,
        *,
        order_id: Optional[str] = ...,
        order_line_item_id: Optional[str] = ...,
        shipment_id: Optional[str] = ...,
        invoice_id: Optional[str] = ...,
        document_type: Optional[str] = ...,
        report_type: Optional[str] = ...,
        marketplace_ids: Optional[Sequence[str]] = ...,
        poll_interval: Optional[float] = ...,
        timeout: Optional[float] = ...,
        progress: bool = ...,
        to: PathLike,
        key: Union[bytes, str, None] = ...,
    ) -> int: ...
    async def fetch_pdf(
        self,
        *,
        order_id: Optional[str] = None,
        order_line_item_id: Optional[str] = None,
        shipment_id: Optional[str] = None,
        invoice_id: Optional[str] = None,
        document_type: Optional[str] = None,
        report_type: Optional[str] = None,
        marketplace_ids: Optional[Sequence[str]] = None,
        poll_interval: Optional[float] = None,
        timeout: Optional[float] = DEFAULT_WAIT_TIMEOUT,
        progress: bool = False,
        to: Optional[PathLike] = None,
        key: Union[bytes, str, None] = None,
    ) -> Union[bytes, int]:
        """As ``Documents.fetch_pdf``: create → wait → document → download; the PDF bytes,
        or, with ``to=path``, the PDF sealed into that file under ``key`` (or
        ``ABWS_DOCUMENT_KEY``) and its size. A cancelled call leaves no file."""
        args = _fetch_pdf_args(
            order_id, order_line_item_id, shipment_id, invoice_id, document_type,
            report_type, marketplace_ids, poll_interval, timeout,
        )  # fmt: skip
        with _Bar(progress, "fetch_pdf") as bar:
            out: Union[bytes, int] = await self._client._run(*_fetch_pdf_call(args, to, key, bar))
            if isinstance(out, bytes):
                bar.add(len(out))
            return out
    # END GENERATED: documents conveniences


class AsyncCart(_AsyncCartOperations):
    """Cart 2025-04-30 (awaitable)."""

    __slots__ = ()


class AsyncProducts(_AsyncProductsOperations):
    """Product search 2020-08-26 (awaitable)."""

    __slots__ = ()


class AsyncOrdering(_AsyncOrderingOperations):
    """Ordering 2022-10-30 (awaitable). A ``place_order`` is never resent after an
    ambiguous failure (``OutcomeUnknown`` with the ``external_id``), nor after its task was
    cancelled while the request was in flight (the ``CancelledError`` carries it)."""

    __slots__ = ()


class AsyncReporting(_AsyncReportingOperations):
    """Order reporting 2021-01-08 and shipment line item reporting 2025-06-09 (awaitable)."""

    __slots__ = ()


class AsyncTracking(_AsyncTrackingOperations):
    """Package tracking 2025-07-02 (awaitable)."""

    __slots__ = ()


class AsyncClient(_ClientBase):
    """``Client``'s API for asyncio: the same settings (``AsyncClient.from_env()`` too), and
    every operation and convenience with the same name, parameters, results and errors,
    awaitable; listings are iterated with ``async for``.

        async with abws.AsyncClient(region="JP", ...) as client:
            page = await client.invoices.get_invoices(start, end)
            async for inv in client.invoices.iter_invoices(start, end): ...

    Works on any asyncio event loop (uvloop included), in Jupyter with top-level
    ``await``, with one event loop per thread, and in a child after ``os.fork``. Calls of
    every loop and thread share the client's pacing and token (and ``shared_state``).
    Cancelling a task cancels its call within milliseconds; see ``abws.async_client``.
    """

    invoices: AsyncInvoices
    reconciliation: AsyncReconciliation
    documents: AsyncDocuments
    cart: AsyncCart
    products: AsyncProducts
    ordering: AsyncOrdering
    reporting: AsyncReporting
    tracking: AsyncTracking

    _GROUPS = {
        "invoices": AsyncInvoices,
        "reconciliation": AsyncReconciliation,
        "documents": AsyncDocuments,
        "cart": AsyncCart,
        "products": AsyncProducts,
        "ordering": AsyncOrdering,
        "reporting": AsyncReporting,
        "tracking": AsyncTracking,
    }
    __slots__ = tuple(_GROUPS)

    async def _call(
        self, op: str, args: Dict[str, Any], timeout: Optional[float] = None, max_attempts: Optional[int] = None
    ) -> Any:
        """Awaits an operation of the table by name (the generated methods call this), with
        its per-call options."""
        return await self._run("call", op, args, timeout, max_attempts)

    async def _run(self, method: str, *args: Any) -> Any:
        """Awaits a method of the compiled client, with debug logging of its duration."""
        what, start = self._log_start(method, args)
        try:
            result = await _awaited(functools.partial(getattr(self._native, method), *args))
        except BaseException as e:
            self._log_end(what, start, e)
            raise
        self._log_end(what, start)
        return result

    def _listing(self, op: str, field: str, args: Dict[str, Any], *options: Any) -> AsyncListing[Any]:
        return _start_listing(AsyncListing, self._native, op, field, args, *options)

    async def check_shared_state(self) -> None:
        """As ``Client.check_shared_state``: raises when the shared state cannot be used
        now."""
        await self._run("check_shared_state")

    async def aclose(self) -> None:
        """Nothing to release explicitly (connections close when the client is
        collected); present so the client works as an async context manager."""

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()
