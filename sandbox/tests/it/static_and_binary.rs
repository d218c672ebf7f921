//! Static mode samples, the synchronous `spawn` entry point and the binary.

use crate::common::*;
use serde_json::{json, Value};
use std::io::BufRead;

#[tokio::test]
async fn static_mode_answers_only_samples() {
    let mut cfg = config();
    cfg.static_mode = true;
    let t = start_with(cfg).await;
    let sample_range = dates(FEED_DATES, "2020-07-09T00:00:00Z", "2020-08-01T00:00:00Z");
    let r = t.get_ok(TRANSACTIONS, &sample_range).await;
    assert_eq!(r.body["transactions"].as_array().unwrap().len(), 2);
    assert_eq!(
        t.get(
            TRANSACTIONS,
            &[sample_range[0], (FEED_DATES.1, "2020-08-02T00:00:00Z")]
        )
        .await
        .status,
        400
    );
    let sample = json!({"orderLineItems": [{"orderId": "111-1111111-1111111", "orderLineItemId": "11111111111111", "shipmentId": "SH1111111111"},
                                           {"orderId": "222-2222222-2222222", "orderLineItemId": "22222222222222", "shipmentId": "SH2222222222"}]});
    let r = t.post("/reconciliation/2021-01-08/invoices", &sample).await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.body["invoiceDetailsByOrderLineItems"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let r = t.post("/reconciliation/2021-01-08/invoices", &json!({"orderLineItems": [{"orderId": "x", "orderLineItemId": "y", "shipmentId": "z"}]})).await;
    assert_eq!(r.status, 400);
    // Report sample end to end.
    let r = t.post("/reports/2021-09-30/reports", &json!({"reportType": "GET_AB_INVOICE_PDF", "marketplaceIds": ["A1VC38T7YXB528"], "reportOptions": {"orderId": "111-1111111-1111111", "orderLineItemId": "11111111111111"}})).await;
    assert_eq!(r.status, 202);
    let report = r.body["reportId"].as_str().unwrap();
    let rep = t
        .get(&format!("/reports/2021-09-30/reports/{report}"), &[])
        .await;
    assert_eq!(rep.body["processingStatus"], "DONE");
    let document = rep.body["reportDocumentId"].as_str().unwrap();
    let doc = t
        .get(&format!("/reports/2021-09-30/documents/{document}"), &[])
        .await;
    let bytes = reqwest::get(doc.body["url"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!(bytes.status(), 200);
    assert_eq!(
        t.get("/cart/2025-04-30/carts", &[("region", "JP")])
            .await
            .status,
        400
    );
    let july = dates(ISSUE_DATES, "2020-07-01T00:00:00Z", "2020-07-31T23:59:59Z");
    t.get_ok("/ab-invoice/2026-02-01/invoices", &july).await;
    // Auth is still enforced.
    let r = into_r(t.http.get(t.url(TRANSACTIONS)).send().await.unwrap()).await;
    assert_eq!(r.status, 401);
}

#[test]
fn spawn_serves_synchronous_callers_and_stops_cleanly() {
    let sb = abws_sandbox::Sandbox::spawn(config()).unwrap();
    let base = sb.base_url();
    assert!(base.starts_with("http://127.0.0.1:"));
    let port = base.rsplit(':').next().unwrap().to_string();
    let mut s = std::net::TcpStream::connect(format!("127.0.0.1:{port}")).unwrap();
    use std::io::{Read, Write};
    s.write_all(b"GET /_sandbox/clock HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    assert!(out.starts_with("HTTP/1.1 200"));
    assert!(out.contains("2026-03-18"));
    sb.stop();
    // The port is released.
    assert!(std::net::TcpStream::connect(format!("127.0.0.1:{port}")).is_err());
}

#[tokio::test]
async fn binary_prints_json_and_serves() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_abws-sandbox"))
        .args([
            "--port",
            "0",
            "--seed",
            "42",
            "--today",
            "2026-03-18",
            "--rate-limits",
            "off",
            "--time-scale",
            "2",
            "--fault",
            "getTransactions,times=1,status=503",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    let base = v["base_url"].as_str().unwrap().to_string();
    let c = &v["credentials"];
    let http = reqwest::Client::new();
    let tok: Value = http
        .post(format!("{}/auth/O2/token", v["auth_url"].as_str().unwrap()))
        .form(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", c["refresh_token"].as_str().unwrap()),
            ("client_id", c["client_id"].as_str().unwrap()),
            ("client_secret", c["client_secret"].as_str().unwrap()),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let get = || {
        http.get(format!("{base}{TRANSACTIONS}"))
            .query(&FEED_DAY)
            .header("x-svc-access-token", tok["access_token"].as_str().unwrap())
            .send()
    };
    assert_eq!(get().await.unwrap().status(), 503);
    assert_eq!(get().await.unwrap().status(), 200);
    let _ = child.kill();
    let _ = child.wait();
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_abws-sandbox"))
        .args(["--bogus"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn public_types_are_send_and_sync() {
    fn check<X: Send + Sync>() {}
    check::<abws_sandbox::Sandbox>();
    check::<abws_sandbox::SandboxConfig>();
    check::<abws_sandbox::FaultRule>();
    check::<abws_sandbox::Credentials>();
}

#[test]
fn fault_text_form_parses() {
    use abws_sandbox::{FaultAction, FaultRule};
    let r =
        FaultRule::parse("/auth/O2/token,times=2,listener=api,redirect=307@http://127.0.0.1:1/x")
            .unwrap();
    assert_eq!(r.times, Some(2));
    assert_eq!(
        r.action,
        FaultAction::Redirect {
            status: 307,
            location: "http://127.0.0.1:1/x".into()
        }
    );
    let r = FaultRule::parse("placeOrder,probability=0.5,noprocess,reset").unwrap();
    assert!(!r.process && r.probability == Some(0.5));
    assert!(FaultRule::parse("x,times=1").is_err());
    assert!(FaultRule::parse("x,explode").is_err());
    let back = FaultRule::from_json(&r.to_json()).unwrap();
    assert_eq!(back, r);
}
