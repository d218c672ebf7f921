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
//! key derived from the client secret (HKDF-SHA256), so a reader of Redis without the
//! secret learns nothing usable.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use redis::aio::ConnectionManager;
use ring::aead::LessSafeKey;
use tokio::time::Instant;

pub use crate::config::check_redis_url as check_url;
use crate::config::{parse_redis_address, Credentials, RegionGroup};
use crate::error::{Error, Result};
use crate::process::Context;
use crate::seal;
use crate::Secret;

/// The longest any call waits on one Redis operation.
pub const OP_BOUND: Duration = Duration::from_millis(250);

/// How long `Shared::check` waits for Redis: a connection and one round trip, done once
/// (a client's construction may wait for it), so more patient than a call's `OP_BOUND`.
pub const CHECK_BOUND: Duration = Duration::from_secs(2);
/// The share of the rate a process takes for itself while Redis is unreachable.
pub const FALLBACK_SHARE: f64 = 0.5;
/// How long a write-ledger entry is kept.
pub const LEDGER_TTL: Duration = Duration::from_secs(24 * 3600);
/// How long one process may hold the refresh lock.
pub const REFRESH_LOCK: Duration = Duration::from_secs(15);
/// How long a process tries to hand a refresh token rotated while Redis could not be
/// reached to the fleet (`Shared::rotated`).
pub const HAND_OVER: Duration = Duration::from_secs(120);
use crate::ratelimit::{SAFETY_FACTOR, TIME_MARGIN};

