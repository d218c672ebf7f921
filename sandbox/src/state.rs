//! Shared state of a running sandbox and the per-request pipeline (request id, faults, auth,
//! user email, rate limit, dispatch, counters).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::auth::{self, AuthStore, Credentials};
use crate::clock::Clock;
use crate::config::SandboxConfig;
use crate::counters::Counters;
use crate::data::World;
use crate::faults::{FaultAction, FaultSet};
use crate::http::{envelope, Req, Resp};
use crate::ratelimit::Limiter;
use crate::routes::{self, Route};
use crate::server::{Listener, Planned};
use crate::{consent, control, documents};

pub struct PageToken {
    pub op: &'static str,
    pub binding: String,
    pub offset: usize,
    pub created: DateTime<Utc>,
}

pub struct Report {
    pub id: String,
    pub created: DateTime<Utc>,
    pub state: &'static str,
    pub polls_in_state: u32,
    pub state_since: DateTime<Utc>,
    pub processing_start: Option<DateTime<Utc>>,
    pub processing_end: Option<DateTime<Utc>>,
    /// The end state and, for DONE, the archive bytes (gzip of zip).
    pub outcome: &'static str,
    /// Why a report ends CANCELLED or FATAL (sent as `processingStatusMessage` once ended).
    pub message: Option<String>,
    pub archive: Option<Vec<u8>>,
    pub marketplace_ids: Vec<String>,
    pub options: serde_json::Value,
    pub document_id: Option<String>,
}

pub struct Presigned {
    pub document_id: String,
    pub expires: DateTime<Utc>,
}

#[derive(Default)]
pub struct Runtime {
    pub page_tokens: HashMap<String, PageToken>,
    pub reports: HashMap<String, Report>,
    /// document id -> archive bytes
    pub documents: HashMap<String, Vec<u8>>,
    pub presigned: HashMap<String, Presigned>,
    /// order externalId -> original acceptance body
    pub placed: HashMap<String, String>,
    pub pending_calls: u32,
    pub next_id: u64,
}

pub struct Urls {
    pub base: String,
    pub documents: String,
    pub foreign: String,
}

pub struct State {
    pub config: SandboxConfig,
    pub clock: Clock,
    pub creds: Credentials,
    pub auth: AuthStore,
    pub faults: FaultSet,
    pub counters: Counters,
    pub limiter: Limiter,
    pub world: Mutex<World>,
    pub rt: Mutex<Runtime>,
    pub urls: Urls,
    req_ids: AtomicU64,
    salt: u64,
}

impl State {
    pub fn new(config: SandboxConfig, urls: Urls) -> State {
        let clock = Clock::new(config.today, config.time_scale);
        let world = World::generate(config.seed, clock.start());
        let (auth, refresh_token) = AuthStore::new();
        let mut r = crate::rng::Rng::from_time();
        let creds = Credentials {
            client_id: format!("abws.sandbox.client.{}", r.alnum(16).to_lowercase()),
            client_secret: format!("sbxsecret-{}", r.token(40)),
            refresh_token,
            user_email: crate::data::REGISTERED_EMAIL.to_string(),
            application_id: format!("abws.sandbox.app.{}", r.alnum(12).to_lowercase()),
            redirect_uri: format!("{}/callback", urls.foreign),
        };
        State {
            limiter: Limiter::new(&config.rate_limits, config.time_scale),
            faults: FaultSet::new(config.faults.clone()),
            clock,
            creds,
            auth,
            counters: Counters::default(),
            world: Mutex::new(world),
            rt: Mutex::new(Runtime::default()),
            urls,
            req_ids: AtomicU64::new(1),
            salt: r.next_u64() & 0xFFFF_FFFF,
            config,
        }
    }

