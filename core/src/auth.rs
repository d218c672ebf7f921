//! OAuth: the consent-page address, the authorization-code exchange, and a token cache
//! that refreshes the access token before it expires, once for all threads.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Method};
use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::config::Credentials;
use crate::error::{Error, Result};
use crate::retry::{self, Decision, OperationKind};
pub use crate::rotations::RotationLedger;
use crate::secret::Secret;
use crate::transport::{HttpRequest, HttpResponse, SendFailure, Transport};
use crate::wire;

/// The `x-svc-access-token` header of a token (marked sensitive, wiped when dropped).
fn token_header(token: &Secret) -> Result<HeaderValue> {
    crate::transport::sensitive(token.expose(), "access_token")
}

/// `current`'s entry for access-token credentials: their token's header, never refreshed
/// (none for other credentials, or a token that cannot be a header).
fn fixed_header(credentials: &Credentials) -> Option<(HeaderValue, Option<Instant>)> {
    match credentials {
        Credentials::AccessToken(t) => Some((token_header(t).ok()?, None)),
        _ => None,
    }
}

/// The token a header built by `transport::sensitive` carries (its bytes are the token's,
/// text by construction).
pub(crate) fn header_secret(header: &HeaderValue) -> Secret {
    Secret::new(String::from_utf8_lossy(header.as_bytes()).into_owned())
}

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
    /// The access token, sent as `x-svc-access-token`.
    pub access_token: Secret,
    /// The refresh token, when the server issued one (a code exchange, or a rotation).
    pub refresh_token: Option<Secret>,
    /// The token type (`bearer` when the server sends none).
    pub token_type: String,
    /// The access token's lifetime (`expires_in`: 1 hour when absent, kept within
    /// 1 second to 1 day).
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
// repr(C), `current` first: what nearly every call reads of it sits next to what it reads
// of the rest of the client (`client::Inner`), a cache line or two for a call through one
// of a thousand clients (B11).
#[repr(C)]
pub struct TokenCache {
    /// The token calls send, as their header (built once per token: a call clones it
    /// instead of copying the token twice), and its refresh point: `state`'s token while it
    /// is outside the refresh margin, or the access-token credentials' token (no refresh
    /// point). What nearly every call needs, read without waiting on the refresh lock
    /// (B11). Set under `state`'s lock (`remember`) or the credentials' lock.
    pub(crate) current: RwLock<Option<(HeaderValue, Option<Instant>)>>,
    credentials: RwLock<Credentials>,
    token_url: String,
    transport: Transport,
    state: Mutex<Option<Cached>>,
    on_rotate: RwLock<Option<RotationCallback>>,
    /// A refresh token sent in a refresh whose outcome is unknown (an ambiguous failure, or
    /// a refresh cancelled in flight), and what happened: if the server rotates refresh
    /// tokens it may have consumed that token then.
    unsure: std::sync::Mutex<Option<(Secret, String)>>,
    ledger: Arc<RotationLedger>,
    /// The fleet's token and refresh lock (`Settings::shared_state`).
    shared: Option<Arc<crate::shared::Shared>>,
}

impl std::fmt::Debug for TokenCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenCache")
            .field("token_url", &self.token_url)
            .finish_non_exhaustive()
    }
}

impl TokenCache {
    /// A cache for `credentials`, refreshing at `auth_host`'s token endpoint; rotated
    /// refresh tokens go to `on_rotate` and to `rotations` (the client's context's), and with
    /// `shared` the token and the refresh lock are the account's (Redis).
    pub fn new(
        credentials: Credentials,
        auth_host: &str,
        transport: Transport,
        on_rotate: Option<RotationCallback>,
        shared: Option<Arc<crate::shared::Shared>>,
        rotations: Arc<RotationLedger>,
    ) -> TokenCache {
        TokenCache {
            current: RwLock::new(fixed_header(&credentials)),
            credentials: RwLock::new(credentials),
            token_url: format!("{}{}", auth_host.trim_end_matches('/'), wire::TOKEN_PATH),
            transport,
            state: Mutex::new(None),
            on_rotate: RwLock::new(on_rotate),
            unsure: std::sync::Mutex::new(None),
            ledger: rotations,
            shared,
        }
    }

