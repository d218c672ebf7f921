//! The shared machinery over real loopback HTTP against the sandbox: auth, transport,
//! retries, the error envelope, paging and the blocking facade.

use crate::common;
use crate::common::calls::{empty_cart, first_invoice as an_invoice, invoice_detail, jp_carts};
use crate::common::faults;
use crate::common::refreshes;

use std::sync::Arc;
use std::time::{Duration, Instant};

use abws::api::cart::ListCartsParams;
use abws::api::invoices::GetInvoiceDetailByInvoiceNumberParams;
use abws::client::Call;
use abws::{blocking, operations, ErrorKind, Region};
use abws_sandbox::{FaultAction, FaultRule, Sandbox};
use serde_json::{json, Value};

fn detail_call(number: &str) -> Call {
    Call::new(&operations::GET_INVOICE_DETAIL)
        .path("invoiceNumber", number)
        .query("region", "JP")
}

/// Headers the API listener saw, for requests whose path starts with `path`.
fn seen(sb: &Sandbox, path: &str) -> Vec<Value> {
    sb.counters()["headersSeen"]["api"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["path"].as_str().unwrap().starts_with(path))
        .cloned()
        .collect()
}

fn detail(client: &blocking::Client, number: &str) -> abws::Result<abws::transport::HttpResponse> {
    let call = detail_call(number);
    client.run(|c| async move { c.execute(&call).await })
}

#[test]
fn sixteen_threads_share_one_refresh() {
    let sb = common::sandbox();
    sb.inject(FaultRule::new("/auth/O2/token", FaultAction::Delay { delay_ms: 300 }).times(1));
    let client = Arc::new(common::client(&sb, Region::JP));
    let statuses = common::on_threads(16, (client, an_invoice(&sb)), |(c, n)| {
        detail(&c, &n).unwrap().status
    });
    assert_eq!(statuses, [200; 16]);
    assert_eq!(refreshes(&sb), 1, "16 threads must share one refresh");
    // Every call carried the one token in the spec's header, and no user e-mail: the
    // operation declares none (docs/decisions/004-request-declarations.md).
    let calls = seen(&sb, "/ab-invoice/2026-02-01/invoices/");
    assert_eq!(calls.len(), 16);
    let tokens: std::collections::HashSet<_> = calls
        .iter()
        .map(|r| r["headers"]["x-svc-access-token"].clone())
        .collect();
    assert_eq!(tokens.len(), 1);
    assert!(calls
        .iter()
        .all(|r| r["headers"].get("x-svc-user-email").is_none()));
}

#[test]
fn short_lived_token_is_not_refreshed_on_every_call() {
    let sb = common::sandbox_with(|c| c.token_lifetime = Duration::from_secs(10));
    let client = common::client(&sb, Region::JP);
    let n = an_invoice(&sb);
    for _ in 0..5 {
        detail(&client, &n).unwrap();
    }
    assert_eq!(refreshes(&sb), 1);
}

#[test]
fn error_envelope_and_request_id_are_decoded() {
    let (_sb, client) = common::sandbox_and_client();
    let err = detail(&client, "NOPE").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Api);
    assert_eq!(err.status(), Some(404));
    assert!(!err.code().unwrap().is_empty());
    assert!(err.message().contains("NOPE"), "{err}");
    assert!(err.request_id().unwrap().starts_with("sbx-"));
    assert_eq!(err.attempts(), 1, "a 404 is final");
    assert_eq!(
        err.api_failure().unwrap().rate_limit.as_deref(),
        Some("0.5")
    );
    let text = err.to_string();
    assert!(text.starts_with("HTTP 404 "), "{text}");
    assert!(
        text.contains("getInvoiceDetailByInvoiceNumber") && text.contains("sbx-"),
        "{text}"
    );
}

#[test]
fn codes_compare_case_insensitively_and_every_entry_is_kept() {
    let sb = common::sandbox();
    let body = json!({"errors": [
        {"code": "invalid_request_parameter", "message": "first", "details": ""},
        {"code": "Other", "message": "second", "details": null}
    ]});
    sb.inject(
        FaultRule::new("getInvoiceDetailByInvoiceNumber", faults::answer(400, body)).times(1),
    );
    let client = common::client(&sb, Region::JP);
    let err = detail(&client, "X").unwrap_err();
    let f = err.api_failure().unwrap();
    assert!(f.has_code("INVALID_REQUEST_PARAMETER"));
    assert_eq!(f.errors.len(), 2);
    assert_eq!(f.errors[1].details, "");
}

#[test]
fn non_json_error_body_is_described_briefly() {
    let sb = common::sandbox();
    let html = format!("<html>{}</html>", "x".repeat(5000));
    let answer = faults::answer(400, Value::String(html));
    sb.inject(FaultRule::new("getInvoiceDetailByInvoiceNumber", answer).times(1));
    let client = common::client(&sb, Region::JP);
    let err = detail(&client, "H").unwrap_err();
    assert_eq!(err.status(), Some(400));
    assert!(err.message().contains("<html>xxx"), "{err}");
    assert!(err.message().len() < 300, "the excerpt stays short");
}

#[test]
fn a_non_json_success_is_a_decode_error_naming_the_operation() {
    let sb = common::sandbox();
    sb.inject(FaultRule::new("getInvoiceDetailByInvoiceNumber", FaultAction::NonJson).times(1));
    let client = common::client(&sb, Region::JP);
    let err = invoice_detail(&client, &an_invoice(&sb)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Transport);
    assert!(
        err.to_string().contains("getInvoiceDetailByInvoiceNumber"),
        "{err}"
    );
    assert!(err.request_id().is_some());
}

#[test]
fn reads_are_retried_after_server_errors() {
    let sb = common::sandbox();
    sb.inject(FaultRule::new("getInvoiceDetailByInvoiceNumber", faults::status(503)).times(2));
    let client = common::client(&sb, Region::JP);
    assert_eq!(detail(&client, &an_invoice(&sb)).unwrap().status, 200);
    assert_eq!(common::requests(&sb, "getInvoiceDetailByInvoiceNumber"), 3);
}

#[test]
fn reads_give_up_after_three_attempts() {
    let sb = common::sandbox();
    sb.inject(FaultRule::new("getInvoiceDetailByInvoiceNumber", faults::status(503)).times(5));
    let client = common::client(&sb, Region::JP);
    let err = detail(&client, &an_invoice(&sb)).unwrap_err();
    assert_eq!(err.status(), Some(503));
    assert_eq!(err.attempts(), 3);
    assert_eq!(common::requests(&sb, "getInvoiceDetailByInvoiceNumber"), 3);
}

