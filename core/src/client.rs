//! The async client: one operation call = validate (done by the caller) → pace → token →
//! send → classify → retry or report. Every API group goes through `Client::execute`.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use http::HeaderValue;

use crate::auth::{RotationCallback, TokenCache};
use crate::call_options::CallOptions;
use crate::config::{Credentials, Endpoints, RegionGroup, Settings};
use crate::error::{Error, ErrorKind, Result};
use crate::operation_row::Operation;
use crate::process::{self, Context};
use crate::ratelimit::{Bucket, BucketKey};
use crate::request::authorize::Authorization;
pub use crate::request::call::Call;
use crate::request::ledger::WriteLedger;
use crate::request::pacing::Pacing;
use crate::request::retrying;
pub(crate) use crate::request::retrying::{Attempt, AttemptPlan, Attempts, Failure};
use crate::request::send::Sending;
use crate::request::Pipeline;
use crate::retry::{OperationKind, RetryBudget};
use crate::transport::{self, HttpResponse, Transport};

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
                if let Some(ledger) = WriteLedger::of(call, self.inner.shared.as_deref()) {
                    ledger.unreadable().await;
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
        let auth = Authorization::new(
            &self.inner.tokens,
            op,
            call.user_email.as_deref(),
            defaults.user_email.as_ref(),
        )?;
        let shared = self.inner.shared.as_deref();
        let bucket = defaults.rate_limiting.then(|| self.bucket(op, call.group));
        let party = || self.current_settings().credentials.party();
        let plan = AttemptPlan {
            what: op.id,
            kind: op.kind,
            operation_timeout: self.operation_timeout(),
            max_attempts: self.max_attempts(),
            attempt_timeout: defaults.attempt_timeout,
            external_id: call.external_id.as_deref(),
        };
        let mut pipeline = Pipeline {
            call,
            url: &url,
            pacing: bucket.as_ref().map(|bucket| Pacing {
                bucket,
                backend: shared,
                limiters: &self.inner.ctx.limiters,
                op,
                group: call.group.unwrap_or(defaults.region.group()).as_str(),
                party: &party,
            }),
            auth,
            ledger: WriteLedger::of(call, shared),
            send: Sending::new(&self.inner.transport, op, call.external_id.as_deref()),
            operation_timeout: plan.operation_timeout,
        };
        let outcome = self.attempt_loop(plan, &mut pipeline).await;
        if let Some(ledger) = &pipeline.ledger {
            ledger.end(&outcome).await;
        }
        outcome.map(|resp| (resp, pipeline.send.sent()))
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
            + std::mem::size_of::<
                std::sync::RwLock<Option<(HeaderValue, Option<tokio::time::Instant>)>>,
            >();
        assert!(
            16 + token_header_end <= 4 * 64,
            "a call's fields end at byte {} of the client's allocation",
            16 + token_header_end
        );
    }
}
