"""The compiled core (private; use the names exported by ``abws``).

Every blocking method releases the GIL while it waits and checks for signals every
100 ms, so Ctrl-C interrupts it with ``KeyboardInterrupt``. Given ``deliver``, a method
starts its call on the core's runtime instead and returns a :class:`Call` (asyncio).
"""

from typing import Any, Callable, Dict, List, Optional, Tuple, final

__all__ = [
    "__version__",
    "_debug_build",
    "DEFAULT_WAIT_TIMEOUT",
    "Client",
    "Pager",
    "Call",
    "Outcome",
    "Sandbox",
    "consent_url",
    "exchange_code",
    "env_settings",
    "_sample_errors",
    "_panic_in_call",
    "_to_json",
    "_error_kinds",
    "_operations",
    "_refresh_logging",
    "_redact",
    "_live_download_buffers",
    "_close_gate",
    "_gate_after_fork",
    "decrypt_file",
    "decrypt",
    "encrypt",
    "run_cli",
]

__version__: str
_debug_build: bool
DEFAULT_WAIT_TIMEOUT: float

@final
class Outcome:
    """A finished asyncio call, converted by ``take()`` on the calling thread."""

    def take(self) -> Tuple[bool, Any]: ...

_Deliver = Callable[[Outcome], None]
"""Receives an asyncio call's result, ``(True, value)`` or ``(False, exception)``, on an I/O
thread with the GIL (the Python side passes it to ``loop.call_soon_threadsafe``)."""

@final
class Client:
    """The compiled client, built from its settings as JSON text. Every method that does
    I/O blocks (returns its result) without ``deliver``; with it, it starts the call for
    asyncio and returns its :class:`Call` at once."""

    def __new__(cls, settings_json: str, on_refresh_token: Optional[Callable[[str], None]] = None) -> "Client": ...
    def settings(self) -> Dict[str, Any]:
        """The settings in force, without secrets."""
    def _credentials(self) -> Dict[str, str]:
        """The credentials in force, secrets exposed (for opt-in pickling only)."""
    def call(
        self,
        op: str,
        args: Dict[str, Any],
        timeout: Optional[float] = None,
        max_attempts: Optional[int] = None,
        deliver: Optional[_Deliver] = None,
    ) -> Any:
        """Runs one operation of the table by its snake_case name (or operationId) with its
        arguments, keyed by parameter name; returns an instance of its ``abws.models``
        class (``None`` for an operation without a result). ``timeout`` (seconds) and
        ``max_attempts`` replace the client's ``operation_timeout`` and ``max_attempts``
        for this call."""
    def pager(
        self,
        op: str,
        args: Dict[str, Any],
        timeout: Optional[float] = None,
        max_attempts: Optional[int] = None,
        start_token: Optional[str] = None,
    ) -> "Pager":
        """Starts a listing by its pager name (``iter_invoices``, ...) with the arguments
        of its operation; the options apply to each page, ``start_token`` resumes it."""
    def check_shared_state(self, deliver: Optional[_Deliver] = None) -> Any:
        """Whether the shared state can be used now (raises when it cannot)."""
    def invoice_details_for(
        self,
        args: Dict[str, Any],
        progress: Optional[Callable[[int, int], None]] = None,
        deliver: Optional[_Deliver] = None,
    ) -> Any:
        """The invoice data of any number of line items (``{"line_items": [...]}``);
        ``progress(done, total)`` after each request."""
    def wait_for_report(self, args: Dict[str, Any], deliver: Optional[_Deliver] = None) -> Any:
        """Polls getReport until the report ends (``report_id``, ``poll_interval``,
        ``timeout``)."""
    def download(self, report_document_id: Any, deliver: Optional[_Deliver] = None) -> Any:
        """A report document's PDF (``bytes``), unpacked in memory."""
    def fetch_pdf(self, args: Dict[str, Any], deliver: Optional[_Deliver] = None) -> Any:
        """create → wait → document → download; returns the PDF (``bytes``)."""
    def close_month(
        self,
        params_json: str,
        progress: Optional[Callable[[str, int, int], None]] = None,
        deliver: Optional[_Deliver] = None,
    ) -> Any:
        """The month-end close (``CloseParams`` as JSON); returns ``CloseResult`` as JSON
        text; ``progress(phase, done, total)`` at every step."""
    def fetch_pdf_to_path(
        self,
        args: Dict[str, Any],
        path: str,
        key: Any = None,
        progress: Optional[Callable[[int], None]] = None,
        deliver: Optional[_Deliver] = None,
    ) -> Any:
        """create → wait → document → download into the file ``path``, sealed under ``key``
        (or ``ABWS_DOCUMENT_KEY``); returns the PDF's size."""
    def download_to(
        self, report_document_id: Any, writer: Any, key: Any = None, deliver: Optional[_Deliver] = None
    ) -> Any:
        """Streams a report document's PDF (or, with ``key``, its sealed file) into
        ``writer``; returns the PDF's size."""
    def download_to_path(
        self,
        report_document_id: Any,
        path: str,
        key: Any = None,
        allow_plaintext: bool = False,
        progress: Optional[Callable[[int], None]] = None,
        deliver: Optional[_Deliver] = None,
    ) -> Any:
        """Streams a report document into the file ``path``: sealed under ``key`` (or
        ``ABWS_DOCUMENT_KEY``), or the plain PDF with ``allow_plaintext=True``; returns
        the PDF's size."""

