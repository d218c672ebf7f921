//! `_abws.Client`: settings in, operations by name, results out. The operation methods of
//! the Python package are generated from the core's operations table; they pass their
//! arguments here as a dict, which `args.rs` writes as the JSON the core's one argument
//! reader takes (guided by the operation's parameter description), and the result comes
//! back as instances of the generated model classes (`from_json.rs`). The conveniences that
//! are not one operation (`invoice_details_for`, `wait_for_report`, `download`,
//! `fetch_pdf`) read their parameter structs through the same reader. Every method runs a
//! `Job` (`runtime.rs`): blocking for `abws.Client`, or, given `deliver`, started for
//! `abws.AsyncClient`, which shares this compiled client, its pacing and its token.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use serde::de::DeserializeOwned;

use abws::api::{documents as doc, reconciliation as rec};
use abws::describe::Describe;
use abws::{blocking, Credentials};

use crate::args::args_json;
use crate::bytes_buffer::BytesBuffer;
use crate::errors::to_py_err;
use crate::from_json::{output_to_py, reply_to_py};
use crate::pager::PyPager;
use crate::py_writer::PyWriter;
use crate::runtime::{Convert, Failed, Job};

/// Reads Python arguments into a parameter struct through the core's reader: a bad one
/// is an `abws.ValidationError` naming the parameter's path, raised before any request.
fn read<T: DeserializeOwned + Describe>(args: &Bound<'_, PyAny>) -> PyResult<T> {
    let text = args_json(args, T::ty())?;
    abws::params::read(&text).map_err(to_py_err)
}

