//! The shared machinery over real loopback HTTP: auth, transport, retries, errors, paging,
//! the blocking facade.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use abws::client::Call;
use abws::operations;
use abws::paging::{Page, Pager, TokenStyle};
use abws::{blocking, ErrorKind};
use support::{Scripted, TestServer};

const INVOICES: &str = "/ab-invoice/2026-02-01/invoices";

fn detail_call(number: &str) -> Call {
    Call::new(&operations::GET_INVOICE_DETAIL)
        .path("invoiceNumber", number)
        .query("region", "JP")
}

fn fast(mut s: abws::Settings) -> abws::Settings {
    s.rate_limiting = false;
    s
}

#[test]
fn sixteen_threads_share_one_refresh() {
    let server = TestServer::start();
    server
        .shared
        .token_delay_ms
        .store(300, std::sync::atomic::Ordering::SeqCst);
    let client = Arc::new(blocking::Client::new(fast(server.settings())).unwrap());
    let handles: Vec<_> = (0..16)
        .map(|i| {
            let c = client.clone();
            std::thread::spawn(move || {
                c.run(|c| async move { c.execute(&detail_call(&format!("INV-{i}"))).await })
                    .unwrap()
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap().status, 200);
    }
    assert_eq!(server.token_calls(), 1, "16 threads must share one refresh");
    // Every call carried the one token, in the spec's header, marked as sent.
    let seen = server.seen("/ab-invoice/2026-02-01/invoices/INV-3/detail");
    assert_eq!(seen[0].headers["x-svc-access-token"], "Atza|token-1");
    assert_eq!(seen[0].headers["x-svc-user-email"], "buyer@example.com");
}

#[test]
fn short_lived_token_is_not_refreshed_on_every_call() {
    let server = TestServer::start();
    server
        .shared
        .token_lifetime_s
        .store(10, std::sync::atomic::Ordering::SeqCst);
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    for i in 0..5 {
        client
            .run(|c| async move { c.execute(&detail_call(&format!("INV-{i}"))).await })
            .unwrap();
    }
    assert_eq!(server.token_calls(), 1);
}

#[test]
fn error_envelope_and_request_id_are_decoded() {
    let server = TestServer::start();
    server.script(
        "/ab-invoice/2026-02-01/invoices/NOPE/detail",
        vec![Scripted::json(
            404,
            r#"{"errors":[{"code":"NotFound","message":"Invoice NOPE does not exist","details":""}]}"#,
        )
        .header("x-svc-RateLimit-Limit", "0.5")],
    );
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    let err = client
        .run(|c| async move { c.execute(&detail_call("NOPE")).await })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Api);
    assert_eq!(err.status(), Some(404));
    assert_eq!(err.code(), Some("NotFound"));
    assert_eq!(err.message(), "Invoice NOPE does not exist");
    assert!(err.request_id().unwrap().starts_with("req-"));
    assert_eq!(err.attempts(), 1, "a 404 is final");
    assert_eq!(
        err.api_failure().unwrap().rate_limit.as_deref(),
        Some("0.5")
    );
    assert!(err.api_failure().unwrap().has_code("notfound"));
    let text = err.to_string();
    assert!(
        text.contains("HTTP 404 NotFound: Invoice NOPE does not exist"),
        "{text}"
    );
    assert!(text.contains("getInvoiceDetailByInvoiceNumber"), "{text}");
}

#[test]
fn non_json_error_body_is_described_briefly() {
    let server = TestServer::start();
    let html = format!("<html>{}</html>", "x".repeat(5000));
    server.script(
        "/ab-invoice/2026-02-01/invoices/H/detail",
        vec![Scripted {
            status: 400,
            body: html,
            headers: vec![("content-type".into(), "text/html".into())],
            delay: Duration::ZERO,
        }],
    );
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    let err = client
        .run(|c| async move { c.execute(&detail_call("H")).await })
        .unwrap_err();
    assert_eq!(err.status(), Some(400));
    assert!(err.message().contains("text/html"));
    assert!(err.message().len() < 300, "excerpt must stay short");
}

#[test]
fn reads_are_retried_after_server_errors() {
    let server = TestServer::start();
    let path = "/ab-invoice/2026-02-01/invoices/R/detail";
    server.script(
        path,
        vec![
            Scripted::json(
                503,
                r#"{"errors":[{"code":"ServiceUnavailable","message":"busy"}]}"#,
            ),
            Scripted::json(
                500,
                r#"{"errors":[{"code":"InternalFailure","message":"oops"}]}"#,
            ),
            Scripted::json(200, r#"{"invoiceDetail":{}}"#),
        ],
    );
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    let resp = client
        .run(|c| async move { c.execute(&detail_call("R")).await })
        .unwrap();
    assert_eq!(resp.status, 200);
    assert_eq!(server.seen(path).len(), 3);
}

#[test]
fn reads_give_up_after_three_attempts() {
    let server = TestServer::start();
    let path = "/ab-invoice/2026-02-01/invoices/G/detail";
    server.script(path, vec![Scripted::json(503, "{}"); 5]);
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    let err = client
        .run(|c| async move { c.execute(&detail_call("G")).await })
        .unwrap_err();
    assert_eq!(err.status(), Some(503));
    assert_eq!(err.attempts(), 3);
    assert_eq!(server.seen(path).len(), 3);
}

#[test]
fn place_order_is_not_resent_after_an_ambiguous_failure() {
    let server = TestServer::start();
    let path = "/ordering/2022-10-30/orders";
    server.script(
        path,
        vec![Scripted::json(503, "{}"), Scripted::json(200, "{}")],
    );
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    let mut call = Call::new(&operations::PLACE_ORDER)
        .json(&serde_json::json!({"externalId": "PO-7"}))
        .unwrap();
    call.external_id = Some("PO-7".into());
    let err = client
        .run(|c| async move { c.execute(&call).await })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutcomeUnknown);
    assert_eq!(err.external_id(), Some("PO-7"));
    assert!(err.to_string().contains("PO-7"));
    assert_eq!(server.seen(path).len(), 1, "never resent");
    // The order date header travels with placeOrder.
    assert!(server.seen(path)[0].headers.contains_key("x-svc-date"));
}

#[test]
fn place_order_is_resent_after_a_throttle() {
    let server = TestServer::start();
    let path = "/ordering/2022-10-30/orders";
    server.script(
        path,
        vec![Scripted::json(429, "{}"), Scripted::json(200, "{}")],
    );
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    let call = Call::new(&operations::PLACE_ORDER)
        .json(&serde_json::json!({"externalId": "PO-8"}))
        .unwrap();
    client
        .run(|c| async move { c.execute(&call).await })
        .unwrap();
    let seen = server.seen(path);
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].body, seen[1].body, "the same externalId is resent");
}

