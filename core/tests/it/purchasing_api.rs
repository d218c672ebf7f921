//! Cart, product search, ordering, reporting and tracking against the sandbox, ending in
//! a full purchase: search → cart → estimate → order → order report → shipment line
//! items → package tracking.

use crate::common;
use crate::common::calls::{add_offer, cart_items, cart_line, empty_cart, set_quantity};
use crate::common::faults;

use abws::api::cart::{
    AddItemsParams, GetCartParams, GetEstimatedTotalPurchaseCostParams, ListCartsParams,
    PhysicalAddress,
};
use abws::api::ordering::{Attribute, Expectation, LineItem, PlaceOrderRequest};
use abws::api::products::{
    GetOffersByOfferIdsParams, GetProductsByAsinsParams, ProductsRequestParams,
    SearchOffersRequestParams, SearchProductsRequestParams,
};
use abws::api::reporting::{GetOrdersByOrderIdParams, GetShipmentLineItemReportsParams};
use abws::api::tracking::GetPackageTrackingDetailsParams;
use abws::{ErrorKind, Money, Region};
use rust_decimal::Decimal;

const PRODUCT_REGION: &str = "JP";
const LOCALE: &str = "ja-JP";

fn address() -> PhysicalAddress {
    common::calls::address([
        "Hanako Yamada",
        "1-2-3 Marunouchi",
        "Chiyoda-ku",
        "Tokyo",
        "100-0005",
        "JP",
    ])
}

/// getEstimatedTotalPurchaseCost of a JP cart to `address()`.
fn estimate(client: &abws::blocking::Client, cart_id: &str) -> abws::api::cart::CostEstimation {
    client
        .cart()
        .get_estimated_total_purchase_cost(&GetEstimatedTotalPurchaseCostParams {
            cart_id: cart_id.to_string(),
            region: Some("JP".into()),
            address: address(),
        })
        .unwrap()
}

/// productsRequest of `asin` in `PRODUCT_REGION` and `LOCALE`, with its offers.
fn product_with_offers(
    client: &abws::blocking::Client,
    asin: &str,
) -> abws::api::products::Product {
    client
        .products()
        .products_request(&ProductsRequestParams {
            product_id: asin.to_string(),
            product_region: PRODUCT_REGION.into(),
            locale: LOCALE.into(),
            facets: Some(vec!["OFFERS".into()]),
            ..Default::default()
        })
        .unwrap()
}

/// A product search in `PRODUCT_REGION` and `LOCALE`, else as `f` sets it.
fn jp_search(f: impl FnOnce(&mut SearchProductsRequestParams)) -> SearchProductsRequestParams {
    let mut p = SearchProductsRequestParams {
        product_region: PRODUCT_REGION.into(),
        locale: LOCALE.into(),
        ..Default::default()
    };
    f(&mut p);
    p
}

/// A purchasable product with an offer in stock: (asin, offer id, unit price).
pub fn pick_offer(client: &abws::blocking::Client) -> (String, String, Money) {
    let result = client
        .products()
        .search_products_request(&jp_search(|p| {
            p.facets = Some(vec!["OFFERS".into(), "IMAGES".into()]);
            p.availability = Some("InStockOnly".into());
        }))
        .unwrap();
    for p in result.products.unwrap().into_iter().flatten() {
        if p.asin_type.as_deref() != Some("STANDARD")
            && p.asin_type.as_deref() != Some("VARIATION_CHILD")
        {
            continue;
        }
        let offers = p
            .included_data_types
            .and_then(|d| d.offers)
            .unwrap_or_default();
        if let Some(o) = offers
            .into_iter()
            .flatten()
            .find(|o| o.quantity_in_stock.unwrap_or(0) >= 5)
        {
            return (
                p.asin.unwrap(),
                o.offer_id.unwrap(),
                o.price.unwrap().value.unwrap(),
            );
        }
    }
    panic!("no purchasable product");
}

