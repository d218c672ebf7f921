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
/// `KeyboardInterrupt`) the future is dropped, which cancels the call.
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
    rt.block_on(async move {
        let mut fut = std::pin::pin!(fut);
        loop {
            tokio::select! {
                r = &mut fut => return r.map_err(to_py_err),
                _ = tokio::time::sleep(SIGNAL_TICK) => {
                    Python::attach(|py| py.check_signals())?;
                }
            }
        }
    })
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
