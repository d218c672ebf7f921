//! The boundary every exported function goes through: panic catching, NULL checks,
//! UTF-8 and JSON conversion of inputs, writing outputs only on success, and turning a
//! failure into a status plus an optional `abws_error`.

use std::any::Any;
use std::ffi::{c_char, CStr};

use abws_core::Error;

use crate::error::{abws_error, ErrorData};
use crate::status::abws_status;

/// Why a call failed: a core error, or a failure of the binding itself.
pub(crate) enum Failure {
    Core(Error),
    Ffi {
        status: abws_status,
        message: String,
        parameter: Option<String>,
    },
}

impl Failure {
    pub(crate) fn new(status: abws_status, message: impl Into<String>) -> Failure {
        Failure::Ffi {
            status,
            message: message.into(),
            parameter: None,
        }
    }

    pub(crate) fn about(
        status: abws_status,
        parameter: &str,
        message: impl Into<String>,
    ) -> Failure {
        Failure::Ffi {
            status,
            message: message.into(),
            parameter: Some(parameter.to_string()),
        }
    }

    /// A function that takes a client or a pager was called from inside a callback of the
    /// library (a download's write callback, the refresh-token callback, the close's progress), while the call
    /// that runs the callback is still running on this thread.
    pub(crate) fn nested_call() -> Failure {
        Failure::new(
            abws_status::Runtime,
            "a library function was called from inside a callback of the library (an \
             abws_write_callback, abws_refresh_token_callback or abws_close_progress_callback): while a callback runs, the \
             call that runs it is still in progress on this thread, and no function that takes \
             a client or a pager may be called; copy what the callback needs and make the call \
             after that call has returned",
        )
    }

    pub(crate) fn null(parameter: &str) -> Failure {
        Failure::about(
            abws_status::NullArgument,
            parameter,
            format!("{parameter} must not be NULL"),
        )
    }

    pub(crate) fn invalid_handle(parameter: &str, what: &str) -> Failure {
        Failure::about(
            abws_status::InvalidHandle,
            parameter,
            format!(
                "{parameter} is not a live {what}: it was already freed, never created by this \
                 library, or is a handle of another type"
            ),
        )
    }

    pub(crate) fn panic(payload: Box<dyn Any + Send>) -> Failure {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string());
        // The payload is dropped here, inside the boundary, whatever it holds.
        drop(payload);
        Failure::new(
            abws_status::Panic,
            format!(
                "internal error: the library panicked ({what}); the call was abandoned and the \
                 process is unaffected; please report this"
            ),
        )
    }

    pub(crate) fn status(&self) -> abws_status {
        match self {
            Failure::Core(e) => abws_status::from_kind(e.kind()),
            Failure::Ffi { status, .. } => *status,
        }
    }

    /// Writes the error object to `*err` when `err` is not NULL; returns the status.
    ///
    /// # Safety
    /// `err` is NULL or valid for one pointer write.
    pub(crate) unsafe fn report(self, err: *mut *mut abws_error) -> abws_status {
        let status = self.status();
        if !err.is_null() {
            let handle = crate::error::register(ErrorData::from_failure(self));
            // SAFETY: the caller passes NULL or a writable `abws_error *` slot.
            unsafe { err.write(handle) };
        }
        status
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Core(e)
    }
}

pub(crate) type FfiResult<T> = Result<T, Failure>;

// A test-only hook that makes every entry point panic inside its boundary (reliability
// plan K5). Compiled only into the crate's own unit tests; the library has no hook.
#[cfg(test)]
thread_local! {
    pub(crate) static INJECT_PANIC: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[cfg(test)]
fn injected_panic() {
    if INJECT_PANIC.with(|c| c.get()) {
        panic!("injected panic (test hook)");
    }
}

#[cfg(not(test))]
#[inline(always)]
fn injected_panic() {}

/// Refuses a function that takes a client or a pager inside a callback of the library (see
/// `Failure::nested_call`).
pub(crate) fn not_inside_callback() -> FfiResult<()> {
    if abws_core::local::inside_library_call() {
        return Err(Failure::nested_call());
    }
    Ok(())
}

/// Runs the body of an exported function: a panic becomes `ABWS_STATUS_PANIC`, an `Err`
/// its status; either way `*err` receives the error object when `err` is not NULL.
/// Outputs are written by the body only once everything else succeeded.
pub(crate) fn boundary(
    err: *mut *mut abws_error,
    body: impl FnOnce() -> FfiResult<()>,
) -> abws_status {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        injected_panic();
        body()
    }));
    let failure = match outcome {
        Ok(Ok(())) => return abws_status::Ok,
        Ok(Err(f)) => f,
        Err(payload) => Failure::panic(payload),
    };
    // Building the error object must not unwind either.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: `err` is the exported function's own `abws_error **` parameter, documented
        // as NULL or writable.
        unsafe { failure.report(err) }
    })) {
        Ok(status) => status,
        Err(payload) => {
            drop(std::panic::catch_unwind(std::panic::AssertUnwindSafe(
                || drop(payload),
            )));
            abws_status::Panic
        }
    }
}