/// What the bucket scripts share: Redis's clock, and the bucket's stored fields read back
/// checked. A number read from Redis is used only when it is finite and in bounds: a rate
/// within what the server may report (one request an hour .. 10 000 per second, the bounds
/// of `parse_rate_header`: all a process of ours ever stores), a schedule (`tat`) at most a
/// full bucket and a second ahead of now. Anything else (another program's value, a
/// corrupted key, text) is repaired: a bad rate deleted (the caller's rate applies), a bad
/// schedule, or one kept at a rate now unknown, reset to an empty bucket (the next slot an
/// interval away: the safe side); the script names the field in its answer for the caller
/// to log: never a panic, never an unpaced fleet (S1). Redis's Lua reads "nan",
/// "inf" and "0x10" as numbers: `finite` keeps the first two out.
///
/// The schedule is written with the rate it is counted at (`save_tat`): a schedule alone
/// means nothing, and one made at the plan's rate before any process stored the server's
/// was read at each caller's own rate: a process that had already heard 5/s judged a
/// schedule of a few 0.5/s slots too far ahead and reset it to a full bucket at 5/s, which
/// the first SET_RATE then shrank tenfold as if made at 0.5/s: the fleet's first burst
/// went out about half again (4-7 x 429 for 4 processes x 4 threads).
macro_rules! bucket_script {
    ($body:literal) => {
        concat!(
            r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local bad = {}
local unknown_pace = false
local function finite(x)
  return type(x) == 'number' and x == x and x > -math.huge and x < math.huge
end
local function stored_rate(default)
  local raw = redis.call('HGET', KEYS[1], 'rate')
  if not raw then return default end
  local r = tonumber(raw)
  if finite(r) and r >= 1 / 3600 and r <= 10000 then return r end
  redis.call('HDEL', KEYS[1], 'rate')
  bad[#bad + 1] = 'rate'
  unknown_pace = true
  return default
end
local function save_tat(tat, rate)
  redis.call('HSET', KEYS[1], 'tat', tostring(tat), 'rate', tostring(rate))
end
local function stored_tat(rate, interval, burst)
  local raw = redis.call('HGET', KEYS[1], 'tat')
  if not raw then return nil end
  local x = tonumber(raw)
  if finite(x) and x <= now + interval * (burst + 1) + 1000 then
    if not unknown_pace then return x end
  else
    bad[#bad + 1] = 'tat'
  end
  x = now + interval * burst
  save_tat(x, rate)
  return x
end
local function tolerance(interval, burst, margin)
  return math.max(interval * (burst - 1) - margin, 0)
end
"#,
            $body
        )
    };
}

/// GCRA reservation (the local bucket's arithmetic, `ratelimit.rs`, its time margin
/// included): reserves the next slot of a bucket unless it is more than ARGV[3] ms away,
/// and answers {reserved, wait ms, the fields found invalid}. The clock is Redis's own, so
/// machines whose clocks differ still share one schedule.
/// ARGV: the plan's rate (until one is stored: the reservation stores it with the
/// schedule), the burst, the longest wait, the safety factor, the time margin in ms.
const RESERVE: &str = bucket_script!(
    r#"
local rate = stored_rate(tonumber(ARGV[1]))
local burst = tonumber(ARGV[2])
local interval = 1000 / (rate * tonumber(ARGV[4]))
local tat = stored_tat(rate, interval, burst) or now
if tat < now then tat = now end
local wait = tat - tolerance(interval, burst, tonumber(ARGV[5])) - now
if wait < 0 then wait = 0 end
if wait > tonumber(ARGV[3]) then return {0, tostring(wait), table.concat(bad, ',')} end
save_tat(tat + interval, rate)
redis.call('PEXPIRE', KEYS[1], math.ceil(interval * burst + 3600000))
return {1, tostring(wait), table.concat(bad, ',')}
"#
);

/// The server reported another rate: stored for every process, and the slots already
/// reserved re-counted at it (as the local bucket does), so a faster rate applies at once.
/// ARGV: the new rate, the rate before, the safety factor, the burst.
const SET_RATE: &str = bucket_script!(
    r#"
local old = stored_rate(tonumber(ARGV[2]))
local new = tonumber(ARGV[1])
if old == new then return table.concat(bad, ',') end
local tat = stored_tat(old, 1000 / (old * tonumber(ARGV[3])), tonumber(ARGV[4])) or now
if tat > now then
  redis.call('HSET', KEYS[1], 'tat', tostring(now + (tat - now) * old / new))
end
redis.call('HSET', KEYS[1], 'rate', tostring(new))
return table.concat(bad, ',')
"#
);

/// After a 429 the server's bucket is empty: the next slot is one interval and the time
/// margin away (as the local bucket's `throttled`).
/// ARGV: the rate, the burst, the safety factor.
const THROTTLED: &str = bucket_script!(
    r#"
local rate = stored_rate(tonumber(ARGV[1]))
local burst = tonumber(ARGV[2])
local interval = 1000 / (rate * tonumber(ARGV[3]))
local empty = now + interval * burst
local tat = stored_tat(rate, interval, burst) or 0
if tat < empty then save_tat(empty, rate) end
return table.concat(bad, ',')
"#
);

/// The longest wait for a slot a reservation may answer (the slowest rate's interval is
/// about an hour); a longer one, or one that is not a number, is not trusted.
const LONGEST_SLOT_WAIT: Duration = Duration::from_secs(4 * 3600);

/// When each (operation, invalid fields) was last logged: once a minute at most, so a value
/// a process keeps ignoring, or one something keeps writing, does not log on every call.
static BAD_VALUES_WARNED: Mutex<Vec<(String, Instant)>> = Mutex::new(Vec::new());

/// Logs that a bucket's stored `fields` were invalid (repaired or ignored).
fn bad_bucket_values(op: &str, fields: &str) {
    if fields.is_empty() {
        return;
    }
    let what = format!("{op} {fields}");
    {
        let mut warned = BAD_VALUES_WARNED.lock().unwrap_or_else(|p| p.into_inner());
        warned.retain(|(_, t)| t.elapsed() < Duration::from_secs(60));
        if warned.iter().any(|(w, _)| *w == what) {
            log::debug!(target: "abws", "shared state: {op}'s rate-limit bucket held an invalid {fields} again");
            return;
        }
        warned.push((what, Instant::now()));
    }
    log::warn!(
        target: "abws",
        "shared state: {op}'s rate-limit bucket in Redis held an invalid {fields} (not a number, not finite, or out of bounds); repaired or ignored: calls are paced at the rate this process knows"
    );
}

/// Takes the refresh lock KEYS[1] for ARGV[1] with an expiry of ARGV[2] ms: 1 taken, 0 held
/// by another process, 2 taken over from a lock without expiry (which no process of ours
/// sets: an older version's or a hand-made one, which would hold every process off for
/// good).
const LOCK: &str = r#"
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('PTTL', KEYS[1]) == -1 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 2
end
return 0
"#;

/// Deletes the key only when it still holds ARGV[1] (a lock we own, a token we saw).
const DELETE_IF: &str = r#"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"#;

/// The write ledger's entry for a write going on the wire (`Shared::ledger_begin`).
/// KEYS[1]: the entry. ARGV: how long the request may be in flight (ms), the entry's life
/// (s), 1 when a *done* or *outcome unknown* entry may be taken over. Answers {taken, the
/// state found: none, sending, done, unknown}. *sending* holds its deadline on Redis's clock
/// (`sending:<ms>`): past it, its writer vanished mid-send and the outcome is unknown.
const LEDGER_BEGIN: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local v = redis.call('GET', KEYS[1])
local state = 'none'
if v then
  if string.sub(v, 1, 8) == 'sending:' and (tonumber(string.sub(v, 9)) or 0) >= now then
    state = 'sending'
  elseif v == 'done' then
    state = 'done'
  else
    state = 'unknown'
  end
end
if state == 'none' or (ARGV[3] == '1' and state ~= 'sending') then
  redis.call('SET', KEYS[1], 'sending:' .. string.format('%d', now + tonumber(ARGV[1])), 'EX', ARGV[2])
  return {1, state}
end
return {0, state}
"#;

/// Stores a refresh token's generation ARGV[1] and sealed value ARGV[2] in the hash
/// KEYS[1] only when the generation is newer than both the stored one and the newest ever
/// stored (KEYS[2], which only grows); both kept ARGV[3] seconds. Answers 1 when stored.
const PUT_REFRESH: &str = r#"
local g = tonumber(ARGV[1])
local newest = tonumber(redis.call('GET', KEYS[2]) or '0')
local cur = tonumber(redis.call('HGET', KEYS[1], 'gen') or '0')
if g <= newest or g <= cur then return 0 end
redis.call('HSET', KEYS[1], 'gen', ARGV[1], 'blob', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[3])
return 1
"#;

/// What the ledger holds for an externalId.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LedgerState {
    /// A call is sending it.
    Sending,
    /// A send ended without a known outcome (or the record is unreadable).
    Unknown,
    /// The service accepted it.
    Done,
}

impl LedgerState {
    /// How the entry reads in errors and in Redis.
    pub fn as_str(&self) -> &'static str {
        match self {
            LedgerState::Sending => "sending",
            LedgerState::Unknown => "outcome unknown",
            LedgerState::Done => "done",
        }
    }
}

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
                Some(seal_key(client_secret.expose(), client_id)),
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

    fn bucket_key(&self, group: &str, op: &str) -> String {
        format!("{}:rl:{group}:{op}", self.tag)
    }

    /// Reserves the next slot of the account's bucket: `Some(Ok(wait))` to sleep before
    /// sending, `Some(Err(wait))` when the slot is further than `max_wait` (nothing
    /// reserved), `None` when Redis cannot say (pace locally).
    pub async fn reserve(
        &self,
        group: &str,
        op: &str,
        rate: f64,
        burst: u32,
        max_wait: Duration,
    ) -> Option<std::result::Result<Duration, Duration>> {
        let key = self.bucket_key(group, op);
        let max_ms = max_wait.as_secs_f64() * 1000.0;
        let (reserved, wait, bad): (i64, String, String) = self
            .run("rate limit", |mut c| async move {
                redis::Script::new(RESERVE)
                    .key(key)
                    .arg(rate)
                    .arg(burst)
                    .arg(max_ms)
                    .arg(SAFETY_FACTOR)
                    .arg(TIME_MARGIN.as_millis() as u64)
                    .invoke_async(&mut c)
                    .await
            })
            .await?;
        bad_bucket_values(op, &bad);
        // The script's wait, checked again here: a wait that is not a number, or past any
        // real slot, paces this call locally (the fallback) rather than panicking or
        // sending it at once.
        let Some(wait) = wait
            .parse::<f64>()
            .ok()
            .and_then(|ms| Duration::try_from_secs_f64(ms.max(0.0) / 1000.0).ok())
            .filter(|w| *w <= LONGEST_SLOT_WAIT)
        else {
            bad_bucket_values(op, "wait");
            return None;
        };
        Some(if reserved == 1 { Ok(wait) } else { Err(wait) })
    }

    /// Shares the rate the server reported for an operation (`plan_rate`: the rate the
    /// bucket's reservations were made at when none was stored yet).
    pub async fn set_rate(&self, group: &str, op: &str, rate: f64, plan_rate: f64, burst: u32) {
        let args = [rate, plan_rate, SAFETY_FACTOR, f64::from(burst)];
        self.bucket_update(SET_RATE, group, op, args.to_vec()).await;
    }

    /// The server answered 429: the account's bucket is empty for every process.
    pub async fn throttled(&self, group: &str, op: &str, rate: f64, burst: u32) {
        let args = [rate, f64::from(burst), SAFETY_FACTOR];
        self.bucket_update(THROTTLED, group, op, args.to_vec())
            .await;
    }

    /// Runs a bucket script that answers the fields it found invalid, and logs them.
    async fn bucket_update(&self, script: &'static str, group: &str, op: &str, args: Vec<f64>) {
        let key = self.bucket_key(group, op);
        let bad = self
            .run("rate limit", |mut c| async move {
                let script = redis::Script::new(script);
                let mut call = script.key(key);
                for a in args {
                    call.arg(a);
                }
                call.invoke_async::<String>(&mut c).await
            })
            .await;
        bad_bucket_values(op, bad.as_deref().unwrap_or(""));
    }

    /// The fleet's access token, if one is stored and valid for longer than `margin`, with
    /// its remaining lifetime (Redis's own expiry: no wall clock involved).
    pub async fn token(&self, margin: Duration) -> Option<(Secret, Duration)> {
        let key = self.key.as_ref()?;
        let name = format!("{}:token", self.tag);
        let key_name = name.clone();
        let (blob, ttl): (Option<Vec<u8>>, i64) = self
            .run("token", |mut c| async move {
                redis::pipe()
                    .get(&key_name)
                    .pttl(&key_name)
                    .query_async(&mut c)
                    .await
            })
            .await?;
        let remaining = Duration::from_millis(u64::try_from(ttl).ok()?);
        if remaining <= margin {
            return None;
        }
        let plain = seal::open_blob(key, name.as_bytes(), &blob?)?;
        Some((Secret::new(String::from_utf8(plain).ok()?), remaining))
    }

    /// Stores the fleet's access token for its lifetime.
    pub async fn put_token(&self, token: &Secret, lifetime: Duration) {
        let Some(key) = self.key.as_ref() else { return };
        let name = format!("{}:token", self.tag);
        let blob = seal::seal_blob(key, name.as_bytes(), token.expose().as_bytes());
        let ms = lifetime.as_millis().max(1) as u64;
        self.run("token", |mut c| async move {
            redis::cmd("SET")
                .arg(&name)
                .arg(blob)
                .arg("PX")
                .arg(ms)
                .query_async::<()>(&mut c)
                .await
        })
        .await;
    }

    /// The server refused `used` as expired: drop it for the fleet, unless another process
    /// already replaced it.
    pub async fn drop_token(&self, used: &Secret) {
        let Some(key) = self.key.as_ref() else { return };
        let name = format!("{}:token", self.tag);
        let Some(stored) = self
            .run("token", |mut c| {
                let name = name.clone();
                async move {
                    redis::cmd("GET")
                        .arg(&name)
                        .query_async::<Option<Vec<u8>>>(&mut c)
                        .await
                }
            })
            .await
            .flatten()
        else {
            return;
        };
        if seal::open_blob(key, name.as_bytes(), &stored)
            .is_some_and(|t| t == used.expose().as_bytes())
        {
            self.run("token", |mut c| async move {
                redis::Script::new(DELETE_IF)
                    .key(name)
                    .arg(stored)
                    .invoke_async::<i64>(&mut c)
                    .await
            })
            .await;
        }
    }

    /// Takes the fleet's refresh lock: `Some(Some(id))` taken (release with the id),
    /// `Some(None)` another process holds it, `None` Redis cannot say.
    pub async fn lock_refresh(&self) -> Option<Option<String>> {
        let name = format!("{}:token-lock", self.tag);
        let id = format!("{:032x}", rand::random::<u128>());
        let ms = REFRESH_LOCK.as_millis() as u64;
        let value = id.clone();
        let taken: i64 = self
            .run("token lock", |mut c| async move {
                redis::Script::new(LOCK)
                    .key(&name)
                    .arg(&value)
                    .arg(ms)
                    .invoke_async(&mut c)
                    .await
            })
            .await?;
        if taken == 2 {
            log::warn!(
                target: "abws",
                "the shared refresh lock had no expiry (left by an older version or by hand): taken over"
            );
        }
        Some((taken > 0).then_some(id))
    }

    /// Releases the refresh lock taken with `lock_refresh` (only if it still holds `id`).
    pub async fn unlock_refresh(&self, id: String) {
        let name = format!("{}:token-lock", self.tag);
        self.run("token lock", |mut c| async move {
            redis::Script::new(DELETE_IF)
                .key(name)
                .arg(id)
                .invoke_async::<i64>(&mut c)
                .await
        })
        .await;
    }

    /// The newest refresh token a process of the fleet rotated to, if any, with its
    /// generation. A value older than the newest generation ever stored (`…:refresh-gen`,
    /// which only grows) is not adopted: an old sealed token written back (a restored
    /// backup, a hand edit) is a consumed one. The generation is bound into the seal, so a
    /// value's generation cannot be raised without the client secret.
    pub async fn refresh_token(&self) -> Option<Secret> {
        let key = self.key.as_ref()?;
        let (name, high) = (self.refresh_key(), format!("{}:refresh-gen", self.tag));
        let key_name = name.clone();
        let (generation, blob, newest): (Option<u64>, Option<Vec<u8>>, Option<u64>) = self
            .run("refresh token", |mut c| async move {
                redis::pipe()
                    .hget(&key_name, "gen")
                    .hget(&key_name, "blob")
                    .get(&high)
                    .query_async(&mut c)
                    .await
            })
            .await?;
        let newest = newest.unwrap_or(0).max(generation.unwrap_or(0));
        self.refresh_gen.fetch_max(newest, Ordering::Relaxed);
        let generation = generation?;
        if generation < newest {
            log::warn!(
                target: "abws",
                "the shared refresh token is of generation {generation}, older than the newest \
                 stored ({newest}): written back from an old copy, not used"
            );
            return None;
        }
        let plain = seal::open_blob(key, &refresh_aad(&name, generation), &blob?)?;
        Some(Secret::new(String::from_utf8(plain).ok()?))
    }

    fn refresh_key(&self) -> String {
        format!("{}:refresh-token", self.tag)
    }

    /// A refresh token the server issued to this process: handed to every process at the
    /// next Redis operation that succeeds (at once when Redis answers; when it cannot be
    /// reached, as soon as it is back, so the processes whose refresh the rotation made
    /// fail find it: `TokenCache::await_fleet`).
    /// While Redis cannot be reached, a task of the process runtime tries again every
    /// half second for `HAND_OVER` (a process whose calls do not touch Redis meanwhile
    /// still hands it over).
    pub fn rotated(self: &Arc<Self>, token: Secret) {
        *self
            .pending_rotation
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(token);
        if !self.is_down() || self.handing_over.swap(true, Ordering::AcqRel) {
            return;
        }
        let Some(rt) = self.context_runtime() else {
            self.handing_over.store(false, Ordering::Release);
            return;
        };
        let shared = Arc::downgrade(self);
        rt.spawn(async move {
            let until = Instant::now() + HAND_OVER;
            while Instant::now() < until {
                tokio::time::sleep(Duration::from_millis(500)).await;
                let Some(shared) = shared.upgrade() else {
                    return;
                };
                shared.publish_rotation().await;
                let done = shared
                    .pending_rotation
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .is_none();
                if done {
                    break;
                }
            }
            if let Some(shared) = shared.upgrade() {
                shared.handing_over.store(false, Ordering::Release);
            }
        });
    }

    /// Hands the rotation `rotated` keeps to the fleet, if any (kept if Redis fails).
    pub async fn publish_rotation(&self) {
        let pending = self
            .pending_rotation
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(token) = pending {
            if self.put_refresh_token(&token).await.is_none() {
                self.pending_rotation
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_or_insert(token);
            }
        }
    }

    /// Hands a refresh token the server issued to every process, as the generation after
    /// the newest this process has seen; a newer one already stored stays (compare and
    /// set). Kept 400 days, the longest a refresh token of the family lives. `None` when
    /// Redis cannot say.
    async fn put_refresh_token(&self, token: &Secret) -> Option<()> {
        let Some(key) = self.key.as_ref() else {
            return Some(());
        };
        let name = self.refresh_key();
        let high = format!("{}:refresh-gen", self.tag);
        let generation = self.refresh_gen.load(Ordering::Relaxed) + 1;
        let blob = seal::seal_blob(
            key,
            &refresh_aad(&name, generation),
            token.expose().as_bytes(),
        );
        let stored = self
            .run_once("refresh token", |mut c| async move {
                redis::Script::new(PUT_REFRESH)
                    .key(name)
                    .key(high)
                    .arg(generation)
                    .arg(blob)
                    .arg(400 * 24 * 3600)
                    .invoke_async::<i64>(&mut c)
                    .await
            })
            .await?;
        if stored == 1 {
            self.refresh_gen.fetch_max(generation, Ordering::Relaxed);
        } else {
            log::debug!(target: "abws", "a newer shared refresh token is stored: ours is not");
        }
        Some(())
    }

    /// `…:ledger:<operationId>:<digest>`: a SHA-256 prefix of `parts` (the write's path
    /// values, then its externalIds), each length-prefixed, so `["a,b"]` and `["a", "b"]`,
    /// or the same externalIds in two carts, are two entries.
    fn ledger_key(&self, op: &str, parts: &[&str]) -> String {
        let bytes: Vec<&[u8]> = parts.iter().map(|p| p.as_bytes()).collect();
        format!("{}:ledger:{op}:{}", self.tag, digest_hex(&bytes))
    }

    /// Records that a write goes on the wire now, for at most `in_flight` (a *sending*
    /// entry past that is a writer that vanished mid-send: *outcome unknown*).
    /// `Some(Ok(()))` recorded (ours), `Some(Err(state))` the ledger holds it and it must not
    /// be sent, `None` Redis cannot say. With `resend_safe` (the service answers a known
    /// externalId with the original result: placeOrder) a *done* or *outcome unknown* entry
    /// is taken over, as that resend is how an unknown outcome is resolved; a *sending* one
    /// never is.
    pub async fn ledger_begin(
        &self,
        op: &str,
        parts: &[&str],
        resend_safe: bool,
        in_flight: Duration,
    ) -> Option<std::result::Result<(), LedgerState>> {
        let name = self.ledger_key(op, parts);
        let ttl = LEDGER_TTL.as_secs();
        let ms = in_flight.as_millis().max(1) as u64;
        let (taken, state): (i64, String) = self
            .run("write ledger", |mut c| async move {
                redis::Script::new(LEDGER_BEGIN)
                    .key(name)
                    .arg(ms)
                    .arg(ttl)
                    .arg(u8::from(resend_safe))
                    .invoke_async(&mut c)
                    .await
            })
            .await?;
        if taken == 1 {
            return Some(Ok(()));
        }
        Some(Err(match state.as_str() {
            "done" => LedgerState::Done,
            "sending" => LedgerState::Sending,
            _ => LedgerState::Unknown,
        }))
    }

    /// Records how a send ended: done, outcome unknown, or (`None`) refused by the
    /// service, which frees the externalId for a corrected call.
    pub async fn ledger_end(&self, op: &str, parts: &[&str], state: Option<LedgerState>) {
        let name = self.ledger_key(op, parts);
        let ttl = LEDGER_TTL.as_secs();
        self.run("write ledger", |mut c| async move {
            match state {
                Some(s) => {
                    redis::cmd("SET")
                        .arg(&name)
                        .arg(s.as_str())
                        .arg("EX")
                        .arg(ttl)
                        .query_async::<()>(&mut c)
                        .await
                }
                None => redis::cmd("DEL").arg(&name).query_async::<()>(&mut c).await,
            }
        })
        .await;
    }
}

