//! `abws_client`: creation from a settings JSON object, and freeing.

use std::ffi::c_char;
use std::sync::Arc;
use std::time::Duration;

use abws_core::{blocking, Credentials, Region, Secret, Settings};
use serde_json::{Map, Value};

use crate::abws_error;
use crate::ffi::{boundary, input_str, not_null, parse_json, write_out, Failure, FfiResult};
use crate::handles::Registry;
use crate::status::abws_status;

/// A client of the service: settings, credentials, token cache, connection pool.
///
/// Created by `abws_client_new`, freed by `abws_client_free`. Thread safety: one
/// client may be shared by any number of threads and used concurrently; it refreshes
/// its access token once for all of them and paces all of them with one set of rate
/// limits. Create one per set of credentials and keep it for the life of the plugin.
pub struct abws_client {
    _opaque: [u8; 0],
}

pub(crate) struct ClientData {
    pub(crate) client: blocking::Client,
}

/// How many handles are live (for `abws_live_objects`).
pub(crate) fn live() -> usize {
    CLIENTS.len()
}

static CLIENTS: Registry<ClientData> = Registry::new();

/// The client behind a handle, or `INVALID_HANDLE`.
pub(crate) fn lookup(client: *const abws_client) -> FfiResult<Arc<ClientData>> {
    if client.is_null() {
        return Err(Failure::null("client"));
    }
    CLIENTS
        .get(client)
        .ok_or_else(|| Failure::invalid_handle("client", "abws_client"))
}

/// The keys a settings object may hold.
pub(crate) const SETTINGS_KEYS: &[&str] = &[
    "region",
    "client_id",
    "client_secret",
    "refresh_token",
    "access_token",
    "user_email",
    "endpoint",
    "auth_endpoint",
    "consent_endpoint",
    "rate_limiting",
    "max_attempts",
    "connect_timeout",
    "attempt_timeout",
    "operation_timeout",
    "max_response_bytes",
    "max_document_bytes",
    "app_name",
];

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn invalid(key: &str, rule: impl std::fmt::Display) -> Failure {
    Failure::Core(abws_core::Error::validation(key, rule.to_string()))
}

/// A settings reader that never echoes a value (secrets travel in the same object).
struct Reader<'a>(&'a Map<String, Value>);

impl Reader<'_> {
    fn string(&self, key: &str) -> FfiResult<Option<String>> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(invalid(
                key,
                format!("must be a string (got {})", type_name(other)),
            )),
        }
    }
    fn boolean(&self, key: &str) -> FfiResult<Option<bool>> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(invalid(
                key,
                format!("must be true or false (got {})", type_name(other)),
            )),
        }
    }
    fn unsigned(&self, key: &str) -> FfiResult<Option<u64>> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
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
    fn seconds(&self, key: &str) -> FfiResult<Option<Duration>> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => {
                let s = n.as_f64().unwrap_or(f64::NAN);
                if !(s.is_finite() && s > 0.0) {
                    return Err(invalid(key, "must be a number of seconds above zero"));
                }
                Duration::try_from_secs_f64(s)
                    .map(Some)
                    .map_err(|_| invalid(key, "is too large"))
            }
            Some(other) => Err(invalid(
                key,
                format!("must be a number of seconds (got {})", type_name(other)),
            )),
        }
    }
}

/// Converts a settings object into core `Settings` (the rules on the values are the
/// core's `Settings::check`, run when the client is built).
pub(crate) fn settings_from_json(v: &Value) -> FfiResult<Settings> {
    let map = v.as_object().ok_or_else(|| {
        invalid(
            "settings_json",
            format!("must be a JSON object (got {})", type_name(v)),
        )
    })?;
    for key in map.keys() {
        if !SETTINGS_KEYS.contains(&key.as_str()) {
            return Err(invalid(
                key,
                format!(
                    "is not a setting; the settings are: {}",
                    SETTINGS_KEYS.join(", ")
                ),
            ));
        }
    }
    let r = Reader(map);
    let region_text = r
        .string("region")?
        .ok_or_else(|| invalid("region", "is required (e.g. \"JP\")"))?;
    let region = Region::parse(&region_text).map_err(Failure::Core)?;
    let access_token = r.string("access_token")?;
    let client_id = r.string("client_id")?;
    let client_secret = r.string("client_secret")?;
    let refresh_token = r.string("refresh_token")?;
    let credentials = match (access_token, client_id, client_secret, refresh_token) {
        (Some(t), None, None, None) => Credentials::AccessToken(Secret::new(t)),
        (None, Some(id), Some(secret), Some(rt)) => Credentials::RefreshToken {
            client_id: id,
            client_secret: Secret::new(secret),
            refresh_token: Secret::new(rt),
        },
        (Some(_), _, _, _) => {
            return Err(invalid(
                "access_token",
                "cannot be combined with client_id, client_secret or refresh_token",
            ))
        }
        (None, id, secret, rt) => {
            let missing = [
                ("client_id", id.is_none()),
                ("client_secret", secret.is_none()),
                ("refresh_token", rt.is_none()),
            ]
            .into_iter()
            .find(|(_, m)| *m)
            .map(|(k, _)| k)
            .unwrap_or("client_id");
            return Err(invalid(
                missing,
                "is required: give client_id, client_secret and refresh_token, or access_token",
            ));
        }
    };
    let mut s = Settings::new(region, credentials);
    s.user_email = r.string("user_email")?;
    s.endpoint = r.string("endpoint")?;
    s.auth_endpoint = r.string("auth_endpoint")?;
    s.consent_endpoint = r.string("consent_endpoint")?;
    s.app_name = r.string("app_name")?;
    if let Some(b) = r.boolean("rate_limiting")? {
        s.rate_limiting = b;
    }
    if let Some(n) = r.unsigned("max_attempts")? {
        s.max_attempts =
            u32::try_from(n).map_err(|_| invalid("max_attempts", "must be between 1 and 10"))?;
    }
    if let Some(d) = r.seconds("connect_timeout")? {
        s.timeouts.connect = d;
    }
    if let Some(d) = r.seconds("attempt_timeout")? {
        s.timeouts.attempt = d;
    }
    if let Some(d) = r.seconds("operation_timeout")? {
        s.timeouts.operation = d;
    }
    if let Some(n) = r.unsigned("max_response_bytes")? {
        s.max_response_bytes = usize::try_from(n)
            .map_err(|_| invalid("max_response_bytes", "is too large for this platform"))?;
    }
    if let Some(n) = r.unsigned("max_document_bytes")? {
        s.max_document_bytes = n;
    }
    Ok(s)
}