#[test]
fn search_pages_and_product_lookups() {
    let (_sb, client) = common::sandbox_and_client();
    let by_ten = jp_search(|p| p.page_size = Some(10));
    let first = client.products().search_products_request(&by_ten).unwrap();
    let pages = first.number_of_pages.unwrap();
    let total = first.matching_product_count.unwrap();
    assert!(pages > 1, "{pages}");
    let all: Vec<_> = common::every_item(client.products().iter_search_products(&by_ten));
    assert_eq!(all.len() as i64, total.min(140));
    assert!(first
        .refinements
        .as_ref()
        .unwrap()
        .categories
        .as_ref()
        .is_some_and(|c| !c.is_empty()));

    let (asin, offer, _) = pick_offer(&client);
    let p = product_with_offers(&client, &asin);
    assert_eq!(p.asin.as_deref(), Some(asin.as_str()));
    let offers = client
        .products()
        .search_offers_request(&SearchOffersRequestParams {
            product_id: asin.clone(),
            product_region: PRODUCT_REGION.into(),
            locale: LOCALE.into(),
            ..Default::default()
        })
        .unwrap();
    assert!(offers
        .offers
        .unwrap()
        .iter()
        .flatten()
        .any(|o| o.offer_id.as_deref() == Some(offer.as_str())));
    let by_asin = client
        .products()
        .get_products_by_asins(&GetProductsByAsinsParams {
            product_region: PRODUCT_REGION.into(),
            locale: LOCALE.into(),
            product_ids: vec![asin.clone()],
            ..Default::default()
        })
        .unwrap();
    assert_eq!(by_asin.products.unwrap().len(), 1);
    let by_offer = client
        .products()
        .get_offers_by_offer_ids(&GetOffersByOfferIdsParams {
            product_region: PRODUCT_REGION.into(),
            locale: LOCALE.into(),
            offer_ids: vec![offer.clone()],
            inclusions_for_offers: vec!["price".into(), "quantityInStock".into()],
            ..Default::default()
        })
        .unwrap();
    assert_eq!(
        by_offer.offers.unwrap()[0]
            .as_ref()
            .unwrap()
            .offer_id
            .as_deref(),
        Some(offer.as_str())
    );
}

#[test]
fn search_rules_are_checked_before_sending() {
    let (sb, client) = common::sandbox_and_client();
    let pr = client.products();
    let with = |f: &dyn Fn(&mut SearchProductsRequestParams)| {
        pr.search_products_request(&jp_search(f)).unwrap_err()
    };
    let cases = [
        (with(&|p| p.page_size = Some(25)), "page_size"),
        (with(&|p| p.page_number = Some(14)), "page_number"),
        (with(&|p| p.min_price = Some(-1)), "min_price"),
        (
            with(&|p| {
                p.min_price = Some(10);
                p.max_price = Some(5)
            }),
            "min_price",
        ),
        (with(&|p| p.locale = "japanese".into()), "locale"),
        (with(&|p| p.locale = String::new()), "locale"),
        (
            with(&|p| p.product_region = String::new()),
            "product_region",
        ),
        (
            with(&|p| p.shipping_region = Some("NA".into())),
            "shipping_region",
        ),
        (
            pr.get_offers_by_offer_ids(&GetOffersByOfferIdsParams {
                product_region: PRODUCT_REGION.into(),
                locale: LOCALE.into(),
                offer_ids: vec!["x".into()],
                ..Default::default()
            })
            .unwrap_err(),
            "inclusions_for_offers",
        ),
        (
            pr.get_products_by_asins(&GetProductsByAsinsParams {
                product_region: PRODUCT_REGION.into(),
                locale: LOCALE.into(),
                product_ids: vec!["a".into(); 31],
                ..Default::default()
            })
            .unwrap_err(),
            "product_ids",
        ),
    ];
    for (e, param) in cases {
        assert_eq!(e.kind(), ErrorKind::Validation, "{e}");
        assert_eq!(e.parameter(), Some(param), "{e}");
    }
    let no_email = common::client_with(&sb, Region::JP, |s| s.user_email = None);
    let e = no_email
        .products()
        .search_products_request(&jp_search(|_| {}))
        .unwrap_err();
    assert_eq!(e.parameter(), Some("user_email"));
    assert_eq!(common::all_requests(&sb), 0);
}

