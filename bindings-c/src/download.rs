//! Document download through a caller-supplied write callback: the PDF is unpacked in
//! memory and handed to the callback chunk by chunk; nothing is written to disk unless
//! the callback writes it.

use std::ffi::{c_char, c_int, c_void};
use std::io::Write;

use abws_core::api::documents::{FetchPdfArgs, GetReportDocumentParams};
use serde::de::DeserializeOwned;

use crate::abws_error;
use crate::client::{self, abws_client};
use crate::ffi::{boundary, not_null, write_out, Failure, FfiResult};
use crate::status::abws_status;

/// Receives the bytes of a document, in order, chunk by chunk.
///
/// `userdata` is the pointer given to the download function, passed through untouched;
/// `data` points to `len` bytes (never 0) valid only during the call. Return 0 to go on,
/// any other value to stop the download, which then fails with
/// `ABWS_STATUS_CALLBACK_ABORTED`. Called only on the thread that called the download
/// function, before it returns. Must not unwind (no C++ exception or longjmp may leave
/// it) and must not free the client.
///
/// While it runs, the download is still in progress on this thread: it must call no
/// function that takes a client or a pager (operations, pagers, downloads, another
/// download included); such a call returns `ABWS_STATUS_RUNTIME` with a message saying
/// so. The functions on errors, strings, statuses and cancellation handles
/// (`abws_error_*`, `abws_string_free`, `abws_status_name`, `abws_cancel_signal`, ...)
/// may be called. Copy what the callback needs and make the call after the download
/// has returned.
pub type abws_write_callback =
    Option<unsafe extern "C" fn(userdata: *mut c_void, data: *const u8, len: usize) -> c_int>;

/// An `io::Write` over the caller's callback.
struct CallbackWriter {
    callback: unsafe extern "C" fn(*mut c_void, *const u8, usize) -> c_int,
    userdata: *mut c_void,
    aborted: Option<c_int>,
}

// SAFETY: the writer is used only on the calling thread: the blocking facade runs the
// download future with `block_on` on the thread that called the exported function, and
// the document is unpacked there. The raw pointer is the caller's and is only passed back.
unsafe impl Send for CallbackWriter {}

impl Write for CallbackWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.aborted.is_some() {
            return Err(std::io::Error::other(
                "the write callback stopped the download",
            ));
        }
        if buf.is_empty() {
            return Ok(0);
        }
        // SAFETY: the callback is the caller's, with the documented signature; `buf` is
        // valid for `buf.len()` bytes during the call.
        let rc = unsafe { (self.callback)(self.userdata, buf.as_ptr(), buf.len()) };
        if rc != 0 {
            self.aborted = Some(rc);
            return Err(std::io::Error::other(format!(
                "the write callback returned {rc}"
            )));
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl CallbackWriter {
    /// The failure to report when the callback stopped the download.
    fn aborted_failure(&self) -> Option<Failure> {
        self.aborted.map(|rc| {
            Failure::new(
                abws_status::CallbackAborted,
                format!("the write callback returned {rc}; the download was stopped"),
            )
        })
    }
}

/// The shared body of the download functions (the exported functions' parameters, then
/// the call itself, given the arguments read by the core's reader into `P`).
///
/// # Safety
/// As the exported functions: pointers NULL or valid.
#[allow(clippy::too_many_arguments)]
unsafe fn run_download<P: DeserializeOwned>(
    client: *const abws_client,
    params_json: *const c_char,
    write: abws_write_callback,
    userdata: *mut c_void,
    bytes_written: *mut u64,
    err: *mut *mut abws_error,
    body: impl FnOnce(&abws_core::blocking::Client, P, &mut CallbackWriter) -> FfiResult<u64>,
) -> abws_status {
    boundary(err, || {
        not_null!(client, params_json);
        let Some(callback) = write else {
            return Err(Failure::null("write"));
        };
        let c = client::lookup(client)?;
        // SAFETY: per the exported function's contract.
        let p: P = unsafe { crate::params::read(params_json) }?;
        let mut writer = CallbackWriter {
            callback,
            userdata,
            aborted: None,
        };
        let result = body(&c.client, p, &mut writer);
        if let Some(f) = writer.aborted_failure() {
            return Err(f);
        }
        let n = result?;
        if !bytes_written.is_null() {
            // SAFETY: non-NULL and writable per the exported function's contract.
            unsafe { write_out(bytes_written, n) };
        }
        Ok(())
    })
}

/// Downloads a report document (the PDF of an invoice or credit note) and streams it to
/// `write`, unpacked (gzip, zip) in memory. An expired presigned address is renewed once.
///
/// Params: `{"report_document_id": "..."}` (required; from `abws_documents_get_report`
/// or `abws_documents_wait_for_report`). An error document inside the archive gives
/// `ABWS_STATUS_DOCUMENT`.
///
/// Ownership: `userdata` stays the caller's. On success `*bytes_written` (when
/// `bytes_written` is not NULL) receives the number of bytes passed to `write`; on
/// failure it is not written, and `*err` (when `err` is not NULL) receives an error the
/// caller frees with `abws_error_free`. If the callback returns non-zero the status is
/// `ABWS_STATUS_CALLBACK_ABORTED`; bytes already delivered stay delivered.
/// NULL `client`, `params_json` or `write`: `ABWS_STATUS_NULL_ARGUMENT`.
/// Thread safety: any thread, concurrently on one client; `write` runs on the calling
/// thread only.
///
/// # Safety
/// `params_json` is NULL or a NUL-terminated string; `write` is NULL or a function with
/// the documented signature; `bytes_written` and `err` are NULL or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn abws_documents_download(
    client: *const abws_client,
    params_json: *const c_char,
    write: abws_write_callback,
    userdata: *mut c_void,
    bytes_written: *mut u64,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run_download(
            client,
            params_json,
            write,
            userdata,
            bytes_written,
            err,
            |c, p: GetReportDocumentParams, w| {
                Ok(c.documents().download_to(&p.report_document_id, w)?)
            },
        )
    }
}

