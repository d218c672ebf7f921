//! Shared state across processes and machines (`Settings::shared_state`, a Redis): one rate
//! limit per operation, one access-token refresh and one write ledger for every process of
//! an account. The service limits each (application, account) whatever process the calls
//! come from; without this, N workers send N times the rate and refresh N times.
//!
//! Every Redis operation is bounded (`OP_BOUND`); when Redis is unreachable, slow or
//! restarted, the callers fall back (local pacing at `FALLBACK_SHARE` of the rate, a local
//! refresh, no ledger), a warning is logged once, and Redis is tried again after a backoff.
//! Keys of one account share one hash tag, so they share a Redis Cluster slot:
//! `abws:{<account>}:rl:<group>:<operationId>`, `…:token`, `…:token-lock`, `…:refresh`,
//! `…:ledger:<operationId>:<externalId>`. `<account>` is a SHA-256 of the client id and the
//! configured refresh token (never a secret in clear).
//!
//! The access token and the rotated refresh token are stored sealed (AES-256-GCM) under a
//! key derived from the client secret (HKDF-SHA256, `seal.rs`), so a reader of Redis
//! without the secret learns nothing usable.
//!
//! This module holds the connection and its health (every operation bounded, the backoff,
//! the warnings); each back-end is a file of its own: the rate-limit buckets
//! (`buckets.rs`), the token store (`tokens.rs`), the refresh lock (`refresh_lock.rs`) and
//! the write ledger (`ledger.rs`).

mod buckets;
mod ledger;
mod refresh_lock;
mod tokens;

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, Weak};
use std::time::Duration;

use redis::aio::ConnectionManager;
use ring::aead::LessSafeKey;
use tokio::time::Instant;

pub use crate::config::check_redis_url as check_url;
use crate::config::{parse_redis_address, Credentials, RegionGroup};
use crate::error::{Error, Result};
use crate::process::Context;
use crate::Secret;
pub use ledger::{LedgerState, LEDGER_TTL};
pub use refresh_lock::REFRESH_LOCK;
pub use tokens::HAND_OVER;

/// The longest any call waits on one Redis operation.
pub const OP_BOUND: Duration = Duration::from_millis(250);

/// How long `Shared::check` waits for Redis: a connection and one round trip, done once
/// (a client's construction may wait for it), so more patient than a call's `OP_BOUND`.
pub const CHECK_BOUND: Duration = Duration::from_secs(2);

/// The share of the rate a process takes for itself while Redis is unreachable.
pub const FALLBACK_SHARE: f64 = 0.5;

/// Deletes the key only when it still holds ARGV[1] (a lock we own, a token we saw).
const DELETE_IF: &str = r#"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"#;

/// A client's handle on the shared state.
pub struct Shared {
    client: redis::Client,
    conn: tokio::sync::Mutex<Option<ConnectionManager>>,
    tag: String,
    /// Seals the tokens; `None` for access-token credentials (nothing to refresh).
    key: Option<LessSafeKey>,
    /// Unreachable until then (a backoff, so a dead Redis costs one bounded try per period).
    down_until: Mutex<Option<Instant>>,
    failures: AtomicU32,
    /// The newest refresh-token generation this process has seen (`refresh_token`).
    refresh_gen: AtomicU64,
    /// A refresh token the server issued here, not yet handed to the fleet (`rotated`).
    pending_rotation: Mutex<Option<Secret>>,
    /// A task is trying to hand `pending_rotation` over (`rotated`).
    handing_over: AtomicBool,
    /// When each `Cause` was last logged: an outage once until Redis answers again, a
    /// misconfiguration (which a working read does not cure) at most every 10 minutes.
    warned: Mutex<[Option<Instant>; 5]>,
    /// The client's context, whose runtime drives the connection when a call runs on a
    /// calling thread's own runtime (`on_context_runtime`) and hands a rotation over
    /// (`rotated`). Not kept alive by this handle.
    context: Weak<Context>,
}

/// Why a Redis operation failed, as far as the log says (never the server's message, which
/// could quote the address or a key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cause {
    /// Down, slow, restarting: passes by itself.
    Unreachable,
    /// Wrong or missing user/password (WRONGPASS, NOAUTH): a configuration error.
    Authentication,
    /// The ACL user may not run a command or touch a key (NOPERM).
    Permission,
    /// Redis is at `maxmemory` with a policy that refuses writes (OOM).
    OutOfMemory,
    /// Another refusal that lasts until someone changes Redis or the address (a read-only
    /// replica, MISCONF, a Cluster slot error, an unusable client configuration).
    Configuration,
}

