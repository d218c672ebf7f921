//! `_abws.Client`: settings in, operations by name, results out. The operation methods of
//! the Python package are generated from the core's operations table; they pass their
//! arguments here as a dict, which `args.rs` writes as the JSON the core's one argument
//! reader takes (guided by the operation's parameter description), and the result comes
//! back as instances of the generated model classes (`convert.rs`). The conveniences that
//! are not one operation (`invoice_details_for`, `wait_for_report`, `download`,
//! `fetch_pdf`) read their parameter structs through the same reader.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use serde::de::DeserializeOwned;

use abws::api::{documents as doc, reconciliation as rec};
use abws::describe::Describe;
use abws::{blocking, Credentials};

use crate::args::args_json;
use crate::bytes_buffer::BytesBuffer;
use crate::convert::to_py;
use crate::errors::to_py_err;
use crate::pager::PyPager;
use crate::py_writer::PyWriter;
use crate::runtime::wait;

/// Reads Python arguments into a parameter struct through the core's reader: a bad one
/// is an `abws.ValidationError` naming the parameter's path, raised before any request.
fn read<T: DeserializeOwned + Describe>(args: &Bound<'_, PyAny>) -> PyResult<T> {
    let text = args_json(args, T::ty())?;
    abws::params::read(&text).map_err(to_py_err)
}

/// A report document id given as one argument (`download`, `download_to`).
fn document_id(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    match obj.cast::<PyString>() {
        Ok(s) => Ok(s.to_cow()?.into_owned()),
        Err(_) => Err(to_py_err(abws::Error::validation(
            "report_document_id",
            format!(
                "must be a string (got {})",
                obj.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ),
        ))),
    }
}

/// The core's rotation callback calling a Python callable (on the library's I/O thread,
/// taking the GIL). What it raises is reported as unraisable: the new token is in use
/// either way (`abws.Client` wraps the caller's callable to log its failures).
fn rotation(callback: Py<PyAny>) -> abws::auth::RotationCallback {
    std::sync::Arc::new(move |token: &str| {
        Python::attach(|py| {
            if let Err(e) = callback.call1(py, (token,)) {
                e.write_unraisable(py, None);
            }
        })
    })
}

fn operation(name: &str) -> PyResult<&'static dyn abws::operation::DynOperation> {
    abws::operations::dynamic(name)
        .ok_or_else(|| to_py_err(abws::Error::internal(format!("no operation named {name}"))))
}

/// The compiled client. Safe to share between threads; rebuilt in a forked child.
#[pyclass(name = "Client", module = "abws._abws", frozen)]
pub struct PyClient {
    inner: blocking::Client,
}

#[pymethods]
impl PyClient {
    /// Builds a client from the settings as JSON text (see `abws.Client`); `on_refresh_token`
    /// receives every refresh token the server rotates to, before it is used.
    #[new]
    #[pyo3(signature = (settings_json, on_refresh_token=None))]
    fn new(settings_json: &str, on_refresh_token: Option<Py<PyAny>>) -> PyResult<PyClient> {
        let value: serde_json::Value = serde_json::from_str(settings_json).map_err(|e| {
            to_py_err(abws::Error::validation(
                "settings",
                format!("must be one JSON object ({e})"),
            ))
        })?;
        let settings = abws::settings_json::from_json(&value, "settings").map_err(to_py_err)?;
        let inner = blocking::Client::with_rotation(settings, on_refresh_token.map(rotation))
            .map_err(to_py_err)?;
        Ok(PyClient { inner })
    }

