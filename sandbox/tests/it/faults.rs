//! Fault injection (every kind), the control path, counters and rate limiting.

use crate::common::*;
use abws_sandbox::{FaultAction, FaultRule, RateLimits};
use reqwest::Method;
use serde_json::json;
use std::time::{Duration, Instant};

const Q: [(&str, &str); 2] = [
    ("feedStartDate", "2026-03-01T00:00:00Z"),
    ("feedEndDate", "2026-03-03T00:00:00Z"),
];

async fn fault(t: &T, v: serde_json::Value) {
    let r = t.control(Method::POST, "/_sandbox/faults", Some(v)).await;
    assert_eq!(r.status, 201, "{}", r.text);
}

async fn raw(t: &T) -> Result<reqwest::Response, reqwest::Error> {
    t.req(Method::GET, TRANSACTIONS).query(&Q).send().await
}

#[tokio::test]
async fn status_faults_count_down_and_keep_headers() {
    let t = start().await;
    fault(&t, json!({"path": "getTransactions", "times": 2, "action": {"status": 503, "headers": {"Retry-After": "1"}}})).await;
    for _ in 0..2 {
        let r = t.get(TRANSACTIONS, &Q).await;
        assert_eq!(r.status, 503);
        assert!(r.body["errors"][0]["code"].is_string());
        assert_eq!(r.header("retry-after"), Some("1"));
        assert!(r.header("x-svc-requestid").is_some());
        assert_eq!(r.header("x-svc-ratelimit-limit"), Some("0.5"));
    }
    assert_eq!(t.get(TRANSACTIONS, &Q).await.status, 200);
    // Custom body, path-prefix match, probability.
    fault(&t, json!({"path": "/reconciliation/", "probability": 1.0, "times": 1, "action": {"status": 500, "body": {"errors": [{"code": "InternalFailure", "message": "x", "details": ""}]}}})).await;
    let r = t.get(TRANSACTIONS, &Q).await;
    assert_eq!((r.status, r.code()), (500, "InternalFailure"));
    fault(
        &t,
        json!({"path": "getTransactions", "probability": 0.0, "action": {"status": 500}}),
    )
    .await;
    assert_eq!(t.get(TRANSACTIONS, &Q).await.status, 200);
    let list = t.control(Method::GET, "/_sandbox/faults", None).await;
    assert_eq!(list.body.as_array().unwrap().len(), 1);
    assert_eq!(
        t.control(Method::DELETE, "/_sandbox/faults", None)
            .await
            .status,
        204
    );
    assert_eq!(
        t.control(Method::GET, "/_sandbox/faults", None)
            .await
            .body
            .as_array()
            .unwrap()
            .len(),
        0
    );
    let c = t.sb.counters();
    assert_eq!(c["requests"]["getTransactions"]["503"], 2);
    assert_eq!(c["faultsFired"]["status"], 3);
    let bad = t
        .control(
            Method::POST,
            "/_sandbox/faults",
            Some(json!({"path": "x", "action": {"explode": true}})),
        )
        .await;
    assert_eq!(bad.status, 400);
}

/// A rule's body (rendered once, when it is installed, and shared) is sent the same on
/// every firing: numbers as the JSON value holds them, a string body verbatim.
#[tokio::test]
async fn canned_bodies_are_sent_the_same_on_every_firing() {
    let t = start().await;
    fault(&t, json!({"path": "getTransactions", "times": 2, "action": {"status": 200, "body": {"transactions": [], "n": 1.10}}})).await;
    let first = raw(&t).await.unwrap().text().await.unwrap();
    let second = raw(&t).await.unwrap().text().await.unwrap();
    assert_eq!(first, second);
    assert!(first.contains("\"n\":1.1"), "{first}");
    fault(&t, json!({"path": "getTransactions", "times": 1, "action": {"status": 200, "body": "{\"transactions\": [ ]}"}})).await;
    assert_eq!(
        raw(&t).await.unwrap().text().await.unwrap(),
        "{\"transactions\": [ ]}"
    );
    assert_eq!(t.get(TRANSACTIONS, &Q).await.status, 200);
}

