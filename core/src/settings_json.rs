//! Settings from a JSON object with snake_case keys: the one reader both bindings use
//! (Python's keyword arguments and C's settings JSON arrive as the same object).
//! Errors are validation errors naming the key and the rule; none echoes a value, since
//! the secrets travel in the same object.

use serde_json::Value;

use crate::config::{Credentials, Region, Settings};
use crate::error::{Error, Result};
use crate::json_args::{type_name, Fields};
use crate::secret::Secret;

/// The keys a settings object may hold.
pub const KEYS: &[&str] = &[
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
    "proxy",
    "shared_state",
    "shared_state_required",
];

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
