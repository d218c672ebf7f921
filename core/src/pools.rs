//! Where connections live. A pool (one `reqwest::Client`) is described by how it reaches
//! hosts (the proxy route, `localhost` pinned, the connect timeout) and what it is for (the
//! API, or presigned document hosts, which never see our headers). Clients with the same
//! description share one pool, so a process serving a thousand accounts keeps one pool per
//! host, not a thousand, and builds no TLS configuration per client (B11).
//!
//! A pool's connections are driven by tasks of the runtime that opened them, so a pool is
//! shared only where that runtime is always there to drive them:
//! - on the library's process runtime (the asyncio client): one pool per description;
//! - on a calling thread's own runtime (`local.rs`: blocking calls from Rust, Python and C):
//!   one pool per description for that thread;
//! - on any other runtime (the async Rust client on the caller's tokio): the client's own
//!   pool, as today; a pool shared with someone else's idle runtime would stall.

use std::cell::Cell;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};
use std::time::Duration;

use crate::error::Error;

/// What a pool is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PoolKind {
    /// The API and the authorization server: keep-alive for 60 s, no Nagle delay.
    Api,
    /// Presigned document addresses: plain GETs, no headers of ours.
    Documents,
}

/// Everything a pool is built from, and what two clients must agree on to share one. No
/// `Debug`: the proxy's address may hold a password.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    kind: PoolKind,
    /// The proxy's address and its exemptions, as text (the proxy itself cannot be compared).
    proxy: Option<String>,
    localhost: Vec<SocketAddr>,
    connect_timeout: Duration,
}

/// A pool's description: one per distinct key in the process, shared by the clients using it.
pub struct PoolSpec {
    key: Key,
    proxy: Option<reqwest::Proxy>,
    /// The pool of the process runtime: (the process it belongs to, the pool).
    process: Mutex<Option<(u32, reqwest::Client)>>,
}

impl std::fmt::Debug for PoolSpec {
    // No proxy: its address may hold a password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PoolSpec")
            .field("kind", &self.key.kind)
            .field("proxied", &self.proxy.is_some())
            .finish_non_exhaustive()
    }
}

impl PoolSpec {
    /// Builds a new pool of this description (no connection is opened here).
    fn build(&self) -> Result<reqwest::Client, Error> {
        let b = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(self.key.connect_timeout);
        let b = match &self.proxy {
            Some(p) => b.proxy(p.clone()),
            None => b.no_proxy(),
        };
        let b = if self.key.localhost.is_empty() {
            b
        } else {
            b.resolve_to_addrs("localhost", &self.key.localhost)
        };
        let b = match self.key.kind {
            PoolKind::Api => b
                .pool_idle_timeout(Duration::from_secs(60))
                .tcp_nodelay(true),
            PoolKind::Documents => b.pool_idle_timeout(Duration::from_secs(30)),
        };
        b.build()
            .map_err(|e| Error::internal(format!("cannot build the HTTP client: {e}")))
    }

    /// The process runtime's pool of this description (rebuilt in a forked child, whose
    /// copies of the parent's connections must not be used).
    fn process_pool(&self, fresh: bool) -> Result<reqwest::Client, Error> {
        let pid = crate::fork::pid();
        let mut slot = self.process.lock().unwrap_or_else(|p| p.into_inner());
        if !fresh {
            if let Some((owner, pool)) = slot.as_ref() {
                if *owner == pid {
                    return Ok(pool.clone());
                }
            }
        }
        if let Some(old) = slot.take() {
            if old.0 != pid {
                // The parent's connections: never closed from here.
                std::mem::forget(old);
            }
        }
        let pool = self.build()?;
        *slot = Some((pid, pool.clone()));
        Ok(pool)
    }
}

/// The descriptions in use in this process, so that equal ones are one.
static SPECS: Mutex<Vec<Weak<PoolSpec>>> = Mutex::new(Vec::new());

fn intern(key: Key, proxy: Option<reqwest::Proxy>) -> Arc<PoolSpec> {
    let mut specs = SPECS.lock().unwrap_or_else(|p| p.into_inner());
    specs.retain(|w| w.strong_count() > 0);
    if let Some(spec) = specs
        .iter()
        .filter_map(Weak::upgrade)
        .find(|s| s.key == key)
    {
        return spec;
    }
    let spec = Arc::new(PoolSpec {
        key,
        proxy,
        process: Mutex::new(None),
    });
    specs.push(Arc::downgrade(&spec));
    spec
}

/// Where the current thread is running a call's future.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Another runtime (or none): the client's own pool.
    Elsewhere,
    /// A worker of the library's process runtime, or a blocking call it drives on a thread
    /// of another runtime (`local::on_process_runtime`).
    ProcessRuntime,
    /// Inside `local::block_on` on the calling thread.
    CallingThread,
}

/// A calling thread's pool: its description (kept alive, so that its address stays unique),
/// the process it was made in, the pool.
type LocalPool = (Arc<PoolSpec>, u32, reqwest::Client);

