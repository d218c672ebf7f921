//! How a call of the extension waits for the core's future, in the two ways Python calls:
//!
//! - blocking (`abws.Client`): without the GIL, on the calling thread's own runtime (the
//!   core's `local.rs`: no other thread involved), checking for signals every 100 ms so
//!   Ctrl-C interrupts it;
//! - asyncio (`abws.AsyncClient`): the future is spawned on the same runtime (no thread per
//!   call) and its result handed back through a callable the Python side gives
//!   (`deliver(outcome)`, which calls `loop.call_soon_threadsafe`; the loop's thread then
//!   converts it with `Outcome.take`), so the event loop is never blocked. The returned
//!   `Call` cancels it.
//!
//! Both run the same `Job`: the core's future and the conversion of its result to Python,
//! so an operation or convenience is written once for both clients.
//!
//! A panic in either (a bug) ends the call with `abws.InternalError`, an `abws.Error`: not
//! pyo3's `PanicException`, which `except Exception` does not catch, and never an awaitable
//! left pending for ever because the task that would have resolved it died (S2).

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, TryLockError};
use std::task::Poll;
use std::time::{Duration, Instant};

use pyo3::prelude::*;
use pyo3::types::PyList;

use abws::inflight::{Cancelled, Watch};

use crate::errors::to_py_err;
use crate::gate;

/// How often a waiting call re-acquires the GIL to run Python's signal handlers.
const SIGNAL_TICK: Duration = Duration::from_millis(100);

/// Why a job failed: an error of the core, or a Python exception raised on the way (a
/// writer's `write`, a conversion).
pub enum Failed {
    Core(abws::Error),
    Python(PyErr),
}

impl From<abws::Error> for Failed {
    fn from(e: abws::Error) -> Failed {
        Failed::Core(e)
    }
}

impl From<PyErr> for Failed {
    fn from(e: PyErr) -> Failed {
        Failed::Python(e)
    }
}

impl From<Failed> for PyErr {
    fn from(f: Failed) -> PyErr {
        match f {
            Failed::Core(e) => to_py_err(e),
            Failed::Python(e) => e,
        }
    }
}

