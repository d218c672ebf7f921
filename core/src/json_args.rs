//! Typed values read by key from a JSON object (settings, the C binding's parameters), as
//! validation errors that name the key and the rule and never echo a value (secrets may
//! travel in the same object).

use std::time::Duration;

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// How an error names a JSON value's type (never its content).
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn invalid(key: &str, rule: impl std::fmt::Display) -> Error {
    Error::validation(key, rule.to_string())
}

/// Reads typed values by key; a null is the same as an absent key.
pub struct Fields<'a>(pub &'a Map<String, Value>);

impl Fields<'_> {
    fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key).filter(|v| !v.is_null())
    }

    /// A string value.
    pub fn string(&self, key: &str) -> Result<Option<String>> {
        self.typed(key, "a string", |v| v.as_str().map(|s| Ok(s.to_string())))
    }

    /// A boolean value.
    pub fn boolean(&self, key: &str) -> Result<Option<bool>> {
        self.typed(key, "true or false", |v| v.as_bool().map(Ok))
    }

    /// A non-negative integer value.
    pub fn unsigned(&self, key: &str) -> Result<Option<u64>> {
        self.number(key, "a non-negative integer", serde_json::Number::as_u64)
    }

    /// An integer value.
    pub fn integer(&self, key: &str) -> Result<Option<i64>> {
        self.number(key, "an integer", serde_json::Number::as_i64)
    }

    /// A number that `convert` takes (`what` says which, in the error).
    fn number<T>(
        &self,
        key: &str,
        what: &str,
        convert: fn(&serde_json::Number) -> Option<T>,
    ) -> Result<Option<T>> {
        self.typed(key, what, |v| {
            let n = v.as_number()?;
            Some(convert(n).ok_or_else(|| format!("must be {what}")))
        })
    }

    /// A duration in seconds (a JSON number above zero).
    pub fn seconds(&self, key: &str) -> Result<Option<Duration>> {
        self.typed(key, "a number of seconds", |v| {
            let s = v.as_number()?.as_f64().unwrap_or(f64::NAN);
            if !(s.is_finite() && s > 0.0) {
                return Some(Err("must be a number of seconds above zero".to_string()));
            }
            // Clamped, never refused for its size: no deadline computed from it can
            // overflow the clock (`1e19` would pass the conversion and panic later).
            Some(Ok(Duration::try_from_secs_f64(s)
                .unwrap_or(crate::config::MAX_DURATION)
                .min(crate::config::MAX_DURATION)))
        })
    }

    /// The value of `key` read by `take`: `None` from it is a value of another JSON type
    /// (refused as not `what`), `Some(Err(rule))` a value of the type that breaks `rule`.
    fn typed<T>(
        &self,
        key: &str,
        what: &str,
        take: impl FnOnce(&Value) -> Option<std::result::Result<T, String>>,
    ) -> Result<Option<T>> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        match take(v) {
            Some(Ok(t)) => Ok(Some(t)),
            Some(Err(rule)) => Err(invalid(key, rule)),
            None => Err(invalid(
                key,
                format!("must be {what} (got {})", type_name(v)),
            )),
        }
    }
}
