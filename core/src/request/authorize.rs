//! The authorization stage: the headers an attempt is sent with (the access token, and the
//! user e-mail and date where the operation's row declares them), and what a 401 or 403
//! says about the token sent: expired, and renewable once for a replay
//! (docs/decisions/010-auth.md). The tokens come from a `TokenSource` (`TokenCache`).

use std::future::Future;

use http::{HeaderName, HeaderValue};

use crate::auth::TokenCache;
use crate::config::Credentials;
use crate::error::{ApiFailure, Error, Result};
use crate::operation_row::Operation;
use crate::request::classify::{says_expired, Rejection};
use crate::secret::Secret;
use crate::wire;

/// Where access tokens come from (`TokenCache`: refreshed once, shared by the calls).
pub(crate) trait TokenSource: Sync {
    /// The `x-svc-access-token` header of a valid access token.
    fn access_header(&self) -> impl Future<Output = Result<HeaderValue>> + Send;
    /// `used` is past its expiry on the source's clock.
    fn is_expired(&self, used: &Secret) -> impl Future<Output = bool> + Send;
    /// The server said `used` expired: the next `access_header` renews it.
    fn invalidate(&self, used: &Secret) -> impl Future<Output = ()> + Send;
    /// The source can renew a token (the credentials hold a refresh token).
    fn renews(&self) -> bool;
}

impl TokenSource for TokenCache {
    fn access_header(&self) -> impl Future<Output = Result<HeaderValue>> + Send {
        TokenCache::access_header(self)
    }
    fn is_expired(&self, used: &Secret) -> impl Future<Output = bool> + Send {
        TokenCache::is_expired(self, used)
    }
    fn invalidate(&self, used: &Secret) -> impl Future<Output = ()> + Send {
        TokenCache::invalidate(self, used)
    }
    fn renews(&self) -> bool {
        matches!(self.credentials(), Credentials::RefreshToken { .. })
    }
}

/// The authorization of one call: its operation, its token source and its user e-mail.
pub(crate) struct Authorization<'a, T: TokenSource = TokenCache> {
    tokens: &'a T,
    op: &'static Operation,
    /// `x-svc-user-email`, where the operation declares it.
    email: Option<HeaderValue>,
}

/// The headers of one attempt, and the token they carry.
pub(crate) struct Authorized {
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// The access token's header (shared with `headers`, not copied).
    pub token: HeaderValue,
}

impl<'a, T: TokenSource> Authorization<'a, T> {
    /// The authorization of a call of `op` by `user_email` (else the client's `default`).
    /// `x-svc-user-email` goes only where the operation declares it
    /// (docs/decisions/004-request-declarations.md): the buyer's address is personal data,
    /// sent nowhere it is not asked for. Where it is declared it is required, and a call's
    /// own address is checked.
    pub fn new(
        tokens: &'a T,
        op: &'static Operation,
        user_email: Option<&str>,
        default: Option<&HeaderValue>,
    ) -> Result<Self> {
        let email = if op.needs_user_email() {
            let h = match user_email {
                Some(e) => {
                    crate::validate::email("user_email", e)?;
                    Some(crate::transport::sensitive(e, "user_email")?)
                }
                None => default.cloned(),
            };
            Some(h.ok_or_else(|| {
                Error::validation(
                    "user_email",
                    format!("{} requires the x-svc-user-email header: pass user_email or set it on the client", op.id),
                )
            })?)
        } else {
            debug_assert!(user_email.is_none(), "{} declares no user e-mail", op.id);
            None
        };
        Ok(Authorization { tokens, op, email })
    }

    /// The headers of an attempt: the access token's (the cached token's header, shared:
    /// not the token copied twice per call), `Accept`, and the row's others.
    pub async fn headers(&self) -> Result<Authorized> {
        let token = self.tokens.access_header().await?;
        let mut headers: Vec<(HeaderName, HeaderValue)> = vec![
            (
                HeaderName::from_static(wire::HEADER_ACCESS_TOKEN),
                token.clone(),
            ),
            (
                http::header::ACCEPT,
                HeaderValue::from_static("application/json"),
            ),
        ];
        if let Some(h) = &self.email {
            headers.push((HeaderName::from_static(wire::HEADER_USER_EMAIL), h.clone()));
        }
        if self.op.headers.date {
            let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            if let Ok(v) = HeaderValue::from_str(&now) {
                headers.push((HeaderName::from_static(wire::HEADER_DATE), v));
            }
        }
        Ok(Authorized { headers, token })
    }