@final
class Pager:
    """A listing in progress."""

    def next_page(self, deliver: Optional[_Deliver] = None) -> Any:
        """The next page, or None after the last one."""
    @property
    def items_yielded(self) -> int:
        """Items delivered so far."""
    @property
    def next_token(self) -> Optional[str]:
        """The cursor of the next page (None after the last one)."""

@final
class Call:
    """A call started for asyncio."""

    def cancel(self, exc: Optional[BaseException] = None) -> bool:
        """Drops the call's future (or, while the I/O thread polls it, has that thread drop
        it; never waits); True when it was a placeOrder or addItems whose request was sent
        (``exc`` then gets ``external_id``, ``operation`` and a note)."""
    @property
    def done(self) -> bool:
        """Whether the call has ended."""

@final
class Sandbox:
    """The embedded emulator."""

    def __new__(
        cls,
        *,
        seed: int = 42,
        rate_limits: str = "spec",
        time_scale: float = 1.0,
        token_lifetime: float = 3600.0,
        page_token_lifetime: float = 900.0,
        presigned_lifetime: float = 300.0,
        today: Optional[str] = None,
        rotate_refresh_tokens: bool = False,
        static_mode: bool = False,
    ) -> "Sandbox": ...
    def describe(self) -> str: ...
    def group_url(self, region: str) -> str: ...
    def now(self) -> str: ...
    def counters(self) -> str: ...
    def dataset(self) -> str: ...
    def inject(self, rule_json: str) -> None: ...
    def clear_faults(self) -> None: ...
    def reset_counters(self) -> None: ...
    def expire_tokens(self) -> None: ...
    def revoke(self) -> None: ...
    def set_rate(self, operation: str, rate: float, burst: int) -> bool: ...
    def credentials(self) -> Dict[str, str]: ...
    def stop(self) -> None: ...

def consent_url(consent_host: str, state: str, redirect_uri: str, application_id: str) -> str: ...
def exchange_code(
    auth_endpoint: str, client_id: str, client_secret: str, code: str, redirect_uri: str
) -> Dict[str, Any]: ...
def env_settings(overrides_json: str) -> str: ...
def _sample_errors() -> List[Tuple[str, Any]]: ...
def _panic_in_call(deliver: Optional[Callable[[Outcome], None]] = None) -> Any: ...
def _to_json(obj: Any) -> str: ...
def _refresh_logging() -> None: ...
def _error_kinds() -> List[str]: ...
def _redact(value: str) -> str:
    """The core's redaction of a sensitive field (an address without query or credentials)."""
def _operations() -> List[Tuple[str, str, str, Optional[str]]]:
    """Every operation of the core's table: (operationId, group, method, pager or None)."""

def _close_gate() -> None:
    """The atexit hook: the library's threads stop touching Python (gate.rs)."""
def _gate_after_fork() -> None:
    """A forked child's gate: nobody is inside it."""
def _live_download_buffers() -> int:
    """How many document buffers are alive (for the tests)."""
def decrypt_file(src: Any, dest: Any, key: Any = None, password: Optional[str] = None) -> int:
    """Opens the sealed file ``src`` (a key's, or a password's) into the file ``dest``
    (0600); returns the document's size."""

def decrypt(data: bytes, key: Any = None, password: Optional[str] = None) -> bytes:
    """Opens a sealed file's bytes (a key's, or a password's); returns the document."""

def encrypt(data: bytes, key: Any = None) -> bytes:
    """Seals bytes; returns the sealed file's bytes."""

def run_cli(argv: List[str]) -> int:
    """Runs the ``abws`` command line ``argv`` (the program's name first); returns its exit code."""
