"""The month-end close (hand-written): ``abws.close_month``, a thin call of the core's
``abws::close::close_month`` (the plan, the paced work over every bucket, the resumable
job state, the reconciliation across the feed lag, the ledger, the exceptions and the
sealed archive are all the core's; ``docs/close.md`` describes them). The parameters are
the core's ``CloseParams``, by the same names; the result is the core's ``CloseResult``,
typed: amounts as ``Decimal``, paths as ``pathlib.Path``."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Dict, List, Optional, Sequence, Union, overload

from ._group import _progress
from ._model_base import _pandas

if TYPE_CHECKING:
    from .async_client import AsyncClient
    from .client import Client

__all__ = ["close_month", "CloseResult", "ClosePlan", "BucketPlan", "LedgerRow", "ExceptionRow"]

ProgressCallback = Callable[[str, int, int], None]
"""``progress(phase, done, total)``: the phase's name (``"plan"``, ``"invoice_data"``,
``"transactions"``, ``"pdfs"``, ``"outputs"``) and its items done of its total."""


def _dec(v: Any) -> Optional[Decimal]:
    return None if v is None else Decimal(v)


def _path(v: Any) -> Optional[Path]:
    return None if v is None else Path(v)


@dataclass(frozen=True)
class BucketPlan:
    """One rate bucket of the plan: its requests, rate, burst and the seconds it needs."""

    operation: str
    requests: int
    rate: float
    burst: int
    seconds: float


@dataclass(frozen=True)
class ClosePlan:
    """The plan of a close and its estimate (``seconds``: the slowest bucket's)."""

    invoices: int
    pdfs: int
    invoices_done: int
    pdfs_done: int
    reports_reused: int
    buckets: List[BucketPlan]
    seconds: float
    slowest: str

    @classmethod
    def _from_json(cls, d: Dict[str, Any]) -> "ClosePlan":
        return cls(**{**d, "buckets": [BucketPlan(**b) for b in d["buckets"]]})


@dataclass(frozen=True)
class LedgerRow:
    """One invoice of the ledger (a row of the CSV ledger)."""

    invoice_number: str
    type: str
    issue_date: str
    status: str
    customer: str
    currency: str
    total: Decimal
    tax: Dict[str, Decimal]
    line_items: int
    transactions: List[str]
    transaction_total: Decimal
    difference: Optional[Decimal]
    exception: str

    @classmethod
    def _from_json(cls, d: Dict[str, Any]) -> "LedgerRow":
        return cls(**{
            **d,
            "total": Decimal(d["total"]),
            "tax": {rate: Decimal(v) for rate, v in d["tax"].items()},
            "transaction_total": Decimal(d["transaction_total"]),
            "difference": _dec(d["difference"]),
        })  # fmt: skip


@dataclass(frozen=True)
class ExceptionRow:
    """One exception (a row of the CSV exceptions)."""

    exception: str
    invoice_number: str
    transactions: str
    billed: Optional[Decimal]
    transaction_total: Optional[Decimal]
    detail: str

    @classmethod
    def _from_json(cls, d: Dict[str, Any]) -> "ExceptionRow":
        return cls(**{**d, "billed": _dec(d["billed"]), "transaction_total": _dec(d["transaction_total"])})


@dataclass(frozen=True)
class CloseResult:
    """What a close filed: the core's ``CloseResult`` (``docs/close.md``)."""

    region: str
    month: str
    timezone: str
    period_start: str
    period_end: str
    plan: ClosePlan
    complete: bool
    invoices: int
    credit_memos: int
    currency: str
    net_total: Decimal
    tax_by_rate: Dict[str, Decimal]
    ledger: List[LedgerRow]
    exceptions: List[ExceptionRow]
    transactions: int
    matched: int
    confirmed: int
    feed_end: Optional[str]
    ledger_path: Optional[Path]
    exceptions_path: Optional[Path]
    archive_path: Optional[Path]
    pdfs_filed: int
    reports_created: int
    reports_reused: int

    @classmethod
    def _from_json(cls, text: str) -> "CloseResult":
        d = json.loads(text)
        return cls(**{
            **d,
            "plan": ClosePlan._from_json(d["plan"]),
            "net_total": Decimal(d["net_total"]),
            "tax_by_rate": {rate: Decimal(v) for rate, v in d["tax_by_rate"].items()},
            "ledger": [LedgerRow._from_json(r) for r in d["ledger"]],
            "exceptions": [ExceptionRow._from_json(r) for r in d["exceptions"]],
            "ledger_path": _path(d["ledger_path"]),
            "exceptions_path": _path(d["exceptions_path"]),
            "archive_path": _path(d["archive_path"]),
        })  # fmt: skip

    def to_pandas(self) -> Any:
        """The ledger as a pandas DataFrame, one row per invoice (amounts stay
        ``Decimal``). Needs pandas (``pip install 'abws[pandas]'``)."""
        return _frame(LedgerRow, self.ledger)

    def exceptions_to_pandas(self) -> Any:
        """The exceptions as a pandas DataFrame, one row per exception."""
        return _frame(ExceptionRow, self.exceptions)


def _frame(row_type: Any, rows: Sequence[Any]) -> Any:
    return _pandas().DataFrame([asdict(r) for r in rows], columns=[f.name for f in fields(row_type)])


class _PhaseBars:
    """One tqdm bar per phase of the close (``progress=True``), made as each phase starts."""

    def __init__(self) -> None:
        self._bars: Dict[str, Any] = {"plan": _progress(True, "close: plan", "step")}

    def __call__(self, phase: str, done: int, total: int) -> None:
        bar = self._bars.get(phase)
        if bar is None:
            bar = self._bars[phase] = _progress(True, f"close: {phase}", "item")
        bar.total = total
        bar.update(done - bar.n)

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()


def _params_json(month: str, out: Any, params: Dict[str, Any]) -> str:
    """The ``CloseParams`` JSON the core reads (what is ``None`` is left to its default)."""
    from .exceptions import ValidationError

    args: Dict[str, Any] = {"month": month, "out": os.fspath(out) if isinstance(out, (str, os.PathLike)) else out}
    args.update((k, v) for k, v in params.items() if v is not None)
    def invalid(parameter: str, rule: str) -> ValidationError:
        e = ValidationError(f"invalid {parameter}: {rule}")
        e.parameter = parameter
        return e

    if isinstance(args.get("pdfs_for"), str):
        raise invalid("pdfs_for", "must be a list of invoice numbers or patterns, not one string")
    try:
        return json.dumps(args)
    except (TypeError, ValueError) as e:
        raise invalid("arguments", str(e)) from None


@overload
def close_month(
    client: "Client",
    month: str,
    *,
    out: Union[str, "os.PathLike[str]"],
    region: Optional[str] = None,
    timezone: Optional[str] = None,
    account: Optional[str] = None,
    no_pdfs: bool = False,
    pdfs_for: Optional[Sequence[str]] = None,
    legal_entity: Optional[str] = None,
    plan_only: bool = False,
    fresh: bool = False,
    archive_key: Optional[str] = None,
    archive_password: Optional[str] = None,
    poll_interval: Optional[float] = None,
    time_scale: Optional[float] = None,
    progress: Union[bool, ProgressCallback] = False,
) -> CloseResult: ...
@overload
def close_month(
    client: "AsyncClient",
    month: str,
    *,
    out: Union[str, "os.PathLike[str]"],
    region: Optional[str] = None,
    timezone: Optional[str] = None,
    account: Optional[str] = None,
    no_pdfs: bool = False,
    pdfs_for: Optional[Sequence[str]] = None,
    legal_entity: Optional[str] = None,
    plan_only: bool = False,
    fresh: bool = False,
    archive_key: Optional[str] = None,
    archive_password: Optional[str] = None,
    poll_interval: Optional[float] = None,
    time_scale: Optional[float] = None,
    progress: Union[bool, ProgressCallback] = False,
) -> Awaitable[CloseResult]: ...
def close_month(
    client: Union["Client", "AsyncClient"],
    month: str,
    *,
    out: Union[str, "os.PathLike[str]"],
    region: Optional[str] = None,
    timezone: Optional[str] = None,
    account: Optional[str] = None,
    no_pdfs: bool = False,
    pdfs_for: Optional[Sequence[str]] = None,
    legal_entity: Optional[str] = None,
    plan_only: bool = False,
    fresh: bool = False,
    archive_key: Optional[str] = None,
    archive_password: Optional[str] = None,
    poll_interval: Optional[float] = None,
    time_scale: Optional[float] = None,
    progress: Union[bool, ProgressCallback] = False,
) -> Union[CloseResult, Awaitable[CloseResult]]:
    """Closes ``month`` (``YYYY-MM``, ended) into the directory ``out``: the plan and its
    estimate, each invoice's data, the transaction feed read across its lag, the PDFs
    sealed into one archive (under ``archive_key``, 64 hex digits, or
    ``ABWS_ARCHIVE_KEY``; or under a key derived with scrypt from ``archive_password``, or
    ``ABWS_ARCHIVE_PASSWORD``: ``abws.decrypt(data, password=...)`` opens that archive
    with the password alone), the CSV ledger and exceptions. The month is counted in
    ``timezone`` (``"UTC"`` by default, the service's dates, or an IANA name such as
    ``"Asia/Tokyo"``; the result's ``period_start`` and ``period_end`` give its bounds).
    Resumable: the same call after a crash or Ctrl-C finishes only what is missing, with
    the same key or password (another is a ``ValidationError``; ``fresh=True`` starts
    over). The
    keywords are the core's ``CloseParams`` (``docs/close.md``); a bad one is a
    ``ValidationError`` before any request.

    ``progress=True`` shows a tqdm bar per phase (needs ``pip install 'abws[progress]'``);
    a callable is called as ``progress(phase, done, total)`` instead.

    With an ``abws.Client`` the call blocks (Ctrl-C cancels it); with an
    ``abws.AsyncClient`` it returns an awaitable (cancelling the task cancels the close).
    """
    from .async_client import AsyncClient

    params = _params_json(month, out, {
        "region": region, "timezone": timezone, "account": account, "no_pdfs": no_pdfs,
        "pdfs_for": pdfs_for if pdfs_for is None or isinstance(pdfs_for, str) else list(pdfs_for), "legal_entity": legal_entity,
        "plan_only": plan_only, "fresh": fresh, "archive_key": archive_key,
        "archive_password": archive_password,
        "poll_interval": poll_interval, "time_scale": time_scale,
    })  # fmt: skip
    bars = _PhaseBars() if progress is True else None
    callback = bars if bars is not None else (progress if callable(progress) else None)
    if isinstance(client, AsyncClient):
        return _close_async(client, params, callback, bars)
    try:
        text: str = client._run("close_month", params, callback)
    finally:
        if bars is not None:
            bars.close()
    return CloseResult._from_json(text)


async def _close_async(
    client: "AsyncClient", params: str, callback: Optional[ProgressCallback], bars: Optional[_PhaseBars]
) -> CloseResult:
    try:
        text: str = await client._run("close_month", params, callback)
    finally:
        if bars is not None:
            bars.close()
    return CloseResult._from_json(text)
