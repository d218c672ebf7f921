//! The retry policy: which failures may be retried for which kind of operation, the
//! backoff between attempts, and the process-wide retry budget.
//!
//! The decision is one pure function (`decide`) so it can be tested exhaustively; the
//! table behind it is written out in docs/decisions/009-retries.md ("Retries").

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

/// What an operation does to the server's state, which decides what may be resent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperationKind {
    /// GET: no side effect.
    SafeRead,
    /// POST used as a query (getInvoiceDetailsByOrderLineItems, product look-ups,
    /// cost estimation): no side effect.
    ReadPost,
    /// PATCH/DELETE that set absolute state (modifyItems, deleteItems).
    IdempotentWrite,
    /// createReport: a duplicate only creates a second report job; resent at most once
    /// after an ambiguous failure.
    BenignDuplicate,
    /// The refresh-token grant.
    TokenRefresh,
    /// The authorization-code grant: the code is single-use.
    CodeExchange,
    /// placeOrder, addItems: a resend may duplicate an order or a cart line.
    UnsafeWrite,
}

impl OperationKind {
    /// Every kind (for exhaustive tests of the policy).
    pub const ALL: [OperationKind; 7] = [
        OperationKind::SafeRead,
        OperationKind::ReadPost,
        OperationKind::IdempotentWrite,
        OperationKind::BenignDuplicate,
        OperationKind::TokenRefresh,
        OperationKind::CodeExchange,
        OperationKind::UnsafeWrite,
    ];
}

/// What the transport observed about a failed attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FailureClass {
    /// F0: nothing reached the server (DNS, connect refused or timed out, TLS setup).
    NotSent,
    /// F1: rejected before processing (429, expired-token 401/403).
    RejectedBeforeProcessing,
    /// F2: may have been applied (timeout or reset after sending, truncated body,
    /// 500/502/503/504).
    Ambiguous,
    /// F3: retrying cannot help (other 4xx, an undecodable 2xx).
    Final,
    /// F4: never retried (bad certificate, redirect, oversized body).
    Security,
}

impl FailureClass {
    /// Every class (for exhaustive tests of the policy).
    pub const ALL: [FailureClass; 5] = [
        FailureClass::NotSent,
        FailureClass::RejectedBeforeProcessing,
        FailureClass::Ambiguous,
        FailureClass::Final,
        FailureClass::Security,
    ];

    /// What happened to the request, in the words of the logs and messages (the class
    /// names are this module's terms, not the user's).
    pub fn describe(self) -> &'static str {
        match self {
            FailureClass::NotSent => "the request was not sent",
            FailureClass::RejectedBeforeProcessing => {
                "the service refused the request before processing it"
            }
            FailureClass::Ambiguous => "the request may or may not have been processed",
            FailureClass::Final => "the service refused the request",
            FailureClass::Security => "the exchange was refused for safety",
        }
    }
}

/// Classifies an HTTP status. `None` for success (any 2xx). `expired_token` says the
/// error envelope (or the local clock) reports an expired access token.
pub fn classify_status(status: u16, expired_token: bool) -> Option<FailureClass> {
    match status {
        200..=299 => None,
        429 => Some(FailureClass::RejectedBeforeProcessing),
        401 | 403 if expired_token => Some(FailureClass::RejectedBeforeProcessing),
        500 | 502 | 503 | 504 => Some(FailureClass::Ambiguous),
        300..=399 => Some(FailureClass::Security),
        _ => Some(FailureClass::Final),
    }
}

/// What to do after a failed attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Send the same request again (after the backoff).
    Retry,
    /// Give up and report the failure as it is.
    Fail,
    /// Give up and report that the outcome is unknown (the request may have been applied).
    OutcomeUnknown,
}

