//! The month-end close (`abws_close_month`, `abws_close_month_cancellable`): the core's
//! `close_month_with_progress` with its parameters read from JSON (`CloseParams`, by their
//! snake_case names), its progress passed to a C callback, and its result written as the
//! JSON `CloseResult` serializes to (amounts as decimal text). Cancelled as the waits are
//! (`cancel.rs`): the job state is written at every step, so the same close run again
//! finishes only what is missing.

use std::ffi::{c_char, c_void, CString};
use std::sync::Arc;

use abws_core::close::{CloseParams, CloseProgress};

use crate::abws_error;
use crate::cancel::{abws_cancel, CancelData};
use crate::client::abws_client;
use crate::ffi::{Failure, FfiResult};
use crate::ops::json_call;
use crate::status::abws_status;

/// The close's progress callback: `phase` is the phase's name (`"plan"`,
/// `"invoice_data"`, `"transactions"`, `"pdfs"`, `"outputs"`; valid during the callback
/// only), `done` of `total` items of it are done. Called on the thread that called `abws_close_month`, during the call; it
/// must not call a function of the library that takes a client (that is refused with
/// `ABWS_STATUS_RUNTIME`).
pub type abws_close_progress_callback = Option<
    unsafe extern "C" fn(user_data: *mut c_void, phase: *const c_char, done: u64, total: u64),
>;

/// The caller's callback and its data, as the core's progress function.
struct Progress {
    callback: unsafe extern "C" fn(*mut c_void, *const c_char, u64, u64),
    user_data: *mut c_void,
}

// SAFETY: the callback runs only on the calling thread: the blocking facade runs the
// close with `block_on` on the thread that called the exported function, and the close
// joins its work there (nothing of it is spawned). The raw pointer is only passed back.
unsafe impl Send for Progress {}
unsafe impl Sync for Progress {}

impl Progress {
    fn report(&self, p: &CloseProgress) {
        // The names are plain ASCII without NUL.
        let phase = CString::new(p.phase.name()).unwrap_or_default();
        // SAFETY: the callback is the caller's, with the documented signature; `phase` is
        // valid during the call.
        unsafe { (self.callback)(self.user_data, phase.as_ptr(), p.done, p.total) };
    }
}

/// The close of `params` on `c`, as JSON.
fn close_month(
    c: &abws_core::blocking::Client,
    params: CloseParams,
    cancel: Option<Arc<CancelData>>,
    progress: Option<Progress>,
) -> FfiResult<String> {
    let report = move |p: &CloseProgress| {
        if let Some(progress) = &progress {
            progress.report(p);
        }
    };
    let result = crate::cancel::run(c, cancel, |ac| async move {
        ac.close_month_with_progress(&params, &report).await
    })?;
    serde_json::to_string(&result)
        .map_err(|e| Failure::from(abws_core::Error::internal(e.to_string())))
}

/// The month-end close: the plan and its estimate, each invoice's data, the transaction
/// feed read across its lag, the PDFs sealed into one archive, the CSV ledger and
/// exceptions, in the directory `out` (see docs/close.md and docs/c-api.md). Resumable:
/// the same call after a crash or a cancel finishes only what is missing.
///
/// Params (JSON, the core's `CloseParams`): `month` (`"YYYY-MM"`, ended) and `out`
/// (required), `region`, `timezone` (`"UTC"` or an IANA name), `account`, `no_pdfs`, `pdfs_for` (array of patterns),
/// `legal_entity`, `plan_only`, `fresh`, `poll_interval`, `time_scale`, `archive_key`
/// (64 hex digits) or `archive_password` (the key derived with scrypt; the archive opens
/// with the password alone) — default `ABWS_ARCHIVE_KEY` or `ABWS_ARCHIVE_PASSWORD`, one
/// of them. A re-run must give the same key or password. Unknown keys are refused.
///
/// Result: the `CloseResult` as JSON (snake_case keys; amounts as decimal text:
/// `"net_total":"-12.50"`; `ledger`, `exceptions`, `archive_path`, ...).
///
/// `progress_cb` (NULL: none) is called at every step with `user_data`. To cancel the
/// close from another thread, use `abws_close_month_cancellable`.
///
/// Ownership: on success `*result_json` receives a new string the caller frees with
/// `abws_string_free`; on failure it is not written and `*err` (when `err` is not NULL)
/// receives an error the caller frees with `abws_error_free`. `user_data` stays the
/// caller's. NULL `client`, `params_json` or `result_json`: `ABWS_STATUS_NULL_ARGUMENT`;
/// a freed client: `ABWS_STATUS_INVALID_HANDLE`; bad params: `ABWS_STATUS_INVALID_JSON`
/// or `ABWS_STATUS_VALIDATION` naming the key, before any request.
/// Thread safety: any thread, concurrently on one client; blocks until the close ends;
/// `progress_cb` runs on the calling thread only.
///
/// # Safety
/// `params_json` is NULL or a NUL-terminated string; `progress_cb` is NULL or a function
/// with the documented signature; `result_json` and `err` are NULL or valid for one
/// pointer write.
#[no_mangle]
pub unsafe extern "C" fn abws_close_month(
    client: *const abws_client,
    params_json: *const c_char,
    progress_cb: abws_close_progress_callback,
    user_data: *mut c_void,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract; NULL is "not cancellable".
    unsafe {
        abws_close_month_cancellable(
            client,
            params_json,
            std::ptr::null(),
            progress_cb,
            user_data,
            result_json,
            err,
        )
    }
}

/// `abws_close_month` that another thread can end at once with
/// `abws_cancel_signal(cancel)`: the call then returns `ABWS_STATUS_CANCELLED` (the job
/// state in `out` keeps what was done). `cancel` may be NULL (not cancellable).
///
/// Ownership, NULL behaviour, callback and thread rules: as `abws_close_month`; a freed
/// or foreign `cancel`: `ABWS_STATUS_INVALID_HANDLE`. `cancel` stays the caller's.
///
/// # Safety
/// As `abws_close_month`.
#[no_mangle]
pub unsafe extern "C" fn abws_close_month_cancellable(
    client: *const abws_client,
    params_json: *const c_char,
    cancel: *const abws_cancel,
    progress_cb: abws_close_progress_callback,
    user_data: *mut c_void,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    let progress = progress_cb.map(|callback| Progress {
        callback,
        user_data,
    });
    // SAFETY: forwarded contract.
    unsafe {
        json_call(client, params_json, result_json, err, |c, params| {
            close_month(c, params, crate::cancel::lookup(cancel)?, progress)
        })
    }
}
