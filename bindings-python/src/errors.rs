//! The core's `Error` as an instance of the exception tree in `abws/exceptions.py`.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyModule};

use abws::{Error, ErrorKind};

static EXCEPTIONS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn exceptions(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    EXCEPTIONS
        .get_or_try_init(py, || py.import("abws.exceptions").map(Bound::unbind))
        .map(|m| m.bind(py))
}

/// The class name in `abws.exceptions` for an error. Exhaustive over the kinds this
/// version knows; a kind added later falls back to the base class.
pub fn class_name(kind: ErrorKind, status: Option<u16>) -> &'static str {
    match kind {
        ErrorKind::Validation => "ValidationError",
        ErrorKind::Api => match status {
            Some(400) => "BadRequest",
            Some(401) => "Unauthorized",
            Some(403) => "Forbidden",
            Some(404) => "NotFound",
            Some(413) => "PayloadTooLarge",
            Some(415) => "UnsupportedMediaType",
            Some(429) => "RateLimited",
            Some(500 | 502 | 503 | 504) => "ServerError",
            _ => "ApiError",
        },
        ErrorKind::PageTokenExpired => "PageTokenExpired",
        ErrorKind::ReportFailed => "ReportFailed",
        ErrorKind::Document => "DocumentError",
        ErrorKind::OutcomeUnknown => "OutcomeUnknown",
        ErrorKind::Transport => "TransportError",
        ErrorKind::Timeout => "Timeout",
        ErrorKind::Auth => "AuthError",
        ErrorKind::Runtime | ErrorKind::Internal => "InternalError",
        #[allow(unreachable_patterns)]
        _ => "Error",
    }
}

fn build(py: Python<'_>, e: &Error) -> PyResult<PyErr> {
    let module = exceptions(py)?;
    let cls = module.getattr(class_name(e.kind(), e.status()))?;
    let kw = PyDict::new(py);
    kw.set_item("kind", e.kind().name())?;
    kw.set_item("request_id", e.request_id())?;
    kw.set_item("operation", e.operation())?;
    kw.set_item("attempts", e.attempts())?;
    set_some(&kw, "parameter", e.parameter())?;
    if let Some(f) = e.api_failure() {
        kw.set_item("status", f.status)?;
        kw.set_item("code", f.code())?;
        kw.set_item("message", f.message())?;
        kw.set_item("details", f.details())?;
    }
    set_some(&kw, "external_id", e.external_id())?;
    let raw_body = e.raw_body().map(|b| pyo3::types::PyBytes::new(py, b));
    set_some(&kw, "raw_body", raw_body)?;
    set_some(&kw, "items_yielded", e.items_yielded())?;
    if let Some((id, status)) = e.report() {
        kw.set_item("report_id", id)?;
        kw.set_item("processing_status", status)?;
    }
    set_some(&kw, "error_code", e.document_code())?;
    let inst = cls.call((e.to_string(),), Some(&kw))?;
    Ok(PyErr::from_value(inst))
}

/// Sets a keyword argument that the error may not have (the exception's default then).
fn set_some<'py, T: IntoPyObject<'py>>(
    kw: &Bound<'py, PyDict>,
    name: &str,
    value: Option<T>,
) -> PyResult<()> {
    match value {
        Some(v) => kw.set_item(name, v),
        None => Ok(()),
    }
}

/// Converts a core error to the Python exception of its kind.
pub fn to_py_err(e: Error) -> PyErr {
    Python::attach(|py| match build(py, &e) {
        Ok(err) => err,
        Err(import_failed) => PyRuntimeError::new_err(format!(
            "{e} (and the abws exception could not be built: {import_failed})"
        )),
    })
}

/// One sample error of every kind the core declares, so the tests can check the mapping.
#[pyfunction]
pub fn _sample_errors(py: Python<'_>) -> PyResult<Vec<(String, Py<PyAny>)>> {
    let mut out = Vec::new();
    for kind in ErrorKind::ALL {
        let e = match kind {
            ErrorKind::Validation => Error::validation("invoice_number", "must not be empty"),
            ErrorKind::Api => Error::api(abws::ApiFailure {
                status: 404,
                errors: vec![abws::error::ErrorEntry {
                    code: "NotFound".into(),
                    message: "no such thing".into(),
                    details: "".into(),
                }],
                request_id: Some("req-1".into()),
                rate_limit: None,
            }),
            ErrorKind::PageTokenExpired => Error::page_token_expired("the page token expired", 7),
            ErrorKind::ReportFailed => Error::report_failed("r-1", "FATAL"),
            ErrorKind::Document => Error::document("bad archive").with_document_code("E1"),
            ErrorKind::OutcomeUnknown => Error::outcome_unknown(
                "placeOrder",
                Some("ext-1"),
                Error::transport("not a valid placeOrder response"),
            )
            .with_raw_body(b"{\"acceptanceArtifacts\":[".to_vec().into()),
            ErrorKind::Transport => Error::transport("connection refused"),
            ErrorKind::Timeout => Error::timeout("deadline passed"),
            ErrorKind::Auth => Error::auth("invalid_client"),
            ErrorKind::Runtime => Error::runtime("misuse"),
            ErrorKind::Internal => Error::internal("bug"),
            #[allow(unreachable_patterns)]
            _ => Error::internal("a kind this binding does not know"),
        };
        let err = build(py, &e)?;
        out.push((kind.name().to_string(), err.into_value(py).into_any()));
    }
    Ok(out)
}
