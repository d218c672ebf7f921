"""The asyncio client through its public API, against the sandbox.

Every operation of the table is awaited with the argument objects of test_same_json.py and
its result compared with libabws's JSON (the same check the blocking client passes), so
a new operation is covered here without editing this file; the conveniences and listings
are compared with the blocking client's results; errors are the same classes with the same
fields. Then what only an event loop needs: the core's future is cancelled with the task
(a socket of ours sees the connection close), a cancelled placeOrder carries its
externalId and is never resent, a cancelled download frees its buffer, the loop is not
stalled by 200 calls in flight and no thread is made per call, and it runs on uvloop, on
one loop per thread, and in a forked child.
"""

from __future__ import annotations

import asyncio
import copy
import io
import logging
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any, Iterator, List

import pytest

import abws
from conftest import END, START, order_line
from test_same_json import (  # noqa: F401  (c_lib, world and sandbox are fixtures)
    ARGS,
    FUNCTIONS,
    CLib,
    World,
    assert_same,
    c_lib,
    sandbox,
    world,
)
from test_shared_state import redis_url  # noqa: F401  (a real redis-server, a fixture)

@pytest.fixture
def aclient(sb: abws.Sandbox) -> abws.AsyncClient:
    return sb.async_client("JP", rate_limiting=False)


@pytest.fixture
def one_shot_async(sb: abws.Sandbox) -> abws.AsyncClient:
    return sb.async_client("JP", rate_limiting=False, max_attempts=1)


def _task_count() -> int:
    """Threads of this process (Rust's included), from /proc."""
    return len(os.listdir("/proc/self/task"))


# --- every operation, the same JSON as C ----------------------------------------------


@pytest.mark.parametrize("function,group,name", FUNCTIONS, ids=[f"{g}.{n}" for _, g, n in FUNCTIONS])
@pytest.mark.asyncio
async def test_every_operation_awaited_gives_the_same_json_as_c(
    function: str, group: str, name: str, world: World, c_lib: CLib, sandbox: Any
) -> None:
    build = ARGS.get(f"{group}.{name}")
    assert build is not None, f"no argument object for {group}.{name} in test_same_json.ARGS"
    case = build(world)
    async with sandbox.async_client("JP", rate_limiting=False) as client:
        py_result = await getattr(getattr(client, group), name)(**copy.deepcopy(case.args))
    assert_same(case, f"AsyncClient {group}.{name}", py_result, c_lib.call(function, copy.deepcopy(case.c_side())))


@pytest.mark.asyncio
async def test_every_method_of_client_is_on_async_client() -> None:
    """Same groups, same public methods, same parameters (the async ones awaitable)."""
    import inspect

    nowhere = {"access_token": "t", "endpoint": "http://127.0.0.1:9"}  # never called
    sync, aio = abws.Client("JP", **nowhere), abws.AsyncClient("JP", **nowhere)
    for group in abws.Client._GROUPS:
        s, a = getattr(sync, group), getattr(aio, group)
        names = {n for n in dir(s) if not n.startswith("_")}
        assert names == {n for n in dir(a) if not n.startswith("_")}, group
        for n in names:
            fs, fa = getattr(s, n), getattr(a, n)
            assert inspect.signature(fs).parameters.keys() == inspect.signature(fa).parameters.keys(), f"{group}.{n}"
            # iter_* give a listing (iterated with `async for`); everything else is awaited.
            assert inspect.iscoroutinefunction(fa) == (not n.startswith("iter_")), f"{group}.{n}"


# --- listings and conveniences, the same results as the blocking client ---------------


@pytest.mark.asyncio
async def test_listings_walk_every_page(client: abws.Client, aclient: abws.AsyncClient) -> None:
    expected = [inv.invoice_metadata.invoice_number for inv in client.invoices.iter_invoices(START, END)]
    listing = aclient.invoices.iter_invoices(START, END)
    got = [inv.invoice_metadata.invoice_number async for inv in listing]
    assert got == expected and len(got) > 10
    assert listing.items_yielded == len(got)
    pages = [p async for p in aclient.invoices.iter_invoices(START, END).pages()]
    assert sum(len(p.invoices) for p in pages) == len(got)
    tx = [t async for t in aclient.reconciliation.iter_transactions(START, END)]
    assert tx == list(client.reconciliation.iter_transactions(START, END))


