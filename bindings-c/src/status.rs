//! The status codes every fallible function returns, and the mapping from the core's
//! error kinds. Values are fixed forever: a retired status keeps its number, unused.

use std::ffi::c_char;

use abws_core::ErrorKind;

/// The outcome of a call. Every fallible function returns one; `ABWS_STATUS_OK` (0) is
/// success, anything else a failure whose details are in the optional `abws_error`.
///
/// The numbers are part of the ABI: they never change and are never reused. A newer
/// library may return a number this header does not list; treat it as a failure (and
/// `abws_status_name` still names it, or answers "unknown").
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum abws_status {
    /// Success.
    Ok = 0,
    /// A required pointer argument was NULL; the message names the parameter.
    NullArgument = 1,
    /// A string argument was not valid UTF-8; the message names the parameter and the offset.
    InvalidUtf8 = 2,
    /// A JSON argument was not well-formed JSON; the message gives line and column.
    InvalidJson = 3,
    /// A handle (client, pager, error) or library string was not live: never created by
    /// this library, already freed, or of another type.
    InvalidHandle = 4,
    /// Bad input caught before any request was sent: unknown, missing or wrongly typed
    /// keys, values that break a rule of the specification. The error's `parameter`
    /// names the key.
    Validation = 5,
    /// The service answered with an error status (HTTP status, code, message, details
    /// and request id are in the error).
    Api = 6,
    /// A page token expired (15 minutes); restart the listing.
    PageTokenExpired = 7,
    /// A report ended CANCELLED or FATAL.
    ReportFailed = 8,
    /// A downloaded document could not be unpacked, or held an error document.
    Document = 9,
    /// placeOrder or addItems may or may not have been applied; the error carries the
    /// externalId. It was not resent: check before trying again.
    OutcomeUnknown = 10,
    /// The request or response failed on the network, or the response was unreadable.
    Transport = 11,
    /// An attempt or the operation's deadline ran out.
    Timeout = 12,
    /// Authorization failed: bad client credentials, revoked consent.
    Auth = 13,
    /// The library's runtime could not run the call; or a function that takes a client or
    /// a pager was called from inside a callback of the library (an `abws_write_callback`
    /// or `abws_refresh_token_callback`), which those callbacks must not do.
    Runtime = 14,
    /// The caller's write callback returned non-zero; the download stopped.
    CallbackAborted = 15,
    /// A bug in the library panicked; the panic was caught and the process is fine.
    /// Please report it with the message.
    Panic = 16,
    /// A bug in the library; please report it with the message.
    Internal = 17,
    /// The call was cancelled through its `abws_cancel` handle (`abws_cancel_signal`).
    Cancelled = 18,
}

impl abws_status {
    /// Every status, for tests and for `abws_status_name`. (A function, not an
    /// associated constant, so that the header does not export it.)
    pub fn all() -> [abws_status; 19] {
        [
            abws_status::Ok,
            abws_status::NullArgument,
            abws_status::InvalidUtf8,
            abws_status::InvalidJson,
            abws_status::InvalidHandle,
            abws_status::Validation,
            abws_status::Api,
            abws_status::PageTokenExpired,
            abws_status::ReportFailed,
            abws_status::Document,
            abws_status::OutcomeUnknown,
            abws_status::Transport,
            abws_status::Timeout,
            abws_status::Auth,
            abws_status::Runtime,
            abws_status::CallbackAborted,
            abws_status::Panic,
            abws_status::Internal,
            abws_status::Cancelled,
        ]
    }

    /// The status of a core error kind. Exhaustive over today's kinds; a kind added to
    /// the core later maps to `Internal` until it is given its own status.
    pub fn from_kind(kind: ErrorKind) -> abws_status {
        match kind {
            ErrorKind::Validation => abws_status::Validation,
            ErrorKind::Api => abws_status::Api,
            ErrorKind::PageTokenExpired => abws_status::PageTokenExpired,
            ErrorKind::ReportFailed => abws_status::ReportFailed,
            ErrorKind::Document => abws_status::Document,
            ErrorKind::OutcomeUnknown => abws_status::OutcomeUnknown,
            ErrorKind::Transport => abws_status::Transport,
            ErrorKind::Timeout => abws_status::Timeout,
            ErrorKind::Auth => abws_status::Auth,
            ErrorKind::Runtime => abws_status::Runtime,
            ErrorKind::Internal => abws_status::Internal,
            _ => abws_status::Internal,
        }
    }

