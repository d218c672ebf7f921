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
