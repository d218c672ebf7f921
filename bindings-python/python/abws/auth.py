"""The OAuth consent flow: consent page address, code exchange, and an interactive helper
that opens the consent page and receives the redirect on a loopback listener."""

from __future__ import annotations

import os
import threading
import time
import urllib.parse
from typing import Any, Callable, Dict, Optional

from . import _abws
from ._log import logger
from .exceptions import AuthError, Timeout, ValidationError

__all__ = ["Tokens", "Credentials", "consent_url", "exchange_code", "authorize_interactive"]


class Tokens:
    """What the token endpoint returned. Secrets are not shown by ``repr``."""

    access_token: str
    refresh_token: Optional[str]
    token_type: str
    expires_in: float

    def __init__(
        self, access_token: str, refresh_token: Optional[str], token_type: str = "bearer", expires_in: float = 3600.0
    ) -> None:
        self.access_token = access_token
        self.refresh_token = refresh_token
        self.token_type = token_type
        self.expires_in = expires_in

    def __repr__(self) -> str:
        return f"<abws.Tokens token_type={self.token_type} expires_in={self.expires_in:.0f} access_token=*** refresh_token=***>"


class Credentials:
    """Everything a client needs to refresh its own tokens. Secrets are not shown by
    ``repr``; pass them to :class:`abws.Client` with ``Client(**creds.as_kwargs())``."""

    client_id: str
    client_secret: str
    refresh_token: str

    def __init__(self, client_id: str, client_secret: str, refresh_token: str) -> None:
        self.client_id = client_id
        self.client_secret = client_secret
        self.refresh_token = refresh_token

    def as_kwargs(self) -> Dict[str, str]:
        """``client_id``, ``client_secret`` and ``refresh_token`` for ``abws.Client``."""
        return {
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "refresh_token": self.refresh_token,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Credentials):
            return NotImplemented
        return self.as_kwargs() == other.as_kwargs()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<abws.Credentials client_id={self.client_id} client_secret=*** refresh_token=***>"


def _address(name: str, given: Optional[str]) -> str:
    """The address setting ``name``: as given, else its ``ABWS_*`` variable; no address is
    built in (the specification names none), so without either this raises, naming both."""
    if given:
        return given
    var = "ABWS_" + name.upper()
    from_env = os.environ.get(var, "").strip()
    if from_env:
        return from_env
    raise ValidationError(
        f"invalid {name}: is required: the specification names no address, so abws has none "
        f"built in. Give {name}= (environment: {var})",
        parameter=name,
        kind="validation",
    )


def consent_url(
    application_id: str,
    redirect_uri: str,
    state: str,
    *,
    consent_endpoint: Optional[str] = None,
) -> str:
    """The consent page address the customer's administrator opens. ``state`` is an
    unguessable value you check when the redirect comes back. ``consent_endpoint`` (else
    ``ABWS_CONSENT_ENDPOINT``) is the regional marketplace address that serves the page."""
    return str(_abws.consent_url(_address("consent_endpoint", consent_endpoint), state, redirect_uri, application_id))


def exchange_code(
    code: str,
    *,
    client_id: str,
    client_secret: str,
    redirect_uri: str,
    auth_endpoint: Optional[str] = None,
) -> Tokens:
    """Exchanges an authorization code (single use, valid 5 minutes) for tokens at
    ``auth_endpoint`` (else ``ABWS_AUTH_ENDPOINT``). The request is never resent once
    written; a failure raises ``AuthError``."""
    d = _abws.exchange_code(_address("auth_endpoint", auth_endpoint), client_id, client_secret, code, redirect_uri)
    return Tokens(d["access_token"], d["refresh_token"], d["token_type"], d["expires_in"])


def authorize_interactive(
    *,
    client_id: str,
    client_secret: str,
    application_id: str,
    redirect_uri: str = "http://127.0.0.1:8400/callback",
    consent_endpoint: Optional[str] = None,
    auth_endpoint: Optional[str] = None,
    timeout: float = 300.0,
    open_browser: Optional[Callable[[str], Any]] = None,
    listen_port: Optional[int] = None,
) -> Credentials:
    """Runs the consent flow on this machine and returns the credentials.

    Opens the consent page (``open_browser(url)``, default: the web browser), waits up to
    ``timeout`` seconds for the redirect on a loopback listener at ``redirect_uri``
    (which must be a registered ``http://127.0.0.1:PORT/...`` or ``localhost`` address;
    ``listen_port`` overrides the port listened on, e.g. behind a port forward), checks
    ``state``, and exchanges the code. Ctrl-C interrupts the wait.
    """
    parts = urllib.parse.urlsplit(redirect_uri)
    if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise ValidationError(
            "invalid redirect_uri: must be an http loopback address (http://127.0.0.1:PORT/path)",
            parameter="redirect_uri",
            kind="validation",
        )
    # Loaded here: http.server, webbrowser and secrets cost ~30 ms of `import abws` (B7).
    import secrets
    import webbrowser

    from ._loopback import Handler, Server

    port = listen_port if listen_port is not None else (parts.port or 80)
    state = secrets.token_urlsafe(24)
    url = consent_url(application_id, redirect_uri, state, consent_endpoint=consent_endpoint)
    server = Server(("127.0.0.1", port), Handler)
    server.expected_path = parts.path or "/"
    server.timeout = 0.1
    try:
        opener = open_browser or webbrowser.open
        logger.info("abws: opening the consent page; waiting for the redirect on port %d", port)
        threading.Thread(target=opener, args=(url,), daemon=True).start()
        deadline = time.monotonic() + timeout
        while server.result is None:
            if time.monotonic() > deadline:
                raise Timeout(
                    f"no redirect arrived on {redirect_uri} within {timeout:.0f} s",
                    kind="timeout",
                )
            server.handle_request()
    finally:
        server.server_close()
    result = server.result
    if not secrets.compare_digest(result.get("state", ""), state):
        raise AuthError(
            "the redirect's state does not match the one sent: the response was not for this request",
            kind="auth",
        )
    if "code" not in result:
        reason = result.get("error_description") or result.get("error") or "no code in the redirect"
        raise AuthError(f"consent was not granted: {reason}", kind="auth")
    tokens = exchange_code(
        result["code"],
        client_id=client_id,
        client_secret=client_secret,
        redirect_uri=redirect_uri,
        auth_endpoint=auth_endpoint,
    )
    if not tokens.refresh_token:
        raise AuthError("the token endpoint returned no refresh_token", kind="auth")
    return Credentials(client_id, client_secret, tokens.refresh_token)
