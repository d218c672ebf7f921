//! The write-ledger stage: an unsafe write with an externalId (a row of kind `UnsafeWrite`)
//! is recorded in the account's write ledger when it goes on the wire, and its entry ends
//! with the call's outcome; a call whose entry another call (any process) holds is refused
//! unsent (docs/decisions/008-shared-state.md). The ledger is kept by a `LedgerBackend`
//! (Redis: `Shared`).

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Duration;

use crate::error::{Error, ErrorKind, Result};
use crate::request::call::Call;
use crate::request::retrying::{Attempt, Failure};
use crate::retry::OperationKind;
use crate::shared::{LedgerState, Shared};

/// A write's entry in the ledger: its operation, the path's values then the externalIds
/// (`Shared::ledger_key`), and whether a resend may resolve an unknown outcome.
pub(crate) struct LedgerEntry<'a> {
    pub op: &'a str,
    pub parts: Vec<&'a str>,
    pub resend_safe: bool,
}

/// What `LedgerBackend::ledger_begin` answers.
pub(crate) type Began = Option<std::result::Result<(), LedgerState>>;

/// Where an account's write ledger is kept (`Shared`: Redis).
pub(crate) trait LedgerBackend: Sync {
    /// Records that the write `entry` goes on the wire now, for at most `in_flight`:
    /// `Some(Ok(()))` recorded, `Some(Err(state))` the ledger holds it (not to be sent),
    /// `None` the back-end cannot say. With `resend_safe` a *done* or *outcome unknown*
    /// entry is taken over, a *sending* one never.
    fn ledger_begin(
        &self,
        entry: &LedgerEntry<'_>,
        in_flight: Duration,
    ) -> impl Future<Output = Began> + Send;
    /// Records how a send ended (`None`: refused by the service, the entry removed).
    fn ledger_end(
        &self,
        entry: &LedgerEntry<'_>,
        state: Option<LedgerState>,
    ) -> impl Future<Output = ()> + Send;
}

impl LedgerBackend for Shared {
    fn ledger_begin(
        &self,
        e: &LedgerEntry<'_>,
        in_flight: Duration,
    ) -> impl Future<Output = Began> + Send {
        Shared::ledger_begin(self, e.op, &e.parts, e.resend_safe, in_flight)
    }
    fn ledger_end(
        &self,
        e: &LedgerEntry<'_>,
        state: Option<LedgerState>,
    ) -> impl Future<Output = ()> + Send {
        Shared::ledger_end(self, e.op, &e.parts, state)
    }
}

/// How much longer than its attempt's timeout a request stays *sending* in the ledger (a
/// response on its way, the ledger's own round trip): past that, its writer vanished.
const LEDGER_MARGIN: Duration = Duration::from_secs(5);

/// An unsafe write's entry in the write ledger: recorded when an attempt goes on the wire
/// (`taken`), ended with the call's outcome.
pub(crate) struct WriteLedger<'a, B: LedgerBackend = Shared> {
    backend: &'a B,
    call: &'a Call,
    entry: LedgerEntry<'a>,
    taken: AtomicBool,
}

impl<'a, B: LedgerBackend> WriteLedger<'a, B> {
    /// The entry of `call` in `backend`'s ledger: its path's values, then its externalIds
    /// (else its externalId). `None` for a call that is not an unsafe write with an
    /// externalId, or without a back-end.
    pub fn of(call: &'a Call, backend: Option<&'a B>) -> Option<Self> {
        let backend = backend?;
        let ext = call.external_id.as_deref()?;
        if call.op.kind != OperationKind::UnsafeWrite {
            return None;
        }
        let mut parts: Vec<&str> = call.path.iter().map(|(_, v)| v.as_str()).collect();
        match &call.external_ids[..] {
            [] => parts.push(ext),
            ids => parts.extend(ids.iter().map(String::as_str)),
        }
        let entry = LedgerEntry {
            op: call.op.id,
            parts,
            resend_safe: call.op.resend_safe,
        };
        Some(WriteLedger {
            backend,
            call,
            entry,
            taken: AtomicBool::new(false),
        })
    }