impl Cause {
    /// What is wrong, for a cause that lasts until someone fixes it (`None`: unreachable).
    /// The address may hold a password: never shown, nor the server's message.
    fn problem(self) -> Option<&'static str> {
        match self {
            Cause::Unreachable => None,
            Cause::Authentication => Some(
                "Redis refused the authentication: the user or password in the shared_state address is wrong or missing",
            ),
            Cause::Permission => Some(
                "Redis refused a command by its ACL (NOPERM): the shared_state user needs GET, SET, DEL, PTTL, EVAL/EVALSHA and SCRIPT LOAD on the keys abws:*",
            ),
            Cause::OutOfMemory => Some(
                "Redis is out of memory (OOM: maxmemory reached with a policy that refuses writes); use maxmemory-policy noeviction with room, or volatile-lru",
            ),
            Cause::Configuration => Some(
                "Redis refused the operation by its configuration (a read-only replica, MISCONF, a Cluster redirection or an unusable address)",
            ),
        }
    }

    fn of(e: &redis::RedisError) -> Cause {
        use redis::ErrorKind as K;
        // A pipeline's error carries its commands' codes in its text only (read here, never
        // logged).
        let text = e.to_string();
        let code = e.code().or_else(|| {
            [
                "WRONGPASS",
                "NOAUTH",
                "NOPERM",
                "OOM",
                "READONLY",
                "MISCONF",
            ]
            .into_iter()
            .find(|c| {
                text.split(|ch: char| !ch.is_ascii_alphanumeric())
                    .any(|w| w == *c)
            })
        });
        match (e.kind(), code) {
            (K::AuthenticationFailed, _) | (_, Some("WRONGPASS" | "NOAUTH")) => {
                Cause::Authentication
            }
            (_, Some("NOPERM")) => Cause::Permission,
            (_, Some("OOM")) => Cause::OutOfMemory,
            (K::InvalidClientConfig, _)
            | (_, Some("READONLY" | "MISCONF" | "CROSSSLOT" | "MOVED" | "ASK")) => {
                Cause::Configuration
            }
            _ => Cause::Unreachable,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("tag", &self.tag)
            .finish_non_exhaustive()
    }
}

impl Shared {
    /// A handle for `url` and the account of `credentials` in `group`, for a client of
    /// `context`. Connects on first use.
    pub fn new(
        url: &Secret,
        credentials: &Credentials,
        group: RegionGroup,
        context: Weak<Context>,
    ) -> Result<Shared> {
        let address = parse_redis_address(url.expose())?;
        let unusable =
            || Error::validation("shared_state", "is not a Redis address this client can use");
        let client = match &address.ca_file {
            None => redis::Client::open(address.url.as_str()).map_err(|_| unusable())?,
            Some(path) => {
                let pem = std::fs::read(path).map_err(|e| {
                    Error::validation(
                        "shared_state",
                        format!("ca_file= {} cannot be read ({e})", path.display()),
                    )
                })?;
                let certs = redis::TlsCertificates {
                    client_tls: None,
                    root_cert: Some(pem),
                };
                redis::Client::build_with_tls(address.url.as_str(), certs).map_err(|_| {
                    Error::validation(
                        "shared_state",
                        format!(
                            "ca_file= {} is not a PEM file of CA certificates",
                            path.display()
                        ),
                    )
                })?
            }
        };
        // The fleet's keys: the app and the account (`account=`, with the region group: one
        // token set per regional marketplace), or else the configured refresh token, which
        // a rotation replaces (a process started from its successor has other keys).
        let (account, key) = match credentials {
            Credentials::RefreshToken {
                client_id,
                client_secret,
                refresh_token,
            } => (
                match &address.account {
                    Some(a) => digest_hex(&[
                        client_id.as_bytes(),
                        group.as_str().as_bytes(),
                        a.as_bytes(),
                    ]),
                    None => digest_hex(&[client_id.as_bytes(), refresh_token.expose().as_bytes()]),
                },
                Some(tokens::seal_key(client_secret.expose(), client_id)),
            ),
            Credentials::AccessToken(t) => (digest_hex(&[t.expose().as_bytes()]), None),
        };
        Ok(Shared {
            client,
            conn: tokio::sync::Mutex::new(None),
            tag: format!("abws:{{{account}}}"),
            key,
            down_until: Mutex::new(None),
            failures: AtomicU32::new(0),
            refresh_gen: AtomicU64::new(0),
            pending_rotation: Mutex::new(None),
            handing_over: AtomicBool::new(false),
            warned: Mutex::new([None; 5]),
            context,
        })
    }

