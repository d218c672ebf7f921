"""The exception tree: ``except abws.Error`` catches every error of the library.

The classes are plain Python so they document, type-check and pickle like any other
exception; the extension module raises them with their fields filled in.
"""

from __future__ import annotations

import builtins
from typing import Any, Optional


class Error(Exception):
    """Base class of every error raised by abws."""

    def __init__(self, message: str = "", **fields: Any) -> None:
        super().__init__(message)
        self.message = message
        for name, value in fields.items():
            setattr(self, name, value)
        self._fields = fields

    def __reduce__(self):  # keeps the fields through pickling
        return (_rebuild, (type(self), self.message, self._fields))

    def __str__(self) -> str:
        return self.message


def _rebuild(cls: type, message: str, fields: dict) -> "Error":
    return cls(message, **fields)


class ValidationError(Error, ValueError):
    """Bad input, found before any request was sent. ``parameter`` names the input."""

    parameter: Optional[str] = None


class ApiError(Error):
    """The service answered with an error status."""

    status: int = 0
    code: str = ""
    details: str = ""
    request_id: Optional[str] = None


class BadRequest(ApiError):
    """HTTP 400: missing or invalid parameters."""


class Unauthorized(ApiError):
    """HTTP 401: the access token header is malformed or not valid."""


class Forbidden(ApiError):
    """HTTP 403: access denied (a missing role, an unauthorized user e-mail)."""


class NotFound(ApiError):
    """HTTP 404: the resource does not exist."""


class PayloadTooLarge(ApiError):
    """HTTP 413: the request is larger than the service accepts."""


class UnsupportedMediaType(ApiError):
    """HTTP 415: unsupported payload format."""


class RateLimited(ApiError):
    """HTTP 429: still throttled after the retries the policy allows."""


class ServerError(ApiError):
    """HTTP 500/502/503/504: still failing after the retries the policy allows."""


class PageTokenExpired(Error):
    """A page token expired (15 minutes). ``items_yielded`` says how far the listing got."""

    items_yielded: int = 0


class ReportFailed(Error):
    """A report ended CANCELLED or FATAL. ``report_id`` and ``processing_status`` say which."""

    report_id: Optional[str] = None
    processing_status: Optional[str] = None


class DocumentError(Error):
    """A document could not be unpacked, or the archive held an error document."""

    error_code: Optional[str] = None


class OutcomeUnknown(Error):
    """placeOrder or addItems may or may not have been applied; it was not resent.

    ``external_id`` identifies the order or cart line to check before trying again.
    """

    external_id: Optional[str] = None


class TransportError(Error):
    """The network failed, or the response could not be read."""


class Timeout(TransportError, builtins.TimeoutError):
    """An attempt or the operation's deadline ran out (also a builtin ``TimeoutError``)."""


class AuthError(Error):
    """Authorization failed: client credentials rejected, consent revoked, code invalid."""