    /// The status of a number received from C, if it is one.
    pub fn from_u32(n: u32) -> Option<abws_status> {
        abws_status::all().iter().copied().find(|s| *s as u32 == n)
    }

    /// The stable snake_case name, also the error's `kind` for failures that do not come
    /// from the core (null_argument, invalid_utf8, ...).
    pub fn name(self) -> &'static str {
        match self {
            abws_status::Ok => "ok",
            abws_status::NullArgument => "null_argument",
            abws_status::InvalidUtf8 => "invalid_utf8",
            abws_status::InvalidJson => "invalid_json",
            abws_status::InvalidHandle => "invalid_handle",
            abws_status::Validation => "validation",
            abws_status::Api => "api",
            abws_status::PageTokenExpired => "page_token_expired",
            abws_status::ReportFailed => "report_failed",
            abws_status::Document => "document",
            abws_status::OutcomeUnknown => "outcome_unknown",
            abws_status::Transport => "transport",
            abws_status::Timeout => "timeout",
            abws_status::Auth => "auth",
            abws_status::Runtime => "runtime",
            abws_status::CallbackAborted => "callback_aborted",
            abws_status::Panic => "panic",
            abws_status::Internal => "internal",
            abws_status::Cancelled => "cancelled",
        }
    }

    fn name_c(self) -> &'static std::ffi::CStr {
        match self {
            abws_status::Ok => c"ok",
            abws_status::NullArgument => c"null_argument",
            abws_status::InvalidUtf8 => c"invalid_utf8",
            abws_status::InvalidJson => c"invalid_json",
            abws_status::InvalidHandle => c"invalid_handle",
            abws_status::Validation => c"validation",
            abws_status::Api => c"api",
            abws_status::PageTokenExpired => c"page_token_expired",
            abws_status::ReportFailed => c"report_failed",
            abws_status::Document => c"document",
            abws_status::OutcomeUnknown => c"outcome_unknown",
            abws_status::Transport => c"transport",
            abws_status::Timeout => c"timeout",
            abws_status::Auth => c"auth",
            abws_status::Runtime => c"runtime",
            abws_status::CallbackAborted => c"callback_aborted",
            abws_status::Panic => c"panic",
            abws_status::Internal => c"internal",
            abws_status::Cancelled => c"cancelled",
        }
    }
}

/// The snake_case name of a status number ("ok", "null_argument", "api", ...), or
/// "unknown" for a number this library does not define.
///
/// Takes a plain integer, not `abws_status`, so any value from C is safe to pass.
/// Ownership: the string is static; never free it. Never fails, never returns NULL.
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn abws_status_name(status: u32) -> *const c_char {
    match abws_status::from_u32(status) {
        Some(s) => s.name_c().as_ptr(),
        None => c"unknown".as_ptr(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_status_named_like_it() {
        for kind in ErrorKind::ALL {
            let status = abws_status::from_kind(kind);
            assert_ne!(status, abws_status::Ok);
            assert_eq!(status.name(), kind.name(), "{kind:?}");
        }
    }

    #[test]
    fn numbers_are_fixed_and_names_match() {
        for (i, s) in abws_status::all().iter().enumerate() {
            assert_eq!(*s as u32, i as u32);
            let c = unsafe { std::ffi::CStr::from_ptr(abws_status_name(*s as u32)) };
            assert_eq!(c.to_str().unwrap(), s.name());
            assert_eq!(abws_status::from_u32(*s as u32), Some(*s));
        }
        let c = unsafe { std::ffi::CStr::from_ptr(abws_status_name(9999)) };
        assert_eq!(c.to_str().unwrap(), "unknown");
    }
}
