//! OAuth: the registered app, authorization codes, refresh-token families, access tokens,
//! the token endpoint and the access-token check of every API call.

use std::collections::HashMap;
use std::sync::Mutex;

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::clock::chrono_dur;
use crate::http::{envelope, Req, Resp};
use crate::rng::Rng;
use crate::state::State;

/// The registered app and customer of this sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    pub client_id: String,
    pub client_secret: String,
    pub refresh_token: String,
    pub user_email: String,
    pub application_id: String,
    pub redirect_uri: String,
}

struct Code {
    created: DateTime<Utc>,
    redirect_uri: String,
    used: bool,
}

struct Access {
    family: u64,
    expires: DateTime<Utc>,
}

pub struct AuthStore {
    inner: Mutex<Inner>,
}

struct Inner {
    rng: Rng,
    next_family: u64,
    refresh: HashMap<String, u64>,
    revoked: bool,
    access: HashMap<String, Access>,
    codes: HashMap<String, Code>,
}

pub enum Check {
    Ok(u64),
    Missing,
    Invalid,
    Expired,
}

impl AuthStore {
    /// Creates the store with one pre-issued refresh token (family 1).
    pub fn new() -> (AuthStore, String) {
        let mut rng = Rng::from_time();
        let rt = format!("Atzr|{}", rng.token(120));
        let mut refresh = HashMap::new();
        refresh.insert(rt.clone(), 1);
        (
            AuthStore {
                inner: Mutex::new(Inner {
                    rng,
                    next_family: 2,
                    refresh,
                    revoked: false,
                    access: HashMap::new(),
                    codes: HashMap::new(),
                }),
            },
            rt,
        )
    }

    fn with<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut g)
    }

    pub fn new_code(&self, redirect_uri: &str, now: DateTime<Utc>) -> String {
        self.with(|i| {
            let code = format!("ANsbx{}", i.rng.token(20));
            i.codes.insert(
                code.clone(),
                Code {
                    created: now,
                    redirect_uri: redirect_uri.to_string(),
                    used: false,
                },
            );
            code
        })
    }

    pub fn check(&self, token: Option<&str>, now: DateTime<Utc>) -> Check {
        let Some(t) = token.filter(|t| !t.trim().is_empty()) else {
            return Check::Missing;
        };
        self.with(|i| match i.access.get(t) {
            None => Check::Invalid,
            Some(a) if a.expires <= now => Check::Expired,
            Some(a) => Check::Ok(a.family),
        })
    }

    pub fn expire_all(&self, now: DateTime<Utc>) {
        self.with(|i| {
            for a in i.access.values_mut() {
                a.expires = now - chrono::Duration::seconds(1);
            }
        })
    }

    pub fn revoke(&self) {
        self.with(|i| i.revoked = true)
    }
}

fn oauth_error(status: u16, error: &str, description: &str) -> Resp {
    Resp::json(
        status,
        &json!({"error": error, "error_description": description}),
    )
    .with_header("Cache-Control", "no-store")
    .with_header("Pragma", "no-cache")
}