#[test]
fn carts_list_change_and_estimate() {
    let (sb, client) = common::sandbox_and_client();
    let carts: Vec<_> = common::every_item(client.cart().iter_carts(&ListCartsParams {
        region: Some("JP".into()),
        page_size: Some(2),
        ..Default::default()
    }));
    assert!(carts.len() >= 5, "paged at 2 per page: {}", carts.len());
    assert!(common::requests(&sb, "listCarts") >= 3);
    let cart_id = carts[0].id.clone().unwrap();
    let summary = client
        .cart()
        .get_cart(&GetCartParams {
            cart_id: cart_id.to_string(),
            region: Some("JP".into()),
        })
        .unwrap();
    assert!(summary
        .attributes
        .unwrap()
        .iter()
        .flatten()
        .any(|a| a.attribute_type.as_deref() == Some("SubTotal")));

    let (asin, offer, _) = pick_offer(&client);
    let added = add_offer(&client, &cart_id, "JP", (&asin, &offer), 2, Some("line-1")).unwrap();
    let item = cart_line(added.items, &offer);
    let item_id = item.item_id.unwrap();
    // Absolute quantities: modifying twice to 3 leaves 3.
    for _ in 0..2 {
        set_quantity(&client, &cart_id, &item_id, 3).unwrap();
    }
    let items = cart_items(&client, &cart_id).unwrap().items.unwrap();
    assert_eq!(
        items
            .iter()
            .flatten()
            .find(|i| i.item_id.as_deref() == Some(item_id.as_str()))
            .unwrap()
            .quantity,
        Some(3)
    );
    // Quantity 0 removes.
    set_quantity(&client, &cart_id, &item_id, 0).unwrap();
    let items = cart_items(&client, &cart_id).unwrap().items.unwrap();
    assert!(items
        .iter()
        .flatten()
        .all(|i| i.item_id.as_deref() != Some(item_id.as_str())));

    let est = estimate(&client, &cart_id);
    assert!(!est.is_rejected());
    assert!(!est.charges.unwrap().is_empty());

    // More than the stock: rejected with UnavailableQuantity, as a value.
    let low = sb.dataset()["specials"]["lowStockAsin"]
        .as_str()
        .unwrap()
        .to_string();
    let low_offer = product_with_offers(&client, &low)
        .included_data_types
        .unwrap()
        .offers
        .unwrap()[0]
        .as_ref()
        .unwrap()
        .offer_id
        .clone()
        .unwrap();
    let r = add_offer(&client, &cart_id, "JP", (&low, &low_offer), 50, None).unwrap();
    let rejected = r.rejected_items.unwrap();
    assert_eq!(
        rejected[0]
            .as_ref()
            .unwrap()
            .rejection_artifacts
            .as_ref()
            .unwrap()[0]
            .as_ref()
            .unwrap()
            .rejection_artifact_type
            .as_deref(),
        Some("UnavailableQuantity")
    );

    empty_cart(&client, &cart_id).unwrap();
    assert!(cart_items(&client, &cart_id)
        .unwrap()
        .items
        .unwrap_or_default()
        .is_empty());

    // Validation before sending.
    let before = common::all_requests(&sb);
    for (e, p) in [
        (
            client
                .cart()
                .list_carts(&ListCartsParams {
                    region: Some("JP".into()),
                    page_size: Some(11),
                    page_token: None,
                    ..Default::default()
                })
                .unwrap_err(),
            "page_size",
        ),
        (
            client
                .cart()
                .add_items(&AddItemsParams {
                    cart_id: cart_id.to_string(),
                    region: Some("JP".into()),
                    items: vec![],
                })
                .unwrap_err(),
            "items",
        ),
        (
            set_quantity(&client, &cart_id, "x", -1).unwrap_err(),
            "items[0].quantity",
        ),
        (
            client
                .cart()
                .get_estimated_total_purchase_cost(&GetEstimatedTotalPurchaseCostParams {
                    cart_id: cart_id.to_string(),
                    region: Some("JP".into()),
                    address: PhysicalAddress {
                        city: None,
                        ..address()
                    }
                    .clone(),
                })
                .unwrap_err(),
            "address.city",
        ),
        (
            client
                .cart()
                .get_cart(&GetCartParams {
                    cart_id: cart_id.to_string(),
                    region: Some("US".into()),
                })
                .unwrap_err(),
            "region",
        ),
    ] {
        assert_eq!(e.kind(), ErrorKind::Validation, "{e}");
        assert_eq!(e.parameter(), Some(p), "{e}");
    }
    assert_eq!(common::all_requests(&sb), before);
}