/// The rule: may an operation of `kind` be resent after a failure of `class`, given that
/// `attempt` attempts (1-based) have been made of at most `max_attempts`, and
/// `ambiguous_retries` resends already followed ambiguous failures?
pub fn decide(
    kind: OperationKind,
    class: FailureClass,
    attempt: u32,
    max_attempts: u32,
    ambiguous_retries: u32,
) -> Decision {
    let may_resend = match class {
        FailureClass::NotSent | FailureClass::RejectedBeforeProcessing => true,
        FailureClass::Ambiguous => match kind {
            OperationKind::SafeRead
            | OperationKind::ReadPost
            | OperationKind::IdempotentWrite
            | OperationKind::TokenRefresh => true,
            OperationKind::BenignDuplicate => ambiguous_retries == 0,
            OperationKind::CodeExchange | OperationKind::UnsafeWrite => false,
        },
        FailureClass::Final | FailureClass::Security => false,
    };
    let unknown_if_stopped = class == FailureClass::Ambiguous
        && matches!(
            kind,
            OperationKind::UnsafeWrite | OperationKind::CodeExchange
        );
    if may_resend && attempt < max_attempts {
        Decision::Retry
    } else if unknown_if_stopped {
        Decision::OutcomeUnknown
    } else {
        Decision::Fail
    }
}

/// Full-jitter exponential backoff: a random wait in `[0, min(cap, base · 2^(attempt-1))]`,
/// with `base` 0.5 s and `cap` 20 s. `unit` is a random number in `[0, 1)`.
pub fn backoff(attempt: u32, unit: f64) -> Duration {
    let base = 0.5_f64;
    let cap = 20.0_f64;
    let ceiling = (base * 2f64.powi(attempt.saturating_sub(1).min(16) as i32)).min(cap);
    Duration::from_secs_f64(ceiling * unit.clamp(0.0, 1.0))
}

/// A process-wide retry budget (the botocore/smithy quota): each retry costs tokens,
/// each success refunds one, so an outage turns into fast failures instead of a storm.
#[derive(Debug)]
pub struct RetryBudget {
    tokens: AtomicI64,
    max: i64,
}

impl RetryBudget {
    /// Capacity of the process-wide budget.
    pub const CAPACITY: i64 = 500;
    /// Cost of a retry after an error status or reset.
    pub const RETRY_COST: i64 = 5;
    /// Cost of a retry after a timeout.
    pub const TIMEOUT_COST: i64 = 10;

    /// A full budget of `max` tokens.
    pub fn new(max: i64) -> RetryBudget {
        RetryBudget {
            tokens: AtomicI64::new(max),
            max,
        }
    }

    /// Takes `cost` tokens if available; false means "fail fast, do not retry".
    pub fn try_spend(&self, cost: i64) -> bool {
        self.tokens
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| {
                (t >= cost).then_some(t - cost)
            })
            .is_ok()
    }

    /// Refunds one token after a success (never above the capacity).
    pub fn refund(&self, amount: i64) {
        let _ = self
            .tokens
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| {
                Some((t + amount).min(self.max))
            });
    }

    /// Fills the budget again (operators and tests; the process starts full).
    pub fn reset(&self) {
        self.tokens.store(self.max, Ordering::Release);
    }

    /// Tokens left.
    pub fn available(&self) -> i64 {
        self.tokens.load(Ordering::Acquire)
    }
}

impl Default for RetryBudget {
    fn default() -> Self {
        RetryBudget::new(Self::CAPACITY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_never_goes_negative_and_refills() {
        let b = RetryBudget::new(12);
        assert!(b.try_spend(5));
        assert!(b.try_spend(5));
        assert!(!b.try_spend(5));
        assert_eq!(b.available(), 2);
        b.refund(100);
        assert_eq!(b.available(), 12);
    }

    #[test]
    fn backoff_is_bounded() {
        assert_eq!(backoff(1, 1.0), Duration::from_millis(500));
        assert_eq!(backoff(2, 1.0), Duration::from_secs(1));
        assert_eq!(backoff(10, 1.0), Duration::from_secs(20));
        assert_eq!(backoff(3, 0.0), Duration::ZERO);
    }
}
