//! OAuth: the consent-page address, the authorization-code exchange, and a token cache
//! that refreshes the access token before it expires, once for all threads.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use bytes::Bytes;
use http::Method;
use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::config::Credentials;
use crate::error::{Error, Result};
use crate::retry::{self, Decision, OperationKind};
use crate::secret::Secret;
use crate::transport::{HttpRequest, HttpResponse, Transport};
use crate::wire;

/// Builds the consent-page address the customer's admin opens in a browser.
pub fn consent_url(
    consent_host: &str,
    state: &str,
    redirect_uri: &str,
    application_id: &str,
) -> Result<String> {
    crate::validate::non_empty("state", state)?;
    crate::validate::non_empty("redirect_uri", redirect_uri)?;
    crate::validate::non_empty("application_id", application_id)?;
    let mut url = url::Url::parse(consent_host)
        .and_then(|u| u.join(wire::CONSENT_PATH))
        .map_err(|e| {
            Error::validation("consent_endpoint", format!("must be an absolute URL ({e})"))
        })?;
    url.query_pairs_mut()
        .append_pair("state", state)
        .append_pair("redirect_uri", redirect_uri)
        .append_pair("applicationId", application_id);
    Ok(url.into())
}

/// What the token endpoint returns.
#[derive(Clone, Debug)]
pub struct TokenSet {
    pub access_token: Secret,
    pub refresh_token: Option<Secret>,
    pub token_type: String,
    pub expires_in: Duration,
}

#[derive(serde::Deserialize)]
struct TokenBody {
    access_token: String,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    token_type: Option<String>,
    #[serde(default)]
    expires_in: Option<u64>,
}

#[derive(serde::Deserialize)]
struct OAuthError {
    error: String,
    #[serde(default)]
    error_description: Option<String>,
}

/// The refresh margin: 5 minutes for the usual one-hour token, scaled down to a fifth
/// of the lifetime for short-lived tokens so they are not refreshed on every call.
pub fn refresh_margin(lifetime: Duration) -> Duration {
    (lifetime / 5).min(Duration::from_secs(300))
}

/// Called with the new refresh token when the server rotates it, before it is used.
pub type RotationCallback = Arc<dyn Fn(&str) + Send + Sync>;

struct Cached {
    token: Secret,
    /// Monotonic: wall-clock jumps do not move it.
    refresh_at: Instant,
    expires_at: Instant,
}

/// Holds the current access token and refreshes it (single flight).
pub struct TokenCache {
    credentials: RwLock<Credentials>,
    token_url: String,
    transport: Transport,
    state: Mutex<Option<Cached>>,
    on_rotate: Option<RotationCallback>,
}

impl std::fmt::Debug for TokenCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenCache")
            .field("token_url", &self.token_url)
            .finish_non_exhaustive()
    }
}

impl TokenCache {
    pub fn new(
        credentials: Credentials,
        auth_host: &str,
        transport: Transport,
        on_rotate: Option<RotationCallback>,
    ) -> TokenCache {
        TokenCache {
            credentials: RwLock::new(credentials),
            token_url: format!("{}{}", auth_host.trim_end_matches('/'), wire::TOKEN_PATH),
            transport,
            state: Mutex::new(None),
            on_rotate,
        }
    }

    /// Replaces the credentials (a rotated client secret, a new refresh token); the next
    /// refresh uses them. A cached access token stays valid until it expires.
    pub fn set_credentials(&self, credentials: Credentials) {
        *self.credentials.write().unwrap_or_else(|p| p.into_inner()) = credentials;
    }

    pub fn credentials(&self) -> Credentials {
        self.credentials
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// A valid access token: the cached one while it is outside the refresh margin,
    /// otherwise a fresh one. Concurrent callers wait for one refresh.
    pub async fn access_token(&self) -> Result<Secret> {
        let creds = self.credentials();
        if let Credentials::AccessToken(token) = creds {
            return Ok(token);
        }
        let mut state = self.state.lock().await;
        if let Some(c) = state.as_ref() {
            if Instant::now() < c.refresh_at {
                return Ok(c.token.clone());
            }
        }
        let fresh = self.refresh().await?;
        let token = fresh.token.clone();
        *state = Some(fresh);
        Ok(token)
    }

    /// The server said `used` has expired: drop it, unless another caller already
    /// replaced it (then the next `access_token` returns the replacement).
    pub async fn invalidate(&self, used: &Secret) {
        let mut state = self.state.lock().await;
        if state.as_ref().is_some_and(|c| &c.token == used) {
            *state = None;
        }
    }

    /// True when the token is past its expiry on our monotonic clock.
    pub async fn is_expired(&self, used: &Secret) -> bool {
        let state = self.state.lock().await;
        match state.as_ref() {
            Some(c) if &c.token == used => Instant::now() >= c.expires_at,
            _ => false,
        }
    }

    async fn refresh(&self) -> Result<Cached> {
        let Credentials::RefreshToken {
            client_id,
            client_secret,
            refresh_token,
        } = self.credentials()
        else {
            return Err(Error::internal("refresh without a refresh token"));
        };
        let form = [
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token.expose()),
            ("client_id", client_id.as_str()),
            ("client_secret", client_secret.expose()),
        ];
        let set = token_call(
            &self.transport,
            &self.token_url,
            &form,
            OperationKind::TokenRefresh,
        )
        .await?;
        if let Some(new_refresh) = &set.refresh_token {
            if new_refresh != &refresh_token {
                // Hand the rotated token to the caller's persistence first: if the
                // process dies after this point the new token is not lost.
                if let Some(cb) = &self.on_rotate {
                    cb(new_refresh.expose());
                }
                self.set_credentials(Credentials::RefreshToken {
                    client_id,
                    client_secret,
                    refresh_token: new_refresh.clone(),
                });
            }
        }
        let now = Instant::now();
        Ok(Cached {
            token: set.access_token,
            refresh_at: now
                + set
                    .expires_in
                    .saturating_sub(refresh_margin(set.expires_in)),
            expires_at: now + set.expires_in,
        })
    }
}

