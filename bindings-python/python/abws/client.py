"""The client and its API groups.

Every operation keeps the specification's name (snake_case operationId) and parameter
names; its method is generated from the core's operations table (``_operations.py``).
The classes here add what is not one operation (``invoice_details_for``,
``wait_for_report``, ``download``, ``download_to``, ``fetch_pdf``) and the client's
settings. The work is done by the Rust core (validation, rate limits, retries, paging,
documents). Each blocking call releases the GIL and can be interrupted with Ctrl-C.
"""

from __future__ import annotations

import logging
import os
import time
from typing import (
    Any,
    BinaryIO,
    Callable,
    ClassVar,
    Dict,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Type,
    TypeVar,
    Union,
    overload,
)

from . import _abws
from ._group import DateLike, Listing, _progress, _start_listing
from ._log import logger
from ._model_base import Model
from ._operations import (
    _CartOperations,
    _DocumentsOperations,
    _InvoicesOperations,
    _OrderingOperations,
    _ProductsOperations,
    _ReconciliationOperations,
    _ReportingOperations,
    _TrackingOperations,
)
from .models import InvoiceDetailsByOrderLineItem, Report

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

# The variables an unpickled client reads its secrets from (``from_env`` reads every
# setting's variable through the core: ``_abws.env_settings``).
_ENV = {
    "client_id": "ABWS_CLIENT_ID",
    "client_secret": "ABWS_CLIENT_SECRET",
    "refresh_token": "ABWS_REFRESH_TOKEN",
    "access_token": "ABWS_ACCESS_TOKEN",
    "proxy": "ABWS_PROXY",
    "shared_state": "ABWS_SHARED_STATE",
}
# Keyword arguments of the client that are not settings (``from_env`` passes them through).
_NOT_SETTINGS = ("pickle_secrets", "on_refresh_token")
_SECRETS = ("client_secret", "refresh_token", "access_token")

#: Seconds ``wait_for_report`` and ``fetch_pdf`` wait for a report by default (the core's
#: bound: 30 minutes). ``timeout=None`` waits without bound.
DEFAULT_WAIT_TIMEOUT: float = _abws.DEFAULT_WAIT_TIMEOUT


def _wait_bound(timeout: Optional[float]) -> Dict[str, Any]:
    """The wait's bound as the core reads it: seconds, or ``no_timeout`` for ``None``."""
    return {"no_timeout": True} if timeout is None else {"timeout": timeout}

LineItemRef = Union[Mapping[str, Any], Model, Tuple[str, str, str]]
"""An order line item: a mapping with ``order_id``, ``order_line_item_id`` and
``shipment_id`` (the wire's camelCase also works), a result model with those fields (a
transaction line item), or a tuple of the three."""


def _persisting(callback: Callable[[str], None]) -> Callable[[str], None]:
    """The rotation callback as the client calls it: a failure is logged, never raised into
    the refresh (the server has consumed the old token: the new one is in use either way)."""

    def hand_over(token: str) -> None:
        try:
            callback(token)
        except Exception as e:  # noqa: BLE001 - reported, never raised into the refresh
            logger.error(
                "on_refresh_token raised %s: the rotated refresh token is in use by this client "
                "but may not have been persisted",
                type(e).__name__,
            )

    return hand_over


def _sync_callback(callback: Callable[[str], None]) -> Callable[[str], None]:
    """Refuses an ``async def`` ``on_refresh_token``: it is called, never awaited (on the
    library's I/O thread for ``AsyncClient``), so its body would never run and the rotated
    token would be lost."""
    import inspect  # here, not at import: `import abws` stays quick

    if inspect.iscoroutinefunction(callback) or inspect.iscoroutinefunction(getattr(callback, "__call__", None)):
        from .exceptions import ValidationError

        raise ValidationError(
            "invalid on_refresh_token: must be a plain function (not async def): it is called on "
            "the library's thread and never awaited, so the rotated refresh token would be lost",
            parameter="on_refresh_token",
            kind="validation",
        )
    return callback