#[test]
fn expired_token_is_refreshed_once_and_replayed() {
    let server = TestServer::start();
    let path = "/ab-invoice/2026-02-01/invoices/E/detail";
    let expired = r#"{"errors":[{"code":"Unauthorized","message":"The access token has expired.","details":""}]}"#;
    server.script(
        path,
        vec![Scripted::json(403, expired), Scripted::json(200, "{}")],
    );
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    client
        .run(|c| async move { c.execute(&detail_call("E")).await })
        .unwrap();
    assert_eq!(server.token_calls(), 2);
    let seen = server.seen(path);
    assert_eq!(seen[0].headers["x-svc-access-token"], "Atza|token-1");
    assert_eq!(seen[1].headers["x-svc-access-token"], "Atza|token-2");
}

#[test]
fn access_denied_is_not_a_refresh_loop() {
    let server = TestServer::start();
    let path = "/ab-invoice/2026-02-01/invoices/D/detail";
    let denied = r#"{"errors":[{"code":"Unauthorized","message":"Access to requested resource is denied."}]}"#;
    let expired =
        r#"{"errors":[{"code":"Unauthorized","message":"The access token has expired."}]}"#;
    server.script(path, vec![Scripted::json(403, denied)]);
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    let err = client
        .run(|c| async move { c.execute(&detail_call("D")).await })
        .unwrap_err();
    assert_eq!(err.status(), Some(403));
    assert_eq!(err.attempts(), 1);
    assert_eq!(server.token_calls(), 1);
    // Two "expired" answers in a row: one refresh, then the 403 is reported.
    let path2 = "/ab-invoice/2026-02-01/invoices/D2/detail";
    server.script(
        path2,
        vec![Scripted::json(403, expired), Scripted::json(403, expired)],
    );
    let err = client
        .run(|c| async move { c.execute(&detail_call("D2")).await })
        .unwrap_err();
    assert_eq!(err.status(), Some(403));
    assert_eq!(server.seen(path2).len(), 2);
    assert_eq!(server.token_calls(), 2);
}

