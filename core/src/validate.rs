//! Checks every operation runs on its input before any request is sent. Each failure is a
//! validation error that names the parameter and the rule it broke.

use chrono::{DateTime, Duration as ChronoDuration, FixedOffset, Utc};

use crate::error::{Error, Result};
use crate::model::Timestamp;

/// A required text parameter must not be empty or blank.
pub fn non_empty(param: &str, value: &str) -> Result<()> {
    if value.trim().is_empty() {
        return Err(Error::validation(
            param,
            "is required and must not be empty",
        ));
    }
    Ok(())
}

/// A plausible e-mail address: one `@`, text on both sides, no spaces or controls.
pub fn email(param: &str, value: &str) -> Result<()> {
    let ok = value.split('@').count() == 2
        && value.split('@').all(|part| {
            !part.is_empty() && !part.chars().any(|c| c.is_whitespace() || c.is_control())
        });
    if !ok {
        return Err(Error::validation(
            param,
            "must be an e-mail address like buyer@example.com",
        ));
    }
    Ok(())
}

/// Parses an ISO 8601 date-time parameter (a bare date means midnight UTC).
pub fn datetime(param: &str, text: &str) -> Result<DateTime<FixedOffset>> {
    Timestamp::parse(text).map(|t| t.value()).map_err(|_| {
        Error::validation(
            param,
            format!("must be an ISO 8601 date-time such as 2025-01-31T00:00:00Z (got {text:?})"),
        )
    })
}

/// A date range: start not after end, end not in the future, at most `max_days` long.
pub fn date_range(
    start_param: &str,
    start: DateTime<FixedOffset>,
    end_param: &str,
    end: DateTime<FixedOffset>,
    max_days: i64,
    now: DateTime<Utc>,
) -> Result<()> {
    if start > end {
        return Err(Error::validation(
            start_param,
            format!("must not be after {end_param}"),
        ));
    }
    if end > now {
        return Err(Error::validation(end_param, "must not be in the future"));
    }
    if end - start > ChronoDuration::days(max_days) {
        return Err(Error::validation(
            end_param,
            format!("must be at most {max_days} days after {start_param}"),
        ));
    }
    Ok(())
}

/// A list parameter with a count limit.
pub fn count(param: &str, len: usize, min: usize, max: usize) -> Result<()> {
    if len < min || len > max {
        let rule = if min == max {
            format!("must hold exactly {min} entries (got {len})")
        } else if min == 0 {
            format!("must hold at most {max} entries (got {len})")
        } else {
            format!("must hold {min} to {max} entries (got {len})")
        };
        return Err(Error::validation(param, rule));
    }
    Ok(())
}

/// An integer parameter within bounds.
pub fn int_range(param: &str, value: i64, min: i64, max: i64) -> Result<()> {
    if value < min || value > max {
        return Err(Error::validation(
            param,
            format!("must be between {min} and {max} (got {value})"),
        ));
    }
    Ok(())
}

/// A value from a fixed set (compared exactly).
pub fn one_of(param: &str, value: &str, allowed: &[&str]) -> Result<()> {
    if !allowed.contains(&value) {
        return Err(Error::validation(
            param,
            format!("must be one of {} (got {value:?})", allowed.join(", ")),
        ));
    }
    Ok(())
}

/// A language tag of the form language-COUNTRY (`en-US`); `en_us`, `EN-us` are accepted
/// and sent as `en-US` (`normalize::locale`, the one rule).
pub fn locale(param: &str, value: &str) -> Result<()> {
    crate::normalize::locale(param, value).map(|_| ())
}

/// Digits only (e-invoicing line externalIds); spaces and empty strings are rejected.
pub fn numeric(param: &str, value: &str) -> Result<()> {
    if value.is_empty() || !value.chars().all(|c| c.is_ascii_digit()) {
        return Err(Error::validation(
            param,
            format!("must contain digits only for e-invoicing orders (got {value:?})"),
        ));
    }
    Ok(())
}

/// A text whose length is within bounds (in characters).
pub fn length(param: &str, value: &str, min: usize, max: usize) -> Result<()> {
    let n = value.chars().count();
    if n < min || n > max {
        return Err(Error::validation(
            param,
            format!("must be {min} to {max} characters long (got {n})"),
        ));
    }
    Ok(())
}