#[test]
fn an_unavailable_item_makes_the_estimate_a_rejection_value() {
    let (sb, client) = common::sandbox_and_client();
    let unavailable = sb.dataset()["specials"]["unavailableAsin"]
        .as_str()
        .map(str::to_string);
    let Some(_) = unavailable else { return };
    // The data set's carts hold one with an unavailable item; find it by estimating each.
    let carts: Vec<_> = common::every_item(client.cart().iter_carts(&ListCartsParams {
        region: Some("JP".into()),
        page_size: None,
        ..Default::default()
    }));
    let rejected = carts.iter().any(|c| {
        let est = client
            .cart()
            .get_estimated_total_purchase_cost(&GetEstimatedTotalPurchaseCostParams {
                cart_id: c.id.as_deref().unwrap().to_string(),
                region: Some("JP".into()),
                address: address(),
            })
            .unwrap();
        if est.is_rejected() {
            assert!(
                est.charges.unwrap_or_default().is_empty(),
                "never both filled"
            );
            true
        } else {
            false
        }
    });
    assert!(rejected, "one cart holds an unavailable item");
}

#[test]
fn order_rules_are_checked_before_sending() {
    let (sb, client) = common::sandbox_and_client();
    let line = |id: &str| LineItem::new(id, "B000000001", "offer-1", 1);
    let cases = [
        (PlaceOrderRequest::new("").line(line("1")), "external_id"),
        (PlaceOrderRequest::new("PO-1"), "line_items"),
        (
            PlaceOrderRequest::new("PO-1")
                .line(line("1"))
                .line(line("1")),
            "line_items[1].external_id",
        ),
        (
            PlaceOrderRequest::new("PO-1")
                .line(line("A-1"))
                .e_invoicing(true),
            "line_items[0].external_id",
        ),
        (
            PlaceOrderRequest::new("PO-1")
                .line(line(" 1"))
                .e_invoicing(true),
            "line_items[0].external_id",
        ),
        (
            PlaceOrderRequest::new("PO-1").line(LineItem {
                quantity: 0,
                ..line("1")
            }),
            "line_items[0].quantity",
        ),
        (
            PlaceOrderRequest::new("x".repeat(256)).line(line("1")),
            "external_id",
        ),
        (
            PlaceOrderRequest::new("PO-1")
                .line(line("1"))
                .attribute(Attribute::BuyerReference {
                    email: "nobody".into(),
                }),
            "attributes[0].email",
        ),
    ];
    for (order, param) in cases {
        let e = client.ordering().place_order(&order).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Validation, "{e}");
        assert_eq!(e.parameter(), Some(param), "{e}");
    }
    assert_eq!(common::all_requests(&sb), 0);
}