#[tokio::test]
async fn delay_reset_truncate_chunking() {
    let t = start().await;
    t.sb.inject(FaultRule::new("getTransactions", FaultAction::Delay { delay_ms: 300 }).times(1));
    let s = Instant::now();
    assert_eq!(t.get(TRANSACTIONS, &Q).await.status, 200);
    assert!(s.elapsed() >= Duration::from_millis(300));

    for action in [
        json!({"reset": "before_headers"}),
        json!({"reset_after_bytes": 20}),
        json!({"truncate": true}),
        json!({"broken_chunking": true}),
    ] {
        fault(
            &t,
            json!({"path": "getTransactions", "times": 1, "action": action}),
        )
        .await;
        let failed = match raw(&t).await {
            Err(_) => true,
            Ok(r) => r.bytes().await.is_err(),
        };
        assert!(failed, "{action} did not fail");
        assert_eq!(t.get(TRANSACTIONS, &Q).await.status, 200, "after {action}");
    }
    let c = t.sb.counters();
    for k in [
        "reset",
        "reset_after_bytes",
        "truncate",
        "broken_chunking",
        "delay",
    ] {
        assert_eq!(c["faultsFired"][k], 1, "{k}");
    }
}

#[tokio::test]
async fn reset_after_processing_still_creates_the_order() {
    let t = start().await;
    let p = standard_product(&t, PRODUCT_SEARCH, &JP_IN_STOCK, 0).await;
    let body = json!({"externalId": "lost-1", "attributes": [], "expectations": [], "lineItems": [{"externalId": "1", "quantity": 1, "attributes": [
        {"attributeType": "SelectedProductReference", "productReference": {"id": p["asin"]}},
        {"attributeType": "SelectedBuyingOptionReference", "buyingOptionReference": {"id": p["includedDataTypes"]["OFFERS"][0]["offerId"]}}]}]});
    t.sb.inject(FaultRule::new("placeOrder", FaultAction::ResetBeforeHeaders).times(1));
    assert!(t
        .req(Method::POST, "/ordering/2022-10-30/orders")
        .json(&body)
        .send()
        .await
        .is_err());
    let again = t.post("/ordering/2022-10-30/orders", &body).await;
    assert_eq!(again.status, 200);
    let c = t.sb.counters();
    assert_eq!(c["placeOrderRequests"]["lost-1"], 2);
    assert_eq!(c["ordersCreated"]["lost-1"], 1);
}

#[tokio::test]
async fn throttle_stall_non_json_oversized_redirect() {
    let t = start().await;
    t.sb.inject(FaultRule::new("getReport", FaultAction::BytesPerSecond(600)).times(1));
    let s = Instant::now();
    let r = t.get("/reports/2021-09-30/reports/1", &[]).await;
    assert_eq!(r.status, 404);
    assert!(r.body["errors"].is_array());
    assert!(
        s.elapsed() >= Duration::from_millis(300),
        "{:?}",
        s.elapsed()
    );

    t.sb.inject(FaultRule::new("getTransactions", FaultAction::StallAfterBytes(10)).times(1));
    let e = t
        .req(Method::GET, TRANSACTIONS)
        .query(&Q)
        .timeout(Duration::from_millis(500))
        .send()
        .await;
    let timed_out = match e {
        Err(e) => e.is_timeout(),
        Ok(r) => r
            .bytes()
            .await
            .map_err(|e| e.is_timeout())
            .err()
            .unwrap_or(false),
    };
    assert!(timed_out);

    t.sb.inject(FaultRule::new("getTransactions", FaultAction::NonJson).times(1));
    let r = t.get(TRANSACTIONS, &Q).await;
    assert_eq!(r.status, 200);
    assert!(r.body.is_null() && r.text.contains("<html"));
    assert!(r.header("content-type").unwrap().starts_with("text/html"));

    t.sb.inject(FaultRule::new("getTransactions", FaultAction::Oversized(200_000)).times(1));
    let r = t.get(TRANSACTIONS, &Q).await;
    assert!(r.text.len() >= 199_000);

    let target = format!("{}/elsewhere", t.sb.foreign_url());
    t.sb.inject(
        FaultRule::new(
            "getTransactions",
            FaultAction::Redirect {
                status: 302,
                location: target.clone(),
            },
        )
        .times(1),
    );
    let r = t.get(TRANSACTIONS, &Q).await;
    assert_eq!(r.status, 302);
    assert_eq!(r.header("location"), Some(target.as_str()));
    // The foreign listener records whatever reaches it.
    let r = t
        .http
        .get(&target)
        .header("x-probe", "1")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let c = t.sb.counters();
    let foreign = c["headersSeen"]["foreign"].as_array().unwrap();
    assert!(foreign
        .iter()
        .any(|h| h["headers"]["x-probe"] == "1" && h["path"] == "/elsewhere"));
}

