"""The exception tree: ``except abws.Error`` catches every error of the library.

The classes are plain Python so they document, type-check and pickle like any other
exception; the extension module raises them with their fields filled in.
"""

from __future__ import annotations

import builtins
from typing import Any, Dict, Optional


class Error(Exception):
    """Base class of every error raised by abws.

    ``str(err)`` is the full explanation; ``message`` the headline (for API errors the
    service's own message). ``kind`` names the core's error kind, ``operation`` the
    operationId, ``request_id`` the server's request id when a response was received,
    ``attempts`` how many attempts were sent.
    """

    message: str
    kind: Optional[str] = None
    operation: Optional[str] = None
    request_id: Optional[str] = None
    attempts: int = 0

    def __init__(self, text: str = "", **fields: Any) -> None:
        super().__init__(text)
        self._text = text
        self.message = fields.pop("message", text)
        for name, value in fields.items():
            setattr(self, name, value)
        self._fields = fields

    def __reduce__(self) -> Any:  # keeps the fields, and the notes, through pickling
        fields = dict(self._fields)
        if self.message != self._text:
            fields["message"] = self.message
        notes = self.__dict__.get("__notes__")
        state = {"__notes__": list(notes)} if notes else None
        return (_rebuild, (type(self), self._text, fields), state)

    def __str__(self) -> str:
        return self._text


def _rebuild(cls: "type[Error]", text: str, fields: Dict[str, Any]) -> "Error":
    return cls(text, **fields)


class ValidationError(Error, ValueError):
    """Bad input, found before any request was sent. ``parameter`` names the input."""

    parameter: Optional[str] = None


class _UnknownParameter(ValidationError, TypeError):
    """A keyword argument that names no parameter of the method (also the ``TypeError``
    Python raises for one): the message suggests the parameter meant."""


class ApiError(Error):
    """The service answered with an error status: ``status``, ``code``, ``message``,
    ``details`` and ``request_id`` come from the response."""

    status: int = 0
    code: str = ""
    details: str = ""


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

    ``external_id`` identifies the order or cart lines. A placeOrder is resolved by calling
    ``place_order`` again with the same order: the service answers a known externalId with
    the original result and creates no second order. An addItems is not resent (it would
    add the quantities again): read the cart with ``get_items`` and converge with
    ``modify_items``.
    ``raw_body`` holds the answer as received when the service answered 2xx with a body
    that could not be read (the write was applied; the order id may be in it), else None.

    A call interrupted by Ctrl-C while its request was on the wire raises
    ``KeyboardInterrupt`` as usual, with ``external_id`` and ``operation`` set on it and a
    note saying the outcome is unknown (``KeyboardInterrupt.add_note()`` from Python 3.11;
    on 3.10 the note is only in ``__notes__``, which the traceback does not print).
    """

    external_id: Optional[str] = None
    raw_body: Optional[bytes] = None


class TransportError(Error):
    """The network failed, or the response could not be read."""


class Timeout(TransportError, builtins.TimeoutError):
    """An attempt or the operation's deadline ran out (also a builtin ``TimeoutError``)."""


class AuthError(Error):
    """Authorization failed: client credentials rejected, consent revoked, code invalid."""


class InternalError(Error):
    """A bug in abws or a misuse of its runtime; please report it with the message."""
