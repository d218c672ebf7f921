"""Shared fixtures: one embedded sandbox per session (fast clock, no server-side rate
limits) and clients of it. Tests that need their own settings start their own sandbox."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest

import abws

TODAY = "2026-03-18"
# A month of data well inside the sandbox's 120 days, never in the future.
START, END = "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"


def mypy_strict(tmp_path: Path, *files: str) -> "subprocess.CompletedProcess[str]":
    """`mypy --strict` over `files` (relative to `tmp_path`, or absolute), run in
    `tmp_path` with its own cache, so `abws` is the installed package."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir",
         str(tmp_path / ".mypy_cache"), "--hide-error-context", "--no-error-summary", *files],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )


SCALE = 60  # the shared sandboxes' clock: report jobs finish in about a second


def shared_sandbox() -> abws.Sandbox:
    """A sandbox many tests share, its clock SCALE times faster. Its tokens last SCALE hours
    of its own time, a real hour: the `expires_in` it sends is in its own seconds, so a
    one-hour token would end after a real minute while the clients trust it for an hour,
    and the call that met its end would be refused (403) and sent again after a refresh:
    a request more than an exact count expects, and a fault meant for the call would meet
    the 403 instead."""
    return abws.Sandbox(time_scale=SCALE, today=TODAY, rate_limits="off", token_lifetime=3600 * SCALE)


@pytest.fixture(scope="session")
def sb() -> Iterator[abws.Sandbox]:
    with shared_sandbox() as s:
        yield s


# A job started in the background of a shell without job control (`cmd &` in a script,
# `setsid nohup ... &`) inherits SIGINT ignored, and Python then installs no
# KeyboardInterrupt handler: the Ctrl-C tests (J2, J5, ...) would wait out every call they
# interrupt (J2: 20 report waits of a minute each). Python's own handler, whatever the start.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@contextlib.contextmanager
def ctrl_c_after(delay: float) -> Iterator[Dict[str, float]]:
    """Sends this process SIGINT (a Ctrl-C) `delay` seconds into the block, from a timer
    thread; yields a dict whose "at" is the monotonic time it was sent. Waits for the timer
    on the way out."""
    sent: Dict[str, float] = {}

    def interrupt() -> None:
        sent["at"] = time.monotonic()
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(delay, interrupt)
    timer.start()
    try:
        yield sent
    finally:
        timer.join()


@pytest.fixture(autouse=True)
def _no_faults_left(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    if "sb" in request.fixturenames:
        request.getfixturevalue("sb").clear_faults()


@pytest.fixture(scope="session")
def client(sb: abws.Sandbox) -> abws.Client:
    return sb.client("JP", rate_limiting=False)


@pytest.fixture(scope="session")
def one_shot(sb: abws.Sandbox) -> abws.Client:
    """A client that never retries (for fault tests)."""
    return sb.client("JP", rate_limiting=False, max_attempts=1)


@pytest.fixture(scope="session")
def dataset(sb: abws.Sandbox) -> Dict[str, Any]:
    return sb.dataset()


@pytest.fixture(scope="session")
def line_item(client: abws.Client) -> Any:
    """A transaction line item (order, line, shipment ids) of the data set."""
    page = client.reconciliation.get_transactions(START, END)
    return page.transactions[0].transaction_line_items[0]


@pytest.fixture(scope="session")
def offer(client: abws.Client) -> Any:
    """(asin, offer id) of a purchasable product."""
    result = client.products.search_products_request("JP", "ja-JP", keywords=["coffee"])
    for product in result.products:
        offers = client.products.search_offers_request(product.asin, "JP", "ja-JP").offers or []
        for o in offers:
            if (o.quantity_in_stock or 0) > 10:
                return product.asin, o.offer_id
    raise AssertionError("no purchasable offer in the data set")


def order_line(asin: str, offer_id: str, external_id: str = "1", quantity: int = 1) -> Dict[str, Any]:
    """A place_order line item: `quantity` of offer `offer_id` of product `asin`."""
    return {
        "external_id": external_id,
        "quantity": quantity,
        "attributes": [
            {"attributeType": "SelectedProductReference", "productReference": {"productType": "ASIN", "id": asin}},
            {"attributeType": "SelectedBuyingOptionReference",
             "buyingOptionReference": {"buyingOptionType": "OFFER", "id": offer_id}},
        ],
        "expectations": [],
    }