/// create → wait → download in one call: creates a GET_AB_INVOICE_PDF report, polls it
/// until it ends, and streams the PDF to `write`: each chunk is handed over as it is
/// downloaded and unpacked (the PDF is never held whole in memory), and a non-zero return
/// of `write` stops the download at once (`ABWS_STATUS_CALLBACK_ABORTED`). As with
/// `abws_documents_download`, a failure after the first bytes were delivered (the network,
/// a damaged archive found further on) is returned, not retried: the bytes delivered so
/// far are not a complete PDF, discard them.
///
/// Params: those of `abws_documents_create_report` (`report_type`, `marketplace_ids`,
/// `report_options` {`order_id`, `order_line_item_id`, `shipment_id`, `invoice_id`,
/// `document_type`}) plus `poll_interval` (seconds, default 15), `timeout` (seconds the
/// wait for the report may take, default 1800: 30 minutes) and `no_timeout` (true: no
/// bound). A report that ends CANCELLED or FATAL gives `ABWS_STATUS_REPORT_FAILED`. To
/// cancel it from another thread, use `abws_documents_fetch_pdf_cancellable`.
///
/// Ownership, NULL behaviour, callback and thread rules: as `abws_documents_download`.
///
/// # Safety
/// As `abws_documents_download`.
#[no_mangle]
pub unsafe extern "C" fn abws_documents_fetch_pdf(
    client: *const abws_client,
    params_json: *const c_char,
    write: abws_write_callback,
    userdata: *mut c_void,
    bytes_written: *mut u64,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run_download(
            client,
            params_json,
            write,
            userdata,
            bytes_written,
            err,
            |c, p: FetchPdfArgs, w| fetch_pdf(c, p, w, None),
        )
    }
}

fn fetch_pdf(
    c: &abws_core::blocking::Client,
    p: FetchPdfArgs,
    w: &mut CallbackWriter,
    cancel: Option<std::sync::Arc<crate::cancel::CancelData>>,
) -> FfiResult<u64> {
    let (poll, timeout) = p.durations()?;
    let report = p.report();
    // Streamed: each chunk reaches `write` as it is unpacked (as `abws_documents_download`).
    crate::cancel::run(c, cancel, |ac| async move {
        ac.documents().fetch_pdf_to(&report, poll, timeout, w).await
    })
}