/// Makes the Python result of a finished job, with the GIL.
pub type Convert = Box<dyn FnOnce(Python<'_>) -> PyResult<Py<PyAny>> + Send>;

type JobFuture = Pin<Box<dyn Future<Output = Result<Convert, Failed>> + Send>>;

/// One call of the extension: the core's future, then the conversion of its result.
pub struct Job(JobFuture);

impl Job {
    /// A job whose future ends in a core result, converted by `convert` with the GIL.
    pub fn new<T, F, C>(fut: F, convert: C) -> Job
    where
        F: Future<Output = abws::Result<T>> + Send + 'static,
        T: Send + 'static,
        C: FnOnce(Python<'_>, T) -> PyResult<Py<PyAny>> + Send + 'static,
    {
        Job::raw(async move {
            let value = fut.await?;
            Ok(Box::new(move |py: Python<'_>| convert(py, value)) as Convert)
        })
    }

    /// A job that makes its conversion itself (and may fail with a Python exception).
    pub fn raw<F>(fut: F) -> Job
    where
        F: Future<Output = Result<Convert, Failed>> + Send + 'static,
    {
        Job(Box::pin(fut))
    }

    /// Runs the job: blocking when `deliver` is None (the result is returned), otherwise
    /// spawned, returning a `Call` (asyncio).
    pub fn run(self, py: Python<'_>, deliver: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
        match deliver {
            None => {
                let convert = py.detach(move || wait_detached(self.0))?;
                converted(py, convert)
            }
            Some(deliver) => Ok(Py::new(py, self.spawn(deliver)?)?.into_any()),
        }
    }

    /// Starts the job on the process runtime; `deliver(outcome)` receives its `Outcome` on
    /// a runtime thread, with the GIL, to be taken (converted) on the event loop.
    fn spawn(self, deliver: Py<PyAny>) -> PyResult<Call> {
        let ctx = abws::process::context();
        let rt = ctx.runtime().map_err(to_py_err)?;
        let watch = Watch::new();
        let fut: JobFuture = Box::pin(watch.scope(self.0));
        let shared = Arc::new(Shared {
            slot: Mutex::new(Some(fut)),
            cancelled: AtomicBool::new(false),
        });
        let polled = shared.clone();
        let task = rt.spawn(async move {
            // The future lives in the slot, so that `Call::cancel` can take it out and
            // drop it at once, on its own thread, whatever the runtime is doing. When this
            // thread is polling it then (a slow writer or `on_refresh_token`), `cancel`
            // only raises the flag, and the future is dropped here when that poll returns.
            let mut next_check = Instant::now() + ORPHAN_CHECK;
            let outcome = std::future::poll_fn(|cx| {
                let mut guard = polled.slot.lock().unwrap_or_else(|p| p.into_inner());
                if polled.cancelled.load(Ordering::Acquire) || gate::closed() {
                    *guard = None;
                    return Poll::Ready(None);
                }
                let Some(fut) = guard.as_mut() else {
                    return Poll::Ready(None);
                };
                let r = match catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(cx))) {
                    Ok(r) => r,
                    // Delivered as the call's error; the future is dropped (never polled
                    // again) just below.
                    Err(payload) => Poll::Ready(Err(Failed::Core(panicked(payload)))),
                };
                let cancelled = polled.cancelled.load(Ordering::Acquire);
                if r.is_ready() || cancelled {
                    *guard = None;
                }
                if cancelled {
                    return Poll::Ready(None);
                }
                // A call still going after a while (a report's polling) asks whether anybody
                // still waits for it: its loop closed, it stops (the check costs a clock
                // read per poll, the GIL once per ORPHAN_CHECK).
                if r.is_pending() && Instant::now() >= next_check {
                    next_check = Instant::now() + ORPHAN_CHECK;
                    if orphaned(&deliver) {
                        *guard = None;
                        return Poll::Ready(None);
                    }
                }
                r.map(Some)
            })
            .await;
            let Some(outcome) = outcome else { return };
            // The conversion is left to the event loop's thread (`Outcome.take`): this
            // thread holds the GIL only to hand the outcome over, so the loop is not kept
            // waiting for the GIL while results are built here. Not once the interpreter
            // is exiting (gate.rs).
            gate::attach(|py| {
                let delivered = Py::new(py, Outcome(Mutex::new(Some(outcome))))
                    .and_then(|o| deliver.call1(py, (o,)));
                if let Err(e) = delivered {
                    e.write_unraisable(py, None);
                }
            });
        });
        Ok(Call {
            shared,
            abort: task.abort_handle(),
            watch,
            warned: AtomicBool::new(false),
        })
    }
}

/// How often a spawned call that is still running checks that its event loop is open.
const ORPHAN_CHECK: Duration = Duration::from_secs(1);

/// Whether nobody waits for a call any more (`_Deliver.orphaned()`: its event loop was
/// closed); true once the interpreter exits.
fn orphaned(deliver: &Py<PyAny>) -> bool {
    gate::attach(|py| {
        deliver
            .bind(py)
            .call_method0("orphaned")
            .and_then(|v| v.is_truthy())
            .unwrap_or(false)
    })
    .unwrap_or(true)
}

/// What a spawned job shares with its `Call`.
struct Shared {
    slot: Mutex<Option<JobFuture>>,
    /// Set by `Call::cancel`: the future is dropped (by whoever holds the slot) and its
    /// result never delivered.
    cancelled: AtomicBool,
}

/// Runs `fut` to completion on the calling thread. Must be called without the GIL held
/// (inside `py.detach`). On a pending Python exception from a signal handler (Ctrl-C raises
/// `KeyboardInterrupt`) the future is dropped, which cancels the call. When that cancelled
/// a placeOrder or addItems whose request was on the wire (the core logs a warning then),
/// the exception carries its `external_id` and `operation`, and a note saying so.
pub fn wait_detached<T, E, F>(fut: F) -> PyResult<T>
where
    F: Future<Output = Result<T, E>> + Send,
    Failed: From<E>,
    T: Send,
{
    let watch = Watch::new();
    let fut = watch.scope(fut);
    // On the calling thread's own runtime (a forked child gets a fresh one there; inside a
    // tokio runtime this is a `Runtime` error, not a blocked worker).
    let r = abws::local::block_on(async move {
        let mut fut = std::pin::pin!(caught(fut));
        loop {
            tokio::select! {
                r = &mut fut => return match r {
                    Ok(r) => r.map_err(|e| PyErr::from(Failed::from(e))),
                    Err(panic) => Err(to_py_err(panic)),
                },
                _ = tokio::time::sleep(SIGNAL_TICK) => {
                    Python::attach(|py| py.check_signals())?;
                }
            }
        }
    })
    .map_err(to_py_err)
    .and_then(|r| r);
    // The call's future is dropped by now: an unsafe write it cancelled is in the watch.
    if let (Err(e), Some(c)) = (&r, watch.cancelled()) {
        Python::attach(|py| annotate(err_value(py, e), &c, &c.describe()));
    }
    r
}

/// The core's error for a panic: `abws.InternalError` naming it.
fn panicked(payload: Box<dyn std::any::Any + Send>) -> abws::Error {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string());
    abws::Error::internal(format!(
        "internal error: the library panicked ({what}); the call was abandoned (please report it)"
    ))
}

/// Runs `fut`; a panic while it is polled ends it with `panicked`'s error (the future is
/// dropped, never polled again).
async fn caught<F: Future>(fut: F) -> Result<F::Output, abws::Error> {
    let mut fut = std::pin::pin!(fut);
    std::future::poll_fn(
        |cx| match catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(cx))) {
            Ok(r) => r.map(Ok),
            Err(payload) => Poll::Ready(Err(panicked(payload))),
        },
    )
    .await
}

