"""What every API group shares (hand-written): the base class of the generated group
classes (``_operations.py``), :class:`Listing`, and ``DateLike``."""

from __future__ import annotations

import logging
import time
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Dict, Generic, Iterator, List, TypeVar, Union

if TYPE_CHECKING:
    from .client import Client

logger = logging.getLogger("abws")

DateLike = Union[datetime, date, str]
"""A date-time argument: an aware ``datetime`` (a naive one is read as UTC), a ``date``
(midnight UTC) or ISO 8601 text."""

T = TypeVar("T")


def _progress(enabled: bool, desc: str, unit: str) -> Any:
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        logger.info("progress=True needs tqdm (pip install tqdm); continuing without a bar")
        return None
    return tqdm(desc=desc, unit=unit, unit_scale=unit == "B")


class Listing(Iterator[T], Generic[T]):
    """The items of a paged listing, fetched page by page as you iterate.

    Iterate it for the items; ``pages()`` walks the remaining pages instead;
    ``items_yielded`` counts the items delivered so far.
    """

    def __init__(self, pager: Any, items_field: str, op: str, progress: bool) -> None:
        self._pager = pager
        self._field = items_field
        self._op = op
        self._buffer: List[Any] = []
        self._pos = 0
        self._bar = _progress(progress, op, "item")
        self._done = False

    def _fetch(self) -> Any:
        if self._done:
            return None
        start = time.monotonic()
        try:
            page = self._pager.next_page()
        except BaseException:
            self._close_bar()
            self._done = True
            raise
        if page is None:
            self._done = True
            self._close_bar()
            return None
        items = getattr(page, self._field, None) or []
        logger.debug("%s: page of %d item(s) in %.3f s", self._op, len(items), time.monotonic() - start)
        if self._bar is not None:
            self._bar.update(len(items))
        return page

    def _close_bar(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __iter__(self) -> "Listing[T]":
        return self

    def __next__(self) -> T:
        while self._pos >= len(self._buffer):
            page = self._fetch()
            if page is None:
                raise StopIteration
            self._buffer = list(getattr(page, self._field, None) or [])
            self._pos = 0
        item = self._buffer[self._pos]
        self._pos += 1
        return item  # type: ignore[no-any-return]

    def pages(self) -> Iterator[Any]:
        """The remaining pages, whole (with their next_page_token and other fields)."""
        while True:
            page = self._fetch()
            if page is None:
                return
            yield page

    @property
    def items_yielded(self) -> int:
        """Items received so far, over every page fetched."""
        return int(self._pager.items_yielded)

    def __repr__(self) -> str:
        return f"<abws.Listing {self._op} items_yielded={self.items_yielded}>"


class _Group:
    """The base of every API group: runs operations through the client."""

    def __init__(self, client: "Client") -> None:
        self._client = client

    def _call(self, op: str, args: Dict[str, Any]) -> Any:
        return self._client._call(op, args)

    def _listing(self, op: str, field: str, args: Dict[str, Any], progress: bool) -> Listing[Any]:
        return self._client._listing(op, field, args, progress)

    def __repr__(self) -> str:
        return f"<abws.{type(self).__name__} of {self._client!r}>"