/// `abws_documents_fetch_pdf` that another thread can end at once with
/// `abws_cancel_signal(cancel)` (the report wait or the download stops where it stands;
/// nothing is passed to `write` after that): the call then returns
/// `ABWS_STATUS_CANCELLED`. `cancel` may be NULL (not cancellable). The deadline of the
/// wait is the `timeout` key of the params, as there (default 30 minutes).
///
/// Ownership, NULL behaviour, callback and thread rules: as `abws_documents_fetch_pdf`;
/// a freed or foreign `cancel`: `ABWS_STATUS_INVALID_HANDLE`. `cancel` stays the
/// caller's.
///
/// # Safety
/// As `abws_documents_fetch_pdf`.
#[no_mangle]
pub unsafe extern "C" fn abws_documents_fetch_pdf_cancellable(
    client: *const abws_client,
    params_json: *const c_char,
    cancel: *const crate::cancel::abws_cancel,
    write: abws_write_callback,
    userdata: *mut c_void,
    bytes_written: *mut u64,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run_download(
            client,
            params_json,
            write,
            userdata,
            bytes_written,
            err,
            |c, p: FetchPdfArgs, w| fetch_pdf(c, p, w, crate::cancel::lookup(cancel)?),
        )
    }
}

/// The arguments of `abws_documents_download_to_file` (no `Debug`: it holds the key).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ToFileArgs {
    report_document_id: String,
    path: String,
    #[serde(default)]
    key: Option<String>,
    #[serde(default)]
    allow_plaintext: bool,
}

/// Downloads a report document into the file `path`, ENCRYPTED by default: AES-256-GCM
/// in the "abws sealed file" format (documented in docs/c-api.md; `python -m abws decrypt`
/// or any AES-GCM library opens it) under the caller's key. The PDF is written in clear
/// only with the explicit opt-in `"allow_plaintext": true` (reports hold sensitive data;
/// the specification asks that they not be written unencrypted to disk).
///
/// Params: `{"report_document_id": "...", "path": "...", "key": "<64 hex digits>",
/// "allow_plaintext": false}`. `key` absent: the environment variable
/// `ABWS_DOCUMENT_KEY` (64 hex digits). Neither a key nor the opt-in, or both:
/// `ABWS_STATUS_VALIDATION` naming `key`, before any request. The key is never logged
/// and no error repeats it.
///
/// The file is written safely: a temporary file with a random name in the destination's
/// directory, created exclusively (O_EXCL), without following a symbolic link and
/// owner-only (0600), synced and renamed into place once complete; a failed download
/// leaves no file. A `path` that is a symbolic link or a directory is refused
/// (`ABWS_STATUS_DOCUMENT`).
///
/// Ownership: on success `*bytes_written` (when not NULL) receives the PDF's size; on
/// failure it is not written and `*err` (when not NULL) receives an error the caller frees
/// with `abws_error_free`. NULL `client` or `params_json`: `ABWS_STATUS_NULL_ARGUMENT`.
/// Thread safety: any thread, concurrently on one client.
///
/// # Safety
/// `params_json` is NULL or a NUL-terminated string; `bytes_written` and `err` are NULL
/// or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn abws_documents_download_to_file(
    client: *const abws_client,
    params_json: *const c_char,
    bytes_written: *mut u64,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run_to_file(client, params_json, bytes_written, err, |c, text| {
            let mut p: ToFileArgs = abws_core::params::read(text)?;
            let given = p.key.take().map(zeroize::Zeroizing::new);
            let key = match (&given, p.allow_plaintext) {
                (Some(_), true) => {
                    return Err(Failure::about(
                        abws_status::Validation,
                        "key",
                        "key and allow_plaintext cannot both be given: the file is either encrypted or plain",
                    ))
                }
                (given, false) => Some(sealing_key(
                    given.as_deref().map(String::as_str),
                    ", or \"allow_plaintext\": true to write the PDF in clear",
                )?),
                (None, true) => None,
            };
            let path = std::path::PathBuf::from(&p.path);
            let docs = c.documents();
            Ok(match &key {
                Some(key) => docs.download_to_path(&p.report_document_id, &path, key, None)?,
                None => docs.download_to_path_plaintext(&p.report_document_id, &path, None)?,
            })
        })
    }
}