    /// The settings in force, without secrets.
    fn settings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.inner.settings();
        let e = s.endpoints();
        let d = PyDict::new(py);
        d.set_item("region", s.region.as_str())?;
        d.set_item("user_email", s.user_email.as_deref())?;
        d.set_item("endpoint", s.endpoint.as_deref())?;
        d.set_item("auth_endpoint", s.auth_endpoint.as_deref())?;
        d.set_item("consent_endpoint", s.consent_endpoint.as_deref())?;
        d.set_item("connect_timeout", s.timeouts.connect.as_secs_f64())?;
        d.set_item("attempt_timeout", s.timeouts.attempt.as_secs_f64())?;
        d.set_item("operation_timeout", s.timeouts.operation.as_secs_f64())?;
        d.set_item("max_attempts", s.max_attempts)?;
        d.set_item("rate_limiting", s.rate_limiting)?;
        d.set_item("max_response_bytes", s.max_response_bytes)?;
        d.set_item("max_document_bytes", s.max_document_bytes)?;
        d.set_item("app_name", s.app_name.as_deref())?;
        // Redacted: a proxy address may hold a password (`_credentials` has it whole).
        d.set_item("proxy", s.proxy_shown())?;
        d.set_item("shared_state", s.shared_state_shown())?;
        d.set_item("api_address", e.api)?;
        match &s.credentials {
            Credentials::RefreshToken { client_id, .. } => {
                d.set_item("client_id", client_id)?;
                d.set_item("auth", "refresh_token")?;
            }
            Credentials::AccessToken(_) => d.set_item("auth", "access_token")?,
        }
        Ok(d)
    }

    /// The credentials in force (a rotated refresh token included), secrets exposed.
    /// Private: used only when the caller opts in to pickling secrets.
    fn _credentials<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.inner.credentials().map_err(to_py_err)?;
        let d = PyDict::new(py);
        match &c {
            Credentials::RefreshToken {
                client_id,
                client_secret,
                refresh_token,
            } => {
                d.set_item("client_id", client_id)?;
                d.set_item("client_secret", client_secret.expose())?;
                d.set_item("refresh_token", refresh_token.expose())?;
            }
            Credentials::AccessToken(t) => d.set_item("access_token", t.expose())?,
        }
        if let Some(p) = &self.inner.settings().proxy {
            d.set_item("proxy", p.expose())?;
        }
        if let Some(r) = &self.inner.settings().shared_state {
            d.set_item("shared_state", r.expose())?;
        }
        Ok(d)
    }

    /// Runs one operation of the table by its snake_case name (or operationId) with
    /// its arguments (a dict keyed by parameter name).
    fn call(&self, py: Python<'_>, op: &str, args: &Bound<'_, PyDict>) -> PyResult<Py<PyAny>> {
        let dynop = operation(op)?;
        let text = args_json(args.as_any(), (dynop.row().params)())?;
        let c = self.inner.inner().map_err(to_py_err)?;
        let fut = dynop.call(&c, &text).map_err(to_py_err)?;
        let out = wait(py, move || fut)?;
        to_py(py, &*out)
    }

    /// Starts a listing by its pager name (`iter_invoices`, ...) with the arguments of
    /// its operation.
    fn pager(&self, op: &str, args: &Bound<'_, PyDict>) -> PyResult<PyPager> {
        let dynop = abws::operations::dynamic_pager(op)
            .ok_or_else(|| to_py_err(abws::Error::internal(format!("no pager named {op}"))))?;
        let text = args_json(args.as_any(), (dynop.row().params)())?;
        let c = self.inner.inner().map_err(to_py_err)?;
        Ok(PyPager::new(dynop.pager(&c, &text).map_err(to_py_err)?))
    }

    /// The invoice data of any number of line items (`{"line_items": [...]}`).
    fn invoice_details_for(&self, py: Python<'_>, args: &Bound<'_, PyDict>) -> PyResult<Py<PyAny>> {
        let p: rec::InvoiceDetailsForParams = read(args.as_any())?;
        let c = self.inner.inner().map_err(to_py_err)?;
        let r = wait(py, move || async move {
            c.reconciliation().invoice_details_for(&p).await
        })?;
        to_py(py, &r)
    }

    /// Polls getReport until the report ends (`{"report_id", "poll_interval", "timeout"}`).
    fn wait_for_report(&self, py: Python<'_>, args: &Bound<'_, PyDict>) -> PyResult<Py<PyAny>> {
        let p: doc::WaitForReportParams = read(args.as_any())?;
        let (poll, timeout) = p.durations().map_err(to_py_err)?;
        let c = self.inner.inner().map_err(to_py_err)?;
        let r = wait(py, move || async move {
            c.documents()
                .wait_for_report(&p.report_id, poll, timeout)
                .await
        })?;
        to_py(py, &r)
    }

    /// A report document's PDF, unpacked in memory.
    fn download(
        &self,
        py: Python<'_>,
        report_document_id: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let id = document_id(report_document_id)?;
        let c = self.inner.inner().map_err(to_py_err)?;
        let mut out = BytesBuffer::default();
        let buffer = &mut out;
        wait(py, move || async move {
            c.documents().download_into(&id, buffer).await
        })?;
        Ok(out.into_bytes(py).into_any())
    }

    /// create → wait → document → download (the arguments of `FetchPdfArgs`).
    fn fetch_pdf(&self, py: Python<'_>, args: &Bound<'_, PyDict>) -> PyResult<Py<PyAny>> {
        let p: doc::FetchPdfArgs = read(args.as_any())?;
        let (poll, timeout) = p.durations().map_err(to_py_err)?;
        let report = p.report();
        let c = self.inner.inner().map_err(to_py_err)?;
        let mut out = BytesBuffer::default();
        let buffer = &mut out;
        wait(py, move || async move {
            c.documents()
                .fetch_pdf_into(&report, poll, timeout, buffer)
                .await
        })?;
        Ok(out.into_bytes(py).into_any())
    }

    /// Streams a report document's PDF into `writer` (anything with `write(bytes)`);
    /// returns its size. With `key` (32 bytes or 64 hex digits) the writer receives the
    /// sealed (encrypted) file instead of the PDF.
    #[pyo3(signature = (report_document_id, writer, key=None))]
    fn download_to(
        &self,
        py: Python<'_>,
        report_document_id: &Bound<'_, PyAny>,
        writer: Py<PyAny>,
        key: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<u64> {
        let id = document_id(report_document_id)?;
        let key = crate::sealed::document_key(key, false)?;
        let report_document_id = id.as_str();
        let c = self.inner.inner().map_err(to_py_err)?;
        let mut out = PyWriter::new(writer);
        let r = match &key {
            None => {
                let sink = &mut out;
                wait(py, move || async move {
                    c.documents().download_to(report_document_id, sink).await
                })
            }
            Some(key) => {
                let sink = &mut out;
                wait(py, move || async move {
                    let mut sealed = abws::sealed::SealWriter::new(sink, key)?;
                    let n = c
                        .documents()
                        .download_to(report_document_id, &mut sealed)
                        .await?;
                    sealed.finish().map_err(|e| {
                        abws::Error::document(format!("writing the sealed document failed: {e}"))
                    })?;
                    Ok(n)
                })
            }
        };
        match (r, out.failure.take()) {
            // The writer's own exception (disk full, ...) is the one the caller can act on.
            (Err(_), Some(raised)) => Err(raised),
            (r, _) => r,
        }
    }

    /// Streams a report document into the file `path`, encrypted under `key` (or
    /// `ABWS_DOCUMENT_KEY`), or as a plain PDF with `allow_plaintext=True` (see the
    /// core's `download_to_path`); `progress(bytes_so_far)` is called after each piece.
    /// Neither a key nor the opt-in: a ValidationError before any request.
    #[pyo3(signature = (report_document_id, path, key=None, allow_plaintext=false, progress=None))]
    fn download_to_path(
        &self,
        py: Python<'_>,
        report_document_id: &Bound<'_, PyAny>,
        path: std::path::PathBuf,
        key: Option<&Bound<'_, PyAny>>,
        allow_plaintext: bool,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<u64> {
        let id = document_id(report_document_id)?;
        let explicit = key.is_some_and(|k| !k.is_none());
        if allow_plaintext && explicit {
            return Err(to_py_err(abws::Error::validation(
                "allow_plaintext",
                "cannot be combined with key: the file is either encrypted or plain",
            )));
        }
        let key = if allow_plaintext {
            None
        } else {
            Some(crate::sealed::document_key(key, true)?.ok_or_else(|| {
                to_py_err(abws::Error::validation(
                    "key",
                    format!(
                        "is needed: a document written to a path is encrypted (AES-256-GCM; \
                         open it with `python -m abws decrypt`): give key= (32 bytes or 64 hex \
                         digits) or set {}; or pass allow_plaintext=True to write the PDF in clear",
                        abws::sealed::KEY_ENV
                    ),
                ))
            })?)
        };
        let report_document_id = id.as_str();
        let c = self.inner.inner().map_err(to_py_err)?;
        let report = progress.map(|f| {
            move |n: u64| {
                // A failing progress callback must not fail the download.
                Python::attach(|py| {
                    let _ = f.call1(py, (n,));
                })
            }
        });
        let report = report.as_ref().map(|f| f as &(dyn Fn(u64) + Send + Sync));
        let key = key.as_ref();
        wait(py, move || async move {
            match key {
                Some(key) => {
                    c.documents()
                        .download_to_path(report_document_id, &path, key, report)
                        .await
                }
                None => {
                    c.documents()
                        .download_to_path_plaintext(report_document_id, &path, report)
                        .await
                }
            }
        })
    }

    fn __repr__(&self) -> String {
        let s = self.inner.settings();
        format!(
            "<abws._abws.Client region={} endpoint={}>",
            s.region,
            s.endpoints().api
        )
    }
}
