"""Functions run in worker processes (importable by multiprocessing's spawn)."""

from __future__ import annotations

from typing import Any


def count_invoices(client: Any, start: str, end: str) -> int:
    return len(client.invoices.get_invoices(start, end).invoices)