fn order(external_id: &str) -> abws::api::ordering::PlaceOrderRequest {
    abws::api::ordering::PlaceOrderRequest::new(external_id)
        .line(abws::api::ordering::LineItem::new("1", "B0000", "OFFER", 1))
}

#[test]
fn place_order_is_not_resent_after_an_ambiguous_failure() {
    let sb = common::sandbox();
    sb.inject(FaultRule::new("placeOrder", faults::status(503)).times(1));
    let client = common::client(&sb, Region::JP);
    let err = client.ordering().place_order(&order("PO-7")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutcomeUnknown);
    assert_eq!(err.external_id(), Some("PO-7"));
    assert_eq!(err.status(), Some(503));
    assert!(err.to_string().contains("PO-7"));
    assert_eq!(common::requests(&sb, "placeOrder"), 1, "never resent");
    // The order date header travels with placeOrder.
    assert!(seen(&sb, "/ordering/")[0]["headers"]
        .get("x-svc-date")
        .is_some());
}

#[test]
fn place_order_is_resent_after_a_throttle_with_the_same_external_id() {
    let sb = common::sandbox();
    sb.inject(FaultRule::new("placeOrder", faults::status(429)).times(1));
    let client = common::client(&sb, Region::JP);
    let _ = client.ordering().place_order(&order("PO-8"));
    assert_eq!(
        common::requests(&sb, "placeOrder"),
        2,
        "resent after the 429"
    );
    assert_eq!(
        sb.counters()["placeOrderRequests"]["PO-8"],
        1,
        "the resent request carried PO-8"
    );
}

#[test]
fn expired_token_is_refreshed_once_and_replayed() {
    let (sb, client) = common::sandbox_and_client();
    let n = an_invoice(&sb);
    detail(&client, &n).unwrap();
    sb.expire_tokens();
    detail(&client, &n).unwrap();
    assert_eq!(refreshes(&sb), 2);
    let calls = seen(&sb, "/ab-invoice/2026-02-01/invoices/");
    assert_eq!(calls.len(), 3, "the call was replayed once");
    assert_eq!(
        calls[0]["headers"]["x-svc-access-token"],
        calls[1]["headers"]["x-svc-access-token"]
    );
    assert_ne!(
        calls[1]["headers"]["x-svc-access-token"],
        calls[2]["headers"]["x-svc-access-token"]
    );
}

#[test]
fn the_expired_token_replay_is_not_one_of_max_attempts() {
    let sb = common::sandbox();
    let n = an_invoice(&sb);
    let client_of = |max_attempts| {
        let mut s = common::settings(&sb, Region::JP);
        s.max_attempts = max_attempts;
        blocking::Client::new(s).unwrap()
    };
    // A client of one attempt (no retries) still outlives its token.
    let one = client_of(1);
    detail(&one, &n).unwrap();
    sb.expire_tokens();
    detail(&one, &n).unwrap();
    assert_eq!(refreshes(&sb), 2);
    assert_eq!(seen(&sb, "/ab-invoice/2026-02-01/invoices/").len(), 3);
    // An unsafe write too: refused before processing (the token check), it is sent again
    // once, and reaches the order handler once.
    sb.expire_tokens();
    let before = common::requests(&sb, "placeOrder");
    let placed = one.ordering().place_order(&order("PO-ONE-1"));
    assert_eq!(
        common::requests(&sb, "placeOrder") - before,
        2,
        "{placed:?}"
    );
    assert_eq!(sb.counters()["placeOrderRequests"]["PO-ONE-1"], 1);
    assert_eq!(refreshes(&sb), 3);

    // Two attempts: the replay, then the policy's two against 503s; every request counted.
    let expired = faults::unauthorized("The access token has expired.");
    let op = "getInvoiceDetailByInvoiceNumber";
    sb.inject(FaultRule::new(op, faults::answer(403, expired)).times(1));
    sb.inject(FaultRule::new(op, faults::status(503)).times(5));
    let two = client_of(2);
    let before = common::requests(&sb, op);
    let err = detail(&two, &n).unwrap_err();
    assert_eq!(err.status(), Some(503));
    assert_eq!(err.attempts(), 3, "{err}");
    assert_eq!(common::requests(&sb, op) - before, 3);
}

#[test]
fn access_denied_is_not_a_refresh_loop() {
    let (sb, client) = common::sandbox_and_client();
    let n = an_invoice(&sb);
    // (the 403's message, answers in a row, attempts, refreshes so far): access denied is
    // reported at once; two "expired" answers in a row: one refresh, then the 403 is reported.
    for (message, times, attempts, refreshed) in [
        ("Access to requested resource is denied.", 1, 1, 1),
        ("The access token has expired.", 2, 2, 2),
    ] {
        let body = faults::unauthorized(message);
        sb.inject(
            FaultRule::new("getInvoiceDetailByInvoiceNumber", faults::answer(403, body))
                .times(times),
        );
        let err = detail(&client, &n).unwrap_err();
        assert_eq!(err.status(), Some(403), "{message}");
        assert_eq!(err.attempts(), attempts, "{message}: {err}");
        assert_eq!(refreshes(&sb), refreshed, "{message}");
    }
}

#[test]
fn revoked_consent_is_an_auth_error_without_retry() {
    let sb = common::sandbox();
    sb.revoke();
    let client = common::client(&sb, Region::JP);
    let err = detail(&client, "X").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Auth);
    assert!(err.to_string().contains("consent"), "{err}");
    assert!(err.to_string().contains("invalid_grant"), "{err}");
    assert_eq!(refreshes(&sb), 1);
}

#[test]
fn token_endpoint_outage_is_retried() {
    let sb = common::sandbox();
    sb.inject(FaultRule::new("/auth/O2/token", faults::status(503)).times(2));
    let client = common::client(&sb, Region::JP);
    detail(&client, &an_invoice(&sb)).unwrap();
    assert_eq!(sb.counters()["faultsFired"]["status"], 2);
}

