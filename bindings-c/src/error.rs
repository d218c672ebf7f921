//! `abws_error`: the details of a failed call, read through accessors.

use std::ffi::{c_char, CString};
use std::sync::Arc;

use crate::ffi::{boundary, boundary_value, not_null, write_string, Failure};
use crate::handles::Registry;
use crate::status::abws_status;

/// The details of a failed call: status, kind, message, HTTP status, service error
/// code, details, request id, the parameter a validation error is about, and the
/// externalId of an order whose outcome is unknown.
///
/// Created by the library when a call fails and the caller passed a non-NULL
/// `abws_error **err`; owned by the caller, who frees it with `abws_error_free`.
/// Immutable: any thread may read it, but it must not be freed while another thread
/// still reads it or uses a string borrowed from it.
pub struct abws_error {
    _opaque: [u8; 0],
}

/// What an `abws_error` handle stands for. Every text is prepared once, NUL-terminated,
/// so accessors hand out borrowed pointers that live as long as the error.
pub(crate) struct ErrorData {
    status: abws_status,
    kind: CString,
    message: CString,
    http_status: u16,
    code: CString,
    details: CString,
    request_id: CString,
    parameter: CString,
    external_id: CString,
    operation: Option<&'static str>,
    attempts: u32,
    report: Option<(String, String)>,
    document_code: Option<String>,
    items_yielded: Option<u64>,
}

fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

impl ErrorData {
    pub(crate) fn from_failure(f: Failure) -> ErrorData {
        let status = f.status();
        match f {
            Failure::Core(e) => ErrorData {
                status,
                kind: cstring(e.kind().name()),
                message: cstring(&e.to_string()),
                http_status: e.status().unwrap_or(0),
                code: cstring(e.code().unwrap_or("")),
                details: cstring(e.details().unwrap_or("")),
                request_id: cstring(e.request_id().unwrap_or("")),
                parameter: cstring(e.parameter().unwrap_or("")),
                external_id: cstring(e.external_id().unwrap_or("")),
                operation: e.operation(),
                attempts: e.attempts(),
                report: e.report().map(|(a, b)| (a.to_string(), b.to_string())),
                document_code: e.document_code().map(str::to_string),
                items_yielded: e.items_yielded(),
            },
            Failure::Ffi {
                status,
                message,
                parameter,
            } => ErrorData {
                status,
                kind: cstring(status.name()),
                message: cstring(&message),
                http_status: 0,
                code: CString::default(),
                details: CString::default(),
                request_id: CString::default(),
                parameter: cstring(parameter.as_deref().unwrap_or("")),
                external_id: CString::default(),
                operation: None,
                attempts: 0,
                report: None,
                document_code: None,
                items_yielded: None,
            },
        }
    }

    #[cfg(test)]
    pub(crate) fn message_text(&self) -> String {
        self.message.to_string_lossy().into_owned()
    }

    fn to_json(&self) -> String {
        let text = |c: &CString| c.to_string_lossy().into_owned();
        let opt = |c: &CString| {
            let s = text(c);
            if s.is_empty() {
                serde_json::Value::Null
            } else {
                serde_json::Value::String(s)
            }
        };
        let mut v = serde_json::json!({
            "status": self.status as u32,
            "kind": text(&self.kind),
            "message": text(&self.message),
            "http_status": if self.http_status == 0 { serde_json::Value::Null } else { self.http_status.into() },
            "code": opt(&self.code),
            "details": opt(&self.details),
            "request_id": opt(&self.request_id),
            "parameter": opt(&self.parameter),
            "external_id": opt(&self.external_id),
            "operation": self.operation,
            "attempts": self.attempts,
        });
        if let Some((id, st)) = &self.report {
            v["report_id"] = id.clone().into();
            v["report_status"] = st.clone().into();
        }
        if let Some(c) = &self.document_code {
            v["document_code"] = c.clone().into();
        }
        if let Some(n) = self.items_yielded {
            v["items_yielded"] = n.into();
        }
        v.to_string()
    }
}

/// How many handles are live (for `abws_live_objects`).
pub(crate) fn live() -> usize {
    ERRORS.len()
}

static ERRORS: Registry<ErrorData> = Registry::new();

pub(crate) fn register(data: ErrorData) -> *mut abws_error {
    ERRORS.insert(data)
}

pub(crate) fn lookup(err: *const abws_error) -> Option<Arc<ErrorData>> {
    if err.is_null() {
        return None;
    }
    ERRORS.get(err)
}

/// Borrowed text of a live error; NULL for a NULL or dead handle.
fn text_of(
    err: *const abws_error,
    pick: impl FnOnce(&ErrorData) -> *const c_char,
) -> *const c_char {
    boundary_value(std::ptr::null(), || match lookup(err) {
        // The Arc clone is dropped on return, but the registry keeps the object (and
        // so the text) alive until `abws_error_free`.
        Some(d) => pick(&d),
        None => std::ptr::null(),
    })
}

/// Frees an error. `err` may be NULL (nothing happens, `ABWS_STATUS_OK`).
///
/// Returns `ABWS_STATUS_OK`, or `ABWS_STATUS_INVALID_HANDLE` (and frees nothing) when
/// `err` is not a live error: freed already, or not an error handle.
/// Every string borrowed from the error becomes invalid.
/// Thread safety: any thread, but not while another thread still reads the error.
#[no_mangle]
pub extern "C" fn abws_error_free(err: *mut abws_error) -> abws_status {
    ERRORS.free(err)
}

