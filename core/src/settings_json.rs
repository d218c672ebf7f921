//! Settings from a JSON object with snake_case keys: the one reader both bindings use
//! (Python's keyword arguments and C's settings JSON arrive as the same object).
//! Errors are validation errors naming the key and the rule; none echoes a value, since
//! the secrets travel in the same object.

use serde_json::Value;

use crate::config::{Credentials, Region, Settings};
use crate::error::{Error, Result};
use crate::json_args::{type_name, Fields};
use crate::secret::Secret;

/// How a setting's value is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A string.
    Text,
    /// `true` or `false` (in the environment also `1`/`0`, `yes`/`no`).
    Bool,
    /// A non-negative integer.
    Count,
    /// Seconds, a positive number.
    Seconds,
}

/// One setting: its key (JSON, Python keyword), its environment variable, how its value
/// is written, and what it does. `SETTINGS` is the one definition every list of settings
/// comes from (the reader below, `from_env`, the C header's list through `xtask gen`).
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// The snake_case key.
    pub key: &'static str,
    /// The environment variable `from_env` reads.
    pub env: &'static str,
    /// How its value is written.
    pub kind: Kind,
    /// What it does, for the docs (one sentence, no final period).
    pub doc: &'static str,
}

const fn setting(key: &'static str, env: &'static str, kind: Kind, doc: &'static str) -> Setting {
    Setting {
        key,
        env,
        kind,
        doc,
    }
}

/// Every setting, in the order the docs list them.
pub const SETTINGS: &[Setting] = &[
    setting("region", "ABWS_REGION", Kind::Text, "required: the default region of calls that take one, one of AU CA DE ES FR IN IT JP MX UK US (GB reads as UK)"),
    setting("client_id", "ABWS_CLIENT_ID", Kind::Text, "the app's client id; with `client_secret` and `refresh_token` the client obtains and refreshes access tokens"),
    setting("client_secret", "ABWS_CLIENT_SECRET", Kind::Text, "the app's client secret (a secret: never shown)"),
    setting("refresh_token", "ABWS_REFRESH_TOKEN", Kind::Text, "the refresh token of the customer's consent (a secret)"),
    setting("access_token", "ABWS_ACCESS_TOKEN", Kind::Text, "a fixed access token, in place of the three above (a secret; not refreshed)"),
    setting("user_email", "ABWS_USER_EMAIL", Kind::Text, "the default `x-svc-user-email` of the operations that send it"),
    setting("endpoint", "ABWS_ENDPOINT", Kind::Text, "required unless `use_sandbox`: the API's regional base address (there is no default: the specification names no address)"),
    setting("auth_endpoint", "ABWS_AUTH_ENDPOINT", Kind::Text, "required with `refresh_token`: the authorization server's address"),
    setting("consent_endpoint", "ABWS_CONSENT_ENDPOINT", Kind::Text, "the address of the consent page (the consent flow only)"),
    setting("sandbox_endpoint", "ABWS_SANDBOX_ENDPOINT", Kind::Text, "the platform's regional sandbox address"),
    setting("use_sandbox", "ABWS_USE_SANDBOX", Kind::Bool, "bool, default false: send every operation to `sandbox_endpoint` instead of `endpoint` (the same requests)"),
    setting("rate_limiting", "ABWS_RATE_LIMITING", Kind::Bool, "bool, default true: pace calls with the client-side token buckets"),
    setting("max_attempts", "ABWS_MAX_ATTEMPTS", Kind::Count, "1-10, default 3: attempts per operation"),
    setting("connect_timeout", "ABWS_CONNECT_TIMEOUT", Kind::Seconds, "seconds, default 3.1"),
    setting("attempt_timeout", "ABWS_ATTEMPT_TIMEOUT", Kind::Seconds, "seconds, default 30: one attempt"),
    setting("operation_timeout", "ABWS_OPERATION_TIMEOUT", Kind::Seconds, "seconds, default 120: one operation, retries included (timeouts past a year are cut to a year)"),
    setting("max_response_bytes", "ABWS_MAX_RESPONSE_BYTES", Kind::Count, "default 32 MiB, at least 64 KiB: the largest JSON response accepted"),
    setting("max_document_bytes", "ABWS_MAX_DOCUMENT_BYTES", Kind::Count, "the largest unpacked document accepted"),
    setting("app_name", "ABWS_APP_NAME", Kind::Text, "put before the library's own user agent, e.g. \"MyErp/2.1\""),
    setting("proxy", "ABWS_PROXY", Kind::Text, "the proxy of remote https addresses, `http://[user:password@]host:port`, in place of `https_proxy`/`all_proxy`/`no_proxy` of the environment; plain-http loopback addresses never go through a proxy (a secret: shown redacted)"),
    setting("shared_state", "ABWS_SHARED_STATE", Kind::Text, "a Redis shared by every process of the account, `redis://[:password@]host:port/db` (`rediss://` for TLS): one rate limit, one access token and one write ledger for all of them (a secret: shown redacted)"),
    setting("shared_state_required", "ABWS_SHARED_STATE_REQUIRED", Kind::Bool, "bool, default false: refuse to build the client when `shared_state` cannot be used (wrong password, unreachable), instead of pacing this process alone"),
];

