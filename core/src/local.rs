//! The calling thread's runtime. A blocking call (the Rust `blocking` facade, Python's
//! `abws.Client`, the C API) runs its future on the thread that waits for it, with that
//! thread's own current-thread tokio runtime and connections (`pools.rs`): the call's I/O
//! needs no other thread. Handing each call to a runtime worker and back cost two thread
//! wake-ups per call, and lost the most when the machine's cores were busy (B1).
//!
//! The runtime is built on a thread's first call and lives as long as the thread; a forked
//! child's thread builds its own (the parent's, its descriptors included, is left alone).

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

use tokio::runtime::{Builder, Runtime};

use crate::error::{Error, Result};
use crate::pools;

thread_local! {
    /// (the process the runtime belongs to, the runtime)
    static RUNTIME: RefCell<Option<(u32, Rc<Runtime>)>> = const { RefCell::new(None) };
}

fn runtime() -> Result<Rc<Runtime>> {
    let pid = crate::fork::pid();
    RUNTIME.with(|slot| {
        let mut slot = slot.borrow_mut();
        if let Some((owner, rt)) = slot.as_ref() {
            if *owner == pid {
                return Ok(rt.clone());
            }
        }
        if let Some(old) = slot.take() {
            // A forked child: the parent's runtime (its epoll descriptor shared with the
            // parent) is never touched again, nor dropped.
            std::mem::forget(old);
        }
        let rt = Rc::new(
            Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| Error::runtime(format!("cannot start the I/O runtime: {e}")))?,
        );
        *slot = Some((pid, rt.clone()));
        Ok(rt)
    })
}

/// The message of a blocking call made while the library runs a call on this thread: from
/// inside one of the library's callbacks (a download's writer, a refresh-token callback).
pub const NESTED_CALL: &str =
    "a blocking call of the library was made from inside a callback the library was running \
     (a download's write callback or writer, a refresh-token callback, a progress callback): \
     such a callback must not call the library's blocking functions (operations, pages, \
     downloads); return from it and make the call after the call that ran it has returned";

/// True while the library runs a call's future on the current thread (`block_on`, or a
/// worker of the process runtime): a callback the library calls now is inside a call.
pub fn inside_library_call() -> bool {
    pools::place() != pools::Place::Elsewhere
}

/// Runs `fut` to completion on the current thread's runtime. Inside the library's own call
/// (a callback of the library calling it again) this is an error that says so. On a thread
/// of another tokio runtime (`spawn_blocking`, `block_in_place`, an entered handle, one of
/// its workers), where no runtime may start, the future runs as `on_process_runtime` says.
pub fn block_on<F: Future>(fut: F) -> Result<F::Output> {
    if inside_library_call() {
        return Err(Error::runtime(NESTED_CALL));
    }
    if tokio::runtime::Handle::try_current().is_ok() {
        return on_process_runtime(fut);
    }
    let rt = runtime()?;
    let _place = pools::enter_calling_thread();
    Ok(rt.block_on(async {
        // The thread's connections were not driven while it was away: let them see what
        // happened meanwhile (a keep-alive connection the server closed) before the call
        // picks one. Two turns: one to poll the sockets, one to run their tasks.
        tokio::task::yield_now().await;
        tokio::task::yield_now().await;
        fut.await
    }))
}

/// Runs `fut` on this thread of another tokio runtime: polled here, the thread sleeping
/// between polls, with the process runtime's handle, so that its sockets, timers and the
/// tasks it spawns are the process runtime's (driven by its workers, with its shared pool),
/// not the caller's, whose runtime may be this very thread. Tokio refuses a `block_on` on a
/// thread inside a runtime, and tells a worker from a `spawn_blocking` thread by nothing
/// public: both get this way, which works on either. On a worker it holds that worker for
/// the call, as any blocking call does (async code has `abws::Client`).
fn on_process_runtime<F: Future>(fut: F) -> Result<F::Output> {
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};

    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }

    let process = crate::process::context();
    let _handle = process.runtime()?.enter();
    let _place = pools::enter_process_place();
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut fut = std::pin::pin!(fut);
    loop {
        if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
            return Ok(out);
        }
        std::thread::park();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // A blocking call made while the library runs a call on this thread (what a callback of
    // the library calling it again does) says so, not "use .await".
    #[test]
    fn a_nested_call_names_the_callback() {
        let inner = block_on(async { block_on(async { 1 }) }).unwrap();
        let e = inner.unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Runtime);
        assert!(e.to_string().contains("inside a callback"), "{e}");
        assert!(!e.to_string().contains("spawn_blocking"), "{e}");
        assert!(!inside_library_call());
    }
}