#[test]
fn redirects_are_not_followed() {
    let sb = common::sandbox();
    let target = format!("{}/steal", sb.foreign_url());
    sb.inject(
        FaultRule::new(
            "getInvoiceDetailByInvoiceNumber",
            FaultAction::Redirect {
                status: 307,
                location: target,
            },
        )
        .times(1),
    );
    let client = common::client(&sb, Region::JP);
    let err = detail(&client, "M").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Transport);
    assert!(err.to_string().contains("redirect to 127.0.0.1"), "{err}");
    assert_eq!(err.attempts(), 1);
    let foreign = &sb.counters()["headersSeen"]["foreign"];
    assert!(
        foreign.is_null() || foreign.as_array().unwrap().is_empty(),
        "{foreign}"
    );
}

#[test]
fn empty_2xx_body_is_accepted() {
    let (sb, client) = common::sandbox_and_client();
    let cart = sb.dataset()["carts"][0]["id"].as_str().unwrap().to_string();
    empty_cart(&client, &cart).unwrap();
    assert_eq!(sb.counters()["requests"]["deleteItems"]["204"], 1);
}

#[test]
fn missing_user_email_is_caught_before_sending() {
    let sb = common::sandbox();
    let client = common::client_with(&sb, Region::JP, |s| s.user_email = None);
    let err = jp_carts(&client).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Validation);
    assert_eq!(err.parameter(), Some("user_email"));
    assert_eq!(refreshes(&sb), 0, "nothing was sent");
}

#[test]
fn path_parameters_are_encoded() {
    let (_sb, client) = common::sandbox_and_client();
    let url = client.inner().unwrap().url(&detail_call("A/B C")).unwrap();
    assert!(
        url.as_str()
            .ends_with("/ab-invoice/2026-02-01/invoices/A%2FB%20C/detail?region=JP"),
        "{url}"
    );
}

/// The blocking client works on every thread of another tokio runtime: a `spawn_blocking`
/// thread (what a tokio service does with blocking code), `block_in_place`, a thread that
/// entered a runtime's handle, and inside a runtime's `block_on` (which it holds for the call).
#[test]
fn the_blocking_client_works_on_the_threads_of_a_tokio_runtime() {
    let sb = common::sandbox();
    let client = Arc::new(common::client(&sb, Region::JP));
    let n = an_invoice(&sb);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (c, num) = (client.clone(), n.clone());
    let (start, end) = common::previous_month(&sb);
    let month = abws::api::invoices::GetInvoicesParams {
        invoice_issue_start_date: start.into(),
        invoice_issue_end_date: end.into(),
        ..Default::default()
    };
    let (first, pages) = rt
        .block_on(async move {
            tokio::task::spawn_blocking(move || {
                let first = detail(&c, &num).map(|r| r.status);
                // A pager too, page after page, on the same thread.
                let pages = c.invoices().iter_invoices(&month).map(|p| {
                    p.map(|page| page.map(|_| ()))
                        .collect::<abws::Result<Vec<()>>>()
                });
                (first, pages)
            })
            .await
        })
        .unwrap();
    assert_eq!(first.unwrap(), 200);
    assert!(pages.unwrap().unwrap().len() > 1, "the month's pages");
    let (c, num) = (client.clone(), n.clone());
    let in_place = rt.block_on(async move {
        tokio::spawn(
            async move { tokio::task::block_in_place(|| detail(&c, &num).map(|r| r.status)) },
        )
        .await
        .unwrap()
    });
    assert_eq!(in_place.unwrap(), 200);
    let entered = {
        let _guard = rt.enter();
        detail(&client, &n).map(|r| r.status)
    };
    assert_eq!(entered.unwrap(), 200);
    let current = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let inside = current.block_on(async { detail(&client, &n).map(|r| r.status) });
    assert_eq!(inside.unwrap(), 200);
}

#[test]
fn secrets_never_show_in_debug_or_errors() {
    let sb = common::sandbox();
    let creds = sb.credentials();
    let s = common::settings(&sb, Region::JP);
    let client = blocking::Client::new(s.clone()).unwrap();
    let err = detail(&client, "NOPE").unwrap_err();
    let token = client
        .run(|c| async move { c.access_token().await })
        .unwrap();
    let text = format!(
        "{s:?} {client:?} {:?} {err} {err:?} {token:?}",
        client.credentials().unwrap()
    );
    for secret in [
        creds.client_secret.as_str(),
        creds.refresh_token.as_str(),
        token.expose(),
    ] {
        assert!(!text.contains(secret), "{text}");
    }
}

#[test]
fn plain_http_is_refused_off_loopback() {
    let sb = common::sandbox();
    let mut s = common::settings(&sb, Region::JP);
    s.endpoint = Some("http://10.1.2.3:8080".into());
    let err = blocking::Client::new(s).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Validation);
    assert_eq!(err.parameter(), Some("endpoint"));
}

/// An address is shown as it is (`Debug`, Python's `settings`, logs): one holding a password
/// or a key in its query is refused, naming the setting and never quoting the address.
#[test]
fn an_address_holding_credentials_is_refused() {
    let sb = common::sandbox();
    for (field, value) in [
        ("endpoint", "https://user:ENDPOINTPW@api.example.com"),
        ("endpoint", "https://api.example.com/?key=ENDPOINTKEY"),
        ("auth_endpoint", "https://u:AUTHPW@auth.example.com"),
        (
            "consent_endpoint",
            "https://consent.example.com/#ENDPOINTFRAG",
        ),
    ] {
        let mut s = common::settings(&sb, Region::JP);
        match field {
            "endpoint" => s.endpoint = Some(value.into()),
            "auth_endpoint" => s.auth_endpoint = Some(value.into()),
            _ => s.consent_endpoint = Some(value.into()),
        }
        let err = blocking::Client::new(s).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Validation, "{err}");
        assert_eq!(err.parameter(), Some(field), "{err}");
        assert!(!err.to_string().contains("ENDPOINT"), "{err}");
        assert!(!err.to_string().contains("AUTHPW"), "{err}");
    }
}

#[test]
fn an_unknown_operation_name_is_a_validation_error() {
    let (sb, client) = common::sandbox_and_client();
    let err = client.call_json("get_invoice", "{}").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Validation, "{err}");
    assert_eq!(err.parameter(), Some("name"), "{err}");
    let n = an_invoice(&sb);
    let args = json!({"invoice_number": n, "region": "JP"}).to_string();
    let out = client
        .call_json("getInvoiceDetailByInvoiceNumber", &args)
        .unwrap();
    assert!(
        format!("{out:?}").contains(&n),
        "Debug shows the result's JSON"
    );
}

