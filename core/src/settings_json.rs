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

/// How a setting's value in force is shown (`Settings::shown`: Python's `client.settings`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// As it is.
    Plain,
    /// Its user and password redacted (an address that may hold a password).
    Redacted,
    /// Never (a secret).
    Never,
}

/// One setting: its key (JSON, Python keyword), its environment variable, how its value
/// is written, what it does, and how it is read into `Settings` and shown from them.
/// `SETTINGS` is the one definition every list of settings comes from (the reader below,
/// `from_env`, `Settings::shown`, and through `xtask gen` the C header's list, Python's
/// `Client` keywords and pickling, the docs' constructor).
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// The snake_case key.
    pub key: &'static str,
    /// The environment variable `from_env` reads.
    pub env: &'static str,
    /// How its value is written.
    pub kind: Kind,
    /// How its value in force is shown.
    pub shown: Shown,
    /// What it does, for the docs (one sentence, no final period).
    pub doc: &'static str,
    /// Reads its value, when given, into the settings (`region` and the credentials are
    /// read together by `from_json`, to make the settings: theirs do nothing).
    pub read: fn(&Fields<'_>, &'static str, &mut Settings) -> Result<()>,
    /// Its value in force as shown (`None`: not shown, a secret or credentials of the
    /// other kind).
    pub show: fn(&Settings) -> Option<Value>,
}

/// A setting kept in `Settings`' field of the same name, or as said.
macro_rules! setting {
    ($key:literal, $env:literal, $kind:ident, $shown:ident, $read:expr, $show:expr, $doc:literal) => {
        Setting {
            key: $key,
            env: $env,
            kind: Kind::$kind,
            shown: Shown::$shown,
            doc: $doc,
            read: $read,
            show: $show,
        }
    };
}
/// `region`: read by `from_json` to make the settings.
macro_rules! region {
    ($key:literal, $env:literal, $doc:literal) => {
        setting!(
            $key,
            $env,
            Text,
            Plain,
            |_, _, _| Ok(()),
            |s| Some(Value::from(s.region.as_str())),
            $doc
        )
    };
}
/// `client_id`: one of the refresh-token credentials, read by `from_json` with them.
macro_rules! client_id {
    ($key:literal, $env:literal, $doc:literal) => {
        setting!(
            $key,
            $env,
            Text,
            Plain,
            |_, _, _| Ok(()),
            |s| match &s.credentials {
                Credentials::RefreshToken { client_id, .. } =>
                    Some(Value::from(client_id.as_str())),
                Credentials::AccessToken(_) => None,
            },
            $doc
        )
    };
}
/// A secret of the credentials, read by `from_json` with them and never shown.
macro_rules! never {
    ($key:literal, $env:literal, $doc:literal) => {
        setting!($key, $env, Text, Never, |_, _, _| Ok(()), |_| None, $doc)
    };
}
macro_rules! text {
    ($key:literal, $env:literal, $field:ident, $doc:literal) => {
        setting!(
            $key,
            $env,
            Text,
            Plain,
            |r, k, s| {
                s.$field = r.string(k)?;
                Ok(())
            },
            |s| Some(Value::from(s.$field.clone())),
            $doc
        )
    };
}
/// A secret address, shown by `$shown` (redacted).
macro_rules! redacted {
    ($key:literal, $env:literal, $field:ident, $shown:ident, $doc:literal) => {
        setting!(
            $key,
            $env,
            Text,
            Redacted,
            |r, k, s| {
                s.$field = r.string(k)?.map(Secret::new);
                Ok(())
            },
            |s| Some(Value::from(s.$shown())),
            $doc
        )
    };
}
macro_rules! flag {
    ($key:literal, $env:literal, $field:ident, $doc:literal) => {
        setting!(
            $key,
            $env,
            Bool,
            Plain,
            |r, k, s| {
                if let Some(b) = r.boolean(k)? {
                    s.$field = b;
                }
                Ok(())
            },
            |s| Some(Value::Bool(s.$field)),
            $doc
        )
    };
}
/// A timeout, kept in `Settings::timeouts`' `$field`.
macro_rules! seconds {
    ($key:literal, $env:literal, $field:ident, $doc:literal) => {
        setting!(
            $key,
            $env,
            Seconds,
            Plain,
            |r, k, s| {
                if let Some(d) = r.seconds(k)? {
                    s.timeouts.$field = d;
                }
                Ok(())
            },
            |s| Some(Value::from(s.timeouts.$field.as_secs_f64())),
            $doc
        )
    };
}
/// A count kept as a `$ty` (`$too_large`: the rule on a larger number).
macro_rules! count {
    ($key:literal, $env:literal, $field:ident, $ty:ty, $too_large:literal, $doc:literal) => {
        setting!(
            $key,
            $env,
            Count,
            Plain,
            |r, k, s| {
                if let Some(n) = r.unsigned(k)? {
                    s.$field = <$ty>::try_from(n).map_err(|_| invalid(k, $too_large))?;
                }
                Ok(())
            },
            |s| Some(Value::from(s.$field)),
            $doc
        )
    };
}

