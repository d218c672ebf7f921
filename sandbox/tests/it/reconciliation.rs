//! Reconciliation: transactions (token-only paging, sums, referenced invoices) and invoice
//! details by order line item (consistency with invoices, Pending consolidated number, limits).

use crate::common::*;
use rust_decimal::Decimal;
use serde_json::{json, Value};

const DETAILS: &str = "/reconciliation/2021-01-08/invoices";
const RANGE: [(&str, &str); 2] = [
    ("feedStartDate", "2025-11-01T00:00:00Z"),
    ("feedEndDate", "2026-03-18T00:00:00Z"),
];

async fn all_transactions(t: &T) -> Vec<Value> {
    let mut out = Vec::new();
    // Token-only paging.
    for r in t.pages(TRANSACTIONS, &RANGE, true).await {
        let page = r.body["transactions"].as_array().unwrap();
        assert!(page.len() <= 50);
        out.extend(page.iter().cloned());
    }
    out
}

#[tokio::test]
async fn transactions_add_up_and_reference_existing_invoices() {
    let t = start().await;
    let txs = all_transactions(&t).await;
    assert!(txs.len() > 100);
    let mut types = std::collections::HashSet::new();
    let mut scales = std::collections::HashSet::new();
    let mut empty_currency = false;
    for tx in &txs {
        types.insert(tx["transactionType"].as_str().unwrap().to_string());
        let amount = tx["amount"]["amount"].as_str().unwrap();
        scales.insert(amount.split('.').nth(1).map(|d| d.len()).unwrap_or(0));
        let mut sum = Decimal::ZERO;
        for li in tx["transactionLineItems"].as_array().unwrap() {
            let parts = dec(&li["principalAmount"]["amount"])
                + dec(&li["shippingCharge"]["amount"])
                + dec(&li["discount"]["amount"])
                + dec(&li["tax"]["amount"]);
            assert_eq!(parts, dec(&li["totalAmount"]["amount"]));
            empty_currency |=
                li["discount"]["currencyCode"] == "" && li["discount"]["amount"] == "0";
            sum += dec(&li["totalAmount"]["amount"]);
        }
        assert_eq!(sum, dec(&tx["amount"]["amount"]), "{}", tx["transactionId"]);
        if tx["transactionType"] == "REFUND" {
            assert!(amount.starts_with('-'));
            assert_eq!(
                tx["associatedTransactionDetails"].as_array().unwrap().len(),
                1
            );
        }
    }
    assert!(types.contains("CHARGE") && types.contains("REFUND"));
    assert!(scales.contains(&1) && scales.contains(&2));
    assert!(empty_currency);
    // Every transaction's invoice exists and has the same total.
    for tx in txs.iter().step_by(9) {
        let n = tx["invoiceNumber"].as_str().unwrap();
        let d = t
            .get(
                &format!("/ab-invoice/2026-02-01/invoices/{n}/detail"),
                &[("region", "JP")],
            )
            .await;
        assert_eq!(d.status, 200, "invoice {n}");
        assert_eq!(
            dec(&d.body["invoiceDetail"]["totalAmount"]["amount"]),
            dec(&tx["amount"]["amount"])
        );
    }
}

#[tokio::test]
async fn transaction_errors_and_token_binding() {
    let t = start().await;
    for (q, needle) in [
        (vec![RANGE[1]], "feedStartDate"),
        (vec![RANGE[0]], "feedEndDate"),
        (
            vec![("feedStartDate", "07/09/2020"), RANGE[1]],
            "07/09/2020",
        ),
        (
            vec![
                ("feedStartDate", "2026-03-10T00:00:00Z"),
                ("feedEndDate", "2026-03-01T00:00:00Z"),
            ],
            "after",
        ),
    ] {
        let r = t.get(TRANSACTIONS, &q).await;
        r.assert_refused("INVALID_REQUEST_PARAMETER", needle, &q);
        assert_eq!(r.body["errors"][0]["details"], "");
    }
    let tk = t.next_token(TRANSACTIONS, &RANGE).await;
    // Same parameters alongside the token are accepted; different ones are not.
    assert_eq!(
        t.get(TRANSACTIONS, &[RANGE[0], RANGE[1], ("nextPageToken", &tk)])
            .await
            .status,
        200
    );
    let other_start = ("feedStartDate", "2025-11-02T00:00:00Z");
    let listing = (TRANSACTIONS, &RANGE[..]);
    t.assert_token_bound(listing, &tk, other_start, "INVALID_REQUEST_PARAMETER")
        .await;
}

fn line_ref(tx: &Value, i: usize) -> Value {
    let li = &tx["transactionLineItems"][i];
    json!({"orderId": li["orderId"], "orderLineItemId": li["orderLineItemId"], "shipmentId": li["shipmentId"]})
}