/// A shown setting's value (`abws::Settings::shown`: null, a bool, a number or a text) as
/// a Python value; a number written as a float stays a float (`30.0`, not `30`).
fn shown_to_py(py: Python<'_>, value: serde_json::Value) -> PyResult<Bound<'_, PyAny>> {
    use pyo3::IntoPyObjectExt;
    use serde_json::Value;
    match value {
        Value::Null => Ok(py.None().into_bound(py)),
        Value::Bool(b) => b.into_bound_py_any(py),
        Value::Number(n) => match (n.as_u64(), n.as_f64()) {
            (Some(u), _) => u.into_bound_py_any(py),
            (None, Some(f)) => f.into_bound_py_any(py),
            (None, None) => n.to_string().into_bound_py_any(py),
        },
        Value::String(s) => s.into_bound_py_any(py),
        other => other.to_string().into_bound_py_any(py),
    }
}

/// A Python progress callable as the core calls it (`bytes_so_far`, after each piece); what
/// it raises is dropped: a failing progress callback must not fail the download.
fn reporter(progress: Option<Py<PyAny>>) -> Option<impl Fn(u64) + Send + Sync> {
    progress.map(|f| {
        move |n: u64| {
            crate::gate::attach(|py| {
                let _ = f.call1(py, (n,));
            });
        }
    })
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

/// The core's rotation callback calling a Python callable, taking the GIL (on the calling
/// thread of a blocking call, on the library's I/O thread for asyncio). What it raises is
/// reported as unraisable: the new token is in use either way (`abws.Client` wraps the
/// caller's callable to log its failures).
fn rotation(callback: Py<PyAny>) -> abws::auth::RotationCallback {
    std::sync::Arc::new(move |token: &str| {
        // Not once the interpreter is exiting (gate.rs).
        crate::gate::attach(|py| {
            if let Err(e) = callback.call1(py, (token,)) {
                e.write_unraisable(py, None);
            }
        });
    })
}

fn operation(name: &str) -> PyResult<&'static dyn abws::operation::DynOperation> {
    abws::operations::dynamic(name)
        .ok_or_else(|| to_py_err(abws::Error::internal(format!("no operation named {name}"))))
}

/// A size as a Python int.
fn int(py: Python<'_>, n: u64) -> PyResult<Py<PyAny>> {
    Ok(n.into_pyobject(py)?.into_any().unbind())
}

/// The conversion of a size, for a job that makes its own.
fn int_result(n: u64) -> Convert {
    Box::new(move |py: Python<'_>| int(py, n))
}

/// The compiled client. Safe to share between threads; rebuilt in a forked child.
#[pyclass(name = "Client", module = "abws._abws", frozen)]
pub struct PyClient {
    inner: blocking::Client,
}

impl PyClient {
    /// The async client, viewed with the per-call options given (a bad one is an
    /// `abws.ValidationError` naming it, before any request).
    fn viewed(&self, timeout: Option<f64>, max_attempts: Option<i64>) -> PyResult<abws::Client> {
        let c = self.inner.inner().map_err(to_py_err)?;
        if timeout.is_none() && max_attempts.is_none() {
            return Ok(c);
        }
        let options = abws::CallOptions::from_seconds(timeout, max_attempts).map_err(to_py_err)?;
        c.with_options(options).map_err(to_py_err)
    }
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
        let e = s.endpoints().map_err(to_py_err)?;
        let d = PyDict::new(py);
        for (key, value) in s.shown() {
            d.set_item(key, shown_to_py(py, value)?)?;
        }
        d.set_item("api_address", e.api)?;
        let auth = match &s.credentials {
            Credentials::RefreshToken { .. } => "refresh_token",
            Credentials::AccessToken(_) => "access_token",
        };
        d.set_item("auth", auth)?;
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
    /// its arguments (a dict keyed by parameter name). With `deliver`, starts it for
    /// asyncio and returns its `Call` (see `runtime.rs`); every method below likewise.
    /// `timeout` (seconds) and `max_attempts` replace the client's `operation_timeout`
    /// and `max_attempts` for this call (`abws::Client::with_options`).
    #[pyo3(signature = (op, args, timeout=None, max_attempts=None, deliver=None))]
    fn call(
        &self,
        py: Python<'_>,
        op: &str,
        args: &Bound<'_, PyDict>,
        timeout: Option<f64>,
        max_attempts: Option<i64>,
        deliver: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let dynop = operation(op)?;
        let text = args_json(args.as_any(), (dynop.row().params)())?;
        let c = self.viewed(timeout, max_attempts)?;
        let fut = dynop.call(&c, &text).map_err(to_py_err)?;
        Job::new(fut, reply_to_py).run(py, deliver)
    }

    /// Starts a listing by its pager name (`iter_invoices`, ...) with the arguments of
    /// its operation; `timeout` and `max_attempts` apply to each page's call, and
    /// `start_token` (a listing's `next_token`) resumes it there.
    #[pyo3(signature = (op, args, timeout=None, max_attempts=None, start_token=None))]
    fn pager(
        &self,
        op: &str,
        args: &Bound<'_, PyDict>,
        timeout: Option<f64>,
        max_attempts: Option<i64>,
        start_token: Option<&str>,
    ) -> PyResult<PyPager> {
        let dynop = abws::operations::dynamic_pager(op)
            .ok_or_else(|| to_py_err(abws::Error::internal(format!("no pager named {op}"))))?;
        let text = args_json(args.as_any(), (dynop.row().params)())?;
        let c = self.viewed(timeout, max_attempts)?;
        let mut pages = dynop.pager(&c, &text).map_err(to_py_err)?;
        if let Some(t) = start_token {
            pages.start_at(t).map_err(to_py_err)?;
        }
        Ok(PyPager::new(pages))
    }

    /// Whether the shared state can be used now (`abws::Client::check_shared_state`).
    #[pyo3(signature = (deliver=None))]
    fn check_shared_state(
        &self,
        py: Python<'_>,
        deliver: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let c = self.inner.inner().map_err(to_py_err)?;
        let fut = async move { c.check_shared_state().await };
        Job::new(fut, |py, ()| Ok(py.None())).run(py, deliver)
    }

    /// The invoice data of any number of line items (`{"line_items": [...]}`);
    /// `progress(done, total)` is called after each request (line items answered so far).
    #[pyo3(signature = (args, progress=None, deliver=None))]
    fn invoice_details_for(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyDict>,
        progress: Option<Py<PyAny>>,
        deliver: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let p: rec::InvoiceDetailsForParams = read(args.as_any())?;
        let c = self.inner.inner().map_err(to_py_err)?;
        let report = move |done: usize, total: usize| {
            if let Some(f) = &progress {
                // A failing progress callback must not fail the call.
                crate::gate::attach(|py| {
                    let _ = f.call1(py, (done, total));
                });
            }
        };
        let fut = async move {
            c.reconciliation()
                .invoice_details_for_reporting(&p, report)
                .await
        };
        Job::new(fut, |py, r| output_to_py(py, &r)).run(py, deliver)
    }

    /// Polls getReport until the report ends (`{"report_id", "poll_interval", "timeout"}`).
    #[pyo3(signature = (args, deliver=None))]
    fn wait_for_report(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyDict>,
        deliver: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let p: doc::WaitForReportParams = read(args.as_any())?;
        let (poll, timeout) = p.durations().map_err(to_py_err)?;
        let c = self.inner.inner().map_err(to_py_err)?;
        let fut = async move {
            c.documents()
                .wait_for_report(&p.report_id, poll, timeout)
                .await
        };
        Job::new(fut, |py, r| output_to_py(py, &r)).run(py, deliver)
    }

    /// A report document's PDF, unpacked in memory.
    #[pyo3(signature = (report_document_id, deliver=None))]
    fn download(
        &self,
        py: Python<'_>,
        report_document_id: &Bound<'_, PyAny>,
        deliver: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let id = document_id(report_document_id)?;
        let c = self.inner.inner().map_err(to_py_err)?;
        let fut = async move {
            let mut out = BytesBuffer::default();
            c.documents().download_into(&id, &mut out).await?;
            Ok(out)
        };
        Job::new(fut, |py, out: BytesBuffer| {
            Ok(out.into_bytes(py).into_any())
        })
        .run(py, deliver)
    }

    /// create → wait → document → download (the arguments of `FetchPdfArgs`).
    #[pyo3(signature = (args, deliver=None))]
    fn fetch_pdf(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyDict>,
        deliver: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let p: doc::FetchPdfArgs = read(args.as_any())?;
        let (poll, timeout) = p.durations().map_err(to_py_err)?;
        let report = p.report();
        let c = self.inner.inner().map_err(to_py_err)?;
        let fut = async move {
            let mut out = BytesBuffer::default();
            c.documents()
                .fetch_pdf_into(&report, poll, timeout, &mut out)
                .await?;
            Ok(out)
        };
        Job::new(fut, |py, out: BytesBuffer| {
            Ok(out.into_bytes(py).into_any())
        })
        .run(py, deliver)
    }

    /// create → wait → document → download into the file `path`, sealed under `key` (or
    /// `ABWS_DOCUMENT_KEY`; see the core's `fetch_pdf_to_path`); returns the PDF's size.
    #[pyo3(signature = (args, path, key=None, progress=None, deliver=None))]
    fn fetch_pdf_to_path(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyDict>,
        path: std::path::PathBuf,
        key: Option<&Bound<'_, PyAny>>,
        progress: Option<Py<PyAny>>,
        deliver: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let p: doc::FetchPdfArgs = read(args.as_any())?;
        let (poll, timeout) = p.durations().map_err(to_py_err)?;
        let key = crate::sealed::path_key(key, "")?;
        let report = p.report();
        let c = self.inner.inner().map_err(to_py_err)?;
        let progress = reporter(progress);
        let fut = async move {
            let progress = progress.as_ref().map(|f| f as &(dyn Fn(u64) + Send + Sync));
            c.documents()
                .fetch_pdf_to_path(&report, poll, timeout, &path, &key, progress)
                .await
        };
        Job::new(fut, int).run(py, deliver)
    }

    /// Streams a report document's PDF into `writer` (anything with `write(bytes)`);
    /// returns its size. With `key` (32 bytes or 64 hex digits) the writer receives the
    /// sealed (encrypted) file instead of the PDF.
    #[pyo3(signature = (report_document_id, writer, key=None, deliver=None))]
    fn download_to(
        &self,
        py: Python<'_>,
        report_document_id: &Bound<'_, PyAny>,
        writer: Py<PyAny>,
        key: Option<&Bound<'_, PyAny>>,
        deliver: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let id = document_id(report_document_id)?;
        let key = crate::sealed::document_key(key, false)?;
        let c = self.inner.inner().map_err(to_py_err)?;
        let job = Job::raw(async move {
            let mut out = PyWriter::new(writer);
            let r = match &key {
                None => c.documents().download_to(&id, &mut out).await,
                Some(key) => {
                    let mut sealed = abws::sealed::SealWriter::new(&mut out, key)?;
                    match c.documents().download_to(&id, &mut sealed).await {
                        Ok(n) => sealed.finish().map(|_| n).map_err(|e| {
                            abws::Error::document(format!(
                                "writing the sealed document failed: {e}"
                            ))
                        }),
                        Err(e) => Err(e),
                    }
                }
            };
            match (r, out.failure.take()) {
                // The writer's own exception (disk full, ...) is the one the caller can act on.
                (Err(_), Some(raised)) => Err(Failed::Python(raised)),
                (Err(e), None) => Err(Failed::Core(e)),
                (Ok(n), _) => Ok(int_result(n)),
            }
        });
        job.run(py, deliver)
    }

    /// Streams a report document into the file `path`, encrypted under `key` (or
    /// `ABWS_DOCUMENT_KEY`), or as a plain PDF with `allow_plaintext=True` (see the
    /// core's `download_to_path`); `progress(bytes_so_far)` is called after each piece.
    /// Neither a key nor the opt-in: a ValidationError before any request.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (report_document_id, path, key=None, allow_plaintext=false, progress=None, deliver=None))]
    fn download_to_path(
        &self,
        py: Python<'_>,
        report_document_id: &Bound<'_, PyAny>,
        path: std::path::PathBuf,
        key: Option<&Bound<'_, PyAny>>,
        allow_plaintext: bool,
        progress: Option<Py<PyAny>>,
        deliver: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
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
            Some(crate::sealed::path_key(
                key,
                "; or pass allow_plaintext=True to write the PDF in clear",
            )?)
        };
        let c = self.inner.inner().map_err(to_py_err)?;
        let report = reporter(progress);
        let fut = async move {
            let report = report.as_ref().map(|f| f as &(dyn Fn(u64) + Send + Sync));
            match &key {
                Some(key) => {
                    c.documents()
                        .download_to_path(&id, &path, key, report)
                        .await
                }
                None => {
                    c.documents()
                        .download_to_path_plaintext(&id, &path, report)
                        .await
                }
            }
        };
        Job::new(fut, int).run(py, deliver)
    }

    /// The month-end close (`abws::close::close_month`): `params_json` is `CloseParams`
    /// as JSON; `progress(phase, done, total)` is called at every step (what it raises is
    /// dropped). Returns the `CloseResult` as JSON text.
    #[pyo3(signature = (params_json, progress=None, deliver=None))]
    fn close_month(
        &self,
        py: Python<'_>,
        params_json: &str,
        progress: Option<Py<PyAny>>,
        deliver: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let p: abws::close::CloseParams = abws::params::read(params_json).map_err(to_py_err)?;
        let c = self.inner.inner().map_err(to_py_err)?;
        let report = move |s: &abws::close::CloseProgress| {
            if let Some(f) = &progress {
                // A failing progress callback must not fail the close.
                crate::gate::attach(|py| {
                    let _ = f.call1(py, (s.phase.name(), s.done, s.total));
                });
            }
        };
        let fut = async move {
            let r = c.close_month_with_progress(&p, &report).await?;
            serde_json::to_string(&r)
                .map_err(|e| abws::Error::internal(format!("the close's result as JSON: {e}")))
        };
        Job::new(fut, |py, json: String| {
            Ok(PyString::new(py, &json).into_any().unbind())
        })
        .run(py, deliver)
    }

    fn __repr__(&self) -> String {
        let s = self.inner.settings();
        format!(
            "<abws._abws.Client region={} endpoint={}>",
            s.region,
            s.endpoints().map(|e| e.api).unwrap_or_default()
        )
    }
}

/// The settings object of the `ABWS_*` environment variables with `overrides_json` on top,
/// as JSON (`abws::settings_json::env_object`: the core reads the environment, so every
/// binding reads the same variables; `ABWS_REGION` is required).
#[pyfunction]
pub fn env_settings(overrides_json: &str) -> PyResult<String> {
    let overrides: serde_json::Value = serde_json::from_str(overrides_json).map_err(|e| {
        to_py_err(abws::Error::validation(
            "overrides",
            format!("must be one JSON object ({e})"),
        ))
    })?;
    let map = abws::settings_json::env_object(Some(&overrides)).map_err(to_py_err)?;
    Ok(serde_json::Value::Object(map).to_string())
}
