"""abws: a client for a business-purchasing platform's APIs.

Invoices, reconciliation, PDF invoice documents, carts, product search, ordering, order
and shipment reporting and package tracking, with the OAuth consent and token flow in
front of them. The work is done by a Rust core; this package converts arguments and
results.
"""

from ._abws import __version__
from .exceptions import (
    ApiError,
    AuthError,
    BadRequest,
    DocumentError,
    Error,
    Forbidden,
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

__all__ = [
    "__version__",
    "ApiError",
    "AuthError",
    "BadRequest",
    "DocumentError",
    "Error",
    "Forbidden",
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