/// Converts a finished job's result with the GIL; a panic there is `abws.InternalError`.
fn converted(py: Python<'_>, convert: Convert) -> PyResult<Py<PyAny>> {
    catch_unwind(AssertUnwindSafe(|| convert(py)))
        .unwrap_or_else(|payload| Err(to_py_err(panicked(payload))))
}

/// A call whose future panics, for the tests of the panic's way out (blocking: raises;
/// `deliver` given: its outcome is the error). Nothing else calls it.
#[pyfunction]
#[pyo3(signature = (deliver=None))]
pub fn _panic_in_call(py: Python<'_>, deliver: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
    Job::new(
        async {
            tokio::task::yield_now().await;
            if std::hint::black_box(true) {
                panic!("a panic the tests asked for (_panic_in_call)");
            }
            Ok(())
        },
        |py, ()| Ok(py.None()),
    )
    .run(py, deliver)
}

fn err_value<'py>(py: Python<'py>, err: &PyErr) -> Bound<'py, PyAny> {
    err.value(py).clone().into_any()
}

/// Puts a cancelled unsafe write on the exception that interrupted it: `external_id` and
/// `operation` attributes, and a note (`add_note` from Python 3.11; `__notes__` on 3.10,
/// which does not print it).
fn annotate(value: Bound<'_, PyAny>, c: &Cancelled, note: &str) {
    let py = value.py();
    let _ = value.setattr("external_id", c.external_id.as_deref());
    let _ = value.setattr("operation", c.operation);
    let note = format!("abws: {note}");
    if value.hasattr("add_note").unwrap_or(false) {
        let _ = value.call_method1("add_note", (note,));
    } else {
        let notes = value
            .getattr("__notes__")
            .ok()
            .and_then(|n| n.cast_into::<PyList>().ok())
            .unwrap_or_else(|| PyList::empty(py));
        let _ = notes.append(note);
        let _ = value.setattr("__notes__", notes);
    }
}