/// The keys a settings object may hold (`SETTINGS`' keys).
pub const KEYS: [&str; SETTINGS.len()] = {
    let mut keys = [""; SETTINGS.len()];
    let mut i = 0;
    while i < SETTINGS.len() {
        keys[i] = SETTINGS[i].key;
        i += 1;
    }
    keys
};

fn invalid(key: &str, rule: impl std::fmt::Display) -> Error {
    Error::validation(key, rule.to_string())
}

/// Settings from a JSON object: `region` (required), credentials as `client_id` +
/// `client_secret` + `refresh_token` or as `access_token` alone, and any of the other
/// `KEYS`. An unknown key is an error naming it; `name` is what the caller calls the whole
/// object (C's `settings_json`), named when it is not an object. The rules on the values
/// themselves are `Settings::check`'s, run when a client is built.
pub fn from_json(v: &Value, name: &str) -> Result<Settings> {
    let map = v.as_object().ok_or_else(|| {
        invalid(
            name,
            format!("must be a JSON object (got {})", type_name(v)),
        )
    })?;
    if let Some(key) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(invalid(
            key,
            format!("is not a setting; the settings are: {}", KEYS.join(", ")),
        ));
    }
    let r = Fields(map);
    let region = r
        .string("region")?
        .ok_or_else(|| invalid("region", "is required (e.g. \"JP\")"))?;
    let region = Region::parse(&region)?;
    let credentials = match (
        r.string("access_token")?,
        r.string("client_id")?,
        r.string("client_secret")?,
        r.string("refresh_token")?,
    ) {
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
            .map_or("client_id", |(k, _)| k);
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
    s.sandbox_endpoint = r.string("sandbox_endpoint")?;
    if let Some(b) = r.boolean("use_sandbox")? {
        s.use_sandbox = b;
    }
    s.app_name = r.string("app_name")?;
    s.proxy = r.string("proxy")?.map(Secret::new);
    s.shared_state = r.string("shared_state")?.map(Secret::new);
    if let Some(b) = r.boolean("rate_limiting")? {
        s.rate_limiting = b;
    }
    if let Some(b) = r.boolean("shared_state_required")? {
        s.shared_state_required = b;
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

/// The settings the `ABWS_*` environment variables give (each `SETTINGS` entry's `env`;
/// empty ones are ignored), with `overrides` (a JSON object of settings, or `None`) on
/// top, as one settings object. `region` must end up given: `from_env` picks no region by
/// itself, so without `ABWS_REGION` (or a `region` override) this is an error naming it.
pub fn env_object(overrides: Option<&Value>) -> Result<serde_json::Map<String, Value>> {
    let mut map = serde_json::Map::new();
    for s in SETTINGS {
        let Ok(text) = std::env::var(s.env) else {
            continue;
        };
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        map.insert(s.key.to_string(), env_value(s, text)?);
    }
    match overrides {
        None | Some(Value::Null) => {}
        Some(Value::Object(o)) => {
            for (k, v) in o {
                if !v.is_null() {
                    map.insert(k.clone(), v.clone());
                }
            }
        }
        Some(other) => {
            return Err(invalid(
                "overrides",
                format!("must be a JSON object (got {})", type_name(other)),
            ))
        }
    }
    if !map.contains_key("region") {
        let codes: Vec<&str> = Region::ALL.iter().map(|r| r.as_str()).collect();
        return Err(invalid(
            "ABWS_REGION",
            format!(
                "is required: the region of calls, one of {} (from_env picks none by itself)",
                codes.join(" ")
            ),
        ));
    }
    Ok(map)
}

/// An environment variable's text as the JSON value of its setting; an error names the
/// variable and never echoes the text (it may be a secret).
fn env_value(s: &Setting, text: &str) -> Result<Value> {
    Ok(match s.kind {
        Kind::Text => Value::String(text.to_string()),
        Kind::Bool => match text.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Value::Bool(true),
            "false" | "0" | "no" | "off" => Value::Bool(false),
            _ => return Err(invalid(s.env, "must be true or false (or 1 or 0)")),
        },
        Kind::Count => text
            .parse::<u64>()
            .map(Value::from)
            .map_err(|_| invalid(s.env, "must be a whole number"))?,
        Kind::Seconds => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| invalid(s.env, "must be a number of seconds"))?,
    })
}

