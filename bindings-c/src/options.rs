//! `abws_call_options`: the per-call options of the `*_with_options` variants of every
//! operation and pager (the core's `CallOptions`).

use abws_core::CallOptions;

/// Options of one call (or of each page of one listing), given to the `*_with_options`
/// variant of an operation or pager; a NULL pointer, or a field left 0, keeps the client's
/// setting. Initialise it whole (`abws_call_options o = {0};`) and set what you need.
///
/// - `timeout`: seconds the call may take in all: every attempt, the backoff between
///   them and the wait for the rate limit (the client's `operation_timeout` otherwise).
///   Negative, NaN or infinite: `ABWS_STATUS_VALIDATION` naming `timeout`, before any
///   request.
/// - `max_attempts`: attempts allowed, the first included, 1 to 10 (the client's
///   `max_attempts` otherwise); above 10: `ABWS_STATUS_VALIDATION` naming `max_attempts`.
///   placeOrder and addItems are still never resent after a failure that may have reached
///   the service.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct abws_call_options {
    /// Seconds for the whole call; 0: the client's `operation_timeout`.
    pub timeout: f64,
    /// Attempts allowed (1 to 10); 0: the client's `max_attempts`.
    pub max_attempts: u32,
}

/// The core's options of `options` (NULL: none), checked.
///
/// # Safety
/// `options` is NULL or points to a readable `abws_call_options`.
pub(crate) unsafe fn read(options: *const abws_call_options) -> abws_core::Result<CallOptions> {
    // SAFETY: per the caller's contract.
    let Some(o) = (unsafe { options.as_ref() }) else {
        return Ok(CallOptions::new());
    };
    CallOptions::from_seconds(
        (o.timeout != 0.0).then_some(o.timeout),
        (o.max_attempts != 0).then_some(i64::from(o.max_attempts)),
    )
}