/// The status of the failed call (never `ABWS_STATUS_OK`).
///
/// NULL `err` gives `ABWS_STATUS_NULL_ARGUMENT`; a freed or foreign handle
/// `ABWS_STATUS_INVALID_HANDLE`. Thread safety: any thread.
#[no_mangle]
pub extern "C" fn abws_error_status(err: *const abws_error) -> abws_status {
    boundary_value(abws_status::Panic, || {
        if err.is_null() {
            return abws_status::NullArgument;
        }
        lookup(err).map_or(abws_status::InvalidHandle, |d| d.status)
    })
}

// BEGIN GENERATED: error fields (cargo run -p xtask -- gen; do not edit)
/// The kind as a stable snake_case name: "validation", "api", "page_token_expired",
/// "report_failed", "document", "outcome_unknown", "transport", "timeout", "auth",
/// "runtime", "internal", "cancelled", or for failures of the C interface itself
/// "null_argument", "invalid_utf8", "invalid_json", "invalid_handle", "callback_aborted",
/// "panic". (The same text as `abws_status_name` of the error's status.)
///
/// Ownership: borrowed from `err`, valid until `abws_error_free(err)`; do not free it.
/// NULL when `err` is NULL or not a live error. Thread safety: any thread.
#[no_mangle]
pub extern "C" fn abws_error_kind(err: *const abws_error) -> *const c_char {
    text_of(err, |d| d.kind.as_ptr())
}

/// The human-readable message: what failed and why, naming the parameter for
/// validation errors and including HTTP status, service code, message, details and
/// request id for API errors. Never contains secrets.
///
/// Ownership: borrowed from `err`, valid until `abws_error_free(err)`; do not free it.
/// NULL when `err` is NULL or not a live error. Thread safety: any thread.
#[no_mangle]
pub extern "C" fn abws_error_message(err: *const abws_error) -> *const c_char {
    text_of(err, |d| d.message.as_ptr())
}

/// The HTTP status of an API error (400, 404, 429, 500, ...), or 0 when no error
/// response was received (and for a NULL or dead handle). Thread safety: any thread.
#[no_mangle]
pub extern "C" fn abws_error_http_status(err: *const abws_error) -> u16 {
    boundary_value(0, || lookup(err).map_or(0, |d| d.http_status))
}

/// The service's error code (e.g. "INVALID_REQUEST_PARAMETER", "InvalidInput"), or ""
/// when the service sent none.
///
/// Ownership: borrowed from `err`, valid until `abws_error_free(err)`; do not free it.
/// NULL when `err` is NULL or not a live error. Thread safety: any thread.
#[no_mangle]
pub extern "C" fn abws_error_code(err: *const abws_error) -> *const c_char {
    text_of(err, |d| d.code.as_ptr())
}

/// The service's error details, or "" when it sent none.
///
/// Ownership: borrowed from `err`, valid until `abws_error_free(err)`; do not free it.
/// NULL when `err` is NULL or not a live error. Thread safety: any thread.
#[no_mangle]
pub extern "C" fn abws_error_details(err: *const abws_error) -> *const c_char {
    text_of(err, |d| d.details.as_ptr())
}

/// The service's request id (`x-svc-RequestId`) when a response was received, else "".
///
/// Ownership: borrowed from `err`, valid until `abws_error_free(err)`; do not free it.
/// NULL when `err` is NULL or not a live error. Thread safety: any thread.
#[no_mangle]
pub extern "C" fn abws_error_request_id(err: *const abws_error) -> *const c_char {
    text_of(err, |d| d.request_id.as_ptr())
}

/// The parameter (JSON key, possibly a path such as `line_items[0].external_id`) a
/// validation, NULL, UTF-8 or JSON error is about, else "".
///
/// Ownership: borrowed from `err`, valid until `abws_error_free(err)`; do not free it.
/// NULL when `err` is NULL or not a live error. Thread safety: any thread.
#[no_mangle]
pub extern "C" fn abws_error_parameter(err: *const abws_error) -> *const c_char {
    text_of(err, |d| d.parameter.as_ptr())
}

/// For `ABWS_STATUS_OUTCOME_UNKNOWN`: the externalId of the order (or cart lines) that
/// may or may not have been applied; else "".
///
/// Ownership: borrowed from `err`, valid until `abws_error_free(err)`; do not free it.
/// NULL when `err` is NULL or not a live error. Thread safety: any thread.
#[no_mangle]
pub extern "C" fn abws_error_external_id(err: *const abws_error) -> *const c_char {
    text_of(err, |d| d.external_id.as_ptr())
}

// END GENERATED: error fields

/// Every field of the error as one JSON object: `status`, `kind`, `message`,
/// `http_status`, `code`, `details`, `request_id`, `parameter`, `external_id`,
/// `operation`, `attempts`, and when they apply `report_id`, `report_status`,
/// `document_code`, `items_yielded` (absent values are null).
///
/// Ownership: on success `*json` receives a new string the caller frees with
/// `abws_string_free`; on failure `*json` is not written. NULL `err` or `json`:
/// `ABWS_STATUS_NULL_ARGUMENT`; a dead handle: `ABWS_STATUS_INVALID_HANDLE`.
/// Thread safety: any thread.
///
/// # Safety
/// `json` is NULL or valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn abws_error_to_json(
    err: *const abws_error,
    json: *mut *mut c_char,
) -> abws_status {
    boundary(std::ptr::null_mut(), || {
        not_null!(err, json);
        let d = lookup(err).ok_or_else(|| Failure::invalid_handle("err", "abws_error"))?;
        let text = d.to_json();
        // SAFETY: `json` is non-NULL; the caller passes a writable slot.
        unsafe { write_string(json, text) };
        Ok(())
    })
}
