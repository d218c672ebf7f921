//! H. Decoding and forward compatibility.

use abws::api::{cart, documents, invoices, products, reconciliation, reporting, tracking};
use abws::client::Call;
use abws::{operations as ops, ErrorKind, Region};
use abws_sandbox::{FaultAction, FaultRule, Sandbox};
use rand::{Rng, SeedableRng};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{figure, n, Figure};
use crate::common;
use crate::common::calls::invoice_detail;

/// Decodes a body into one model and encodes it back.
type RoundTrip = fn(&[u8]) -> Result<Vec<u8>, String>;

/// Real bodies of every response model family, fetched from the sandbox.
fn samples(sb: &Sandbox) -> Vec<(&'static str, Vec<u8>, RoundTrip)> {
    let client = common::client(sb, Region::JP);
    let raw = |call: Call| {
        client
            .run(|c| async move { c.execute(&call).await })
            .unwrap()
            .body
            .to_vec()
    };
    let (s, e) = common::previous_month(sb);
    let ds = sb.dataset();
    let inv = ds["previousMonthInvoices"][0].as_str().unwrap().to_string();
    let tx = raw(Call::new(&ops::GET_TRANSACTIONS)
        .query("feedStartDate", s.clone())
        .query("feedEndDate", e.clone()));
    let txv: Value = serde_json::from_slice(&tx).unwrap();
    let li = &txv["transactions"][0]["transactionLineItems"][0];
    let oli = serde_json::json!({"orderLineItems": [{"orderId": li["orderId"], "orderLineItemId": li["orderLineItemId"], "shipmentId": li["shipmentId"]}]});
    let cart_id = ds["carts"][0]["id"].as_str().unwrap().to_string();
    let products_call = Call::new(&ops::SEARCH_PRODUCTS)
        .query("productRegion", "JP")
        .query("locale", "ja-JP")
        .query("facets", "OFFERS,IMAGES");
    let search = raw(products_call);
    let sv: Value = serde_json::from_slice(&search).unwrap();
    let asin = sv["products"][0]["asin"].as_str().unwrap().to_string();
    let order_id = li["orderId"].as_str().unwrap().to_string();
    fn roundtrip<T: DeserializeOwned + serde::Serialize>(b: &[u8]) -> Result<Vec<u8>, String> {
        let v: T = serde_json::from_slice(b).map_err(|e| e.to_string())?;
        serde_json::to_vec(&v).map_err(|e| e.to_string())
    }
    vec![
        ("InvoicesPage", raw(Call::new(&ops::GET_INVOICES).query("invoiceIssueStartDate", s.clone()).query("invoiceIssueEndDate", e.clone())), roundtrip::<invoices::InvoicesPage>),
        ("InvoiceDetail", raw(Call::new(&ops::GET_INVOICE_DETAIL).path("invoiceNumber", inv.clone()).query("region", "JP")), roundtrip::<invoices::InvoiceDetailResponse>),
        ("LineItemsPage", raw(Call::new(&ops::GET_INVOICE_LINE_ITEMS).path("invoiceNumber", inv).query("region", "JP")), roundtrip::<invoices::LineItemsPage>),
        ("TransactionsPage", tx, roundtrip::<reconciliation::TransactionsPage>),
        ("InvoiceDetailsResponse", raw(Call::new(&ops::GET_INVOICE_DETAILS_BY_ORDER_LINE_ITEMS).json(&oli).unwrap()), roundtrip::<reconciliation::InvoiceDetailsResponse>),
        ("CartsPage", raw(Call::new(&ops::LIST_CARTS).query("region", "JP")), roundtrip::<cart::CartsPage>),
        ("CartItems", raw(Call::new(&ops::GET_ITEMS).path("cartId", cart_id.clone()).query("region", "JP")), roundtrip::<cart::CartItems>),
        ("CartDetails", raw(Call::new(&ops::GET_CART).path("cartId", cart_id).query("region", "JP")), roundtrip::<cart::CartDetails>),
        ("SearchProductsResult", search, roundtrip::<products::SearchProductsResult>),
        ("Product", raw(Call::new(&ops::PRODUCTS_REQUEST).path("productId", asin.clone()).query("productRegion", "JP").query("locale", "ja-JP").query("facets", "OFFERS,IMAGES")), roundtrip::<products::Product>),
        ("OffersResult", raw(Call::new(&ops::SEARCH_OFFERS).path("productId", asin).query("productRegion", "JP").query("locale", "ja-JP")), roundtrip::<products::OffersResult>),
        ("OrdersResponse", raw(Call::new(&ops::GET_ORDERS_BY_ORDER_ID).path("orderId", order_id.clone()).query("includeLineItems", "true").query("includeShipments", "true").query("includeCharges", "true")), roundtrip::<reporting::OrdersResponse>),
        ("ShipmentLineItemsPage", raw(Call::new(&ops::GET_SHIPMENT_LINE_ITEM_REPORTS).query("orderStartDate", s).query("orderEndDate", e)), roundtrip::<reporting::ShipmentLineItemsPage>),
        ("Report", br#"{"reportId":"R1","reportType":"GET_AB_INVOICE_PDF","createdTime":"2026-01-01T00:00:00Z","processingStatus":"DONE","marketplaceIds":["A1VC38T7YXB528"],"reportOptions":{"orderId":"O","documentType":"Invoice"},"reportDocumentId":"D1"}"#.to_vec(), roundtrip::<documents::Report>),
        ("PlaceOrderResult", br#"{"lineItems":[{"externalId":"1","acceptedItems":[{"acceptedItemType":"SingleAcceptedItem","quantity":1,"artifacts":[{"acceptanceArtifactType":"UnitPrice","amount":{"currencyCode":"JPY","amount":1200}}]}],"rejectedItems":[]}],"acceptanceArtifacts":[{"acceptanceArtifactType":"OrderIdentifier","identifier":"O-1"}],"rejectionArtifacts":[]}"#.to_vec(), roundtrip::<abws::api::ordering::PlaceOrderResult>),
        ("PackageTracking", br#"{"packageTrackingDetails":{"trackingStatus":"DELIVERED","deliveryWindow":{"endDate":"2026-01-01T00:00:00+09:00"},"carrierDetails":{"localizedCarrierName":"Yamato","carrierTrackingId":"T1"},"packageTrackingEvents":[{"localizedDescription":"Delivered","location":{"city":"Tokyo","country":"JP"}}],"packageMilestones":[{"milestoneType":"DELIVERED","milestoneWindow":{"endDate":"2026-01-01T00:00:00+09:00"}}]}}"#.to_vec(), roundtrip::<tracking::PackageTrackingResponse>),
    ]
}

fn mutate(rng: &mut rand::rngs::StdRng, sample: &[u8]) -> Vec<u8> {
    let mut b = sample.to_vec();
    match rng.random_range(0..7) {
        0 => b.truncate(rng.random_range(0..b.len().max(1))),
        1 => {
            for _ in 0..rng.random_range(1..8) {
                let i = rng.random_range(0..b.len().max(1));
                if i < b.len() {
                    b[i] = rng.random();
                }
            }
        }
        2 => {
            // A number becomes huge, negative, fractional or a string.
            let text = String::from_utf8_lossy(&b).to_string();
            let repl = [
                "1e400",
                "-99999999999999999999999999999999",
                "\"12\"",
                "true",
                "{}",
                "[]",
                "null",
            ][rng.random_range(0..7)];
            b = text
                .replacen(':', &format!(":{repl},\"x\":"), rng.random_range(1..4))
                .into_bytes();
        }
        3 => {
            let depth = rng.random_range(100..5000);
            let pos = rng.random_range(0..b.len().max(1));
            let nest = "[".repeat(depth);
            b.splice(pos..pos, nest.bytes());
        }
        4 => b.extend_from_slice(&[0xff, 0xfe, 0xc3]),
        5 => {
            let text = String::from_utf8_lossy(&b).to_string();
            b = text
                .replace("\"amount\"", "\"amount\":{},\"old\"")
                .into_bytes();
        }
        _ => {
            let len = rng.random_range(0..64);
            b = (0..len).map(|_| rng.random()).collect();
        }
    }
    b
}

/// Adds unknown fields everywhere, unknown enum values, nulls for objects and for list
/// elements.
fn drift(v: &mut Value, rng: &mut rand::rngs::StdRng) {
    const ENUMS: &[&str] = &[
        "transactionType",
        "processingStatus",
        "cartType",
        "orderStatus",
        "trackingStatus",
        "asinType",
        "priceType",
        "milestoneType",
        "invoiceType",
        "status",
        "consolidationType",
        "type",
    ];
    match v {
        Value::Object(m) => {
            let keys: Vec<String> = m.keys().cloned().collect();
            for k in keys {
                let child = m.get_mut(&k).unwrap();
                if k == "businessOrderInfo" || k == "productOverview" {
                    continue; // string-to-string maps by definition
                }
                if ENUMS.contains(&k.as_str()) && child.is_string() && rng.random_bool(0.5) {
                    *child = Value::String("FUTURE_VALUE_2027".into());
                } else if child.is_object() && rng.random_bool(0.1) && k != "amount" {
                    *child = Value::Null;
                } else {
                    drift(child, rng);
                }
            }
            m.insert(
                "zzFutureField".into(),
                serde_json::json!({"nested": [1, "two", {"three": 3.25}], "flag": true}),
            );
        }
        // A list's element may come as `null` too: it reads as `None` and goes
        // back as `null`.
        Value::Array(a) => a.iter_mut().for_each(|x| {
            if rng.random_bool(0.1) {
                *x = Value::Null;
            } else {
                drift(x, rng)
            }
        }),
        _ => {}
    }
}

fn first_diff(a: &Value, b: &Value, path: String) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    None => return format!("{path}.{k} missing ({v})"),
                    Some(w) if w != v => return first_diff(v, w, format!("{path}.{k}")),
                    _ => {}
                }
            }
            for k in y.keys() {
                if !x.contains_key(k) {
                    return format!("{path}.{k} added");
                }
            }
            path
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if v != w {
                    return first_diff(v, w, format!("{path}[{i}]"));
                }
            }
            path
        }
        _ => format!("{path}: {a} vs {b}"),
    }
}