@pytest.mark.asyncio
async def test_a_cancelled_page_fetch_leaves_the_listing_where_it_was(sb: abws.Sandbox, aclient: abws.AsyncClient) -> None:
    listing = aclient.invoices.iter_invoices(START, END)
    first = await listing.__anext__()
    for _ in range(9):  # the rest of the first page: the next item needs a fetch
        await listing.__anext__()
    sb.fail("getInvoices", delay_ms=2000, times=1)
    task = asyncio.ensure_future(listing.__anext__())
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    rest = [inv async for inv in listing]
    assert rest and first not in rest
    assert listing.items_yielded == 10 + len(rest)


@pytest.mark.asyncio
async def test_conveniences(client: abws.Client, aclient: abws.AsyncClient, line_item: Any, tmp_path: Path) -> None:
    assert await aclient.reconciliation.invoice_details_for([line_item]) == client.reconciliation.invoice_details_for([line_item])
    opts = {"order_id": line_item.order_id, "order_line_item_id": line_item.order_line_item_id, "document_type": "Invoice"}
    pdf = await aclient.documents.fetch_pdf(**opts, poll_interval=0.1, timeout=60)
    assert pdf.startswith(b"%PDF") and pdf == client.documents.fetch_pdf(**opts, poll_interval=0.1, timeout=60)
    sealed_pdf = tmp_path / "fetched.abws"
    filing_key = os.urandom(32)
    size = await aclient.documents.fetch_pdf(**opts, to=sealed_pdf, key=filing_key, poll_interval=0.1, timeout=60)
    assert size == len(pdf) and abws.decrypt(sealed_pdf.read_bytes(), filing_key) == pdf
    created = await aclient.documents.create_report(report_options=opts)
    report = await aclient.documents.wait_for_report(created.report_id, poll_interval=0.1, timeout=60)
    assert report.processing_status == "DONE" and report.report_document_id
    assert await aclient.documents.download(report.report_document_id) == pdf
    buf = io.BytesIO()
    assert await aclient.documents.download_to(report.report_document_id, buf) == len(pdf)
    assert buf.getvalue() == pdf
    key = os.urandom(32)
    path = tmp_path / "doc.sealed"
    assert await aclient.documents.download_to(report.report_document_id, path, key=key) == len(pdf)
    assert abws.decrypt(path.read_bytes(), key) == pdf


# --- errors ---------------------------------------------------------------------------


async def _error_of(call: Any) -> BaseException:
    try:
        await call
    except abws.Error as e:
        return e
    raise AssertionError("no error raised")


def _sync_error_of(call: Any) -> BaseException:
    try:
        call()
    except abws.Error as e:
        return e
    raise AssertionError("no error raised")


@pytest.mark.asyncio
async def test_errors_are_the_blocking_clients(sb: abws.Sandbox, one_shot: abws.Client, one_shot_async: abws.AsyncClient) -> None:
    sb.reset_counters()
    e = await _error_of(one_shot_async.invoices.get_invoices("2026-03-01", "2026-02-01"))
    assert isinstance(e, abws.ValidationError) and isinstance(e, ValueError)
    assert str(e) == str(_sync_error_of(lambda: one_shot.invoices.get_invoices("2026-03-01", "2026-02-01")))
    assert not sb.counters()["requests"].get("getInvoices"), "a request was sent for invalid arguments"
    e = await _error_of(one_shot_async.invoices.get_invoice_detail_by_invoice_number("NO-SUCH-INVOICE"))
    s = _sync_error_of(lambda: one_shot.invoices.get_invoice_detail_by_invoice_number("NO-SUCH-INVOICE"))
    assert type(e) is type(s) is abws.NotFound and (e.code, e.status) == (s.code, s.status)  # type: ignore[attr-defined]
    sb.fail("getTransactions", status=503, times=1)
    e = await _error_of(one_shot_async.reconciliation.get_transactions(START, END))
    assert isinstance(e, abws.ServerError) and e.status == 503 and e.request_id  # type: ignore[attr-defined]
    with pytest.raises(abws.ValidationError):
        await one_shot_async.documents.download_to("doc-1", "/tmp/never-written.pdf")  # no key, no opt-in


# --- cancellation ---------------------------------------------------------------------


