//! The retrying stage: the one attempt loop of every operation (API calls and document
//! fetches). It runs an operation's attempts until one succeeds or the policy
//! (`retry::decide`) stops, within the operation's deadline and a retry budget, with
//! jittered backoff between attempts (docs/decisions/009-retries.md).

use std::time::Duration;

use tokio::time::Instant;

use crate::error::{Error, Result};
use crate::retry::{self, Decision, FailureClass, OperationKind, RetryBudget};
use crate::transport;

/// The one attempt loop of every operation (API calls and document fetches): runs
/// `attempts` until one succeeds or the policy stops, within the operation's deadline
/// (`settings.timeouts.operation`, never slept past) and the process-wide retry budget,
/// with jittered backoff between attempts and `retry::decide` on every failure.
pub(crate) async fn run<A: Attempts>(
    budget: &RetryBudget,
    plan: AttemptPlan<'_>,
    attempts: &mut A,
) -> Result<A::Output> {
    let deadline = deadline_after(plan.operation_timeout);
    let mut number = 0u32;
    let mut ambiguous_retries = 0u32;
    let mut replayed = false;
    let mut spent = 0i64;
    loop {
        number += 1;
        let a = Attempt::new(number, deadline, plan.attempt_timeout, replayed);
        let failure = match attempts.attempt(&a).await {
            Ok(v) => {
                // A success refunds what its retries cost (or one token).
                budget.refund(spent.max(1));
                return Ok(v);
            }
            Err(f) if f.stop => return Err(f.error),
            Err(f) => f,
        };
        let class = failure.class;
        let error = failure.error.with_attempts(number);
        // The one free replay (a refreshed token, a renewed download address) is the
        // auth layer's, not one of the policy's `max_attempts`: a client of one
        // attempt still survives its token's end (refresh once, retry once: docs/decisions/009-retries.md).
        // The policy (and its backoff) counts the other attempts.
        let free_replay = failure.replay && !replayed;
        let counted = number - u32::from(replayed);
        let decision = if free_replay {
            Decision::Retry
        } else {
            retry::decide(
                plan.kind,
                class,
                counted,
                plan.max_attempts,
                ambiguous_retries,
            )
        };
        match decision {
            Decision::Fail => return Err(error),
            Decision::OutcomeUnknown => {
                let e = Error::outcome_unknown(plan.what, plan.external_id, error);
                log::warn!(target: "abws", "{e}");
                return Err(e);
            }
            Decision::Retry => {
                let (delay, cost) = if free_replay {
                    replayed = true;
                    (Duration::ZERO, 0)
                } else if failure.paced {
                    // The bucket already pushed the next slot out; add jitter only.
                    (
                        retry::backoff(1, rand::random::<f64>()) / 5,
                        RetryBudget::RETRY_COST,
                    )
                } else {
                    let cost = if failure.timed_out {
                        RetryBudget::TIMEOUT_COST
                    } else {
                        RetryBudget::RETRY_COST
                    };
                    (retry::backoff(counted, rand::random::<f64>()), cost)
                };
                if class == FailureClass::Ambiguous {
                    ambiguous_retries += 1;
                }
                if deadline_after(delay) >= deadline {
                    return Err(with_note(
                        error,
                        "not retried: the operation's deadline would pass during the backoff",
                    ));
                }
                // Only a retry that will be made is paid for.
                if cost > 0 {
                    spent += cost;
                    if !budget.try_spend(cost) {
                        return Err(with_note(error, "not retried: the process-wide retry budget is exhausted (the service is failing; calls fail fast until it recovers)"));
                    }
                }
                log::info!(
                    target: "abws",
                    "{}: attempt {counted} of {}: {} ({}); retrying in {} ms",
                    plan.what,
                    plan.max_attempts,
                    class.describe(),
                    error,
                    delay.as_millis()
                );
                if !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
            }
        }
    }
}

/// The attempts of one operation, run by `run`. (A trait rather than an
/// async closure: its future is declared `Send`, which an async closure's cannot be yet.)
pub(crate) trait Attempts {
    type Output;
    /// One attempt; state kept in `self` carries over to the next one.
    fn attempt(
        &mut self,
        a: &Attempt,
    ) -> impl std::future::Future<Output = std::result::Result<Self::Output, Failure>> + Send;
}

