//! The params JSON object of an operation: snake_case keys, converted into the core's
//! parameter structs. Unknown keys, missing keys and wrong types are validation errors
//! that name the key (as a path for nested values: `line_items[0].quantity`).

use std::ffi::c_char;
use std::time::Duration;

use abws_core::json_args::{type_name, Fields};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::ffi::{input_str, parse_json, Failure, FfiResult};
use crate::status::abws_status;

pub(crate) struct Params {
    /// The text as given, parsed again for whole-object conversions so that numbers
    /// (money amounts) keep their exact digits.
    text: String,
    map: Map<String, Value>,
}

fn validation(parameter: &str, rule: impl Into<String>) -> Failure {
    Failure::Core(abws_core::Error::validation(parameter, rule.into()))
}

/// A serde error with its path, as a validation error naming the key.
fn serde_failure(e: serde_path_to_error::Error<serde_json::Error>, prefix: &str) -> Failure {
    let path = e.path().to_string();
    let inner = e.into_inner();
    let msg = inner.to_string();
    let msg = match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    };
    let join = |a: &str, b: &str| -> String {
        match (a.is_empty() || a == ".", b.is_empty() || b == ".") {
            (true, true) => "params_json".to_string(),
            (true, false) => b.to_string(),
            (false, true) => a.to_string(),
            (false, false) if b.starts_with('[') => format!("{a}{b}"),
            (false, false) => format!("{a}.{b}"),
        }
    };
    let here = join(prefix, &path);
    // "unknown field `x`, expected ..." and "missing field `x`" name the key in the text.
    for lead in ["unknown field `", "missing field `"] {
        if let Some(rest) = msg.strip_prefix(lead) {
            if let Some(end) = rest.find('`') {
                let key = &rest[..end];
                let param = if here == "params_json" {
                    key.to_string()
                } else if here.ends_with(key) {
                    here.clone()
                } else {
                    format!("{here}.{key}")
                };
                let rule = if lead.starts_with("unknown") {
                    format!("is not a parameter of this operation ({msg})")
                } else {
                    "is required".to_string()
                };
                return validation(&param, rule);
            }
        }
    }
    validation(&here, msg)
}

fn deserialize<T: DeserializeOwned>(v: Value, prefix: &str) -> FfiResult<T> {
    serde_path_to_error::deserialize(v).map_err(|e| serde_failure(e, prefix))
}

impl Params {
    /// Reads `params_json`: NULL, UTF-8, JSON syntax, and that it is an object.
    ///
    /// # Safety
    /// `p` is NULL or a NUL-terminated string valid during the call.
    pub(crate) unsafe fn from_c(p: *const c_char) -> FfiResult<Params> {
        // SAFETY: per the caller's contract.
        let text = unsafe { input_str(p, "params_json") }?;
        match parse_json(text, "params_json")? {
            Value::Object(map) => Ok(Params {
                text: text.to_string(),
                map,
            }),
            other => Err(Failure::about(
                abws_status::Validation,
                "params_json",
                format!(
                    "params_json must be a JSON object (got {}); use {{}} for no parameters",
                    type_name(&other)
                ),
            )),
        }
    }

    /// Fails on the first key not in `allowed`, naming it and listing the accepted ones.
    pub(crate) fn allow(&self, allowed: &[&str]) -> FfiResult<()> {
        for key in self.map.keys() {
            if !allowed.contains(&key.as_str()) {
                let list = if allowed.is_empty() {
                    "this operation takes no parameters".to_string()
                } else {
                    format!("the parameters are: {}", allowed.join(", "))
                };
                return Err(validation(
                    key,
                    format!("is not a parameter of this operation; {list}"),
                ));
            }
        }
        Ok(())
    }

    /// The whole object as a core parameter struct.
    pub(crate) fn parse<T: DeserializeOwned>(&self) -> FfiResult<T> {
        let mut de = serde_json::Deserializer::from_str(&self.text);
        serde_path_to_error::deserialize(&mut de).map_err(|e| serde_failure(e, ""))
    }

    /// The object without some keys (read separately) as a core parameter struct.
    pub(crate) fn parse_except<T: DeserializeOwned>(&self, except: &[&str]) -> FfiResult<T> {
        let rest: Map<String, Value> = self
            .map
            .iter()
            .filter(|(k, _)| !except.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        deserialize(Value::Object(rest), "")
    }

    /// One key as a value of type `T`; absent and null are `None`.
    pub(crate) fn field<T: DeserializeOwned>(&self, key: &str) -> FfiResult<Option<T>> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => deserialize(v.clone(), key).map(Some),
        }
    }

    /// One required key.
    pub(crate) fn required<T: DeserializeOwned>(&self, key: &str) -> FfiResult<T> {
        self.field(key)?
            .ok_or_else(|| validation(key, "is required"))
    }

    pub(crate) fn string(&self, key: &str) -> FfiResult<Option<String>> {
        Fields(&self.map).string(key).map_err(Failure::Core)
    }

    pub(crate) fn required_string(&self, key: &str) -> FfiResult<String> {
        self.string(key)?
            .ok_or_else(|| validation(key, "is required"))
    }

    pub(crate) fn integer(&self, key: &str) -> FfiResult<Option<i64>> {
        Fields(&self.map).integer(key).map_err(Failure::Core)
    }

    /// A duration in seconds (a JSON number above zero).
    pub(crate) fn seconds(&self, key: &str) -> FfiResult<Option<Duration>> {
        Fields(&self.map).seconds(key).map_err(Failure::Core)
    }
}

/// A result in the wire form (camelCase), as JSON text.
pub(crate) fn to_json<T: Serialize + ?Sized>(value: &T) -> FfiResult<String> {
    serde_json::to_string(value).map_err(|e| {
        Failure::new(
            abws_status::Internal,
            format!("internal error: the result could not be written as JSON ({e})"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use abws_core::api::invoices::GetInvoicesParams;
    use abws_core::api::ordering::PlaceOrderRequest;

    fn params(text: &str) -> Params {
        let c = std::ffi::CString::new(text).unwrap();
        unsafe { Params::from_c(c.as_ptr()) }.ok().unwrap()
    }

    fn parameter(f: Failure) -> String {
        match f {
            Failure::Core(e) => e.parameter().unwrap_or("").to_string(),
            Failure::Ffi { parameter, .. } => parameter.unwrap_or_default(),
        }
    }

    #[test]
    fn unknown_and_wrongly_typed_keys_are_named() {
        let p = params(r#"{"invoice_issue_start_date":"2026-01-01","colour":"red"}"#);
        let e = p.parse::<GetInvoicesParams>().err().unwrap();
        assert_eq!(parameter(e), "colour");
        let p = params(r#"{"payment_method_types":"BCA"}"#);
        let e = p.parse::<GetInvoicesParams>().err().unwrap();
        assert_eq!(parameter(e), "payment_method_types");
        let p = params(r#"{"externalId":"o-1","lineItems":[{"externalId":"1","quantity":"two"}]}"#);
        let e = p.parse::<PlaceOrderRequest>().err().unwrap();
        assert_eq!(parameter(e), "lineItems[0].quantity");
        let p = params(r#"{"lineItems":[]}"#);
        let e = p.parse::<PlaceOrderRequest>().err().unwrap();
        assert_eq!(parameter(e), "externalId");
        let p = params(r#"{"a":1}"#);
        assert_eq!(parameter(p.allow(&["b"]).err().unwrap()), "a");
        assert_eq!(parameter(p.field::<String>("a").err().unwrap()), "a");
    }
}