/// `POST /auth/O2/token`.
pub fn token_endpoint(st: &State, req: &Req) -> Resp {
    if req.method != "POST" {
        return oauth_error(
            400,
            "invalid_request",
            "The token endpoint accepts POST only.",
        );
    }
    let ct = req.header("content-type").unwrap_or("");
    if !ct
        .to_ascii_lowercase()
        .starts_with("application/x-www-form-urlencoded")
    {
        st.counters.token_call("invalid");
        return oauth_error(
            400,
            "invalid_request",
            "Content-Type must be application/x-www-form-urlencoded.",
        );
    }
    let form: Vec<(String, String)> = serde_urlencoded::from_bytes(&req.body).unwrap_or_default();
    let f = |k: &str| {
        form.iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    };
    let grant = f("grant_type").unwrap_or("");
    st.counters
        .token_call(if grant.is_empty() { "missing" } else { grant });
    if grant.is_empty() {
        return oauth_error(
            400,
            "invalid_request",
            "The grant_type parameter is missing.",
        );
    }
    if grant != "authorization_code" && grant != "refresh_token" {
        return oauth_error(
            400,
            "unsupported_grant_type",
            "The grant type is not supported.",
        );
    }
    let (Some(cid), Some(secret)) = (f("client_id"), f("client_secret")) else {
        return oauth_error(
            400,
            "invalid_request",
            "client_id and client_secret are required.",
        );
    };
    let creds = &st.creds;
    if cid != creds.client_id || secret != creds.client_secret {
        return oauth_error(401, "invalid_client", "Client authentication failed.");
    }
    let now = st.clock.now();
    let lifetime = st.config.token_lifetime;
    let rotate = st.config.rotate_refresh_tokens;
    let result = st.auth.with(|i| -> Result<(u64, String), Resp> {
        let family_and_rt = if grant == "authorization_code" {
            let (Some(code), Some(ru)) = (f("code"), f("redirect_uri")) else {
                return Err(oauth_error(
                    400,
                    "invalid_request",
                    "code and redirect_uri are required.",
                ));
            };
            let Some(c) = i.codes.get_mut(code) else {
                return Err(oauth_error(
                    400,
                    "invalid_grant",
                    "The authorization code is invalid.",
                ));
            };
            if c.used {
                return Err(oauth_error(
                    400,
                    "invalid_grant",
                    "The authorization code was already used.",
                ));
            }
            if now - c.created > chrono::Duration::minutes(5) {
                return Err(oauth_error(
                    400,
                    "invalid_grant",
                    "The authorization code has expired.",
                ));
            }
            if c.redirect_uri != ru || ru != creds.redirect_uri {
                return Err(oauth_error(
                    400,
                    "invalid_grant",
                    "redirect_uri does not match.",
                ));
            }
            c.used = true;
            i.revoked = false;
            let fam = i.next_family;
            i.next_family += 1;
            let rt = format!("Atzr|{}", i.rng.token(120));
            i.refresh.insert(rt.clone(), fam);
            (fam, rt)
        } else {
            let Some(rt) = f("refresh_token") else {
                return Err(oauth_error(
                    400,
                    "invalid_request",
                    "refresh_token is required.",
                ));
            };
            let fam = match i.refresh.get(rt) {
                Some(fam) if !i.revoked => *fam,
                _ => {
                    return Err(oauth_error(
                        400,
                        "invalid_grant",
                        "The refresh token is invalid or authorization was revoked.",
                    ))
                }
            };
            if rotate {
                i.refresh.remove(rt);
                let new_rt = format!("Atzr|{}", i.rng.token(120));
                i.refresh.insert(new_rt.clone(), fam);
                (fam, new_rt)
            } else {
                (fam, rt.to_string())
            }
        };
        let at = format!("Atza|{}", i.rng.token(160));
        i.access.insert(
            at.clone(),
            Access {
                family: family_and_rt.0,
                expires: now + chrono_dur(lifetime),
            },
        );
        Ok((family_and_rt.0, format!("{at}\n{}", family_and_rt.1)))
    });
    match result {
        Err(r) => r,
        Ok((_, pair)) => {
            let (at, rt) = pair.split_once('\n').unwrap_or((&pair, ""));
            Resp::json(
                200,
                &json!({"access_token": at, "token_type": "bearer",
                        "expires_in": lifetime.as_secs(), "refresh_token": rt}),
            )
            .with_header("Cache-Control", "no-store")
            .with_header("Pragma", "no-cache")
        }
    }
}

/// The access-token check of every API call: the party on success.
pub fn authenticate(st: &State, req: &Req) -> Result<u64, Resp> {
    let check = st
        .auth
        .check(req.header("x-svc-access-token"), st.clock.now());
    let reason = match check {
        Check::Ok(_) => None,
        Check::Missing => Some("missing"),
        Check::Invalid => Some("invalid"),
        Check::Expired => Some("expired"),
    };
    if let Some(r) = reason {
        st.counters.access_token_rejected(r);
    }
    match check {
        Check::Ok(f) => Ok(f),
        Check::Missing => Err(envelope(
            401,
            "Unauthorized",
            "The access token is missing or malformed.",
        )),
        Check::Invalid => Err(envelope(
            401,
            "Unauthorized",
            "The access token is invalid.",
        )),
        Check::Expired => Err(envelope(
            403,
            "Unauthorized",
            "The access token has expired.",
        )),
    }
}
