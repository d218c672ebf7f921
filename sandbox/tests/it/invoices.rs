//! Invoices: listing, paging, page-token binding and expiry, details, line items, errors and
//! the data set's money consistency.

use crate::common::*;
use rust_decimal::Decimal;
use serde_json::Value;

const LIST: &str = "/ab-invoice/2026-02-01/invoices";
const FEB: [(&str, &str); 2] = [
    ("invoiceIssueStartDate", "2026-02-01T00:00:00Z"),
    ("invoiceIssueEndDate", "2026-02-28T23:59:59Z"),
];

async fn all_invoices(t: &T, q: &[(&str, &str)]) -> Vec<Value> {
    let mut out = Vec::new();
    for r in t.pages(LIST, q, false).await {
        assert_eq!(r.header("x-svc-ratelimit-limit"), Some("0.5"));
        let page = r.body["invoices"].as_array().unwrap();
        assert!(page.len() <= 10);
        out.extend(page.iter().cloned());
    }
    out
}

fn amount(v: &Value) -> Decimal {
    dec(&v["amount"])
}

#[tokio::test]
async fn previous_month_has_many_invoices_and_totals_add_up() {
    let t = start().await;
    let invoices = all_invoices(&t, &FEB).await;
    assert!(invoices.len() >= 40, "only {} invoices", invoices.len());
    let mut kinds = std::collections::HashSet::new();
    let mut issuers = std::collections::HashSet::new();
    let mut rates = std::collections::HashSet::new();
    let mut periodic = 0;
    for inv in &invoices {
        kinds.insert(inv["invoiceMetadata"]["type"].as_str().unwrap().to_string());
        if inv["consolidationType"] == "PERIODIC" {
            periodic += 1;
        }
        let n = inv["invoiceMetadata"]["invoiceNumber"].as_str().unwrap();
        let d = t
            .get(&format!("{LIST}/{n}/detail"), &[("region", "JP")])
            .await;
        assert_eq!(d.status, 200);
        let det = &d.body["invoiceDetail"];
        let total = amount(&det["totalAmount"]);
        let arts = det["artifacts"].as_array().unwrap();
        let billing = arts
            .iter()
            .find(|a| a["artifactType"] == "BillingDetails")
            .unwrap();
        let mut sum = Decimal::ZERO;
        for a in billing["amountDetails"].as_array().unwrap() {
            if a["type"] == "amountDue" {
                assert_eq!(amount(&a["amount"]), total);
            } else {
                sum += amount(&a["amount"]);
            }
        }
        assert_eq!(sum, total, "BillingDetails of {n}");
        let tax = arts
            .iter()
            .find(|a| a["artifactType"] != "BillingDetails")
            .unwrap();
        issuers.insert(tax["artifactType"].as_str().unwrap().to_string());
        let mut incl = Decimal::ZERO;
        for b in tax["taxBreakdown"].as_array().unwrap() {
            rates.insert(b["taxRate"].as_str().unwrap().to_string());
            assert_eq!(
                amount(&b["inclusiveTotal"]),
                amount(&b["exclusiveTotal"]) + amount(&b["taxAmount"])
            );
            incl += amount(&b["inclusiveTotal"]);
        }
        assert_eq!(incl, total);
        let qualified = tax["artifactType"] == "PurchaseFromQualifiedIssuer";
        assert_eq!(det["issuer"]["registrationNumber"].is_string(), qualified);
    }
    assert!(
        kinds.contains("STANDARD") && kinds.contains("CREDIT_MEMO"),
        "{kinds:?}"
    );
    assert!(
        issuers.contains("PurchaseFromQualifiedIssuer")
            && issuers.contains("PurchaseFromOtherIssuer")
    );
    assert!(rates.contains("8%") && rates.contains("10%"));
    assert!(periodic > 0);
}

#[tokio::test]
async fn line_items_page_and_end_with_reversal_units() {
    let t = start().await;
    let invoices = all_invoices(
        &t,
        &[
            ("invoiceIssueStartDate", "2025-12-01T00:00:00Z"),
            ("invoiceIssueEndDate", "2026-03-17T00:00:00Z"),
        ],
    )
    .await;
    let mut saw_two_pages = false;
    let mut saw_reversal = false;
    for inv in invoices
        .iter()
        .filter(|i| i["invoiceMetadata"]["type"] == "STANDARD")
    {
        let n = inv["invoiceMetadata"]["invoiceNumber"].as_str().unwrap();
        let path = format!("{LIST}/{n}/lineItems");
        let pages = t.pages(&path, &[("region", "JP")], false).await;
        let items: Vec<&Value> = pages
            .iter()
            .flat_map(|r| r.body["lineItems"].as_array().unwrap())
            .collect();
        saw_two_pages |= pages.len() > 1;
        // CHARGE lines first, then REFUND reversal units.
        let first_refund = items
            .iter()
            .position(|i| i["transactionType"] == "REFUND")
            .unwrap_or(items.len());
        assert!(items[first_refund..]
            .iter()
            .all(|i| i["transactionType"] == "REFUND"));
        saw_reversal |= first_refund < items.len();
        if saw_two_pages && saw_reversal {
            break;
        }
    }
    assert!(saw_two_pages && saw_reversal);
}

