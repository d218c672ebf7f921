//! The classifying stage (pure): what an answer that is not a success means for the attempt
//! loop — its failure class (`retry::classify_status`), whether it is replayed at once (an
//! access token renewed), whether its bucket already delays the next attempt (a 429), and
//! the error the caller sees (a missing role named on a 403 that is not an expired token).

use crate::error::{ApiFailure, Error};
use crate::operation_row::Operation;
use crate::request::retrying::Failure;
use crate::retry::{self, FailureClass};

/// What the authorization stage made of a refused attempt (`Authorization::rejected`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Rejection {
    /// A 401 or 403 of an expired access token (by the envelope or by the token cache).
    pub expired: bool,
    /// The token was renewable, and dropped for the replay (once per operation).
    pub can_refresh: bool,
}

/// A 401 or 403 whose envelope says the access token expired (in a code or a message).
pub(crate) fn says_expired(failure: &ApiFailure) -> bool {
    matches!(failure.status, 401 | 403)
        && failure.errors.iter().any(|e| {
            e.message.to_ascii_lowercase().contains("expired")
                || e.code.to_ascii_lowercase().contains("expired")
        })
}

/// The failure of an attempt of `op` answered with `failure` (not a 2xx). `paced`: the
/// call is rate-limited here, so a 429 has already pushed its bucket's next slot out.
pub(crate) fn classify(
    failure: ApiFailure,
    rejection: Rejection,
    paced: bool,
    op: &Operation,
) -> Failure {
    let status = failure.status;
    let class =
        retry::classify_status(status, rejection.can_refresh).unwrap_or(FailureClass::Final);
    let mut error = Error::api(failure);
    if status == 403 && !rejection.expired {
        // Not an expired token: a role the operation needs is missing.
        error = error.with_hint(op.role_hint());
    }
    let mut f = Failure::new(class, error);
    // A refreshed token is replayed at once; a 429 the bucket paces waits for the bucket's
    // next slot (already pushed out), plus jitter only.
    f.replay = rejection.can_refresh;
    f.paced = status == 429 && paced;
    f
}

/// An error envelope of one entry, as `HttpResponse::failure` decodes it (for tests).
#[cfg(test)]
pub(crate) fn answer(status: u16, code: &str, message: &str) -> ApiFailure {
    ApiFailure {
        status,
        errors: vec![crate::error::ErrorEntry {
            code: code.into(),
            message: message.into(),
            details: String::new(),
        }],
        request_id: None,
        rate_limit: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_expired_token_is_told_by_its_code_or_its_message_on_401_and_403_only() {
        assert!(says_expired(&answer(
            401,
            "Unauthorized",
            "Access token expired"
        )));
        assert!(says_expired(&answer(403, "TOKEN_EXPIRED", "Forbidden")));
        assert!(!says_expired(&answer(403, "Unauthorized", "Access denied")));
        assert!(!says_expired(&answer(
            400,
            "BAD",
            "nextPageToken has expired"
        )));
    }

    #[test]
    fn each_answer_classifies_as_the_table_says() {
        const NONE: Rejection = Rejection {
            expired: false,
            can_refresh: false,
        };
        const RENEWED: Rejection = Rejection {
            expired: true,
            can_refresh: true,
        };
        const SPENT: Rejection = Rejection {
            expired: true,
            can_refresh: false,
        };
        use FailureClass::{Ambiguous, Final, RejectedBeforeProcessing as Rejected, Security};
        // status, rejection, paced -> class, replay, paced, role hint
        let table = [
            (401, RENEWED, true, Rejected, true, false, false),
            (403, RENEWED, false, Rejected, true, false, false),
            (401, SPENT, true, Final, false, false, false),
            (403, SPENT, true, Final, false, false, false),
            (401, NONE, true, Final, false, false, false),
            (403, NONE, true, Final, false, false, true),
            (429, NONE, true, Rejected, false, true, false),
            (429, NONE, false, Rejected, false, false, false),
            (500, NONE, true, Ambiguous, false, false, false),
            (503, NONE, false, Ambiguous, false, false, false),
            (302, NONE, false, Security, false, false, false),
            (404, NONE, true, Final, false, false, false),
        ];
        let op = &crate::operations::PLACE_ORDER;
        for (status, rejection, paced, class, replay, paced_out, hint) in table {
            let f = classify(answer(status, "X", "no"), rejection, paced, op);
            let row = (status, rejection, paced);
            assert_eq!(f.class, class, "{row:?}");
            assert_eq!(f.replay, replay, "{row:?}");
            assert_eq!(f.paced, paced_out, "{row:?}");
            assert!(!f.stop && !f.timed_out, "{row:?}");
            assert_eq!(f.error.status(), Some(status), "{row:?}");
            let named = f
                .error
                .hint()
                .is_some_and(|h| h.contains("Order Placement"));
            assert_eq!(named, hint, "{row:?}");
        }
    }
}