#[test]
fn operation_deadline_is_never_slept_past() {
    let sb = common::sandbox();
    sb.inject(
        FaultRule::new(
            "getInvoiceDetailByInvoiceNumber",
            FaultAction::Delay { delay_ms: 3000 },
        )
        .times(3),
    );
    let mut s = common::settings(&sb, Region::JP);
    s.timeouts.attempt = Duration::from_millis(400);
    s.timeouts.operation = Duration::from_millis(900);
    let client = blocking::Client::new(s).unwrap();
    client
        .run(|c| async move { c.access_token().await })
        .unwrap();
    let started = Instant::now();
    let err = detail(&client, &an_invoice(&sb)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout);
    assert!(
        started.elapsed() < Duration::from_millis(1300),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn repeated_page_token_stops_the_pager() {
    let sb = common::sandbox();
    let page =
        json!({"invoices": [{"invoiceMetadata": {"invoiceNumber": "A"}}], "nextPageToken": "same"});
    sb.inject(FaultRule::new("getInvoices", faults::answer(200, page)).times(3));
    let client = common::client(&sb, Region::JP);
    let (start, end) = common::previous_month(&sb);
    let results: Vec<_> = client
        .invoices()
        .iter_invoices(&abws::api::invoices::GetInvoicesParams {
            invoice_issue_start_date: start.into(),
            invoice_issue_end_date: end.into(),
            ..Default::default()
        })
        .unwrap()
        .items()
        .collect();
    assert_eq!(results.len(), 3, "two pages of items, then the error");
    assert!(results[2]
        .as_ref()
        .unwrap_err()
        .to_string()
        .contains("already returned"));
    assert_eq!(
        common::requests(&sb, "getInvoices"),
        2,
        "the repeated token was not followed"
    );
}

#[test]
fn truncated_body_is_a_transport_error() {
    let sb = common::sandbox();
    sb.inject(FaultRule::new("getInvoiceDetailByInvoiceNumber", FaultAction::Truncate).times(3));
    let client = common::client(&sb, Region::JP);
    let err = detail(&client, &an_invoice(&sb)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Transport);
    assert!(err.to_string().contains("cut off"), "{err}");
    assert_eq!(err.attempts(), 3, "a truncated read is retried");
}

#[test]
fn a_rotated_client_secret_is_used_by_the_next_refresh() {
    let sb = common::sandbox_with(|c| c.token_lifetime = Duration::from_secs(1));
    let client = common::client(&sb, Region::JP);
    let creds = sb.credentials();
    let n = an_invoice(&sb);
    detail(&client, &n).unwrap();
    let with_secret = |secret: &str| abws::Credentials::RefreshToken {
        client_id: creds.client_id.clone(),
        client_secret: secret.into(),
        refresh_token: creds.refresh_token.clone().into(),
    };
    client
        .set_credentials(with_secret("a-wrong-secret"))
        .unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    let err = detail(&client, &n).unwrap_err();
    assert_eq!(
        err.kind(),
        ErrorKind::Auth,
        "the new secret was used: {err}"
    );
    assert!(err.to_string().contains("invalid_client"), "{err}");
    client
        .set_credentials(with_secret(&creds.client_secret))
        .unwrap();
    detail(&client, &n).unwrap();
}

#[test]
fn a_client_switched_to_an_access_token_sends_it_at_once() {
    let (sb, client) = common::sandbox_and_client();
    let n = an_invoice(&sb);
    detail(&client, &n).unwrap(); // a refreshed token, cached
    client
        .set_credentials(abws::Credentials::AccessToken(abws::Secret::new(
            "Atza|not-a-token",
        )))
        .unwrap();
    let err = detail(&client, &n).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Auth | ErrorKind::Api),
        "the cached token was sent instead of the new one: {err}"
    );
    // Back to the sandbox's refresh token.
    let refresh = common::settings(&sb, Region::JP).credentials;
    client.set_credentials(refresh).unwrap();
    detail(&client, &n).unwrap();
}

/// An access token that cannot be a header is refused when it is set, not at each call,
/// without showing it; the client keeps the credentials it had, and nothing is sent.
#[test]
fn an_access_token_that_cannot_be_a_header_is_refused_when_set() {
    let (sb, client) = common::sandbox_and_client();
    let n = an_invoice(&sb);
    detail(&client, &n).unwrap(); // a refreshed token cached, the counter started
    let before = sb.counters();
    let err = client
        .set_credentials(abws::Credentials::AccessToken(abws::Secret::new(
            "Atza|SECRETPART\nbreak",
        )))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Validation, "{err}");
    assert_eq!(err.parameter(), Some("access_token"), "{err}");
    assert!(
        !err.to_string().contains("SECRETPART") && !err.to_string().contains("Atza"),
        "the token is not shown: {err}"
    );
    let sent = |c: &serde_json::Value| c["requests"]["getInvoiceDetailByInvoiceNumber"].clone();
    assert!(sent(&before).is_object(), "{before}");
    assert_eq!(sent(&sb.counters()), sent(&before), "nothing was sent");
    detail(&client, &n).expect("the credentials it had still work");
}

/// The refresh token a client holds now.
fn refresh_token_of(client: &blocking::Client) -> String {
    match client.credentials().unwrap() {
        abws::Credentials::RefreshToken { refresh_token, .. } => refresh_token.expose().into(),
        _ => unreachable!("a client of a refresh token"),
    }
}

#[test]
fn a_rotated_refresh_token_is_handed_over_before_use() {
    // `expires_in` is 1 (the client refreshes after 0.8 s), but on the sandbox's clock, ten
    // times slower, the token lives 10 real seconds: a stall between a refresh and the call
    // that uses its token cannot expire it and cause a third refresh.
    let sb = common::sandbox_with(|c| {
        c.token_lifetime = Duration::from_secs(1);
        c.time_scale = 0.1;
        c.rotate_refresh_tokens = true;
    });
    let (client, persisted) = common::rotation::client_keeping_rotations(&sb);
    let n = an_invoice(&sb);
    detail(&client, &n).unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    detail(&client, &n).unwrap();
    let got = persisted.lock().unwrap().clone();
    assert_eq!(got.len(), 2, "each refresh rotated the token");
    assert_ne!(got[0], got[1]);
    assert_eq!(refresh_token_of(&client), got[1]);
}