class Silent:
    """A loopback server that reads requests and never answers; records when the client
    closes each connection."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.received = threading.Event()
        self.closed_at: List[float] = []
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._hold, args=(conn,), daemon=True).start()

    def _hold(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(30)
            try:
                while True:
                    data = conn.recv(65536)
                    if not data:
                        break
                    self.received.set()
            except OSError:
                pass
            self.closed_at.append(time.monotonic())

    def close(self) -> None:
        self._stop = True
        self._thread.join()
        self.sock.close()


@pytest.fixture
def silent() -> Iterator[Silent]:
    s = Silent()
    yield s
    s.close()


@pytest.mark.asyncio
async def test_cancelling_the_task_cancels_the_call_within_50_ms(silent: Silent) -> None:
    client = abws.AsyncClient("JP", access_token="t", endpoint=silent.url, rate_limiting=False)
    delays = []
    for i in range(5):
        task = asyncio.ensure_future(client.invoices.get_invoices(START, END))
        assert await asyncio.to_thread(silent.received.wait, 10), "the request never arrived"
        silent.received.clear()
        cancelled_at = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        deadline = time.monotonic() + 5
        while len(silent.closed_at) <= i and time.monotonic() < deadline:
            await asyncio.sleep(0.001)
        assert len(silent.closed_at) > i, "the connection was not closed"
        delays.append(silent.closed_at[i] - cancelled_at)
    # The server sees the connection closed: the core's future was dropped.
    assert sorted(delays)[len(delays) // 2] < 0.05, delays


@pytest.mark.asyncio
async def test_a_timeout_cancels_the_call(silent: Silent) -> None:
    client = abws.AsyncClient("JP", access_token="t", endpoint=silent.url, rate_limiting=False)
    started = time.monotonic()
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(client.invoices.get_invoices(START, END), 0.3)
    deadline = time.monotonic() + 5
    while not silent.closed_at and time.monotonic() < deadline:
        await asyncio.sleep(0.001)
    assert silent.closed_at and silent.closed_at[0] - started < 1.0


@pytest.mark.asyncio
async def test_a_cancelled_place_order_carries_its_external_id_and_is_never_resent(
    sb: abws.Sandbox, aclient: abws.AsyncClient, offer: Any, caplog: pytest.LogCaptureFixture
) -> None:
    ext = "py-async-cancelled-1"
    with caplog.at_level(logging.WARNING, logger="abws"):
        abws.refresh_logging()
        sb.fail("placeOrder", delay_ms=800, times=1)  # held, then placed: the outcome is unknown
        task = asyncio.ensure_future(aclient.ordering.place_order(ext, [order_line(*offer)], attributes=[], expectations=[]))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError) as e:
            await task
        await asyncio.sleep(1.5)  # past the hold: a resend would have arrived by now
    assert getattr(e.value, "external_id", None) == ext
    assert getattr(e.value, "operation", None) == "placeOrder"
    assert any(ext in n and "may or may not have been applied" in n for n in getattr(e.value, "__notes__", []))
    assert any(r.levelno == logging.WARNING and ext in r.getMessage() for r in caplog.records)
    assert sb.counters()["placeOrderRequests"][ext] == 1  # sent once, never resent
    # A read cancelled the same way carries nothing.
    sb.fail("getInvoices", delay_ms=800, times=1)
    task = asyncio.ensure_future(aclient.invoices.get_invoices(START, END))
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError) as read:
        await task
    assert not hasattr(read.value, "external_id")


@pytest.mark.asyncio
async def test_a_cancelled_download_frees_its_buffer(sb: abws.Sandbox, aclient: abws.AsyncClient, line_item: Any) -> None:
    opts = {"order_id": line_item.order_id, "order_line_item_id": line_item.order_line_item_id, "document_type": "Invoice"}
    created = await aclient.documents.create_report(report_options=opts)
    report = await aclient.documents.wait_for_report(created.report_id, poll_interval=0.1, timeout=60)
    before = abws._abws._live_download_buffers()
    sb.fail("/", delay_ms=3000, listener="documents")
    for _ in range(3):
        task = asyncio.ensure_future(aclient.documents.download(report.report_document_id))
        await asyncio.sleep(0.3)
        assert abws._abws._live_download_buffers() == before + 1  # the download holds one
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert abws._abws._live_download_buffers() == before  # freed by the cancel itself
    sb.clear_faults()
    assert (await aclient.documents.download(report.report_document_id)).startswith(b"%PDF")
    assert abws._abws._live_download_buffers() == before


# --- the event loop is never blocked; no thread per call ------------------------------


async def _largest_stall(work: Any) -> float:
    """Runs `work` while a ticker sleeps 1 ms at a time; the largest lateness, seconds."""
    worst = 0.0
    done = False

    async def tick() -> None:
        nonlocal worst
        while not done:
            t = time.perf_counter()
            await asyncio.sleep(0.001)
            worst = max(worst, time.perf_counter() - t - 0.001)

    ticker = asyncio.ensure_future(tick())
    try:
        await work
    finally:
        done = True
        await ticker
    return worst


@pytest.mark.asyncio
async def test_200_calls_in_flight_neither_stall_the_loop_nor_make_threads(sb: abws.Sandbox, aclient: abws.AsyncClient) -> None:
    await aclient.invoices.get_invoices(START, END)  # the runtime and a connection exist
    threads_before = _task_count()
    sb.fail("getInvoices", delay_ms=300)  # every call waits 300 ms at the server
    try:
        peak = threads_before

        async def calls() -> List[Any]:
            nonlocal peak
            tasks = [asyncio.ensure_future(aclient.invoices.get_invoices(START, END)) for _ in range(200)]
            await asyncio.sleep(0.15)
            peak = max(peak, _task_count())
            return await asyncio.gather(*tasks)

        started = time.perf_counter()
        stall = await _largest_stall(calls())
        took = time.perf_counter() - started
    finally:
        sb.clear_faults()
    # A blocking call on the loop would stall it for ≥ 300 ms; 200 of them, for a minute. The
    # bar leaves room for a full garbage collection and a loaded machine (a debug build here).
    assert stall < 0.25, f"the event loop stalled {stall * 1000:.1f} ms"
    assert took < 10, f"200 concurrent calls of 300 ms took {took:.1f} s: not concurrent"
    assert peak - threads_before <= 4, f"threads grew from {threads_before} to {peak}: a thread per call?"


# --- where async Python runs ----------------------------------------------------------


def _one_call(client: abws.AsyncClient) -> int:
    async def go() -> int:
        return len((await client.invoices.get_invoices(START, END)).invoices)

    return asyncio.run(go())


def test_uvloop(sb: abws.Sandbox) -> None:
    import uvloop

    client = sb.async_client("JP", rate_limiting=False)

    async def go() -> int:
        assert "uvloop" in type(asyncio.get_running_loop()).__module__
        pages = await asyncio.gather(*(client.invoices.get_invoices(START, END) for _ in range(20)))
        n = [inv async for inv in client.invoices.iter_invoices(START, END)]
        return len(pages) + len(n)

    assert uvloop.run(go()) > 20


def test_one_event_loop_per_thread(sb: abws.Sandbox) -> None:
    client = sb.async_client("JP", rate_limiting=False)
    results: List[int] = []
    threads = [threading.Thread(target=lambda: results.append(_one_call(client))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == [10] * 4


def test_after_fork(sb: abws.Sandbox) -> None:
    client = sb.async_client("JP", rate_limiting=False)
    assert _one_call(client) == 10  # the parent's runtime and connections exist
    pid = os.fork()
    if pid == 0:  # the child: a fresh runtime, the same client
        try:
            os._exit(0 if _one_call(client) == 10 else 3)
        except BaseException:
            os._exit(4)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    assert _one_call(client) == 10


# --- the same pacing, token and shared state as the blocking client -------------------


@pytest.mark.asyncio
async def test_one_refresh_for_concurrent_calls() -> None:
    """20 calls at once on a client without a token: one refresh, shared by all."""
    with abws.Sandbox(time_scale=60, rate_limits="off") as own:
        aio = own.async_client("JP", rate_limiting=False)
        await asyncio.gather(*(aio.invoices.get_invoices(START, END) for _ in range(20)))
        assert own.counters()["tokenCalls"].get("refresh_token", 0) == 1


@pytest.mark.asyncio
async def test_shared_state_one_refresh_for_a_blocking_and_an_async_client(redis_url: str) -> None:
    """With ``shared_state``, a Client and an AsyncClient of one account (as two processes
    would) hold one token: one refresh between them."""
    with abws.Sandbox(time_scale=60, rate_limits="off") as own:
        sync = own.client("JP", rate_limiting=False, shared_state=redis_url)
        aio = own.async_client("JP", rate_limiting=False, shared_state=redis_url)
        await asyncio.gather(*(aio.invoices.get_invoices(START, END) for _ in range(10)))
        await asyncio.to_thread(sync.invoices.get_invoices, START, END)
        assert own.counters()["tokenCalls"].get("refresh_token", 0) == 1
        assert "***" in aio.settings["shared_state"] or aio.settings["shared_state"] == redis_url


@pytest.mark.asyncio
async def test_async_calls_keep_to_the_rate_limit(sb: abws.Sandbox) -> None:
    """The sandbox at the spec's limits: 40 concurrent getInvoices of a fresh account are
    paced by the client, not refused with 429."""
    with abws.Sandbox(time_scale=60, rate_limits="spec") as own:
        aio = own.async_client("JP")
        pages = await asyncio.gather(*(aio.invoices.get_invoices(START, END) for _ in range(40)))
        assert len(pages) == 40
        throttled = own.counters().get("throttled", {})
        assert not any(v for k, v in throttled.items() if k.endswith("getInvoices")), throttled


def test_pickles_as_an_async_client(sb: abws.Sandbox) -> None:
    import pickle

    client = sb.async_client("JP", rate_limiting=False, pickle_secrets=True)
    again = pickle.loads(pickle.dumps(client))
    assert type(again) is abws.AsyncClient and again.settings == client.settings
    assert _one_call(again) == 10
    assert repr(again).startswith("<abws.AsyncClient region=JP")


# --- the review's findings (exit, a cancel after the answer, a cancel during a slow poll) --

_EXIT_CHILD = """
import asyncio, sys
import abws
START, END = sys.argv[1], sys.argv[2]
sb = abws.Sandbox(time_scale=60, today="2026-03-18", rate_limits="off", token_lifetime=3600 * 60)
ac = sb.async_client("JP", rate_limiting=False)
loop = asyncio.new_event_loop()
async def main():
    await ac.invoices.get_invoices(START, END)
    sb.fail("getInvoices", delay_ms=100)
    for _ in range(400):  # calls finishing continuously from 100 ms on, through the exit
        loop.create_task(ac.invoices.get_invoices(START, END))
        await asyncio.sleep(0.0005)
