//! The state clients share: the rate-limit buckets, the retry budget, the ledger of rotated
//! refresh tokens and a tokio runtime. A client holds its `Context`: the process's
//! (`context`) unless it was built on one of its own (`Client::with_context`). A forked child
//! gets a fresh process context: what the parent built (runtime threads, locks, pooled
//! connections) does not exist or must not be shared there, so it is rebuilt, never reused.

use std::sync::{Arc, Mutex, OnceLock};

use tokio::runtime::Runtime;

use crate::error::{Error, Result};
pub use crate::fork::pid;
use crate::ratelimit::Limiters;
use crate::retry::RetryBudget;
use crate::rotations::RotationLedger;

/// State shared by the clients built on it: by default, every client of the process.
#[derive(Debug)]
pub struct Context {
    pid: u32,
    /// The rate-limit buckets.
    pub limiters: Limiters,
    /// The retry budget.
    pub retry_budget: RetryBudget,
    /// The refresh tokens rotations consumed in this process, and their successors.
    pub rotations: Arc<RotationLedger>,
    runtime: OnceLock<std::result::Result<Runtime, String>>,
}

impl Context {
    /// A context of its own, shared with no other client: rate-limit buckets, retry budget
    /// and rotation ledger that only the clients built with it (`Client::with_context`)
    /// use. `Client::new` uses the process's (`context`).
    pub fn new() -> Arc<Context> {
        Arc::new(Context {
            pid: pid(),
            limiters: Limiters::default(),
            retry_budget: RetryBudget::default(),
            rotations: Arc::default(),
            runtime: OnceLock::new(),
        })
    }

    /// The process this state was built in (a forked child builds its own).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The process runtime (the asyncio client's calls, the shared-state connection): built
    /// on first use, two worker threads. Blocking calls run on their own thread instead
    /// (`local.rs`).
    pub fn runtime(&self) -> Result<&Runtime> {
        self.runtime
            .get_or_init(|| {
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .thread_name("abws-worker")
                    .on_thread_start(crate::pools::mark_process_worker)
                    .enable_all()
                    .build()
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|e| Error::runtime(format!("cannot start the I/O runtime: {e}")))
    }
}

impl Drop for Context {
    /// A context of its own may be dropped on a runtime's thread (its last client dropped in
    /// a task): its runtime, if it was built, stops without waiting there. The process's
    /// context is never dropped.
    fn drop(&mut self) {
        if let Some(Ok(rt)) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

static CURRENT: Mutex<Option<Arc<Context>>> = Mutex::new(None);

/// The context of the current process, rebuilt after a fork.
pub fn context() -> Arc<Context> {
    let pid = pid();
    let mut slot = CURRENT.lock().unwrap_or_else(|p| p.into_inner());
    match slot.as_ref() {
        Some(ctx) if ctx.pid == pid => ctx.clone(),
        Some(_) => {
            // The parent's runtime has no worker threads in this child: dropping it
            // would wait for them forever, so it is leaked on purpose.
            if let Some(old) = slot.take() {
                std::mem::forget(old);
            }
            let ctx = Context::new();
            *slot = Some(ctx.clone());
            ctx
        }
        None => {
            let ctx = Context::new();
            *slot = Some(ctx.clone());
            ctx
        }
    }
}
