//! The retry rule, swept exhaustively: every status 100–599 and every failure class, for
//! every operation kind, against the table written in docs/decisions/009-retries.md.

use abws::retry::{classify_status, decide, Decision, FailureClass, OperationKind};

/// The table of docs/decisions/009-retries.md, written independently of the implementation.
fn expected(
    kind: OperationKind,
    class: FailureClass,
    attempt: u32,
    max: u32,
    ambiguous: u32,
) -> Decision {
    use FailureClass::*;
    use OperationKind::*;
    let retryable = match (class, kind) {
        (NotSent | RejectedBeforeProcessing, _) => true,
        (Ambiguous, SafeRead | ReadPost | IdempotentWrite | TokenRefresh) => true,
        (Ambiguous, BenignDuplicate) => ambiguous == 0,
        _ => false,
    };
    if retryable && attempt < max {
        Decision::Retry
    } else if class == Ambiguous && matches!(kind, UnsafeWrite | CodeExchange) {
        Decision::OutcomeUnknown
    } else {
        Decision::Fail
    }
}

#[test]
fn status_classes() {
    let mut cells = 0;
    for status in 100u16..600 {
        for expired in [false, true] {
            let class = classify_status(status, expired);
            let want = match status {
                200..=299 => None,
                429 => Some(FailureClass::RejectedBeforeProcessing),
                401 | 403 if expired => Some(FailureClass::RejectedBeforeProcessing),
                500 | 502 | 503 | 504 => Some(FailureClass::Ambiguous),
                300..=399 => Some(FailureClass::Security),
                _ => Some(FailureClass::Final),
            };
            assert_eq!(class, want, "status {status} expired {expired}");
            cells += 1;
        }
    }
    assert_eq!(cells, 1000);
}

#[test]
fn decision_table_sweep() {
    let mut cells = 0;
    for status in 100u16..600 {
        let Some(class) = classify_status(status, false) else {
            continue;
        };
        for kind in OperationKind::ALL {
            for attempt in 1..=3 {
                for ambiguous in 0..=1 {
                    assert_eq!(
                        decide(kind, class, attempt, 3, ambiguous),
                        expected(kind, class, attempt, 3, ambiguous),
                        "{status} {kind:?} attempt {attempt}"
                    );
                    cells += 1;
                }
            }
        }
    }
    for class in FailureClass::ALL {
        for kind in OperationKind::ALL {
            for attempt in 1..=3 {
                assert_eq!(
                    decide(kind, class, attempt, 3, 0),
                    expected(kind, class, attempt, 3, 0)
                );
                cells += 1;
            }
        }
    }
    assert!(cells > 16_000);
}

#[test]
fn the_rules_in_words() {
    use Decision::*;
    use FailureClass::*;
    use OperationKind::*;
    // placeOrder and addItems: resent only when nothing reached the server or it refused
    // before processing; an ambiguous failure is reported as such, never resent.
    assert_eq!(decide(UnsafeWrite, NotSent, 1, 3, 0), Retry);
    assert_eq!(
        decide(UnsafeWrite, RejectedBeforeProcessing, 1, 3, 0),
        Retry
    );
    assert_eq!(decide(UnsafeWrite, Ambiguous, 1, 3, 0), OutcomeUnknown);
    // createReport: one resend after an ambiguous failure at most.
    assert_eq!(decide(BenignDuplicate, Ambiguous, 1, 3, 0), Retry);
    assert_eq!(decide(BenignDuplicate, Ambiguous, 2, 3, 1), Fail);
    // The code exchange is never resent once it may have been written.
    assert_eq!(decide(CodeExchange, Ambiguous, 1, 3, 0), OutcomeUnknown);
    // Reads retry ambiguous failures up to the attempt limit.
    assert_eq!(decide(SafeRead, Ambiguous, 2, 3, 1), Retry);
    assert_eq!(decide(SafeRead, Ambiguous, 3, 3, 2), Fail);
    // Final and security failures are never retried.
    for kind in OperationKind::ALL {
        assert_eq!(decide(kind, Final, 1, 3, 0), Fail);
        assert_eq!(decide(kind, Security, 1, 3, 0), Fail);
    }
}