#[test]
fn a_rotated_token_in_an_unusable_answer_is_kept() {
    // The answer carries a new refresh token but no access token: the one sent is consumed,
    // so the new one is handed over and used, although this refresh fails.
    let sb = common::sandbox();
    let (client, persisted) = common::rotation::client_keeping_rotations(&sb);
    sb.inject(
        FaultRule::new(
            "/auth/O2/token",
            faults::answer(
                200,
                json!({"refresh_token": "Atzr|next", "token_type": "bearer"}),
            ),
        )
        .times(1),
    );
    let e = detail(&client, &an_invoice(&sb)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Auth, "{e}");
    assert_eq!(*persisted.lock().unwrap(), vec!["Atzr|next".to_string()]);
    assert_eq!(refresh_token_of(&client), "Atzr|next");
}

#[test]
fn the_rotation_callback_can_be_set_on_a_live_client() {
    let sb = common::sandbox_with(|c| c.rotate_refresh_tokens = true);
    let client = common::client(&sb, Region::JP);
    let (callback, persisted) = common::rotation::keeping_rotations();
    client.set_rotation_callback(Some(callback)).unwrap();
    detail(&client, &an_invoice(&sb)).unwrap();
    assert_eq!(persisted.lock().unwrap().len(), 1);
}

#[test]
fn user_agent_names_the_library_and_version() {
    let (sb, client) = common::sandbox_and_client();
    detail(&client, "U").unwrap_err();
    let ua = seen(&sb, "/ab-invoice/")[0]["headers"]["user-agent"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        ua.starts_with(&format!("abws/{} (Language=Rust;Platform=", abws::VERSION)),
        "{ua}"
    );
}

/// Waits for a forked process; true when it exited with status 0.
fn exited_ok(pid: libc::pid_t) -> bool {
    let mut status = 0;
    unsafe { libc::waitpid(pid, &mut status, 0) };
    libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
}

/// Runs `f` in a forked child and waits for it; whether `f` returned true there.
fn in_forked_child(f: impl FnOnce() -> bool) -> bool {
    // SAFETY: the child only runs `f` (the library, which rebuilds what it needs) and exits.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0);
    if pid == 0 {
        let ok = f();
        unsafe { libc::_exit(if ok { 0 } else { 3 }) };
    }
    exited_ok(pid)
}

/// A sandbox, a client and an invoice number, after one call (the runtime and a
/// connection exist before a fork).
fn called_once() -> (abws_sandbox::Sandbox, abws::blocking::Client, String) {
    let (sb, client) = common::sandbox_and_client();
    let n = an_invoice(&sb);
    detail(&client, &n).unwrap();
    (sb, client, n)
}

#[test]
fn a_forked_child_rebuilds_the_runtime_and_works() {
    let (sb, client, n) = called_once();
    let child = in_forked_child(|| {
        detail(&client, &n)
            .map(|r| r.status == 200)
            .unwrap_or(false)
    });
    assert!(child, "the child failed");
    assert_eq!(common::requests(&sb, "getInvoiceDetailByInvoiceNumber"), 2);
    // The child did not reuse the parent's connection.
    let conns: Vec<_> = seen(&sb, "/ab-invoice/")
        .iter()
        .map(|r| r["connection"].clone())
        .collect();
    assert_ne!(conns[0], conns[1]);
    detail(&client, &n).unwrap();
}

#[test]
fn a_client_dropped_in_a_grandchild_leaves_its_parents_alone() {
    let (sb, client, n) = called_once();
    // The child rebuilds its client, then a grandchild drops it unused: the client built
    // in the child (and the parent's) must be left to them.
    let child = in_forked_child(|| {
        detail(&client, &n).is_ok()
            && in_forked_child(|| {
                // SAFETY: this process's copy of the client, dropped once: the borrowed
                // original is never dropped here (the grandchild `_exit`s).
                drop(unsafe { std::ptr::read(&client) });
                true
            })
            && detail(&client, &n).is_ok()
    });
    assert!(child, "the child failed");
    assert_eq!(common::requests(&sb, "getInvoiceDetailByInvoiceNumber"), 3);
    detail(&client, &n).unwrap();
}

// ---- The operations table, the argument reader, explicit nulls, `type`, region default ----

