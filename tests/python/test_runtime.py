"""The client as a shared, long-lived object: threads, the GIL, Ctrl-C, fork, pickling,
multiprocessing, logging, progress bars, secrets."""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import sys
import threading
import time
import warnings

import pytest

import abws
from conftest import END, START, ctrl_c_after


def test_threads_share_one_client(client):
    results, errors = [], []

    def work():
        try:
            results.append(len(client.invoices.get_invoices(START, END).invoices))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and results == [10] * 8


def test_gil_is_released_during_a_slow_call(sb, client):
    sb.fail("getInvoices", delay_ms=1000, times=1)
    done = threading.Event()
    box = {}

    def slow():
        box["page"] = client.invoices.get_invoices(START, END)
        done.set()

    t = threading.Thread(target=slow)
    t.start()
    count = 0
    while not done.is_set():
        count += 1
    t.join()
    assert box["page"].invoices
    # with the GIL held by the call this thread could not have counted at all
    assert count > 100_000, count


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_interrupts_a_long_report_wait(client, line_item):
    assert threading.current_thread() is threading.main_thread()
    created = client.documents.create_report(
        {"order_id": line_item.order_id, "order_line_item_id": line_item.order_line_item_id}
    )
    with ctrl_c_after(0.3) as sent, pytest.raises(KeyboardInterrupt):
        # a 60 s poll interval: without signal checks this would block for a minute
        client.documents.wait_for_report(created.report_id, poll_interval=60)
    elapsed = time.monotonic() - sent["at"]
    assert elapsed < 0.5, elapsed
    # the client still works afterwards
    assert client.documents.get_report(created.report_id).report_id == created.report_id


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_interrupts_a_slow_request(sb, client):
    sb.fail("getInvoices", delay_ms=5000, times=1)
    with ctrl_c_after(0.3) as sent, pytest.raises(KeyboardInterrupt):
        client.invoices.get_invoices(START, END)
    elapsed = time.monotonic() - sent["at"]
    assert elapsed < 0.5, elapsed


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_works_in_a_forked_child(client):
    assert client.invoices.get_invoices(START, END).invoices
    listing = client.reconciliation.iter_transactions(START, END)
    next(listing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (3.12+)
        pid = os.fork()
    if pid == 0:  # the child: fresh runtime and pools, same settings
        code = 1
        try:
            ok = len(client.invoices.get_invoices(START, END).invoices) == 10
            fresh = abws.Client(**{"region": "JP"}, access_token="x", endpoint="http://127.0.0.1:9", max_attempts=1)
            code = 0 if ok and fresh.region == "JP" else 2
        except BaseException:
            code = 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    # the parent is unaffected
    assert client.invoices.get_invoices(START, END).invoices


def _env_for(monkeypatch, sb):
    creds = sb.credentials()
    monkeypatch.setenv("ABWS_CLIENT_SECRET", creds["client_secret"])
    monkeypatch.setenv("ABWS_REFRESH_TOKEN", creds["refresh_token"])
    return creds


def test_pickle_keeps_settings_but_not_secrets(sb, monkeypatch):
    creds = sb.credentials()
    client = sb.client("JP", rate_limiting=False)
    data = pickle.dumps(client)
    for secret in (creds["client_secret"], creds["refresh_token"]):
        assert secret.encode() not in data
    monkeypatch.delenv("ABWS_CLIENT_SECRET", raising=False)
    monkeypatch.delenv("ABWS_REFRESH_TOKEN", raising=False)
    monkeypatch.delenv("ABWS_ACCESS_TOKEN", raising=False)
    with pytest.raises(abws.ValidationError):
        pickle.loads(data)  # the worker has no secrets in its environment
    _env_for(monkeypatch, sb)
    back = pickle.loads(data)
    assert back.settings["endpoint"] == sb.group_url("JP") and back.region == "JP"
    assert back.settings["rate_limiting"] is False
    assert back.invoices.get_invoices(START, END).invoices


def test_pickle_with_secrets_when_asked(sb, monkeypatch):
    monkeypatch.delenv("ABWS_CLIENT_SECRET", raising=False)
    monkeypatch.delenv("ABWS_REFRESH_TOKEN", raising=False)
    client = sb.client("JP", rate_limiting=False, pickle_secrets=True)
    back = pickle.loads(pickle.dumps(client))
    assert back.invoices.get_invoices(START, END).invoices


def test_multiprocessing_spawn_pool(sb, monkeypatch):
    import _workers

    _env_for(monkeypatch, sb)
    client = sb.client("JP", rate_limiting=False)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        counts = pool.starmap(_workers.count_invoices, [(client, START, END)] * 2)
    assert counts == [10, 10]


def test_from_env(sb, monkeypatch):
    creds = _env_for(monkeypatch, sb)
    monkeypatch.setenv("ABWS_REGION", "JP")
    monkeypatch.setenv("ABWS_CLIENT_ID", creds["client_id"])
    monkeypatch.setenv("ABWS_USER_EMAIL", creds["user_email"])
    monkeypatch.setenv("ABWS_ENDPOINT", sb.base_url)
    monkeypatch.setenv("ABWS_AUTH_ENDPOINT", sb.base_url)
    client = abws.Client.from_env(rate_limiting=False)
    assert client.region == "JP"
    assert client.invoices.get_invoices(START, END).invoices


def test_secrets_never_in_repr_or_logs(sb, caplog):
    creds = sb.credentials()
    client = sb.client("JP", rate_limiting=False)
    with caplog.at_level(logging.DEBUG, logger="abws"):
        client.invoices.get_invoices(START, END)
        list(client.reconciliation.iter_transactions(START, END))
        with pytest.raises(abws.ValidationError):
            client.invoices.get_invoices("bad", END)
    assert any(r.name == "abws" for r in caplog.records)
    text = repr(client) + caplog.text
    text += repr(client.invoices) + repr(abws.Credentials(creds["client_id"], creds["client_secret"], "rt-secret"))
    for secret in (creds["client_secret"], creds["refresh_token"], creds["user_email"], "rt-secret"):
        assert secret not in text
    assert "user_email" not in repr(client)


def test_call_timing_is_logged_only_at_debug(client, caplog):
    """`Client._call` skips its timing records when logger "abws" is not at DEBUG (the
    per-call fast path) and writes them, with the operation's name, when it is."""
    with caplog.at_level(logging.INFO, logger="abws"):
        client.invoices.get_invoices(START, END)
    assert not [r for r in caplog.records if "get_invoices: " in r.getMessage()]
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="abws"):
        client.invoices.get_invoices(START, END)
    messages = [r.getMessage() for r in caplog.records]
    assert "get_invoices: calling" in messages
    assert any(m.startswith("get_invoices: done in ") for m in messages)