#[test]
fn revoked_refresh_token_is_an_auth_error_without_retry() {
    let server = TestServer::start();
    server
        .shared
        .token_script
        .lock()
        .unwrap()
        .push_back(Scripted::json(
            400,
            r#"{"error":"invalid_grant","error_description":"The refresh token is revoked"}"#,
        ));
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    let err = client
        .run(|c| async move { c.execute(&detail_call("X")).await })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Auth);
    assert!(err.to_string().contains("consent"), "{err}");
    assert_eq!(server.token_calls(), 1);
}

#[test]
fn token_endpoint_outage_is_retried() {
    let server = TestServer::start();
    {
        let mut q = server.shared.token_script.lock().unwrap();
        q.push_back(Scripted::json(503, "{}"));
        q.push_back(Scripted::json(503, "{}"));
    }
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    client
        .run(|c| async move { c.execute(&detail_call("T")).await })
        .unwrap();
    assert_eq!(server.token_calls(), 3);
}

#[test]
fn redirects_are_not_followed() {
    let server = TestServer::start();
    let path = "/ab-invoice/2026-02-01/invoices/M/detail";
    server.script(
        path,
        vec![Scripted::json(302, "").header("location", "http://elsewhere.example:9/steal")],
    );
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    let err = client
        .run(|c| async move { c.execute(&detail_call("M")).await })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Transport);
    assert!(err.to_string().contains("elsewhere.example"), "{err}");
    assert_eq!(server.seen(path).len(), 1);
}

#[test]
fn empty_2xx_body_is_accepted() {
    let server = TestServer::start();
    let path = "/cart/2025-04-30/carts/C1/items";
    server.script(path, vec![Scripted::json(204, "")]);
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    let call = Call::new(&operations::DELETE_ITEMS)
        .path("cartId", "C1")
        .query("region", "US");
    let resp = client
        .run(|c| async move { c.execute(&call).await })
        .unwrap();
    assert_eq!(resp.status, 204);
    assert!(resp.body.is_empty());
    assert_eq!(server.seen(path)[0].method, "DELETE");
}

#[test]
fn missing_user_email_is_caught_before_sending() {
    let server = TestServer::start();
    let mut s = fast(server.settings());
    s.user_email = None;
    let client = blocking::Client::new(s).unwrap();
    let call = Call::new(&operations::LIST_CARTS).query("region", "US");
    let err = client
        .run(|c| async move { c.execute(&call).await })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Validation);
    assert_eq!(err.parameter(), Some("user_email"));
    assert_eq!(server.token_calls(), 0, "nothing was sent");
}

#[test]
fn path_parameters_are_encoded() {
    let server = TestServer::start();
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    let url = client.inner().unwrap().url(&detail_call("A/B C")).unwrap();
    assert!(
        url.ends_with("/ab-invoice/2026-02-01/invoices/A%2FB%20C/detail?region=JP"),
        "{url}"
    );
}

#[test]
fn blocking_inside_a_runtime_is_a_typed_error() {
    let server = TestServer::start();
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let err = rt
        .block_on(async { client.run(|c| async move { c.execute(&detail_call("I")).await }) })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Runtime);
}

#[test]
fn secrets_never_show_in_debug() {
    let server = TestServer::start();
    let s = server.settings();
    let text = format!("{s:?}");
    assert!(!text.contains("secret-1"), "{text}");
    assert!(!text.contains("Atzr|refresh"), "{text}");
    let client = blocking::Client::new(s).unwrap();
    let text = format!("{client:?} {:?}", client.credentials().unwrap());
    assert!(
        !text.contains("secret-1") && !text.contains("Atzr|"),
        "{text}"
    );
}

#[test]
fn plain_http_is_refused_off_loopback() {
    let mut s = TestServer::start().settings();
    s.endpoint = Some("http://10.1.2.3:8080".into());
    let err = blocking::Client::new(s).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Validation);
    assert_eq!(err.parameter(), Some("endpoint"));
}

#[test]
fn operation_deadline_is_never_slept_past() {
    let server = TestServer::start();
    let path = "/ab-invoice/2026-02-01/invoices/S/detail";
    server.script(
        path,
        vec![Scripted::json(200, "{}").delay(Duration::from_secs(3)); 3],
    );
    let mut s = fast(server.settings());
    s.timeouts.attempt = Duration::from_millis(400);
    s.timeouts.operation = Duration::from_millis(900);
    let client = blocking::Client::new(s).unwrap();
    client
        .run(|c| async move { c.access_token().await })
        .unwrap();
    let started = Instant::now();
    let err = client
        .run(|c| async move { c.execute(&detail_call("S")).await })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout);
    assert!(
        started.elapsed() < Duration::from_millis(1300),
        "{:?}",
        started.elapsed()
    );
}

