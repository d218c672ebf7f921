//! `abws_pager`: the pages of a paged operation, one JSON page per call.

use std::ffi::c_char;
use std::sync::Mutex;

use abws_core::blocking;
use abws_core::operation::DynPager;

use crate::abws_error;
use crate::ffi::{boundary, not_null, write_out, write_string, Failure, FfiResult};
use crate::handles::Registry;
use crate::status::abws_status;

/// The pages of one listing (invoices, transactions, carts, search results, ...).
///
/// Created by an `abws_<group>_iter_<...>` function, read with `abws_pager_next`, freed
/// with `abws_pager_free`. It holds its own reference to the client's connection and
/// credentials, so it stays usable after `abws_client_free`; a refresh it makes then still
/// calls the client's refresh-token callback (see `abws_refresh_token_callback`).
/// Thread safety: a pager may be passed between threads; calls on one pager are
/// serialized (a second thread waits), and pages come in order. Use one pager per
/// listing and per thread for parallel listings.
pub struct abws_pager {
    _opaque: [u8; 0],
}

/// The core's listing of any page type, read page by page on the process runtime.
pub(crate) struct JsonPages {
    pages: Box<dyn DynPager>,
    done: bool,
}

impl JsonPages {
    /// The next page as wire JSON, or `None` after the last one.
    fn next_json(&mut self) -> abws_core::Result<Option<String>> {
        if self.done {
            return Ok(None);
        }
        let next = blocking::block_on(self.pages.next_page());
        if !matches!(next, Ok(Some(_))) {
            self.done = true;
        }
        next?.map(|page| page.to_json()).transpose()
    }
}

struct PagerState {
    pages: JsonPages,
    /// The error that ended the listing: every later call returns it again, so a
    /// failure is never mistaken for the end of the listing.
    failed: Option<abws_core::Error>,
}

pub(crate) struct PagerData {
    state: Mutex<PagerState>,
}

/// How many handles are live (for `abws_live_objects`).
pub(crate) fn live() -> usize {
    PAGERS.len()
}

static PAGERS: Registry<PagerData> = Registry::new();

/// Registers a pager and returns its handle.
pub(crate) fn register(pages: Box<dyn DynPager>) -> *mut abws_pager {
    PAGERS.insert(PagerData {
        state: Mutex::new(PagerState {
            pages: JsonPages { pages, done: false },
            failed: None,
        }),
    })
}

/// Writes `text` as a new library string to `*out`, or NULL for `None`.
///
/// # Safety
/// `out` is non-NULL and valid for one pointer write.
unsafe fn write_text_or_null(out: *mut *mut c_char, text: Option<String>) {
    match text {
        // SAFETY: per the caller's contract.
        Some(t) => unsafe { write_string(out, t) },
        // SAFETY: as above.
        None => unsafe { write_out(out, std::ptr::null_mut()) },
    }
}

/// The live pager of a handle (`ABWS_STATUS_INVALID_HANDLE` for a freed or foreign one).
fn lookup(pager: *mut abws_pager) -> Result<std::sync::Arc<PagerData>, Failure> {
    PAGERS
        .get(pager)
        .ok_or_else(|| Failure::invalid_handle("pager", "abws_pager"))
}

/// `f` on the state of a live pager, under its lock (after the check that no callback of
/// the library runs on this thread: inside one run by this very pager, the lock is held).
fn with_state<T>(
    pager: *mut abws_pager,
    f: impl FnOnce(&mut PagerState) -> FfiResult<T>,
) -> FfiResult<T> {
    crate::ffi::not_inside_callback()?;
    let data = lookup(pager)?;
    let mut state = data.state.lock().unwrap_or_else(|p| p.into_inner());
    f(&mut state)
}