fn strip_nulls(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, x| !x.is_null());
            m.values_mut().for_each(strip_nulls);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_nulls),
        _ => {}
    }
}

/// Keeps two elements of every array: the shape of the family, a fraction of the bytes.
fn shrink(v: &mut Value) {
    match v {
        Value::Array(a) => {
            a.truncate(2);
            a.iter_mut().for_each(shrink);
        }
        Value::Object(m) => m.values_mut().for_each(shrink),
        _ => {}
    }
}

pub fn run() -> Vec<Figure> {
    let mut out = vec![];
    let sb = common::sandbox();
    let samples: Vec<_> = samples(&sb)
        .into_iter()
        .map(|(name, body, decode)| {
            let mut v: Value = serde_json::from_slice(&body).unwrap();
            shrink(&mut v);
            (name, serde_json::to_vec(&v).unwrap(), decode)
        })
        .collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);

    // H1: mutated and random inputs: typed errors, never a panic.
    let per_family = n(10_000, 10_000);
    let mut cases = 0;
    let mut panics = 0;
    for (_, sample, decode) in &samples {
        for _ in 0..per_family {
            let m = mutate(&mut rng, sample);
            cases += 1;
            if std::panic::catch_unwind(|| decode(&m)).is_err() {
                panics += 1;
            }
        }
    }
    out.push(figure(
        "H1",
        panics == 0,
        format!(
            "{cases} cases over {} model families ({per_family} each); panics = {panics}",
            samples.len()
        ),
    ));

    // H2: the drift corpus decodes and round-trips.
    let mut decoded = 0;
    let mut equal = 0;
    let trials = 20;
    for (name, sample, decode) in &samples {
        for _ in 0..trials {
            let mut v: Value = serde_json::from_slice(sample).unwrap();
            drift(&mut v, &mut rng);
            let text = serde_json::to_vec(&v).unwrap();
            match decode(&text) {
                Ok(back) => {
                    decoded += 1;
                    let mut want = v.clone();
                    strip_nulls(&mut want);
                    let mut got: Value = serde_json::from_slice(&back).unwrap();
                    strip_nulls(&mut got); // raw JSON fields keep their nulls exactly
                    if got == want {
                        equal += 1;
                    } else {
                        eprintln!(
                            "H2 {name}: round trip differs at {}",
                            first_diff(&want, &got, String::new())
                        );
                    }
                }
                Err(e) => eprintln!("H2 {name}: {e}"),
            }
        }
    }
    let total = samples.len() * trials;
    out.push(figure("H2", decoded == total && equal == total, format!("decoded {decoded}/{total} drifted bodies (unknown fields, unknown enum values, nulls, nulls in lists); round-trip equal {equal}/{total}")));

    // H3: money.
    let mut mismatches = 0;
    let money = [
        r#"{"currencyCode":"JPY","amount":1234567.89}"#,
        r#"{"currencyCode":"USD","amount":0.10}"#,
        r#"{"currencyCode":"USD","amount":"19.99"}"#,
        r#"{"currencyCode":"USD","amount":"-0.00"}"#,
        r#"{"currencyCode":"JPY","amount":1234567890123456789012345.678}"#,
        r#"{"currencyCode":"","amount":"0"}"#,
        r#"{"currencyCode":"JPY","amount":-61.00}"#,
    ];
    for m in money {
        let v: abws::Money = serde_json::from_str(m).unwrap();
        if serde_json::to_string(&v).unwrap() != m {
            mismatches += 1;
            eprintln!("H3 {m} -> {}", serde_json::to_string(&v).unwrap());
        }
    }
    out.push(figure("H3", mismatches == 0, format!("mismatches = {mismatches} of {} wire amounts (number and string forms, -0.00, 28 digits, empty currency)", money.len())));

    // H4: an oversized body stops at the cap.
    let small = common::client_with(&sb, Region::JP, |s| s.max_response_bytes = 1 << 20);
    sb.inject(
        FaultRule::new(
            "getInvoiceDetailByInvoiceNumber",
            FaultAction::Oversized(8 << 20),
        )
        .times(1),
    );
    let e = invoice_detail(&small, "X").unwrap_err();
    out.push(figure("H4", e.kind() == ErrorKind::Transport && e.to_string().contains("too large") && e.attempts() == 1, format!("8 MiB body against a 1 MiB cap: {:?} \"response too large\", {} attempt, read stopped at the cap", e.kind(), e.attempts())));
    out
}
