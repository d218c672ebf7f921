//! `abws_cancel`: a handle another thread signals to end the long waits of the C API
//! (`abws_documents_wait_for_report_cancellable`, `abws_documents_fetch_pdf_cancellable`)
//! at once, with `ABWS_STATUS_CANCELLED`. The deadline of a wait is its `timeout` key
//! (seconds; 30 minutes when absent, none with `"no_timeout": true`).

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::abws_error;
use crate::ffi::{boundary, not_null, write_out, Failure, FfiResult};
use crate::handles::Registry;
use crate::status::abws_status;

/// A cancellation handle: signalled once (`abws_cancel_signal`), it ends every call
/// running with it, and every later one, with `ABWS_STATUS_CANCELLED`.
///
/// Created by `abws_cancel_new`, freed by `abws_cancel_free`. Thread safety: signal it
/// from any thread, while calls using it run on others.
pub struct abws_cancel {
    _opaque: [u8; 0],
}

pub(crate) struct CancelData {
    signalled: AtomicBool,
    notify: tokio::sync::Notify,
}

impl CancelData {
    fn signal(&self) {
        self.signalled.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    /// Resolves once the handle is signalled (at once if it already was).
    async fn signalled(&self) {
        let notified = self.notify.notified();
        let mut notified = std::pin::pin!(notified);
        notified.as_mut().enable();
        if self.signalled.load(Ordering::SeqCst) {
            return;
        }
        notified.await;
    }
}

static CANCELS: Registry<CancelData> = Registry::new();

/// How many handles are live (for `abws_live_cancels`).
pub(crate) fn live() -> usize {
    CANCELS.len()
}

/// The data behind a handle; NULL is "not cancellable" (`None`).
pub(crate) fn lookup(cancel: *const abws_cancel) -> FfiResult<Option<Arc<CancelData>>> {
    if cancel.is_null() {
        return Ok(None);
    }
    CANCELS
        .get(cancel)
        .map(Some)
        .ok_or_else(|| Failure::invalid_handle("cancel", "abws_cancel"))
}

/// Runs `fut` on the client's runtime until it ends or `cancel` is signalled (the call is
/// then dropped where it stands: a wait stops polling, a download stops reading).
pub(crate) fn run<T, F, Fut>(
    client: &abws_core::blocking::Client,
    cancel: Option<Arc<CancelData>>,
    f: F,
) -> FfiResult<T>
where
    F: FnOnce(abws_core::Client) -> Fut,
    Fut: Future<Output = abws_core::Result<T>>,
{
    let outcome = client.run(|c| async move {
        match cancel {
            None => f(c).await.map(Some),
            Some(token) => {
                // The handle first: a call given a signalled handle starts nothing.
                tokio::select! {
                    biased;
                    () = token.signalled() => Ok(None),
                    r = f(c) => r.map(Some),
                }
            }
        }
    })?;
    outcome.ok_or_else(|| {
        Failure::new(
            abws_status::Cancelled,
            "the call was cancelled through its abws_cancel handle",
        )
    })
}

/// Creates a cancellation handle (not signalled).
///
/// Ownership: on success `*cancel` receives a new handle the caller frees with
/// `abws_cancel_free` (after the calls using it have returned, or at any time: a call
/// holds its own reference); on failure it is not written. NULL `cancel`:
/// `ABWS_STATUS_NULL_ARGUMENT`. Thread safety: any thread.
///
/// # Safety
/// `cancel` and `err` are NULL or valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn abws_cancel_new(
    cancel: *mut *mut abws_cancel,
    err: *mut *mut abws_error,
) -> abws_status {
    boundary(err, || {
        not_null!(cancel);
        let handle = CANCELS.insert(CancelData {
            signalled: AtomicBool::new(false),
            notify: tokio::sync::Notify::new(),
        });
        // SAFETY: non-NULL and writable per this function's contract.
        unsafe { write_out(cancel, handle) };
        Ok(())
    })
}

/// Signals a cancellation handle: every call running with it returns
/// `ABWS_STATUS_CANCELLED` promptly (within milliseconds), and so does every later call
/// given it. Signalling twice is harmless.
///
/// Returns `ABWS_STATUS_OK`; NULL: `ABWS_STATUS_NULL_ARGUMENT`; a freed or foreign
/// handle: `ABWS_STATUS_INVALID_HANDLE`. Thread safety: any thread, typically another
/// than the one blocked in the call (a UI's Cancel button, a shutdown hook).
#[no_mangle]
pub extern "C" fn abws_cancel_signal(cancel: *const abws_cancel) -> abws_status {
    crate::ffi::boundary_value(abws_status::Panic, || {
        if cancel.is_null() {
            return abws_status::NullArgument;
        }
        match CANCELS.get(cancel) {
            Some(c) => {
                c.signal();
                abws_status::Ok
            }
            None => abws_status::InvalidHandle,
        }
    })
}

/// Frees a cancellation handle. `cancel` may be NULL (nothing happens, `ABWS_STATUS_OK`).
///
/// Returns `ABWS_STATUS_OK`, or `ABWS_STATUS_INVALID_HANDLE` (and frees nothing) when
/// `cancel` is not a live handle. Calls still running with it keep their own reference
/// but can no longer be cancelled: signal first, then free. Thread safety: any thread.
#[no_mangle]
pub extern "C" fn abws_cancel_free(cancel: *mut abws_cancel) -> abws_status {
    CANCELS.free(cancel)
}