/// Settings from the `ABWS_*` environment variables, with `overrides` on top
/// (`env_object`); `ABWS_REGION` is required.
pub fn from_env(overrides: Option<&Value>) -> Result<Settings> {
    from_json(&Value::Object(env_object(overrides)?), "environment")
}

impl Settings {
    /// Settings from the `ABWS_*` environment variables (`settings_json::from_env`):
    /// `ABWS_REGION` is required, and so are the addresses `check` requires.
    pub fn from_env() -> Result<Settings> {
        from_env(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn parse(text: &str) -> Result<Settings> {
        from_json(&serde_json::from_str(text).unwrap(), "settings")
    }

    fn param_of(r: Result<Settings>) -> String {
        match r {
            Err(e) => e.parameter().unwrap_or("").to_string(),
            Ok(_) => "ok".into(),
        }
    }

    #[test]
    fn settings_are_converted_and_checked() {
        let s = parse(r#"{"region":"JP","access_token":"at","rate_limiting":false,"max_attempts":2,"attempt_timeout":1.5,"max_document_bytes":1024,"user_email":null}"#).unwrap();
        assert_eq!(s.region, Region::JP);
        assert!(!s.rate_limiting);
        assert_eq!(s.max_attempts, 2);
        assert_eq!(s.timeouts.attempt, Duration::from_millis(1500));
        assert_eq!(s.max_document_bytes, 1024);
        assert_eq!(s.user_email, None);
        for (text, key) in [
            (r#"{"region":"JP","access_token":"x","colour":1}"#, "colour"),
            (r#"{"access_token":"x"}"#, "region"),
            (
                r#"{"region":"JP","client_id":"a","client_secret":"b"}"#,
                "refresh_token",
            ),
            (r#"{"region":"JP","access_token":5}"#, "access_token"),
            (
                r#"{"region":"JP","access_token":"x","client_id":"a"}"#,
                "access_token",
            ),
            (
                r#"{"region":"JP","access_token":"x","max_attempts":"3"}"#,
                "max_attempts",
            ),
            (
                r#"{"region":"JP","access_token":"x","connect_timeout":0}"#,
                "connect_timeout",
            ),
            (r#"[1]"#, "settings"),
        ] {
            assert_eq!(param_of(parse(text)), key, "{text}");
        }
    }

    #[test]
    fn secrets_never_appear_in_errors() {
        for text in [
            r#"{"region":"JP","client_id":"a","client_secret":"SENTINEL-S3CRET","refresh_token":["SENTINEL-S3CRET"]}"#,
            r#"{"region":"JP","access_token":"SENTINEL-S3CRET","max_attempts":"SENTINEL-S3CRET"}"#,
        ] {
            let e = parse(text).unwrap_err();
            assert!(!format!("{e} {e:?}").contains("SENTINEL"), "{text}");
        }
    }
}
