"""abws: a client for a business-purchasing platform's APIs.

Invoices, reconciliation, PDF invoice documents, carts, product search, ordering, order
and shipment reporting and package tracking, with the OAuth consent and token flow in
front of them. The work is done by a Rust core; this package converts arguments and
results.

    import abws
    client = abws.Client.from_env()
    for inv in client.invoices.iter_invoices("2026-01-01", "2026-01-31"):
        print(inv.invoice_number, inv.total_amount)

    async with abws.AsyncClient.from_env() as client:      # the same API, awaitable
        page = await client.invoices.get_invoices("2026-01-01", "2026-01-31")
"""

import logging as _logging

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
from .sealed import decrypt, decrypt_file

_logging.getLogger("abws").addHandler(_logging.NullHandler())


def refresh_logging() -> None:
    """Applies a changed level of logger ``abws`` to the core's records (levels are cached
    for speed; creating a client refreshes them too)."""
    from . import _abws as _native

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
    "Sandbox",
    "decrypt",
    "decrypt_file",
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