#[test]
fn the_wire_form_of_an_order() {
    let order = PlaceOrderRequest::new("PO-9")
        .line(
            LineItem::new("10", "B01", "OFFER-1", 2).expect(Expectation::ExpectedUnitPrice {
                amount: Money::new(Decimal::new(1250, 2), "JPY"),
            }),
        )
        .attribute(Attribute::auxiliary([(
            "legalEntity",
            "Sandbox Trading K.K.",
        )]))
        .attribute(Attribute::BuyingGroupReference {
            identifier: "grp-1".into(),
        })
        .attribute(Attribute::ShippingAddress(
            abws::api::ordering::AddressRef::Physical(address()),
        ));
    let text = serde_json::to_string(&order).unwrap();
    assert!(
        text.contains(r#""amount":{"currencyCode":"JPY","amount":12.50}"#),
        "exact, as a number: {text}"
    );
    let json = serde_json::to_value(&order).unwrap();
    assert_eq!(
        json["lineItems"][0]["attributes"][0]["productReference"]["productReferenceType"],
        "ProductIdentifier"
    );
    assert_eq!(
        json["attributes"][0]["values"]["legalEntity"]["value"],
        "Sandbox Trading K.K."
    );
    assert_eq!(
        json["attributes"][2]["address"]["addressType"],
        "PhysicalAddress"
    );
    assert!(json.get("e_invoicing").is_none());
    // And back: the wire form reads into the same request.
    let back: PlaceOrderRequest = serde_json::from_value(json).unwrap();
    assert_eq!(back.attributes, order.attributes);
}

#[test]
fn e_invoicing_groups_refuse_non_numeric_lines_on_the_server_too() {
    let (_sb, client) = common::sandbox_and_client();
    let (asin, offer, _) = pick_offer(&client);
    let order = PlaceOrderRequest::new("PO-EINV-1")
        .line(LineItem::new("first", asin, offer, 1))
        .attribute(Attribute::BuyingGroupReference {
            identifier: "grp-einvoice-01".into(),
        });
    let e = client.ordering().place_order(&order).unwrap_err();
    assert_eq!(e.status(), Some(400), "{e}");
    assert!(e.to_string().contains("numeric"), "{e}");
}

#[test]
fn a_full_purchase() {
    let (sb, client) = common::sandbox_and_client();
    // Search, then cart.
    let (asin, offer, price) = pick_offer(&client);
    let cart_id = sb.dataset()["carts"][5]["id"].as_str().unwrap().to_string();
    add_offer(&client, &cart_id, "JP", (&asin, &offer), 2, Some("1")).unwrap();
    let est = estimate(&client, &cart_id);
    assert!(!est.is_rejected());
    // Order what the cart holds, at the price it shows.
    let items = cart_items(&client, &cart_id).unwrap().items.unwrap();
    let mut order = PlaceOrderRequest::new(format!("PO-{}", std::process::id()))
        .attribute(Attribute::Region {
            region: "JP".into(),
        })
        .attribute(Attribute::SelectedPaymentMethodReference)
        .attribute(Attribute::PurchaseOrderNumber {
            purchase_order_number: "PO-4711".into(),
        })
        .attribute(Attribute::ShippingAddress(
            abws::api::ordering::AddressRef::Physical(address()),
        ));
    for (n, it) in items.iter().flatten().enumerate() {
        order = order.line(
            LineItem::new(
                (n + 1).to_string(),
                it.product_identifier.clone().unwrap(),
                it.buying_option_identifier.clone().unwrap(),
                it.quantity.unwrap(),
            )
            .expect(Expectation::ExpectedUnitPrice {
                amount: it.price.clone().unwrap(),
            }),
        );
    }
    assert_eq!(
        items[0]
            .as_ref()
            .unwrap()
            .price
            .as_ref()
            .unwrap()
            .value()
            .unwrap(),
        price.value().unwrap()
    );
    let placed = client.ordering().place_order(&order).unwrap();
    assert!(!placed.has_rejections(), "{placed:?}");
    let order_id = placed.order_id().expect("an order id").to_string();
    // The same externalId again: the original answer, no second order.
    let again = client.ordering().place_order(&order).unwrap();
    assert_eq!(again.order_id(), Some(order_id.as_str()));
    assert_eq!(sb.counters()["ordersCreated"][&order.external_id], 1);
    empty_cart(&client, &cart_id).unwrap();

    // The order report.
    let report = client
        .reporting()
        .get_orders_by_order_id(&GetOrdersByOrderIdParams {
            order_id: order_id.clone(),
            include_line_items: Some(true),
            include_shipments: Some(true),
            include_charges: Some(true),
        })
        .unwrap();
    let orders = report.orders.unwrap();
    let o = orders[0].as_ref().unwrap();
    assert_eq!(o.order_id.as_deref(), Some(order_id.as_str()));
    assert_eq!(o.purchase_order_number.as_deref(), Some("PO-4711"));

    // Shipment line items and tracking, from the data set's shipped orders.
    let now = chrono::Utc::now();
    let slis: Vec<_> = common::every_item(client.reporting().iter_shipment_line_item_reports(
        &GetShipmentLineItemReportsParams {
            order_start_date: (now - chrono::Duration::days(60)).into(),
            order_end_date: now.into(),
            ..Default::default()
        },
    ));
    assert!(!slis.is_empty());
    let sli = slis
        .iter()
        .find(|s| s.packages.as_ref().is_some_and(|p| !p.is_empty()))
        .unwrap();
    let net: Decimal = sli
        .charges
        .iter()
        .flatten()
        .flatten()
        .filter(|c| c.r#type.as_deref() != Some("NET_TOTAL"))
        .map(|c| c.amount.as_ref().unwrap().value().unwrap())
        .sum();
    let total = sli
        .charges
        .iter()
        .flatten()
        .flatten()
        .find(|c| c.r#type.as_deref() == Some("NET_TOTAL"))
        .unwrap();
    assert_eq!(
        net,
        total.amount.as_ref().unwrap().value().unwrap(),
        "charges add up"
    );
    let order_id = sli
        .order_metadata
        .as_ref()
        .unwrap()
        .order_id
        .clone()
        .unwrap();
    let shipment_id = sli
        .shipment_metadata
        .as_ref()
        .unwrap()
        .shipment_id
        .clone()
        .unwrap();
    let package_id = sli.packages.as_ref().unwrap()[0]
        .as_ref()
        .unwrap()
        .package_id
        .clone()
        .unwrap();
    let tracking = client
        .tracking()
        .get_package_tracking_details(&GetPackageTrackingDetailsParams {
            order_id: order_id.to_string(),
            shipment_id: shipment_id.to_string(),
            package_id: package_id.to_string(),
            region: Some("JP".into()),
            locale: Some("ja-JP".into()),
        })
        .unwrap();
    assert!(tracking.tracking_status.is_some());
    assert!(!tracking.package_milestones.unwrap().is_empty());
}

#[test]
fn reporting_and_tracking_rules() {
    let (sb, client) = common::sandbox_and_client();
    let now = chrono::Utc::now();
    let p = |f: &dyn Fn(&mut GetShipmentLineItemReportsParams)| {
        let mut p = GetShipmentLineItemReportsParams {
            order_start_date: (now - chrono::Duration::days(10)).into(),
            order_end_date: now.into(),
            ..Default::default()
        };
        f(&mut p);
        client
            .reporting()
            .get_shipment_line_item_reports(&p)
            .unwrap_err()
    };
    for (e, param) in [
        (
            p(&|p| p.purchase_order_numbers = Some(vec![])),
            "purchase_order_numbers",
        ),
        (
            p(&|p| p.purchase_order_numbers = Some(vec!["PO".into(); 31])),
            "purchase_order_numbers",
        ),
        (
            p(&|p| p.order_start_date = (now - chrono::Duration::days(400)).into()),
            "order_end_date",
        ),
        (
            p(&|p| p.order_end_date = (now + chrono::Duration::days(1)).into()),
            "order_end_date",
        ),
        (
            p(&|p| p.order_ids = Some(vec!["a,b".into()])),
            "order_ids[0]",
        ),
        (
            client
                .tracking()
                .get_package_tracking_details(&GetPackageTrackingDetailsParams {
                    order_id: "O".into(),
                    shipment_id: "S".into(),
                    package_id: "P".into(),
                    region: Some("JP".into()),
                    locale: Some("xx-XX".into()),
                })
                .unwrap_err(),
            "locale",
        ),
        (
            client
                .tracking()
                .get_package_tracking_details(&GetPackageTrackingDetailsParams {
                    order_id: "O".into(),
                    shipment_id: "".into(),
                    package_id: "P".into(),
                    region: Some("JP".into()),
                    locale: None,
                })
                .unwrap_err(),
            "shipment_id",
        ),
    ] {
        assert_eq!(e.kind(), ErrorKind::Validation, "{e}");
        assert_eq!(e.parameter(), Some(param), "{e}");
    }
    assert_eq!(common::all_requests(&sb), 0);
    // InvalidInput from the service names the identifiers.
    let e = client
        .tracking()
        .get_package_tracking_details(&GetPackageTrackingDetailsParams {
            order_id: "NO-ORDER".into(),
            shipment_id: "NO-SHIP".into(),
            package_id: "NO-PKG".into(),
            region: Some("JP".into()),
            locale: None,
        })
        .unwrap_err();
    assert_eq!(e.status(), Some(400), "{e}");
    assert_eq!(e.code(), Some("InvalidInput"));
    assert!(e.to_string().contains("NO-PKG"), "{e}");
    // Packages older than 90 days have no answer.
    let old = sb.dataset()["specials"]["oldPackage"].clone();
    if old.is_object() {
        let e = client
            .tracking()
            .get_package_tracking_details(&GetPackageTrackingDetailsParams {
                order_id: old["orderId"].as_str().unwrap().to_string(),
                shipment_id: old["shipmentId"].as_str().unwrap().to_string(),
                package_id: old["packageId"].as_str().unwrap().to_string(),
                region: Some("JP".into()),
                locale: None,
            })
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Api, "{e}");
    }
}

#[test]
fn an_undecodable_order_answer_is_an_unknown_outcome_with_the_body() {
    use abws_sandbox::{FaultAction, FaultRule};
    let (sb, client) = common::sandbox_and_client();
    let (asin, offer, _) = pick_offer(&client);
    let order = PlaceOrderRequest::new("garbled-1").line(LineItem::new("1", asin, offer, 1));
    sb.inject(FaultRule::new("placeOrder", FaultAction::Garbled).times(1));
    let e = client.ordering().place_order(&order).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutcomeUnknown, "{e}");
    assert_eq!(e.external_id(), Some("garbled-1"));
    let body = e.raw_body().expect("the body as received");
    assert!(body.starts_with(b"{"), "{}", String::from_utf8_lossy(body));
    let text = e.to_string();
    assert!(
        text.contains("garbled-1") && text.contains("not resent"),
        "{text}"
    );
    assert!(format!("{e:?}").contains("raw_body: <"), "{e:?}");
    assert_eq!(
        sb.counters()["ordersCreated"]["garbled-1"],
        1,
        "applied once, not resent"
    );
    // A read's undecodable answer stays a transport error (nothing to be unsure about).
    sb.inject(FaultRule::new("getItems", FaultAction::Garbled).times(1));
    let cart = sb.dataset()["carts"][0]["id"].as_str().unwrap().to_string();
    let e = cart_items(&client, &cart).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Transport, "{e}");
    assert!(e.raw_body().is_none());
    println!("{}", text);
}