#[derive(Debug, serde::Deserialize)]
struct InvoicePage {
    invoices: Vec<serde_json::Value>,
    #[serde(rename = "nextPageToken")]
    next_page_token: Option<String>,
}

impl Page for InvoicePage {
    type Item = serde_json::Value;
    fn next_page_token(&self) -> Option<&str> {
        self.next_page_token.as_deref()
    }
    fn len(&self) -> usize {
        self.invoices.len()
    }
    fn into_items(self) -> Vec<serde_json::Value> {
        self.invoices
    }
}

fn invoice_call() -> Call {
    Call::new(&operations::GET_INVOICES)
        .query("invoiceIssueStartDate", "2026-01-01T00:00:00Z")
        .query("invoiceIssueEndDate", "2026-02-01T00:00:00Z")
}

#[test]
fn pager_replays_parameters_with_each_token() {
    let server = TestServer::start();
    server.script(
        INVOICES,
        vec![
            Scripted::json(
                200,
                r#"{"invoices":[{"n":1},{"n":2}],"nextPageToken":"t1"}"#,
            ),
            Scripted::json(200, r#"{"invoices":[{"n":3}],"nextPageToken":"t2"}"#),
            Scripted::json(200, r#"{"invoices":[{"n":4}]}"#),
        ],
    );
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    let pager = blocking::Pager::new(Pager::<InvoicePage>::new(
        client.inner().unwrap(),
        invoice_call(),
        TokenStyle::WithParams("nextPageToken"),
        None,
    ));
    let items: Vec<_> = pager.items().collect::<Result<_, _>>().unwrap();
    assert_eq!(items.len(), 4);
    let seen = server.seen(INVOICES);
    assert_eq!(seen.len(), 3);
    let base = "invoiceIssueStartDate=2026-01-01T00%3A00%3A00Z&invoiceIssueEndDate=2026-02-01T00%3A00%3A00Z";
    assert_eq!(seen[0].query, base);
    assert_eq!(seen[1].query, format!("{base}&nextPageToken=t1"));
    assert_eq!(seen[2].query, format!("{base}&nextPageToken=t2"));
}

#[test]
fn pager_token_alone_style_sends_only_the_token() {
    let server = TestServer::start();
    let path = "/reconciliation/2021-01-08/transactions";
    server.script(
        path,
        vec![
            Scripted::json(200, r#"{"invoices":[{"n":1}],"nextPageToken":"a b"}"#),
            Scripted::json(200, r#"{"invoices":[{"n":2}]}"#),
        ],
    );
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    let call = Call::new(&operations::GET_TRANSACTIONS)
        .query("feedStartDate", "2026-01-01T00:00:00Z")
        .query("feedEndDate", "2026-01-31T00:00:00Z");
    let pager = blocking::Pager::new(Pager::<InvoicePage>::new(
        client.inner().unwrap(),
        call,
        TokenStyle::Alone("nextPageToken"),
        None,
    ));
    assert_eq!(pager.count(), 2);
    assert_eq!(server.seen(path)[1].query, "nextPageToken=a+b");
}

#[test]
fn expired_page_token_says_how_far_it_got() {
    let server = TestServer::start();
    server.script(
        INVOICES,
        vec![
            Scripted::json(200, r#"{"invoices":[{"n":1},{"n":2}],"nextPageToken":"t1"}"#),
            Scripted::json(
                400,
                r#"{"errors":[{"code":"INVALID_REQUEST_PARAMETER","message":"The nextPageToken has expired.","details":""}]}"#,
            ),
        ],
    );
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    let mut pager = blocking::Pager::new(Pager::<InvoicePage>::new(
        client.inner().unwrap(),
        invoice_call(),
        TokenStyle::WithParams("nextPageToken"),
        None,
    ));
    assert!(pager.next().unwrap().is_ok());
    let err = pager.next().unwrap().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::PageTokenExpired);
    assert_eq!(err.items_yielded(), Some(2));
    assert!(pager.next().is_none(), "the pager stops after the error");
}

#[test]
fn repeated_page_token_stops_the_pager() {
    let server = TestServer::start();
    server.script(
        INVOICES,
        vec![
            Scripted::json(200, r#"{"invoices":[{"n":1}],"nextPageToken":"same"}"#),
            Scripted::json(200, r#"{"invoices":[{"n":2}],"nextPageToken":"same"}"#),
        ],
    );
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    let results: Vec<_> = blocking::Pager::new(Pager::<InvoicePage>::new(
        client.inner().unwrap(),
        invoice_call(),
        TokenStyle::WithParams("nextPageToken"),
        None,
    ))
    .items()
    .collect();
    assert_eq!(results.len(), 3);
    assert!(results[2]
        .as_ref()
        .unwrap_err()
        .to_string()
        .contains("already returned"));
}

#[test]
fn truncated_body_is_a_transport_error() {
    // A raw server that promises more bytes than it sends, then closes.
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let t = std::thread::spawn(move || {
        for _ in 0..3 {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let _ = s.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\nx-svc-RequestId: r-1\r\n\r\n{\"invoices\":[",
            );
        }
    });
    let mut s = abws::Settings::new(
        abws::Region::JP,
        abws::Credentials::AccessToken("Atza|fixed".into()),
    );
    s.endpoint = Some(format!("http://{addr}"));
    s.rate_limiting = false;
    let client = blocking::Client::new(s).unwrap();
    let err = client
        .run(|c| async move { c.execute(&detail_call("T")).await })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Transport);
    assert!(err.to_string().contains("cut off"), "{err}");
    assert_eq!(err.attempts(), 3, "a truncated read is retried");
    t.join().unwrap();
}

#[test]
fn rotated_client_secret_is_used_by_the_next_refresh() {
    let server = TestServer::start();
    server
        .shared
        .token_lifetime_s
        .store(1, std::sync::atomic::Ordering::SeqCst);
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    client
        .run(|c| async move { c.execute(&detail_call("A")).await })
        .unwrap();
    client
        .set_credentials(abws::Credentials::RefreshToken {
            client_id: "client-1".into(),
            client_secret: "secret-2".into(),
            refresh_token: format!("Atzr|refresh-{}", server.addr.port()).into(),
        })
        .unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    client
        .run(|c| async move { c.execute(&detail_call("B")).await })
        .unwrap();
    let bodies: Vec<String> = server
        .seen("/auth/O2/token")
        .into_iter()
        .map(|s| s.body)
        .collect();
    assert_eq!(bodies.len(), 2);
    assert!(bodies[0].contains("client_secret=secret-1"));
    assert!(bodies[1].contains("client_secret=secret-2"));
    assert!(bodies[1].contains("grant_type=refresh_token"));
}

#[test]
fn a_rotated_refresh_token_is_handed_over_before_use() {
    let server = TestServer::start();
    server.shared.token_script.lock().unwrap().push_back(Scripted::json(
        200,
        r#"{"access_token":"Atza|a1","token_type":"bearer","expires_in":1,"refresh_token":"Atzr|rotated"}"#,
    ));
    let persisted = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let p2 = persisted.clone();
    let client = blocking::Client::with_rotation(
        fast(server.settings()),
        Some(Arc::new(move |t: &str| {
            p2.lock().unwrap().push(t.to_string())
        })),
    )
    .unwrap();
    client
        .run(|c| async move { c.execute(&detail_call("A")).await })
        .unwrap();
    assert_eq!(*persisted.lock().unwrap(), vec!["Atzr|rotated".to_string()]);
    std::thread::sleep(Duration::from_millis(1100));
    client
        .run(|c| async move { c.execute(&detail_call("B")).await })
        .unwrap();
    let second = &server.seen("/auth/O2/token")[1].body;
    assert!(second.contains("refresh_token=Atzr%7Crotated"), "{second}");
}

#[test]
fn user_agent_names_the_library_and_version() {
    let server = TestServer::start();
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    client
        .run(|c| async move { c.execute(&detail_call("U")).await })
        .unwrap();
    let ua = server.seen("/ab-invoice/2026-02-01/invoices/U/detail")[0].headers["user-agent"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        ua.starts_with(&format!("abws/{} (Language=Rust;Platform=", abws::VERSION)),
        "{ua}"
    );
}

#[test]
fn a_forked_child_rebuilds_the_runtime_and_works() {
    let server = TestServer::start();
    let client = blocking::Client::new(fast(server.settings())).unwrap();
    client
        .run(|c| async move { c.execute(&detail_call("P")).await })
        .unwrap();
    // SAFETY: the child only uses the library (which rebuilds its runtime) and exits.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0);
    if pid == 0 {
        let ok = client
            .run(|c| async move { c.execute(&detail_call("CHILD")).await })
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
    assert_eq!(
        server
            .seen("/ab-invoice/2026-02-01/invoices/CHILD/detail")
            .len(),
        1
    );
    // The parent still works.
    client
        .run(|c| async move { c.execute(&detail_call("P2")).await })
        .unwrap();
}
