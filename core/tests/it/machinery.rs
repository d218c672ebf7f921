//! The shared machinery over real loopback HTTP against the sandbox: auth, transport,
//! retries, the error envelope, paging and the blocking facade.

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use abws::client::Call;
use abws::{blocking, operations, ErrorKind, Region};
use abws_sandbox::{FaultAction, FaultRule, Sandbox};
use serde_json::{json, Value};

fn detail_call(number: &str) -> Call {
    Call::new(&operations::GET_INVOICE_DETAIL)
        .path("invoiceNumber", number)
        .query("region", "JP")
}

fn an_invoice(sb: &Sandbox) -> String {
    sb.dataset()["previousMonthInvoices"][0]
        .as_str()
        .unwrap()
        .to_string()
}

fn token_calls(sb: &Sandbox) -> u64 {
    sb.counters()["tokenCalls"]["refresh_token"]
        .as_u64()
        .unwrap_or(0)
}

fn status_fault(op: &str, status: u16, body: Option<Value>, times: u32) -> FaultRule {
    FaultRule::new(
        op,
        FaultAction::Status {
            status,
            body,
            headers: Default::default(),
        },
    )
    .times(times)
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
    let number = an_invoice(&sb);
    let handles: Vec<_> = (0..16)
        .map(|_| {
            let (c, n) = (client.clone(), number.clone());
            std::thread::spawn(move || detail(&c, &n).unwrap().status)
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), 200);
    }
    assert_eq!(token_calls(&sb), 1, "16 threads must share one refresh");
    // Every call carried the one token and the user e-mail, in the spec's headers.
    let calls = seen(&sb, "/ab-invoice/2026-02-01/invoices/");
    assert_eq!(calls.len(), 16);
    let tokens: std::collections::HashSet<_> = calls
        .iter()
        .map(|r| r["headers"]["x-svc-access-token"].clone())
        .collect();
    assert_eq!(tokens.len(), 1);
    assert_eq!(
        calls[0]["headers"]["x-svc-user-email"],
        sb.credentials().user_email.as_str()
    );
}

#[test]
fn short_lived_token_is_not_refreshed_on_every_call() {
    let sb = common::sandbox_with(|c| c.token_lifetime = Duration::from_secs(10));
    let client = common::client(&sb, Region::JP);
    let n = an_invoice(&sb);
    for _ in 0..5 {
        detail(&client, &n).unwrap();
    }
    assert_eq!(token_calls(&sb), 1);
}

#[test]
fn error_envelope_and_request_id_are_decoded() {
    let sb = common::sandbox();
    let client = common::client(&sb, Region::JP);
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
    sb.inject(status_fault(
        "getInvoiceDetailByInvoiceNumber",
        400,
        Some(body),
        1,
    ));
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
    sb.inject(status_fault(
        "getInvoiceDetailByInvoiceNumber",
        400,
        Some(Value::String(html)),
        1,
    ));
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
    let err = client
        .invoices()
        .get_invoice_detail_by_invoice_number(&an_invoice(&sb), "JP")
        .unwrap_err();
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
    sb.inject(status_fault(
        "getInvoiceDetailByInvoiceNumber",
        503,
        None,
        2,
    ));
    let client = common::client(&sb, Region::JP);
    assert_eq!(detail(&client, &an_invoice(&sb)).unwrap().status, 200);
    assert_eq!(common::requests(&sb, "getInvoiceDetailByInvoiceNumber"), 3);
}

