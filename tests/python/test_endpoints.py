"""Endpoints are configuration: no address is built in; ``from_env``
requires ``ABWS_REGION``; ``use_sandbox`` sends the calls to ``sandbox_endpoint``; a
connect error names the host; a 403 names the role; and docs/configuration.md's path against a
sandbox started as its own process, its settings exported as ``ABWS_*`` variables."""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import abws
from conftest import END, START

ABWS_VARS = [
    "ABWS_REGION", "ABWS_CLIENT_ID", "ABWS_CLIENT_SECRET", "ABWS_REFRESH_TOKEN", "ABWS_ACCESS_TOKEN",
    "ABWS_USER_EMAIL", "ABWS_ENDPOINT", "ABWS_AUTH_ENDPOINT", "ABWS_CONSENT_ENDPOINT",
    "ABWS_SANDBOX_ENDPOINT", "ABWS_USE_SANDBOX", "ABWS_PROXY", "ABWS_SHARED_STATE",
]


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for var in ABWS_VARS:
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def test_a_client_without_an_address_is_refused_naming_the_setting() -> None:
    with pytest.raises(abws.ValidationError) as e:
        abws.Client("JP", access_token="Atza|t")
    assert e.value.parameter == "endpoint"
    assert "invalid endpoint: is required" in str(e.value) and "ABWS_ENDPOINT" in str(e.value)
    with pytest.raises(abws.ValidationError) as e:
        abws.Client("JP", client_id="c", client_secret="s", refresh_token="r", endpoint="https://api.example.com")
    assert e.value.parameter == "auth_endpoint"
    assert "ABWS_AUTH_ENDPOINT" in str(e.value)
    with pytest.raises(abws.ValidationError) as e:
        abws.consent_url("app", "http://127.0.0.1:1/cb", "state")
    assert e.value.parameter == "consent_endpoint" and "ABWS_CONSENT_ENDPOINT" in str(e.value)


def test_from_env_requires_abws_region(sb: abws.Sandbox, clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("ABWS_ACCESS_TOKEN", "Atza|t")
    clean_env.setenv("ABWS_ENDPOINT", sb.group_url("JP"))
    with pytest.raises(abws.ValidationError) as e:
        abws.Client.from_env()
    assert e.value.parameter == "ABWS_REGION"
    assert "one of AU CA DE ES FR IN IT JP MX UK US" in str(e.value)
    # A region given in code stands in for the variable.
    assert abws.Client.from_env(region="UK").region == "UK"
    clean_env.setenv("ABWS_USE_SANDBOX", "maybe")
    with pytest.raises(abws.ValidationError) as e:
        abws.Client.from_env(region="JP")
    assert e.value.parameter == "ABWS_USE_SANDBOX"


def test_use_sandbox_sends_the_calls_to_the_sandbox_address(sb: abws.Sandbox, clean_env: pytest.MonkeyPatch) -> None:
    c = sb.credentials()
    clean_env.setenv("ABWS_REGION", "JP")
    clean_env.setenv("ABWS_ENDPOINT", "https://api.invalid")  # never contacted
    clean_env.setenv("ABWS_SANDBOX_ENDPOINT", sb.group_url("JP"))
    clean_env.setenv("ABWS_USE_SANDBOX", "true")
    clean_env.setenv("ABWS_AUTH_ENDPOINT", sb.base_url)
    client = abws.Client.from_env(client_id=c["client_id"], client_secret=c["client_secret"],
                                  refresh_token=c["refresh_token"], rate_limiting=False)
    assert client.settings["use_sandbox"] is True
    assert client.settings["api_address"] == sb.group_url("JP")
    direct = sb.client("JP", rate_limiting=False)
    assert client.invoices.get_invoices(START, END).invoices == direct.invoices.get_invoices(START, END).invoices


def test_a_connect_error_names_the_host() -> None:
    with socket.socket() as s:  # a port nothing listens on: bound, then closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = abws.Client("JP", access_token="Atza|t", endpoint=f"http://127.0.0.1:{port}/base",
                         max_attempts=1, rate_limiting=False)
    with pytest.raises(abws.TransportError) as e:
        client.documents.get_report("r-1")
    assert f"could not connect to http://127.0.0.1:{port}:" in str(e.value)
    assert "/base" not in str(e.value)


