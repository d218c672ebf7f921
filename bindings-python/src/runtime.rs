//! The one way a blocking call waits: without the GIL, on the core's process runtime,
//! checking for signals every 100 ms so Ctrl-C interrupts it.

use std::future::Future;
use std::time::Duration;

use pyo3::prelude::*;

use crate::errors::to_py_err;

/// How often a waiting call re-acquires the GIL to run Python's signal handlers.
const SIGNAL_TICK: Duration = Duration::from_millis(100);

/// Runs `fut` to completion on the process runtime. Must be called without the GIL held
/// (inside `py.detach`). On a pending Python exception from a signal handler (Ctrl-C raises
/// `KeyboardInterrupt`) the future is dropped, which cancels the call. When that cancelled
/// a placeOrder or addItems whose request was on the wire (the core logs a warning then),
/// the exception carries its `external_id` and `operation`, and a note saying so.
pub fn wait_detached<T, F>(fut: F) -> PyResult<T>
where
    F: Future<Output = abws::Result<T>> + Send,
    T: Send,
{
    if tokio::runtime::Handle::try_current().is_ok() {
        return Err(to_py_err(abws::Error::runtime(
            "abws was called from inside a tokio runtime thread",
        )));
    }
    // The context is per process: a forked child gets a fresh runtime here.
    let ctx = abws::process::context();
    let rt = ctx.runtime().map_err(to_py_err)?;
    let watch = abws::inflight::Watch::new();
    let fut = watch.scope(fut);
    let r = rt.block_on(async move {
        let mut fut = std::pin::pin!(fut);
        loop {
            tokio::select! {
                r = &mut fut => return r.map_err(to_py_err),
                _ = tokio::time::sleep(SIGNAL_TICK) => {
                    Python::attach(|py| py.check_signals())?;
                }
            }
        }
    });
    // The call's future is dropped by now: an unsafe write it cancelled is in the watch.
    if let (Err(e), Some(c)) = (&r, watch.cancelled()) {
        Python::attach(|py| annotate(py, e, &c));
    }
    r
}

/// Puts a cancelled unsafe write on the exception that interrupted it: `external_id` and
/// `operation` attributes, and a note (`add_note` from Python 3.11; `__notes__` on 3.10,
/// which does not print it).
fn annotate(py: Python<'_>, err: &PyErr, c: &abws::inflight::Cancelled) {
    let value = err.value(py);
    let _ = value.setattr("external_id", c.external_id.as_deref());
    let _ = value.setattr("operation", c.operation);
    let note = format!("abws: {}", c.describe());
    if value.hasattr("add_note").unwrap_or(false) {
        let _ = value.call_method1("add_note", (note,));
    } else {
        let notes = value
            .getattr("__notes__")
            .ok()
            .and_then(|n| n.cast_into::<pyo3::types::PyList>().ok())
            .unwrap_or_else(|| pyo3::types::PyList::empty(py));
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
