//! The request path in named stages (runtime layer): what one call of an operation goes
//! through on its way to the service and back. `Pipeline` chains them for each attempt;
//! `retrying::run` runs the attempts (docs/decisions/030-request-pipeline.md).
//!
//! | stage | module | back-end |
//! |---|---|---|
//! | pacing: the rate-limit slot, and what the answer says of the rate | `pacing` | `PaceBackend` (`Shared`) |
//! | authorization: the headers, and what a 401/403 says of the token | `authorize` | `TokenSource` (`TokenCache`) |
//! | the write ledger: an unsafe write recorded while on the wire | `ledger` | `LedgerBackend` (`Shared`) |
//! | sending: the request on the wire | `send` | `Sender` (`Transport`) |
//! | classifying: a refusal's failure class (pure) | `classify` | |
//! | retrying: the attempt loop, deadline, budget, backoff | `retrying` | |
//!
//! Each stage is generic over its back-end (no boxed future per call) and unit-tested
//! with a fake one beside its code.

pub(crate) mod authorize;
pub(crate) mod call;
pub(crate) mod classify;
pub(crate) mod ledger;
pub(crate) mod pacing;
pub(crate) mod retrying;
pub(crate) mod send;

use std::time::Duration;

use crate::auth::TokenCache;
use crate::request::authorize::{Authorization, Authorized, TokenSource};
use crate::request::call::Call;
use crate::request::classify::classify;
use crate::request::ledger::{LedgerBackend, WriteLedger};
use crate::request::pacing::{PaceBackend, Pacing};
use crate::request::retrying::{Attempt, Attempts, Failure};
use crate::request::send::{Sender, Sending};
use crate::shared::Shared;
use crate::transport::{HttpRequest, HttpResponse, Transport};

/// The stages of one call, the same for each of its attempts; the attempts of an API call
/// (`Attempts`, run by `retrying::run`).
pub(crate) struct Pipeline<'a, B = Shared, T = TokenCache, S = Transport>
where
    B: PaceBackend + LedgerBackend,
    T: TokenSource,
    S: Sender,
{
    pub call: &'a Call,
    /// The call's full address (`Client::url`).
    pub url: &'a url::Url,
    /// `None` with rate limiting off.
    pub pacing: Option<Pacing<'a, B>>,
    pub auth: Authorization<'a, T>,
    /// An unsafe write with an externalId, with shared state.
    pub ledger: Option<WriteLedger<'a, B>>,
    pub send: Sending<'a, S>,
    /// Named in the timeout of a slot past the deadline.
    pub operation_timeout: Duration,
}