#[test]
fn reads_give_up_after_three_attempts() {
    let sb = common::sandbox();
    sb.inject(status_fault(
        "getInvoiceDetailByInvoiceNumber",
        503,
        None,
        5,
    ));
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
    sb.inject(status_fault("placeOrder", 503, None, 1));
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
    sb.inject(status_fault("placeOrder", 429, None, 1));
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
    let sb = common::sandbox();
    let client = common::client(&sb, Region::JP);
    let n = an_invoice(&sb);
    detail(&client, &n).unwrap();
    sb.expire_tokens();
    detail(&client, &n).unwrap();
    assert_eq!(token_calls(&sb), 2);
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
fn access_denied_is_not_a_refresh_loop() {
    let sb = common::sandbox();
    let client = common::client(&sb, Region::JP);
    let n = an_invoice(&sb);
    let denied = json!({"errors":[{"code":"Unauthorized","message":"Access to requested resource is denied.","details":""}]});
    let expired = json!({"errors":[{"code":"Unauthorized","message":"The access token has expired.","details":""}]});
    sb.inject(status_fault(
        "getInvoiceDetailByInvoiceNumber",
        403,
        Some(denied),
        1,
    ));
    let err = detail(&client, &n).unwrap_err();
    assert_eq!(err.status(), Some(403));
    assert_eq!(err.attempts(), 1);
    assert_eq!(token_calls(&sb), 1);
    // Two "expired" answers in a row: one refresh, then the 403 is reported.
    sb.inject(status_fault(
        "getInvoiceDetailByInvoiceNumber",
        403,
        Some(expired),
        2,
    ));
    let err = detail(&client, &n).unwrap_err();
    assert_eq!(err.status(), Some(403));
    assert_eq!(err.attempts(), 2);
    assert_eq!(token_calls(&sb), 2);
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
    assert_eq!(token_calls(&sb), 1);
}

#[test]
fn token_endpoint_outage_is_retried() {
    let sb = common::sandbox();
    sb.inject(status_fault("/auth/O2/token", 503, None, 2));
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
    let sb = common::sandbox();
    let client = common::client(&sb, Region::JP);
    let cart = sb.dataset()["carts"][0]["id"].as_str().unwrap().to_string();
    client.cart().delete_items(&cart, "JP").unwrap();
    assert_eq!(sb.counters()["requests"]["deleteItems"]["204"], 1);
}

#[test]
fn missing_user_email_is_caught_before_sending() {
    let sb = common::sandbox();
    let mut s = common::settings(&sb, Region::JP);
    s.user_email = None;
    let client = blocking::Client::new(s).unwrap();
    let err = client.cart().list_carts("JP", None, None).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Validation);
    assert_eq!(err.parameter(), Some("user_email"));
    assert_eq!(token_calls(&sb), 0, "nothing was sent");
}

#[test]
fn path_parameters_are_encoded() {
    let sb = common::sandbox();
    let client = common::client(&sb, Region::JP);
    let url = client.inner().unwrap().url(&detail_call("A/B C")).unwrap();
    assert!(
        url.ends_with("/ab-invoice/2026-02-01/invoices/A%2FB%20C/detail?region=JP"),
        "{url}"
    );
}

#[test]
fn blocking_inside_a_runtime_is_a_typed_error() {
    let sb = common::sandbox();
    let client = common::client(&sb, Region::JP);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let err = rt.block_on(async { detail(&client, "I") }).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Runtime);
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
    sb.inject(status_fault("getInvoices", 200, Some(page), 3));
    let client = common::client(&sb, Region::JP);
    let (start, end) = common::previous_month(&sb);
    let results: Vec<_> = client
        .invoices()
        .iter_invoices(&abws::api::invoices::GetInvoicesParams {
            invoice_issue_start_date: Some(start.into()),
            invoice_issue_end_date: Some(end.into()),
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
fn a_rotated_refresh_token_is_handed_over_before_use() {
    let sb = common::sandbox_with(|c| {
        c.token_lifetime = Duration::from_secs(1);
        c.rotate_refresh_tokens = true;
    });
    let persisted = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let p2 = persisted.clone();
    let client = blocking::Client::with_rotation(
        common::settings(&sb, Region::JP),
        Some(Arc::new(move |t: &str| {
            p2.lock().unwrap().push(t.to_string())
        })),
    )
    .unwrap();
    let n = an_invoice(&sb);
    detail(&client, &n).unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    detail(&client, &n).unwrap();
    let got = persisted.lock().unwrap().clone();
    assert_eq!(got.len(), 2, "each refresh rotated the token");
    assert_ne!(got[0], got[1]);
    match client.credentials().unwrap() {
        abws::Credentials::RefreshToken { refresh_token, .. } => {
            assert_eq!(refresh_token.expose(), got[1])
        }
        _ => unreachable!(),
    }
}

#[test]
fn user_agent_names_the_library_and_version() {
    let sb = common::sandbox();
    let client = common::client(&sb, Region::JP);
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

#[test]
fn a_forked_child_rebuilds_the_runtime_and_works() {
    let sb = common::sandbox();
    let client = common::client(&sb, Region::JP);
    let n = an_invoice(&sb);
    detail(&client, &n).unwrap();
    // SAFETY: the child only uses the library (which rebuilds its runtime) and exits.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0);
    if pid == 0 {
        let ok = detail(&client, &n)
            .map(|r| r.status == 200)
            .unwrap_or(false);
        unsafe { libc::_exit(if ok { 0 } else { 3 }) };
    }
    let mut status = 0;
    unsafe { libc::waitpid(pid, &mut status, 0) };
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "child failed: {status}"
    );
    assert_eq!(common::requests(&sb, "getInvoiceDetailByInvoiceNumber"), 2);
    // The child did not reuse the parent's connection.
    let conns: Vec<_> = seen(&sb, "/ab-invoice/")
        .iter()
        .map(|r| r["connection"].clone())
        .collect();
    assert_ne!(conns[0], conns[1]);
    detail(&client, &n).unwrap();
}