/// The same for functions that report no error object (frees, accessors): a panic
/// gives `fallback`.
pub(crate) fn boundary_value<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        injected_panic();
        body()
    })) {
        Ok(v) => v,
        Err(payload) => {
            drop(std::panic::catch_unwind(std::panic::AssertUnwindSafe(
                || drop(payload),
            )));
            fallback
        }
    }
}

/// Fails with `NULL_ARGUMENT` naming the parameter when a pointer is NULL.
macro_rules! not_null {
    ($($p:ident),+ $(,)?) => {
        $(
            if $p.is_null() {
                return Err($crate::ffi::Failure::null(stringify!($p)));
            }
        )+
    };
}
pub(crate) use not_null;

/// A NUL-terminated UTF-8 input string.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that stays valid during the call.
pub(crate) unsafe fn input_str<'a>(p: *const c_char, name: &str) -> FfiResult<&'a str> {
    if p.is_null() {
        return Err(Failure::null(name));
    }
    // SAFETY: non-NULL and NUL-terminated per the caller's contract.
    let bytes = unsafe { CStr::from_ptr(p) }.to_bytes();
    std::str::from_utf8(bytes).map_err(|e| {
        Failure::about(
            abws_status::InvalidUtf8,
            name,
            format!(
                "{name} is not valid UTF-8 (invalid byte at offset {})",
                e.valid_up_to()
            ),
        )
    })
}

/// Parses JSON text: syntax errors are `INVALID_JSON` with line and column.
pub(crate) fn parse_json(text: &str, name: &str) -> FfiResult<serde_json::Value> {
    serde_json::from_str(text).map_err(|e| {
        let status = if e.is_data() {
            abws_status::Validation
        } else {
            abws_status::InvalidJson
        };
        Failure::about(
            status,
            name,
            format!(
                "{name} is not valid JSON: {} at line {} column {}",
                syntax_message(&e),
                e.line(),
                e.column()
            ),
        )
    })
}

/// serde_json's message without its own " at line .. column .." suffix.
fn syntax_message(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Writes an output; called only after the call succeeded.
///
/// # Safety
/// `out` is non-NULL (checked by the caller) and valid for one write.
pub(crate) unsafe fn write_out<T>(out: *mut T, value: T) {
    // SAFETY: per the caller's contract.
    unsafe { out.write(value) }
}

/// Writes a library-owned string to `*out`.
///
/// # Safety
/// As `write_out`.
pub(crate) unsafe fn write_string(out: *mut *mut c_char, s: String) {
    let p = crate::handles::string_into_c(s);
    // SAFETY: per the caller's contract.
    unsafe { write_out(out, p) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_a_status_and_later_calls_work() {
        let mut err: *mut abws_error = std::ptr::null_mut();
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let s = boundary(&mut err, || panic!("boom"));
        std::panic::set_hook(hook);
        assert_eq!(s, abws_status::Panic);
        assert!(!err.is_null());
        let data = crate::error::lookup(err).unwrap();
        assert!(data.message_text().contains("boom"));
        crate::error::abws_error_free(err);
        let s = boundary(std::ptr::null_mut(), || Ok(()));
        assert_eq!(s, abws_status::Ok);
    }

    #[test]
    fn json_syntax_and_type_errors_differ() {
        let e = parse_json("{", "params_json").err().unwrap();
        assert_eq!(e.status(), abws_status::InvalidJson);
        assert!(parse_json("[1]", "p").is_ok());
    }
}