#[tokio::test]
async fn faults_on_token_endpoint_and_documents_host() {
    let t = start().await;
    fault(
        &t,
        json!({"path": "/auth/O2/token", "times": 1, "action": {"status": 500}}),
    )
    .await;
    let c = t.sb.credentials();
    let form = refresh_form(&c, &c.refresh_token);
    assert_eq!(t.token(&form).await.status, 500);
    assert_eq!(t.token(&form).await.status, 200);
    fault(&t, json!({"path": "/documents/", "listener": "documents", "times": 1, "action": {"status": 503}})).await;
    // The fault once, then the documents host's own answer.
    for status in [503, 403] {
        let url = format!("{}/documents/x", t.sb.documents_url());
        assert_eq!(t.http.get(url).send().await.unwrap().status(), status);
    }
}

#[tokio::test]
async fn connection_ids_and_counter_reset() {
    let t = start().await;
    assert_eq!(t.get(TRANSACTIONS, &Q).await.status, 200);
    assert_eq!(t.get(TRANSACTIONS, &Q).await.status, 200);
    let c = t.sb.counters();
    let conns: Vec<u64> = c["connections"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["operation"] == "getTransactions")
        .map(|x| x["connection"].as_u64().unwrap())
        .collect();
    assert_eq!(conns.len(), 2);
    assert_eq!(conns[0], conns[1], "keep-alive reuses the connection");
    t.get_on_a_new_connection(TRANSACTIONS, &Q).await;
    let c = t.sb.counters();
    let last = c["connections"].as_array().unwrap().last().unwrap()["connection"]
        .as_u64()
        .unwrap();
    assert_ne!(last, conns[0]);
    assert!(c["headersSeen"]["api"]
        .as_array()
        .unwrap()
        .iter()
        .any(|h| h["headers"]["x-svc-access-token"].is_string()));
    assert_eq!(
        t.control(Method::POST, "/_sandbox/reset-counters", None)
            .await
            .status,
        204
    );
    let c = t
        .control(Method::GET, "/_sandbox/counters", None)
        .await
        .body;
    assert_eq!(c["connections"].as_array().unwrap().len(), 0);
    assert_eq!(c["requests"], json!({}));
}

#[tokio::test]
async fn connections_used_counts_distinct_connections_per_listener() {
    let t = start().await;
    t.control(Method::POST, "/_sandbox/reset-counters", None)
        .await;
    for _ in 0..3 {
        assert_eq!(t.get(TRANSACTIONS, &Q).await.status, 200);
    }
    let c = t.sb.counters();
    assert_eq!(c["connectionsUsed"]["api"], 1, "keep-alive: one connection");
    t.get_on_a_new_connection(TRANSACTIONS, &Q).await;
    let c = t.sb.counters();
    assert_eq!(c["connectionsUsed"]["api"], 2);
    // The control path is not counted (a benchmark reads the counters between rounds).
    let c = t
        .control(Method::GET, "/_sandbox/counters", None)
        .await
        .body;
    assert_eq!(c["connectionsUsed"]["api"], 2);
    t.control(Method::POST, "/_sandbox/reset-counters", None)
        .await;
    assert_eq!(t.sb.counters()["connectionsUsed"], json!({}));
}

