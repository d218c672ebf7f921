//! Unsafe writes in flight. A placeOrder or addItems (the rows of kind `UnsafeWrite`) whose
//! request is on the wire when its call is cancelled — a dropped future, Ctrl-C in Python —
//! may or may not have been applied. `Guard` covers each such attempt: dropped before the
//! response arrived, it logs a warning with the externalId and records it in the `Watch`
//! the caller ran the call under (the bindings do, to put the externalId on the exception
//! that interrupted the call).

use std::future::Future;
use std::sync::{Arc, Mutex};

use crate::operation_row::Operation;
use crate::retry::OperationKind;

tokio::task_local! {
    static WATCH: Watch;
}

/// An unsafe write that was cancelled while its request was on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cancelled {
    /// The operationId (`placeOrder`, `addItems`).
    pub operation: &'static str,
    /// The externalId of the order, or the comma-joined externalIds of the cart lines.
    pub external_id: Option<String>,
}

impl Cancelled {
    /// One sentence on what happened and what to do, for logs and exception notes.
    pub fn describe(&self) -> String {
        let what = match &self.external_id {
            Some(id) => format!("{} with externalId {id:?}", self.operation),
            None => self.operation.to_string(),
        };
        format!(
            "{what} was cancelled while its request was in flight: it may or may not have been \
             applied; check it (by its externalId) before sending it again"
        )
    }

    /// As `describe`, for a write whose request was sent and whose call was cancelled
    /// after that attempt ended (its answer arrived but was never read by the caller).
    pub fn describe_unread(&self) -> String {
        let what = match &self.external_id {
            Some(id) => format!("{} with externalId {id:?}", self.operation),
            None => self.operation.to_string(),
        };
        format!(
            "{what} was sent before its call was cancelled, and its answer was not read: it \
             may have been applied; check it (by its externalId) before sending it again"
        )
    }
}

/// Where the cancelled unsafe write of a call is recorded, and the last unsafe write whose
/// request it sent. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct Watch(Arc<Mutex<Seen>>);

#[derive(Debug, Default)]
struct Seen {
    cancelled: Option<Cancelled>,
    sent: Option<Cancelled>,
}

impl Watch {
    /// A watch with nothing recorded.
    pub fn new() -> Watch {
        Watch::default()
    }

    /// Runs `fut` under this watch: an unsafe write of `fut` cancelled while in flight
    /// (when `fut` is dropped before it completes) is recorded here.
    pub fn scope<F: Future>(&self, fut: F) -> impl Future<Output = F::Output> {
        WATCH.scope(self.clone(), fut)
    }

    /// The unsafe write that was in flight when the call was cancelled, if any.
    pub fn cancelled(&self) -> Option<Cancelled> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .cancelled
            .clone()
    }

    /// The last unsafe write of the call whose request was put on the wire (its attempt
    /// started), whether or not it was answered: a caller that gives up on a call after
    /// its future completed (an asyncio task cancelled before it read the result) reports
    /// this one (`Cancelled::describe_unread`).
    pub fn sent(&self) -> Option<Cancelled> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .sent
            .clone()
    }
}

/// Covers one attempt of an unsafe write while its request is on the wire.
pub(crate) struct Guard {
    cancelled: Option<Cancelled>,
    watch: Option<Watch>,
}

impl Guard {
    /// A guard for an attempt of `op`, or `None` when `op` is safe to cancel (its kind is
    /// not `UnsafeWrite`).
    pub(crate) fn start(op: &'static Operation, external_id: Option<&str>) -> Option<Guard> {
        (op.kind == OperationKind::UnsafeWrite).then(|| {
            let c = Cancelled {
                operation: op.id,
                external_id: external_id.map(str::to_string),
            };
            let watch = WATCH.try_with(Watch::clone).ok();
            if let Some(w) = &watch {
                w.0.lock().unwrap_or_else(|p| p.into_inner()).sent = Some(c.clone());
            }
            Guard {
                cancelled: Some(c),
                watch,
            }
        })
    }

    /// The attempt ended (a response, or a failure the attempt loop reports): not a
    /// cancellation.
    pub(crate) fn done(mut self) {
        self.cancelled = None;
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let Some(c) = self.cancelled.take() else {
            return;
        };
        log::warn!(target: "abws", "{}", c.describe());
        if let Some(w) = &self.watch {
            w.0.lock().unwrap_or_else(|p| p.into_inner()).cancelled = Some(c);
        }
    }
}
