//! abws-sandbox: a local, stateful, strict emulator of the whole business-purchasing service
//! on loopback (127.0.0.1 only), for examples and tests that run offline.
//!
//! ```no_run
//! let sb = abws_sandbox::Sandbox::spawn(abws_sandbox::SandboxConfig::default()).unwrap();
//! println!("{} {:?}", sb.base_url(), sb.credentials());
//! ```

/// A JSON object whose values are moved in. `serde_json::json!` serialises every value it is
/// given into a new tree, so a `Value` built by a helper (an amount, an address) is copied
/// whole at every level it is nested in, and the original dropped; responses that nest
/// built values use this instead. Values: anything `Into<Value>` (`&str`, `String`, numbers,
/// `Option`s, `Vec<Value>`, `Value`).
macro_rules! obj {
    ({ $($k:literal : $v:expr),* $(,)? }) => {{
        let mut m = serde_json::Map::new();
        $(m.insert(String::from($k), serde_json::Value::from($v));)*
        serde_json::Value::Object(m)
    }};
}

mod archive;
mod auth;
mod clock;
pub mod command_line;
mod config;
mod consent;
mod control;
mod counters;
mod data;
mod documents;
mod faults;
mod http;
mod money;
mod paging;
mod pdf;
mod ratelimit;
mod regions;
mod rng;
mod routes;
mod server;
mod state;
mod static_mode;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::watch;

pub use auth::Credentials;
pub use config::{RateLimits, SandboxConfig};
pub use faults::{FaultAction, FaultRule};

use server::Listener;
use state::{State, Urls};

/// A running sandbox: an API listener (which also serves the token endpoint, the consent page
/// and the /_sandbox/ control path), a presigned-document host and a "foreign" listener.
pub struct Sandbox {
    state: Arc<State>,
    shutdown: watch::Sender<bool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

struct Bound {
    api: TcpListener,
    docs: TcpListener,
    foreign: TcpListener,
}

async fn bind(port: u16) -> std::io::Result<Bound> {
    let lo = Ipv4Addr::LOCALHOST;
    Ok(Bound {
        api: TcpListener::bind(SocketAddr::from((lo, port))).await?,
        docs: TcpListener::bind(SocketAddr::from((lo, 0))).await?,
        foreign: TcpListener::bind(SocketAddr::from((lo, 0))).await?,
    })
}

fn launch(
    config: SandboxConfig,
    b: Bound,
    shutdown: &watch::Sender<bool>,
) -> std::io::Result<Arc<State>> {
    let url = |l: &TcpListener| -> std::io::Result<String> {
        Ok(format!("http://127.0.0.1:{}", l.local_addr()?.port()))
    };
    let urls = Urls {
        base: url(&b.api)?,
        documents: url(&b.docs)?,
        foreign: url(&b.foreign)?,
    };
    for f in &config.faults {
        f.check()
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    }
    let state = Arc::new(State::new(config, urls));
    for (l, kind) in [
        (b.api, Listener::Api),
        (b.docs, Listener::Documents),
        (b.foreign, Listener::Foreign),
    ] {
        tokio::spawn(server::accept_loop(
            l,
            kind,
            state.clone(),
            shutdown.subscribe(),
        ));
    }
    Ok(state)
}

impl Sandbox {
    /// Starts the sandbox on the caller's tokio runtime.
    pub async fn start(config: SandboxConfig) -> std::io::Result<Sandbox> {
        let (tx, _rx) = watch::channel(false);
        let bound = bind(config.port).await?;
        let state = launch(config, bound, &tx)?;
        Ok(Sandbox {
            state,
            shutdown: tx,
            thread: None,
        })
    }

    /// Starts the sandbox on its own thread with its own runtime (for synchronous callers).
    pub fn spawn(config: SandboxConfig) -> std::io::Result<Sandbox> {
        let (tx, _rx) = watch::channel(false);
        let tx2 = tx.clone();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("abws-sandbox".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .thread_name("abws-sandbox-worker")
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                rt.block_on(async move {
                    let mut rx = tx2.subscribe();
                    let started = match bind(config.port).await {
                        Ok(b) => launch(config, b, &tx2),
                        Err(e) => Err(e),
                    };
                    let ok = started.is_ok();
                    let _ = ready_tx.send(started);
                    if ok {
                        while !*rx.borrow() {
                            if rx.changed().await.is_err() {
                                break;
                            }
                        }
                    }
                });
                rt.shutdown_timeout(std::time::Duration::from_millis(500));
            })?;
        let state = match ready_rx.recv() {
            Ok(Ok(s)) => s,
            Ok(Err(e)) => {
                let _ = thread.join();
                return Err(e);
            }
            Err(_) => {
                let _ = thread.join();
                return Err(std::io::Error::other("sandbox thread failed to start"));
            }
        };
        Ok(Sandbox {
            state,
            shutdown: tx,
            thread: Some(thread),
        })
    }