thread_local! {
    static PLACE: Cell<Place> = const { Cell::new(Place::Elsewhere) };
    /// The calling thread's pools, by the address of their description.
    static LOCAL_POOLS: std::cell::RefCell<HashMap<usize, LocalPool>> =
        std::cell::RefCell::new(HashMap::new());
}

/// Marks the current thread as a worker of the process runtime (its `on_thread_start`).
pub(crate) fn mark_process_worker() {
    PLACE.with(|p| p.set(Place::ProcessRuntime));
}

/// Restores the thread's previous place when dropped.
pub(crate) struct PlaceGuard(Place);

impl Drop for PlaceGuard {
    fn drop(&mut self) {
        PLACE.with(|p| p.set(self.0));
    }
}

/// Marks the current thread as running a call on its own runtime until the guard drops.
pub(crate) fn enter_calling_thread() -> PlaceGuard {
    PlaceGuard(PLACE.with(|p| p.replace(Place::CallingThread)))
}

/// Marks the current thread as running a call with the process runtime's handle (a blocking
/// call made on a thread of another runtime: `local::on_process_runtime`) until the guard
/// drops: the call uses the process runtime's pool, whose connections that runtime drives.
pub(crate) fn enter_process_place() -> PlaceGuard {
    PlaceGuard(PLACE.with(|p| p.replace(Place::ProcessRuntime)))
}

/// The current thread's place.
pub fn place() -> Place {
    PLACE.with(Cell::get)
}

/// A client's pool of one kind: the shared one of the place the call runs in, or its own.
#[derive(Clone)]
pub struct Pool {
    spec: Arc<PoolSpec>,
    /// Built on first use from another runtime only.
    own: Arc<OnceLock<RwLock<reqwest::Client>>>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.spec.fmt(f)
    }
}

impl Pool {
    /// The pool of this description. `proxy_id` identifies `proxy` (its address and
    /// exemptions). Checks that such a pool can be built, once per description.
    pub fn new(
        kind: PoolKind,
        proxy: Option<(reqwest::Proxy, String)>,
        localhost: Vec<SocketAddr>,
        connect_timeout: Duration,
    ) -> Result<Pool, Error> {
        let (proxy, proxy_id) = match proxy {
            Some((p, id)) => (Some(p), Some(id)),
            None => (None, None),
        };
        let key = Key {
            kind,
            proxy: proxy_id,
            localhost,
            connect_timeout,
        };
        let spec = intern(key, proxy);
        // The process runtime's pool doubles as the check that the description builds.
        spec.process_pool(false)?;
        Ok(Pool {
            spec,
            own: Arc::new(OnceLock::new()),
        })
    }

    /// Whether its connections go through a proxy.
    pub fn proxied(&self) -> bool {
        self.spec.proxy.is_some()
    }

    /// The pool to send with from where the current call runs.
    pub fn get(&self) -> Result<reqwest::Client, Error> {
        match place() {
            Place::ProcessRuntime => self.spec.process_pool(false),
            Place::CallingThread => self.local(false),
            Place::Elsewhere => {
                if let Some(own) = self.own.get() {
                    return Ok(own.read().unwrap_or_else(|p| p.into_inner()).clone());
                }
                let built = self.spec.build()?;
                let own = self.own.get_or_init(|| RwLock::new(built));
                Ok(own.read().unwrap_or_else(|p| p.into_inner()).clone())
            }
        }
    }

    /// Drops the pooled connections of the place the current call runs in: the next
    /// request opens a new one. Requests in flight keep the connection they have.
    pub fn reset(&self) {
        let _ = match place() {
            Place::ProcessRuntime => self.spec.process_pool(true).map(drop),
            Place::CallingThread => self.local(true).map(drop),
            Place::Elsewhere => self.spec.build().map(|fresh| match self.own.get() {
                Some(own) => *own.write().unwrap_or_else(|p| p.into_inner()) = fresh,
                None => drop(fresh),
            }),
        };
    }

    /// This thread's pool of the description (a forked child's thread starts afresh).
    fn local(&self, fresh: bool) -> Result<reqwest::Client, Error> {
        let id = Arc::as_ptr(&self.spec) as usize;
        let pid = crate::fork::pid();
        LOCAL_POOLS.with(|pools| {
            let mut pools = pools.borrow_mut();
            if !fresh {
                if let Some((_, owner, pool)) = pools.get(&id) {
                    if *owner == pid {
                        return Ok(pool.clone());
                    }
                }
            }
            if let Some(old) = pools.remove(&id) {
                if old.1 != pid {
                    std::mem::forget(old);
                }
            }
            let pool = self.spec.build()?;
            pools.insert(id, (self.spec.clone(), pid, pool.clone()));
            Ok(pool)
        })
    }
}

/// How many distinct pool descriptions the process holds (for tests and diagnostics).
pub fn descriptions() -> usize {
    SPECS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .filter(|w| w.strong_count() > 0)
        .count()
}