def _drop_none(d: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


class Invoices(_InvoicesOperations):
    """Invoices 2026-02-01."""

    __slots__ = ()


class Reconciliation(_ReconciliationOperations):
    """Reconciliation 2021-01-08."""

    __slots__ = ()

    # BEGIN GENERATED: reconciliation conveniences (cargo run -p xtask -- gen; do not edit)
    def invoice_details_for(
        self, line_items: Sequence[LineItemRef], *, progress: bool = False
    ) -> List[InvoiceDetailsByOrderLineItem]:
        """The invoice data of any number of line items with the fewest requests
        (batches of 25; one request per order and shipment). One result per input, in
        input order. Each line item is as for ``get_invoice_details_by_order_line_items``.
        ``progress=True`` shows a bar of the line items answered (needs tqdm:
        ``pip install 'abws[progress]'``).
        """
        with _Bar(progress, "invoice_details_for", "line item") as bar:
            out: List[InvoiceDetailsByOrderLineItem] = self._client._run(
                "invoice_details_for", {"line_items": line_items}, bar.counter()
            )
        return out
    # END GENERATED: reconciliation conveniences


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


class _Bar:
    """A progress bar (of bytes unless ``unit`` says otherwise) when asked for; otherwise
    nothing (asked for without tqdm: ``ImportError``). Closed on leaving the ``with`` block."""

    def __init__(self, enabled: bool, desc: str, unit: str = "B") -> None:
        self._bar = _progress(enabled, desc, unit)

    def __enter__(self) -> "_Bar":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._bar is not None:
            self._bar.close()

    def add(self, n: int) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def writer(self, target: Any) -> Any:
        """``target``, counting what is written through it."""
        return target if self._bar is None else _CountingWriter(target, self._bar)

    def counter(self) -> Optional[Callable[[int, int], None]]:
        """A ``progress(done, total)`` callback (``invoice_details_for``)."""
        bar = self._bar
        if bar is None:
            return None

        def count(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        return count

    def reporter(self) -> Optional[Callable[[int], None]]:
        """A ``progress(bytes_so_far)`` callback for a download to a path."""
        bar = self._bar
        if bar is None:
            return None

        def report(written: int) -> None:
            bar.update(written - bar.n)

        return report


def _download_to_call(
    report_document_id: str, writer: Any, key: Any, allow_plaintext: bool, bar: _Bar
) -> Tuple[Any, ...]:
    """The compiled client's method and arguments of ``download_to``: a path, or a file
    object."""
    if isinstance(writer, (str, os.PathLike)):
        return ("download_to_path", report_document_id, os.fspath(writer), key, allow_plaintext, bar.reporter())
    return ("download_to", report_document_id, bar.writer(writer), key)


def _fetch_pdf_args(
    order_id: Optional[str],
    order_line_item_id: Optional[str],
    shipment_id: Optional[str],
    invoice_id: Optional[str],
    document_type: Optional[str],
    report_type: Optional[str],
    marketplace_ids: Optional[Sequence[str]],
    poll_interval: Optional[float],
    timeout: Optional[float],
) -> Dict[str, Any]:
    """``fetch_pdf``'s arguments as the core reads them (``FetchPdfArgs``)."""
    return {
        "report_type": report_type,
        "marketplace_ids": marketplace_ids,
        "report_options": {
            "order_id": order_id,
            "order_line_item_id": order_line_item_id,
            "shipment_id": shipment_id,
            "invoice_id": invoice_id,
            "document_type": document_type,
        },
        "poll_interval": poll_interval,
        **_wait_bound(timeout),
    }


PathLike = Union[str, "os.PathLike[str]"]


def _fetch_pdf_call(args: Dict[str, Any], to: Optional[PathLike], key: Any, bar: _Bar) -> Tuple[Any, ...]:
    """The compiled client's method and arguments of ``fetch_pdf``: the PDF in memory, or,
    with ``to``, a sealed file (a key given with no ``to`` is refused: it would be ignored)."""
    if to is not None:
        return ("fetch_pdf_to_path", args, os.fspath(to), key, bar.reporter())
    if key is not None:
        from .exceptions import ValidationError

        raise ValidationError(
            "invalid key: only fetch_pdf(..., to=path) uses a key (it writes a sealed file); "
            "without to= the PDF comes back as bytes (abws.encrypt seals bytes)"
        )
    return ("fetch_pdf", args)


def _wait_args(report_id: str, poll_interval: Optional[float], timeout: Optional[float]) -> Dict[str, Any]:
    """``wait_for_report``'s arguments as the core reads them."""
    return {"report_id": report_id, "poll_interval": poll_interval, **_wait_bound(timeout)}


class Documents(_DocumentsOperations):
    """Reports and documents 2021-09-30 (PDF invoices and credit notes)."""

    __slots__ = ()

    # BEGIN GENERATED: documents conveniences (cargo run -p xtask -- gen; do not edit)
    def wait_for_report(
        self,
        report_id: str,
        poll_interval: Optional[float] = None,
        timeout: Optional[float] = DEFAULT_WAIT_TIMEOUT,
    ) -> Report:
        """Polls getReport every ``poll_interval`` seconds until DONE (returns the
        ``Report``); by default every 15 s, or sooner when a running report's answer says
        ``Retry-After`` (the sandbox's do: about a second in all); CANCELLED/FATAL raise ``ReportFailed``; ``timeout``
        (seconds, default 1800: 30 minutes) bounds the wait with ``Timeout``;
        ``timeout=None`` waits without bound. Ctrl-C interrupts it."""
        report: Report = self._client._run("wait_for_report", _wait_args(report_id, poll_interval, timeout))
        return report

    def download(self, report_document_id: str, *, progress: bool = False) -> bytes:
        """Downloads a report document and returns the PDF, unpacked in memory (gzip and
        zip); an error document inside raises ``DocumentError``."""
        with _Bar(progress, "download") as bar:
            data: bytes = self._client._run("download", report_document_id)
            bar.add(len(data))
            return data

    def download_to(
        self,
        report_document_id: str,
        writer: Union[BinaryIO, str, "os.PathLike[str]"],
        *,
        key: Union[bytes, str, None] = None,
        allow_plaintext: bool = False,
        progress: bool = False,
    ) -> int:
        """Downloads a report document and streams it into ``writer`` as it arrives
        (gzip and zip unpacked on the fly: memory does not grow with the document);
        returns the PDF's size in bytes.

        ``writer`` is a path or a binary file object (anything with ``write(bytes)``).

        A path receives an ENCRYPTED file (AES-256-GCM, the "abws sealed file" format;
        ``python -m abws decrypt FILE -o OUT.pdf`` or ``abws.decrypt`` opens it) under
        ``key`` — 32 bytes, or a str of 64 hex digits — or, without one, the key in the
        ``ABWS_DOCUMENT_KEY`` environment variable. Neither: ``ValidationError`` before
        any request. ``allow_plaintext=True`` writes the plain PDF instead (reports hold
        sensitive data, which the service's documentation says must not be written
        unencrypted to disk). The file is written to a temporary file with a random name
        beside it (created
        exclusively, owner-only, no symbolic link followed) and renamed into place once
        complete, so a failed download never leaves a partial file behind; a path that is
        a symbolic link is refused.

        A file object receives the PDF as it is (it is the caller's stream), or the
        sealed file when ``key`` is given. One that fails part-way holds the bytes written
        so far; an exception its ``write`` raises is re-raised as it is. The key is never
        printed, logged or put in an error.
        """
        with _Bar(progress, "download") as bar:
            size: int = self._client._run(*_download_to_call(report_document_id, writer, key, allow_plaintext, bar))
            return size

    @overload
    def fetch_pdf(
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
    def fetch_pdf(
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
        poll_interval: Optional[float] = None,
        timeout: Optional[float] = DEFAULT_WAIT_TIMEOUT,
        progress: bool = False,
        to: Optional[PathLike] = None,
        key: Union[bytes, str, None] = None,
    ) -> Union[bytes, int]:
        """create → wait → document → download in one call; returns the PDF bytes.
        ``poll_interval`` defaults to 15 seconds (or a running report's ``Retry-After``,
        as ``wait_for_report``); ``timeout`` bounds the wait for the
        report (seconds, default 1800: 30 minutes; ``None``: no bound).

        ``to=path`` files the PDF ENCRYPTED instead, in the same one call, and returns its
        size: the file is sealed (AES-256-GCM, the "abws sealed file" format that
        ``abws.decrypt`` and ``python -m abws decrypt`` open) under ``key`` — 32 bytes or
        64 hex digits — or, without one, ``ABWS_DOCUMENT_KEY``. Neither:
        ``ValidationError`` before any request. The plain PDF never touches the disk: it
        is encrypted as it arrives into a temporary file beside ``path`` (owner-only, no
        symbolic link followed), renamed into place once complete; a failure at any step
        leaves no file. A directory that cannot be written fails before the report is
        asked for."""
        args = _fetch_pdf_args(
            order_id, order_line_item_id, shipment_id, invoice_id, document_type,
            report_type, marketplace_ids, poll_interval, timeout,
        )  # fmt: skip
        with _Bar(progress, "fetch_pdf") as bar:
            out: Union[bytes, int] = self._client._run(*_fetch_pdf_call(args, to, key, bar))
            if isinstance(out, bytes):
                bar.add(len(out))
            return out
    # END GENERATED: documents conveniences


class Cart(_CartOperations):
    """Cart 2025-04-30. ``list_carts`` lists the buying user's carts (the client's
    ``user_email`` or the call's, sent as ``x-svc-user-email``); the other operations
    address a cart by its id and send no e-mail."""

    __slots__ = ()


class Products(_ProductsOperations):
    """Product search 2020-08-26. Every call names the products' region and a locale
    (``en-US``, ``ja-JP``, ...); the buying user is the client's ``user_email`` or the
    call's."""

    __slots__ = ()


class Ordering(_OrderingOperations):
    """Ordering 2022-10-30. ``place_order`` is never resent after an ambiguous failure:
    that raises ``OutcomeUnknown`` with the ``external_id`` to check."""

    __slots__ = ()


class Reporting(_ReportingOperations):
    """Order reporting 2021-01-08 and shipment line item reporting 2025-06-09."""

    __slots__ = ()


class Tracking(_TrackingOperations):
    """Package tracking 2025-07-02."""

    __slots__ = ()


_Self = TypeVar("_Self", bound="_ClientBase")


class _ClientBase:
    """What ``Client`` and ``AsyncClient`` share: the settings, the compiled client (its
    pacing, token and shared state), the groups, pickling. See ``Client``."""

    #: The group classes, by attribute name (each subclass its own flavour).
    _GROUPS: ClassVar[Dict[str, type]] = {}

    # What a call reads of its client (the compiled client here, the groups in each
    # flavour's slots), in slots next to the object's header rather than in its dict, so a
    # call through one of a thousand clients reads one cold line here (B11); the
    # dict and weak references stay, for what users attach.
    __slots__ = ("_native", "_settings", "pickle_secrets", "__dict__", "__weakref__")

    def __init__(
        self,
        # BEGIN GENERATED: settings keywords (cargo run -p xtask -- gen; do not edit)
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
        sandbox_endpoint: Optional[str] = None,
        use_sandbox: Optional[bool] = None,
        rate_limiting: Optional[bool] = None,
        max_attempts: Optional[int] = None,
        connect_timeout: Optional[float] = None,
        attempt_timeout: Optional[float] = None,
        operation_timeout: Optional[float] = None,
        max_response_bytes: Optional[int] = None,
        max_document_bytes: Optional[int] = None,
        app_name: Optional[str] = None,
        proxy: Optional[str] = None,
        shared_state: Optional[str] = None,
        shared_state_required: Optional[bool] = None,
        # END GENERATED: settings keywords
        pickle_secrets: bool = False,
        on_refresh_token: Optional[Callable[[str], None]] = None,
    ) -> None:
        args = {
            # BEGIN GENERATED: settings object (cargo run -p xtask -- gen; do not edit)
            "region": region,
            "client_id": client_id,
            "client_secret": client_secret,
            "refresh_token": refresh_token,
            "access_token": access_token,
            "user_email": user_email,
            "endpoint": endpoint,
            "auth_endpoint": auth_endpoint,
            "consent_endpoint": consent_endpoint,
            "sandbox_endpoint": sandbox_endpoint,
            "use_sandbox": use_sandbox,
            "rate_limiting": rate_limiting,
            "max_attempts": max_attempts,
            "connect_timeout": connect_timeout,
            "attempt_timeout": attempt_timeout,
            "operation_timeout": operation_timeout,
            "max_response_bytes": max_response_bytes,
            "max_document_bytes": max_document_bytes,
            "app_name": app_name,
            "proxy": proxy,
            "shared_state": shared_state,
            "shared_state_required": shared_state_required,
            # END GENERATED: settings object
        }
        _abws._refresh_logging()  # logging configured since the last client applies
        hand_over = None if on_refresh_token is None else _persisting(_sync_callback(on_refresh_token))
        self._native = _abws.Client(_abws._to_json(_drop_none(args)), hand_over)
        self._settings: Dict[str, Any] = self._native.settings()
        self.pickle_secrets = pickle_secrets
        for name, group in self._GROUPS.items():
            setattr(self, name, group(self))

    @classmethod
    def from_env(cls: Type[_Self], **overrides: Any) -> _Self:
        """A client from the ``ABWS_*`` environment variables, one per setting:
        ``ABWS_REGION`` (required: no region is picked for you), ``ABWS_CLIENT_ID``,
        ``ABWS_CLIENT_SECRET``, ``ABWS_REFRESH_TOKEN`` (or ``ABWS_ACCESS_TOKEN``),
        ``ABWS_USER_EMAIL``, ``ABWS_ENDPOINT`` (required unless ``ABWS_USE_SANDBOX``),
        ``ABWS_AUTH_ENDPOINT`` (required with a refresh token), ``ABWS_CONSENT_ENDPOINT``,
        ``ABWS_SANDBOX_ENDPOINT``, ``ABWS_USE_SANDBOX``, ``ABWS_PROXY``,
        ``ABWS_SHARED_STATE`` and the others of docs/python-api.md; keyword arguments
        override them. A missing one raises ``ValidationError`` naming it."""
        import json

        rest = {k: overrides.pop(k) for k in _NOT_SETTINGS if k in overrides}
        kw: Dict[str, Any] = json.loads(_abws.env_settings(_abws._to_json(overrides)))
        return cls(**kw, **rest)

    @property
    def region(self) -> str:
        """The default region of calls that take one."""
        return str(self._settings["region"])

    @property
    def settings(self) -> Dict[str, Any]:
        """The settings in force, without secrets."""
        return dict(self._settings)

    def _log_start(self, method: str, args: Tuple[Any, ...]) -> Tuple[str, float]:
        what = str(args[0]) if method == "call" else method
        logger.debug("%s: calling", what)
        return what, time.monotonic()

    def _log_end(self, what: str, start: float, failure: Optional[BaseException] = None) -> None:
        if failure is None:
            logger.debug("%s: done in %.3f s", what, time.monotonic() - start)
        else:
            logger.debug("%s: failed after %.3f s: %s", what, time.monotonic() - start, failure)

    def __repr__(self) -> str:
        s = self._settings
        return f"<abws.{type(self).__name__} region={s['region']} endpoint={s['api_address']} auth={s['auth']}>"

    def __reduce__(self) -> Any:
        keep = (
            # BEGIN GENERATED: settings kept by pickling (cargo run -p xtask -- gen; do not edit)
            "region",
            "client_id",
            "user_email",
            "endpoint",
            "auth_endpoint",
            "consent_endpoint",
            "sandbox_endpoint",
            "use_sandbox",
            "rate_limiting",
            "max_attempts",
            "connect_timeout",
            "attempt_timeout",
            "operation_timeout",
            "max_response_bytes",
            "max_document_bytes",
            "app_name",
            "shared_state_required",
            # END GENERATED: settings kept by pickling
        )
        settings = {k: self._settings.get(k) for k in keep if self._settings.get(k) is not None}
        secrets = self._native._credentials() if self.pickle_secrets else None
        return (_restore_client, (settings, secrets, self.pickle_secrets, type(self)))


class Client(_ClientBase):
    """A client of every API group. Safe to share between threads; usable in a child
    after ``os.fork`` (its connections are rebuilt there); picklable.

    ``endpoint`` (the API's regional base address) is required: abws has no address built
    in. So is ``auth_endpoint`` (the authorization server) with a refresh token;
    ``consent_endpoint`` serves the consent flow only. ``sandbox_endpoint`` with
    ``use_sandbox=True`` sends every call to the platform's regional sandbox instead. A
    missing address raises ``ValidationError`` naming it and its ``ABWS_*`` variable.

    ``proxy`` (``http://[user:password@]host:port``) is the proxy of remote https
    addresses, in place of ``https_proxy``/``all_proxy``/``no_proxy`` from the
    environment (which apply when it is not given); plain-http loopback addresses (the
    sandbox) never go through a proxy. It is shown redacted in ``settings``.

    ``shared_state`` (``redis://[:password@]host:port/db``, ``rediss://`` for TLS) is a
    Redis that every process and machine of this account shares: one rate limit per
    operation, one access-token refresh, and one ledger of placeOrder/addItems externalIds
    for all of them (docs/scale-out.md). When Redis is unreachable, calls go on paced
    locally at half the rate. A secret (it may hold a password): shown redacted.
    ``shared_state_required=True`` refuses that: the client checks the shared state when
    it is built and raises there when it cannot be used (``ValidationError`` naming
    ``shared_state`` for a wrong password or missing rights, ``TransportError`` when Redis
    is unreachable); ``check_shared_state()`` runs the same check at any time.

    Pickling carries the settings but not the secrets unless ``pickle_secrets=True``:
    an unpickled client reads ``ABWS_CLIENT_SECRET`` and ``ABWS_REFRESH_TOKEN`` (or
    ``ABWS_ACCESS_TOKEN``), ``ABWS_PROXY`` and ``ABWS_SHARED_STATE`` from its own
    environment.

    ``on_refresh_token(token)`` is called with every new refresh token the server rotates
    to, before it is used: persist it there (the token it replaces no longer works). It runs
    while the refresh waits for it (on the calling thread for `Client`, on one of the
    library's two I/O threads for `AsyncClient`: keep it short and non-blocking there, it
    holds up the calls of that thread meanwhile); it must be a plain function (an
    ``async def`` is refused with ``ValidationError``: it would never be awaited). What it
    raises is logged (without the token) and the refresh goes on. It is not pickled.
    """

    invoices: Invoices
    reconciliation: Reconciliation
    documents: Documents
    cart: Cart
    products: Products
    ordering: Ordering
    reporting: Reporting
    tracking: Tracking

    _GROUPS = {
        "invoices": Invoices,
        "reconciliation": Reconciliation,
        "documents": Documents,
        "cart": Cart,
        "products": Products,
        "ordering": Ordering,
        "reporting": Reporting,
        "tracking": Tracking,
    }
    __slots__ = tuple(_GROUPS)

    def _call(
        self, op: str, args: Dict[str, Any], timeout: Optional[float] = None, max_attempts: Optional[int] = None
    ) -> Any:
        """Runs an operation of the table by name (the generated methods call this), with
        its per-call options."""
        if not logger.isEnabledFor(logging.DEBUG):
            # Without debug logging: straight to the compiled client (four Python frames
            # fewer a call).
            return self._native.call(op, args, timeout, max_attempts)
        return self._run("call", op, args, timeout, max_attempts)

    def _run(self, method: str, *args: Any) -> Any:
        """Calls a method of the compiled client, with debug logging of its duration."""
        what, start = self._log_start(method, args)
        try:
            result = getattr(self._native, method)(*args)
        except Exception as e:
            self._log_end(what, start, e)
            raise
        self._log_end(what, start)
        return result

    def _listing(self, op: str, field: str, args: Dict[str, Any], *options: Any) -> Listing[Any]:
        return _start_listing(Listing, self._native, op, field, args, *options)

    def check_shared_state(self) -> None:
        """Checks that the shared state (``shared_state``) can be used now: Redis answers,
        accepts the address's password and lets this account's keys be written. Raises
        ``ValidationError`` (naming ``shared_state``) for a refusal that lasts until someone
        fixes it, ``TransportError`` when Redis is unreachable; returns ``None`` when it
        works or when no shared state is configured."""
        self._run("check_shared_state")

    def close(self) -> None:
        """Nothing to release explicitly (connections close when the client is
        collected); present so the client works as a context manager."""

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _restore_client(
    settings: Dict[str, Any],
    secrets: Optional[Dict[str, Any]],
    pickle_secrets: bool,
    cls: Type[_ClientBase] = Client,
) -> Any:
    kw = dict(settings)
    if secrets is not None:
        kw.update(secrets)
    else:
        for name in ("client_id",) + _SECRETS + ("proxy", "shared_state"):
            value = os.environ.get(_ENV[name])
            if value and (name != "client_id" or "client_id" not in kw):
                kw[name] = value
        if "access_token" in kw:
            kw.pop("client_secret", None)
            kw.pop("refresh_token", None)
    return cls(**kw, pickle_secrets=pickle_secrets)


