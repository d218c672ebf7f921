//! Requests the real service accepts: what the sandbox received, byte for byte
//! where it matters — the body of getOffersByOfferIds, the externalIds of addItems, money
//! as a JSON number, and `x-svc-user-email` only on the operations that declare it.

use crate::common::{self, faults, received};

use abws::api::cart::{AddItem, AddItemsParams, GetCartParams, ListCartsParams};
use abws::api::ordering::{LineItem, PlaceOrderRequest};
use abws::api::products::GetOffersByOfferIdsParams;
use abws::api::reporting::GetOrdersByOrderIdParams;
use abws::api::tracking::GetPackageTrackingDetailsParams;
use abws::{ErrorKind, Region};
use abws_sandbox::{FaultRule, Sandbox};
use serde_json::{json, Value};

/// The sandbox's registered buyer (the clients' default user e-mail).
const BUYER: &str = "buyer@sandbox-business.example";

/// A JP cart of the sandbox's registered buyer.
fn a_cart(sb: &Sandbox) -> String {
    sb.dataset()["carts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["region"] == "JP" && c["owner"] == BUYER)
        .expect("a JP cart of the buyer")["id"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn get_offers_by_offer_ids_sends_the_declared_body() {
    let (sb, client) = common::sandbox_and_client();
    let (_, offer, _) = crate::purchasing_api::pick_offer(&client);
    let got = client
        .products()
        .get_offers_by_offer_ids(&GetOffersByOfferIdsParams {
            offer_ids: vec![offer.clone()],
            product_region: "jp".into(),
            locale: "ja_JP".into(),
            inclusions_for_offers: vec!["ALL".into()],
            ..Default::default()
        })
        .unwrap();
    assert_eq!(
        got.offers.unwrap()[0].as_ref().unwrap().offer_id.as_deref(),
        Some(&*offer)
    );
    let sent = received(&sb, "/offers/getOffersByOfferIds");
    assert_eq!(sent.len(), 1);
    let (target, headers, body) = &sent[0];
    assert_eq!(
        body,
        &json!({"offersByOfferIdsRequest": [{"offerId": offer}], "productRegion": "JP", "locale": "ja-JP"}),
        "only what the service declares"
    );
    assert!(
        target.ends_with("/offers/getOffersByOfferIds?inclusionsForOffers=ALL"),
        "{target}"
    );
    assert_eq!(headers["x-svc-user-email"], BUYER, "declared: sent");
}

#[test]
fn add_items_makes_an_external_id_for_each_item_without_one_kept_across_a_retry() {
    let (sb, client) = common::sandbox_and_client();
    let (asin, offer, _) = crate::purchasing_api::pick_offer(&client);
    let cart = a_cart(&sb);
    // The first attempt is refused before processing (429): the retry is the same request.
    sb.inject(FaultRule::new("addItems", faults::status(429)).times(1));
    let item = |external_id: Option<&str>| AddItem {
        product_identifier: asin.clone(),
        buying_option_identifier: offer.clone(),
        quantity: 1,
        external_id: external_id.map(String::from),
    };
    let added = client
        .cart()
        .add_items(&AddItemsParams {
            cart_id: cart.clone(),
            region: Some("JP".into()),
            items: vec![item(None), item(Some("mine-1")), item(None)],
        })
        .unwrap();
    let sent = received(&sb, "/items");
    assert_eq!(sent.len(), 2, "one refused attempt, one retry");
    let ids = |body: &Value| -> Vec<String> {
        body["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                i["externalId"]
                    .as_str()
                    .expect("every item has one")
                    .to_string()
            })
            .collect()
    };
    let first = ids(&sent[0].2);
    assert_eq!(first, ids(&sent[1].2), "the same on the retry");
    assert_eq!(first[1], "mine-1", "the caller's kept");
    assert_ne!(first[0], first[2], "unique");
    for made in [&first[0], &first[2]] {
        assert_eq!(made.len(), 36, "a UUID: {made}");
        assert!(made.chars().all(|c| c.is_ascii_hexdigit() || c == '-'));
    }
    assert_eq!(added.external_ids.as_deref(), Some(&first[..]), "returned");

    // Another call makes new ones.
    let again = client
        .cart()
        .add_items(&AddItemsParams {
            cart_id: cart,
            region: Some("JP".into()),
            items: vec![item(None)],
        })
        .unwrap();
    let next = again.external_ids.unwrap();
    assert_eq!(next.len(), 1);
    assert!(!first.contains(&next[0]));
}

#[test]
fn a_distribution_given_as_json_sends_its_money_as_a_number() {
    let (sb, client) = common::sandbox_and_client();
    let (asin, offer, _) = crate::purchasing_api::pick_offer(&client);
    let order = |amount: Value, expected: Value| {
        json!({
            "external_id": format!("PO-DIST-{}", amount.to_string().len()),
            "line_items": [{"external_id": "1", "quantity": 1, "attributes": [
                {"attributeType": "SelectedProductReference", "productReference": {"id": asin, "productReferenceType": "ProductIdentifier"}},
                {"attributeType": "SelectedBuyingOptionReference", "buyingOptionReference": {"id": offer, "buyingOptionReferenceType": "BuyingOptionIdentifier"}},
                {"attributeType": "Distribution", "charge": {"amount": {"currencyCode": "JPY", "amount": amount}},
                 "accounting": {"name": "Dept", "segments": [{"id": "7", "type": "COST_CENTER"}]}}
            ], "expectations": []}],
            "attributes": [
                {"attributeType": "Distribution", "charge": {"amount": {"currencyCode": "JPY", "amount": amount}},
                 "accounting": {"segments": []}}
            ],
            "expectations": [{"expectationType": "ExpectedCharge", "source": "SUBTOTAL", "amount": {"currencyCode": "JPY", "amount": expected}}]
        })
        .to_string()
    };
    client
        .call_json("place_order", &order(json!("500.00"), json!("500.00")))
        .unwrap();
    let sent = received(&sb, "/ordering/");
    assert_eq!(sent.len(), 1);
    let body = &sent[0].2;
    let text = serde_json::to_string(body).unwrap();
    for pointer in [
        "/attributes/0/charge/amount/amount",
        "/lineItems/0/attributes/2/charge/amount/amount",
        "/expectations/0/amount/amount",
    ] {
        assert!(
            body.pointer(pointer).unwrap().is_number(),
            "{pointer}: {text}"
        );
    }
    // Exact: the raw text the sandbox received carries the caller's digits, no float.
    let raw = sb.counters()["headersSeen"]["api"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find_map(|h| h["body"].as_str().map(String::from))
        .unwrap();
    assert!(raw.contains(r#""amount":500.00"#), "{raw}");
    assert!(!raw.contains(r#""500.00""#), "{raw}");

    // Text that is not a number is refused before any request, naming the field.
    let e = client
        .call_json("place_order", &order(json!("five hundred"), json!(500)))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Validation, "{e}");
    assert!(
        e.to_string().contains("attributes[0].charge.amount.amount"),
        "{e}"
    );
    assert_eq!(received(&sb, "/ordering/").len(), 1, "nothing sent");
}

#[test]
fn the_user_email_goes_only_where_an_operation_declares_it() {
    let (sb, client) = common::sandbox_and_client();
    let cart = a_cart(&sb);
    let ds = sb.dataset();
    let order_id = ds["orders"][0]["orderId"]
        .as_str()
        .or(ds["orderIds"][0].as_str())
        .map(String::from);
    client
        .cart()
        .list_carts(&ListCartsParams::default())
        .unwrap();
    client
        .cart()
        .get_cart(&GetCartParams {
            cart_id: cart,
            region: None,
        })
        .unwrap();
    let _ = client.call_json(
        "get_invoices",
        r#"{"invoice_issue_start_date":"2026-01-01","invoice_issue_end_date":"2026-01-31"}"#,
    );
    if let Some(order_id) = &order_id {
        let _ = client
            .reporting()
            .get_orders_by_order_id(&GetOrdersByOrderIdParams {
                order_id: order_id.clone(),
                ..Default::default()
            });
    }
    let _ = client
        .tracking()
        .get_package_tracking_details(&GetPackageTrackingDetailsParams {
            order_id: "1".into(),
            shipment_id: "2".into(),
            package_id: "3".into(),
            ..Default::default()
        });
    let _ = client.ordering().place_order(
        &PlaceOrderRequest::new("PO-EMAIL").line(LineItem::new("1", "B0000", "OFFER", 1)),
    );
    let seen = sb.counters()["headersSeen"]["api"]
        .as_array()
        .unwrap()
        .clone();
    assert!(seen.len() >= 5);
    for h in &seen {
        let path = h["path"].as_str().unwrap();
        let has = h["headers"].get("x-svc-user-email").is_some();
        let declared = path.contains("/carts?") || path.starts_with("/products/");
        assert_eq!(has, declared, "{path}: x-svc-user-email sent = {has}");
    }
}

#[test]
fn get_orders_by_order_id_needs_no_user_email() {
    let sb = common::sandbox();
    let client = common::client_with(&sb, Region::JP, |s| s.user_email = None);
    let e = client
        .reporting()
        .get_orders_by_order_id(&GetOrdersByOrderIdParams {
            order_id: "no-such-order".into(),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(e.status(), Some(404), "sent, and answered: {e}");
    let (path, headers, _) = &received(&sb, "/reports/2021-01-08/orders/")[0];
    assert!(headers.get("x-svc-user-email").is_none(), "{path}");
}