loop.run_until_complete(main())
print("exiting with calls in flight", flush=True)
"""


def test_the_interpreter_exits_cleanly_with_calls_in_flight(tmp_path: Path) -> None:
    """Calls completing while Python finalizes: the library's threads stop handing results
    over (an atexit hook closes the gate, gate.rs) instead of taking the GIL of a dying
    interpreter (it crashed 1-2 runs in 30 before)."""
    import subprocess
    import sys

    script = tmp_path / "exit_child.py"
    script.write_text(_EXIT_CHILD)
    for _ in range(12):
        r = subprocess.run([sys.executable, str(script), START, END], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and "Fatal Python error" not in r.stderr, (r.returncode, r.stderr[-2000:])
        assert "exiting with calls in flight" in r.stdout


@pytest.mark.asyncio
async def test_a_place_order_cancelled_after_its_answer_arrived_carries_its_external_id(
    sb: abws.Sandbox, aclient: abws.AsyncClient, offer: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The answer arrives while the loop is busy and the task is cancelled before it reads
    it: the order was placed, so the CancelledError says so, as for a write cut off in
    flight."""
    ext = "py-async-answered-1"
    with caplog.at_level(logging.WARNING, logger="abws"):
        abws.refresh_logging()
        sb.fail("placeOrder", delay_ms=200, times=1)
        task = asyncio.ensure_future(aclient.ordering.place_order(ext, [order_line(*offer)], attributes=[], expectations=[]))
        await asyncio.sleep(0.05)  # the request is on the wire
        time.sleep(0.6)  # the loop busy (a big page converted, say): the answer arrives meanwhile
        task.cancel()  # a timeout expiring in that same stretch
        with pytest.raises(asyncio.CancelledError) as e:
            await task
    assert sb.counters()["placeOrderRequests"][ext] == 1  # placed
    assert getattr(e.value, "external_id", None) == ext
    assert getattr(e.value, "operation", None) == "placeOrder"
    assert any(ext in n and "may have been applied" in n for n in getattr(e.value, "__notes__", []))
    assert any(r.levelno == logging.WARNING and ext in r.getMessage() for r in caplog.records)


