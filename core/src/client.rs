//! The async client: one operation call = validate (done by the caller) → pace → token →
//! send → classify → retry or report. Every API group goes through `Client::execute`.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderName, HeaderValue};
use tokio::time::Instant;

use crate::auth::{RotationCallback, TokenCache};
use crate::call_options::CallOptions;
use crate::config::{Credentials, Endpoints, RegionGroup, Settings};
use crate::error::{Error, ErrorKind, Result};
use crate::inflight;
use crate::operation_row::Operation;
use crate::process::{self, Context};
use crate::ratelimit::{Bucket, BucketKey};
use crate::request::classify::{self, Rejection};
use crate::request::pacing::Pacing;
use crate::request::retrying;
pub(crate) use crate::request::retrying::{Attempt, AttemptPlan, Attempts, Failure};
use crate::retry::{FailureClass, OperationKind, RetryBudget};
use crate::transport::{self, HttpRequest, HttpResponse, Transport};
use crate::wire;

/// One call of an operation, before the client adds credentials. Its `Debug` shows the
/// body's size, not the body, and hides the user e-mail.
#[derive(Clone)]
pub struct Call {
    /// The operation's row of the table.
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
    /// Each externalId of a write that carries several (addItems: one per item). The shared
    /// write ledger keys an unsafe write by its path's values and these (else
    /// `external_id`), each length-prefixed: `["a,b"]` and `["a", "b"]` differ.
    pub external_ids: Vec<String>,
    /// Regional group whose bucket paces this call (else the client's region's group).
    pub group: Option<RegionGroup>,
}

impl std::fmt::Debug for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call")
            .field("op", &self.op.id)
            .field("path", &self.path)
            .field("query", &self.query)
            .field(
                "body",
                &self.body.as_ref().map(|b| format!("<{} bytes>", b.len())),
            )
            .field("user_email", &self.user_email.as_ref().map(|_| "***"))
            .field("external_id", &self.external_id)
            .field("external_ids", &self.external_ids)
            .field("group", &self.group)
            .finish()
    }
}

impl Call {
    /// A call of `op`, with no path value, query parameter or body yet.
    pub fn new(op: &'static Operation) -> Call {
        Call {
            op,
            path: vec![],
            query: vec![],
            body: None,
            user_email: None,
            external_id: None,
            external_ids: Vec::new(),
            group: None,
        }
    }
    /// Fills the path placeholder `{name}` (the value is percent-encoded when sent).
    pub fn path(mut self, name: &'static str, value: impl Into<String>) -> Call {
        self.path.push((name, value.into()));
        self
    }
    /// Adds a query parameter.
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
    /// Sets the JSON body.
    pub fn json<T: serde::Serialize>(mut self, body: &T) -> Result<Call> {
        let bytes = serde_json::to_vec(body)
            .map_err(|e| Error::internal(format!("cannot encode the request body: {e}")))?;
        self.body = Some(Bytes::from(bytes));
        Ok(self)
    }
}

/// See `Inner::defaults`.
#[repr(C)]
struct CallDefaults {
    /// `x-svc-user-email` of `settings.user_email`, checked.
    user_email: Option<HeaderValue>,
    attempt_timeout: Duration,
    operation_timeout: Duration,
    max_attempts: u32,
    region: crate::config::Region,
    rate_limiting: bool,
    /// `shared_state_required` and not yet seen working: the next call checks it first.
    shared_unchecked: AtomicBool,
}

impl CallDefaults {
    /// Of settings already checked (`Settings::check`), timeouts clamped.
    fn new(s: &Settings) -> Result<CallDefaults> {
        Ok(CallDefaults {
            region: s.region,
            user_email: s
                .user_email
                .as_deref()
                .map(|e| transport::sensitive(e, "user_email"))
                .transpose()?,
            rate_limiting: s.rate_limiting,
            shared_unchecked: AtomicBool::new(s.shared_state_required && s.shared_state.is_some()),
            max_attempts: s.max_attempts,
            attempt_timeout: s.timeouts.attempt,
            operation_timeout: s.timeouts.operation,
        })
    }
}

