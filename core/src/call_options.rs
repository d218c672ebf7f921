//! Per-call options: a timeout and a bound on attempts for one call (or the calls of one
//! listing), in place of the client's `operation_timeout` and `max_attempts`. They ride on
//! a view of the client (`Client::with_options`), so every operation of the table takes
//! them without a parameter of its own, in Rust and in the bindings alike.
//!
//! `timeout` bounds the whole call: every attempt, the backoff between them and the wait
//! for the rate limit, as the client's `operation_timeout` does (docs/decisions/006-timeouts-and-waits.md,
//! "Per-call options"). An attempt still stops at the client's `attempt_timeout` if that
//! comes first. `max_attempts` changes only how often what is safe to resend is resent:
//! placeOrder and addItems are never resent after an ambiguous failure, whatever it says.

use std::time::Duration;

use crate::config::{MAX_ATTEMPTS, MAX_DURATION};
use crate::error::{Error, Result};

/// Options of one call, each `None` for the client's own setting.
///
/// ```
/// # use std::time::Duration;
/// let opts = abws::CallOptions::new()
///     .timeout(Duration::from_secs(5))
///     .max_attempts(1);
/// assert_eq!(opts.get_max_attempts(), Some(1));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallOptions {
    timeout: Option<Duration>,
    max_attempts: Option<u32>,
}

impl CallOptions {
    /// No override: the client's settings apply.
    pub const fn new() -> CallOptions {
        CallOptions {
            timeout: None,
            max_attempts: None,
        }
    }

    /// The call's deadline from its start: every attempt, backoff and rate-limit wait
    /// included (in place of the client's `operation_timeout`). Checked by
    /// `Client::with_options`: above zero.
    pub const fn timeout(mut self, timeout: Duration) -> CallOptions {
        self.timeout = Some(timeout);
        self
    }

    /// Attempts allowed, the first included (in place of the client's `max_attempts`):
    /// 1 never resends. Checked by `Client::with_options`: 1 to 10.
    pub const fn max_attempts(mut self, max_attempts: u32) -> CallOptions {
        self.max_attempts = Some(max_attempts);
        self
    }

    /// The timeout given, if any.
    pub const fn get_timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// The bound on attempts given, if any.
    pub const fn get_max_attempts(&self) -> Option<u32> {
        self.max_attempts
    }

    /// The options of a binding: `timeout` in seconds (above zero, finite), `max_attempts`
    /// 1 to 10; each `None` for the client's setting. The error names the parameter.
    pub fn from_seconds(timeout: Option<f64>, max_attempts: Option<i64>) -> Result<CallOptions> {
        let mut o = CallOptions::new();
        if let Some(s) = timeout {
            if !(s.is_finite() && s > 0.0) {
                return Err(Error::validation(
                    "timeout",
                    format!("must be a finite number of seconds above zero (got {s})"),
                ));
            }
            o.timeout = Some(Duration::try_from_secs_f64(s).unwrap_or(MAX_DURATION));
        }
        if let Some(n) = max_attempts {
            o.max_attempts = Some(u32::try_from(n).map_err(|_| attempts_error(n))?);
        }
        o.check()?;
        Ok(o)
    }

    /// Checks the values given: a timeout above zero (cut to `MAX_DURATION`), attempts
    /// from 1 to 10, as the client's settings.
    pub fn check(&self) -> Result<()> {
        if self.timeout.is_some_and(|t| t.is_zero()) {
            return Err(Error::validation(
                "timeout",
                "must be a finite number of seconds above zero (got 0)",
            ));
        }
        match self.max_attempts {
            Some(n) if n == 0 || n > MAX_ATTEMPTS => Err(attempts_error(i64::from(n))),
            _ => Ok(()),
        }
    }

    /// These options with each one not given taken from `under` (the view's own).
    pub(crate) fn over(self, under: CallOptions) -> CallOptions {
        CallOptions {
            timeout: self.timeout.or(under.timeout).map(|t| t.min(MAX_DURATION)),
            max_attempts: self.max_attempts.or(under.max_attempts),
        }
    }
}

fn attempts_error(n: i64) -> Error {
    Error::validation(
        "max_attempts",
        format!("must be between 1 and {MAX_ATTEMPTS} (got {n})"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_name_their_parameter() {
        for t in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = CallOptions::from_seconds(Some(t), None).unwrap_err();
            assert!(e.to_string().contains("timeout"), "{e}");
        }
        for n in [0, 11, -1, i64::MAX] {
            let e = CallOptions::from_seconds(None, Some(n)).unwrap_err();
            assert!(e.to_string().contains("max_attempts"), "{e}");
            assert!(e.to_string().contains("between 1 and 10"), "{e}");
        }
        let ok = CallOptions::from_seconds(Some(1e30), Some(10)).unwrap();
        assert_eq!(ok.get_timeout(), Some(MAX_DURATION));
    }
}
