"""The embedded sandbox: the whole service emulated in-process on 127.0.0.1, for
examples, notebooks and tests that run offline."""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any, Dict, Optional, Union

from . import _abws
from .async_client import AsyncClient
from .client import Client

__all__ = ["Sandbox"]


class Sandbox:
    """Starts the emulator on ephemeral loopback ports; use it as a context manager.

    ``time_scale`` runs server-side time faster (tokens, page tokens, report states);
    ``rate_limits`` is ``"spec"`` (answer 429 past the published plans) or ``"off"``;
    lifetimes are in seconds of scaled time; ``today`` pins the data set's date.
    """

    def __init__(
        self,
        *,
        seed: int = 42,
        rate_limits: str = "spec",
        time_scale: float = 1.0,
        token_lifetime: float = 3600.0,
        page_token_lifetime: float = 900.0,
        presigned_lifetime: float = 300.0,
        today: Optional[Union[date, str]] = None,
        rotate_refresh_tokens: bool = False,
    ) -> None:
        if isinstance(today, date):
            today = today.isoformat()
        self._native = _abws.Sandbox(
            seed=seed,
            rate_limits=rate_limits,
            time_scale=time_scale,
            token_lifetime=token_lifetime,
            page_token_lifetime=page_token_lifetime,
            presigned_lifetime=presigned_lifetime,
            today=today,
            rotate_refresh_tokens=rotate_refresh_tokens,
        )
        self._info: Dict[str, Any] = json.loads(self._native.describe())

    @property
    def base_url(self) -> str:
        """The API address (also the token endpoint and the consent page)."""
        return str(self._info["base_url"])

    @property
    def documents_url(self) -> str:
        """The presigned-document host."""
        return str(self._info["documents_url"])

    @property
    def foreign_url(self) -> str:
        """A listener that records requests (and the registered redirect_uri's host)."""
        return str(self._info["foreign_url"])

    def now(self) -> datetime:
        """The sandbox's present (an aware UTC ``datetime``): compute date ranges from it.
        With ``today`` pinned it runs ``time_scale`` times faster than real time from noon
        of that day; otherwise it is never after the wall clock, so an order placed now is
        in a range that ends at ``datetime.now(timezone.utc)`` too."""
        return datetime.fromisoformat(self._native.now())

    def credentials(self) -> Dict[str, str]:
        """client_id, client_secret, refresh_token, user_email, application_id, redirect_uri."""
        return dict(self._native.credentials())

    def group_url(self, region: str) -> str:
        """The API address of a region's group (``{base_url}/na``, ``/eu``, ``/fe``), like
        the service's regional addresses: listings there show that group's data."""
        return str(self._native.group_url(region))

    def client(self, region: str = "US", **kwargs: Any) -> Client:
        """A client of this sandbox for ``region``, at its group's address, authenticated
        with the sandbox's pre-issued refresh token."""
        return Client(region, **self._client_args(region, kwargs))

    def async_client(self, region: str = "US", **kwargs: Any) -> AsyncClient:
        """An ``AsyncClient`` of this sandbox, as ``client()`` makes a ``Client``."""
        return AsyncClient(region, **self._client_args(region, kwargs))

    def _client_args(self, region: str, kwargs: Dict[str, Any]) -> Dict[str, Any]:
        c = self.credentials()
        args: Dict[str, Any] = {
            "client_id": c["client_id"],
            "client_secret": c["client_secret"],
            "refresh_token": c["refresh_token"],
            "user_email": c["user_email"],
            "endpoint": self.group_url(region),
            "auth_endpoint": self.base_url,
            "consent_endpoint": self.base_url,
        }
        args.update(kwargs)
        return args

    def fail(
        self,
        path: str,
        status: Optional[int] = 503,
        times: Optional[int] = None,
        *,
        delay_ms: Optional[int] = None,
        probability: Optional[float] = None,
        listener: Optional[str] = None,
        action: Optional[Dict[str, Any]] = None,
    ) -> None:
        """Injects a fault on ``path`` (an operationId such as ``getInvoices``, a path
        prefix starting with ``/``, or ``*``; anything else, such as a misspelt
        ``getInvoice``, raises ``ValidationError`` listing the operationIds): answer ``status``, or wait ``delay_ms`` first, or any
        ``action`` of the sandbox's fault rules (``{"reset": true}``, ``{"truncate":
        true}``, ...); for the next ``times`` requests (``None``: until cleared)."""
        if action is None:
            action = {"delay_ms": delay_ms} if delay_ms is not None else {"status": status}
        rule: Dict[str, Any] = {"path": path, "action": action}
        if times is not None:
            rule["times"] = times
        if probability is not None:
            rule["probability"] = probability
        if listener is not None:
            rule["listener"] = listener
        self._native.inject(json.dumps(rule))

    def clear_faults(self) -> None:
        self._native.clear_faults()

    def counters(self) -> Dict[str, Any]:
        """Requests received so far, by operation and listener."""
        return dict(json.loads(self._native.counters()))

    def reset_counters(self) -> None:
        self._native.reset_counters()

    def dataset(self) -> Dict[str, Any]:
        """The data set's notable ids (``specials``) and summary."""
        return dict(json.loads(self._native.dataset()))

    def expire_tokens(self) -> None:
        """Makes every issued access token expired."""
        self._native.expire_tokens()

    def revoke(self) -> None:
        """Revokes the consent: refresh tokens stop working."""
        self._native.revoke()

    def set_rate(self, operation: str, rate: float, burst: int) -> bool:
        return bool(self._native.set_rate(operation, rate, burst))

    def stop(self) -> None:
        """Stops the listeners (also done on leaving the ``with`` block)."""
        self._native.stop()

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<abws.Sandbox {self.base_url}>"