@pytest.mark.asyncio
async def test_cancelling_a_call_in_a_slow_on_refresh_token_does_not_stall_the_loop() -> None:
    """`Call.cancel` never waits for the I/O thread's poll (here inside a 2.5 s
    on_refresh_token): the loop goes on at once, the future is dropped when that poll ends."""
    with abws.Sandbox(time_scale=60, rate_limits="off", rotate_refresh_tokens=True) as own:
        in_callback = threading.Event()

        def slow_persist(token: str) -> None:
            in_callback.set()
            time.sleep(2.5)  # a synchronous write to a secrets store

        aio = own.async_client("JP", rate_limiting=False, on_refresh_token=slow_persist)
        task = asyncio.ensure_future(aio.invoices.get_invoices(START, END))
        assert await asyncio.to_thread(in_callback.wait, 10)
        took = 0.0

        async def cancel_it() -> None:
            nonlocal took
            await asyncio.sleep(0.05)
            started = time.perf_counter()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            took = time.perf_counter() - started
            await asyncio.sleep(0.1)

        worst = await _largest_stall(cancel_it())
        assert took < 0.5 and worst < 0.5, (took, worst)
        await asyncio.sleep(2.6)  # the callback returns; the dropped call sends nothing more
        assert own.counters()["requests"].get("getInvoices") in (None, {}), own.counters()["requests"].get("getInvoices")


