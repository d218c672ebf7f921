"""Numbers read back from the shared state (Redis) are not trusted (S1): a bucket
whose stored schedule or rate another program made invalid neither panics a call (the
blocking client raised pyo3's ``PanicException``, which ``except Exception`` does not
catch; the asyncio client's awaitable never resolved) nor switches the limit off."""

from __future__ import annotations

import asyncio
import subprocess
from typing import Any, Dict

import abws
from test_shared_state import redis_url  # noqa: F401  (a real redis-server, a fixture)

OP = "getInvoiceDetailByInvoiceNumber"


def _cli(url: str, *args: str) -> str:
    port = url.rsplit(":", 1)[1].split("/")[0]
    out = subprocess.run(["redis-cli", "-p", port, *args], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_invalid_numbers_in_redis_raise_no_panic(redis_url: str) -> None:  # noqa: F811
    with abws.Sandbox(rate_limits="spec", today="2026-03-18") as sb:
        sb.set_rate(OP, 10.0, 2)
        c = sb.credentials()
        settings: Dict[str, Any] = {
            "region": "JP", "client_id": c["client_id"], "client_secret": c["client_secret"],
            "refresh_token": c["refresh_token"], "user_email": c["user_email"],
            "endpoint": sb.group_url("JP"), "auth_endpoint": sb.base_url, "shared_state": redis_url,
        }
        numbers = sb.dataset()["previousMonthInvoices"]
        client = abws.Client(**settings)
        client.invoices.get_invoice_detail_by_invoice_number(numbers[0])
        key = _cli(redis_url, "KEYS", "abws:*:rl:*").splitlines()[0]
        for field, value in [("tat", "1e300"), ("tat", "nan"), ("rate", "0"), ("rate", "-1"), ("tat", "junk")]:
            _cli(redis_url, "HSET", key, field, value)
            for i in range(4):
                assert client.invoices.get_invoice_detail_by_invoice_number(numbers[i % len(numbers)])
        aclient = abws.AsyncClient(**settings)

        async def four() -> None:
            for i in range(4):
                await asyncio.wait_for(aclient.invoices.get_invoice_detail_by_invoice_number(numbers[i]), 20)

        for field, value in [("tat", "1e300"), ("rate", "0")]:
            _cli(redis_url, "HSET", key, field, value)
            asyncio.run(four())
        # Paced all along: the sandbox answered no 429.
        assert sum(sb.counters()["throttled"].values()) == 0, sb.counters()["throttled"]
