//! The process itself: its id, read once and again in a forked child, and the interning
//! of values many clients hold alike. The bottom of the runtime layer: every module that
//! must notice a fork (the pools, the blocking facade, the process context) reads `pid`
//! here.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, Weak};

static PID: AtomicU32 = AtomicU32::new(0);

/// This process's id. Every blocking call compares it with its client's, runtime's and
/// pool's owner to notice a fork; `std::process::id()` is a system call each time (glibc
/// does not cache getpid), three per call. Read once, and again in a forked child.
pub fn pid() -> u32 {
    static WATCHING: AtomicBool = AtomicBool::new(false);
    let cached = PID.load(Ordering::Acquire);
    if cached != 0 {
        return cached;
    }
    // No `Once`: a fork while another thread ran it would leave the child's stuck. The
    // first caller registers the handler, then stores the id; until then (and in a child
    // forked in between, whose copy stays 0) the id is asked for each time.
    if !WATCHING.swap(true, Ordering::AcqRel) {
        #[cfg(unix)]
        // SAFETY: registers a handler that only stores the child's id (getpid is
        // async-signal-safe); the handler lives as long as the program (a plain fn).
        unsafe {
            libc::pthread_atfork(None, None, Some(after_fork_in_child));
        }
        PID.store(std::process::id(), Ordering::Release);
    }
    std::process::id()
}

#[cfg(unix)]
extern "C" fn after_fork_in_child() {
    // SAFETY: getpid has no preconditions.
    PID.store(unsafe { libc::getpid() } as u32, Ordering::Release);
}

/// The process's one copy of `value` among the equal ones still in use in `table`, else
/// `value`, recorded. For what every call of a client reads and many clients hold alike
/// (the API address, the user agent): a thousand clients of one account each read the same
/// copy, warm in the cache, not a thousand cold ones (B11). The table holds no
/// copy alive; it is as long as the number of distinct values in use.
pub(crate) fn interned<T: PartialEq>(table: &Mutex<Vec<Weak<T>>>, value: T) -> Arc<T> {
    // Never waits: a forked child may have inherited the table locked by a thread that is
    // not there. Sharing is an optimisation; a busy table gives the client its own copy.
    let mut table = match table.try_lock() {
        Ok(t) => t,
        Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return Arc::new(value),
    };
    table.retain(|w| w.strong_count() > 0);
    if let Some(same) = table
        .iter()
        .filter_map(Weak::upgrade)
        .find(|held| **held == value)
    {
        return same;
    }
    let fresh = Arc::new(value);
    table.push(Arc::downgrade(&fresh));
    fresh
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_in_use_share_one_copy_and_dropped_ones_are_forgotten() {
        let table = Mutex::new(Vec::new());
        let a = interned(&table, String::from("https://api.example"));
        let b = interned(&table, String::from("https://api.example"));
        let c = interned(&table, String::from("https://other.example"));
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
        drop((a, b, c));
        let d = interned(&table, String::from("https://api.example"));
        assert_eq!(*d, "https://api.example");
        assert_eq!(
            table.lock().unwrap().len(),
            1,
            "the dropped entries are gone"
        );
    }

    #[test]
    fn the_process_id_is_the_systems() {
        assert_eq!(pid(), std::process::id());
    }
}
