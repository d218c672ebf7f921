//! The `params_json` argument of every operation: the C-side checks (NULL, UTF-8, JSON
//! syntax, an object), then the core's one argument reader (`abws_core::params::read`),
//! the same the Python binding uses: unknown keys, missing keys and wrong types are
//! validation errors naming the parameter's path (`line_items[0].quantity`), and
//! defaults (the client's region, the poll interval) are applied by the core.

use std::ffi::c_char;

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::Serialize;

use crate::ffi::{input_str, Failure, FfiResult};
use crate::status::abws_status;

/// The text of `params_json` once the C-side checks passed: NULL gives
/// `NULL_ARGUMENT`, bad UTF-8 `INVALID_UTF8`, a syntax error `INVALID_JSON` (with line
/// and column), anything but an object `VALIDATION` on `params_json`.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string valid during the call.
pub(crate) unsafe fn text<'a>(p: *const c_char) -> FfiResult<&'a str> {
    // SAFETY: per the caller's contract.
    let text = unsafe { input_str(p, "params_json") }?;
    if let Err(e) = serde_json::from_str::<IgnoredAny>(text) {
        let msg = e.to_string();
        let msg = msg.rfind(" at line ").map_or(msg.as_str(), |i| &msg[..i]);
        return Err(Failure::about(
            abws_status::InvalidJson,
            "params_json",
            format!(
                "params_json is not valid JSON: {msg} at line {} column {}",
                e.line(),
                e.column()
            ),
        ));
    }
    let got = match text.trim_start().as_bytes().first() {
        Some(b'{') => return Ok(text),
        Some(b'[') => "an array",
        Some(b'"') => "a string",
        Some(b'n') => "null",
        Some(b't' | b'f') => "a boolean",
        _ => "a number",
    };
    Err(Failure::about(
        abws_status::Validation,
        "params_json",
        format!("params_json must be a JSON object (got {got}); use {{}} for no parameters"),
    ))
}

/// Reads `params_json` into a core parameter struct with the core's reader.
///
/// # Safety
/// As `text`.
pub(crate) unsafe fn read<T: DeserializeOwned>(p: *const c_char) -> FfiResult<T> {
    // SAFETY: per the caller's contract.
    let text = unsafe { text(p) }?;
    Ok(abws_core::params::read(text)?)
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

    fn read_str<T: DeserializeOwned>(text: &str) -> FfiResult<T> {
        let c = std::ffi::CString::new(text).unwrap();
        unsafe { read(c.as_ptr()) }
    }

    fn failure<T: DeserializeOwned>(text: &str) -> (abws_status, String) {
        match read_str::<T>(text) {
            Ok(_) => panic!("{text} was accepted"),
            Err(f) => {
                let status = f.status();
                let p = match f {
                    Failure::Core(e) => e.parameter().unwrap_or("").to_string(),
                    Failure::Ffi { parameter, .. } => parameter.unwrap_or_default(),
                };
                (status, p)
            }
        }
    }

    #[test]
    fn c_checks_then_the_core_reader_naming_the_path() {
        let v = abws_status::Validation;
        assert_eq!(
            failure::<GetInvoicesParams>("{\"a\":"),
            (abws_status::InvalidJson, "params_json".into())
        );
        assert_eq!(
            failure::<GetInvoicesParams>("{} x"),
            (abws_status::InvalidJson, "params_json".into())
        );
        for not_object in ["[]", "null", "\"x\"", "1", " true"] {
            assert_eq!(
                failure::<GetInvoicesParams>(not_object),
                (v, "params_json".into())
            );
        }
        let p = r#"{"invoice_issue_start_date":"2026-01-01","colour":"red"}"#;
        assert_eq!(failure::<GetInvoicesParams>(p), (v, "colour".into()));
        let p = r#"{"payment_method_types":"BCA"}"#;
        assert_eq!(
            failure::<GetInvoicesParams>(p),
            (v, "payment_method_types".into())
        );
        let p = r#"{"external_id":"o-1","line_items":[{"external_id":"1","quantity":"two"}]}"#;
        assert_eq!(
            failure::<PlaceOrderRequest>(p),
            (v, "line_items[0].quantity".into())
        );
        assert_eq!(
            failure::<PlaceOrderRequest>(r#"{"line_items":[]}"#),
            (v, "external_id".into())
        );
        let camel: PlaceOrderRequest =
            read_str(r#"{"externalId":"o-1","lineItems":[{"externalId":"1","quantity":2}]}"#)
                .ok()
                .unwrap();
        assert_eq!(camel.line_items[0].quantity, 2);
    }
}