/// Creates a client from a settings JSON object.
///
/// Settings (snake_case keys; unknown keys are a validation error naming the key):
/// `region` (required, e.g. "JP"; its regional group picks the address), credentials as
/// `client_id` + `client_secret` + `refresh_token` or as `access_token` alone,
/// `user_email` (default `x-svc-user-email`), `endpoint` (API base address override,
/// e.g. the sandbox), `auth_endpoint`, `consent_endpoint`, `rate_limiting` (bool, default
/// true), `max_attempts` (1-10, default 3), `connect_timeout`, `attempt_timeout`,
/// `operation_timeout` (seconds), `max_response_bytes`, `max_document_bytes`, `app_name`
/// (appended to the user agent). No request is sent here.
///
/// Ownership: on success `*client` receives a new client the caller frees with
/// `abws_client_free`; on failure `*client` is not written and `*err` (when `err` is not
/// NULL) receives an error the caller frees with `abws_error_free`. Error messages never
/// contain the secrets. NULL `settings_json` or `client`: `ABWS_STATUS_NULL_ARGUMENT`.
/// Thread safety: any thread.
///
/// # Safety
/// `settings_json` is NULL or a NUL-terminated string; `client` and `err` are NULL or
/// valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn abws_client_new(
    settings_json: *const c_char,
    client: *mut *mut abws_client,
    err: *mut *mut abws_error,
) -> abws_status {
    boundary(err, || {
        not_null!(settings_json, client);
        // SAFETY: per this function's contract.
        let text = unsafe { input_str(settings_json, "settings_json") }?;
        let value = parse_json(text, "settings_json")?;
        let settings = settings_from_json(&value)?;
        let inner = blocking::Client::new(settings)?;
        let handle = CLIENTS.insert(ClientData { client: inner });
        // SAFETY: `client` is non-NULL and writable per this function's contract.
        unsafe { write_out(client, handle) };
        Ok(())
    })
}

/// Frees a client. `client` may be NULL (nothing happens, `ABWS_STATUS_OK`).
///
/// Returns `ABWS_STATUS_OK`, or `ABWS_STATUS_INVALID_HANDLE` (and frees nothing) when
/// `client` is not a live client (already freed, or another kind of handle).
/// Calls still running on other threads finish normally; pagers created from the client
/// keep working (they hold their own reference). Afterwards every use of the handle
/// gives `ABWS_STATUS_INVALID_HANDLE`. Thread safety: any thread.
#[no_mangle]
pub extern "C" fn abws_client_free(client: *mut abws_client) -> abws_status {
    crate::ffi::boundary_value(abws_status::Panic, || {
        if client.is_null() {
            return abws_status::Ok;
        }
        match CLIENTS.remove(client) {
            Some(_) => abws_status::Ok,
            None => abws_status::InvalidHandle,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> FfiResult<Settings> {
        settings_from_json(&serde_json::from_str(text).unwrap())
    }

    fn param_of(r: FfiResult<Settings>) -> String {
        match r {
            Err(Failure::Core(e)) => e.parameter().unwrap_or("").to_string(),
            Err(_) => "ffi".into(),
            Ok(_) => "ok".into(),
        }
    }

    #[test]
    fn settings_are_converted_and_checked() {
        let s = parse(r#"{"region":"JP","access_token":"at","rate_limiting":false,"max_attempts":2,"attempt_timeout":1.5}"#).ok().unwrap();
        assert_eq!(s.region, Region::JP);
        assert!(!s.rate_limiting);
        assert_eq!(s.max_attempts, 2);
        assert_eq!(s.timeouts.attempt, Duration::from_millis(1500));
        assert_eq!(
            param_of(parse(r#"{"region":"JP","access_token":"x","colour":1}"#)),
            "colour"
        );
        assert_eq!(param_of(parse(r#"{"access_token":"x"}"#)), "region");
        assert_eq!(
            param_of(parse(
                r#"{"region":"JP","client_id":"a","client_secret":"b"}"#
            )),
            "refresh_token"
        );
        assert_eq!(
            param_of(parse(r#"{"region":"JP","access_token":5}"#)),
            "access_token"
        );
        assert_eq!(
            param_of(parse(
                r#"{"region":"JP","access_token":"x","max_attempts":"3"}"#
            )),
            "max_attempts"
        );
    }

    #[test]
    fn secrets_never_appear_in_errors() {
        let r = parse(
            r#"{"region":"JP","client_id":"a","client_secret":"SENTINEL-S3CRET","refresh_token":["SENTINEL-S3CRET"]}"#,
        );
        match r {
            Err(Failure::Core(e)) => assert!(!e.to_string().contains("SENTINEL")),
            _ => panic!("expected an error"),
        }
    }
}
