//! Reports and documents: state machine, PDF in gzip(zip), presigned expiry, CANCELLED, FATAL,
//! the error document, consolidated invoices and createReport validation.

use crate::common::*;
use serde_json::{json, Value};
use std::time::Duration;

const REPORTS: &str = "/reports/2021-09-30/reports";

fn fast() -> abws_sandbox::SandboxConfig {
    let mut c = config();
    c.time_scale = 200.0; // 20 s -> 0.1 s, 40 s -> 0.2 s, 5 min -> 1.5 s
    c
}

async fn create(t: &T, opts: Value) -> R {
    t.post(REPORTS, &json!({"reportType": "GET_AB_INVOICE_PDF", "marketplaceIds": ["A1VC38T7YXB528"], "reportOptions": opts})).await
}

/// Polls until an end state; returns the report and the statuses seen.
async fn wait(t: &T, id: &str) -> (Value, Vec<String>) {
    let mut seen = Vec::new();
    for _ in 0..100 {
        let r = t.get_ok(&format!("{REPORTS}/{id}"), &[]).await;
        let s = r.body["processingStatus"].as_str().unwrap().to_string();
        if seen.last() != Some(&s) {
            seen.push(s.clone());
        }
        if ["DONE", "CANCELLED", "FATAL"].contains(&s.as_str()) {
            return (r.body, seen);
        }
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
    panic!("report {id} never ended: {seen:?}");
}

async fn charge_line(t: &T, skip: usize) -> (String, String, String) {
    let jan_feb = dates(FEED_DATES, "2026-01-01T00:00:00Z", "2026-03-01T00:00:00Z");
    let r = t.get(TRANSACTIONS, &jan_feb).await;
    let s = t.dataset()["specials"].clone();
    let specials: Vec<&str> = [&s["fatalOrderId"], &s["errorDocumentOrderId"]]
        .iter()
        .filter_map(|v| v.as_str())
        .chain(
            s["digitalOrderIds"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|v| v.as_str()),
        )
        .collect();
    let tx = r.body["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| {
            x["transactionType"] == "CHARGE"
                && !specials.contains(&x["transactionLineItems"][0]["orderId"].as_str().unwrap())
        })
        .nth(skip)
        .unwrap()
        .clone();
    let li = &tx["transactionLineItems"][0];
    (
        li["orderId"].as_str().unwrap().into(),
        li["orderLineItemId"].as_str().unwrap().into(),
        tx["invoiceNumber"].as_str().unwrap().into(),
    )
}

async fn download(t: &T, doc: &str) -> (String, Vec<u8>) {
    let r = t
        .get(&format!("/reports/2021-09-30/documents/{doc}"), &[])
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["compressionAlgorithm"], "GZIP");
    let url = r.body["url"].as_str().unwrap().to_string();
    assert!(url.starts_with(&t.sb.documents_url()));
    // A plain GET, no auth header.
    let bytes = reqwest::get(&url).await.unwrap();
    assert_eq!(bytes.status(), 200);
    (url, bytes.bytes().await.unwrap().to_vec())
}

#[tokio::test]
async fn report_runs_to_done_and_pdf_names_the_invoice() {
    let t = start_with(fast()).await;
    let (order, line, invoice) = charge_line(&t, 0).await;
    let r = create(
        &t,
        json!({"orderId": order, "orderLineItemId": line, "documentType": "Invoice"}),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.text);
    // 0.0167 per service second is 3.34 per real second at time_scale 200: the header
    // gives the rate that holds on the real clock.
    assert_eq!(r.header("x-svc-ratelimit-limit"), Some("3.34"));
    let id = r.body["reportId"].as_str().unwrap().to_string();
    let (report, seen) = wait(&t, &id).await;
    assert_eq!(seen, ["IN_QUEUE", "IN_PROGRESS", "DONE"]);
    let doc = report["reportDocumentId"].as_str().unwrap();
    let (url, gz) = download(&t, doc).await;
    let head = t.http.head(&url).send().await.unwrap();
    assert_eq!(head.status(), 200);
    assert_eq!(
        head.headers()["content-length"].to_str().unwrap(),
        gz.len().to_string()
    );
    let files = unpack(&gz);
    assert_eq!(files.len(), 1);
    let pdf = &files[0].1;
    assert!(pdf.starts_with(b"%PDF-"));
    assert!(String::from_utf8_lossy(pdf).contains(&invoice));
    let c = t.sb.counters();
    assert_eq!(c["reportJobsCreated"], 1);
    assert_eq!(
        c["reportJobsPerInvoice"][&invoice], 1,
        "{}",
        c["reportJobsPerInvoice"]
    );
    let seen_docs = c["headersSeen"]["documents"].as_array().unwrap();
    assert!(seen_docs
        .iter()
        .all(|h| h["headers"].get("x-svc-access-token").is_none()));
    // Presigned addresses expire (5 virtual minutes = 1.5 s here).
    tokio::time::sleep(Duration::from_millis(1700)).await;
    let r = reqwest::get(&url).await.unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.text().await.unwrap().contains("Request has expired"));
    let r = reqwest::get(format!(
        "{}/documents/{doc}?X-Sbx-Signature=forged",
        t.sb.documents_url()
    ))
    .await
    .unwrap();
    assert_eq!(r.status(), 403);
}