#[tokio::test]
async fn invoice_details_match_invoices() {
    let t = start().await;
    let txs = all_transactions(&t).await;
    let charges: Vec<&Value> = txs
        .iter()
        .filter(|x| x["transactionType"] == "CHARGE")
        .take(20)
        .collect();
    let inputs: Vec<Value> = charges.iter().map(|x| line_ref(x, 0)).collect();
    let r = t.post(DETAILS, &json!({"orderLineItems": inputs})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let out = r.body["invoiceDetailsByOrderLineItems"].as_array().unwrap();
    assert_eq!(out.len(), 20);
    for (o, tx) in out.iter().zip(&charges) {
        assert_eq!(o["orderLineItem"], line_ref(tx, 0));
        let d = &o["invoiceDetails"][0];
        assert_eq!(d["invoiceNumber"], tx["invoiceNumber"]);
        assert_eq!(d["invoiceType"], "STANDARD");
        assert!(d["associatedInvoiceNumber"].is_null());
        assert_eq!(dec(&d["invoiceTotal"]), dec(&tx["amount"]["amount"]));
        let mut tax_total = Decimal::ZERO;
        for b in d["tax"].as_array().unwrap() {
            assert_eq!(
                dec(&b["inclusiveTotal"]["amount"]),
                dec(&b["exclusiveTotal"]["amount"]) + dec(&b["amount"]["amount"])
            );
            tax_total += dec(&b["inclusiveTotal"]["amount"]);
        }
        assert_eq!(tax_total, dec(&d["invoiceTotal"]));
        let items: Decimal = d["transactionDataItems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| dec(&i["totalAmount"]["amount"]))
            .sum();
        let fees: Decimal = d["fees"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| dec(&f["tax"]["inclusiveTotal"]["amount"]))
            .sum();
        assert_eq!(items + fees, dec(&d["invoiceTotal"]));
    }
    // Credit memos carry the associated invoice.
    let refund = txs
        .iter()
        .find(|x| x["transactionType"] == "REFUND")
        .unwrap();
    let r = t
        .post(DETAILS, &json!({"orderLineItems": [line_ref(refund, 0)]}))
        .await;
    let details = r.body["invoiceDetailsByOrderLineItems"][0]["invoiceDetails"]
        .as_array()
        .unwrap();
    let memo = details
        .iter()
        .find(|d| d["invoiceType"] == "CREDIT_MEMO")
        .unwrap();
    assert_eq!(memo["invoiceNumber"], refund["invoiceNumber"]);
    assert!(memo["associatedInvoiceNumber"].is_string());
}

#[tokio::test]
async fn pending_consolidated_number_then_real_number() {
    let t = start().await;
    let pending = t.dataset()["specials"]["pendingConsolidatedInvoice"]
        .as_str()
        .unwrap()
        .to_string();
    let txs = all_transactions(&t).await;
    let mut target = None;
    for tx in &txs {
        let r = t
            .post(DETAILS, &json!({"orderLineItems": [line_ref(tx, 0)]}))
            .await;
        let c = &r.body["invoiceDetailsByOrderLineItems"][0]["invoiceDetails"][0]
            ["consolidatedInvoiceDetails"];
        if c.is_object() && c["invoiceNumber"] == "Pending" {
            target = Some(line_ref(tx, 0));
            break;
        }
    }
    let target = target.expect("a line of the pending consolidated invoice");
    let r = t
        .post(DETAILS, &json!({"orderLineItems": [target.clone()]}))
        .await;
    assert_eq!(
        r.body["invoiceDetailsByOrderLineItems"][0]["invoiceDetails"][0]
            ["consolidatedInvoiceDetails"]["invoiceNumber"],
        "Pending"
    );
    let r = t.post(DETAILS, &json!({"orderLineItems": [target]})).await;
    assert_eq!(
        r.body["invoiceDetailsByOrderLineItems"][0]["invoiceDetails"][0]
            ["consolidatedInvoiceDetails"]["invoiceNumber"],
        pending.as_str()
    );
}

#[tokio::test]
async fn invoice_details_errors() {
    let t = start().await;
    let one = json!({"orderId": "D01-0000000-0000000", "orderLineItemId": "1", "shipmentId": "S"});
    let r = t
        .post(DETAILS, &json!({"orderLineItems": vec![one.clone(); 26]}))
        .await;
    assert_eq!((r.status, r.code()), (400, "INVALID_REQUEST_PARAMETER"));
    assert!(r.message().contains("25"));
    let r = t.post(DETAILS, &json!({})).await;
    assert!(r.status == 400 && r.message().contains("orderLineItems"));
    let r = t
        .post(DETAILS, &json!({"orderLineItems": [{"orderId": "x"}]}))
        .await;
    assert!(r.status == 400 && r.message().contains("orderLineItemId"));
    let r = t.post(DETAILS, &json!({"orderLineItems": [one]})).await;
    assert_eq!(r.status, 404);
    for (content_type, body, status) in [
        ("text/plain", "{}", 415),
        ("application/json", "{not json", 400),
    ] {
        let r = t
            .req(reqwest::Method::POST, DETAILS)
            .header("content-type", content_type)
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), status, "{content_type} {body}");
    }
}