def test_a_403_names_the_role_the_operation_needs(sb: abws.Sandbox, client: abws.Client) -> None:
    sb.fail("getReport", 403, times=1)
    with pytest.raises(abws.Forbidden) as e:
        client.documents.get_report("r-1")
    assert "getReport needs the Business Purchase Reconciliation role" in str(e.value)


def _sandbox_binary() -> Path:
    lib = os.environ.get("ABWS_LIBABWS")
    path = Path(os.environ.get("ABWS_SANDBOX_BIN") or (Path(lib).parent / "abws-sandbox" if lib else ""))
    assert path.is_file(), "the abws-sandbox binary is not built (scripts/test-python.sh builds it)"
    return path


def _readme_real_looking_path() -> tuple[str, list[str]]:
    """docs/configuration.md's "Against a real-looking configuration": its Python (the heredoc)
    and its decrypt command, as written."""
    page = (Path(__file__).resolve().parents[2] / "docs/configuration.md").read_text(encoding="utf-8")
    section = page.split("## Against a real-looking configuration", 1)[1].split("\n## ", 1)[0]
    script = section.split("python - <<'PY'\n", 1)[1].split("\nPY\n", 1)[0]
    decrypt = next(line for line in section.splitlines() if line.startswith("python -m abws decrypt"))
    return script, shlex.split(decrypt.split("#", 1)[0])[1:]


def test_the_readme_path_from_a_separate_sandbox_process(tmp_path: Path) -> None:
    """docs/configuration.md's "against a real-looking configuration", as written: the sandbox binary
    started as its own process prints its settings as shell exports; a fresh Python with
    only those variables (and a document key) lists an invoice and files an invoice PDF
    encrypted through ``Client.from_env()``; the page's decrypt command opens it."""
    script, decrypt = _readme_real_looking_path()
    env_file = tmp_path / "sandbox.env"
    with open(env_file, "w") as out:
        proc = subprocess.Popen([str(_sandbox_binary()), "--rate-limits", "off", "--env", "JP"], stdout=out)
    try:
        deadline = time.monotonic() + 30
        while env_file.stat().st_size == 0 or not env_file.read_text().endswith("\n"):
            assert time.monotonic() < deadline, "the sandbox printed nothing"
            time.sleep(0.05)
        exports = dict(
            shlex.split(line.removeprefix("export "))[0].split("=", 1)
            for line in env_file.read_text().splitlines()
        )
        assert exports["ABWS_REGION"] == "JP" and exports["ABWS_ENDPOINT"].startswith("http://127.0.0.1:")
        env = {k: v for k, v in os.environ.items() if not k.startswith("ABWS_")}
        env.update(exports)
        key = os.urandom(32)
        env["ABWS_DOCUMENT_KEY"] = key.hex()
        started = time.monotonic()
        run = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        listed, filed = run.stdout.strip().splitlines()
        assert listed.split()[0], "an invoice is listed"
        assert filed.startswith("invoice.pdf.abws: a ") and filed.endswith("-byte PDF, encrypted"), filed
        # The sandbox's reports end within about a second: the default poll follows them.
        assert time.monotonic() - started < 30
        sealed = (tmp_path / "invoice.pdf.abws").read_bytes()
        assert sealed.startswith(b"ABWSENC1") and b"%PDF" not in sealed
        assert abws.decrypt(sealed, key).startswith(b"%PDF-")
        opened = subprocess.run([sys.executable, *decrypt], env=env, cwd=tmp_path,
                                capture_output=True, text=True, timeout=60)
        assert opened.returncode == 0, opened.stderr
        assert (tmp_path / "invoice.pdf").read_bytes().startswith(b"%PDF-")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