#[tokio::test]
async fn cancelled_fatal_and_error_document() {
    let t = start_with(fast()).await;
    let s = t.dataset()["specials"].clone();
    let first_line = |order: &str| {
        let t = &t;
        let order = order.to_string();
        async move {
            let r = t
                .get(
                    &format!("/reports/2021-01-08/orders/{order}"),
                    &[("includeLineItems", "true")],
                )
                .await;
            r.body["orders"][0]["lineItems"][0]["orderLineItemId"]
                .as_str()
                .unwrap()
                .to_string()
        }
    };
    let digital = s["digitalOrderIds"][0].as_str().unwrap();
    let fatal = s["fatalOrderId"].as_str().unwrap();
    let errdoc = s["errorDocumentOrderId"].as_str().unwrap();
    let mut ids = Vec::new();
    for o in [digital, fatal, errdoc] {
        let l = first_line(o).await;
        let r = create(&t, json!({"orderId": o, "orderLineItemId": l})).await;
        assert_eq!(r.status, 202);
        ids.push((r.body["reportId"].as_str().unwrap().to_string(), l));
    }
    assert_eq!(wait(&t, &ids[0].0).await.0["processingStatus"], "CANCELLED");
    let fatal_report = wait(&t, &ids[1].0).await.0;
    assert_eq!(fatal_report["processingStatus"], "FATAL");
    assert!(fatal_report.get("reportDocumentId").is_none());
    let done = wait(&t, &ids[2].0).await.0;
    assert_eq!(done["processingStatus"], "DONE");
    let (_, gz) = download(&t, done["reportDocumentId"].as_str().unwrap()).await;
    let files = unpack(&gz);
    let err: Value = serde_json::from_slice(&files[0].1).unwrap();
    assert_eq!(err["errorCode"], "CLIENT_ERROR");
    assert_eq!(err["inputParams"]["requestPreferences"]["orderId"], errdoc);
    assert_eq!(
        err["inputParams"]["requestPreferences"]["orderLineItemId"],
        ids[2].1.as_str()
    );
    assert!(err["errorMessage"].is_string());
}

#[tokio::test]
async fn consolidated_invoice_report() {
    let t = start_with(fast()).await;
    let pending = t.dataset()["specials"]["pendingConsolidatedInvoice"]
        .as_str()
        .unwrap()
        .to_string();
    let r = create(&t, json!({"invoiceId": pending})).await;
    assert_eq!(r.status, 400);
    assert!(r.message().contains("documentType"));
    let r = create(&t, json!({"invoiceId": pending, "documentType": "Invoice"})).await;
    assert_eq!(r.status, 202);
    let (rep, _) = wait(&t, r.body["reportId"].as_str().unwrap()).await;
    let (_, gz) = download(&t, rep["reportDocumentId"].as_str().unwrap()).await;
    let files = unpack(&gz);
    assert!(String::from_utf8_lossy(&files[0].1).contains(&pending));
}

#[tokio::test]
async fn create_report_validation() {
    let t = start_with(fast()).await;
    let (order, line, _) = charge_line(&t, 1).await;
    let r = t
        .post(
            REPORTS,
            &json!({"marketplaceIds": ["JP"], "reportOptions": {"orderId": order}}),
        )
        .await;
    assert!(r.status == 400 && r.message().contains("reportType"));
    let r = t
        .post(
            REPORTS,
            &json!({"reportType": "OTHER", "marketplaceIds": ["JP"], "reportOptions": {}}),
        )
        .await;
    assert!(r.status == 400 && r.message().contains("reportType"));
    let r = t.post(REPORTS, &json!({"reportType": "GET_AB_INVOICE_PDF", "marketplaceIds": ["JP", "US"], "reportOptions": {"orderId": order, "orderLineItemId": line}})).await;
    assert!(
        r.status == 400 && r.message().contains("marketplaceIds"),
        "{}",
        r.text
    );
    let r = t
        .post(
            REPORTS,
            &json!({"reportType": "GET_AB_INVOICE_PDF", "reportOptions": {}}),
        )
        .await;
    assert!(r.status == 400 && r.message().contains("marketplaceIds"));
    let r = t
        .post(
            REPORTS,
            &json!({"reportType": "GET_AB_INVOICE_PDF", "marketplaceIds": ["JP"]}),
        )
        .await;
    assert!(r.status == 400 && r.message().contains("reportOptions"));
    let r = create(&t, json!({"orderId": order})).await;
    assert!(r.status == 400 && r.message().contains("orderLineItemId"));
    // In the EU orderId alone is enough (the JP order has no EU documents: CANCELLED).
    let r = t.post(REPORTS, &json!({"reportType": "GET_AB_INVOICE_PDF", "marketplaceIds": ["DE", "FR"], "reportOptions": {"orderId": order}})).await;
    assert_eq!(r.status, 202);
    let r = create(
        &t,
        json!({"orderId": order, "orderLineItemId": line, "documentType": "Receipt"}),
    )
    .await;
    assert!(r.status == 400 && r.message().contains("documentType"));
    let r = create(
        &t,
        json!({"orderId": "D01-9999999-9999999", "orderLineItemId": "1"}),
    )
    .await;
    assert_eq!(r.status, 404);
    assert_eq!(t.get(&format!("{REPORTS}/123"), &[]).await.status, 404);
    assert_eq!(
        t.get("/reports/2021-09-30/documents/nope", &[])
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn reports_older_than_30_days_are_gone() {
    let mut cfg = config();
    cfg.time_scale = 3_000_000.0; // 30 days ~ 0.86 s
    cfg.token_lifetime = Duration::from_secs(400 * 86_400);
    let t = start_with(cfg).await;
    let (order, line, _) = charge_line(&t, 2).await;
    let r = create(&t, json!({"orderId": order, "orderLineItemId": line})).await;
    let id = r.body["reportId"].as_str().unwrap().to_string();
    assert_eq!(r.status, 202, "{}", r.text);
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let r = t.get(&format!("{REPORTS}/{id}"), &[]).await;
    assert_eq!(r.status, 404);
}