    /// Whether the shared state can be used now: connects (past any backoff), and writes
    /// and deletes a key of this account (`SET … PX`, `DEL`: what the limits, token and
    /// ledger need of the user's rights and of Redis's memory). An unreachable Redis is a
    /// `Transport` error; a refusal that lasts until someone fixes it (password, ACL,
    /// memory, a replica) a `Validation` error naming `shared_state`. Neither quotes the
    /// address, which may hold a password.
    pub async fn check(&self) -> Result<()> {
        let key = format!("{}:check", self.tag);
        let client = self.client.clone();
        let probe = async move {
            let config = redis::aio::ConnectionManagerConfig::new()
                .set_connection_timeout(Some(CHECK_BOUND))
                .set_response_timeout(Some(CHECK_BOUND))
                .set_number_of_retries(0);
            let mut conn = ConnectionManager::new_with_config(client, config).await?;
            redis::pipe()
                .cmd("SET")
                .arg(&key)
                .arg(1)
                .arg("PX")
                .arg(10_000)
                .ignore()
                .cmd("DEL")
                .arg(&key)
                .ignore()
                .query_async::<()>(&mut conn)
                .await
        };
        let outcome = tokio::time::timeout(CHECK_BOUND, self.on_context_runtime(probe)).await;
        let unreachable = |why: String| {
            Error::transport(format!(
                "the shared state cannot be used: Redis is unreachable ({why}); nothing would \
                 be shared (each process would pace itself and refresh its own token, with no \
                 write ledger)"
            ))
        };
        match outcome {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => {
                let cause = Cause::of(&e);
                match cause.problem() {
                    None => Err(unreachable(format!("{:?}", e.kind()))),
                    Some(problem) => Err(Error::validation(
                        "shared_state",
                        format!("cannot be used: {problem}"),
                    )),
                }
            }
            Err(_) => Err(unreachable(format!(
                "no answer within {} ms",
                CHECK_BOUND.as_millis()
            ))),
        }
    }

    /// The runtime of the client's context, built on first use (`None` once the context is
    /// gone or its runtime cannot start).
    fn context_runtime(&self) -> Option<tokio::runtime::Handle> {
        let context = self.context.upgrade()?;
        let handle = context.runtime().ok()?.handle().clone();
        Some(handle)
    }

