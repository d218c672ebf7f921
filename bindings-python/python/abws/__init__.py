"""abws: a client for a business-purchasing platform's APIs.

Invoices, reconciliation, PDF invoice documents, carts, product search, ordering, order
and shipment reporting and package tracking, with the OAuth consent and token flow in
front of them. The work is done by a Rust core; this package converts arguments and
results.

    import abws
    client = abws.Client.from_env()
    for inv in client.invoices.iter_invoices("2026-01-01", "2026-01-31T23:59:59Z"):
        meta = inv.invoice_metadata
        print(meta.invoice_number, meta.issue_date, meta.type)

    async with abws.AsyncClient.from_env() as client:      # the same API, awaitable
        page = await client.invoices.get_invoices("2026-01-01", "2026-01-31T23:59:59Z")
"""

# `import abws` loads none of the submodules, nor the extension (which imports `logging` for
# the core's records): each public name is imported on its first use (PEP 562), so a program
# pays only for what it touches (`abws.Client` does not load the asyncio client, the
# sandbox or the consent flow). mypy, the stubs and IDEs see the imports below.

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: `typing` imports `re` (3.11)
if TYPE_CHECKING:
    from typing import Any, Dict, List

    from ._abws import __version__
    from .async_client import (
        AsyncCart,
        AsyncClient,
        AsyncDocuments,
        AsyncInvoices,
        AsyncListing,
        AsyncOrdering,
        AsyncProducts,
        AsyncReconciliation,
        AsyncReporting,
        AsyncTracking,
    )
    from .auth import Credentials, Tokens, authorize_interactive, consent_url, exchange_code
    from .client import (
        Cart,
        Client,
        DateLike,
        Documents,
        Invoices,
        Listing,
        Ordering,
        Products,
        Reconciliation,
        Reporting,
        Tracking,
    )
    from .close import CloseResult, close_month
    from .exceptions import (
        ApiError,
        AuthError,
        BadRequest,
        DocumentError,
        Error,
        Forbidden,
        InternalError,
        NotFound,
        OutcomeUnknown,
        PageTokenExpired,
        PayloadTooLarge,
        RateLimited,
        ReportFailed,
        ServerError,
        Timeout,
        TransportError,
        Unauthorized,
        UnsupportedMediaType,
        ValidationError,
    )
    from .models import Model, Money, to_pandas
    from .sandbox import Sandbox
    from .sealed import decrypt, decrypt_file, encrypt

# Public name -> the submodule that defines it (the imports above, for the runtime).
_WHERE: "Dict[str, str]" = {
    name: module
    for module, names in {
        "_abws": ("__version__",),
        "async_client": (
            "AsyncCart", "AsyncClient", "AsyncDocuments", "AsyncInvoices", "AsyncListing",
            "AsyncOrdering", "AsyncProducts", "AsyncReconciliation", "AsyncReporting",
            "AsyncTracking",
        ),
        "auth": ("Credentials", "Tokens", "authorize_interactive", "consent_url", "exchange_code"),
        "client": (
            "Cart", "Client", "DateLike", "Documents", "Invoices", "Listing", "Ordering",
            "Products", "Reconciliation", "Reporting", "Tracking",
        ),
        "close": ("CloseResult", "close_month"),
        "exceptions": (
            "ApiError", "AuthError", "BadRequest", "DocumentError", "Error", "Forbidden",
            "InternalError", "NotFound", "OutcomeUnknown", "PageTokenExpired", "PayloadTooLarge",
            "RateLimited", "ReportFailed", "ServerError", "Timeout", "TransportError",
            "Unauthorized", "UnsupportedMediaType", "ValidationError",
        ),
        "models": ("Model", "Money", "to_pandas"),
        "sandbox": ("Sandbox",),
        "sealed": ("decrypt", "decrypt_file", "encrypt"),
    }.items()
    for name in names
}

if not TYPE_CHECKING:

    def __getattr__(name: str) -> "Any":
        mod = _WHERE.get(name)
        if mod is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        import sys

        from . import _log  # noqa: F401  (logger "abws" gets its NullHandler before any record)

        __import__(f"{__name__}.{mod}")  # not importlib.import_module: one module less to load
        value = getattr(sys.modules[f"{__name__}.{mod}"], name)
        globals()[name] = value  # later lookups are plain attribute reads
        return value

    def __dir__() -> "List[str]":
        return sorted(set(globals()) - {"TYPE_CHECKING"} | set(__all__))


def refresh_logging() -> None:
    """Applies a changed level of logger ``abws`` to the core's records (levels are cached
    for speed; creating a client refreshes them too)."""
    from . import _abws as _native, _log  # noqa: F401

    _native._refresh_logging()


__all__ = [
    "__version__",
    "refresh_logging",
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
    "Model",
    "Money",
    "to_pandas",
    "close_month",
    "CloseResult",
    "Sandbox",
    "decrypt",
    "decrypt_file",
    "encrypt",
    "Credentials",
    "Tokens",
    "consent_url",
    "exchange_code",
    "authorize_interactive",
    "ApiError",
    "AuthError",
    "BadRequest",
    "DocumentError",
    "Error",
    "Forbidden",
    "InternalError",
    "NotFound",
    "OutcomeUnknown",
    "PageTokenExpired",
    "PayloadTooLarge",
    "RateLimited",
    "ReportFailed",
    "ServerError",
    "Timeout",
    "TransportError",
    "Unauthorized",
    "UnsupportedMediaType",
    "ValidationError",
]