/// Every list parameter sent comma-joined refuses an element holding a comma (it would
/// change the list the service reads), naming the element, before any request.
#[test]
fn list_elements_sent_comma_joined_refuse_a_comma() {
    let (sb, client) = common::sandbox_and_client();
    let now = chrono::Utc::now();
    let search = |f: &dyn Fn(&mut SearchProductsRequestParams)| {
        client
            .products()
            .search_products_request(&jp_search(f))
            .unwrap_err()
    };
    // getInvoices of the last ten days with these payment method types.
    let invoices = |types: Vec<String>| {
        client
            .invoices()
            .get_invoices(&abws::api::invoices::GetInvoicesParams {
                invoice_issue_start_date: (now - chrono::Duration::days(10)).into(),
                invoice_issue_end_date: now.into(),
                payment_method_types: Some(types),
                ..Default::default()
            })
            .unwrap_err()
    };
    let cases = [
        (
            search(&|p| p.keywords = Some(vec!["pens".into(), "paper, A4".into()])),
            "keywords[1]",
        ),
        (
            search(&|p| p.product_filters = Some(vec!["isCustomQuoteEligible#true,false".into()])),
            "product_filters[0]",
        ),
        (
            search(&|p| p.inclusions_for_offers = Some(vec!["a,b".into()])),
            "inclusions_for_offers[0]",
        ),
        (
            client
                .reporting()
                .get_shipment_line_item_reports(&GetShipmentLineItemReportsParams {
                    order_start_date: (now - chrono::Duration::days(10)).into(),
                    order_end_date: now.into(),
                    order_ids: Some(vec!["O,1".into()]),
                    ..Default::default()
                })
                .unwrap_err(),
            "order_ids[0]",
        ),
        (invoices(vec!["BCA,X".into()]), "payment_method_types[0]"),
        (invoices(vec![]), "payment_method_types"),
    ];
    for (e, param) in &cases {
        assert_eq!(e.kind(), ErrorKind::Validation, "{e}");
        assert_eq!(e.parameter(), Some(*param), "{e}");
    }
    assert!(cases[0].0.message().starts_with("must not contain a comma"));
    assert_eq!(
        cases[5].0.message(),
        "must hold at least 1 entry (got 0)",
        "no Rust limit in the rule"
    );
    assert_eq!(common::all_requests(&sb), 0, "nothing reached the service");
    // Without a comma, the list goes out joined.
    client
        .products()
        .search_products_request(&jp_search(|p| {
            p.keywords = Some(vec!["paper".into(), "pens".into()])
        }))
        .unwrap();
}

