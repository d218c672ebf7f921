"""What every API group shares (hand-written): the base classes of the generated group
classes (``_operations.py``), blocking and asyncio, :class:`Listing` and
:class:`AsyncListing`, ``DateLike``, and how an asyncio call awaits the core's future."""

from __future__ import annotations

import time
from datetime import date, datetime
from typing import (
    TYPE_CHECKING,
    Any,
    AsyncIterator,
    Callable,
    Dict,
    Generic,
    Iterator,
    List,
    Optional,
    TypeVar,
    Union,
)

from ._log import logger
from ._model_base import _pandas, to_pandas
from .exceptions import _UnknownParameter

if TYPE_CHECKING:
    import asyncio

    from . import _abws
    from .async_client import AsyncClient
    from .client import Client

DateLike = Union[datetime, date, str]
"""A date-time argument: an aware ``datetime`` (a naive one is read as UTC), a ``date``
(midnight UTC) or ISO 8601 text."""

T = TypeVar("T")


def _progress(enabled: bool, desc: str, unit: str) -> Any:
    """A tqdm bar for ``progress=True`` (``None`` for ``False``). Without tqdm, an
    ``ImportError`` saying what to install: a bar asked for is never left out silently."""
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError as e:
        raise ImportError(
            "progress=True shows a tqdm progress bar, and tqdm is not installed: "
            "pip install 'abws[progress]' (or pip install tqdm), or leave progress out"
        ) from e
    return tqdm(desc=desc, unit=unit, unit_scale=unit == "B")