    /// Runs a Redis future where its connection's driver belongs. A connection (and one remade
    /// after a failure) is driven by a task of the runtime it is made on; when the call runs on
    /// a calling thread's own runtime (`local.rs`), which is driven only while that thread is
    /// in a call, it is made and used on the context's runtime instead, as other threads share it.
    async fn on_context_runtime<T: Send + 'static>(
        &self,
        fut: impl std::future::Future<Output = redis::RedisResult<T>> + Send + 'static,
    ) -> redis::RedisResult<T> {
        if crate::pools::place() != crate::pools::Place::CallingThread {
            return fut.await;
        }
        match self.context_runtime() {
            Some(rt) => rt.spawn(fut).await.unwrap_or_else(|_| {
                Err(std::io::Error::other("the shared-state task failed").into())
            }),
            None => fut.await,
        }
    }

    /// True while Redis is in its backoff after a failure.
    pub fn is_down(&self) -> bool {
        self.down_until
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some_and(|t| Instant::now() < t)
    }

    /// Runs one Redis operation within `OP_BOUND`; `None` when Redis is unreachable, slow
    /// or failing (then in backoff: up to 5 s, doubling). Once Redis answers, a refresh
    /// token rotated while it could not be reached is handed to the fleet first.
    async fn run<T, F, Fut>(&self, what: &str, f: F) -> Option<T>
    where
        F: FnOnce(ConnectionManager) -> Fut,
        Fut: std::future::Future<Output = redis::RedisResult<T>> + Send + 'static,
        T: Send + 'static,
    {
        let v = self.run_once(what, f).await?;
        self.publish_rotation().await;
        Some(v)
    }

    /// `run` without the rotation's hand-over.
    async fn run_once<T, F, Fut>(&self, what: &str, f: F) -> Option<T>
    where
        F: FnOnce(ConnectionManager) -> Fut,
        Fut: std::future::Future<Output = redis::RedisResult<T>> + Send + 'static,
        T: Send + 'static,
    {
        if self.is_down() {
            return None;
        }
        let outcome = tokio::time::timeout(OP_BOUND, async {
            let conn = {
                let mut slot = self.conn.lock().await;
                match slot.as_ref() {
                    Some(c) => c.clone(),
                    None => {
                        let config = redis::aio::ConnectionManagerConfig::new()
                            .set_connection_timeout(Some(OP_BOUND))
                            .set_response_timeout(Some(OP_BOUND))
                            .set_number_of_retries(1);
                        let client = self.client.clone();
                        let c = self
                            .on_context_runtime(async move {
                                ConnectionManager::new_with_config(client, config).await
                            })
                            .await?;
                        *slot = Some(c.clone());
                        c
                    }
                }
            };
            self.on_context_runtime(f(conn)).await
        })
        .await;
        match outcome {
            Ok(Ok(v)) => {
                if self.failures.swap(0, Ordering::Relaxed) > 0 {
                    self.warned.lock().unwrap_or_else(|p| p.into_inner())
                        [Cause::Unreachable.index()] = None;
                    log::info!(target: "abws", "shared state is reachable again: shared limits, token and ledger are back");
                }
                Some(v)
            }
            Ok(Err(e)) => {
                // The kind and code only: a message could quote the address, which may hold a
                // password.
                let cause = Cause::of(&e);
                let why = match (e.code(), cause) {
                    (Some(code), _) => format!("{:?} {code}", e.kind()),
                    (None, Cause::Unreachable) => format!("{:?}", e.kind()),
                    (None, c) => format!("{:?} {c:?}", e.kind()),
                };
                self.failed(what, &why, cause);
                None
            }
            Err(_) => {
                self.failed(
                    what,
                    &format!("no answer within {} ms", OP_BOUND.as_millis()),
                    Cause::Unreachable,
                );
                None
            }
        }
    }

    /// Deletes the key `name` only when it still holds `value` (`DELETE_IF`), as `run`.
    async fn delete_if<V: redis::ToRedisArgs + Send + 'static>(
        &self,
        what: &str,
        name: String,
        value: V,
    ) {
        self.run(what, |mut c| async move {
            redis::Script::new(DELETE_IF)
                .key(name)
                .arg(value)
                .invoke_async::<i64>(&mut c)
                .await
        })
        .await;
    }

    fn failed(&self, what: &str, why: &str, cause: Cause) {
        let n = self.failures.fetch_add(1, Ordering::Relaxed) + 1;
        let backoff = Duration::from_millis((100u64 << n.min(6)).min(5_000));
        *self.down_until.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now() + backoff);
        let share = FALLBACK_SHARE * 100.0;
        let log_it = {
            let mut warned = self.warned.lock().unwrap_or_else(|p| p.into_inner());
            let last = &mut warned[cause.index()];
            let due = match (*last, cause) {
                (None, _) => true,
                (Some(_), Cause::Unreachable) => false,
                (Some(t), _) => t.elapsed() >= Duration::from_secs(600),
            };
            if due {
                *last = Some(Instant::now());
            }
            due
        };
        if log_it {
            match cause.problem() {
                None => log::warn!(
                    target: "abws",
                    "shared state unreachable ({what}: {why}); calls go on paced locally at {share:.0} % of the rate, until it is back"
                ),
                // Lasts until someone fixes it: an error, not an outage that passes.
                Some(problem) => log::error!(
                    target: "abws",
                    "shared state misconfigured: {problem} ({what}: {why}); nothing is shared until it is fixed (calls go on paced locally at {share:.0} % of the rate, each process refreshes its own token, no write ledger)"
                ),
            }
        } else {
            log::debug!(target: "abws", "shared state still unreachable ({what})");
        }
        // The next use connects afresh (a restarted Redis).
        if let Ok(mut slot) = self.conn.try_lock() {
            *slot = None;
        }
    }
}

fn digest_hex(parts: &[&[u8]]) -> String {
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    for p in parts {
        ctx.update(&(p.len() as u64).to_be_bytes());
        ctx.update(p);
    }
    ctx.finish().as_ref()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