/// Releases the GIL and waits for `make()`'s future (see `wait_detached`).
pub fn wait<T, F, M>(py: Python<'_>, make: M) -> PyResult<T>
where
    M: FnOnce() -> F + Send,
    F: Future<Output = abws::Result<T>> + Send,
    T: Send,
{
    py.detach(move || wait_detached(make()))
}

/// The outcome of a job started for asyncio, handed to `deliver`: `take()` converts it to
/// `(True, result)` or `(False, exception)` on the thread that calls it (the event loop's).
#[pyclass(name = "Outcome", module = "abws._abws", frozen)]
pub struct Outcome(Mutex<Option<Result<Convert, Failed>>>);

#[pymethods]
impl Outcome {
    /// `(True, result)` or `(False, exception)`; `(False, RuntimeError)` when taken twice.
    fn take(&self, py: Python<'_>) -> (bool, Py<PyAny>) {
        let outcome = self.0.lock().unwrap_or_else(|p| p.into_inner()).take();
        let result = match outcome {
            Some(o) => o.map_err(PyErr::from).and_then(|c| converted(py, c)),
            None => Err(pyo3::exceptions::PyRuntimeError::new_err(
                "abws: this outcome was already taken",
            )),
        };
        match result {
            Ok(v) => (true, v),
            Err(e) => (false, e.into_value(py).into_any()),
        }
    }
}

/// A job started for asyncio. Its result reaches the `deliver` callable it was started
/// with; `cancel()` drops its future.
#[pyclass(name = "Call", module = "abws._abws", frozen)]
pub struct Call {
    shared: Arc<Shared>,
    abort: tokio::task::AbortHandle,
    watch: Watch,
    /// Whether `cancel` logged the warning of an unsafe write whose answer went unread.
    warned: AtomicBool,
}

#[pymethods]
impl Call {
    /// Cancels the call: its future is dropped before this returns (connections of an
    /// attempt in flight are closed, buffers freed, a rate-limit wait given up) unless the
    /// I/O thread is polling it right now (a slow writer, `on_refresh_token`): then it is
    /// dropped there as soon as that poll returns, and this does not wait. Its result is
    /// never delivered. When the call was a placeOrder or addItems whose request was sent
    /// (cut off in flight, or answered but the answer not read yet), `exc` (the
    /// `CancelledError`) gets its `external_id`, `operation` and a note, and the call
    /// returns True. Does nothing else after the end.
    #[pyo3(signature = (exc=None))]
    fn cancel(&self, py: Python<'_>, exc: Option<Bound<'_, PyAny>>) -> bool {
        self.shared.cancelled.store(true, Ordering::Release);
        // Never waits for the slot: the I/O thread holds it while it polls, and a poll may
        // run Python for seconds. That thread drops the future itself (the flag is set).
        let fut = match self.shared.slot.try_lock() {
            Ok(mut g) => g.take(),
            Err(TryLockError::Poisoned(p)) => p.into_inner().take(),
            Err(TryLockError::WouldBlock) => None,
        };
        if fut.is_some() {
            // Dropped without the GIL (a document buffer's drop takes it itself).
            py.detach(move || drop(fut));
        }
        self.abort.abort();
        // Cut off in flight: the core recorded it (and logged it) as the future dropped.
        // Otherwise a write whose request was sent may have been applied all the same: its
        // answer arrived but was not read (the task was cancelled before `_settle` ran),
        // or the call went on after that attempt.
        let (c, note) = match (self.watch.cancelled(), self.watch.sent()) {
            (Some(c), _) => {
                let note = c.describe();
                (c, note)
            }
            (None, Some(c)) => {
                let note = c.describe_unread();
                if !self.warned.swap(true, Ordering::Relaxed) {
                    log::warn!(target: "abws", "{note}");
                }
                (c, note)
            }
            (None, None) => return false,
        };
        if let Some(exc) = exc {
            annotate(exc, &c, &note);
        }
        true
    }

    /// Whether the call has ended (delivered, failed or cancelled).
    #[getter]
    fn done(&self) -> bool {
        self.abort.is_finished()
    }
}