    /// Sets (or, with `None`, removes) the callback that receives every rotated refresh
    /// token before it is used.
    pub fn set_rotation_callback(&self, on_rotate: Option<RotationCallback>) {
        *self.on_rotate.write().unwrap_or_else(|p| p.into_inner()) = on_rotate;
    }

    /// Replaces the credentials (a rotated client secret, a new refresh token); the next
    /// refresh uses them. A cached access token stays valid until it expires.
    pub fn set_credentials(&self, credentials: Credentials) {
        let mut held = self.credentials.write().unwrap_or_else(|p| p.into_inner());
        // New access-token credentials come before a cached token (`access_token`); the
        // credentials' lock is held so a refresh ending now cannot put its token back.
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = fixed_header(&credentials);
        *held = credentials;
    }

    /// Makes the cached token the calls' fast path, as their header (call with `state`
    /// locked); while the credentials are an access token, that one, which comes first.
    /// None when the token cannot be a header: then every call reports it (`access_header`).
    fn remember(&self, cached: Option<&Cached>) {
        let credentials = self.credentials.read().unwrap_or_else(|p| p.into_inner());
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = match &*credentials {
            Credentials::AccessToken(_) => fixed_header(&credentials),
            _ => cached.and_then(|c| Some((token_header(&c.token).ok()?, Some(c.refresh_at)))),
        };
    }

    /// The header of the token in force while it is outside the refresh margin.
    fn current_header(&self) -> Option<HeaderValue> {
        match &*self.current.read().unwrap_or_else(|p| p.into_inner()) {
            Some((header, None)) => Some(header.clone()),
            Some((header, Some(refresh_at))) if Instant::now() < *refresh_at => {
                Some(header.clone())
            }
            _ => None,
        }
    }

    /// The `x-svc-access-token` header of a valid access token (`access_token`): the cached
    /// token's header shared (a reference count), else built from the token.
    pub async fn access_header(&self) -> Result<HeaderValue> {
        if let Some(header) = self.current_header() {
            return Ok(header);
        }
        token_header(&self.access_token().await?)
    }

    /// The credentials in force (after any refresh-token rotation).
    pub fn credentials(&self) -> Credentials {
        self.credentials
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// A valid access token: the cached one while it is outside the refresh margin,
    /// otherwise a fresh one. Concurrent callers wait for one refresh.
    pub async fn access_token(&self) -> Result<Secret> {
        if let Some(header) = self.current_header() {
            return Ok(header_secret(&header));
        }
        // Read in place: a copy of the credentials is three secrets cloned per call.
        if let Credentials::AccessToken(token) =
            &*self.credentials.read().unwrap_or_else(|p| p.into_inner())
        {
            return Ok(token.clone());
        }
        let mut state = self.state.lock().await;
        if let Some(c) = state.as_ref() {
            if Instant::now() < c.refresh_at {
                self.remember(Some(c));
                return Ok(c.token.clone());
            }
        }
        let fresh = match self.fleet_or_own().await {
            Ok(fresh) => fresh,
            // Refused after refreshing on its own, beside a fleet (Redis unreachable): another
            // process's rotation may have consumed the token.
            Err((e, true)) if e.to_string().contains("invalid_grant") => {
                match self.shared.clone() {
                    Some(shared) => self.await_fleet(&shared, e).await?,
                    None => return Err(e),
                }
            }
            Err((e, _)) => return Err(e),
        };
        let token = fresh.token.clone();
        self.remember(Some(&fresh));
        *state = Some(fresh);
        Ok(token)
    }

    /// A fresh token: the fleet's (`fleet_token`), or this process's own refresh; an error
    /// says whether it is that of a refresh made on its own while there is a fleet.
    async fn fleet_or_own(&self) -> std::result::Result<Cached, (Error, bool)> {
        let Some(shared) = self.shared.clone() else {
            return self.refresh().await.map_err(|e| (e, false));
        };
        match self.fleet_token(&shared).await {
            Ok(Some(fresh)) => Ok(fresh),
            Ok(None) => self.refresh().await.map_err(|e| (e, true)),
            Err(e) => Err((e, false)),
        }
    }

    /// The refresh token was refused (`refused`, invalid_grant) with shared state: another
    /// process of the fleet may have consumed it in a rotation while Redis could not be
    /// reached (each refreshed on its own). That process hands its successor to the fleet
    /// once Redis is back (`Shared::rotated`): wait for it (or for the fleet's access
    /// token) for up to the refresh lock's life, then refresh under the fleet's lock.
    async fn await_fleet(&self, shared: &crate::shared::Shared, refused: Error) -> Result<Cached> {
        let Credentials::RefreshToken { refresh_token, .. } = self.credentials() else {
            return Err(refused);
        };
        let until = Instant::now() + crate::shared::REFRESH_LOCK;
        while Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if let Some((t, left)) = shared.token(Duration::ZERO).await {
                return Ok(fleet_cached(t, left));
            }
            if shared
                .refresh_token()
                .await
                .is_some_and(|newest| newest != refresh_token)
            {
                if let Some(fresh) = self.fleet_token(shared).await? {
                    return Ok(fresh);
                }
            }
        }
        Err(refused)
    }