class _Pages:
    """The page-by-page walk both listings share: the items of the current page, the
    progress bar, the debug records."""

    def __init__(self, pager: Any, items_field: str, op: str, progress: bool, item: Any = None) -> None:
        self._pager = pager
        self._field = items_field
        self._op = op
        self._item = item
        self._buffer: List[Any] = []
        self._pos = 0
        self._bar = _progress(progress, op, "item")
        self._done = False

    def _failed(self) -> None:
        self._close_bar()
        self._done = True

    def _received(self, page: Any, start: float) -> Any:
        """Records a page fetched (``None``: the end) and gives it back."""
        if page is None:
            self._done = True
            self._close_bar()
            return None
        items = getattr(page, self._field, None) or []
        logger.debug("%s: page of %d item(s) in %.3f s", self._op, len(items), time.monotonic() - start)
        if self._bar is not None:
            self._bar.update(len(items))
        return page

    def _take(self) -> Any:
        """The next buffered item (call only while ``_has_item()``)."""
        item = self._buffer[self._pos]
        self._pos += 1
        return item

    def _has_item(self) -> bool:
        return self._pos < len(self._buffer)

    def _refill(self, page: Any) -> None:
        # A `null` element of the page's list is not an item (the page keeps it), as in
        # the core's pagers.
        self._buffer = [x for x in getattr(page, self._field, None) or [] if x is not None]
        self._pos = 0

    def _close_bar(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    @property
    def items_yielded(self) -> int:
        """Items received so far, over every page fetched."""
        return int(self._pager.items_yielded)

    @property
    def next_token(self) -> Optional[str]:
        """The cursor of the next page: ``None`` after the last page (and, before the
        first, unless the listing was started at one). Save it, and pass it as
        ``start_token=`` to the same ``iter_*`` with the same arguments (in this process or
        another, within the token's 15 minutes) to get the items after the last page
        fetched. Items of that page not yet iterated are not part of the resumed listing:
        stop at a page's end (``pages()``) to lose none. A page-numbered listing's cursor is
        its next page number, as text."""
        token = self._pager.next_token
        return None if token is None else str(token)

    def _frame(self, items: List[Any]) -> Any:
        return to_pandas(items, model=self._item)

    def __repr__(self) -> str:
        return f"<abws.{type(self).__name__} {self._op} items_yielded={self.items_yielded}>"


class Listing(_Pages, Iterator[T], Generic[T]):
    """The items of a paged listing, fetched page by page as you iterate.

    Iterate it for the items; ``pages()`` walks the remaining pages instead;
    ``items_yielded`` counts the items delivered so far.
    """

    def _fetch(self) -> Any:
        if self._done:
            return None
        start = time.monotonic()
        try:
            page = self._pager.next_page()
        except BaseException:
            self._failed()
            raise
        return self._received(page, start)

    def __iter__(self) -> "Listing[T]":
        return self

    def __next__(self) -> T:
        while not self._has_item():
            page = self._fetch()
            if page is None:
                raise StopIteration
            self._refill(page)
        return self._take()  # type: ignore[no-any-return]

    def pages(self) -> Iterator[Any]:
        """The remaining pages, whole (with their next_page_token and other fields)."""
        while True:
            page = self._fetch()
            if page is None:
                return
            yield page

    def to_pandas(self) -> Any:
        """The remaining items as a pandas DataFrame, one row per item: a column per field
        of the item's model (snake_case), nested objects as dotted columns
        (``amount.amount``, ``amount.currency_code``), amounts as ``decimal.Decimal``
        (object columns, never floats). Needs pandas (``pip install 'abws[pandas]'``);
        without it raises ``ImportError`` before any page is fetched."""
        _pandas()
        return self._frame(list(self))


class AsyncListing(_Pages, AsyncIterator[T], Generic[T]):
    """The items of a paged listing, fetched page by page as you iterate with
    ``async for``.

    ``pages()`` walks the remaining pages instead (``async for page in
    listing.pages()``); ``items_yielded`` counts the items delivered so far. A fetch
    cancelled with its task leaves the listing where it was: iterating again fetches the
    same page.
    """

    async def _fetch(self) -> Any:
        if self._done:
            return None
        start = time.monotonic()
        try:
            page = await _awaited(self._pager.next_page)
        except BaseException as e:
            if not _cancelled(e):  # a cancelled fetch leaves the listing as it was
                self._failed()
            raise
        return self._received(page, start)

    def __aiter__(self) -> "AsyncListing[T]":
        return self

    async def __anext__(self) -> T:
        while not self._has_item():
            page = await self._fetch()
            if page is None:
                raise StopAsyncIteration
            self._refill(page)
        return self._take()  # type: ignore[no-any-return]

    async def pages(self) -> AsyncIterator[Any]:
        """The remaining pages, whole (with their next_page_token and other fields)."""
        while True:
            page = await self._fetch()
            if page is None:
                return
            yield page

    async def to_pandas(self) -> Any:
        """The remaining items as a pandas DataFrame (see :meth:`Listing.to_pandas`)."""
        _pandas()
        return self._frame([item async for item in self])


L = TypeVar("L", bound=_Pages)


def _start_listing(
    kind: "type[L]",
    native: Any,
    op: str,
    field: str,
    args: Dict[str, Any],
    progress: bool,
    item: Any = None,
    start_token: Optional[str] = None,
    timeout: Optional[float] = None,
    max_attempts: Optional[int] = None,
) -> L:
    """Starts a listing of the compiled client (``native``) as a ``kind`` (:class:`Listing`
    or :class:`AsyncListing`): what a generated ``iter_*`` gives its client's ``_listing``
    (the per-call options apply to each page; ``start_token`` resumes it)."""
    pager = native.pager(op, args, timeout, max_attempts, start_token)
    logger.debug("%s: listing started", op)
    return kind(pager, field, op, progress, item)


def _settle(fut: "asyncio.Future[Any]", outcome: "_abws.Outcome") -> None:
    """Completes an awaited call's future on its event loop (unless it was cancelled): the
    result is converted here, on the loop's thread (the core's thread only handed it over)."""
    if fut.done():
        return
    ok, value = outcome.take()
    if ok:
        fut.set_result(value)
    else:
        fut.set_exception(value)


class _Deliver:
    """What the core calls with a finished call's `Outcome`, on its I/O thread: hands it to
    the loop, whose thread converts it (`_settle`)."""

    __slots__ = ("_loop", "_fut")

    def __init__(self, loop: asyncio.AbstractEventLoop, fut: "asyncio.Future[Any]") -> None:
        self._loop = loop
        self._fut = fut

    def __call__(self, outcome: "_abws.Outcome") -> None:
        try:
            self._loop.call_soon_threadsafe(_settle, self._fut, outcome)
        except RuntimeError:  # the loop is closed: nobody waits for this result any more
            pass

    def orphaned(self) -> bool:
        """Whether nobody waits for the result any more (asked by a call that is still
        running after a second, from the I/O thread): its loop was closed."""
        return self._loop.is_closed() or self._fut.done()


def _cancelled(e: BaseException) -> bool:
    import asyncio  # here, not at import: `import abws` stays quick for blocking users

    return isinstance(e, asyncio.CancelledError)


async def _awaited(start: Callable[..., Any]) -> Any:
    """Starts a call of the compiled client for asyncio (``start(deliver=...)`` returns its
    ``Call``) and awaits its result. The core's future runs on the core's runtime; the
    event loop only waits. Cancelling the awaiting task drops that future before the
    ``CancelledError`` goes on (closing the coroutine drops it too); a placeOrder or
    addItems whose request was sent (cut off in flight, or answered but the answer not yet
    read) puts its ``external_id``, ``operation`` and a note on that ``CancelledError``."""
    import asyncio  # cached after the first call (see `_cancelled`)

    loop = asyncio.get_running_loop()
    fut: "asyncio.Future[Any]" = loop.create_future()
    call = start(deliver=_Deliver(loop, fut))
    try:
        return await fut
    except asyncio.CancelledError as e:
        call.cancel(e)
        raise
    except GeneratorExit:  # the coroutine was closed (or collected) instead: drop the call
        call.cancel()
        raise


def _camel_to_snake(name: str) -> str:
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i > 0 and (name[i - 1].islower() or name[i - 1].isdigit()):
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


def _unknown_keyword(f: Callable[..., Any], given: Dict[str, Any]) -> "_UnknownParameter | None":
    """The error for a call of ``f`` with a keyword that names none of its parameters (with
    the parameter meant: the snake_case of a camelCase name, else the closest name), or
    ``None`` when every keyword is one of them (the ``TypeError`` was something else)."""
    import difflib
    import inspect

    params = [
        n
        for n, p in inspect.signature(f).parameters.items()
        if n != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    unknown = [k for k in given if k not in params]
    if not unknown:
        return None
    name = unknown[0]
    snake = _camel_to_snake(name)
    if snake != name and snake in params:
        hint = f"parameters are snake_case: did you mean {snake!r}?"
    else:
        close = difflib.get_close_matches(snake, params, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}?" if close else "its parameters are " + ", ".join(params)
    return _UnknownParameter(
        f"{f.__name__}() has no parameter {name!r}; {hint}", parameter=name, kind="Validation"
    )


def _keywords_checked(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f``, whose call with a keyword that names no parameter raises ``_UnknownParameter``
    (a ``ValidationError`` and a ``TypeError``) with a suggestion, instead of the bare
    ``TypeError``. Only that failed call pays for the suggestion."""
    import functools
    import inspect

    wrapped: Callable[..., Any]
    if inspect.iscoroutinefunction(f):

        @functools.wraps(f)
        async def checked_async(*args: Any, **kw: Any) -> Any:
            try:
                coro = f(*args, **kw)
            except TypeError:
                bad = _unknown_keyword(f, kw)
                if bad is None:
                    raise
                raise bad from None
            return await coro

        wrapped = checked_async
    else:

        @functools.wraps(f)
        def checked(*args: Any, **kw: Any) -> Any:
            try:
                return f(*args, **kw)
            except TypeError:
                bad = _unknown_keyword(f, kw) if kw else None
                if bad is None:
                    raise
                raise bad from None

        wrapped = checked
    setattr(wrapped, "_abws_checked", True)  # noqa: B010 (a function attribute)
    return wrapped


def _check_keywords(cls: type) -> None:
    """Wraps each public method ``cls`` defines (generated operations and hand-written
    conveniences alike) with ``_keywords_checked``."""
    import inspect

    for name, f in list(vars(cls).items()):
        if name.startswith("_") or not inspect.isfunction(f) or getattr(f, "_abws_checked", False):
            continue
        setattr(cls, name, _keywords_checked(f))


class _GroupBase:
    """What every API group has, sync or asyncio: its client, the keyword check of its
    methods, its repr."""

    # The client in a slot: a call through one of a thousand clients reads the group object
    # alone, not its dict too (B11). The dict stays (made on first use), so
    # attributes can still be set and methods patched (`mock.patch.object`); so do weak
    # references.
    __slots__ = ("_client", "__dict__", "__weakref__")

    def __init__(self, client: Any) -> None:
        self._client = client

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        _check_keywords(cls)

    def __repr__(self) -> str:
        return f"<abws.{type(self).__name__} of {self._client!r}>"


class _Group(_GroupBase):
    """The base of every API group: runs operations through the client."""

    __slots__ = ()
    _client: "Client"

    def _call(self, op: str, args: Dict[str, Any], *options: Any) -> Any:
        return self._client._call(op, args, *options)

    def _listing(self, op: str, field: str, args: Dict[str, Any], *options: Any) -> Listing[Any]:
        return self._client._listing(op, field, args, *options)


class _AsyncGroup(_GroupBase):
    """The base of every asyncio API group: awaits operations through the client."""

    __slots__ = ()
    _client: "AsyncClient"

    async def _call(self, op: str, args: Dict[str, Any], *options: Any) -> Any:
        return await self._client._call(op, args, *options)

    def _listing(self, op: str, field: str, args: Dict[str, Any], *options: Any) -> AsyncListing[Any]:
        return self._client._listing(op, field, args, *options)