// repr(C), in this order: what every call reads of its client (the defaults, the address,
// the pool handle, the shared state's and the process's pointers, the cached token's
// header) comes first, packed next to the `Arc`'s counts, so a call through one of a
// thousand clients reads four cache lines here, not a line per field scattered over the
// whole (B11). The settings and the addresses as text come last.
#[repr(C)]
pub(crate) struct Inner {
    /// What every call reads of the settings (they never change but for the credentials,
    /// which calls take from `tokens`): copied out and packed together, so a call through
    /// one of a thousand clients does not read the settings behind their lock.
    defaults: CallDefaults,
    /// The API endpoint, parsed once (each call's address starts from a copy); one per
    /// distinct endpoint in the process (`fork::interned`).
    api_base: Arc<url::Url>,
    /// The account's shared state (`Settings::shared_state`).
    shared: Option<Arc<crate::shared::Shared>>,
    ctx: Arc<Context>,
    transport: Transport,
    tokens: TokenCache,
    endpoints: Endpoints,
    /// Shared with each call in flight (replaced whole when the credentials change).
    settings: std::sync::RwLock<Arc<Settings>>,
}

/// The asynchronous client. Cheap to clone; clones share the connection pool and token.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
    /// The per-call options of this view (`with_options`); none on a client as built.
    options: CallOptions,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.current_settings();
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
        Client::build(settings, on_rotate, process::context())
    }

    /// Builds a client on `context` in place of the process's: its rate-limit buckets,
    /// retry budget and rotated refresh tokens are shared only with the other clients built
    /// on it (`Context::new()`). For a client that must not pace, or spend the retry budget,
    /// together with the rest of the process (a test's, a tenant's).
    ///
    /// ```no_run
    /// # fn f(settings: abws::Settings) -> abws::Result<()> {
    /// let client = abws::Client::with_context(settings, abws::process::Context::new())?;
    /// # Ok(()) }
    /// ```
    pub fn with_context(settings: Settings, context: Arc<Context>) -> Result<Client> {
        Client::build(settings, None, context)
    }

    fn build(
        settings: Settings,
        on_rotate: Option<RotationCallback>,
        ctx: Arc<Context>,
    ) -> Result<Client> {
        settings.check()?;
        let mut settings = settings;
        settings.timeouts = settings.timeouts.clamped();
        let endpoints = settings.endpoints()?;
        static API_BASES: std::sync::Mutex<Vec<std::sync::Weak<url::Url>>> =
            std::sync::Mutex::new(Vec::new());
        let api_base = url::Url::parse(&endpoints.api)
            .map_err(|e| Error::validation("endpoint", format!("must be an absolute URL ({e})")))?;
        let api_base = crate::fork::interned(&API_BASES, api_base);
        let transport = Transport::new(&settings)?;
        let shared = settings
            .shared_state
            .as_ref()
            .map(|url| {
                crate::shared::Shared::new(
                    url,
                    &settings.credentials,
                    settings.region.group(),
                    Arc::downgrade(&ctx),
                )
                .map(Arc::new)
            })
            .transpose()?;
        let tokens = TokenCache::new(
            settings.credentials.clone(),
            // Unused with a fixed access token (`check` requires it with a refresh token).
            endpoints.auth.as_deref().unwrap_or_default(),
            transport.clone(),
            on_rotate,
            shared.clone(),
            ctx.rotations.clone(),
        );
        Ok(Client {
            inner: Arc::new(Inner {
                defaults: CallDefaults::new(&settings)?,
                settings: std::sync::RwLock::new(Arc::new(settings)),
                endpoints,
                api_base,
                transport,
                tokens,
                ctx,
                shared,
            }),
            options: CallOptions::new(),
        })
    }

    /// A view of this client whose calls (and listings) take `options` in place of the
    /// client's `operation_timeout` and `max_attempts`; an option not given keeps this
    /// view's. It shares everything else (connections, token, rate limits): cheap, made per
    /// call if wanted. A bad value is a validation error naming it (`timeout`,
    /// `max_attempts`).
    ///
    /// ```no_run
    /// # async fn f(client: abws::Client, p: abws::api::invoices::GetInvoicesParams) -> abws::Result<()> {
    /// use std::time::Duration;
    /// let quick = client.with_options(abws::CallOptions::new().timeout(Duration::from_secs(5)).max_attempts(1))?;
    /// let page = quick.invoices().get_invoices(&p).await?;
    /// # Ok(()) }
    /// ```
    pub fn with_options(&self, options: CallOptions) -> Result<Client> {
        options.check()?;
        Ok(Client {
            inner: self.inner.clone(),
            options: options.over(self.options),
        })
    }

    /// The per-call options of this view (none on a client as built).
    pub fn options(&self) -> CallOptions {
        self.options
    }

    /// The deadline of a call from its start: the view's `timeout`, else the client's
    /// `operation_timeout`.
    pub(crate) fn operation_timeout(&self) -> Duration {
        self.options
            .get_timeout()
            .unwrap_or(self.inner.defaults.operation_timeout)
    }

    /// Attempts allowed per call: the view's `max_attempts`, else the client's.
    pub(crate) fn max_attempts(&self) -> u32 {
        self.options
            .get_max_attempts()
            .unwrap_or(self.inner.defaults.max_attempts)
    }

    /// A copy of the settings in force (credentials included; they redact themselves).
    pub fn settings(&self) -> Settings {
        Settings::clone(&self.current_settings())
    }

    /// Whether the shared state (`Settings::shared_state`) can be used now: Redis answers,
    /// accepts the address's user and password, and lets this account's keys be written.
    /// `Ok` without shared state configured. A client with `shared_state_required` runs it
    /// before its first call (the blocking client when it is built) and fails with its
    /// error; without it, calls go on unshared while the shared state cannot be used.
    pub async fn check_shared_state(&self) -> Result<()> {
        let Some(shared) = self.inner.shared.as_deref() else {
            return Ok(());
        };
        shared.check().await?;
        self.inner.defaults.shared_unchecked.store(false, Relaxed);
        Ok(())
    }

    /// The settings in force, shared (what a call reads them through: a copy would clone
    /// every string of them, credentials included, per call).
    pub(crate) fn current_settings(&self) -> Arc<Settings> {
        self.inner
            .settings
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The default region of calls that take one (`Settings::region`).
    pub fn region(&self) -> crate::config::Region {
        self.inner.defaults.region
    }

    /// The addresses in force (`Settings::endpoints`).
    pub fn endpoints(&self) -> &Endpoints {
        &self.inner.endpoints
    }

    /// The HTTP transport (its connection pools), shared by the client's clones.
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
            .unwrap_or_else(|p| p.into_inner()) = Arc::new(next);
        Ok(())
    }

    /// Sets (or removes) the callback that receives every rotated refresh token before it
    /// is used; replaces the one given to `with_rotation`.
    pub fn set_rotation_callback(&self, on_rotate: Option<RotationCallback>) {
        self.inner.tokens.set_rotation_callback(on_rotate);
    }

    /// The credentials in force (after any refresh-token rotation).
    pub fn credentials(&self) -> Credentials {
        self.inner.tokens.credentials()
    }

    /// A valid access token (refreshing if needed).
    pub async fn access_token(&self) -> Result<crate::Secret> {
        self.inner.tokens.access_token().await
    }

    /// The process-wide retry budget this client spends from.
    pub fn retry_budget(&self) -> &RetryBudget {
        &self.inner.ctx.retry_budget
    }

    /// The bucket that paces `op` for this client's party.
    pub fn bucket(&self, op: &'static Operation, group: Option<RegionGroup>) -> Arc<Bucket> {
        let s = self.current_settings();
        let key = BucketKey {
            party: s.credentials.party(),
            group: group.unwrap_or(s.region.group()).as_str(),
            operation: op.id,
            fallback: false,
        };
        self.inner.ctx.limiters.bucket(key, op.plan)
    }

    /// The full address of a call (placeholders filled and encoded, query appended).
    pub fn url(&self, call: &Call) -> Result<url::Url> {
        let mut url = url::Url::clone(&self.inner.api_base);
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
                    check_path_value(name, value)?;
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
        Ok(url)
    }

    /// Runs one call to completion: paces it, authenticates it, sends it, and retries what
    /// the policy allows within the operation's deadline and the process retry budget.
    pub async fn execute(&self, call: &Call) -> Result<HttpResponse> {
        self.execute_counted(call).await.map(|(resp, _)| resp)
    }

    /// `execute`, with the number of requests sent.
    async fn execute_counted(&self, call: &Call) -> Result<(HttpResponse, u32)> {
        let op = call.op;
        self.execute_inner(call)
            .await
            .map_err(|e| page_token_error(call, e).with_operation(op.id))
    }

    /// Runs one call and decodes its JSON answer. A 2xx that does not decode is final for
    /// most operations; for an unsafe write (a row of kind `UnsafeWrite`: placeOrder,
    /// addItems) it was applied all the same, so it is an `OutcomeUnknown` carrying the
    /// externalId and the body as received — never a plain transport error, which a caller
    /// might answer by sending the order again.
    pub async fn execute_json<T: serde::de::DeserializeOwned>(&self, call: &Call) -> Result<T> {
        let (resp, sent) = self.execute_counted(call).await?;
        match resp.decode(call.op.id) {
            Ok(v) => Ok(v),
            Err(e) if call.op.kind == OperationKind::UnsafeWrite => {
                let e = Error::outcome_unknown(
                    call.op.id,
                    call.external_id.as_deref(),
                    e.with_attempts(sent),
                )
                .with_raw_body(resp.body.clone())
                .with_operation(call.op.id);
                // Applied, its answer unreadable: the ledger says so (not done).
                if let Some((shared, parts)) = self.ledger_of(call) {
                    let unknown = Some(crate::shared::LedgerState::Unknown);
                    shared.ledger_end(call.op.id, &parts, unknown).await;
                }
                log::warn!(target: "abws", "{e}");
                Err(e)
            }
            Err(e) => Err(e),
        }
    }

    async fn execute_inner(&self, call: &Call) -> Result<(HttpResponse, u32)> {
        let op = call.op;
        let defaults = &self.inner.defaults;
        if defaults.shared_unchecked.load(Relaxed) {
            self.check_shared_state().await?;
        }
        let url = self.url(call)?;
        // x-svc-user-email goes only where the operation declares it (docs/decisions/004-request-declarations.md):
        // the buyer's address is personal data, sent nowhere it is not asked for.
        let email_header = if op.needs_user_email() {
            let h = match call.user_email.as_deref() {
                Some(e) => {
                    crate::validate::email("user_email", e)?;
                    Some(transport::sensitive(e, "user_email")?)
                }
                None => defaults.user_email.clone(),
            };
            Some(h.ok_or_else(|| {
                Error::validation(
                    "user_email",
                    format!("{} requires the x-svc-user-email header: pass user_email or set it on the client", op.id),
                )
            })?)
        } else {
            debug_assert!(
                call.user_email.is_none(),
                "{} declares no user e-mail",
                op.id
            );
            None
        };
        let bucket = defaults.rate_limiting.then(|| self.bucket(op, call.group));
        let party = || self.current_settings().credentials.party();
        let pacing = bucket.as_ref().map(|bucket| Pacing {
            bucket,
            backend: self.inner.shared.as_deref(),
            limiters: &self.inner.ctx.limiters,
            op,
            group: call.group.unwrap_or(defaults.region.group()).as_str(),
            party: &party,
        });
        let plan = AttemptPlan {
            what: op.id,
            kind: op.kind,
            operation_timeout: self.operation_timeout(),
            max_attempts: self.max_attempts(),
            attempt_timeout: defaults.attempt_timeout,
            external_id: call.external_id.as_deref(),
        };
        // An unsafe write with an externalId goes through the account's write ledger, from
        // the moment it goes on the wire (`api_attempt`): a call with a recorded entry (any
        // process) is refused unsent.
        let ledger = self.ledger_of(call).map(|(shared, parts)| Ledger {
            shared,
            parts,
            taken: AtomicBool::new(false),
        });
        let mut send = ApiSend {
            client: self,
            call,
            url: &url,
            email_header: email_header.as_ref(),
            pacing,
            ledger,
            sent: AtomicU32::new(0),
        };
        let outcome = self.attempt_loop(plan, &mut send).await;
        if let Some(l) = send.ledger.as_ref().filter(|l| l.taken.load(Relaxed)) {
            use crate::shared::LedgerState;
            let state = match &outcome {
                Ok(_) => Some(LedgerState::Done),
                Err(e) if e.kind() == crate::error::ErrorKind::OutcomeUnknown => {
                    Some(LedgerState::Unknown)
                }
                Err(_) => None,
            };
            l.shared.ledger_end(op.id, &l.parts, state).await;
        }
        outcome.map(|resp| (resp, send.sent.load(Relaxed)))
    }

    /// The shared write ledger and an unsafe write's parts in it (`Shared::ledger_key`): its
    /// path's values, then its externalIds. `None` for other calls, or without shared state.
    fn ledger_of<'a>(
        &'a self,
        call: &'a Call,
    ) -> Option<(&'a crate::shared::Shared, Vec<&'a str>)> {
        let shared = self.inner.shared.as_deref()?;
        let ext = call.external_id.as_deref()?;
        if call.op.kind != OperationKind::UnsafeWrite {
            return None;
        }
        let mut parts: Vec<&str> = call.path.iter().map(|(_, v)| v.as_str()).collect();
        match &call.external_ids[..] {
            [] => parts.push(ext),
            ids => parts.extend(ids.iter().map(String::as_str)),
        }
        Some((shared, parts))
    }

    /// One attempt of an API call: waits for the rate limit, sends with our headers,
    /// and classifies what came back (refreshing an expired access token for the replay).
    async fn api_attempt(
        &self,
        send: &ApiSend<'_>,
        a: &Attempt,
    ) -> std::result::Result<HttpResponse, Failure> {
        let op = send.call.op;
        let paced = match &send.pacing {
            Some(p) => Some(p.attempt(a, self.operation_timeout()).await?),
            None => None,
        };
        // The cached token's header, shared: not the token copied twice per call.
        let token = self
            .inner
            .tokens
            .access_header()
            .await
            .map_err(Failure::stop)?;
        let mut headers: Vec<(HeaderName, HeaderValue)> = vec![
            (
                HeaderName::from_static(wire::HEADER_ACCESS_TOKEN),
                token.clone(),
            ),
            (
                http::header::ACCEPT,
                HeaderValue::from_static("application/json"),
            ),
        ];
        if let Some(h) = send.email_header {
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
            url: send.url.clone(),
            headers,
            body: send.call.body.clone().map(|b| (b, "application/json")),
        };
        let timeout = a.timeout()?;
        let attempt = a.number;
        if let Some(l) = send.ledger.as_ref().filter(|l| !l.taken.load(Relaxed)) {
            // Recorded as sending only now, paced and authenticated: a call dropped or
            // failed before this point leaves no entry.
            match l
                .shared
                .ledger_begin(op.id, &l.parts, op.resend_safe, timeout + LEDGER_MARGIN)
                .await
            {
                Some(Ok(())) => l.taken.store(true, Relaxed),
                None => {}
                Some(Err(state)) => {
                    let ext = send.call.external_id.as_deref().unwrap_or_default();
                    let e = match state {
                        crate::shared::LedgerState::Done => Error::already_applied(op.id, ext),
                        s => Error::already_recorded(op.id, ext, s.as_str()),
                    };
                    return Err(Failure::stop(e.with_attempts(a.number - 1)));
                }
            }
        }
        send.sent.fetch_add(1, Relaxed);
        let sent_at = Instant::now();
        // An unsafe write cancelled from here on may have been applied: the guard says so.
        let in_flight = inflight::Guard::start(op, send.call.external_id.as_deref());
        let outcome = self.inner.transport.send(req, timeout).await;
        if let Some(g) = in_flight {
            g.done();
        }
        // Checked first: the record's arguments (the request id, a `String`) would be
        // built for every call even when the level is off.
        let debug = log::log_enabled!(target: "abws", log::Level::Debug);
        match &outcome {
            _ if !debug => {}
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
                "{} attempt {attempt}: {} after {} ms: {}",
                op.id,
                f.class.describe(),
                sent_at.elapsed().as_millis(),
                f.error
            ),
        }
        let failure = match outcome {
            Ok(resp) => {
                if let (Some(p), Some(paced)) = (&send.pacing, &paced) {
                    p.feedback(paced, &resp).await;
                }
                if resp.is_success() {
                    return Ok(resp);
                }
                let failure = resp.failure();
                let rejection = if matches!(failure.status, 401 | 403) {
                    // The token this attempt sent (a failure's rare path: copied out here).
                    let token = crate::auth::header_secret(&token);
                    let expired = classify::says_expired(&failure)
                        || self.inner.tokens.is_expired(&token).await;
                    let can_refresh = expired
                        && !a.replayed
                        && matches!(
                            self.inner.tokens.credentials(),
                            Credentials::RefreshToken { .. }
                        );
                    if can_refresh {
                        self.inner.tokens.invalidate(&token).await;
                    }
                    Rejection {
                        expired,
                        can_refresh,
                    }
                } else {
                    Rejection::default()
                };
                classify::classify(failure, rejection, send.pacing.is_some(), op)
            }
            Err(f) => Failure::from_send(f),
        };
        if matches!(
            failure.class,
            FailureClass::Ambiguous | FailureClass::NotSent
        ) {
            // The connection may be in a bad state: the next attempt opens a new one.
            self.inner.transport.reset_pool();
        }
        Err(failure)
    }

    /// The one attempt loop of every operation (`request::retrying::run`), spending this
    /// client's retry budget.
    pub(crate) async fn attempt_loop<A: Attempts>(
        &self,
        plan: AttemptPlan<'_>,
        attempts: &mut A,
    ) -> Result<A::Output> {
        retrying::run(&self.inner.ctx.retry_budget, plan, attempts).await
    }
}