    pub fn world(&self) -> MutexGuard<'_, World> {
        self.world.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn rt(&self) -> MutexGuard<'_, Runtime> {
        self.rt.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn request_id(&self) -> String {
        let n = self.req_ids.fetch_add(1, Ordering::Relaxed);
        format!("sbx-{:08x}-{:06}", self.salt, n)
    }

    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    /// The date-time of what a request creates (`Clock::calendar_now`).
    pub fn calendar_now(&self) -> DateTime<Utc> {
        self.clock.calendar_now()
    }

    pub async fn dispatch(&self, kind: Listener, mut req: Req) -> Planned {
        let rid = self.request_id();
        if kind == Listener::Api {
            req.take_scope();
        }
        let control = kind == Listener::Api && req.path.starts_with("/_sandbox/");
        let op: Option<&'static Route> = if kind == Listener::Api && !control {
            routes::classify(&req.method, &req.segments).map(|(spec, params)| {
                req.params = params;
                spec
            })
        } else {
            None
        };
        let label: String = match (kind, op) {
            (_, Some(o)) => o.id().to_string(),
            (Listener::Documents, _) => "documentDownload".into(),
            (Listener::Foreign, _) => "foreign".into(),
            _ if req.path == "/auth/O2/token" => "token".into(),
            _ if req.path.starts_with("/b2b/abws/oauth") => "consent".into(),
            _ if control => "control".into(),
            _ => "unknown".into(),
        };
        if !control {
            self.counters.seen(kind.name(), &label, &req);
        }
        let rule = if control {
            None
        } else {
            self.faults.take(kind.name(), &req.path, op.map(|o| o.id()))
        };
        if let Some(f) = &rule {
            self.counters.fault_fired(f.rule.action.kind());
            if let FaultAction::Delay { delay_ms } = f.rule.action {
                tokio::time::sleep(Duration::from_millis(delay_ms)).await;
            }
        }
        let process = rule.as_ref().map(|f| f.rule.process).unwrap_or(true);
        let canned = rule.as_ref().and_then(|f| f.body.clone());
        let action = rule.as_ref().map(|f| &f.rule.action);
        let resp: Option<Resp> = match action {
            Some(FaultAction::Status {
                status, headers, ..
            }) => {
                let mut r = match canned {
                    Some(bytes) => Resp::new(*status, "application/json", bytes.to_vec()),
                    None => default_error(*status),
                };
                for (k, v) in headers {
                    r.headers.push((k.clone(), v.clone()));
                }
                Some(r)
            }
            Some(FaultAction::Bytes(body)) => {
                Some(Resp::new(200, "application/octet-stream", body.clone()))
            }
            Some(FaultAction::NonJson) => Some(Resp::new(
                200,
                "text/html",
                b"<html><head><title>Service Unavailable</title></head><body>Please try again later.</body></html>".to_vec(),
            )),
            Some(FaultAction::Oversized(n)) => {
                let pad = (*n as usize).saturating_sub(16);
                Some(Resp::json_text(
                    200,
                    format!("{{\"padding\":\"{}\"}}", "x".repeat(pad)),
                ))
            }
            Some(FaultAction::Redirect { status, location }) => {
                Some(Resp::empty(*status).with_header("Location", location))
            }
            Some(FaultAction::ResetBeforeHeaders) if !process => None,
            Some(_) if !process => Some(Resp::json(200, &json!({}))),
            Some(FaultAction::Garbled) => {
                let mut r = self.handle(kind, &mut req, control, op);
                r.body.truncate(r.body.len() / 2);
                Some(r)
            }
            _ => Some(self.handle(kind, &mut req, control, op)),
        };
        let resp = resp.map(|mut r| {
            r.headers.push(("x-svc-RequestId".into(), rid));
            if let Some(o) = op {
                r.headers.push((
                    "x-svc-RateLimit-Limit".into(),
                    self.limiter.header_value(o.id()),
                ));
            }
            r
        });
        if !control {
            let status = resp.as_ref().map(|r| r.status).unwrap_or(0);
            self.counters.status(&label, status);
        }
        let fault = match action {
            Some(FaultAction::Status { .. })
            | Some(FaultAction::Bytes(_))
            | Some(FaultAction::Delay { .. })
            | Some(FaultAction::NonJson)
            | Some(FaultAction::Garbled)
            | Some(FaultAction::Oversized(_))
            | Some(FaultAction::Redirect { .. })
            | None => None,
            other => other.cloned(),
        };
        Planned { resp, fault }
    }

    fn handle(&self, kind: Listener, req: &mut Req, control: bool, op: Option<&Route>) -> Resp {
        match kind {
            Listener::Documents => documents::serve(self, req),
            Listener::Foreign => foreign(req),
            Listener::Api => {
                if control {
                    return control::handle(self, req);
                }
                if let Some(o) = op {
                    return match self.api_call(o, req) {
                        Ok(r) | Err(r) => r,
                    };
                }
                if req.path == "/auth/O2/token" {
                    return auth::token_endpoint(self, req);
                }
                if req.path.starts_with("/b2b/abws/oauth") {
                    return consent::handle(self, req);
                }
                if routes::path_known(&req.segments) {
                    return envelope(
                        405,
                        "MethodNotAllowed",
                        "The method is not allowed for this resource.",
                    );
                }
                envelope(404, "NotFound", "The requested resource does not exist.")
            }
        }
    }

    fn api_call(&self, route: &Route, req: &mut Req) -> Result<Resp, Resp> {
        req.party = auth::authenticate(self, req)?;
        let op = route.op;
        if op.user_email {
            match req.header("x-svc-user-email") {
                None | Some("") => {
                    return Err(crate::http::bad(
                        "The required request header is missing: x-svc-user-email.",
                    ))
                }
                Some(e) => {
                    if self.world().user_by_email(e).is_none() {
                        return Err(envelope(403, "Unauthorized", "Email is not authorized"));
                    }
                }
            }
        }
        // The service limits each (application, customer account) per regional address,
        // whatever token or refresh-token family a call carries; the sandbox has one
        // application and one customer, so the bucket is the address's group's.
        let group = req.scope.unwrap_or("root");
        let bucket = match group {
            "NA" => 1,
            "EU" => 2,
            "FE" => 3,
            _ => 0,
        };
        if !self.limiter.try_take(bucket, op.id, self.now()) {
            self.counters.throttled(&format!("{group}:{}", op.id));
            return Err(envelope(
                429,
                "QuotaExceeded",
                "You exceeded your quota for the requested resource.",
            ));
        }
        if (req.method == "POST" || req.method == "PATCH") && !req.body.is_empty() {
            let ct = req.header("content-type").unwrap_or("application/json");
            if !ct.to_ascii_lowercase().contains("json") {
                return Err(envelope(
                    415,
                    "UnsupportedMediaType",
                    "The request payload must be application/json.",
                ));
            }
        }
        if self.config.static_mode {
            return crate::static_mode::handle(self, op.id, req);
        }
        route.answer(self, req)
    }
}

fn default_error(status: u16) -> Resp {
    let (code, msg) = match status {
        429 => (
            "QuotaExceeded",
            "You exceeded your quota for the requested resource.",
        ),
        500 => (
            "InternalFailure",
            "We encountered an internal error. Please try again.",
        ),
        502 => ("BadGateway", "Bad gateway."),
        503 => (
            "ServiceUnavailable",
            "Service temporarily unavailable. Please try again.",
        ),
        504 => ("GatewayTimeout", "Gateway timeout."),
        401 | 403 => ("Unauthorized", "Access to requested resource is denied."),
        _ => ("InternalFailure", "Injected failure."),
    };
    envelope(status, code, msg)
}

fn foreign(req: &Req) -> Resp {
    if req.path == "/callback" {
        return Resp::new(
            200,
            "text/html",
            b"<html><body>Authorization received. You may close this window.</body></html>"
                .to_vec(),
        );
    }
    Resp::json(200, &json!({"foreign": true, "path": req.path}))
}