#[tokio::test]
async fn page_tokens_are_bound_and_expire() {
    let mut cfg = config();
    cfg.page_token_lifetime = std::time::Duration::from_secs(60);
    cfg.time_scale = 30.0; // 60 virtual seconds = 2 s: room for a stall before it ends
    let t = start_with(cfg).await;
    let tk = t.next_token(LIST, &FEB).await;
    let other_end = ("invoiceIssueEndDate", "2026-02-27T00:00:00Z");
    t.assert_token_bound((LIST, &FEB), &tk, other_end, "INVALID_REQUEST_PARAMETER")
        .await;
    let r = t.get(LIST, &[FEB[0], FEB[1], ("nextPageToken", &tk)]).await;
    assert_eq!(r.status, 200);
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    let r = t.get(LIST, &[FEB[0], FEB[1], ("nextPageToken", &tk)]).await;
    assert_eq!((r.status, r.code()), (400, "INVALID_REQUEST_PARAMETER"));
    assert!(r.message().contains("expired"));
    let c = t.sb.counters();
    assert_eq!(c["pageTokenMismatches"], 1);
    assert_eq!(c["pageTokenExpired"], 1);
}

#[tokio::test]
async fn documented_errors() {
    let t = start().await;
    let cases: Vec<(Vec<(&str, &str)>, &str)> = vec![
        (vec![FEB[1]], "invoiceIssueStartDate"),
        (vec![FEB[0]], "invoiceIssueEndDate"),
        (
            vec![
                ("invoiceIssueStartDate", "2026-02-10T00:00:00Z"),
                ("invoiceIssueEndDate", "2026-02-01T00:00:00Z"),
            ],
            "after",
        ),
        (
            vec![
                ("invoiceIssueStartDate", "2024-01-01T00:00:00Z"),
                ("invoiceIssueEndDate", "2026-02-01T00:00:00Z"),
            ],
            "366",
        ),
        (
            vec![
                ("invoiceIssueStartDate", "2026-02-01T00:00:00Z"),
                ("invoiceIssueEndDate", "2027-02-01T00:00:00Z"),
            ],
            "future",
        ),
        (
            vec![("invoiceIssueStartDate", "yesterday"), FEB[1]],
            "yesterday",
        ),
        (vec![FEB[0], FEB[1], ("region", "XX")], "region"),
        (
            vec![FEB[0], FEB[1], ("paymentMethodTypes", "VISA")],
            "paymentMethodTypes",
        ),
        (
            vec![FEB[0], FEB[1], ("nextPageToken", "bogus")],
            "nextPageToken",
        ),
    ];
    for (q, needle) in cases {
        let r = t.get(LIST, &q).await;
        r.assert_refused("INVALID_REQUEST_PARAMETER", needle, &q);
        assert_eq!(r.body["errors"][0]["details"], "");
    }
    // A search for a region without invoices (AU has no order history) is empty.
    let r = t.get(LIST, &[FEB[0], FEB[1], ("region", "AU")]).await;
    assert_eq!(r.body["invoices"].as_array().unwrap().len(), 0);
    // Invoice number checks.
    let r = t.get(&format!("{LIST}//detail"), &[("region", "JP")]).await;
    assert_eq!(r.status, 400);
    assert!(r.message().contains("invoiceNumber"));
    let r = t
        .get(&format!("{LIST}/bad%20number/detail"), &[("region", "JP")])
        .await;
    assert_eq!(r.status, 400);
    let r = t
        .get(&format!("{LIST}/JPNOSUCH0001/detail"), &[("region", "JP")])
        .await;
    assert_eq!(r.status, 404);
    assert!(r.body["errors"].is_array());
    let n = t.dataset()["previousMonthInvoices"][0]
        .as_str()
        .unwrap()
        .to_string();
    let r = t.get(&format!("{LIST}/{n}/detail"), &[]).await;
    assert_eq!(r.status, 400);
    assert!(r.message().contains("region"));
    let r = t
        .get(
            &format!("{LIST}/{n}/lineItems"),
            &[("region", "JP"), ("nextPageToken", "nope")],
        )
        .await;
    assert_eq!(r.status, 400);
}

#[tokio::test]
async fn same_seed_same_data_and_unknown_path_404() {
    let a = start().await;
    let b = start().await;
    let x = all_invoices(&a, &FEB).await;
    let y = all_invoices(&b, &FEB).await;
    assert_eq!(x, y);
    let mut cfg = config();
    cfg.seed = 7;
    let c = start_with(cfg).await;
    assert_ne!(all_invoices(&c, &FEB).await, x);
    let r = a.get("/ab-invoice/2026-02-01/nothing", &[]).await;
    assert_eq!(r.status, 404);
    assert!(r.header("x-svc-requestid").is_some());
}