/// What an API attempt sends, the same for every attempt of a call.
struct ApiSend<'a> {
    client: &'a Client,
    call: &'a Call,
    url: &'a url::Url,
    email_header: Option<&'a HeaderValue>,
    pacing: Option<Pacing<'a>>,
    /// The write's entry in the shared write ledger (an unsafe write with an externalId).
    ledger: Option<Ledger<'a>>,
    /// The attempts that went on the wire.
    sent: AtomicU32,
}

/// An unsafe write's entry in the shared write ledger: recorded when an attempt goes on the
/// wire (`taken`), ended with the call's outcome.
struct Ledger<'a> {
    shared: &'a crate::shared::Shared,
    /// The path's values, then the externalIds (`Shared::ledger_key`).
    parts: Vec<&'a str>,
    taken: AtomicBool,
}

/// How much longer than its attempt's timeout a request stays *sending* in the ledger (a
/// response on its way, the ledger's own round trip): past that, its writer vanished.
const LEDGER_MARGIN: Duration = Duration::from_secs(5);

impl Attempts for ApiSend<'_> {
    type Output = HttpResponse;
    async fn attempt(&mut self, a: &Attempt) -> std::result::Result<HttpResponse, Failure> {
        self.client.api_attempt(self, a).await
    }
}

/// A path parameter's value must stand for itself as one segment: not empty, not a dot
/// segment (`.` and `..` would be removed by URL normalisation, so `get_report("..")`
/// would ask for `/reports`), no control characters. The error names the parameter as the
/// params struct does: the snake_case of the placeholder (`reportId` → `report_id`).
fn check_path_value(placeholder: &str, value: &str) -> Result<()> {
    let rule = if value.trim().is_empty() {
        "is required and must not be empty"
    } else if value == "." || value == ".." {
        "must not be \".\" or \"..\" (a path parameter is one segment of the address)"
    } else if value.chars().any(char::is_control) {
        "must not contain control characters"
    } else {
        return Ok(());
    };
    Err(Error::validation(snake_case(placeholder), rule))
}

