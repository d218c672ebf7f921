//! Every region group end to end at its regional address (`/na`, `/eu`, `/fe`): invoices,
//! reconciliation, reports and documents, carts, products, ordering, reporting and tracking,
//! each with its group's rules (NA: PDFs only for Pay by Invoice; EU: VAT invoices and
//! documents by orderId alone; FE: JP as before), plus the addresses' scoping, the
//! cost-estimation addressType and the last search page.

use crate::common::*;
use reqwest::Method;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::time::Duration;

const INVOICES: &str = "/ab-invoice/2026-02-01/invoices";
const RECON_INVOICES: &str = "/reconciliation/2021-01-08/invoices";
const REPORTS: &str = "/reports/2021-09-30/reports";
const CARTS: &str = "/cart/2025-04-30/carts";
const PRODUCTS: &str = "/products/2020-08-26";
const FEB: [(&str, &str); 2] = [
    ("invoiceIssueStartDate", "2026-02-01T00:00:00Z"),
    ("invoiceIssueEndDate", "2026-02-28T23:59:59Z"),
];
const FEED: [(&str, &str); 2] = [
    ("feedStartDate", "2026-02-01T00:00:00Z"),
    ("feedEndDate", "2026-03-01T00:00:00Z"),
];

/// (address prefix, region, currency, locale, marketplace id, ISO country of addresses)
const REGIONS: [(&str, &str, &str, &str, &str, &str); 9] = [
    ("na", "US", "USD", "en-US", "ATVPDKIKX0DER", "US"),
    ("na", "CA", "CAD", "en-CA", "A2EUQ1WTGCTBG2", "CA"),
    ("na", "MX", "MXN", "es-MX", "A1AM78C64UM0Y8", "MX"),
    ("eu", "UK", "GBP", "en-GB", "A1F83G8C2ARO7P", "GB"),
    ("eu", "DE", "EUR", "de-DE", "A1PA6795UKMFR9", "DE"),
    ("eu", "FR", "EUR", "fr-FR", "A13V1IB3VIYZZH", "FR"),
    ("eu", "IT", "EUR", "it-IT", "APJ6JRA9NG5V4", "IT"),
    ("eu", "ES", "EUR", "es-ES", "A1RKKUPIHCS9HS", "ES"),
    ("fe", "JP", "JPY", "ja-JP", "A1VC38T7YXB528", "JP"),
];

/// The three groups: one marketplace each for the operations that need only one.
const GROUPS: [usize; 3] = [0, 3, 8];

fn fast() -> abws_sandbox::SandboxConfig {
    let mut c = config();
    c.time_scale = 200.0;
    c
}

fn at(prefix: &str, path: &str) -> String {
    if prefix.is_empty() {
        path.to_string()
    } else {
        format!("/{prefix}{path}")
    }
}

/// The `key` rows of every page of a token-paged listing.
async fn all_pages(
    t: &T,
    path: &str,
    q: &[(&str, &str)],
    key: &str,
    token_only: bool,
) -> Vec<Value> {
    let pages = t.pages(path, q, token_only).await;
    pages
        .iter()
        .flat_map(|r| r.body[key].as_array().unwrap().iter().cloned())
        .collect()
}

/// The sum of the amounts at `pointer` in each element of `list`, all in `currency`.
fn sum_of(list: &Value, pointer: &str, currency: &str) -> Decimal {
    let amounts = list.as_array().unwrap().iter();
    amounts
        .map(|x| amount_of(x.pointer(pointer).unwrap(), currency))
        .sum()
}

fn amount_of(m: &Value, currency: &str) -> Decimal {
    assert_eq!(m["currencyCode"], currency, "{m}");
    dec(&m["amount"])
}