/// What the attempt loop needs to know about an operation.
pub(crate) struct AttemptPlan<'a> {
    /// The operation's name, for logs and `OutcomeUnknown`.
    pub what: &'static str,
    /// What a resend may do to the server's state (`retry::decide`).
    pub kind: OperationKind,
    /// The operation's deadline from its start (`Timeouts::operation`).
    pub operation_timeout: Duration,
    /// Attempts allowed, the first included (`Settings::max_attempts`).
    pub max_attempts: u32,
    /// The longest one attempt may take (cut to the deadline).
    pub attempt_timeout: Duration,
    /// Reported with `OutcomeUnknown`.
    pub external_id: Option<&'a str>,
}

/// One attempt, as the attempt loop hands it out.
pub(crate) struct Attempt {
    /// 1-based.
    pub number: u32,
    /// When the operation must be over.
    pub deadline: Instant,
    limit: Duration,
    /// The operation's one free replay (a renewed access token or presigned address) has
    /// been used: an expired token or address now is final.
    pub replayed: bool,
}

impl Attempt {
    /// Attempt `number` (1-based) of an operation due by `deadline`, each attempt taking at
    /// most `limit`.
    pub fn new(number: u32, deadline: Instant, limit: Duration, replayed: bool) -> Attempt {
        Attempt {
            number,
            deadline,
            limit,
            replayed,
        }
    }

    /// How long this attempt may take from now: the attempt timeout cut to the deadline;
    /// once the deadline has passed, the failure that ends the operation.
    pub fn timeout(&self) -> std::result::Result<Duration, Failure> {
        let remaining = self.deadline.saturating_duration_since(Instant::now());
        let timeout = self.limit.min(remaining);
        if timeout.is_zero() {
            return Err(Failure::stop(
                Error::timeout("the operation's deadline passed before the attempt")
                    .with_attempts(self.number - 1),
            ));
        }
        Ok(timeout)
    }
}

/// How an attempt failed, for the attempt loop to decide on.
#[derive(Debug)]
pub(crate) struct Failure {
    pub class: FailureClass,
    pub error: Error,
    /// The attempt ran out of time (a retry costs more of the budget).
    pub timed_out: bool,
    /// What expired was renewed: resend at once, without backoff or budget (once per
    /// operation; a second one backs off like any retry).
    pub replay: bool,
    /// A 429 whose rate-limit bucket already delays the next attempt: jitter only.
    pub paced: bool,
    /// Ends the operation with `error` as it is (no retry, no attempt count added).
    pub stop: bool,
}

impl Failure {
    pub fn new(class: FailureClass, error: Error) -> Failure {
        Failure {
            class,
            error,
            timed_out: false,
            replay: false,
            paced: false,
            stop: false,
        }
    }

    /// A failed attempt as the transport reported it.
    pub fn from_send(f: transport::SendFailure) -> Failure {
        Failure {
            timed_out: f.timed_out,
            ..Failure::new(f.class, f.error)
        }
    }

    /// Rejected before processing because something expired that is now renewed.
    pub fn replay(error: Error) -> Failure {
        Failure {
            replay: true,
            ..Failure::new(FailureClass::RejectedBeforeProcessing, error)
        }
    }

    /// Ends the operation with this error.
    pub fn stop(error: Error) -> Failure {
        Failure {
            stop: true,
            ..Failure::new(FailureClass::Final, error)
        }
    }
}

/// Now plus `d`, without overflow: `d` is cut to `config::MAX_DURATION`.
pub(crate) fn deadline_after(d: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(d.min(crate::config::MAX_DURATION))
        .unwrap_or(now)
}

