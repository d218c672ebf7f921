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

/// Text sent in an HTTP header beside ours (`app_name` in the user agent): printable
/// ASCII, spaces allowed, no control character. Never quotes the value.
pub fn header_text(param: &str, value: &str) -> Result<()> {
    if !value.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return Err(Error::validation(
            param,
            "must be printable ASCII text (letters, digits, spaces and punctuation; it is \
             sent in the User-Agent header)",
        ));
    }
    Ok(())
}

/// A token sent as an HTTP header (`access_token`): printable ASCII without spaces. Never
/// quotes the value (it is a secret).
pub fn token_text(param: &str, value: &str) -> Result<()> {
    if !value.bytes().all(|b| (0x21..0x7f).contains(&b)) {
        return Err(Error::validation(
            param,
            "must be printable ASCII without spaces or line breaks (it is sent as an HTTP \
             header); check that the whole token, and only it, was copied",
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

/// A list parameter with a count limit (`usize::MAX`: no upper limit).
pub fn count(param: &str, len: usize, min: usize, max: usize) -> Result<()> {
    if len < min || len > max {
        let entries = |n: usize| if n == 1 { "entry" } else { "entries" };
        let rule = if min == max {
            format!("must hold exactly {min} {} (got {len})", entries(min))
        } else if max == usize::MAX {
            format!("must hold at least {min} {} (got {len})", entries(min))
        } else if min == 0 {
            format!("must hold at most {max} {} (got {len})", entries(max))
        } else {
            format!("must hold {min} to {max} entries (got {len})")
        };
        return Err(Error::validation(param, rule));
    }
    Ok(())
}

/// A list parameter sent as one comma-joined query value (the specification's "array
/// csv" and "comma-separated list" parameters): `min` to `max` entries (`usize::MAX`:
/// no upper limit), none of them blank, and none holding a comma, which would change the
/// list the service reads (`["paper, A4"]` would arrive as two keywords). No element of
/// these parameters holds a comma in the specification (`productFilters` entries are
/// `field#value`, with `true`/`false` values). Returns the joined value, `None` when the
/// parameter is absent; `Some(empty)` is refused by `min` 1, or joined as `None`
/// (left out) when `min` is 0.
pub fn csv(param: &str, list: Option<&[String]>, min: usize, max: usize) -> Result<Option<String>> {
    let Some(items) = list else {
        return Ok(None);
    };
    count(param, items.len(), min, max)?;
    for (i, x) in items.iter().enumerate() {
        // The element's path is formatted only on a failure: no allocation when all is well.
        if x.trim().is_empty() {
            return Err(Error::validation(
                format!("{param}[{i}]"),
                "is required and must not be empty",
            ));
        }
        if x.contains(',') {
            return Err(Error::validation(
                format!("{param}[{i}]"),
                "must not contain a comma (the list is sent comma-separated: give each \
                 value as its own entry)",
            ));
        }
    }
    Ok((!items.is_empty()).then(|| items.join(",")))
}

/// An integer parameter within bounds.
pub fn int_range(param: &str, value: i64, min: i64, max: i64) -> Result<()> {
    if value < min || value > max {
        // `i64::MAX`: no upper limit but the type's, which is not the caller's rule.
        let rule = if max == i64::MAX {
            format!("must be at least {min} (got {value})")
        } else {
            format!("must be between {min} and {max} (got {value})")
        };
        return Err(Error::validation(param, rule));
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
