//! The async client: one operation call = validate (done by the caller) → pace → token →
//! send → classify → retry or report. Every API group goes through `Client::execute`.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderName, HeaderValue};
use tokio::time::Instant;

use crate::auth::{RotationCallback, TokenCache};
use crate::config::{Credentials, Endpoints, RegionGroup, Settings};
use crate::error::{Error, Result};
use crate::operations::Operation;
use crate::process::{self, Context};
use crate::ratelimit::{parse_rate_header, Bucket, BucketKey};
use crate::retry::{self, Decision, FailureClass, RetryBudget};
use crate::transport::{self, HttpRequest, HttpResponse, Transport};
use crate::wire;

/// One call of an operation, before the client adds credentials.
#[derive(Clone, Debug)]
pub struct Call {
    pub op: &'static Operation,
    /// Values of the path's `{name}` placeholders.
    pub path: Vec<(&'static str, String)>,
    /// Query parameters, in order (lists already comma-joined).
    pub query: Vec<(&'static str, String)>,
    /// A JSON body.
    pub body: Option<Bytes>,
    /// `x-svc-user-email` for this call (else the client's default).
    pub user_email: Option<String>,
    /// The externalId of an order or cart line, reported if the outcome is unknown.
    pub external_id: Option<String>,
    /// Regional group whose bucket paces this call (else the client's region's group).
    pub group: Option<RegionGroup>,
}

impl Call {
    pub fn new(op: &'static Operation) -> Call {
        Call {
            op,
            path: vec![],
            query: vec![],
            body: None,
            user_email: None,
            external_id: None,
            group: None,
        }
    }
    pub fn path(mut self, name: &'static str, value: impl Into<String>) -> Call {
        self.path.push((name, value.into()));
        self
    }
    pub fn query(mut self, name: &'static str, value: impl Into<String>) -> Call {
        self.query.push((name, value.into()));
        self
    }
    /// Adds the parameter only when a value is given.
    pub fn query_opt(self, name: &'static str, value: Option<impl Into<String>>) -> Call {
        match value {
            Some(v) => self.query(name, v),
            None => self,
        }
    }
    pub fn json<T: serde::Serialize>(mut self, body: &T) -> Result<Call> {
        let bytes = serde_json::to_vec(body)
            .map_err(|e| Error::internal(format!("cannot encode the request body: {e}")))?;
        self.body = Some(Bytes::from(bytes));
        Ok(self)
    }
}

pub(crate) struct Inner {
    settings: std::sync::RwLock<Settings>,
    endpoints: Endpoints,
    transport: Transport,
    tokens: TokenCache,
    ctx: Arc<Context>,
}

/// The asynchronous client. Cheap to clone; clones share the connection pool and token.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.settings();
        f.debug_struct("Client")
            .field("region", &s.region)
            .field("endpoint", &self.inner.endpoints.api)
            .field("user_email", &s.user_email.as_ref().map(|_| "***"))
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Builds a client; checks the settings first.
    pub fn new(settings: Settings) -> Result<Client> {
        Client::with_rotation(settings, None)
    }

    /// Builds a client whose `on_rotate` receives every new refresh token the server
    /// issues, before it is used (persist it there).
    pub fn with_rotation(
        settings: Settings,
        on_rotate: Option<RotationCallback>,
    ) -> Result<Client> {
        settings.check()?;
        let endpoints = settings.endpoints();
        let transport = Transport::new(&settings)?;
        let tokens = TokenCache::new(
            settings.credentials.clone(),
            &endpoints.auth,
            transport.clone(),
            on_rotate,
        );
        Ok(Client {
            inner: Arc::new(Inner {
                settings: std::sync::RwLock::new(settings),
                endpoints,
                transport,
                tokens,
                ctx: process::context(),
            }),
        })
    }

    /// A copy of the settings in force (credentials included; they redact themselves).
    pub fn settings(&self) -> Settings {
        self.inner
            .settings
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn endpoints(&self) -> &Endpoints {
        &self.inner.endpoints
    }

    pub fn transport(&self) -> &Transport {
        &self.inner.transport
    }

    /// Replaces the credentials on a live client (a rotated client secret).
    pub fn set_credentials(&self, credentials: Credentials) -> Result<()> {
        let mut next = self.settings();
        next.credentials = credentials.clone();
        next.check()?;
        self.inner.tokens.set_credentials(credentials);
        *self
            .inner
            .settings
            .write()
            .unwrap_or_else(|p| p.into_inner()) = next;
        Ok(())
    }

    /// The credentials in force (after any refresh-token rotation).
    pub fn credentials(&self) -> Credentials {
        self.inner.tokens.credentials()
    }

    /// A valid access token (refreshing if needed).
    pub async fn access_token(&self) -> Result<crate::Secret> {
        self.inner.tokens.access_token().await
    }

    pub fn retry_budget(&self) -> &RetryBudget {
        &self.inner.ctx.retry_budget
    }

    /// The bucket that paces `op` for this client's party.
    pub fn bucket(&self, op: &'static Operation, group: Option<RegionGroup>) -> Arc<Bucket> {
        let s = self.settings();
        let key = BucketKey {
            party: s.credentials.party(),
            group: group.unwrap_or(s.region.group()).as_str(),
            operation: op.id,
        };
        self.inner.ctx.limiters.bucket(key, op.plan)
    }

    /// The full address of a call (placeholders filled and encoded, query appended).
    pub fn url(&self, call: &Call) -> Result<String> {
        let mut url = url::Url::parse(&self.inner.endpoints.api)
            .map_err(|e| Error::validation("endpoint", format!("must be an absolute URL ({e})")))?;
        {
            let mut segs = url
                .path_segments_mut()
                .map_err(|_| Error::validation("endpoint", "cannot carry a path"))?;
            segs.pop_if_empty();
            for seg in call.op.path.trim_start_matches('/').split('/') {
                if let Some(name) = seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                    let value = call
                        .path
                        .iter()
                        .find(|(n, _)| *n == name)
                        .map(|(_, v)| v.as_str())
                        .ok_or_else(|| {
                            Error::internal(format!(
                                "{}: missing path parameter {name}",
                                call.op.id
                            ))
                        })?;
                    crate::validate::non_empty(name, value)?;
                    segs.push(value);
                } else {
                    segs.push(seg);
                }
            }
        }
        if !call.query.is_empty() {
            let mut q = url.query_pairs_mut();
            for (k, v) in &call.query {
                q.append_pair(k, v);
            }
        }
        Ok(url.into())
    }

    /// Runs one call to completion: paces it, authenticates it, sends it, and retries what
    /// the policy allows within the operation's deadline and the process retry budget.
    pub async fn execute(&self, call: &Call) -> Result<HttpResponse> {
        let op = call.op;
        self.execute_inner(call)
            .await
            .map_err(|e| e.with_operation(op.id))
    }

    async fn execute_inner(&self, call: &Call) -> Result<HttpResponse> {
        let op = call.op;
        let settings = self.settings();
        let deadline = Instant::now() + settings.timeouts.operation;
        let url = self.url(call)?;
        let email = call.user_email.clone().or(settings.user_email.clone());
        if op.needs_user_email() && email.is_none() {
            return Err(Error::validation(
                "user_email",
                format!("{} requires the x-svc-user-email header: pass user_email or set it on the client", op.id),
            ));
        }
        let email_header = match &email {
            Some(e) => {
                crate::validate::email("user_email", e)?;
                Some(transport::sensitive(e, "user_email")?)
            }
            None => None,
        };
        let bucket = settings.rate_limiting.then(|| self.bucket(op, call.group));
        let budget = &self.inner.ctx.retry_budget;
        let mut attempt = 0u32;
        let mut ambiguous_retries = 0u32;
        let mut refreshed = false;
        let mut spent = 0i64;
        loop {
            attempt += 1;
            if let Some(b) = &bucket {
                if Instant::now() + b.wait_estimate() > deadline
                    || tokio::time::timeout_at(deadline, b.acquire())
                        .await
                        .is_err()
                {
                    return Err(Error::timeout(format!(
                        "the rate limit would delay the call past its {:.0} s deadline",
                        settings.timeouts.operation.as_secs_f64()
                    ))
                    .with_attempts(attempt - 1));
                }
            }
            let token = self.inner.tokens.access_token().await?;
            let mut headers: Vec<(HeaderName, HeaderValue)> = vec![
                (
                    HeaderName::from_static(wire::HEADER_ACCESS_TOKEN),
                    transport::sensitive(token.expose(), "access_token")?,
                ),
                (
                    http::header::ACCEPT,
                    HeaderValue::from_static("application/json"),
                ),
            ];
            if let Some(h) = &email_header {
                headers.push((HeaderName::from_static(wire::HEADER_USER_EMAIL), h.clone()));
            }
            if op.headers.date {
                let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
                if let Ok(v) = HeaderValue::from_str(&now) {
                    headers.push((HeaderName::from_static(wire::HEADER_DATE), v));
                }
            }
            let req = HttpRequest {
                method: op.method.clone(),
                url: url.clone(),
                headers,
                body: call.body.clone().map(|b| (b, "application/json")),
            };
            let remaining = deadline.saturating_duration_since(Instant::now());
            let timeout = settings.timeouts.attempt.min(remaining);
            if timeout.is_zero() {
                return Err(
                    Error::timeout("the operation's deadline passed before the attempt")
                        .with_attempts(attempt - 1),
                );
            }
            let sent_at = Instant::now();
            let outcome = self.inner.transport.send(req, timeout).await;
            match &outcome {
                Ok(resp) => log::debug!(
                    target: "abws",
                    "{} attempt {attempt}: HTTP {} in {} ms (request id {})",
                    op.id,
                    resp.status,
                    sent_at.elapsed().as_millis(),
                    resp.request_id().unwrap_or_default()
                ),
                Err(f) => log::debug!(
                    target: "abws",
                    "{} attempt {attempt}: {:?} failure after {} ms: {}",
                    op.id,
                    f.class,
                    sent_at.elapsed().as_millis(),
                    f.error
                ),
            }
            let (class, error, timed_out) = match outcome {
                Ok(resp) => {
                    if let (Some(b), Some(rate)) = (
                        &bucket,
                        resp.rate_limit().as_deref().and_then(parse_rate_header),
                    ) {
                        b.set_rate(rate);
                    }
                    if resp.is_success() {
                        // A success refunds what its retries cost (or one token).
                        budget.refund(spent.max(1));
                        return Ok(resp);
                    }
                    let failure = resp.failure();
                    let says_expired = matches!(resp.status, 401 | 403)
                        && failure.errors.iter().any(|e| {
                            e.message.to_ascii_lowercase().contains("expired")
                                || e.code.to_ascii_lowercase().contains("expired")
                        });
                    let expired = matches!(resp.status, 401 | 403)
                        && (says_expired || self.inner.tokens.is_expired(&token).await);
                    if resp.status == 429 {
                        if let Some(b) = &bucket {
                            b.throttled();
                        }
                    }
                    let can_refresh = expired
                        && !refreshed
                        && matches!(
                            self.inner.tokens.credentials(),
                            Credentials::RefreshToken { .. }
                        );
                    if can_refresh {
                        self.inner.tokens.invalidate(&token).await;
                    }
                    let class = retry::classify_status(resp.status, can_refresh)
                        .unwrap_or(FailureClass::Final);
                    (class, Error::api(failure), false)
                }
                Err(f) => (f.class, f.error, f.timed_out),
            };
            let error = error.with_attempts(attempt);
            if matches!(class, FailureClass::Ambiguous | FailureClass::NotSent) {
                // The connection may be in a bad state: the next attempt opens a new one.
                self.inner.transport.reset_pool();
            }
            match retry::decide(
                op.kind,
                class,
                attempt,
                settings.max_attempts,
                ambiguous_retries,
            ) {
                Decision::Fail => return Err(error),
                Decision::OutcomeUnknown => {
                    return Err(Error::outcome_unknown(
                        op.id,
                        call.external_id.as_deref(),
                        error,
                    ))
                }
                Decision::Retry => {
                    let token_replay = class == FailureClass::RejectedBeforeProcessing
                        && matches!(error.status(), Some(401 | 403));
                    let delay = if token_replay {
                        refreshed = true;
                        Duration::ZERO
                    } else {
                        let cost = if timed_out {
                            RetryBudget::TIMEOUT_COST
                        } else {
                            RetryBudget::RETRY_COST
                        };
                        spent += cost;
                        if !budget.try_spend(cost) {
                            return Err(with_note(error, "not retried: the process-wide retry budget is exhausted (the service is failing; calls fail fast until it recovers)"));
                        }
                        if error.status() == Some(429) && bucket.is_some() {
                            // The bucket already pushed the next slot out; add jitter only.
                            retry::backoff(1, rand::random::<f64>()) / 5
                        } else {
                            retry::backoff(attempt, rand::random::<f64>())
                        }
                    };
                    if class == FailureClass::Ambiguous {
                        ambiguous_retries += 1;
                    }
                    if Instant::now() + delay >= deadline {
                        return Err(with_note(
                            error,
                            "not retried: the operation's deadline would pass during the backoff",
                        ));
                    }
                    log::info!(
                        target: "abws",
                        "{}: retrying after {:?} failure ({}) in {} ms",
                        op.id,
                        class,
                        error,
                        delay.as_millis()
                    );
                    if !delay.is_zero() {
                        tokio::time::sleep(delay).await;
                    }
                }
            }
        }
    }
}

fn with_note(error: Error, note: &str) -> Error {
    error.with_hint(note)
}