def test_progress_bar_is_optional(client):
    items = list(client.invoices.iter_invoices(START, END, progress=True))
    assert items


def test_clients_of_one_thread_share_its_connection():
    """Many accounts in one process (B11): the clients of a thread share one pool per host;
    each thread has its own, which ends with it."""
    with abws.Sandbox(rate_limits="off", today="2026-11-01") as s:
        number = s.dataset()["previousMonthInvoices"][0]
        clients = [s.client("JP", rate_limiting=False, app_name=f"erp-{i % 4}") for i in range(40)]

        def round_of_calls() -> None:
            for c in clients:
                assert c.invoices.get_invoice_detail_by_invoice_number(number).invoice_metadata

        round_of_calls()
        assert s.counters()["connectionsUsed"]["api"] == 1
        # Another thread: its own connection; the first one's still serves this thread.
        t = threading.Thread(target=round_of_calls)
        t.start()
        t.join()
        round_of_calls()
        assert s.counters()["connectionsUsed"]["api"] == 2
        agents = {h["headers"]["user-agent"] for h in s.counters()["headersSeen"]["api"]}
        # One pool, each client's own user agent (its app_name).
        assert all(any(f"erp-{i}" in a for a in agents) for i in range(4)), agents


def test_a_client_keeps_what_a_call_reads_in_slots_and_still_takes_attributes(sb):
    """What a call reads of its client (the compiled client, the groups) is in slots next to
    the object's header, not in its dict (B11), for both flavours; a client still
    takes the attributes, weak references and pickling of a plain object."""
    import weakref

    for cls in (abws.Client, abws.AsyncClient):
        assert set(cls._GROUPS) <= set(cls.__slots__), cls
    c = sb.client("JP", rate_limiting=False, pickle_secrets=True)
    held = vars(c)
    assert not {"_native", "_settings", "pickle_secrets", *abws.Client._GROUPS} & set(held), held
    assert isinstance(c.invoices, abws.client.Invoices) and c.invoices._client is c
    c.tenant = "erp-7"
    assert c.tenant == "erp-7" and vars(c) == {"tenant": "erp-7"}
    assert weakref.ref(c)() is c
    back = pickle.loads(pickle.dumps(c))
    assert type(back) is abws.Client and back.settings == c.settings and back.invoices._client is back


def test_a_groups_methods_can_be_patched_and_it_can_be_weakly_referenced(sb):
    """The groups keep their client in a slot (B11) and still take attributes,
    `mock.patch.object` and weak references, as plain objects do."""
    import unittest.mock
    import weakref

    c = sb.client()
    assert "_client" not in vars(c.invoices), "the client is held in the slot, not the dict"
    with unittest.mock.patch.object(c.invoices, "get_invoices", return_value="patched") as m:
        assert c.invoices.get_invoices() == "patched"
    assert m.call_count == 1
    assert c.invoices.get_invoices is not m
    assert weakref.ref(c.invoices)() is c.invoices
    c.invoices.note = 1
    assert c.invoices.note == 1
