//! placeOrder (duplicates, e-invoicing, MLE, stock), then the order through reporting and
//! tracking; shipment line item paging and errors; tracking errors.

use crate::common::*;
use serde_json::{json, Value};

const ORDERS: &str = "/ordering/2022-10-30/orders";
const SLI: &str = "/reports/2025-06-09/shipmentLineItemReports";

async fn an_offer(t: &T) -> (String, String) {
    asin_and_offer(&standard_product(t, PRODUCT_SEARCH, &JP_IN_STOCK, 10).await)
}

fn line(ext: &str, qty: u64, asin: &str, offer: &str) -> Value {
    json!({"externalId": ext, "quantity": qty, "attributes": [
        {"attributeType": "SelectedProductReference", "productReference": {"id": asin, "productReferenceType": "ProductIdentifier"}},
        {"attributeType": "SelectedBuyingOptionReference", "buyingOptionReference": {"id": offer, "buyingOptionReferenceType": "BuyingOptionIdentifier"}}],
        "expectations": []})
}

/// The id of the order a placeOrder answer created (its OrderIdentifier artifact).
fn order_id_of(answer: &Value) -> String {
    answer["acceptanceArtifacts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["acceptanceArtifactType"] == "OrderIdentifier")
        .unwrap()["identifier"]
        .as_str()
        .unwrap()
        .to_string()
}

/// An order attribute naming buying group `id`.
fn group(id: &str) -> Value {
    json!({"attributeType": "BuyingGroupReference", "groupReference": {"identifier": id, "groupReferenceType": "GroupIdentity"}})
}

fn order(ext: &str, lines: Vec<Value>, attrs: Vec<Value>) -> Value {
    json!({"externalId": ext, "lineItems": lines, "attributes": attrs, "expectations": []})
}

#[tokio::test]
async fn place_order_then_report_and_track_it() {
    let t = start().await;
    let (asin, offer) = an_offer(&t).await;
    let body = order(
        "ext-1",
        vec![line("L1", 2, &asin, &offer)],
        vec![json!({"attributeType": "PurchaseOrderNumber", "purchaseOrderNumber": "PO-TEST-1"})],
    );
    let r = t.post(ORDERS, &body).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let oid = order_id_of(&r.body);
    assert_eq!(r.body["lineItems"][0]["acceptedItems"][0]["quantity"], 2);
    // Duplicate externalId: same body, nothing created.
    let again = t.post(ORDERS, &body).await;
    assert_eq!(again.status, 200);
    assert_eq!(again.text, r.text);
    let c = t.sb.counters();
    assert_eq!(c["placeOrderRequests"]["ext-1"], 2);
    assert_eq!(c["ordersCreated"]["ext-1"], 1);
    // Reporting.
    let o = t
        .get_ok(
            &format!("/reports/2021-01-08/orders/{oid}"),
            &[("includeLineItems", "true"), ("includeShipments", "true")],
        )
        .await;
    assert_eq!(o.body["size"], 1);
    let ord = &o.body["orders"][0];
    assert_eq!(ord["purchaseOrderNumber"], "PO-TEST-1");
    assert!(ord["orderNetTotal"]["amount"].is_string());
    let ship = &ord["shipments"][0];
    let (sid, pid) = (
        ship["shipmentId"].as_str().unwrap().to_string(),
        ship["packages"][0]["packageId"]
            .as_str()
            .unwrap()
            .to_string(),
    );
    let now = t
        .control(reqwest::Method::GET, "/_sandbox/clock", None)
        .await
        .body["now"]
        .as_str()
        .unwrap()
        .to_string();
    let s = t
        .get_ok(
            SLI,
            &[
                ("orderStartDate", "2026-03-01T00:00:00Z"),
                ("orderEndDate", &now),
                ("orderIds", &oid),
            ],
        )
        .await;
    assert_eq!(s.body["size"], 1);
    assert_eq!(
        s.body["shipmentLineItemsReport"][0]["orderMetadata"]["orderId"],
        oid.as_str()
    );
    // Tracking.
    let tr = t
        .get_ok(
            &format!("/ab-tracking/2025-07-02/orders/{oid}/shipments/{sid}/packages/{pid}"),
            &[("region", "JP"), ("locale", "ja-JP")],
        )
        .await;
    let d = &tr.body["packageTrackingDetails"];
    assert!(d["packageTrackingEvents"].as_array().unwrap().len() >= 2);
    assert_eq!(d["packageMilestones"][0]["milestoneType"], "SHIPPED");
}

#[tokio::test]
async fn ordering_rules() {
    let t = start().await;
    let (asin, offer) = an_offer(&t).await;
    let ok_line = line("1", 1, &asin, &offer);
    for (body, needle) in [
        (
            json!({"lineItems": [ok_line], "attributes": [], "expectations": []}),
            "externalId",
        ),
        (
            order(&"x".repeat(256), vec![ok_line.clone()], vec![]),
            "externalId",
        ),
        (order("e", vec![], vec![]), "lineItems"),
        (order("e", vec![ok_line.clone(); 51], vec![]), "lineItems"),
        (
            order("e", vec![line("", 1, &asin, &offer)], vec![]),
            "lineItems[0].externalId",
        ),
        (
            order("e", vec![line("a", 0, &asin, &offer)], vec![]),
            "quantity",
        ),
        (
            json!({"externalId": "e", "lineItems": [ok_line], "expectations": []}),
            "attributes",
        ),
    ] {
        let r = t.post(ORDERS, &body).await;
        r.assert_refused("INVALID_REQUEST_PARAMETER", needle, &body);
    }
    // E-invoicing group: numeric line ids only.
    let one = |id: &str| line(id, 1, &asin, &offer);
    let einv = group("grp-einvoice-01");
    let r = t
        .post(
            ORDERS,
            &order("e-inv-1", vec![one("10"), one("A 2")], vec![einv.clone()]),
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(r.message().contains("lineItems[1]"));
    let r = t
        .post(ORDERS, &order("e-inv-2", vec![one("10")], vec![einv]))
        .await;
    assert_eq!(r.status, 200);
    // MLE group: needs a known legal entity.
    let mle = group("grp-mle-01");
    let r = t
        .post(ORDERS, &order("mle-1", vec![one("1")], vec![mle.clone()]))
        .await;
    assert_eq!(r.status, 200);
    assert!(!r.body["rejectionArtifacts"].as_array().unwrap().is_empty());
    assert!(r.body["acceptanceArtifacts"].as_array().unwrap().is_empty());
    let aux = json!({"attributeType": "Auxiliary", "values": {"legalEntity": {"value": "Sandbox Manufacturing K.K."}}});
    let r = t
        .post(ORDERS, &order("mle-2", vec![one("1")], vec![mle, aux]))
        .await;
    assert!(r.body["acceptanceArtifacts"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["acceptanceArtifactType"] == "OrderIdentifier"));
    // Stock.
    let r = t
        .post(
            ORDERS,
            &order("stock-1", vec![line("1", 99_999, &asin, &offer)], vec![]),
        )
        .await;
    assert_eq!(
        r.body["lineItems"][0]["rejectedItems"][0]["artifacts"][0]["rejectionArtifactType"],
        "UnavailableQuantity"
    );
    let c = t.sb.counters();
    assert!(c["ordersCreated"].get("stock-1").is_none());
    assert!(c["ordersCreated"].get("mle-1").is_none());
    assert_eq!(c["ordersCreated"]["mle-2"], 1);
}

#[tokio::test]
async fn shipment_line_items_page_and_validate() {
    let t = start().await;
    let range = dates(ORDER_DATES, "2025-11-18T00:00:00Z", "2026-03-17T00:00:00Z");
    let pages = t.pages(SLI, &range, false).await;
    let mut total = 0;
    for r in &pages {
        let n = r.body["shipmentLineItemsReport"].as_array().unwrap().len();
        assert!(n <= 100);
        assert_eq!(r.body["size"], n);
        for row in r.body["shipmentLineItemsReport"].as_array().unwrap() {
            let charges = row["charges"].as_array().unwrap();
            let net = charges.iter().find(|c| c["type"] == "NET_TOTAL").unwrap();
            let parts: rust_decimal::Decimal = charges
                .iter()
                .filter(|c| c["type"] != "NET_TOTAL")
                .map(|c| dec(&c["amount"]["amount"]))
                .sum();
            assert_eq!(parts, dec(&net["amount"]["amount"]));
        }
        total += n;
    }
    assert!(pages.len() > 2 && total > 200);
    for (q, needle) in [
        (vec![range[1]], "orderStartDate"),
        (
            vec![
                ("orderStartDate", "2026-03-01T00:00:00Z"),
                ("orderEndDate", "2027-01-01T00:00:00Z"),
            ],
            "future",
        ),
        (
            vec![("orderStartDate", "2024-01-01T00:00:00Z"), range[1]],
            "366",
        ),
        (
            vec![
                ("orderStartDate", "2026-03-10T00:00:00Z"),
                ("orderEndDate", "2026-03-01T00:00:00Z"),
            ],
            "after",
        ),
        (
            vec![
                range[0],
                range[1],
                (
                    "purchaseOrderNumbers",
                    &(0..31)
                        .map(|i| format!("PO{i}"))
                        .collect::<Vec<_>>()
                        .join(","),
                ),
            ],
            "purchaseOrderNumbers",
        ),
        (
            vec![range[0], range[1], ("nextPageToken", "zzz")],
            "nextPageToken",
        ),
    ] {
        let q: Vec<(&str, &str)> = q.to_vec();
        let r = t.get(SLI, &q).await;
        r.assert_refused("InvalidInput", needle, &q);
    }
    let tk = t.next_token(SLI, &range).await;
    let other_end = ("orderEndDate", "2026-03-16T00:00:00Z");
    t.assert_token_bound((SLI, &range), &tk, other_end, "InvalidInput")
        .await;
}

#[tokio::test]
async fn tracking_rules() {
    let t = start().await;
    let old = t.dataset()["specials"]["oldPackage"].clone();
    let p = |o: &str, s: &str, k: &str| {
        format!("/ab-tracking/2025-07-02/orders/{o}/shipments/{s}/packages/{k}")
    };
    let r = t
        .get(
            &p(
                old["orderId"].as_str().unwrap(),
                old["shipmentId"].as_str().unwrap(),
                old["packageId"].as_str().unwrap(),
            ),
            &[("region", "JP")],
        )
        .await;
    assert_eq!(r.status, 404);
    let r = t.get(&p("O-1", "S-2", "P-3"), &[("region", "JP")]).await;
    assert_eq!((r.status, r.code()), (400, "InvalidInput"));
    for id in ["O-1", "S-2", "P-3"] {
        assert!(r.message().contains(id));
    }
    assert_eq!(r.body["errors"][0]["details"], "");
    let r = t.get(&p("O-1", "S-2", "P-3"), &[]).await;
    assert!(r.status == 400 && r.message().contains("region"));
    let r = t
        .get(
            &p("O-1", "S-2", "P-3"),
            &[("region", "JP"), ("locale", "xx-XX")],
        )
        .await;
    assert!(r.status == 400 && r.message().contains("locale"));
    // A recent delivered package: events newest first.
    let early_feb = dates(ORDER_DATES, "2026-02-01T00:00:00Z", "2026-02-10T00:00:00Z");
    let o = t.get(SLI, &early_feb).await;
    let row = &o.body["shipmentLineItemsReport"][0];
    let delivered = p(
        row["orderMetadata"]["orderId"].as_str().unwrap(),
        row["shipmentMetadata"]["shipmentId"].as_str().unwrap(),
        row["packages"][0]["packageId"].as_str().unwrap(),
    );
    let r = t.get_ok(&delivered, &[("region", "JP")]).await;
    let d = &r.body["packageTrackingDetails"];
    assert_eq!(d["trackingStatus"], "DELIVERED");
    assert_eq!(
        d["packageTrackingEvents"][0]["localizedDescription"],
        "Delivered"
    );
    assert_eq!(d["packageMilestones"][0]["milestoneType"], "DELIVERED");
    let r = t.get(&delivered, &[("region", "US")]).await;
    assert_eq!((r.status, r.code()), (400, "InvalidInput"));
    // Unknown order in reporting.
    assert_eq!(
        t.get("/reports/2021-01-08/orders/NOPE", &[]).await.status,
        404
    );
    assert_eq!(
        t.get(
            "/reports/2021-01-08/orders/NOPE",
            &[("includeLineItems", "maybe")]
        )
        .await
        .status,
        400
    );
}

#[tokio::test]
async fn money_in_an_order_is_a_json_number() {
    // The published model declares every Money amount a number: text is refused, as the
    // service would, wherever the order carries money.
    let t = start().await;
    let (asin, offer) = an_offer(&t).await;
    let distribution = |amount: Value| {
        json!({"attributeType": "Distribution", "charge": {"amount": {"currencyCode": "JPY", "amount": amount}},
               "accounting": {"segments": []}})
    };
    let mut with_line_attr = line("L1", 1, &asin, &offer);
    with_line_attr["attributes"]
        .as_array_mut()
        .unwrap()
        .push(distribution(json!("500")));
    let mut with_expectation = line("L1", 1, &asin, &offer);
    with_expectation["expectations"] = json!([{"expectationType": "ExpectedUnitPrice",
        "amount": {"currencyCode": "JPY", "amount": "500"}}]);
    for (n, body) in [
        order(
            "money-1",
            vec![line("L1", 1, &asin, &offer)],
            vec![distribution(json!("500"))],
        ),
        order("money-2", vec![with_line_attr], vec![]),
        order("money-3", vec![with_expectation], vec![]),
    ]
    .into_iter()
    .enumerate()
    {
        let r = t.post(ORDERS, &body).await;
        assert_eq!(r.status, 400, "case {n}: {}", r.text);
        assert!(
            r.message().contains("must be a number"),
            "case {n}: {}",
            r.text
        );
    }
    let r = t
        .post(
            ORDERS,
            &order(
                "money-4",
                vec![line("L1", 1, &asin, &offer)],
                vec![distribution(json!(500))],
            ),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
}

/// At `time_scale = 60` without a pinned day the scaled clock runs ahead of the wall
/// clock; an order placed now must still fall in "the last 30 days" computed from the
/// wall clock, and from `Sandbox::now()`, which is never after the wall clock there.
#[tokio::test]
async fn an_order_placed_now_is_in_a_range_that_ends_now() {
    let t = start_with(abws_sandbox::SandboxConfig {
        today: None,
        time_scale: 60.0,
        ..config()
    })
    .await;
    let (asin, offer) = an_offer(&t).await;
    // A second of real time: a minute of scaled time ahead of the wall clock.
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    let r = t
        .post(
            ORDERS,
            &order("ext-now", vec![line("L1", 1, &asin, &offer)], vec![]),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let oid = order_id_of(&r.body);
    let sandbox_now = t.sb.now();
    let wall_now = chrono::Utc::now();
    assert!(sandbox_now <= wall_now, "{sandbox_now} > {wall_now}");
    for end in [wall_now, sandbox_now] {
        let text =
            |d: chrono::DateTime<chrono::Utc>| d.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string();
        let s = t
            .get_ok(
                SLI,
                &[
                    ("orderStartDate", &text(end - chrono::Duration::days(30))),
                    ("orderEndDate", &text(end)),
                    ("orderIds", &oid),
                ],
            )
            .await;
        assert_eq!(
            s.body["shipmentLineItemsReport"].as_array().map(Vec::len),
            Some(1),
            "{end}: {}",
            s.text
        );
    }
}