/// Every setting, in the order the docs list them.
pub const SETTINGS: &[Setting] = &[
    region!("region", "ABWS_REGION",
        "required: the default region of calls that take one, one of AU CA DE ES FR IN IT JP MX UK US (GB reads as UK)"),
    client_id!("client_id", "ABWS_CLIENT_ID",
        "the app's client id; with `client_secret` and `refresh_token` the client obtains and refreshes access tokens"),
    never!("client_secret", "ABWS_CLIENT_SECRET",
        "the app's client secret (a secret: never shown)"),
    never!("refresh_token", "ABWS_REFRESH_TOKEN",
        "the refresh token of the customer's consent (a secret)"),
    never!("access_token", "ABWS_ACCESS_TOKEN",
        "a fixed access token, in place of the three above (a secret; not refreshed)"),
    text!("user_email", "ABWS_USER_EMAIL", user_email,
        "the default `x-svc-user-email` of the operations that send it"),
    text!("endpoint", "ABWS_ENDPOINT", endpoint,
        "required unless `use_sandbox`: the API's regional base address (there is no default: the specification names no address)"),
    text!("auth_endpoint", "ABWS_AUTH_ENDPOINT", auth_endpoint,
        "required with `refresh_token`: the authorization server's address"),
    text!("consent_endpoint", "ABWS_CONSENT_ENDPOINT", consent_endpoint,
        "the address of the consent page (the consent flow only)"),
    text!("sandbox_endpoint", "ABWS_SANDBOX_ENDPOINT", sandbox_endpoint,
        "the platform's regional sandbox address"),
    flag!("use_sandbox", "ABWS_USE_SANDBOX", use_sandbox,
        "bool, default false: send every operation to `sandbox_endpoint` instead of `endpoint` (the same requests)"),
    flag!("rate_limiting", "ABWS_RATE_LIMITING", rate_limiting,
        "bool, default true: pace calls with the client-side token buckets"),
    count!("max_attempts", "ABWS_MAX_ATTEMPTS", max_attempts, u32, "must be between 1 and 10",
        "1-10, default 3: attempts per operation (the one replay after a refreshed token or a renewed download address not counted)"),
    seconds!("connect_timeout", "ABWS_CONNECT_TIMEOUT", connect,
        "seconds, default 3.1"),
    seconds!("attempt_timeout", "ABWS_ATTEMPT_TIMEOUT", attempt,
        "seconds, default 30: one attempt"),
    seconds!("operation_timeout", "ABWS_OPERATION_TIMEOUT", operation,
        "seconds, default 120: one operation, retries included (timeouts past a year are cut to a year)"),
    count!("max_response_bytes", "ABWS_MAX_RESPONSE_BYTES", max_response_bytes, usize, "is too large for this platform",
        "default 32 MiB, at least 64 KiB: the largest JSON response accepted"),
    count!("max_document_bytes", "ABWS_MAX_DOCUMENT_BYTES", max_document_bytes, u64, "is too large",
        "default 1 GiB: the largest unpacked layer of a document accepted"),
    text!("app_name", "ABWS_APP_NAME", app_name,
        "printable ASCII put before the library's own user agent, e.g. \"MyErp/2.1\""),
    redacted!("proxy", "ABWS_PROXY", proxy, proxy_shown,
        "the proxy of remote https addresses, `http://[user:password@]host:port`, in place of `https_proxy`/`all_proxy`/`no_proxy` of the environment; plain-http loopback addresses never go through a proxy (a secret: shown redacted)"),
    redacted!("shared_state", "ABWS_SHARED_STATE", shared_state, shared_state_shown,
        "a Redis shared by every process of the account, `redis://[:password@]host:port/db` (`rediss://` for TLS): one rate limit, one access token and one write ledger for all of them (a secret: shown redacted)"),
    flag!("shared_state_required", "ABWS_SHARED_STATE_REQUIRED", shared_state_required,
        "bool, default false: refuse to build the client when `shared_state` cannot be used (wrong password, unreachable), instead of pacing this process alone"),
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
    for setting in SETTINGS {
        (setting.read)(&r, setting.key, &mut s)?;
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

    /// The settings in force as they may be shown, keyed as `SETTINGS`, in its order: no
    /// secret, the addresses that may hold a password redacted, `client_id` only with
    /// refresh-token credentials, an absent optional setting as null.
    pub fn shown(&self) -> Vec<(&'static str, Value)> {
        SETTINGS
            .iter()
            .filter_map(|s| Some((s.key, (s.show)(self)?)))
            .collect()
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

    /// Every setting is read into a field of its own and shown from that field: given
    /// alone on top of the defaults, it changes what is shown of it and nothing else.
    #[test]
    fn every_setting_is_read_into_its_field_and_shown_from_it() {
        let base: serde_json::Map<String, Value> = serde_json::from_str(
            r#"{"region":"JP","client_id":"a","client_secret":"b","refresh_token":"c"}"#,
        )
        .unwrap();
        let before = from_json(&Value::Object(base.clone()), "settings")
            .unwrap()
            .shown();
        let shown_before = |key: &str| before.iter().find(|(k, _)| *k == key).map(|(_, v)| v);
        for s in SETTINGS {
            if s.shown == Shown::Never {
                assert!(
                    (s.show)(&parse(r#"{"region":"JP","access_token":"t"}"#).unwrap()).is_none()
                );
                continue;
            }
            let value = match (s.key, s.kind) {
                ("region", _) => Value::from("DE"),
                (_, Kind::Text) => Value::from("http://user:pw@127.0.0.1:9/"),
                (_, Kind::Bool) => Value::Bool(shown_before(s.key) != Some(&Value::Bool(true))),
                (_, Kind::Count) => Value::from(7),
                (_, Kind::Seconds) => Value::from(7.5),
            };
            let mut given = base.clone();
            given.insert(s.key.to_string(), value);
            let after = from_json(&Value::Object(given), "settings")
                .unwrap()
                .shown();
            let changed: Vec<&str> = after
                .iter()
                .filter(|(k, v)| shown_before(k) != Some(v))
                .map(|(k, _)| *k)
                .collect();
            assert_eq!(changed, [s.key], "{}", s.key);
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