@pytest.mark.asyncio
async def test_closing_the_awaiting_coroutine_drops_its_call(silent: Silent) -> None:
    """A coroutine closed instead of cancelled (GeneratorExit) drops its call all the same."""
    import contextlib

    client = abws.AsyncClient("JP", access_token="t", endpoint=silent.url, rate_limiting=False)
    coro = client.invoices.get_invoices(START, END)
    task = asyncio.ensure_future(coro)
    assert await asyncio.to_thread(silent.received.wait, 10), "the request never arrived"
    coro.close()
    deadline = time.monotonic() + 5
    while not silent.closed_at and time.monotonic() < deadline:
        await asyncio.sleep(0.001)
    assert silent.closed_at, "the connection was not closed"
    task.cancel()
    with contextlib.suppress(BaseException):
        await task


@pytest.mark.parametrize("cls", [abws.Client, abws.AsyncClient])
def test_an_async_def_on_refresh_token_is_refused(cls: Any) -> None:
    async def persist(token: str) -> None:
        pass

    with pytest.raises(abws.ValidationError) as e:
        cls("JP", client_id="i", client_secret="s", refresh_token="r", on_refresh_token=persist)
    assert e.value.parameter == "on_refresh_token"
    cls("JP", client_id="i", client_secret="s", refresh_token="r", on_refresh_token=lambda t: None,
        endpoint="http://127.0.0.1:9", auth_endpoint="http://127.0.0.1:9")  # never called


def test_the_calls_of_a_closed_loop_stop() -> None:
    """A wait_for_report left polling on a loop that is then closed stops within about a
    second (the call asks whether its loop is open, at most once a second)."""
    from conftest import TODAY

    with abws.Sandbox(time_scale=1, today=TODAY, rate_limits="off") as own:
        c = own.client("JP", rate_limiting=False)
        li = c.reconciliation.get_transactions(START, END).transactions[0].transaction_line_items[0]
        opts = {"order_id": li.order_id, "order_line_item_id": li.order_line_item_id, "document_type": "Invoice"}
        report = c.documents.create_report(opts)
        aio = own.async_client("JP", rate_limiting=False)
        loop = asyncio.new_event_loop()

        tasks = []

        async def main() -> None:
            tasks.append(loop.create_task(aio.documents.wait_for_report(report.report_id, poll_interval=0.2, timeout=None)))
            await asyncio.sleep(0.5)

        loop.run_until_complete(main())
        assert own.counters()["requests"].get("getReport"), "the polling never started"
        loop.close()
        time.sleep(2.0)  # the next check after the close finds it closed
        own.reset_counters()
        time.sleep(1.0)
        assert not own.counters()["requests"].get("getReport"), own.counters()["requests"].get("getReport")
        tasks[0]._log_destroy_pending = False  # type: ignore[attr-defined]  # abandoned on purpose