    /// API base address, e.g. `http://127.0.0.1:PORT`: every region is served on it, and
    /// requests that name no region see the FE group (JP), as they always did. Prefer
    /// `group_url` for a client of one region.
    pub fn base_url(&self) -> String {
        self.state.urls.base.clone()
    }

    /// The address of one regional group, like the service's regional addresses:
    /// `{base_url}/na`, `/eu` or `/fe`. `group` is `NA`, `EU`, `FE` or a region code (its
    /// group; `GB` is UK). There, listings without a region show that group's data, and a
    /// region of another group is refused.
    pub fn group_url(&self, group: &str) -> String {
        let g = match group.trim().to_ascii_uppercase().as_str() {
            "NA" | "US" | "CA" | "MX" => "na",
            "EU" | "UK" | "GB" | "DE" | "FR" | "IT" | "ES" | "IN" => "eu",
            _ => "fe",
        };
        format!("{}/{g}", self.state.urls.base)
    }

    /// Token endpoint host (the API listener); the path is /auth/O2/token.
    pub fn auth_url(&self) -> String {
        self.state.urls.base.clone()
    }

    /// Consent page host (the API listener); the page is /b2b/abws/oauth.
    pub fn consent_url(&self) -> String {
        self.state.urls.base.clone()
    }

    /// The presigned-document host (its own port).
    pub fn documents_url(&self) -> String {
        self.state.urls.documents.clone()
    }

    /// A listener that records every request and its headers (redirect-leak tests).
    pub fn foreign_url(&self) -> String {
        self.state.urls.foreign.clone()
    }

    pub fn credentials(&self) -> Credentials {
        self.state.creds.clone()
    }

    /// Installs a fault rule (same as `POST /_sandbox/faults`).
    ///
    /// # Panics
    /// On a rule that can match nothing (`FaultRule::check`: a misspelt operationId), as
    /// an assertion of a test does; `try_inject` returns the error instead.
    pub fn inject(&self, rule: FaultRule) {
        if let Err(e) = self.try_inject(rule) {
            panic!("{e}");
        }
    }

    /// Adds a fault rule, or refuses one that can match nothing (`FaultRule::check`).
    pub fn try_inject(&self, rule: FaultRule) -> Result<(), String> {
        rule.check()?;
        self.state.faults.add(rule);
        Ok(())
    }

    /// Removes every fault rule (same as `DELETE /_sandbox/faults`).
    pub fn clear_faults(&self) {
        self.state.faults.clear();
    }

    /// Zeroes every counter (same as `POST /_sandbox/reset-counters`).
    pub fn reset_counters(&self) {
        self.state.counters.reset();
    }

    /// Makes every issued access token expired now (same as `POST /_sandbox/expire-tokens`).
    pub fn expire_tokens(&self) {
        self.state.auth.expire_all(self.state.now());
    }

    /// Refresh tokens stop working (same as `POST /_sandbox/revoke`).
    pub fn revoke(&self) {
        self.state.auth.revoke();
    }

    /// Changes an operation's rate limit at run time (same as `POST /_sandbox/rate`).
    /// Returns false for an unknown operationId or a rate that is not positive.
    pub fn set_rate(&self, operation: &str, rate: f64, burst: u32) -> bool {
        if !(rate.is_finite() && rate > 0.0) || abws_spec::by_id(operation).is_none() {
            return false;
        }
        self.state.limiter.set(operation, rate, burst.max(1));
        true
    }

    /// Same JSON as `GET /_sandbox/counters`.
    pub fn counters(&self) -> serde_json::Value {
        self.state.counters.to_json()
    }

    /// The sandbox's present as the calendar goes (`GET /_sandbox/clock`'s `now`): compute
    /// date ranges from it. With a pinned `today` it runs `time_scale` times faster than
    /// real time from noon of that day; otherwise it is never after the wall clock, so an
    /// order placed now falls in a range computed from either clock.
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.state.calendar_now()
    }

    /// Same JSON as `GET /_sandbox/dataset`: ids of the data set's notable records.
    pub fn dataset(&self) -> serde_json::Value {
        control::dataset(&self.state)
    }

    /// Addresses and credentials as one JSON object (what the binary prints).
    pub fn describe(&self) -> serde_json::Value {
        serde_json::json!({
            "base_url": self.base_url(),
            "group_urls": {"NA": self.group_url("NA"), "EU": self.group_url("EU"), "FE": self.group_url("FE")},
            "auth_url": self.auth_url(),
            "consent_url": self.consent_url(),
            "documents_url": self.documents_url(),
            "foreign_url": self.foreign_url(),
            "credentials": control::credentials_json(&self.state),
        })
    }

    /// Stops every listener and connection (also done on Drop).
    pub fn stop(self) {
        drop(self)
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