fn with_note(error: Error, note: &str) -> Error {
    error.with_hint(note)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use std::collections::VecDeque;

    /// Attempts that answer as scripted, noting each attempt's number and replay flag.
    struct Script {
        steps: VecDeque<std::result::Result<u32, Failure>>,
        seen: Vec<(u32, bool)>,
    }

    impl Script {
        fn new(steps: impl IntoIterator<Item = std::result::Result<u32, Failure>>) -> Script {
            Script {
                steps: steps.into_iter().collect(),
                seen: Vec::new(),
            }
        }
    }

    impl Attempts for Script {
        type Output = u32;
        async fn attempt(&mut self, a: &Attempt) -> std::result::Result<u32, Failure> {
            self.seen.push((a.number, a.replayed));
            self.steps.pop_front().expect("a scripted step is left")
        }
    }

    fn plan(kind: OperationKind, max_attempts: u32) -> AttemptPlan<'static> {
        AttemptPlan {
            what: "someOperation",
            kind,
            operation_timeout: Duration::from_secs(60),
            max_attempts,
            attempt_timeout: Duration::from_secs(5),
            external_id: Some("ext-1"),
        }
    }

    fn failed(class: FailureClass) -> std::result::Result<u32, Failure> {
        Err(Failure::new(class, Error::transport("it failed")))
    }

    fn replay() -> std::result::Result<u32, Failure> {
        Err(Failure::replay(Error::transport("the token expired")))
    }

    #[tokio::test(start_paused = true)]
    async fn the_free_replay_is_neither_counted_nor_paid_for() {
        let budget = RetryBudget::new(100);
        let mut s = Script::new([replay(), Ok(7)]);
        let out = run(&budget, plan(OperationKind::SafeRead, 1), &mut s).await;
        assert_eq!(out.unwrap(), 7);
        assert_eq!(s.seen, [(1, false), (2, true)]);
        assert_eq!(budget.available(), 100);
    }

    #[tokio::test(start_paused = true)]
    async fn a_second_replay_is_a_counted_attempt() {
        let budget = RetryBudget::new(100);
        let mut s = Script::new([replay(), replay()]);
        let e = run(&budget, plan(OperationKind::SafeRead, 1), &mut s)
            .await
            .unwrap_err();
        assert_eq!(s.seen.len(), 2);
        assert_eq!(e.attempts(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn retries_spend_the_budget_and_a_success_refunds_them() {
        let budget = RetryBudget::new(100);
        let mut s = Script::new([
            failed(FailureClass::NotSent),
            failed(FailureClass::NotSent),
            failed(FailureClass::NotSent),
        ]);
        let e = run(&budget, plan(OperationKind::SafeRead, 3), &mut s)
            .await
            .unwrap_err();
        assert_eq!(e.attempts(), 3);
        assert_eq!(budget.available(), 100 - 2 * RetryBudget::RETRY_COST);

        let mut timed_out = Failure::new(FailureClass::NotSent, Error::transport("slow"));
        timed_out.timed_out = true;
        let mut s = Script::new([Err(timed_out), Ok(1)]);
        run(&budget, plan(OperationKind::SafeRead, 3), &mut s)
            .await
            .unwrap();
        // The timeout's retry cost more, and the success refunded it.
        assert_eq!(budget.available(), 100 - 2 * RetryBudget::RETRY_COST);
    }

    #[tokio::test(start_paused = true)]
    async fn an_empty_budget_fails_fast_and_says_why() {
        let budget = RetryBudget::new(RetryBudget::RETRY_COST - 1);
        let mut s = Script::new([failed(FailureClass::NotSent), Ok(1)]);
        let e = run(&budget, plan(OperationKind::SafeRead, 3), &mut s)
            .await
            .unwrap_err();
        assert_eq!(s.seen.len(), 1);
        assert!(e.hint().is_some_and(|h| h.contains("retry budget")), "{e}");
    }

    #[tokio::test(start_paused = true)]
    async fn no_backoff_runs_past_the_deadline() {
        let budget = RetryBudget::new(100);
        let mut p = plan(OperationKind::SafeRead, 3);
        p.operation_timeout = Duration::ZERO;
        let mut s = Script::new([failed(FailureClass::NotSent), Ok(1)]);
        let e = run(&budget, p, &mut s).await.unwrap_err();
        assert_eq!(s.seen.len(), 1);
        assert!(e.hint().is_some_and(|h| h.contains("deadline")), "{e}");
        assert_eq!(budget.available(), 100);
    }

    #[tokio::test(start_paused = true)]
    async fn an_unsafe_write_that_may_have_been_applied_is_not_resent() {
        let budget = RetryBudget::new(100);
        let mut s = Script::new([failed(FailureClass::Ambiguous), Ok(1)]);
        let e = run(&budget, plan(OperationKind::UnsafeWrite, 3), &mut s)
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutcomeUnknown);
        assert_eq!(s.seen.len(), 1);
        assert!(e.to_string().contains("ext-1"), "{e}");
        // A read is resent after the same failure.
        let mut s = Script::new([failed(FailureClass::Ambiguous), Ok(1)]);
        assert_eq!(
            run(&budget, plan(OperationKind::SafeRead, 3), &mut s)
                .await
                .unwrap(),
            1
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_stop_ends_the_operation_with_its_error_as_it_is() {
        let budget = RetryBudget::new(100);
        let stop = Err(Failure::stop(Error::timeout("no time left")));
        let mut s = Script::new([stop, Ok(1)]);
        let e = run(&budget, plan(OperationKind::SafeRead, 3), &mut s)
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Timeout);
        assert_eq!(e.attempts(), 0);
        assert_eq!(s.seen.len(), 1);
    }
}