    /// What the refusal `failure` of an attempt that sent `token` says about the token:
    /// expired when a 401 or 403 says so or the source knows it is past its expiry; then,
    /// unless the operation's one replay is spent, it is dropped for a renewed one.
    pub async fn rejected(
        &self,
        token: &HeaderValue,
        failure: &ApiFailure,
        replayed: bool,
    ) -> Rejection {
        if !matches!(failure.status, 401 | 403) {
            return Rejection::default();
        }
        // The token this attempt sent (a failure's rare path: copied out here).
        let token = crate::auth::header_secret(token);
        let expired = says_expired(failure) || self.tokens.is_expired(&token).await;
        let can_refresh = expired && !replayed && self.tokens.renews();
        if can_refresh {
            self.tokens.invalidate(&token).await;
        }
        Rejection {
            expired,
            can_refresh,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operations::{GET_INVOICES, LIST_CARTS, PLACE_ORDER};
    use std::sync::Mutex;

    /// A token source of one token, which it may know expired, noting what it dropped.
    struct Fake {
        token: &'static str,
        expired: bool,
        renews: bool,
        dropped: Mutex<Vec<String>>,
    }

    fn source(expired: bool, renews: bool) -> Fake {
        Fake {
            token: "tok-1",
            expired,
            renews,
            dropped: Mutex::new(Vec::new()),
        }
    }

    impl TokenSource for Fake {
        async fn access_header(&self) -> Result<HeaderValue> {
            Ok(HeaderValue::from_static(self.token))
        }
        fn is_expired(&self, used: &Secret) -> impl Future<Output = bool> + Send {
            let known = self.expired && used.expose() == self.token;
            async move { known }
        }
        fn invalidate(&self, used: &Secret) -> impl Future<Output = ()> + Send {
            self.dropped.lock().unwrap().push(used.expose().to_string());
            async {}
        }
        fn renews(&self) -> bool {
            self.renews
        }
    }

    fn refusal(status: u16, message: &str) -> ApiFailure {
        crate::request::classify::answer(status, "Unauthorized", message)
    }

    fn names(a: &Authorized) -> Vec<&str> {
        a.headers.iter().map(|(n, _)| n.as_str()).collect()
    }

    #[tokio::test]
    async fn each_row_gets_the_headers_it_declares_and_no_other() {
        let fake = source(false, true);
        let a = Authorization::new(&fake, &GET_INVOICES, None, None).unwrap();
        let h = a.headers().await.unwrap();
        assert_eq!(names(&h), ["x-svc-access-token", "accept"]);
        assert_eq!(h.token, "tok-1");

        let default = HeaderValue::from_static("buyer@example.com");
        let a = Authorization::new(&fake, &PLACE_ORDER, None, Some(&default)).unwrap();
        let h = a.headers().await.unwrap();
        assert_eq!(names(&h), ["x-svc-access-token", "accept", "x-svc-date"]);

        let a = Authorization::new(&fake, &LIST_CARTS, None, Some(&default)).unwrap();
        let h = a.headers().await.unwrap();
        assert_eq!(
            names(&h),
            ["x-svc-access-token", "accept", "x-svc-user-email"]
        );
        assert_eq!(h.headers[2].1, "buyer@example.com");

        let a = Authorization::new(
            &fake,
            &LIST_CARTS,
            Some("other@example.com"),
            Some(&default),
        );
        assert_eq!(
            a.unwrap().headers().await.unwrap().headers[2].1,
            "other@example.com"
        );
    }

    #[test]
    fn a_declared_user_email_is_required_and_checked() {
        let fake = source(false, true);
        let e = Authorization::new(&fake, &LIST_CARTS, None, None)
            .err()
            .unwrap();
        assert_eq!(e.parameter(), Some("user_email"), "{e}");
        let e = Authorization::new(&fake, &LIST_CARTS, Some("no-at-sign"), None)
            .err()
            .unwrap();
        assert_eq!(e.parameter(), Some("user_email"), "{e}");
    }

    /// How `tokens`' authorization of a getInvoices call takes the refusal `status` with
    /// `message` of its token `tok-1` (`replay`: of the call's one replay).
    async fn rejection(tokens: &Fake, status: u16, message: &str, replay: bool) -> Rejection {
        let a = Authorization::new(tokens, &GET_INVOICES, None, None).unwrap();
        let token = HeaderValue::from_static("tok-1");
        a.rejected(&token, &refusal(status, message), replay).await
    }

    #[tokio::test]
    async fn an_expired_token_is_renewed_once() {
        let fake = source(false, true);
        let r = rejection(&fake, 401, "Access token expired", false).await;
        assert!(r.expired && r.can_refresh, "{r:?}");
        assert_eq!(*fake.dropped.lock().unwrap(), ["tok-1"]);
        // The replay's own refusal: expired, not renewed again.
        let r = rejection(&fake, 403, "Access token expired", true).await;
        assert!(r.expired && !r.can_refresh, "{r:?}");
        assert_eq!(fake.dropped.lock().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn a_token_the_source_knows_expired_is_expired_whatever_the_message() {
        let r = rejection(&source(true, true), 401, "Unauthorized", false).await;
        assert!(r.expired && r.can_refresh);
    }

    #[tokio::test]
    async fn other_refusals_leave_the_token_alone() {
        let fake = source(false, true);
        for (status, message) in [(403, "Access denied"), (500, "token expired")] {
            let r = rejection(&fake, status, message, false).await;
            assert_eq!(r, Rejection::default());
        }
        // A fixed access token is not renewed.
        let fixed = source(false, false);
        let r = rejection(&fixed, 401, "expired", false).await;
        assert!(r.expired && !r.can_refresh);
        assert!(fake.dropped.lock().unwrap().is_empty());
        assert!(fixed.dropped.lock().unwrap().is_empty());
    }
}
