//! The Python extension module `abws._abws`: converts arguments and results, nothing more.
//! Every blocking call releases the GIL and stays interruptible (`runtime`).

use pyo3::prelude::*;

mod args;
mod auth;
mod bytes_buffer;
mod client;
mod errors;
mod from_json;
mod gate;
mod leaves;
mod objects;
mod pager;
mod py_writer;
mod runtime;
mod sandbox;
mod sealed;

/// Writes a Python value as JSON text (exact decimals, ISO date-times): the settings.
#[pyfunction]
fn _to_json(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    args::plain_json(obj, "")
}

/// The names of every error kind of the core, in order.
#[pyfunction]
fn _error_kinds() -> Vec<&'static str> {
    abws::ErrorKind::ALL.iter().map(|k| k.name()).collect()
}

/// Every operation of the core's table: (operationId, group, method name, pager name or
/// None), so the tests can check the Python groups against it.
#[pyfunction]
fn _operations() -> Vec<(
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
)> {
    abws::operations::ALL
        .iter()
        .map(|o| (o.id, o.group, o.name, o.pager.map(|p| p.name)))
        .collect()
}

/// The core's redaction of a field marked sensitive (`abws.models` reprs use it): an
/// address keeps scheme, host, port and path; its query and credentials become `***`.
#[pyfunction]
fn _redact(value: &str) -> String {
    abws::secret::redact_sensitive(value)
}

/// How many document buffers are alive: a cancelled download must free its own.
#[pyfunction]
fn _live_download_buffers() -> usize {
    bytes_buffer::live()
}

static LOG_RESET: std::sync::OnceLock<pyo3_log::ResetHandle> = std::sync::OnceLock::new();

/// Forgets the cached Python logging levels, so a changed level of logger "abws" applies.
#[pyfunction]
fn _refresh_logging() {
    if let Some(h) = LOG_RESET.get() {
        h.reset();
    }
}

/// Adds each `#[pyfunction]` to the module.
macro_rules! add_functions {
    ($m:ident, $($f:path),* $(,)?) => {
        $($m.add_function(wrap_pyfunction!($f, $m)?)?;)*
    };
}

#[pymodule]
fn _abws(m: &Bound<'_, PyModule>) -> PyResult<()> {
    allocator_options();
    // The user agent's `Language=` of every client this extension builds.
    abws::config::set_binding_language("Python");
    // The core logs through the `log` facade (target "abws"); send it to logger "abws".
    // Records carry no secrets (the reliability scan L1 checks that). Levels are cached
    // (checking Python's level per record would take the GIL on the I/O threads), so the
    // cache is refreshed whenever a client is created: configure logging before that, or
    // call `abws.refresh_logging()` after changing it.
    // Through the gate (gate.rs): no record reaches Python once the interpreter exits.
    let logger = pyo3_log::Logger::new(m.py(), pyo3_log::Caching::LoggersAndLevels)?;
    let handle = logger.reset_handle();
    if log::set_boxed_logger(Box::new(gate::GatedLogger(logger))).is_ok() {
        log::set_max_level(log::LevelFilter::Debug);
        let _ = LOG_RESET.set(handle);
    }
    // Before the interpreter finalizes, the library's threads stop touching Python.
    add_functions!(m, gate::_close_gate, gate::_gate_after_fork);
    let py = m.py();
    py.import("atexit")?
        .call_method1("register", (m.getattr("_close_gate")?,))?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("after_in_child", m.getattr("_gate_after_fork")?)?;
    py.import("os")?
        .call_method("register_at_fork", (), Some(&kwargs))?;
    add_functions!(m, _refresh_logging);
    m.add("__version__", abws::VERSION)?;
    m.add("_debug_build", cfg!(debug_assertions))?;
    m.add(
        "DEFAULT_WAIT_TIMEOUT",
        abws::api::documents::DEFAULT_WAIT_TIMEOUT.as_secs_f64(),
    )?;
    m.add_class::<client::PyClient>()?;
    m.add_class::<pager::PyPager>()?;
    m.add_class::<runtime::Call>()?;
    m.add_class::<runtime::Outcome>()?;
    m.add_class::<sandbox::PySandbox>()?;
    add_functions!(
        m,
        auth::consent_url,
        auth::exchange_code,
        client::env_settings,
        errors::_sample_errors,
        runtime::_panic_in_call,
        _to_json,
        _error_kinds,
        _operations,
        sealed::decrypt_file,
        sealed::decrypt,
        sealed::encrypt,
        _redact,
        _live_download_buffers,
        run_cli,
    );
    Ok(())
}

/// Runs the `abws` command line `argv` (the program's name first) as the C release's
/// binary does, without the GIL; returns its exit code (the wheel's `abws` console script).
#[pyfunction]
fn run_cli(py: Python<'_>, argv: Vec<std::ffi::OsString>) -> i32 {
    py.detach(|| abws_cli::run(argv))
}

/// See bindings-python/Cargo.toml: the extension's Rust allocations only (Python objects
/// keep Python's allocator).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc commits its first arena eagerly on Linux; every page it touches there stays in
/// the process's resident set. Streaming a document (chunks made on an I/O thread, freed
/// on the caller's) then grew the peak RSS by ~15 MB instead of ~3 (B4); committing on
/// demand keeps it at ~3. Set before the module allocates anything else.
fn allocator_options() {
    /// `mi_option_arena_eager_commit` in mimalloc.h (the same in v2 and v3; the crate does
    /// not name it).
    const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
    // SAFETY: sets a plain integer option; mimalloc reads it when it next makes an arena.
    unsafe { libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0) }
}
