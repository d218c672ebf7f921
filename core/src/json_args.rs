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
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(invalid(
                key,
                format!("must be a string (got {})", type_name(other)),
            )),
        }
    }

    /// A boolean value.
    pub fn boolean(&self, key: &str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(invalid(
                key,
                format!("must be true or false (got {})", type_name(other)),
            )),
        }
    }

    /// A non-negative integer value.
    pub fn unsigned(&self, key: &str) -> Result<Option<u64>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => n
                .as_u64()
                .map(Some)
                .ok_or_else(|| invalid(key, "must be a non-negative integer")),
            Some(other) => Err(invalid(
                key,
                format!("must be a non-negative integer (got {})", type_name(other)),
            )),
        }
    }

    /// An integer value.
    pub fn integer(&self, key: &str) -> Result<Option<i64>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => n
                .as_i64()
                .map(Some)
                .ok_or_else(|| invalid(key, "must be an integer")),
            Some(other) => Err(invalid(
                key,
                format!("must be an integer (got {})", type_name(other)),
            )),
        }
    }

    /// A duration in seconds (a JSON number above zero).
    pub fn seconds(&self, key: &str) -> Result<Option<Duration>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => {
                let s = n.as_f64().unwrap_or(f64::NAN);
                if !(s.is_finite() && s > 0.0) {
                    return Err(invalid(key, "must be a number of seconds above zero"));
                }
                // Clamped, never refused for its size: no deadline computed from it can
                // overflow the clock (`1e19` would pass the conversion and panic later).
                Ok(Some(
                    Duration::try_from_secs_f64(s)
                        .unwrap_or(crate::config::MAX_DURATION)
                        .min(crate::config::MAX_DURATION),
                ))
            }
            Some(other) => Err(invalid(
                key,
                format!("must be a number of seconds (got {})", type_name(other)),
            )),
        }
    }
}
