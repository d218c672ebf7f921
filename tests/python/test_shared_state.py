"""``shared_state`` from Python: worker processes of one account, each with its own client,
share one rate limit and one token refresh through a real Redis (``redis-server`` on a free
loopback port; ``scripts/ensure-redis.sh`` installs it, and without it this test fails)."""

from __future__ import annotations

import contextlib
import multiprocessing
import shutil
import socket
import subprocess
import tempfile
import time
from typing import Any, Dict, Iterator, List

import pytest

import abws
from conftest import order_line

OP = "getInvoiceDetailByInvoiceNumber"


@contextlib.contextmanager
def redis_server(*args: str) -> Iterator[int]:
    """A real redis-server on a free loopback port (its port), started with ``args`` too
    (``--requirepass``, ...), killed on leaving."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.fail("redis-server is not installed: scripts/ensure-redis.sh installs it (make test runs it)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as d:
        proc = subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                 "--appendonly", "no", "--dir", d, *args], stdout=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline, "redis-server did not start"
                    time.sleep(0.02)
            yield port
        finally:
            proc.kill()
            proc.wait()


@pytest.fixture()
def redis_url() -> Iterator[str]:
    with redis_server() as port:
        yield f"redis://127.0.0.1:{port}/0"


def _worker(settings: Dict[str, Any], numbers: List[str], calls: int, out: Any) -> None:
    client = abws.Client(**settings)
    errors = 0
    for i in range(calls):
        try:
            client.invoices.get_invoice_detail_by_invoice_number(numbers[i % len(numbers)])
        except abws.Error:
            errors += 1
    out.put(errors)


def test_worker_processes_share_one_limit_and_one_refresh(redis_url: str) -> None:
    with abws.Sandbox(rate_limits="spec", today="2026-03-18") as sb:
        sb.set_rate(OP, 10.0, 10)
        c = sb.credentials()
        settings = {"region": "JP", "client_id": c["client_id"], "client_secret": c["client_secret"],
                    "refresh_token": c["refresh_token"], "user_email": c["user_email"],
                    "endpoint": sb.group_url("JP"), "auth_endpoint": sb.base_url, "shared_state": redis_url}
        numbers = sb.dataset()["previousMonthInvoices"]
        ctx = multiprocessing.get_context("spawn")
        out = ctx.Queue()
        procs = [ctx.Process(target=_worker, args=(settings, numbers, 10, out)) for _ in range(3)]
        for p in procs:
            p.start()
        errors = [out.get(timeout=120) for _ in procs]
        for p in procs:
            p.join(timeout=30)
        counters = sb.counters()
        assert errors == [0, 0, 0]
        assert sum(counters["throttled"].values()) == 0, counters["throttled"]
        assert counters["tokenCalls"].get("refresh_token") == 1, counters["tokenCalls"]


def test_the_address_is_a_secret(redis_url: str) -> None:
    with abws.Sandbox(rate_limits="off") as sb:
        secret_url = "redis://:s3cr3t-pass@127.0.0.1:1/0"
        client = sb.client("JP", shared_state=secret_url)
        shown = client.settings["shared_state"]
        assert shown and "s3cr3t-pass" not in shown and "s3cr3t-pass" not in repr(client)
        with pytest.raises(abws.ValidationError) as e:
            sb.client("JP", shared_state="http://127.0.0.1:6379")
        assert e.value.parameter == "shared_state"
        # Unreachable Redis: calls go on, paced locally.
        client.invoices.get_invoices("2026-02-01T00:00:00Z", "2026-02-02T00:00:00Z")


def test_an_unknown_order_is_resolved_by_placing_it_again(sb: abws.Sandbox, offer: Any, redis_url: str) -> None:
    """OutcomeUnknown says what to do, and doing it (place_order again, same order) resolves it
    through the shared write ledger: the service answers the original order, no second one."""
    line = order_line(*offer)
    client = sb.client("JP", rate_limiting=False, shared_state=redis_url)
    sb.fail("placeOrder", action={"garbled": True}, times=1)
    with pytest.raises(abws.OutcomeUnknown) as e:
        client.ordering.place_order("py-fleet-unknown-1", [line], attributes=[], expectations=[])
    assert e.value.attempts == 1
    assert "call place_order again with the same order" in str(e.value)
    # Another worker of the account resolves it with one call.
    other = sb.client("JP", rate_limiting=False, shared_state=redis_url)
    placed = other.ordering.place_order("py-fleet-unknown-1", [line], attributes=[], expectations=[])
    assert placed.acceptance_artifacts
    counters = sb.counters()
    assert counters["ordersCreated"]["py-fleet-unknown-1"] == 1
    assert counters["placeOrderRequests"]["py-fleet-unknown-1"] == 2


@pytest.mark.asyncio
async def test_the_async_client_resolves_an_unknown_order_too(sb: abws.Sandbox, offer: Any, redis_url: str) -> None:
    line = order_line(*offer)
    client = sb.async_client("JP", rate_limiting=False, shared_state=redis_url)
    sb.fail("placeOrder", action={"garbled": True}, times=1)
    with pytest.raises(abws.OutcomeUnknown):
        await client.ordering.place_order("py-fleet-unknown-2", [line], attributes=[], expectations=[])
    placed = await client.ordering.place_order("py-fleet-unknown-2", [line], attributes=[], expectations=[])
    assert placed.acceptance_artifacts
    assert sb.counters()["ordersCreated"]["py-fleet-unknown-2"] == 1