    /// The fleet's token: the one stored in the shared state, or one refresh under the
    /// fleet's lock (the others wait for its token instead of refreshing, and take the lock
    /// when it comes free without a token). `None` when the shared state cannot help
    /// (unreachable, or the lock still held after twice its life): refresh here.
    async fn fleet_token(&self, shared: &crate::shared::Shared) -> Result<Option<Cached>> {
        // A waiter whose lock holder failed (its refresh failed, or it vanished and the
        // lock expired) finds the lock free and no token: it takes the lock itself, so one
        // more refresh happens, not one per waiter after a stall.
        let until = Instant::now() + 2 * crate::shared::REFRESH_LOCK;
        loop {
            if let Some((t, left)) = shared.token(Duration::ZERO).await {
                return Ok(Some(fleet_cached(t, left)));
            }
            match shared.lock_refresh().await {
                None => return Ok(None),
                Some(Some(lock)) => return self.refresh_under_lock(shared, lock).await,
                Some(None) => {
                    // Another process is refreshing: its token arrives within the lock's
                    // life, or the lock comes free.
                    if Instant::now() >= until || shared.is_down() {
                        return Ok(None);
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }

    /// One refresh for the fleet under its lock (`lock`, released at the end).
    async fn refresh_under_lock(
        &self,
        shared: &crate::shared::Shared,
        lock: String,
    ) -> Result<Option<Cached>> {
        // A process that held the lock a moment ago may have stored its token since
        // we looked.
        if let Some((t, left)) = shared.token(Duration::ZERO).await {
            shared.unlock_refresh(lock).await;
            return Ok(Some(fleet_cached(t, left)));
        }
        // A rotation another process made comes first: its successor is the token. It is
        // used, but handed to `on_refresh_token` only once the server has accepted it (read
        // from Redis, it is not the server's word).
        let mut adopted = None;
        if let (
            Some(newest),
            Credentials::RefreshToken {
                client_id,
                client_secret,
                refresh_token,
            },
        ) = (shared.refresh_token().await, self.credentials())
        {
            if newest != refresh_token {
                self.set_credentials(Credentials::RefreshToken {
                    client_id: client_id.clone(),
                    client_secret,
                    refresh_token: newest.clone(),
                });
                adopted = Some((client_id, refresh_token, newest));
            }
        }
        let fresh = self.refresh().await;
        // The successor (if the server rotated) to the fleet, before the lock is released.
        shared.publish_rotation().await;
        if let (Ok(_), Some((client_id, old, newest))) = (&fresh, adopted) {
            // Accepted: the process's other clients holding `old` follow it, and the callback
            // gets it unless the server rotated it at once (then it got the successor).
            let rotated = self.ledger.successor(&client_id, &newest).is_some();
            self.ledger.record(&client_id, &old, &newest);
            if !rotated {
                self.hand_over(&newest);
            }
        }
        if let Ok(c) = &fresh {
            shared
                .put_token(
                    &c.token,
                    c.refresh_at.saturating_duration_since(Instant::now()),
                )
                .await;
        }
        shared.unlock_refresh(lock).await;
        fresh.map(Some)
    }

    /// The server said `used` has expired: drop it, unless another caller already
    /// replaced it (then the next `access_token` returns the replacement).
    pub async fn invalidate(&self, used: &Secret) {
        if let Some(shared) = &self.shared {
            shared.drop_token(used).await;
        }
        let mut state = self.state.lock().await;
        if state.as_ref().is_some_and(|c| &c.token == used) {
            *state = None;
            self.remember(None);
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
        let mut attempt = 0;
        loop {
            attempt += 1;
            // Re-read for every attempt: a rotation received meanwhile (by any client of the
            // process) replaces the token, which is then never sent again.
            let (client_id, client_secret, refresh_token) = self.newest_refresh_token()?;
            let form = [
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh_token.expose()),
                ("client_id", client_id.as_str()),
                ("client_secret", client_secret.expose()),
            ];
            let in_flight = RefreshInFlight {
                cache: self,
                token: Some(refresh_token.clone()),
            };
            let outcome = token_attempt(&self.transport, &self.token_url, &form).await;
            in_flight.done();
            let failure = match outcome {
                Ok((rotated, parsed)) => {
                    // A rotated token is kept even when the rest of the answer is unusable:
                    // the one sent is consumed. An unreadable answer without one leaves the
                    // token sent in doubt (the server did process the refresh).
                    let rotated = rotated.filter(|t| t != &refresh_token);
                    self.set_unsure(match (&parsed, &rotated) {
                        (Err(e), None) => Some((refresh_token.clone(), e.to_string())),
                        _ => None,
                    });
                    if let Some(new) = rotated {
                        self.rotate(&client_id, &client_secret, &refresh_token, new);
                    }
                    match parsed {
                        Ok(set) => {
                            let now = Instant::now();
                            return Ok(Cached {
                                token: set.access_token,
                                refresh_at: now
                                    + set
                                        .expires_in
                                        .saturating_sub(refresh_margin(set.expires_in)),
                                expires_at: now + set.expires_in,
                            });
                        }
                        Err(e) => TokenFailure {
                            class: crate::retry::FailureClass::Final,
                            error: e,
                            oauth_code: None,
                        },
                    }
                }
                Err(f) => f,
            };
            if failure.class == crate::retry::FailureClass::Ambiguous {
                self.set_unsure(Some((refresh_token.clone(), failure.error.to_string())));
            }
            match retry::decide(OperationKind::TokenRefresh, failure.class, attempt, 3, 0) {
                Decision::Retry => {
                    tokio::time::sleep(retry::backoff(attempt, rand::random::<f64>())).await
                }
                _ => {
                    return Err(self
                        .explain(&client_id, &refresh_token, failure)
                        .with_attempts(attempt))
                }
            }
        }
    }

    /// The refresh credentials in force, with the newest successor of the refresh token
    /// when a rotation in this process consumed it (handed to this client's callback first).
    fn newest_refresh_token(&self) -> Result<(String, Secret, Secret)> {
        let Credentials::RefreshToken {
            client_id,
            client_secret,
            refresh_token,
        } = self.credentials()
        else {
            return Err(Error::internal("refresh without a refresh token"));
        };
        match self.ledger.successor(&client_id, &refresh_token) {
            Some(newer) => {
                self.hand_over(&newer);
                self.set_credentials(Credentials::RefreshToken {
                    client_id: client_id.clone(),
                    client_secret: client_secret.clone(),
                    refresh_token: newer.clone(),
                });
                Ok((client_id, client_secret, newer))
            }
            None => Ok((client_id, client_secret, refresh_token)),
        }
    }

    /// The server replaced `old` with `new`: the callback persists it first (if the process
    /// dies after this point the new token is not lost), then the client uses it.
    fn rotate(&self, client_id: &str, client_secret: &Secret, old: &Secret, new: Secret) {
        self.ledger.record(client_id, old, &new);
        self.hand_over(&new);
        if let Some(shared) = &self.shared {
            shared.rotated(new.clone());
        }
        self.set_credentials(Credentials::RefreshToken {
            client_id: client_id.to_string(),
            client_secret: client_secret.clone(),
            refresh_token: new,
        });
        log::debug!(target: "abws", "the token endpoint rotated the refresh token");
    }

    /// Gives a new refresh token to the rotation callback; a panicking callback is logged
    /// and does not stop the refresh (the token is in use either way).
    fn hand_over(&self, token: &Secret) {
        let cb = self
            .on_rotate
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        if let Some(cb) = cb {
            let run = std::panic::AssertUnwindSafe(|| cb(token.expose()));
            if std::panic::catch_unwind(run).is_err() {
                log::error!(
                    target: "abws",
                    "the refresh-token rotation callback panicked; the rotated token is in use by \
                     this client but may not have been persisted"
                );
            }
        }
    }

    fn set_unsure(&self, value: Option<(Secret, String)>) {
        *self.unsure.lock().unwrap_or_else(|p| p.into_inner()) = value;
    }

    /// The error of a failed refresh, saying what the client knows about the token sent:
    /// refused after an earlier refresh with it had an unknown outcome (consumed then, its
    /// successor lost), or issued by a rotation.
    fn explain(&self, client_id: &str, sent: &Secret, failure: TokenFailure) -> Error {
        let unsure = self
            .unsure
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .filter(|(t, _)| t == sent)
            .map(|(_, why)| why.clone());
        let origin = self.ledger.origin(client_id, sent);
        let rotation = origin.map(|(at, n)| {
            format!(
                "the refresh token sent was issued by a rotation {:.0} s ago ({n} rotation{} seen \
                 by this process); the token it replaced is consumed, so a process restarting \
                 must use the newest token the rotation callback received",
                at.elapsed().as_secs_f64(),
                if n == 1 { "" } else { "s" }
            )
        });
        match (failure.oauth_code.as_deref(), unsure) {
            (Some("invalid_grant"), Some(why)) => Error::auth(format!(
                "the refresh token was refused (invalid_grant) after an earlier refresh with it \
                 failed once it had been sent ({why}); a server that rotates refresh tokens \
                 consumed it then and sent its successor in the answer that was lost, so no \
                 usable refresh token remains: run the consent flow again"
            ))
            .with_request_id(failure.error.request_id().map(str::to_string)),
            _ => match rotation {
                Some(r) => failure.error.with_hint(r),
                None => failure.error,
            },
        }
    }
}

/// Covers a refresh request on the wire: dropped before its answer (the refresh was
/// cancelled), the token it carries may have been consumed.
struct RefreshInFlight<'a> {
    cache: &'a TokenCache,
    token: Option<Secret>,
}

impl RefreshInFlight<'_> {
    fn done(mut self) {
        self.token = None;
    }
}

impl Drop for RefreshInFlight<'_> {
    fn drop(&mut self) {
        if let Some(t) = self.token.take() {
            self.cache.set_unsure(Some((
                t,
                "a refresh was cancelled while its request was in flight".to_string(),
            )));
        }
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

/// A token read from the shared state, stored there until its refresh point (not its
/// expiry): whoever finds it still has the margin left, and whoever finds none refreshes.
fn fleet_cached(token: Secret, left: Duration) -> Cached {
    let now = Instant::now();
    Cached {
        token,
        refresh_at: now + left,
        expires_at: now + left,
    }
}

/// How one attempt at the token endpoint failed.
struct TokenFailure {
    class: crate::retry::FailureClass,
    error: Error,
    /// The OAuth `error` code of the answer (`invalid_grant`, ...).
    oauth_code: Option<String>,
}

/// One POST to the token endpoint. A 2xx gives the refresh token it carries (kept even when
/// the rest of the answer is unusable) and the token set.
async fn token_attempt(
    transport: &Transport,
    url: &str,
    form: &[(&str, &str)],
) -> std::result::Result<(Option<Secret>, Result<TokenSet>), TokenFailure> {
    // The form holds the secrets: written into room enough for its encoded form (no
    // regrowth), then wiped when the HTTP client drops the body.
    let room = form.iter().map(|(k, v)| k.len() + 3 * v.len() + 2).sum();
    let encoded = url::form_urlencoded::Serializer::new(String::with_capacity(room))
        .extend_pairs(form)
        .finish();
    let body = Bytes::from_owner(zeroize::Zeroizing::new(encoded));
    let grant = form[0].1;
    let req = HttpRequest {
        method: Method::POST,
        url: crate::transport::address(url)?,
        headers: vec![(
            http::header::ACCEPT,
            http::HeaderValue::from_static("application/json"),
        )],
        body: Some((body, "application/x-www-form-urlencoded")),
    };
    match transport.send(req, Duration::from_secs(30)).await {
        Ok(resp) if resp.is_success() => Ok(parse_token(&resp)),
        Ok(resp) => {
            let (error, code) = token_error(&resp, grant);
            let class = match resp.status {
                429 => crate::retry::FailureClass::RejectedBeforeProcessing,
                500 | 502 | 503 | 504 | 408 => crate::retry::FailureClass::Ambiguous,
                _ => crate::retry::FailureClass::Final,
            };
            Err(TokenFailure {
                class,
                error,
                oauth_code: code,
            })
        }
        Err(f) => Err(f.into()),
    }
}

impl From<SendFailure> for TokenFailure {
    fn from(f: SendFailure) -> TokenFailure {
        TokenFailure {
            class: f.class,
            error: f.error,
            oauth_code: None,
        }
    }
}

async fn token_call(
    transport: &Transport,
    url: &str,
    form: &[(&str, &str)],
    kind: OperationKind,
) -> Result<TokenSet> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        let failure = match token_attempt(transport, url, form).await {
            Ok((_, parsed)) => return parsed,
            Err(f) => f,
        };
        let error = failure.error;
        match retry::decide(kind, failure.class, attempt, 3, 0) {
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

/// The refresh token a token answer carries (if any), and its token set.
fn parse_token(resp: &HttpResponse) -> (Option<Secret>, Result<TokenSet>) {
    #[derive(serde::Deserialize)]
    struct RefreshOnly {
        #[serde(default)]
        refresh_token: Option<String>,
    }
    let body: TokenBody = match serde_json::from_slice(&resp.body) {
        Ok(b) => b,
        Err(e) => {
            let rotated = serde_json::from_slice::<RefreshOnly>(&resp.body)
                .ok()
                .and_then(|r| r.refresh_token)
                .filter(|t| !t.is_empty())
                .map(Secret::new);
            return (
                rotated,
                Err(Error::auth(format!(
                    "the token endpoint's answer is not a token response ({e})"
                ))),
            );
        }
    };
    let rotated = body
        .refresh_token
        .filter(|t| !t.is_empty())
        .map(Secret::new);
    if body.access_token.is_empty() {
        return (
            rotated,
            Err(Error::auth(
                "the token endpoint returned an empty access_token",
            )),
        );
    }
    let set = TokenSet {
        access_token: Secret::new(body.access_token),
        refresh_token: rotated.clone(),
        token_type: body.token_type.unwrap_or_else(|| "bearer".into()),
        // Bounded: the server's number must not overflow the clock (at most a day).
        expires_in: Duration::from_secs(body.expires_in.unwrap_or(3600).clamp(1, 86_400)),
    };
    (rotated, Ok(set))
}

/// Turns an OAuth error answer into an auth error that says what to do, and its OAuth code.
fn token_error(resp: &HttpResponse, grant: &str) -> (Error, Option<String>) {
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
    (
        Error::auth(message).with_request_id(resp.request_id()),
        (!code.is_empty()).then(|| code.to_string()),
    )
}
