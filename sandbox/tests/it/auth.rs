//! Consent page, code exchange, refresh, revoke, token expiry and the access-token checks.

use crate::common::*;
use serde_json::Value;

fn query_param(url: &str, k: &str) -> Option<String> {
    let q = url.split_once('?')?.1;
    q.split('&').find_map(|kv| {
        let (a, b) = kv.split_once('=')?;
        (a == k).then(|| b.to_string())
    })
}

#[tokio::test]
async fn consent_allow_redirects_with_state_and_code_then_exchange_and_refresh() {
    let t = start().await;
    let c = t.sb.credentials();
    let page = t
        .http
        .get(format!("{}/b2b/abws/oauth", t.sb.consent_url()))
        .query(&[
            ("state", "st-123"),
            ("redirect_uri", &c.redirect_uri),
            ("applicationId", &c.application_id),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("Allow") && html.contains("<form"));

    let allow = t
        .http
        .post(format!("{}/b2b/abws/oauth/allow", t.sb.consent_url()))
        .form(&[
            ("state", "st-123"),
            ("redirect_uri", c.redirect_uri.as_str()),
            ("applicationId", c.application_id.as_str()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(allow.status(), 302);
    let loc = allow.headers()["location"].to_str().unwrap().to_string();
    assert!(loc.starts_with(&c.redirect_uri));
    assert_eq!(query_param(&loc, "state").as_deref(), Some("st-123"));
    let code = query_param(&loc, "code").unwrap();

    let token_url = format!("{}/auth/O2/token", t.sb.auth_url());
    let exchange = |code: String| {
        t.http.post(&token_url).form(&[
            ("grant_type", "authorization_code".to_string()),
            ("code", code),
            ("client_id", c.client_id.clone()),
            ("client_secret", c.client_secret.clone()),
            ("redirect_uri", c.redirect_uri.clone()),
        ])
    };
    let r = exchange(code.clone()).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["cache-control"], "no-store");
    assert_eq!(r.headers()["pragma"], "no-cache");
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["token_type"], "bearer");
    assert_eq!(v["expires_in"], 3600);
    assert!(v["access_token"].as_str().unwrap().starts_with("Atza|"));
    let rt = v["refresh_token"].as_str().unwrap().to_string();
    assert!(rt.starts_with("Atzr|"));

    // Codes are single use.
    let again = into_r(exchange(code).send().await.unwrap()).await;
    assert_eq!(again.status, 400);
    assert_eq!(again.body["error"], "invalid_grant");

    // Refresh works, then stops after revocation.
    let at = refresh(&t.http, &t.sb, &rt).await;
    assert!(at.starts_with("Atza|"));
    let rev = t
        .control(reqwest::Method::POST, "/_sandbox/revoke", None)
        .await;
    assert_eq!(rev.status, 204);
    let r = t.token(&refresh_form(&c, &rt)).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body["error"], "invalid_grant");
    let counters = t.sb.counters();
    assert_eq!(counters["tokenCalls"]["authorization_code"], 2);
    assert!(counters["tokenCalls"]["refresh_token"].as_u64().unwrap() >= 3);
}

#[tokio::test]
async fn consent_rejects_wrong_redirect_uri_and_application() {
    let t = start().await;
    let c = t.sb.credentials();
    for (ru, app) in [
        ("http://127.0.0.1:1/other", c.application_id.as_str()),
        (c.redirect_uri.as_str(), "wrong-app"),
    ] {
        let r = t
            .http
            .get(format!("{}/b2b/abws/oauth", t.sb.consent_url()))
            .query(&[("state", "s"), ("redirect_uri", ru), ("applicationId", app)])
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400);
        assert!(r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html"));
        assert!(r.text().await.unwrap().contains("error"));
    }
}

#[tokio::test]
async fn token_endpoint_errors() {
    let t = start().await;
    let c = t.sb.credentials();
    let (id, secret) = (c.client_id.as_str(), c.client_secret.as_str());
    let refresh_with = |rt, secret| {
        vec![
            ("grant_type", "refresh_token"),
            ("refresh_token", rt),
            ("client_id", id),
            ("client_secret", secret),
        ]
    };
    let code_form = vec![
        ("grant_type", "authorization_code"),
        ("code", "ANbogus"),
        ("client_id", id),
        ("client_secret", secret),
        ("redirect_uri", &c.redirect_uri),
    ];
    for (form, status, error) in [
        (
            vec![("grant_type", "password")],
            400,
            "unsupported_grant_type",
        ),
        (
            refresh_with(&c.refresh_token, "nope"),
            401,
            "invalid_client",
        ),
        (refresh_with("Atzr|bogus", secret), 400, "invalid_grant"),
        (code_form, 400, "invalid_grant"),
    ] {
        let r = t.token(&form).await;
        assert_eq!(
            (r.status, r.body["error"].as_str()),
            (status, Some(error)),
            "{form:?}"
        );
    }
    let url = format!("{}/auth/O2/token", t.sb.auth_url());
    let r = into_r(
        t.http
            .post(&url)
            .json(&serde_json::json!({"grant_type": "refresh_token"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (r.status, r.body["error"].as_str()),
        (400, Some("invalid_request"))
    );
}

#[tokio::test]
async fn access_token_checks_401_403_and_request_ids() {
    let t = start().await;
    let path = TRANSACTIONS;
    let q = [
        ("feedStartDate", "2026-03-01T00:00:00Z"),
        ("feedEndDate", "2026-03-10T00:00:00Z"),
    ];
    let r = t.get_with(path, &q, &[]).await;
    assert_eq!((r.status, r.code()), (401, "Unauthorized"));
    assert!(r.message().contains("malformed"));
    let r = t
        .get_with(path, &q, &[("x-svc-access-token", "Atza|forged")])
        .await;
    assert_eq!((r.status, r.code()), (401, "Unauthorized"));
    let ok = t.get(path, &q).await;
    assert_eq!(ok.status, 200);
    let r1 = ok.header("x-svc-requestid").unwrap().to_string();
    let r2 = r.header("x-svc-requestid").unwrap().to_string();
    assert_ne!(r1, r2);
    assert_eq!(
        t.control(reqwest::Method::POST, "/_sandbox/expire-tokens", None)
            .await
            .status,
        204
    );
    let r = t.get(path, &q).await;
    assert_eq!((r.status, r.code()), (403, "Unauthorized"));
    assert!(r.message().contains("expired"));
    // A fresh token works again.
    let at = refresh(&t.http, &t.sb, &t.sb.credentials().refresh_token).await;
    let r = t.get_with(path, &q, &[("x-svc-access-token", &at)]).await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn tokens_expire_on_the_scaled_clock_and_refresh_tokens_rotate() {
    let mut cfg = config();
    cfg.time_scale = 3600.0; // one hour per real second
    cfg.rotate_refresh_tokens = true;
    let t = start_with(cfg).await;
    let c = t.sb.credentials();
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let r = t.get(TRANSACTIONS, &FEED_DAY).await;
    assert_eq!(r.status, 403);
    assert!(r.message().contains("expired"));
    // The original refresh token was rotated away by the first refresh.
    let r = t.token(&refresh_form(&c, &c.refresh_token)).await;
    assert_eq!(r.body["error"], "invalid_grant");
}

#[tokio::test]
async fn user_email_rules() {
    let t = start().await;
    let q = [("region", "JP")];
    let carts = "/cart/2025-04-30/carts";
    let r = t
        .get_with(carts, &q, &[("x-svc-access-token", &t.token)])
        .await;
    assert_eq!((r.status, r.code()), (400, "INVALID_REQUEST_PARAMETER"));
    assert!(r.message().contains("x-svc-user-email"));
    let stranger = [
        ("x-svc-access-token", t.token.as_str()),
        ("x-svc-user-email", "stranger@example.com"),
    ];
    let r = t.get_with(carts, &q, &stranger).await;
    assert_eq!((r.status, r.code()), (403, "Unauthorized"));
    assert_eq!(r.message(), "Email is not authorized");
    assert!(!r.message().contains("expired"));
    // getOrdersByOrderId declares no user e-mail: a call without one is served.
    let r = t
        .get_with(
            "/reports/2021-01-08/orders/NOPE",
            &[],
            &[("x-svc-access-token", &t.token)],
        )
        .await;
    assert_eq!(r.status, 404, "{}", r.text);
}
