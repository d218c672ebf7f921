//! The sending stage: puts one attempt on the wire through a `Sender` (`Transport`),
//! counting the attempts sent, covering an unsafe write in flight (`inflight::Guard`: a
//! cancelled call says it may have been applied), logging each attempt at DEBUG, and
//! dropping the connection pool after a failure that may have left a connection in a bad
//! state.

use std::future::Future;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::time::Duration;

use tokio::time::Instant;

use crate::inflight;
use crate::operation_row::Operation;
use crate::request::retrying::Failure;
use crate::retry::FailureClass;
use crate::transport::{HttpRequest, HttpResponse, SendFailure, Transport};

/// What sends a request (`Transport`: the client's API pool).
pub(crate) trait Sender: Sync {
    /// Sends one attempt and reads the whole response within `timeout`.
    fn send(
        &self,
        req: HttpRequest,
        timeout: Duration,
    ) -> impl Future<Output = Result<HttpResponse, SendFailure>> + Send;
    /// Drops the pooled connections: the next attempt opens a new one.
    fn reset_pool(&self);
}

impl Sender for Transport {
    fn send(
        &self,
        req: HttpRequest,
        timeout: Duration,
    ) -> impl Future<Output = Result<HttpResponse, SendFailure>> + Send {
        Transport::send(self, req, timeout)
    }
    fn reset_pool(&self) {
        Transport::reset_pool(self)
    }
}

/// The sending of one call's attempts.
pub(crate) struct Sending<'a, S: Sender = Transport> {
    sender: &'a S,
    op: &'static Operation,
    /// Named in the warning of an unsafe write cancelled in flight.
    external_id: Option<&'a str>,
    /// The attempts that went on the wire.
    sent: AtomicU32,
}

impl<'a, S: Sender> Sending<'a, S> {
    /// The sending of a call of `op` through `sender`.
    pub fn new(sender: &'a S, op: &'static Operation, external_id: Option<&'a str>) -> Self {
        Sending {
            sender,
            op,
            external_id,
            sent: AtomicU32::new(0),
        }
    }

    /// How many attempts went on the wire.
    pub fn sent(&self) -> u32 {
        self.sent.load(Relaxed)
    }

    /// Sends attempt number `attempt` within `timeout`.
    pub async fn send(
        &self,
        req: HttpRequest,
        attempt: u32,
        timeout: Duration,
    ) -> Result<HttpResponse, SendFailure> {
        let op = self.op;
        self.sent.fetch_add(1, Relaxed);
        let sent_at = Instant::now();
        // An unsafe write cancelled from here on may have been applied: the guard says so.
        let in_flight = inflight::Guard::start(op, self.external_id);
        let outcome = self.sender.send(req, timeout).await;
        if let Some(g) = in_flight {
            g.done();
        }
        // Checked first: the record's arguments (the request id, a `String`) would be
        // built for every call even when the level is off.
        let debug = log::log_enabled!(target: "abws", log::Level::Debug);
        match &outcome {
            _ if !debug => {}
            Ok(resp) => log::debug!(
                target: "abws",
                "{} attempt {attempt}: HTTP {} in {} ms (request id {})",
                op.id,
                resp.status,
                sent_at.elapsed().as_millis(),
                resp.request_id().unwrap_or_default()
            ),
            Err(f) => log::debug!(
                target: "abws",
                "{} attempt {attempt}: {} after {} ms: {}",
                op.id,
                f.class.describe(),
                sent_at.elapsed().as_millis(),
                f.error
            ),
        }
        outcome
    }

    /// After a failed attempt: a connection that may be in a bad state (a reset, a
    /// half-read body, a server in trouble) is not reused.
    pub fn failed(&self, failure: &Failure) {
        if matches!(
            failure.class,
            FailureClass::Ambiguous | FailureClass::NotSent
        ) {
            self.sender.reset_pool();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::operations::{GET_INVOICES, PLACE_ORDER};
    use std::sync::Mutex;

    /// A sender that answers 200 (or never, `hang`), counting pool resets.
    #[derive(Default)]
    struct Fake {
        hang: bool,
        resets: Mutex<u32>,
    }

    impl Sender for Fake {
        fn send(
            &self,
            _: HttpRequest,
            _: Duration,
        ) -> impl Future<Output = Result<HttpResponse, SendFailure>> + Send {
            let hang = self.hang;
            async move {
                if hang {
                    std::future::pending::<()>().await;
                }
                Ok(HttpResponse {
                    status: 200,
                    headers: http::HeaderMap::new(),
                    body: bytes::Bytes::new(),
                })
            }
        }
        fn reset_pool(&self) {
            *self.resets.lock().unwrap() += 1;
        }
    }

    fn request() -> HttpRequest {
        HttpRequest {
            method: http::Method::POST,
            url: "http://127.0.0.1:9/orders".parse().unwrap(),
            headers: Vec::new(),
            body: None,
        }
    }

    const T: Duration = Duration::from_secs(5);

    #[tokio::test]
    async fn each_attempt_on_the_wire_is_counted() {
        let fake = Fake::default();
        let s = Sending::new(&fake, &GET_INVOICES, None);
        assert_eq!(s.sent(), 0);
        s.send(request(), 1, T).await.unwrap();
        s.send(request(), 2, T).await.unwrap();
        assert_eq!(s.sent(), 2);
    }

    #[tokio::test]
    async fn an_unsafe_write_cancelled_in_flight_is_reported() {
        let watch = inflight::Watch::new();
        let hanging = Fake {
            hang: true,
            ..Fake::default()
        };
        let s = Sending::new(&hanging, &PLACE_ORDER, Some("o-1"));
        let cut = tokio::time::timeout(
            Duration::from_millis(10),
            watch.scope(s.send(request(), 1, T)),
        );
        assert!(cut.await.is_err());
        let c = watch.cancelled().expect("the cancelled write");
        assert_eq!(
            (c.operation, c.external_id.as_deref()),
            ("placeOrder", Some("o-1"))
        );

        // Answered: sent, not cancelled.
        let watch = inflight::Watch::new();
        let fake = Fake::default();
        let s = Sending::new(&fake, &PLACE_ORDER, Some("o-2"));
        watch.scope(s.send(request(), 1, T)).await.unwrap();
        assert!(watch.cancelled().is_none());
        assert_eq!(watch.sent().unwrap().external_id.as_deref(), Some("o-2"));
    }

    #[test]
    fn the_pool_is_dropped_after_a_failure_that_may_have_spoilt_a_connection() {
        let fake = Fake::default();
        let s = Sending::new(&fake, &GET_INVOICES, None);
        for (class, resets) in [
            (FailureClass::Final, 0),
            (FailureClass::RejectedBeforeProcessing, 0),
            (FailureClass::Security, 0),
            (FailureClass::Ambiguous, 1),
            (FailureClass::NotSent, 2),
        ] {
            s.failed(&Failure::new(class, Error::transport("failed")));
            assert_eq!(*fake.resets.lock().unwrap(), resets, "{class:?}");
        }
    }
}