    /// Before attempt `a` goes on the wire (for at most `timeout`): the first attempt that
    /// gets this far records the write as sending — paced and authenticated, so a call
    /// dropped or failed before this point leaves no entry. A write the ledger already
    /// holds ends the operation unsent (`AlreadyApplied`, `AlreadyRecorded`). The row's
    /// `resend_safe` lets a resend resolve an unknown outcome.
    pub async fn begin(&self, a: &Attempt, timeout: Duration) -> std::result::Result<(), Failure> {
        if self.taken.load(Relaxed) {
            return Ok(());
        }
        let op = self.call.op;
        let began = self
            .backend
            .ledger_begin(&self.entry, timeout + LEDGER_MARGIN)
            .await;
        match began {
            Some(Ok(())) => self.taken.store(true, Relaxed),
            None => {}
            Some(Err(state)) => {
                let ext = self.call.external_id.as_deref().unwrap_or_default();
                let e = match state {
                    LedgerState::Done => Error::already_applied(op.id, ext),
                    s => Error::already_recorded(op.id, ext, s.as_str()),
                };
                return Err(Failure::stop(e.with_attempts(a.number - 1)));
            }
        }
        Ok(())
    }

    /// After the call, when it recorded the write: done, outcome unknown, or (refused by
    /// the service) removed, which frees the externalId for a corrected call.
    pub async fn end<T>(&self, outcome: &Result<T>) {
        if !self.taken.load(Relaxed) {
            return;
        }
        let state = match outcome {
            Ok(_) => Some(LedgerState::Done),
            Err(e) if e.kind() == ErrorKind::OutcomeUnknown => Some(LedgerState::Unknown),
            Err(_) => None,
        };
        self.backend.ledger_end(&self.entry, state).await;
    }