#[tokio::test]
async fn rate_limits_429_and_runtime_change() {
    let mut cfg = config();
    cfg.rate_limits = RateLimits::Spec;
    let t = start_with(cfg).await;
    let list = "/ab-invoice/2026-02-01/invoices";
    let q = [
        ("invoiceIssueStartDate", "2026-02-01T00:00:00Z"),
        ("invoiceIssueEndDate", "2026-02-02T00:00:00Z"),
    ];
    for _ in 0..10 {
        assert_eq!(t.get(list, &q).await.status, 200);
    }
    let r = t.get(list, &q).await;
    assert_eq!((r.status, r.code()), (429, "QuotaExceeded"));
    assert_eq!(
        r.message(),
        "You exceeded your quota for the requested resource."
    );
    assert_eq!(r.header("x-svc-ratelimit-limit"), Some("0.5"));
    assert!(r.header("x-svc-requestid").is_some());
    // Buckets are per operation.
    assert_eq!(t.get(TRANSACTIONS, &Q).await.status, 200);
    let c = t.sb.counters();
    assert_eq!(
        c["throttled"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum::<u64>(),
        1
    );
    assert_eq!(c["requests"]["getInvoices"]["429"], 1);
    // Lower/raise the rate at run time; the header follows.
    let r = t
        .control(
            Method::POST,
            "/_sandbox/rate",
            // 2 a second: the three requests below have 500 ms to arrive before a token
            // comes back (at 20 a second, 50 ms was too little on a loaded machine).
            Some(json!({"operation": "getInvoices", "rate": 2, "burst": 2})),
        )
        .await;
    assert_eq!(r.status, 200);
    let r = t.get(list, &q).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("x-svc-ratelimit-limit"), Some("2.0"));
    assert_eq!(t.get(list, &q).await.status, 200);
    assert_eq!(t.get(list, &q).await.status, 429);
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(t.get(list, &q).await.status, 200);
    assert_eq!(
        t.control(
            Method::POST,
            "/_sandbox/rate",
            Some(json!({"operation": "nope", "rate": 1}))
        )
        .await
        .status,
        400
    );
    assert!(t.sb.set_rate("getInvoices", 0.25, 1));
    assert!(!t.sb.set_rate("nope", 1.0, 1));
    assert_eq!(
        t.get(list, &q).await.header("x-svc-ratelimit-limit"),
        Some("0.25")
    );
    t.sb.reset_counters();
    assert_eq!(t.sb.counters()["requests"], json!({}));
}

#[tokio::test]
async fn rate_limit_overrides_and_time_scale() {
    let mut cfg = config();
    cfg.rate_limits = RateLimits::Overrides(
        [("getTransactions".to_string(), (1.0, 1))]
            .into_iter()
            .collect(),
    );
    cfg.time_scale = 2.0;
    let t = start_with(cfg).await;
    // 1 per virtual second is 2 per real second at scale 2: the header gives the latter.
    assert_eq!(
        t.get(TRANSACTIONS, &Q)
            .await
            .header("x-svc-ratelimit-limit"),
        Some("2.0")
    );
    // The second request has 500 ms to arrive (at scale 10 it had 100 ms).
    assert_eq!(t.get(TRANSACTIONS, &Q).await.status, 429);
    // One token per virtual second = 500 ms real at scale 2.
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(t.get(TRANSACTIONS, &Q).await.status, 200);
}

/// A rule aimed at an operationId the sandbox does not have (a misspelling) would never
/// fire: every way of installing one refuses it, naming the operationIds there are.
#[tokio::test]
async fn a_rule_for_an_unknown_operation_is_refused_with_the_names() {
    let t = start().await;
    let r = t
        .control(
            Method::POST,
            "/_sandbox/faults",
            Some(json!({"path": "getInvoice", "action": {"status": 503}})),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(
        r.body["error"]
            .as_str()
            .unwrap()
            .starts_with("path \"getInvoice\" is not an operationId"),
        "{}",
        r.text
    );
    assert!(
        r.text
            .contains("getInvoices, getInvoiceDetailByInvoiceNumber"),
        "{}",
        r.text
    );
    let installed = t.control(Method::GET, "/_sandbox/faults", None).await;
    assert_eq!(installed.body.as_array().unwrap().len(), 0);
    let rule = FaultRule::new("getInvoice", FaultAction::ResetBeforeHeaders);
    let e = t.sb.try_inject(rule.clone()).unwrap_err();
    assert!(
        e.starts_with("path \"getInvoice\" is not") && e.contains("placeOrder"),
        "{e}"
    );
    let e = FaultRule::parse("getInvoice,times=1,status=503").unwrap_err();
    assert!(e.contains("getTransactions"), "{e}");
    let e = abws_sandbox::Sandbox::start(abws_sandbox::SandboxConfig {
        faults: vec![rule],
        ..Default::default()
    })
    .await
    .err()
    .expect("a sandbox with that rule does not start");
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    // Prefixes, '*' and every operationId are taken.
    for path in ["/ab-invoice", "*", "getInvoices", "getReportDocument"] {
        t.sb.try_inject(FaultRule::new(path, FaultAction::ResetBeforeHeaders).times(0))
            .unwrap();
    }
    t.sb.clear_faults();
}