/// The snake_case of a wire name: a word starts at an uppercase letter after a lowercase
/// letter or a digit, or at the last capital of a run followed by a lowercase letter
/// (`buyingGuidanceV2` → `buying_guidance_v2`, `OFFERS` → `offers`).
fn snake_case(wire: &str) -> String {
    let chars: Vec<char> = wire.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = i.checked_sub(1).map(|j| chars[j]);
            let next = chars.get(i + 1);
            let boundary = prev.is_some_and(|p| {
                p.is_ascii_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_ascii_uppercase() && next.is_some_and(|n| n.is_ascii_lowercase()))
            });
            if boundary {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn is_snake_case(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !name.contains("__")
        && !name.ends_with('_')
}

#[test]
fn snake_case_of_wire_names() {
    for (wire, snake) in [
        ("invoiceNumber", "invoice_number"),
        ("buyingGuidanceV2", "buying_guidance_v2"),
        ("addressLine1", "address_line1"),
        ("OFFERS", "offers"),
        ("isbn10", "isbn10"),
        ("type", "type"),
    ] {
        assert_eq!(snake_case(wire), snake, "{wire}");
    }
}

#[test]
fn every_row_of_the_table_resolves_by_name_id_and_pager() {
    use std::collections::HashSet;

    let all = operations::ALL;
    assert!(all.len() >= 24, "{} rows", all.len());
    let ids: HashSet<&str> = all.iter().map(|o| o.id).collect();
    let names: HashSet<&str> = all.iter().map(|o| o.name).collect();
    assert_eq!(ids.len(), all.len(), "operationIds are unique");
    assert_eq!(names.len(), all.len(), "snake names are unique");
    let mut pagers = HashSet::new();
    for op in all {
        assert!(is_snake_case(op.name), "{}", op.name);
        for key in [op.name, op.id] {
            let dynamic = operations::dynamic(key).unwrap_or_else(|| panic!("dynamic({key})"));
            assert_eq!(dynamic.row().id, op.id, "dynamic({key})");
        }
        assert_eq!(operations::by_id(op.id).map(|o| o.name), Some(op.name));
        if let Some(pager) = op.pager {
            assert!(pagers.insert(pager.name), "pager {} is unique", pager.name);
            let dynamic = operations::dynamic_pager(pager.name)
                .unwrap_or_else(|| panic!("dynamic_pager({})", pager.name));
            assert_eq!(dynamic.row().id, op.id, "dynamic_pager({})", pager.name);
            // The items field is a field of the page.
            match (op.output)() {
                abws::describe::Ty::Model(m) => assert!(
                    m.fields.iter().any(|f| f.name == pager.items),
                    "{}: page {} has no field {}",
                    op.id,
                    m.name,
                    pager.items
                ),
                other => panic!("{}: a page that is not a model: {other:?}", op.id),
            }
        }
    }
    assert!(!pagers.is_empty());
    assert!(operations::dynamic("noSuchOperation").is_none());
    assert!(
        operations::dynamic_pager("get_invoices").is_none(),
        "not a pager name"
    );
}

#[test]
fn reachable_models_and_params_are_named_by_the_rules() {
    use abws::describe::{ModelInfo, Reachable, Ty};
    use std::collections::HashMap;

    let mut r = Reachable::default();
    for op in operations::ALL {
        r.walk((op.output)());
        r.walk((op.params)());
    }
    assert!(r.models.len() > 50, "{} models", r.models.len());
    assert!(!r.params.is_empty());

    // Every distinct model (by identity, not by name) has a name of its own: `Reachable`
    // folds models by name, so walk them by address here.
    fn models(ty: Ty, out: &mut Vec<&'static ModelInfo>) {
        match ty {
            Ty::List(t) | Ty::Map(t) => models(t(), out),
            Ty::OneOf(o) => o.variants.iter().for_each(|t| models(t(), out)),
            Ty::Model(m) if !out.iter().any(|x| std::ptr::eq(*x, m)) => {
                out.push(m);
                m.fields.iter().for_each(|f| models((f.ty)(), out));
            }
            Ty::Params(p) => p.fields.iter().for_each(|f| models((f.ty)(), out)),
            _ => {}
        }
    }
    let mut distinct = vec![];
    for op in operations::ALL {
        models((op.output)(), &mut distinct);
        models((op.params)(), &mut distinct);
    }
    let mut by_name: HashMap<&str, usize> = HashMap::new();
    for m in &distinct {
        *by_name.entry(m.name).or_default() += 1;
    }
    let clashes: Vec<_> = by_name.iter().filter(|(_, n)| **n > 1).collect();
    assert!(clashes.is_empty(), "model names used twice: {clashes:?}");
    assert_eq!(distinct.len(), r.models.len());

    for m in &r.models {
        let mut seen = std::collections::HashSet::new();
        for f in m.fields {
            assert_eq!(f.name, snake_case(f.wire), "{}.{}", m.name, f.wire);
            assert!(is_snake_case(f.name), "{}.{}", m.name, f.name);
            assert!(seen.insert(f.name), "{}.{} twice", m.name, f.name);
        }
    }
    for p in &r.params {
        let mut seen = std::collections::HashSet::new();
        for f in p.fields {
            assert!(is_snake_case(f.name), "{}.{}", p.name, f.name);
            assert!(seen.insert(f.name), "{}.{} twice", p.name, f.name);
        }
    }
    // Every row's parameter struct is described as one (or passed through as an object).
    for op in operations::ALL {
        assert!(
            matches!((op.params)(), Ty::Params(_) | Ty::Object(_)),
            "{}",
            op.id
        );
    }
}

/// Runs an operation by name with JSON arguments, as the bindings do; the error if the
/// arguments are refused.
fn dynamic_refusal(client: &blocking::Client, name: &str, args: &str) -> abws::Error {
    let op = operations::dynamic(name).unwrap();
    match op.call(&client.inner().unwrap(), args) {
        Ok(_) => panic!("{name} accepted {args}"),
        Err(e) => e,
    }
}

#[test]
fn the_argument_reader_names_the_path_and_never_the_value() {
    let (sb, client) = common::sandbox_and_client();
    let line = r#"{"order_id":"O-1","order_line_item_id":"L-1","shipment_id":"S-1"}"#;
    let cases: Vec<(&str, String, &str, &str)> = vec![
        // An unknown key.
        (
            "get_invoice_detail_by_invoice_number",
            r#"{"invoice_number":"INV-1","colour":"s3cr3t-colour"}"#.into(),
            "colour",
            "s3cr3t-colour",
        ),
        // A missing required key.
        (
            "getInvoiceDetailByInvoiceNumber",
            r#"{"region":"JP"}"#.into(),
            "invoice_number",
            "JP",
        ),
        // Wrong types: a number, a string, a boolean, a list where a scalar goes.
        (
            "get_invoice_detail_by_invoice_number",
            r#"{"invoice_number":987654321}"#.into(),
            "invoice_number",
            "987654321",
        ),
        (
            "list_carts",
            r#"{"page_size":"s3cr3t-size"}"#.into(),
            "page_size",
            "s3cr3t-size",
        ),
        (
            "get_orders_by_order_id",
            r#"{"order_id":"O-1","include_charges":"s3cr3t-flag"}"#.into(),
            "include_charges",
            "s3cr3t-flag",
        ),
        (
            "get_report",
            r#"{"report_id":["s3cr3t-id"]}"#.into(),
            "report_id",
            "s3cr3t-id",
        ),
        // A nested path: wrong type, missing key, unknown key inside the second item.
        (
            "get_invoice_details_by_order_line_items",
            format!(
                r#"{{"order_line_items":[{line},{{"order_id":"O-2","order_line_item_id":"L-2","shipment_id":424242}}]}}"#
            ),
            "order_line_items[1].shipment_id",
            "424242",
        ),
        (
            "getInvoiceDetailsByOrderLineItems",
            format!(
                r#"{{"order_line_items":[{line},{{"order_id":"s3cr3t-order","order_line_item_id":"L-2"}}]}}"#
            ),
            "order_line_items[1].shipment_id",
            "s3cr3t-order",
        ),
        (
            "get_invoice_details_by_order_line_items",
            format!(
                r#"{{"order_line_items":[{line},{{"order_id":"O-2","order_line_item_id":"L-2","shipment_id":"S-2","colour":"s3cr3t-colour"}}]}}"#
            ),
            "order_line_items[1].colour",
            "s3cr3t-colour",
        ),
        // A nested struct written as a list (serde would fill it by position).
        (
            "get_invoice_details_by_order_line_items",
            format!(r#"{{"order_line_items":[{line},["s3cr3t-order","L-2","S-2"]]}}"#),
            "order_line_items[1]",
            "s3cr3t-order",
        ),
        (
            "add_items",
            r#"{"cart_id":"C-1","items":[["s3cr3t-asin","B-1",1]]}"#.into(),
            "items[0]",
            "s3cr3t-asin",
        ),
        (
            "place_order",
            r#"{"external_id":"E-1","line_items":[["s3cr3t-line"]]}"#.into(),
            "line_items[0]",
            "s3cr3t-line",
        ),
        // Not an object at all.
        (
            "get_report",
            r#"["s3cr3t-array"]"#.into(),
            "arguments",
            "s3cr3t-array",
        ),
    ];
    for (name, args, path, value) in &cases {
        let e = dynamic_refusal(&client, name, args);
        assert_eq!(e.kind(), ErrorKind::Validation, "{name} {args}: {e}");
        assert_eq!(e.parameter(), Some(*path), "{name} {args}: {e}");
        let shown = format!("{e} {e:?}");
        assert!(!shown.contains(value), "{name}: the value shows in {shown}");
        assert_eq!(
            e.operation(),
            Some(operations::dynamic(name).unwrap().row().id),
            "{e}"
        );
    }
    // A pager reads its arguments the same way.
    let pager = operations::dynamic_pager("iter_carts").unwrap();
    let e = match pager.pager(&client.inner().unwrap(), r#"{"page_token":12345678}"#) {
        Ok(_) => panic!("iter_carts accepted a numeric page token"),
        Err(e) => e,
    };
    assert_eq!(e.parameter(), Some("page_token"), "{e}");
    assert!(!e.to_string().contains("12345678"), "{e}");
    assert_eq!(common::all_requests(&sb), 0, "nothing reached the service");
    assert_eq!(refreshes(&sb), 0, "not even the token endpoint");
}

#[test]
fn dynamic_calls_run_the_operation_with_the_arguments_read() {
    let (sb, client) = common::sandbox_and_client();
    let number = an_invoice(&sb);
    let op = operations::dynamic("getInvoiceDetailByInvoiceNumber").unwrap();
    let args = json!({ "invoice_number": number, "region": "JP" }).to_string();
    let fut = op.call(&client.inner().unwrap(), &args).unwrap();
    let out = blocking::block_on(fut).unwrap().into_output().unwrap();
    let v: Value = serde_json::from_str(&out.to_json().unwrap()).unwrap();
    assert_eq!(v["invoiceMetadata"]["invoiceNumber"], number.as_str());
    assert_eq!(common::requests(&sb, "getInvoiceDetailByInvoiceNumber"), 1);
}

/// An operation whose result is its answer's body hands the bindings that body, checked
/// and undecoded, with its shape; decoding it gives what the typed call gives.
#[test]
fn dynamic_calls_hand_a_json_answer_where_the_result_is_the_body() {
    use abws::api::reconciliation::GetTransactionsParams;
    use abws::operation::Reply;
    let (sb, client) = common::sandbox_and_client();
    let (start, end) = common::previous_month(&sb);
    let op = operations::dynamic("getTransactions").unwrap();
    let args = json!({ "feed_start_date": start, "feed_end_date": end }).to_string();
    let reply = blocking::block_on(op.call(&client.inner().unwrap(), &args).unwrap()).unwrap();
    let Reply::Json(answer) = reply else {
        panic!("getTransactions: not a JSON answer")
    };
    assert_eq!(answer.operation(), "getTransactions");
    assert!(matches!(answer.ty(), abws::describe::Ty::Model(m) if m.name == "TransactionsPage"));
    let text: Value = serde_json::from_str(answer.text().unwrap()).unwrap();
    assert!(text["transactions"]
        .as_array()
        .is_some_and(|t| !t.is_empty()));
    let typed = client
        .call(&GetTransactionsParams {
            feed_start_date: start.as_str().into(),
            feed_end_date: end.as_str().into(),
            ..Default::default()
        })
        .unwrap();
    let decoded: Value =
        serde_json::from_str(&answer.decode().unwrap().to_json().unwrap()).unwrap();
    // The same transactions (each call mints its own nextPageToken).
    assert!(
        decoded["transactions"] == serde_json::to_value(&typed).unwrap()["transactions"],
        "decoding the answer differs from the typed call"
    );
    // A result held in one field of the answer: the body's shape and that field.
    let number = an_invoice(&sb);
    let op = operations::dynamic("getInvoiceDetailByInvoiceNumber").unwrap();
    let args = json!({ "invoice_number": number }).to_string();
    let reply = blocking::block_on(op.call(&client.inner().unwrap(), &args).unwrap()).unwrap();
    let Reply::Json(answer) = reply else {
        panic!("getInvoiceDetailByInvoiceNumber: not a JSON answer")
    };
    assert_eq!(answer.part(), Some("invoiceDetail"));
    assert!(
        matches!(answer.ty(), abws::describe::Ty::Model(m) if m.name == "InvoiceDetailResponse")
    );
    let detail: Value = serde_json::from_str(&answer.decode().unwrap().to_json().unwrap()).unwrap();
    assert_eq!(detail["invoiceMetadata"]["invoiceNumber"], number.as_str());
    // A result the handler makes itself (deleteItems: an empty answer) comes decoded.
    let op = operations::dynamic("deleteItems").unwrap();
    let args = json!({ "cart_id": "cart-0005" }).to_string();
    let reply = blocking::block_on(op.call(&client.inner().unwrap(), &args).unwrap()).unwrap();
    assert!(matches!(reply, Reply::Decoded(_)));
}

#[test]
fn explicit_nulls_go_back_as_null_and_absent_stays_absent() {
    use abws::api::products::{Offer, Product};
    use abws::Model;

    // From the service's own searchOffers example.
    let wire = json!({
        "offerId": "OFFER-1",
        "listPrice": {"value": null, "formattedPrice": "¥1,000"},
        "merchant": {"merchantId": null, "name": "A seller"},
        "quantityInStock": null,
        "price": {"value": {"amount": 1000, "currencyCode": "JPY"}}
    });
    let offer: Offer = serde_json::from_value(wire.clone()).unwrap();
    assert_eq!(offer.quantity_in_stock, None);
    assert!(offer.received_null("quantityInStock"));
    assert!(!offer.received_null("offerId"), "present, not null");
    assert!(!offer.received_null("availability"), "absent, not null");
    assert!(!offer.received_null("noSuchField"));
    let list_price = offer.list_price.as_ref().unwrap();
    assert!(list_price.received_null("value"));
    assert!(offer.merchant.as_ref().unwrap().received_null("merchantId"));
    let back = serde_json::to_value(&offer).unwrap();
    assert_eq!(back["quantityInStock"], Value::Null);
    assert!(back.as_object().unwrap().contains_key("quantityInStock"));
    assert!(!back.as_object().unwrap().contains_key("availability"));
    assert_eq!(
        back["listPrice"],
        json!({"value": null, "formattedPrice": "¥1,000"})
    );
    assert_eq!(
        back["merchant"],
        json!({"merchantId": null, "name": "A seller"})
    );
    assert_eq!(back["price"], wire["price"]);
    assert_eq!(back, wire, "the wire form comes back exactly");

    let product: Product = serde_json::from_value(json!({
        "asin": "B0TEST",
        "bookInformation": {"isbn": {"isbn10": null, "isbn13": "9780000000000"}}
    }))
    .unwrap();
    let isbn = product
        .book_information
        .as_ref()
        .unwrap()
        .isbn
        .as_ref()
        .unwrap();
    assert!(isbn.received_null("isbn10") && !isbn.received_null("isbn13"));
    assert_eq!(
        serde_json::to_string(&product).unwrap(),
        r#"{"asin":"B0TEST","bookInformation":{"isbn":{"isbn10":null,"isbn13":"9780000000000"}}}"#
    );

    // A value set in Rust after decoding wins over the null it replaced.
    let mut changed = offer.clone();
    changed.quantity_in_stock = Some(3);
    assert_eq!(
        serde_json::to_value(&changed).unwrap()["quantityInStock"],
        3
    );
    // A model built in Rust has no nulls: absent fields are left out.
    let built = Offer {
        offer_id: Some("OFFER-2".into()),
        ..Default::default()
    };
    assert_eq!(
        serde_json::to_string(&built).unwrap(),
        r#"{"offerId":"OFFER-2"}"#
    );
}

#[test]
fn type_fields_round_trip_as_type() {
    use abws::api::invoices::{InvoiceMetadata, InvoiceType};
    use abws::api::products::Taxonomy;
    use abws::Model;

    let wire = json!({"invoiceNumber": "INV-1", "type": "CREDIT_MEMO", "region": "JP"});
    let meta: InvoiceMetadata = serde_json::from_value(wire.clone()).unwrap();
    assert_eq!(meta.r#type, Some(InvoiceType::CreditMemo));
    assert_eq!(serde_json::to_value(&meta).unwrap(), wire);
    assert!(meta.extra.is_empty(), "`type` is a declared field");
    assert!(InvoiceMetadata::FIELDS
        .iter()
        .any(|f| f.wire == "type" && f.name == "type"));

    let built = Taxonomy {
        taxonomy_code: Some("43211503".into()),
        r#type: Some("UNSPSC".into()),
        ..Default::default()
    };
    let text = serde_json::to_string(&built).unwrap();
    assert_eq!(text, r#"{"taxonomyCode":"43211503","type":"UNSPSC"}"#);
    let again: Taxonomy = serde_json::from_str(&text).unwrap();
    assert_eq!(again, built);
}

#[test]
fn a_call_without_region_uses_the_clients() {
    let sb = common::sandbox();
    let number = an_invoice(&sb);
    let detail_path = format!("/ab-invoice/2026-02-01/invoices/{number}/detail");
    let regions = |sb: &Sandbox| -> Vec<String> {
        seen(sb, &detail_path)
            .iter()
            .map(|r| r["path"].as_str().unwrap().to_string())
            .collect()
    };

    let jp = common::client(&sb, Region::JP);
    let d = jp
        .invoices()
        .get_invoice_detail_by_invoice_number(&GetInvoiceDetailByInvoiceNumberParams {
            invoice_number: number.clone(),
            region: None,
        })
        .unwrap();
    assert_eq!(d.invoice_metadata.unwrap().region.as_deref(), Some("JP"));
    assert_eq!(regions(&sb), [format!("{detail_path}?region=JP")]);

    // Another client's region, same regional address: its own region is sent.
    let au = common::client(&sb, Region::AU);
    // (The invoice is a JP one: whatever the answer, the request is what counts.)
    let _ = au.call(&GetInvoiceDetailByInvoiceNumberParams {
        invoice_number: number.clone(),
        ..Default::default()
    });
    assert_eq!(regions(&sb)[1], format!("{detail_path}?region=AU"));

    // The same through the dynamic call the bindings use, and for a cart listing.
    let op = operations::dynamic("get_invoice_detail_by_invoice_number").unwrap();
    let args = json!({ "invoice_number": number }).to_string();
    blocking::block_on(op.call(&jp.inner().unwrap(), &args).unwrap()).unwrap();
    assert_eq!(regions(&sb)[2], format!("{detail_path}?region=JP"));
    jp.cart().list_carts(&ListCartsParams::default()).unwrap();
    let carts = seen(&sb, "/cart/2025-04-30/carts");
    assert!(
        carts[0]["path"].as_str().unwrap().contains("region=JP"),
        "{carts:?}"
    );
    // An explicit region still wins.
    let _ = jp.call(&GetInvoiceDetailByInvoiceNumberParams {
        invoice_number: number.clone(),
        region: Some("AU".into()),
    });
    assert_eq!(regions(&sb)[3], format!("{detail_path}?region=AU"));
}

/// A 2xx answer that cannot be read is described by its start, but a buyer's e-mail address
/// in it (or in the parser's message, which quotes a value of the wrong type) is not quoted:
/// errors reach logs, where e-mail addresses never go.
#[test]
fn an_unreadable_answer_is_quoted_without_its_e_mail_addresses() {
    let (sb, client) = common::sandbox_and_client();
    let n = an_invoice(&sb);
    let body = json!({"invoiceDetail": {"buyer": "a@b.example", "totalAmount": "jane.roe@customer.example"}});
    sb.inject(
        FaultRule::new("getInvoiceDetailByInvoiceNumber", faults::answer(200, body)).times(1),
    );
    let err = invoice_detail(&client, &n).unwrap_err();
    let text = err.to_string();
    assert_eq!(err.kind(), ErrorKind::Transport, "{text}");
    assert!(text.contains("not a valid"), "{text}");
    assert!(
        !text.contains("jane.roe") && !text.contains("b.example"),
        "{text}"
    );
    assert!(
        text.contains("<e-mail>"),
        "the place is still shown: {text}"
    );
}