impl<B, T, S> Attempts for Pipeline<'_, B, T, S>
where
    B: PaceBackend + LedgerBackend,
    T: TokenSource,
    S: Sender,
{
    type Output = HttpResponse;

    /// One attempt: its slot, its headers, its entry in the write ledger (the first attempt
    /// on the wire), the request, what the answer says to the buckets, and what a refusal
    /// means (an expired token renewed for the replay).
    async fn attempt(&mut self, a: &Attempt) -> Result<HttpResponse, Failure> {
        let op = self.call.op;
        let paced = match &self.pacing {
            Some(p) => Some(p.attempt(a, self.operation_timeout).await?),
            None => None,
        };
        let Authorized { headers, token } = self.auth.headers().await.map_err(Failure::stop)?;
        let req = HttpRequest {
            method: op.method.clone(),
            url: self.url.clone(),
            headers,
            body: self.call.body.clone().map(|b| (b, "application/json")),
        };
        let timeout = a.timeout()?;
        if let Some(ledger) = &self.ledger {
            ledger.begin(a, timeout).await?;
        }
        let failure = match self.send.send(req, a.number, timeout).await {
            Ok(resp) => {
                if let (Some(p), Some(paced)) = (&self.pacing, &paced) {
                    p.feedback(paced, &resp).await;
                }
                if resp.is_success() {
                    return Ok(resp);
                }
                let failure = resp.failure();
                let rejection = self.auth.rejected(&token, &failure, a.replayed).await;
                classify(failure, rejection, self.pacing.is_some(), op)
            }
            Err(f) => Failure::from_send(f),
        };
        self.send.failed(&failure);
        Err(failure)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Result;
    use crate::operations::GET_INVOICES;
    use crate::ratelimit::{Bucket, Limiters, Plan};
    use crate::request::retrying::{self, AttemptPlan};
    use crate::retry::{OperationKind, RetryBudget};
    use crate::secret::Secret;
    use crate::transport::SendFailure;
    use http::HeaderValue;
    use std::collections::VecDeque;
    use std::future::Future;
    use std::sync::{Arc, Mutex};

    /// Tokens `tok-1`, `tok-2`, ...: each `invalidate` moves to the next one.
    #[derive(Default)]
    struct Tokens(Mutex<u32>);

    impl TokenSource for Tokens {
        async fn access_header(&self) -> Result<HeaderValue> {
            let n = *self.0.lock().unwrap() + 1;
            Ok(HeaderValue::from_str(&format!("tok-{n}")).unwrap())
        }
        async fn is_expired(&self, _: &Secret) -> bool {
            false
        }
        fn invalidate(&self, _: &Secret) -> impl Future<Output = ()> + Send {
            *self.0.lock().unwrap() += 1;
            async {}
        }
        fn renews(&self) -> bool {
            true
        }
    }

    /// Answers as scripted, noting the access token each request carried and the resets.
    #[derive(Default)]
    struct Server {
        answers: Mutex<VecDeque<HttpResponse>>,
        tokens: Mutex<Vec<String>>,
        resets: Mutex<u32>,
    }

    impl Server {
        fn answering(
            answers: impl IntoIterator<Item = (u16, &'static str, &'static str)>,
        ) -> Server {
            let answers = answers.into_iter().map(|(status, rate, body)| {
                let mut headers = http::HeaderMap::new();
                if !rate.is_empty() {
                    headers.insert(crate::wire::HEADER_RATE_LIMIT, rate.parse().unwrap());
                }
                HttpResponse {
                    status,
                    headers,
                    body: bytes::Bytes::from_static(body.as_bytes()),
                }
            });
            Server {
                answers: Mutex::new(answers.collect()),
                ..Server::default()
            }
        }
    }

    impl Sender for Server {
        fn send(
            &self,
            req: HttpRequest,
            _: Duration,
        ) -> impl Future<Output = std::result::Result<HttpResponse, SendFailure>> + Send {
            let token = req.headers[0].1.to_str().unwrap().to_string();
            self.tokens.lock().unwrap().push(token);
            let answer = self
                .answers
                .lock()
                .unwrap()
                .pop_front()
                .expect("an answer left");
            async move { Ok(answer) }
        }
        fn reset_pool(&self) {
            *self.resets.lock().unwrap() += 1;
        }
    }

    const EXPIRED: &str =
        r#"{"errors":[{"code":"Unauthorized","message":"Access token expired"}]}"#;
    const MINUTE: Duration = Duration::from_secs(60);

    /// Runs a call of getInvoices through the pipeline's stages on `server`, paced by
    /// `bucket` when given, in `max_attempts`.
    async fn call(
        server: &Server,
        tokens: &Tokens,
        bucket: Option<&Arc<Bucket>>,
        max_attempts: u32,
    ) -> (Result<HttpResponse>, u32) {
        let call = Call::new(&GET_INVOICES);
        let url = "http://127.0.0.1:9/invoices".parse().unwrap();
        let limiters = Limiters::default();
        let mut pipeline: Pipeline<'_, Shared, Tokens, Server> = Pipeline {
            call: &call,
            url: &url,
            pacing: bucket.map(|bucket| Pacing {
                bucket,
                backend: None,
                limiters: &limiters,
                op: call.op,
                group: "FE",
                party: &|| 1,
            }),
            auth: Authorization::new(tokens, call.op, None, None).unwrap(),
            ledger: None,
            send: Sending::new(server, call.op, None),
            operation_timeout: MINUTE,
        };
        let plan = AttemptPlan {
            what: call.op.id,
            kind: OperationKind::SafeRead,
            operation_timeout: MINUTE,
            max_attempts,
            attempt_timeout: Duration::from_secs(5),
            external_id: None,
        };
        let outcome = retrying::run(&RetryBudget::new(100), plan, &mut pipeline).await;
        (outcome, pipeline.send.sent())
    }

    #[tokio::test(start_paused = true)]
    async fn an_expired_token_is_renewed_and_the_call_replayed_with_the_new_one() {
        let server = Server::answering([(401, "", EXPIRED), (200, "", "{}")]);
        let (outcome, sent) = call(&server, &Tokens::default(), None, 1).await;
        assert_eq!(outcome.unwrap().status, 200);
        assert_eq!(sent, 2);
        assert_eq!(*server.tokens.lock().unwrap(), ["tok-1", "tok-2"]);
        assert_eq!(*server.resets.lock().unwrap(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_feeds_the_bucket_and_a_503_renews_the_connections() {
        let server = Server::answering([(503, "5.0", "{}"), (200, "", "{}")]);
        let bucket = Arc::new(Bucket::new(Plan::new(2.0, 2)));
        let (outcome, sent) = call(&server, &Tokens::default(), Some(&bucket), 2).await;
        assert_eq!(outcome.unwrap().status, 200);
        assert_eq!(sent, 2);
        assert_eq!(bucket.plan().rate, 5.0);
        assert_eq!(*server.resets.lock().unwrap(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_refusal_is_the_callers_error_with_the_attempts_sent() {
        let server = Server::answering([(
            404,
            "",
            r#"{"errors":[{"code":"NotFound","message":"no"}]}"#,
        )]);
        let (outcome, sent) = call(&server, &Tokens::default(), None, 3).await;
        let e = outcome.unwrap_err();
        assert_eq!((e.status(), e.attempts(), sent), (Some(404), 1, 1));
        assert_eq!(*server.resets.lock().unwrap(), 0);
    }
}
