//! Python from the library's own threads, until the interpreter exits.
//!
//! The core's I/O threads take the GIL to hand an asyncio result over, call a writer's
//! `write`, `on_refresh_token`, a progress callback, or log a record. Once the interpreter
//! finalizes, taking the GIL from such a thread aborts or crashes the process. An `atexit`
//! hook (`close`, registered at import; atexit hooks run before finalization) closes this
//! gate and waits, without the GIL, for every thread inside it to leave: from then on the
//! library's threads never touch Python (a hand-over is skipped, a write fails, a log
//! record is dropped), and asyncio calls still running stop at their next poll.
//!
//! Entering is two atomic operations (no lock), so the hand-over of every call stays cheap.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::time::Duration;

use pyo3::prelude::*;

static CLOSED: AtomicBool = AtomicBool::new(false);
/// Threads inside `enter` now.
static INSIDE: AtomicUsize = AtomicUsize::new(0);

/// Runs `f` (which may take the GIL) unless the interpreter is exiting.
pub fn enter<R>(f: impl FnOnce() -> R) -> Option<R> {
    // Counted before the flag is read, and `close` sets the flag before it reads the count
    // (both SeqCst): a thread either sees the gate closed or is waited for.
    INSIDE.fetch_add(1, SeqCst);
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            INSIDE.fetch_sub(1, SeqCst);
        }
    }
    let _leave = Leave;
    if CLOSED.load(SeqCst) {
        return None;
    }
    Some(f())
}

/// `Python::attach(f)` unless the interpreter is exiting (then None; `f` is not run).
pub fn attach<R>(f: impl for<'py> FnOnce(Python<'py>) -> R) -> Option<R> {
    enter(|| Python::try_attach(f)).flatten()
}

/// Whether the interpreter is exiting (the gate is closed).
pub fn closed() -> bool {
    CLOSED.load(SeqCst)
}

/// The atexit hook: closes the gate and waits for the threads inside it to leave (they
/// may need the GIL to, so it is released meanwhile).
#[pyfunction]
pub fn _close_gate(py: Python<'_>) {
    CLOSED.store(true, SeqCst);
    py.detach(|| {
        while INSIDE.load(SeqCst) > 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    });
}

/// In a forked child only the forking thread runs: nobody is inside the gate.
#[pyfunction]
pub fn _gate_after_fork() {
    INSIDE.store(0, SeqCst);
}

/// The core's log records, forwarded to Python's `logging` (pyo3-log) unless the
/// interpreter is exiting.
pub struct GatedLogger(pub pyo3_log::Logger);

impl log::Log for GatedLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        self.0.enabled(metadata)
    }

    fn log(&self, record: &log::Record<'_>) {
        // pyo3-log checks its cached level before it takes the GIL.
        enter(|| self.0.log(record));
    }

    fn flush(&self) {
        enter(|| self.0.flush());
    }
}