/// Exchanges an authorization code for tokens. The code is single-use: the request is
/// never resent once it may have been written.
pub async fn exchange_code(
    transport: &Transport,
    auth_host: &str,
    client_id: &str,
    client_secret: &Secret,
    code: &Secret,
    redirect_uri: &str,
) -> Result<TokenSet> {
    crate::validate::non_empty("code", code.expose())?;
    crate::validate::non_empty("client_id", client_id)?;
    crate::validate::non_empty("redirect_uri", redirect_uri)?;
    let url = format!("{}{}", auth_host.trim_end_matches('/'), wire::TOKEN_PATH);
    let form = [
        ("grant_type", "authorization_code"),
        ("code", code.expose()),
        ("client_id", client_id),
        ("client_secret", client_secret.expose()),
        ("redirect_uri", redirect_uri),
    ];
    token_call(transport, &url, &form, OperationKind::CodeExchange).await
}

async fn token_call(
    transport: &Transport,
    url: &str,
    form: &[(&str, &str)],
    kind: OperationKind,
) -> Result<TokenSet> {
    // The form holds the secrets: written into room enough for its encoded form (no
    // regrowth), then wiped when the HTTP client drops the body.
    let room = form.iter().map(|(k, v)| k.len() + 3 * v.len() + 2).sum();
    let encoded = url::form_urlencoded::Serializer::new(String::with_capacity(room))
        .extend_pairs(form)
        .finish();
    let body = Bytes::from_owner(zeroize::Zeroizing::new(encoded));
    let grant = form[0].1;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let req = HttpRequest {
            method: Method::POST,
            url: url.to_string(),
            headers: vec![(
                http::header::ACCEPT,
                http::HeaderValue::from_static("application/json"),
            )],
            body: Some((body.clone(), "application/x-www-form-urlencoded")),
        };
        let (class, error) = match transport.send(req, Duration::from_secs(30)).await {
            Ok(resp) if resp.is_success() => return parse_token(&resp),
            Ok(resp) => {
                let error = token_error(&resp, grant);
                let class = match resp.status {
                    429 => crate::retry::FailureClass::RejectedBeforeProcessing,
                    500 | 502 | 503 | 504 | 408 => crate::retry::FailureClass::Ambiguous,
                    _ => crate::retry::FailureClass::Final,
                };
                (class, error)
            }
            Err(f) => (f.class, f.error),
        };
        match retry::decide(kind, class, attempt, 3, 0) {
            Decision::Retry => tokio::time::sleep(retry::backoff(attempt, rand::random::<f64>())).await,
            Decision::Fail => return Err(error.with_attempts(attempt)),
            Decision::OutcomeUnknown => {
                return Err(Error::auth(format!(
                    "the authorization code exchange failed after the request was sent ({error}); it was not \
                     resent because a code works only once and may already be consumed: run the consent flow again"
                ))
                .with_attempts(attempt))
            }
        }
    }
}

fn parse_token(resp: &HttpResponse) -> Result<TokenSet> {
    let body: TokenBody = serde_json::from_slice(&resp.body).map_err(|e| {
        Error::auth(format!(
            "the token endpoint's answer is not a token response ({e})"
        ))
    })?;
    if body.access_token.is_empty() {
        return Err(Error::auth(
            "the token endpoint returned an empty access_token",
        ));
    }
    Ok(TokenSet {
        access_token: Secret::new(body.access_token),
        refresh_token: body
            .refresh_token
            .filter(|t| !t.is_empty())
            .map(Secret::new),
        token_type: body.token_type.unwrap_or_else(|| "bearer".into()),
        // Bounded: the server's number must not overflow the clock (at most a day).
        expires_in: Duration::from_secs(body.expires_in.unwrap_or(3600).clamp(1, 86_400)),
    })
}

/// Turns an OAuth error answer into an auth error that says what to do.
fn token_error(resp: &HttpResponse, grant: &str) -> Error {
    let parsed: Option<OAuthError> = serde_json::from_slice(&resp.body).ok();
    let (code, description) = match &parsed {
        Some(e) => (
            crate::error::server_text(&e.error),
            crate::error::server_text(e.error_description.as_deref().unwrap_or_default()),
        ),
        None => (String::new(), resp.describe_body()),
    };
    let code = code.as_str();
    let advice = match (code, grant) {
        ("invalid_grant", "refresh_token") => {
            "the refresh token was rejected: the customer's consent was revoked or the token is wrong; run the consent flow again"
        }
        ("invalid_grant", _) => "the authorization code was rejected: it is used, expired (5 minutes) or issued for another redirect_uri; run the consent flow again",
        ("invalid_client", _) => "the client_id or client_secret was rejected: check them, or set the rotated client secret",
        ("unauthorized_client", _) => "this app client may not use this grant",
        _ => "the token endpoint refused the request",
    };
    let mut message = format!("{advice} (HTTP {}", resp.status);
    if !code.is_empty() {
        message.push_str(&format!(", {code}"));
    }
    if !description.is_empty() {
        message.push_str(&format!(": {description}"));
    }
    message.push(')');
    Error::auth(message).with_request_id(resp.request_id())
}
