//! Encrypted document files on the Python side: the key a caller gives (`key=`: 32 bytes
//! or 64 hex digits; none: `ABWS_DOCUMENT_KEY`), the password of a password-sealed file
//! (`password=`; none: `ABWS_ARCHIVE_PASSWORD`), and the functions behind `python -m abws
//! decrypt`. The format and its handling are the core's (`abws::sealed`).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use zeroize::Zeroizing;

use abws::sealed::DocumentKey;

use crate::errors::to_py_err;

/// A key given from Python: `bytes`/`bytearray` of 32, or `str` of 64 hex digits; `None`
/// reads `ABWS_DOCUMENT_KEY` when `env` is true. Errors never repeat the key.
pub fn document_key(key: Option<&Bound<'_, PyAny>>, env: bool) -> PyResult<Option<DocumentKey>> {
    match key {
        Some(k) if !k.is_none() => {
            if let Ok(s) = k.cast::<PyString>() {
                let text = Zeroizing::new(s.to_cow()?.into_owned());
                return DocumentKey::from_hex(&text).map(Some).map_err(to_py_err);
            }
            let bytes: Zeroizing<Vec<u8>> = Zeroizing::new(k.extract().map_err(|_| {
                to_py_err(abws::Error::validation(
                    "key",
                    "must be bytes (32) or a str of 64 hex digits",
                ))
            })?);
            DocumentKey::from_bytes(&bytes).map(Some).map_err(to_py_err)
        }
        _ if env => DocumentKey::from_env().map_err(to_py_err),
        _ => Ok(None),
    }
}

/// The key given, or `ABWS_DOCUMENT_KEY`; neither is a ValidationError naming `key` that
/// says `why` it is needed and ends with `otherwise` (the caller's other way out).
fn needed(key: Option<&Bound<'_, PyAny>>, why: &str, otherwise: &str) -> PyResult<DocumentKey> {
    document_key(key, true)?.ok_or_else(|| {
        to_py_err(abws::Error::missing(
            "key",
            format!(
                "{why}: give key= (32 bytes or 64 hex digits) or set {}{otherwise}",
                abws::sealed::KEY_ENV
            ),
        ))
    })
}

/// What opens a sealed file: the key given (or `ABWS_DOCUMENT_KEY`) and the password
/// given (or `ABWS_ARCHIVE_PASSWORD`); the file says which it needs. Neither is a
/// ValidationError naming both.
fn openers(
    key: Option<&Bound<'_, PyAny>>,
    password: Option<String>,
) -> PyResult<(Option<DocumentKey>, Option<abws::Secret>)> {
    let key = document_key(key, true)?;
    let password = match password {
        Some(p) => Some(abws::Secret::new(p)),
        None => abws::sealed::password::password_from_env(),
    };
    if key.is_none() && password.is_none() {
        return Err(to_py_err(abws::Error::missing(
            "key",
            format!(
                "needed to open a sealed file: give key= (32 bytes or 64 hex digits) or set {}; \
                 for a password-sealed file give password= or set {}",
                abws::sealed::KEY_ENV,
                abws::sealed::password::PASSWORD_ENV
            ),
        )));
    }
    Ok((key, password))
}

/// The key of a document written to a path (`download_to(id, path)`, `fetch_pdf(to=path)`):
/// `key=` or `ABWS_DOCUMENT_KEY`; neither is a ValidationError naming `key` (`otherwise`
/// ends the message with the caller's other way out).
pub fn path_key(key: Option<&Bound<'_, PyAny>>, otherwise: &str) -> PyResult<DocumentKey> {
    needed(
        key,
        "a document written to a path is encrypted (AES-256-GCM; abws.decrypt or \
         `python -m abws decrypt` opens it)",
        otherwise,
    )
}

/// Seals bytes under `key` (or `ABWS_DOCUMENT_KEY`); returns the sealed file's bytes.
#[pyfunction]
#[pyo3(signature = (data, key=None))]
pub fn encrypt(
    py: Python<'_>,
    data: &Bound<'_, PyBytes>,
    key: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyBytes>> {
    let key = needed(key, "needed to encrypt", "")?;
    let sealed = abws::sealed::seal_bytes(&key, data.as_bytes()).map_err(to_py_err)?;
    Ok(PyBytes::new(py, &sealed).unbind())
}

/// Opens the sealed file `src` into the file `dest` (0600, written via a temporary file);
/// returns the PDF's size.
#[pyfunction]
#[pyo3(signature = (src, dest, key=None, password=None))]
pub fn decrypt_file(
    py: Python<'_>,
    src: std::path::PathBuf,
    dest: std::path::PathBuf,
    key: Option<&Bound<'_, PyAny>>,
    password: Option<String>,
) -> PyResult<u64> {
    let (key, password) = openers(key, password)?;
    py.detach(|| abws::sealed::open_file_with(key.as_ref(), password.as_ref(), &src, &dest))
        .map_err(to_py_err)
}

/// Opens sealed bytes; returns the PDF.
#[pyfunction]
#[pyo3(signature = (data, key=None, password=None))]
pub fn decrypt(
    py: Python<'_>,
    data: &Bound<'_, PyBytes>,
    key: Option<&Bound<'_, PyAny>>,
    password: Option<String>,
) -> PyResult<Py<PyBytes>> {
    let (key, password) = openers(key, password)?;
    let mut out = Zeroizing::new(Vec::new());
    let sealed = data.as_bytes();
    // Detached: a password's scrypt takes a good part of a second.
    py.detach(|| {
        abws::sealed::open_with(key.as_ref(), password.as_ref(), &mut &sealed[..], &mut *out)
    })
    .map_err(to_py_err)?;
    Ok(PyBytes::new(py, &out).unbind())
}