/// A search answer with `null` inside its lists: strings (features), objects (taxonomies,
/// offers, the products themselves) and raw JSON (buyingRestrictions).
const NULLS_IN_LISTS: &str = r#"{"products":[{"asin":"B01","features":["Waterproof",null,"Light"],"taxonomies":[null,{"taxonomyCode":"44121700","type":"UNSPSC"}],"includedDataTypes":{"OFFERS":[null,{"offerId":"O1","buyingRestrictions":[null],"shippingOptions":[null]}]}},null],"numberOfPages":1}"#;

/// The service sends declared fields as `null` (docs/decisions/003-unknown-fields.md) and
/// a list's elements are values too. A `null` element reads as `None`, the answer stays
/// readable, and the wire form goes back with the `null` where it was; a listing's items
/// are the elements that are not `null`.
#[test]
fn a_null_inside_a_list_reads_as_none_and_goes_back_as_null() {
    use abws_sandbox::FaultRule;
    let (sb, client) = common::sandbox_and_client();
    let canned = || {
        sb.inject(
            FaultRule::new(
                "searchProductsRequest",
                faults::answer(200, serde_json::Value::String(NULLS_IN_LISTS.into())),
            )
            .times(1),
        )
    };
    let params = jp_search(|_| {});
    canned();
    let page = client.products().search_products_request(&params).unwrap();
    let products = page.products.as_ref().unwrap();
    assert!(products[1].is_none());
    let p = products[0].as_ref().unwrap();
    assert_eq!(
        p.features.as_deref(),
        Some(
            &[
                Some("Waterproof".to_string()),
                None,
                Some("Light".to_string())
            ][..]
        )
    );
    let taxonomies = p.taxonomies.as_ref().unwrap();
    assert!(taxonomies[0].is_none());
    assert_eq!(
        taxonomies[1].as_ref().unwrap().r#type.as_deref(),
        Some("UNSPSC")
    );
    let offers = p
        .included_data_types
        .as_ref()
        .unwrap()
        .offers
        .as_ref()
        .unwrap();
    assert!(offers[0].is_none());
    assert_eq!(offers[1].as_ref().unwrap().offer_id.as_deref(), Some("O1"));
    let wire: serde_json::Value = serde_json::from_str(NULLS_IN_LISTS).unwrap();
    assert_eq!(serde_json::to_value(&page).unwrap(), wire, "nulls go back");
    // By name, as the C binding calls it: the result's JSON keeps them too.
    canned();
    let out = client
        .call_json(
            "searchProductsRequest",
            r#"{"product_region": "JP", "locale": "ja-JP"}"#,
        )
        .unwrap();
    let json: serde_json::Value = serde_json::from_str(&out.to_json().unwrap()).unwrap();
    assert_eq!(json, wire);
    // A listing's items: the product, not the null beside it.
    canned();
    let items: Vec<_> = common::every_item(client.products().iter_search_products(&params));
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].asin.as_deref(), Some("B01"));
}