    /// The write was applied but its answer is unreadable: the entry says *outcome
    /// unknown*, not done (whether or not this call recorded it).
    pub async fn unreadable(&self) {
        let unknown = Some(LedgerState::Unknown);
        self.backend.ledger_end(&self.entry, unknown).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operations::{ADD_ITEMS, GET_INVOICES, PLACE_ORDER};
    use std::collections::HashMap;
    use std::sync::Mutex;

    /// An in-memory ledger with the back-end's rules, noting each `resend_safe` it was
    /// given; `down` answers as an unreachable back-end.
    #[derive(Default)]
    struct Memory {
        entries: Mutex<HashMap<Vec<String>, LedgerState>>,
        resend_safe: Mutex<Vec<bool>>,
        down: bool,
    }

    fn key(op: &str, parts: &[&str]) -> Vec<String> {
        std::iter::once(op)
            .chain(parts.iter().copied())
            .map(String::from)
            .collect()
    }

    impl LedgerBackend for Memory {
        fn ledger_begin(
            &self,
            e: &LedgerEntry<'_>,
            _: Duration,
        ) -> impl Future<Output = Began> + Send {
            self.resend_safe.lock().unwrap().push(e.resend_safe);
            let mut entries = self.entries.lock().unwrap();
            let answer = match entries.get(&key(e.op, &e.parts)) {
                _ if self.down => None,
                Some(LedgerState::Sending) => Some(Err(LedgerState::Sending)),
                Some(s) if !e.resend_safe => Some(Err(s.clone())),
                _ => {
                    entries.insert(key(e.op, &e.parts), LedgerState::Sending);
                    Some(Ok(()))
                }
            };
            async move { answer }
        }
        fn ledger_end(
            &self,
            e: &LedgerEntry<'_>,
            state: Option<LedgerState>,
        ) -> impl Future<Output = ()> + Send {
            let mut entries = self.entries.lock().unwrap();
            match state {
                Some(s) => entries.insert(key(e.op, &e.parts), s),
                None => entries.remove(&key(e.op, &e.parts)),
            };
            async {}
        }
    }

    impl Memory {
        fn state(&self, op: &str, parts: &[&str]) -> Option<LedgerState> {
            self.entries.lock().unwrap().get(&key(op, parts)).cloned()
        }
    }

    fn attempt(number: u32) -> Attempt {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        Attempt::new(number, deadline, Duration::from_secs(5), false)
    }

    const T: Duration = Duration::from_secs(5);

    fn add_items(ids: &[&str]) -> Call {
        let mut call = Call::new(&ADD_ITEMS).path("cartId", "cart-1");
        call.external_id = Some(ids[0].to_string());
        call.external_ids = ids.iter().map(|s| s.to_string()).collect();
        call
    }

    fn order(ext: &str) -> Call {
        let mut call = Call::new(&PLACE_ORDER);
        call.external_id = Some(ext.into());
        call
    }

    #[test]
    fn only_unsafe_writes_with_an_external_id_have_an_entry() {
        let m = Memory::default();
        assert!(WriteLedger::of(&order("o-1"), None::<&Memory>).is_none());
        assert!(WriteLedger::of(&Call::new(&PLACE_ORDER), Some(&m)).is_none());
        let mut read = Call::new(&GET_INVOICES);
        read.external_id = Some("x".into());
        assert!(WriteLedger::of(&read, Some(&m)).is_none());
        let call = add_items(&["a", "b"]);
        let l = WriteLedger::of(&call, Some(&m)).unwrap();
        assert_eq!(l.entry.parts, ["cart-1", "a", "b"]);
        let call = order("o-1");
        assert_eq!(
            WriteLedger::of(&call, Some(&m)).unwrap().entry.parts,
            ["o-1"]
        );
    }

    #[tokio::test]
    async fn a_write_is_recorded_once_and_ends_done() {
        let m = Memory::default();
        let call = order("o-1");
        let l = WriteLedger::of(&call, Some(&m)).unwrap();
        l.begin(&attempt(1), T).await.unwrap();
        // The retry of the same call does not begin it again.
        l.begin(&attempt(2), T).await.unwrap();
        assert_eq!(m.resend_safe.lock().unwrap().len(), 1);
        assert_eq!(m.state("placeOrder", &["o-1"]), Some(LedgerState::Sending));
        l.end(&Ok(())).await;
        assert_eq!(m.state("placeOrder", &["o-1"]), Some(LedgerState::Done));
    }

    #[tokio::test]
    async fn a_held_write_is_refused_unsent() {
        let m = Memory::default();
        let call = add_items(&["a"]);
        let first = WriteLedger::of(&call, Some(&m)).unwrap();
        first.begin(&attempt(1), T).await.unwrap();
        let second = WriteLedger::of(&call, Some(&m)).unwrap();
        let f = second.begin(&attempt(2), T).await.err().unwrap();
        assert!(f.stop);
        assert_eq!(f.error.kind(), ErrorKind::OutcomeUnknown, "{}", f.error);
        assert!(
            f.error.to_string().contains("recorded as sending"),
            "{}",
            f.error
        );
        assert_eq!(f.error.attempts(), 1);
        // The refused call ends nothing: the entry stays the first call's.
        second.end(&Ok(())).await;
        assert_eq!(
            m.state("addItems", &["cart-1", "a"]),
            Some(LedgerState::Sending)
        );
        first.end(&Ok(())).await;
        let f = second.begin(&attempt(1), T).await.err().unwrap();
        assert_eq!(f.error.kind(), ErrorKind::Validation, "{}", f.error);
        assert!(
            f.error.to_string().contains("already applied"),
            "{}",
            f.error
        );
        assert_eq!(*m.resend_safe.lock().unwrap(), [false, false, false]);
    }

    #[tokio::test]
    async fn place_order_is_resent_to_resolve_an_unknown_outcome() {
        let m = Memory::default();
        let call = order("o-1");
        let l = WriteLedger::of(&call, Some(&m)).unwrap();
        l.begin(&attempt(1), T).await.unwrap();
        l.end::<()>(&Err(Error::outcome_unknown(
            "placeOrder",
            Some("o-1"),
            Error::transport("reset"),
        )))
        .await;
        assert_eq!(m.state("placeOrder", &["o-1"]), Some(LedgerState::Unknown));
        let again = WriteLedger::of(&call, Some(&m)).unwrap();
        again.begin(&attempt(1), T).await.unwrap();
        assert_eq!(*m.resend_safe.lock().unwrap(), [true, true]);
    }

    #[tokio::test]
    async fn a_refused_write_frees_its_external_id() {
        let m = Memory::default();
        let call = order("o-1");
        let l = WriteLedger::of(&call, Some(&m)).unwrap();
        l.begin(&attempt(1), T).await.unwrap();
        l.end::<()>(&Err(Error::validation("items", "bad"))).await;
        assert_eq!(m.state("placeOrder", &["o-1"]), None);
    }

    #[tokio::test]
    async fn an_unreachable_ledger_neither_holds_nor_ends_a_write() {
        let m = Memory {
            down: true,
            ..Memory::default()
        };
        let call = order("o-1");
        let l = WriteLedger::of(&call, Some(&m)).unwrap();
        l.begin(&attempt(1), T).await.unwrap();
        l.end(&Ok(())).await;
        assert_eq!(m.state("placeOrder", &["o-1"]), None);
    }
}