/// The seal's associated data of a refresh token: its key name and its generation.
fn refresh_aad(name: &str, generation: u64) -> Vec<u8> {
    format!("{name}#{generation}").into_bytes()
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

/// The key the tokens are sealed under: HKDF-SHA256 of the client secret, salt "abws shared
/// state v1", info the client id. Every process of the application derives the same one.
/// A value is sealed with the full Redis key name it is stored under as associated data (a
/// refresh token's with its generation: `refresh_aad`), so a value copied to another key
/// (another account's, or the token's to the refresh token's) does not open: the key is the
/// application's, shared by its accounts.
fn seal_key(client_secret: &str, client_id: &str) -> LessSafeKey {
    seal::derive(
        client_secret.as_bytes(),
        b"abws shared state v1",
        &[client_id.as_bytes()],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seal::{open_blob, seal_blob_at, NONCE_LEN};

    /// A token and a refresh token sealed as stored in Redis, computed apart from this code
    /// (HKDF-SHA256 and AES-256-GCM of Python's `cryptography`) for the secret
    /// "client-secret", the client id "client-id" and the nonce 00 01 .. 0b.
    const TOKEN_BLOB: &str =
        "000102030405060708090a0b262107cd17330089ea4f425de74fbe0ba9968ed7bb7b05386cc22b3f98e03bd22d";
    const REFRESH_BLOB: &str = "000102030405060708090a0b262107de1720068cfd594218be54ba05a2fc65631dbbe38403e49ffc6f04ff33c25a";

    fn bytes(hex: &str) -> Vec<u8> {
        let mut out = vec![0u8; hex.len() / 2];
        crate::sealed::unhex(hex, &mut out).unwrap();
        out
    }

    #[test]
    fn values_sealed_by_another_fleet_member_open_and_seal_the_same() {
        // A value in Redis outlives the process (and the version) that wrote it: the format
        // is nonce | AES-256-GCM(value, aad = its key name) under HKDF-SHA256(salt "abws
        // shared state v1", the client secret, info = the client id).
        let key = seal_key("client-secret", "client-id");
        let nonce: [u8; NONCE_LEN] = std::array::from_fn(|i| i as u8);
        let token = bytes(TOKEN_BLOB);
        let name = b"abws:{acct}:token";
        assert_eq!(seal_blob_at(&key, nonce, name, b"Atza|access-token"), token);
        assert_eq!(open_blob(&key, name, &token).unwrap(), b"Atza|access-token");
        let refresh = bytes(REFRESH_BLOB);
        let aad = refresh_aad("abws:{acct}:refresh-token", 7);
        assert_eq!(
            seal_blob_at(&key, nonce, &aad, b"Atzr|refresh-token"),
            refresh
        );
        assert_eq!(
            open_blob(&key, &aad, &refresh).unwrap(),
            b"Atzr|refresh-token"
        );
        // Another key name, generation or secret does not open it.
        assert!(open_blob(&key, b"abws:{other}:token", &token).is_none());
        let older = refresh_aad("abws:{acct}:refresh-token", 6);
        assert!(open_blob(&key, &older, &refresh).is_none());
        let other = seal_key("other-secret", "client-id");
        assert!(open_blob(&other, name, &token).is_none());
    }
}