/// Fetches the next page.
///
/// On `ABWS_STATUS_OK`, `*page_json` receives the next page in wire form (camelCase; the
/// same JSON the single-page operation returns), or NULL when the listing is complete.
/// Page tokens are replayed with identical parameters; an expired one gives
/// `ABWS_STATUS_PAGE_TOKEN_EXPIRED` (restart the listing), never duplicates or gaps.
/// After a failure the pager stays failed: every later call returns the same status
/// and error again.
///
/// Ownership: a non-NULL `*page_json` is a new string the caller frees with
/// `abws_string_free`. On failure `*page_json` is not written and `*err` (when `err` is
/// not NULL) receives an error the caller frees with `abws_error_free`.
/// NULL `pager` or `page_json`: `ABWS_STATUS_NULL_ARGUMENT`; a freed or foreign handle:
/// `ABWS_STATUS_INVALID_HANDLE`. Thread safety: see `abws_pager`. Blocks while the page
/// is fetched.
///
/// # Safety
/// `page_json` and `err` are NULL or valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn abws_pager_next(
    pager: *mut abws_pager,
    page_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    boundary(err, || {
        not_null!(pager, page_json);
        let next = with_state(pager, |state| {
            if let Some(e) = &state.failed {
                return Err(Failure::Core(e.clone()));
            }
            state.pages.next_json().map_err(|e| {
                state.failed = Some(e.clone());
                Failure::Core(e)
            })
        })?;
        // SAFETY: `page_json` is non-NULL and writable per this function's contract.
        unsafe { write_text_or_null(page_json, next) };
        Ok(())
    })
}

/// The cursor of the next page: the token it will be requested with (a page number, as
/// text, for page-numbered listings), to save and give to `abws_pager_start_at` of a new
/// pager with the same params (in this process or another, within the token's 15
/// minutes): it gives the items after the last page fetched.
///
/// On `ABWS_STATUS_OK`, `*token` receives a new string the caller frees with
/// `abws_string_free`, or NULL when there is no next page (after the last one; before
/// the first, unless the pager was started at a cursor). NULL `pager` or `token`:
/// `ABWS_STATUS_NULL_ARGUMENT`; a freed or foreign handle: `ABWS_STATUS_INVALID_HANDLE`.
/// Thread safety: see `abws_pager` (waits while another thread fetches a page).
///
/// # Safety
/// `token` and `err` are NULL or valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn abws_pager_next_token(
    pager: *mut abws_pager,
    token: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    boundary(err, || {
        not_null!(pager, token);
        let next = with_state(pager, |state| Ok(state.pages.pages.next_token()))?;
        // SAFETY: `token` is non-NULL and writable per this function's contract.
        unsafe { write_text_or_null(token, next) };
        Ok(())
    })
}

/// Starts a new pager at `token`, the `abws_pager_next_token` of an earlier pager with
/// the same params: its first `abws_pager_next` gives that page. Call it before the first
/// `abws_pager_next`.
///
/// Returns `ABWS_STATUS_OK`; `ABWS_STATUS_VALIDATION` naming `start_token`, before any
/// request, when the pager has already fetched a page, was given its own page token param,
/// spans several date windows (an invoice range of more than 366 days), or the token is
/// empty (or not a number for a page-numbered listing). NULL `pager` or `token`:
/// `ABWS_STATUS_NULL_ARGUMENT`; a freed or foreign handle: `ABWS_STATUS_INVALID_HANDLE`;
/// `token` not UTF-8: `ABWS_STATUS_INVALID_UTF8`. Thread safety: see `abws_pager`.
///
/// # Safety
/// `token` is NULL or a NUL-terminated string; `err` is NULL or valid for one pointer
/// write.
#[no_mangle]
pub unsafe extern "C" fn abws_pager_start_at(
    pager: *mut abws_pager,
    token: *const c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    boundary(err, || {
        not_null!(pager, token);
        crate::ffi::not_inside_callback()?;
        // SAFETY: per this function's contract.
        let token = unsafe { crate::ffi::input_str(token, "token") }?;
        let data = lookup(pager)?;
        let mut state = data.state.lock().unwrap_or_else(|p| p.into_inner());
        state.pages.pages.start_at(token)?;
        Ok(())
    })
}

/// Frees a pager. `pager` may be NULL (nothing happens, `ABWS_STATUS_OK`).
///
/// Returns `ABWS_STATUS_OK`, or `ABWS_STATUS_INVALID_HANDLE` (and frees nothing) when
/// `pager` is not a live pager. A call running on another thread finishes first.
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn abws_pager_free(pager: *mut abws_pager) -> abws_status {
    PAGERS.free(pager)
}
