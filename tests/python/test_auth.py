"""The consent flow against the sandbox: consent page address, code exchange, and the
interactive helper with a scripted browser."""

from __future__ import annotations

import socket
import urllib.error
import urllib.parse
import urllib.request

import pytest

import abws
from conftest import END, START


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _allow(consent_page: str) -> str:
    """What the administrator's browser does: press Allow; returns the redirect target."""
    parts = urllib.parse.urlsplit(consent_page)
    allow = urllib.parse.urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/allow"))
    opener = urllib.request.build_opener(_NoRedirect)
    with pytest.raises(urllib.error.HTTPError) as e:
        opener.open(allow)
    assert e.value.code in (302, 303)
    return e.value.headers["Location"]


def test_consent_url_and_code_exchange(sb):
    creds = sb.credentials()
    url = abws.consent_url(creds["application_id"], creds["redirect_uri"], "st-1", consent_endpoint=sb.base_url)
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
    assert query == {"state": "st-1", "redirect_uri": creds["redirect_uri"], "applicationId": creds["application_id"]}
    with urllib.request.urlopen(url) as page:
        assert page.status == 200
    target = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(_allow(url)).query))
    assert target["state"] == "st-1"
    tokens = abws.exchange_code(
        target["code"], client_id=creds["client_id"], client_secret=creds["client_secret"],
        redirect_uri=creds["redirect_uri"], auth_endpoint=sb.base_url,
    )
    assert tokens.access_token and tokens.refresh_token and tokens.expires_in > 0
    assert tokens.access_token not in repr(tokens) and tokens.refresh_token not in repr(tokens)
    client = abws.Client("JP", client_id=creds["client_id"], client_secret=creds["client_secret"],
                         refresh_token=tokens.refresh_token, endpoint=sb.base_url, auth_endpoint=sb.base_url,
                         rate_limiting=False)
    assert client.invoices.get_invoices(START, END).invoices
    with pytest.raises(abws.AuthError):  # a code works once
        abws.exchange_code(
            target["code"], client_id=creds["client_id"], client_secret=creds["client_secret"],
            redirect_uri=creds["redirect_uri"], auth_endpoint=sb.base_url,
        )


def test_consent_url_validates():
    with pytest.raises(abws.ValidationError) as e:
        abws.consent_url("app", "http://127.0.0.1:1/cb", "", consent_endpoint="https://consent.example")
    assert e.value.parameter == "state"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_authorize_interactive(sb):
    creds = sb.credentials()
    port = _free_port()

    def browser(url: str) -> None:
        target = urllib.parse.urlsplit(_allow(url))
        # the registered redirect_uri lives on the sandbox's foreign host; deliver the
        # redirect to our listener instead, as a port forward would
        urllib.request.urlopen(f"http://127.0.0.1:{port}{target.path}?{target.query}").read()

    result = abws.authorize_interactive(
        client_id=creds["client_id"], client_secret=creds["client_secret"],
        application_id=creds["application_id"], redirect_uri=creds["redirect_uri"],
        consent_endpoint=sb.base_url, auth_endpoint=sb.base_url,
        open_browser=browser, listen_port=port, timeout=20,
    )
    assert isinstance(result, abws.Credentials) and result.client_id == creds["client_id"]
    assert result.refresh_token not in repr(result)
    client = abws.Client("JP", **result.as_kwargs(), endpoint=sb.base_url, auth_endpoint=sb.base_url,
                         rate_limiting=False)
    assert client.invoices.get_invoices(START, END).invoices


def test_authorize_interactive_rejects_a_wrong_state(sb):
    creds = sb.credentials()
    port = _free_port()

    def forged(url: str) -> None:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/callback?state=forged&code=abc").read()

    with pytest.raises(abws.AuthError, match="state"):
        abws.authorize_interactive(
            client_id=creds["client_id"], client_secret=creds["client_secret"],
            application_id=creds["application_id"], redirect_uri=creds["redirect_uri"],
            consent_endpoint=sb.base_url, auth_endpoint=sb.base_url,
            open_browser=forged, listen_port=port, timeout=20,
        )


def test_authorize_interactive_times_out(sb):
    creds = sb.credentials()
    with pytest.raises(abws.Timeout):
        abws.authorize_interactive(
            client_id=creds["client_id"], client_secret=creds["client_secret"],
            application_id=creds["application_id"], redirect_uri=creds["redirect_uri"],
            consent_endpoint=sb.base_url, auth_endpoint=sb.base_url,
            open_browser=lambda url: None, listen_port=_free_port(), timeout=0.5,
        )