/// `reportDocumentId` → `report_document_id` (a wire name as the bindings and the
/// command line name it).
pub fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The query parameters that carry a page token (the names of `TokenStyle` that are
/// tokens; `pageNumber` is not one).
const PAGE_TOKEN_PARAMETERS: [&str; 2] = ["nextPageToken", "pageToken"];

/// The error of a call as its caller sees it: when the call carried a page token and the
/// service answered that the token expired, `PageTokenExpired` (0 items delivered; a
/// pager fills in its own count). `Client::execute` applies it to every call, so a direct
/// call with an expired token and a pager fail alike.
pub(crate) fn page_token_error(call: &Call, e: Error) -> Error {
    let carried = call
        .query
        .iter()
        .find(|(name, value)| PAGE_TOKEN_PARAMETERS.contains(name) && !value.is_empty());
    let Some((name, _)) = carried else {
        return e;
    };
    if !is_expired_token(&e) {
        return e;
    }
    Error::page_token_expired(
        format!(
            "the {name} given to {} has expired (tokens last 15 minutes); \
             request the first page again with the same parameters",
            call.op.id
        ),
        0,
    )
    .with_request_id(e.request_id().map(str::to_string))
    .with_attempts(e.attempts())
    .with_source(e)
}

/// A 400 whose envelope says the page token expired. The spec gives this case no code of
/// its own (`INVALID_REQUEST_PARAMETER`, as for any bad parameter) and only the message
/// "nextPageToken has expired", so the message is what tells it: this is the one place
/// that reads it.
fn is_expired_token(e: &Error) -> bool {
    e.kind() == ErrorKind::Api
        && e.status() == Some(400)
        && e.api_failure().is_some_and(|f| {
            f.errors.iter().any(|x| {
                let m = x.message.to_ascii_lowercase();
                m.contains("expired") && m.contains("token")
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a call reads of its client ends within the first four cache lines of the
    /// `Arc`'s allocation (its two counts, 16 bytes, come first): the layout `Inner`'s
    /// comment describes, kept from drifting (B11).
    #[test]
    fn a_calls_reads_of_its_client_are_packed_first() {
        let token_header_end = std::mem::offset_of!(Inner, tokens)
            + std::mem::offset_of!(TokenCache, current)
            + std::mem::size_of::<std::sync::RwLock<Option<(HeaderValue, Option<Instant>)>>>();
        assert!(
            16 + token_header_end <= 4 * 64,
            "a call's fields end at byte {} of the client's allocation",
            16 + token_header_end
        );
    }
}