/// Decimal places written in an amount's text.
fn scale_of(m: &Value) -> usize {
    let t = match &m["amount"] {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    t.split_once('.').map(|(_, f)| f.len()).unwrap_or(0)
}

async fn wait(t: &T, prefix: &str, id: &str) -> Value {
    for _ in 0..200 {
        let r = t.get_ok(&at(prefix, &format!("{REPORTS}/{id}")), &[]).await;
        let s = r.body["processingStatus"].as_str().unwrap();
        if ["DONE", "CANCELLED", "FATAL"].contains(&s) {
            return r.body;
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
    panic!("report {id} never ended");
}

async fn report(t: &T, prefix: &str, marketplace: &str, opts: Value) -> Value {
    let r = t
        .post(
            &at(prefix, REPORTS),
            &json!({"reportType": "GET_AB_INVOICE_PDF", "marketplaceIds": [marketplace], "reportOptions": opts}),
        )
        .await;
    assert_eq!(r.status, 202, "{}", r.text);
    wait(t, prefix, r.body["reportId"].as_str().unwrap()).await
}

/// The PDFs of a DONE report: (file name, text of the PDF).
async fn documents(t: &T, prefix: &str, report: &Value) -> Vec<(String, String)> {
    let id = report["reportDocumentId"].as_str().unwrap();
    let d = t
        .get_ok(
            &at(prefix, &format!("/reports/2021-09-30/documents/{id}")),
            &[],
        )
        .await;
    let bytes = t
        .http
        .get(d.body["url"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    unpack(&bytes)
        .into_iter()
        .map(|(name, b)| {
            assert!(b.starts_with(b"%PDF-1.4"), "{name}");
            (name, String::from_utf8_lossy(&b).to_string())
        })
        .collect()
}

#[tokio::test]
async fn every_marketplace_has_a_month_that_adds_up() {
    let t = start().await;
    let ds = t.dataset();
    for (prefix, region, cur, _, marketplace, country) in REGIONS {
        let info = &ds["regions"][region];
        let expected: BTreeSet<String> = info["previousMonthInvoices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert!(expected.len() >= 5, "{region}: {info}");
        let mut q = FEB.to_vec();
        q.push(("region", region));
        let list = all_pages(&t, &at(prefix, INVOICES), &q, "invoices", false).await;
        let got: BTreeSet<String> = list
            .iter()
            .map(|i| {
                assert_eq!(i["invoiceMetadata"]["region"], region);
                i["invoiceMetadata"]["invoiceNumber"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(got, expected, "{region}");
        let decimals = if cur == "JPY" { 0 } else { 2 };
        let mut totals = std::collections::HashMap::new();
        for n in got.iter().take(12) {
            let r = t
                .get_ok(
                    &at(prefix, &format!("{INVOICES}/{n}/detail")),
                    &[("region", region)],
                )
                .await;
            let d = &r.body["invoiceDetail"];
            let total = amount_of(&d["totalAmount"], cur);
            assert!(
                scale_of(&d["totalAmount"]) <= decimals,
                "{region} {}",
                d["totalAmount"]
            );
            assert_eq!(d["billToAddress"]["countryCode"], country);
            let billing = &d["artifacts"][0]["amountDetails"];
            let sum: Decimal = billing
                .as_array()
                .unwrap()
                .iter()
                .filter(|a| a["type"] != "amountDue")
                .map(|a| amount_of(&a["amount"], cur))
                .sum();
            assert_eq!(sum, total, "{region} {n} billing details");
            let breakdown = d["artifacts"][1]["taxBreakdown"].as_array().unwrap();
            let mut inclusive = Decimal::ZERO;
            for b in breakdown {
                let (i, e, x) = (
                    amount_of(&b["inclusiveTotal"], cur),
                    amount_of(&b["exclusiveTotal"], cur),
                    amount_of(&b["taxAmount"], cur),
                );
                assert_eq!(i, e + x);
                inclusive += i;
                let rate = b["taxRate"].as_str().unwrap();
                let allowed = info["taxRates"]
                    .as_object()
                    .unwrap()
                    .values()
                    .any(|v| v == rate);
                assert!(
                    allowed,
                    "{region}: rate {rate} not one of {}",
                    info["taxRates"]
                );
            }
            assert_eq!(inclusive, total, "{region} {n} tax breakdown");
            let lines = all_pages(
                &t,
                &at(prefix, &format!("{INVOICES}/{n}/lineItems")),
                &[("region", region)],
                "lineItems",
                false,
            )
            .await;
            // A line item holds what the spec lists, no amounts (docs/sandbox.md).
            let own: Vec<&Value> = lines
                .iter()
                .filter(|l| l["invoiceNumber"] == n.as_str())
                .collect();
            assert!(!own.is_empty(), "{region} {n} line items");
            for l in own {
                let keys: Vec<&str> = l["lineItemMetadata"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .map(String::as_str)
                    .collect();
                assert_eq!(keys, ["orderLineItemId"], "{region} {n}");
            }
            let method = d["paymentMethod"].as_str().unwrap();
            if region == "JP" {
                assert_eq!(method, "Business Credit Account (BCA)");
            } else {
                assert!(
                    method == "Pay by Invoice" || method.starts_with("Visa ending in"),
                    "{method}"
                );
            }
            // EU invoices name a VAT-registered issuer unless the seller has no number.
            if prefix == "eu" {
                let reg = &d["issuer"]["registrationNumber"];
                let qualified = d["artifacts"][1]["artifactType"] == "PurchaseFromQualifiedIssuer";
                assert_eq!(reg.is_string(), qualified, "{region} {}", d["issuer"]);
                if let Some(r) = reg.as_str() {
                    assert!(
                        r.starts_with(if region == "UK" { "GB" } else { region }),
                        "{r}"
                    );
                }
            }
            totals.insert(n.clone(), total);
        }
        // The month's transactions of the marketplace match the invoices' totals.
        let txs = all_pages(&t, &at(prefix, TRANSACTIONS), &FEED, "transactions", true).await;
        let mine: Vec<&Value> = txs
            .iter()
            .filter(|x| x["marketplaceId"] == marketplace)
            .collect();
        assert!(!mine.is_empty(), "{region}");
        let mut checked = 0;
        for x in mine {
            let amount = amount_of(&x["amount"], cur);
            let lines: Decimal = x["transactionLineItems"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| {
                    let parts: Decimal = ["principalAmount", "shippingCharge", "discount", "tax"]
                        .iter()
                        .map(|k| dec(&l[*k]["amount"]))
                        .sum();
                    assert_eq!(parts, dec(&l["totalAmount"]["amount"]));
                    dec(&l["totalAmount"]["amount"])
                })
                .sum();
            assert_eq!(lines, amount, "{region} {}", x["transactionId"]);
            if cur != "JPY" {
                assert_eq!(scale_of(&x["amount"]), 2, "{}", x["amount"]);
            }
            let instrument = x["paymentInstrumentType"].as_str().unwrap();
            assert_eq!(
                instrument == "CreditCard",
                x.get("paymentInstrumentLast4Digits").is_some()
            );
            if let Some(total) = totals.get(x["invoiceNumber"].as_str().unwrap()) {
                assert_eq!(*total, amount);
                checked += 1;
            }
        }
        assert!(
            checked > 0,
            "{region}: no transaction matched a checked invoice"
        );
    }
}

#[tokio::test]
async fn region_less_listings_and_regions_follow_the_address() {
    let t = start().await;
    let ds = t.dataset();
    let markets = |group: &str| -> BTreeSet<&'static str> {
        REGIONS
            .iter()
            .filter(|r| r.0 == group)
            .map(|r| r.4)
            .collect()
    };
    // Transactions: the address's group only; the root lists FE, as it always did.
    for (prefix, group) in [("na", "na"), ("eu", "eu"), ("fe", "fe"), ("", "fe")] {
        let path = at(prefix, TRANSACTIONS);
        let txs = all_pages(&t, &path, &FEED, "transactions", true).await;
        let seen: BTreeSet<&str> = txs
            .iter()
            .map(|x| x["marketplaceId"].as_str().unwrap())
            .collect();
        let want = markets(group);
        assert!(
            seen.is_subset(&want) && !seen.is_empty(),
            "{prefix}: {seen:?}"
        );
        if group == "eu" {
            assert_eq!(
                seen.len(),
                5,
                "one token serves every EU marketplace: {seen:?}"
            );
        }
        // Invoices without a region: every marketplace of the address's group.
        let path = at(prefix, INVOICES);
        let inv = all_pages(&t, &path, &FEB, "invoices", false).await;
        let regions: BTreeSet<&str> = inv
            .iter()
            .map(|i| i["invoiceMetadata"]["region"].as_str().unwrap())
            .collect();
        let want: BTreeSet<&str> = REGIONS
            .iter()
            .filter(|r| r.0 == group)
            .map(|r| r.1)
            .collect();
        assert_eq!(regions, want, "{prefix}");
    }
    // paymentMethodTypes=BCA leaves out card-paid invoices.
    let all = all_pages(
        &t,
        &at("na", INVOICES),
        &[FEB[0], FEB[1], ("region", "US")],
        "invoices",
        false,
    )
    .await;
    let bca = all_pages(
        &t,
        &at("na", INVOICES),
        &[
            FEB[0],
            FEB[1],
            ("region", "US"),
            ("paymentMethodTypes", "BCA"),
        ],
        "invoices",
        false,
    )
    .await;
    assert!(
        bca.len() < all.len() && !bca.is_empty(),
        "{} of {}",
        bca.len(),
        all.len()
    );
    for i in &bca {
        let n = i["invoiceMetadata"]["invoiceNumber"].as_str().unwrap();
        let d = t
            .get(
                &at("na", &format!("{INVOICES}/{n}/detail")),
                &[("region", "US")],
            )
            .await;
        assert_eq!(d.body["invoiceDetail"]["paymentMethod"], "Pay by Invoice");
    }
    // A region of another group is refused at a regional address (400, the service's codes).
    let us_line = &ds["regions"]["US"]["payByInvoiceLine"];
    let (o, l, s) = (
        us_line["orderId"].as_str().unwrap(),
        us_line["orderLineItemId"].as_str().unwrap(),
        us_line["shipmentId"].as_str().unwrap(),
    );
    let cases: Vec<(R, &str)> = vec![
        (t.get(&at("eu", INVOICES), &[FEB[0], FEB[1], ("region", "US")]).await, "INVALID_REQUEST_PARAMETER"),
        (t.get(&at("eu", CARTS), &[("region", "US")]).await, "INVALID_REQUEST_PARAMETER"),
        (
            t.get(&at("fe", "/reports/2025-06-09/shipmentLineItemReports"), &[("orderStartDate", "2026-02-01T00:00:00Z"), ("orderEndDate", "2026-03-01T00:00:00Z"), ("region", "DE")]).await,
            "InvalidInput",
        ),
        (
            t.get(&at("eu", &format!("/ab-tracking/2025-07-02/orders/{o}/shipments/{s}/packages/100")), &[("region", "US")]).await,
            "InvalidInput",
        ),
        (t.get(&at("na", &format!("{PRODUCTS}/products")), &[("productRegion", "JP"), ("locale", "ja-JP")]).await, "INVALID_REQUEST_PARAMETER"),
        (
            t.post(&at("na", REPORTS), &json!({"reportType": "GET_AB_INVOICE_PDF", "marketplaceIds": ["A1VC38T7YXB528"], "reportOptions": {"orderId": o, "orderLineItemId": l}})).await,
            "INVALID_REQUEST_PARAMETER",
        ),
    ];
    for (r, code) in cases {
        assert_eq!((r.status, r.code()), (400, code), "{}", r.text);
        assert!(
            r.message().contains("not served by this address"),
            "{}",
            r.message()
        );
    }
    // Records of another group do not exist at a regional address.
    let r = t
        .get(&at("eu", &format!("/reports/2021-01-08/orders/{o}")), &[])
        .await;
    assert_eq!(r.status, 404);
    let r = t
        .post(
            &at("fe", RECON_INVOICES),
            &json!({"orderLineItems": [{"orderId": o, "orderLineItemId": l}]}),
        )
        .await;
    assert_eq!(r.status, 404);
    // ... while the root serves every region by name and id.
    let r = t.get(&format!("/reports/2021-01-08/orders/{o}"), &[]).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["orders"][0]["orderNetTotal"]["currencyCode"], "USD");
    // IN and AU: valid regions without an order history.
    for (prefix, region) in [("eu", "IN"), ("fe", "AU")] {
        let r = t
            .get(&at(prefix, INVOICES), &[FEB[0], FEB[1], ("region", region)])
            .await;
        assert_eq!(r.status, 200);
        assert_eq!(r.body["invoices"].as_array().unwrap().len(), 0);
        assert_eq!(ds["regions"][region]["orders"], 0);
    }
    let d = t.sb.describe();
    assert!(d["group_urls"]["EU"].as_str().unwrap().ends_with("/eu"));
    assert_eq!(
        t.sb.group_url("gb"),
        d["group_urls"]["EU"].as_str().unwrap()
    );
}

#[tokio::test]
async fn na_pdfs_exist_only_for_pay_by_invoice_orders() {
    let t = start_with(fast()).await;
    let ds = t.dataset();
    for region in ["US", "CA", "MX"] {
        let r = &ds["regions"][region];
        let card = &r["cardLine"];
        let done = report(
            &t,
            "na",
            region,
            json!({"orderId": card["orderId"], "orderLineItemId": card["orderLineItemId"]}),
        )
        .await;
        assert_eq!(done["processingStatus"], "CANCELLED", "{done}");
        assert!(done.get("reportDocumentId").is_none());
        let why = done["processingStatusMessage"].as_str().unwrap();
        assert!(
            why.contains("Pay by Invoice")
                && why.contains("card")
                && why.contains(card["orderId"].as_str().unwrap()),
            "{why}"
        );
        let pbi = &r["payByInvoiceLine"];
        let done = report(
            &t,
            "na",
            region,
            json!({"orderId": pbi["orderId"], "orderLineItemId": pbi["orderLineItemId"], "shipmentId": pbi["shipmentId"], "documentType": "Invoice"}),
        )
        .await;
        assert_eq!(done["processingStatus"], "DONE", "{done}");
        assert!(done.get("processingStatusMessage").is_none());
        let docs = documents(&t, "na", &done).await;
        assert_eq!(docs.len(), 1);
        let (name, text) = &docs[0];
        assert!(name.starts_with(region), "{name}");
        let cur = REGIONS.iter().find(|x| x.1 == region).unwrap().2;
        assert!(
            text.contains(&format!("(Invoice {}) Tj", name.trim_end_matches(".pdf"))),
            "{text}"
        );
        assert!(
            text.contains(cur) && text.contains("Pay by Invoice"),
            "{text}"
        );
    }
    // Outside the EU the order line item is required.
    let pbi = &ds["regions"]["US"]["payByInvoiceLine"];
    let r = t
        .post(&at("na", REPORTS), &json!({"reportType": "GET_AB_INVOICE_PDF", "marketplaceIds": ["US"], "reportOptions": {"orderId": pbi["orderId"]}}))
        .await;
    assert_eq!(r.status, 400);
    assert!(r.message().contains("orderLineItemId"));
}

#[tokio::test]
async fn eu_documents_by_order_id_alone() {
    let t = start_with(fast()).await;
    let ds = t.dataset();
    for region in ["UK", "DE", "FR", "IT", "ES"] {
        let cm = &ds["regions"][region]["creditMemoLine"];
        if cm.is_null() {
            continue;
        }
        let order = cm["orderId"].as_str().unwrap();
        // Every document kind of the order: its invoices and credit notes.
        let done = report(&t, "eu", region, json!({"orderId": order})).await;
        assert_eq!(done["processingStatus"], "DONE", "{region} {done}");
        let docs = documents(&t, "eu", &done).await;
        assert!(
            docs.len() >= 2,
            "{region}: {:?}",
            docs.iter().map(|d| &d.0).collect::<Vec<_>>()
        );
        assert!(docs.iter().any(|(_, text)| text.contains("(VAT Invoice ")));
        assert!(docs
            .iter()
            .any(|(_, text)| text.contains("(VAT Credit Note ")));
        for (_, text) in &docs {
            assert!(
                text.contains("VAT") && text.contains(if region == "UK" { "GBP" } else { "EUR" })
            );
        }
        // documentType narrows it; still by orderId alone.
        let done = report(
            &t,
            "eu",
            region,
            json!({"orderId": order, "documentType": "Credits"}),
        )
        .await;
        let credits = documents(&t, "eu", &done).await;
        assert!(
            !credits.is_empty() && credits.iter().all(|(_, x)| x.contains("(VAT Credit Note "))
        );
        assert!(credits.len() < docs.len());
    }
    // Card-paid EU orders have documents too; digital orders have none.
    let card = &ds["regions"]["DE"]["cardLine"];
    let done = report(&t, "eu", "DE", json!({"orderId": card["orderId"]})).await;
    assert_eq!(done["processingStatus"], "DONE", "{done}");
    for region in ["UK", "DE"] {
        let digital = ds["regions"][region]["digitalOrderIds"][0]
            .as_str()
            .unwrap();
        let done = report(&t, "eu", region, json!({"orderId": digital})).await;
        assert_eq!(done["processingStatus"], "CANCELLED");
        assert!(done["processingStatusMessage"]
            .as_str()
            .unwrap()
            .contains("digital"));
    }
    // A JP order asked for at the root with EU marketplaces: CANCELLED, saying why.
    let jp = ds["specials"]["errorDocumentOrderId"].as_str().unwrap();
    let r = t
        .post(REPORTS, &json!({"reportType": "GET_AB_INVOICE_PDF", "marketplaceIds": ["DE"], "reportOptions": {"orderId": jp}}))
        .await;
    let done = wait(&t, "", r.body["reportId"].as_str().unwrap()).await;
    assert_eq!(done["processingStatus"], "CANCELLED");
    assert!(done["processingStatusMessage"]
        .as_str()
        .unwrap()
        .contains("FE"));
}

#[tokio::test]
async fn reconciliation_invoice_data_per_group() {
    let t = start().await;
    let ds = t.dataset();
    for (prefix, region, cur, ..) in REGIONS.iter().filter(|r| r.1 != "CA") {
        let line = if *region == "JP" {
            let page = t.get(&at(prefix, TRANSACTIONS), &FEED).await;
            let l = &page.body["transactions"][0]["transactionLineItems"][0];
            json!({"orderId": l["orderId"], "orderLineItemId": l["orderLineItemId"], "shipmentId": l["shipmentId"]})
        } else {
            ds["regions"][region]["creditMemoLine"].clone()
        };
        if line.is_null() {
            continue;
        }
        let r = t
            .post(
                &at(prefix, RECON_INVOICES),
                &json!({"orderLineItems": [line]}),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
        for d in r.body["invoiceDetailsByOrderLineItems"][0]["invoiceDetails"]
            .as_array()
            .unwrap()
        {
            assert_eq!(d["currencyCode"], *cur);
            // The JP-only fields come for JP only.
            for k in [
                "invoiceType",
                "associatedInvoiceNumber",
                "associatedInvoiceDate",
            ] {
                assert_eq!(d.get(k).is_some(), *region == "JP", "{region} {k}");
            }
            let total = dec(&d["invoiceTotal"]);
            let items = sum_of(&d["transactionDataItems"], "/totalAmount", cur);
            let fees = sum_of(&d["fees"], "/tax/inclusiveTotal", cur);
            assert_eq!(items + fees, total, "{region}");
            let tax = sum_of(&d["tax"], "/inclusiveTotal", cur);
            assert_eq!(tax, total);
        }
    }
}

#[tokio::test]
async fn carts_products_orders_reporting_and_tracking_per_group() {
    let t = start().await;
    let ds = t.dataset();
    for g in GROUPS {
        let (prefix, region, cur, locale, _, country) = REGIONS[g];
        // Products in the marketplace's currency, sold by its sellers.
        let q = [("productRegion", region), ("locale", locale)];
        let mut sq = q.to_vec();
        sq.extend([
            ("keywords", "paper,gloves,coffee"),
            ("facets", "OFFERS,IMAGES"),
        ]);
        let search = at(prefix, &format!("{PRODUCTS}/products"));
        let product = standard_product(&t, &search, &sq, 21).await;
        let asin = product["asin"].as_str().unwrap();
        let offer = &product["includedDataTypes"]["OFFERS"][0];
        let offer_id = offer["offerId"].as_str().unwrap();
        let price = amount_of(&offer["price"]["value"], cur);
        if region != "JP" {
            assert!(offer["merchant"]["merchantId"]
                .as_str()
                .unwrap()
                .starts_with(&format!("S-{region}")));
        }
        let r = t
            .get(&at(prefix, &format!("{PRODUCTS}/products/{asin}")), &q)
            .await;
        assert_eq!(r.status, 200);
        let r = t
            .get(
                &at(prefix, &format!("{PRODUCTS}/products/{asin}/offers")),
                &q,
            )
            .await;
        assert_eq!(
            amount_of(&r.body["offers"][0]["price"]["value"], cur),
            price
        );
        let r = t
            .post(
                &at(prefix, &format!("{PRODUCTS}/products/getProductsByAsins")),
                &json!({"productIds": [asin], "productRegion": region, "locale": locale}),
            )
            .await;
        assert_eq!(r.body["products"][0]["asin"], asin);
        let r = t
            .send(
                Method::POST,
                &at(prefix, &format!("{PRODUCTS}/offers/getOffersByOfferIds")),
                &[("inclusionsForOffers", "price")],
                &json!({"offersByOfferIdsRequest": [{"offerId": offer_id}], "productRegion": region, "locale": locale}),
            )
            .await;
        assert_eq!(
            amount_of(&r.body["offers"][0]["price"]["value"], cur),
            price
        );
        // The user's cart of the marketplace.
        let rq = [("region", region)];
        let carts = t.get(&at(prefix, CARTS), &rq).await;
        let cart = carts.body["cartDetailsList"][0]["id"]
            .as_str()
            .unwrap()
            .to_string();
        let items = format!("{CARTS}/{cart}/items");
        let r = t.get(&at(prefix, &format!("{CARTS}/{cart}")), &rq).await;
        amount_of(&r.body["attributes"][0]["amount"], cur);
        let r = t
            .send(Method::POST, &at(prefix, &items), &rq, &json!({"items": [{"productIdentifier": asin, "buyingOptionIdentifier": offer_id, "quantity": 2, "externalId": "x-1"}]}))
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
        let item = r.body["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["productIdentifier"] == asin)
            .unwrap();
        let item_id = item["itemId"].as_str().unwrap().to_string();
        assert_eq!(amount_of(&item["price"], cur), price);
        let r = t
            .send(
                Method::PATCH,
                &at(prefix, &items),
                &rq,
                &json!({"items": [{"itemId": item_id, "quantity": 3}]}),
            )
            .await;
        assert_eq!(r.status, 200);
        let est = t
            .send(
                Method::POST,
                &at(prefix, &format!("{CARTS}/{cart}/totalPurchaseCostEstimations")),
                &rq,
                &json!({"address": {"addressType": "PhysicalAddress", "fullName": "Accounts Payable", "addressLine1": "1 Main St", "city": "City", "stateOrRegion": "State", "postalCode": "12345", "countryCode": country}}),
            )
            .await;
        assert_eq!(est.status, 200, "{}", est.text);
        let charges = est.body["charges"].as_array().unwrap();
        assert_eq!(charges.len(), 4, "{}", est.text);
        let sub = amount_of(&charges[0]["amount"], cur);
        let tax = amount_of(&charges[2]["amount"], cur);
        assert!(
            sub > Decimal::ZERO && tax <= sub / Decimal::from(4),
            "{region}: {sub} {tax}"
        );
        let r = t
            .send(Method::DELETE, &at(prefix, &items), &rq, &json!({}))
            .await;
        assert_eq!(r.status, 204);
        // An order in the marketplace, then its report line and its package.
        let order = json!({
            "externalId": format!("regions-{region}"),
            "lineItems": [{"externalId": "1", "quantity": 1, "attributes": [
                {"attributeType": "SelectedProductReference", "productReference": {"id": asin, "productReferenceType": "ProductIdentifier"}},
                {"attributeType": "SelectedBuyingOptionReference", "buyingOptionReference": {"id": offer_id, "buyingOptionReferenceType": "BuyingOptionIdentifier"}}],
                "expectations": [{"expectationType": "ExpectedUnitPrice", "amount": {"currencyCode": cur, "amount": serde_json::from_str::<Value>(&price.to_string()).unwrap()}}]}],
            "attributes": [{"attributeType": "Region", "region": region}],
            "expectations": [],
        });
        let r = t
            .post(&at(prefix, "/ordering/2022-10-30/orders"), &order)
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
        let accepted = &r.body["lineItems"][0]["acceptedItems"][0]["artifacts"];
        assert_eq!(amount_of(&accepted[0]["amount"], cur), price, "{}", r.text);
        let order_id = r.body["acceptanceArtifacts"][0]["identifier"]
            .as_str()
            .unwrap()
            .to_string();
        if region != "JP" {
            assert!(
                order_id.starts_with(&format!(
                    "{}-",
                    &ds["regions"][region]["payByInvoiceLine"]["orderId"]
                        .as_str()
                        .unwrap()[..3]
                )),
                "{order_id}"
            );
        }
        let r = t
            .get(
                &at(prefix, &format!("/reports/2021-01-08/orders/{order_id}")),
                &[("includeLineItems", "true"), ("includeShipments", "true")],
            )
            .await;
        let o = &r.body["orders"][0];
        assert_eq!(o["orderNetTotal"]["currencyCode"], cur);
        let seller_country = &o["lineItems"][0]["seller"]["sellerPrimaryAddress"]["countryCode"];
        assert_eq!(seller_country, country);
        let ship = &o["shipments"][0];
        let today = ds["today"].as_str().unwrap();
        let sli = t
            .get(
                &at(prefix, "/reports/2025-06-09/shipmentLineItemReports"),
                &[
                    ("orderStartDate", &format!("{today}T00:00:00Z")),
                    ("orderEndDate", &format!("{today}T12:01:30Z")),
                    ("orderIds", &order_id),
                ],
            )
            .await;
        let row = &sli.body["shipmentLineItemsReport"][0];
        assert_eq!(row["orderMetadata"]["region"], region);
        let net: Decimal = row["charges"].as_array().unwrap()[..4]
            .iter()
            .map(|c| amount_of(&c["amount"], cur))
            .sum();
        assert_eq!(net, amount_of(&row["charges"][4]["amount"], cur));
        let r = t
            .get_ok(
                &at(
                    prefix,
                    &format!(
                        "/ab-tracking/2025-07-02/orders/{order_id}/shipments/{}/packages/{}",
                        ship["shipmentId"].as_str().unwrap(),
                        ship["packages"][0]["packageId"].as_str().unwrap()
                    ),
                ),
                &[("region", region), ("locale", locale)],
            )
            .await;
        let d = &r.body["packageTrackingDetails"];
        assert_eq!(
            d["packageTrackingEvents"][0]["location"]["country"],
            country
        );
        let offset = match region {
            "US" => "-06:00",
            "UK" => "+00:00",
            _ => "+09:00",
        };
        let end = d["packageMilestones"][0]["milestoneWindow"]["endDate"]
            .as_str()
            .unwrap();
        assert!(end.ends_with(offset), "{region}: {end}");
    }
}

#[tokio::test]
async fn cost_estimation_needs_the_physical_address_type() {
    let t = start().await;
    let path = format!("{CARTS}/cart-0006/totalPurchaseCostEstimations");
    let q = [("region", "JP")];
    let base = json!({"fullName": "A", "addressLine1": "1-1", "city": "Tokyo", "stateOrRegion": "Tokyo", "postalCode": "100-0001", "countryCode": "JP"});
    let r = t
        .send(Method::POST, &path, &q, &json!({"address": base}))
        .await;
    assert_eq!((r.status, r.code()), (400, "INVALID_REQUEST_PARAMETER"));
    assert!(r.message().contains("addressType") && r.message().contains("PhysicalAddress"));
    let mut other = base.clone();
    other["addressType"] = json!("ExternalAddress");
    let r = t
        .send(Method::POST, &path, &q, &json!({"address": other}))
        .await;
    assert_eq!(r.status, 400);
    let mut ok = base.clone();
    ok["addressType"] = json!("PhysicalAddress");
    let r = t
        .send(Method::POST, &path, &q, &json!({"address": ok}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    // stateOrRegion is one of the required fields the spec lists.
    let mut no_state = ok.clone();
    no_state.as_object_mut().unwrap().remove("stateOrRegion");
    let r = t
        .send(Method::POST, &path, &q, &json!({"address": no_state}))
        .await;
    assert!(r.status == 400 && r.message().contains("stateOrRegion"));
}

#[tokio::test]
async fn page_number_12_is_the_last_page_13_is_refused() {
    let t = start().await;
    let base = [
        ("productRegion", "US"),
        ("locale", "en-US"),
        ("pageSize", "1"),
    ];
    let first = t.get(&format!("{PRODUCTS}/products"), &base).await;
    assert!(
        first.body["numberOfPages"].as_u64().unwrap() > 14,
        "{}",
        first.body["numberOfPages"]
    );
    let mut q = base.to_vec();
    q.push(("pageNumber", "12"));
    let r = t.get_ok(&format!("{PRODUCTS}/products"), &q).await;
    assert_eq!(r.body["products"].as_array().unwrap().len(), 1);
    q.pop();
    q.push(("pageNumber", "13"));
    let r = t.get(&format!("{PRODUCTS}/products"), &q).await;
    assert_eq!((r.status, r.code()), (400, "INVALID_REQUEST_PARAMETER"));
    assert!(
        r.message().contains("pageNumber") && r.message().contains("0 and 12"),
        "{}",
        r.message()
    );
    let asin = first.body["products"][0]["asin"].as_str().unwrap();
    let offers = format!("{PRODUCTS}/products/{asin}/offers");
    let r = t
        .get(&offers, &[base[0], base[1], ("pageNumber", "13")])
        .await;
    assert!(
        r.status == 400 && r.message().contains("0 and 12"),
        "{}",
        r.text
    );
}