/// The shared body of the functions that write a document into a file: the pointer and
/// handle checks, the params' text to `body`, and its size into `*bytes_written` (when not
/// NULL) on success only.
///
/// # Safety
/// As the exported functions: pointers NULL or valid.
unsafe fn run_to_file(
    client: *const abws_client,
    params_json: *const c_char,
    bytes_written: *mut u64,
    err: *mut *mut abws_error,
    body: impl FnOnce(&abws_core::blocking::Client, &str) -> FfiResult<u64>,
) -> abws_status {
    boundary(err, || {
        not_null!(client, params_json);
        let c = client::lookup(client)?;
        // SAFETY: per the exported function's contract.
        let text = unsafe { crate::params::text(params_json) }?;
        let n = body(&c.client, text)?;
        if !bytes_written.is_null() {
            // SAFETY: non-NULL and writable per the exported function's contract.
            unsafe { write_out(bytes_written, n) };
        }
        Ok(())
    })
}

/// The key of a sealed file: the params' `key` (64 hex digits) or `ABWS_DOCUMENT_KEY`;
/// neither is a validation error naming `key` (`otherwise`: the caller's other way out).
fn sealing_key(given: Option<&str>, otherwise: &str) -> FfiResult<abws_core::sealed::DocumentKey> {
    if let Some(text) = given {
        return Ok(abws_core::sealed::DocumentKey::from_hex(text)?);
    }
    abws_core::sealed::DocumentKey::from_env()?.ok_or_else(|| {
        Failure::from(abws_core::Error::missing(
            "key",
            format!(
                "a document written to a file is encrypted: give \"key\" (64 hex digits) or \
                 set {}{otherwise}",
                abws_core::sealed::KEY_ENV
            ),
        ))
    })
}

/// create → wait → download into the file `path`, ENCRYPTED: `abws_documents_fetch_pdf`
/// and `abws_documents_download_to_file` in one call, so that filing a PDF at rest takes
/// one call. The file is in the "abws sealed file" format (docs/c-api.md; `python -m abws
/// decrypt` or any AES-GCM library opens it) under the caller's key; the plain PDF never
/// reaches the disk: it is encrypted as it arrives into a temporary file beside `path`
/// (created exclusively, owner-only, no symbolic link followed), synced and renamed into
/// place once complete. A failure at any step leaves no file; a directory that cannot be
/// written fails before the report is asked for.
///
/// Params: those of `abws_documents_fetch_pdf` plus `"path"` (required) and `"key"` (64
/// hex digits; absent: the environment variable `ABWS_DOCUMENT_KEY`). No key at all:
/// `ABWS_STATUS_VALIDATION` naming `key`, before any request. The key is never logged and
/// no error repeats it. A `path` that is a symbolic link or a directory is refused
/// (`ABWS_STATUS_DOCUMENT`).
///
/// Ownership: on success `*bytes_written` (when not NULL) receives the PDF's size; on
/// failure it is not written and `*err` (when not NULL) receives an error the caller frees
/// with `abws_error_free`. NULL `client` or `params_json`: `ABWS_STATUS_NULL_ARGUMENT`.
/// Thread safety: any thread, concurrently on one client.
///
/// # Safety
/// `params_json` is NULL or a NUL-terminated string; `bytes_written` and `err` are NULL
/// or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn abws_documents_fetch_pdf_to_file(
    client: *const abws_client,
    params_json: *const c_char,
    bytes_written: *mut u64,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run_to_file(client, params_json, bytes_written, err, |c, text| {
            // `path` and `key` are this function's; the rest is `abws_documents_fetch_pdf`'s.
            let mut all: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text)
                .map_err(|e| Failure::new(abws_status::InvalidJson, e.to_string()))?;
            let path = match all.remove("path") {
                Some(serde_json::Value::String(p)) => std::path::PathBuf::from(p),
                _ => {
                    return Err(abws_core::Error::validation(
                        "path",
                        "is required: the name of the file to write (a string)",
                    )
                    .into())
                }
            };
            let given = match all.remove("key") {
                Some(serde_json::Value::String(k)) => Some(zeroize::Zeroizing::new(k)),
                None | Some(serde_json::Value::Null) => None,
                Some(_) => {
                    return Err(abws_core::Error::validation(
                        "key",
                        "must be a string of 64 hex digits",
                    )
                    .into())
                }
            };
            let key = sealing_key(given.as_deref().map(String::as_str), "")?;
            let p: FetchPdfArgs =
                abws_core::params::read(&serde_json::Value::Object(all).to_string())?;
            let (poll, timeout) = p.durations()?;
            Ok(c.documents()
                .fetch_pdf_to_path(&p.report(), poll, timeout, &path, &key, None)?)
        })
    }
}
