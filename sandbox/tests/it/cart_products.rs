//! Carts and product search.

use crate::common::*;
use reqwest::Method;
use serde_json::{json, Value};

const CARTS: &str = "/cart/2025-04-30/carts";
const P: &str = "/products/2020-08-26";

#[tokio::test]
async fn list_carts_pages_and_validates() {
    let t = start().await;
    let r = t.get_ok(CARTS, &[("region", "JP")]).await;
    assert_eq!(r.header("x-svc-ratelimit-limit"), Some("2.0"));
    assert_eq!(r.body["cartDetailsList"].as_array().unwrap().len(), 5);
    let tk = r.body["nextPageToken"].as_str().unwrap().to_string();
    let r2 = t.get(CARTS, &[("region", "JP"), ("pageToken", &tk)]).await;
    assert_eq!(r2.body["cartDetailsList"].as_array().unwrap().len(), 1);
    assert!(r2.body.get("nextPageToken").is_none());
    let r = t.get(CARTS, &[("region", "JP"), ("pageSize", "11")]).await;
    assert!(r.status == 400 && r.message().contains("pageSize"));
    let r = t.get(CARTS, &[]).await;
    assert!(r.status == 400 && r.message().contains("region"));
    let r = t
        .get(
            CARTS,
            &[("region", "JP"), ("pageSize", "2"), ("pageToken", &tk)],
        )
        .await;
    assert!(r.status == 400 && r.message().contains("does not match"));
    let c = &t.get(CARTS, &[("region", "JP")]).await.body["cartDetailsList"][0];
    assert_eq!(c["attributes"][0]["attributeType"], "SubTotal");
}

#[tokio::test]
async fn cart_item_lifecycle_and_estimation() {
    let t = start().await;
    let ds = t.dataset();
    let path = format!("{CARTS}/cart-0006/items");
    let q = [("region", "JP")];
    let empty = t.get(&path, &q).await;
    assert_eq!(empty.body["items"].as_array().unwrap().len(), 0);
    // An offer from search.
    let paper = [
        ("keywords", "paper"),
        ("productRegion", "JP"),
        ("locale", "ja-JP"),
        ("facets", "OFFERS"),
    ];
    let (asin, offer) = asin_and_offer(&standard_product(&t, PRODUCT_SEARCH, &paper, 11).await);
    let r = t.send(Method::POST, &path, &q, &json!({"items": [{"productIdentifier": asin, "buyingOptionIdentifier": offer, "quantity": 2, "externalId": "e1"},
        {"productIdentifier": asin, "buyingOptionIdentifier": offer, "quantity": 5000, "externalId": "too-many"}]})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["items"].as_array().unwrap().len(), 1);
    assert_eq!(r.body["rejectedItems"][0]["id"], "too-many");
    assert_eq!(
        r.body["rejectedItems"][0]["rejectionArtifacts"][0]["rejectionArtifactType"],
        "UnavailableQuantity"
    );
    let item_id = r.body["items"][0]["itemId"].as_str().unwrap().to_string();
    let quantity = |n: u32| json!({"items": [{"itemId": item_id, "quantity": n}]});
    let r = t.send(Method::PATCH, &path, &q, &quantity(5)).await;
    assert_eq!(r.body["items"][0]["quantity"], 5);
    // Estimation: charges only.
    let estimate = format!("{CARTS}/cart-0006/totalPurchaseCostEstimations");
    let addr = json!({"address": {"addressType": "PhysicalAddress", "fullName": "A", "addressLine1": "1-1", "city": "Tokyo", "stateOrRegion": "Tokyo", "postalCode": "100-0001", "countryCode": "JP"}});
    let est = t.send(Method::POST, &estimate, &q, &addr).await;
    assert_eq!(est.status, 200);
    assert_eq!(est.body["charges"].as_array().unwrap().len(), 4);
    assert_eq!(est.body["rejectionArtifacts"].as_array().unwrap().len(), 0);
    // Unsupported address: rejection only.
    let mut bad_addr = addr.clone();
    bad_addr["address"]["countryCode"] = json!("US");
    let est = t.send(Method::POST, &estimate, &q, &bad_addr).await;
    assert_eq!(est.body["charges"].as_array().unwrap().len(), 0);
    assert_eq!(
        est.body["rejectionArtifacts"][0]["rejectionArtifactType"],
        "UnsupportedCartItems"
    );
    // Quantity 0 removes; deleteItems empties with 204.
    let r = t.send(Method::PATCH, &path, &q, &quantity(0)).await;
    assert_eq!(r.body["items"].as_array().unwrap().len(), 0);
    let r = into_r(
        t.req(Method::DELETE, &format!("{CARTS}/cart-0001/items"))
            .query(&q)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 204);
    assert!(r.text.is_empty());
    assert_eq!(
        t.get(&format!("{CARTS}/cart-0001/items"), &q).await.body["items"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    // The second cart holds an unavailable item: rejection.
    let est = t
        .send(
            Method::POST,
            &format!("{CARTS}/cart-0002/totalPurchaseCostEstimations"),
            &q,
            &addr,
        )
        .await;
    assert_eq!(est.body["charges"].as_array().unwrap().len(), 0);
    assert_eq!(
        est.body["rejectionArtifacts"][0]["cartItemIdentifiers"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let c = t.sb.counters();
    assert_eq!(c["cartMutations"]["total"], 4);
    // Errors.
    assert_eq!(t.get(&format!("{CARTS}/cart-9999"), &q).await.status, 404);
    assert_eq!(
        t.get(&format!("{CARTS}/cart-0001"), &[("region", "US")])
            .await
            .status,
        400
    );
    let r = t.send(Method::POST, &path, &q, &json!({"items": [{"productIdentifier": asin, "buyingOptionIdentifier": "nope", "quantity": 1}]})).await;
    assert_eq!(r.status, 400);
    let r = t.send(Method::POST, &path, &q, &json!({})).await;
    assert!(r.status == 400 && r.message().contains("items"));
    // The published model requires each item's externalId.
    let r = t.send(Method::POST, &path, &q, &json!({"items": [{"productIdentifier": asin, "buyingOptionIdentifier": offer, "quantity": 1}]})).await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(r.message().contains("items[0].externalId"), "{}", r.text);
    let gc = t
        .get(&format!("{CARTS}/cart-0007"), &[("region", "US")])
        .await;
    assert_eq!(gc.body["attributes"][0]["amount"]["currencyCode"], "USD");
    let _ = ds;
}

/// A products search: `base`'s region and locale, then `more`.
async fn search(t: &T, base: [(&str, &str); 2], more: &[(&str, &str)]) -> R {
    t.get(PRODUCT_SEARCH, &[&base[..], more].concat()).await
}

#[tokio::test]
async fn product_search_pages_filters_and_errors() {
    let t = start().await;
    let base = [("productRegion", "JP"), ("locale", "en-US")];
    let r = search(&t, base, &[("pageSize", "10"), ("facets", "OFFERS,IMAGES")]).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let count = r.body["matchingProductCount"].as_u64().unwrap();
    assert!(count >= 50, "{count}");
    assert_eq!(
        r.body["numberOfPages"].as_u64().unwrap(),
        count.div_ceil(10)
    );
    let p0 = &r.body["products"][0];
    assert!(
        p0["includedDataTypes"]["OFFERS"].is_array()
            && p0["includedDataTypes"]["IMAGES"][0]["thumbnail"]["url"].is_string()
    );
    assert!(p0.get("upcValues").is_none());
    let last = r.body["numberOfPages"].as_u64().unwrap() - 1;
    let r2 = search(
        &t,
        base,
        &[("pageSize", "10"), ("pageNumber", &last.to_string())],
    )
    .await;
    assert_eq!(r2.status, 200);
    assert_eq!(r2.body["matchingProductCount"].as_u64().unwrap(), count);
    let parents: Vec<&Value> = r.body["products"]
        .as_array()
        .unwrap()
        .iter()
        .chain(r2.body["products"].as_array().unwrap())
        .collect();
    let _ = parents;
    for (q, needle) in [
        (vec![base[1]], "productRegion"),
        (vec![base[0]], "locale"),
        (vec![base[0], ("locale", "english")], "locale"),
        (vec![base[0], base[1], ("pageSize", "25")], "pageSize"),
        (vec![base[0], base[1], ("pageNumber", "14")], "pageNumber"),
        (vec![base[0], base[1], ("pageNumber", "13")], "pageNumber"),
        (vec![base[0], base[1], ("minPrice", "-1")], "minPrice"),
        (vec![base[0], base[1], ("maxPrice", "-5")], "maxPrice"),
        (
            vec![("productRegion", "IN"), base[1], ("shippingRegion", "NA")],
            "shippingRegion",
        ),
    ] {
        let r = t.get(PRODUCT_SEARCH, &q).await;
        r.assert_refused("INVALID_REQUEST_PARAMETER", needle, &q);
    }
    // Price filter is inclusive and in the region's currency.
    let r = search(
        &t,
        base,
        &[
            ("minPrice", "1000"),
            ("maxPrice", "3000"),
            ("facets", "OFFERS"),
        ],
    )
    .await;
    for p in r.body["products"].as_array().unwrap() {
        if let Some(o) = p["includedDataTypes"]["OFFERS"].get(0) {
            let a = dec(&o["price"]["value"]["amount"]);
            assert!(a >= 1000.into() && a <= 3000.into());
        }
    }
    // Category filter and refinements.
    let r = search(&t, base, &[("category", "GROCERY")]).await;
    assert!(r.body["matchingProductCount"].as_u64().unwrap() > 0);
    assert!(
        r.body["refinements"]["categories"]
            .as_array()
            .unwrap()
            .len()
            >= 6
    );
}

#[tokio::test]
async fn product_offers_and_batches() {
    let t = start().await;
    let base = [("productRegion", "US"), ("locale", "en-US")];
    let r = search(&t, base, &[("keywords", "cable,mouse,keyboard,ssd,usb")]).await;
    let parent = r.body["products"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["asinType"] == "VARIATION_PARENT");
    let any = &r.body["products"][0];
    let asin = any["asin"].as_str().unwrap().to_string();
    let product = format!("{P}/products/{asin}");
    let d = t
        .get_ok(&product, &[base[0], base[1], ("quantity", "50")])
        .await;
    assert_eq!(
        d.body["includedDataTypes"]["OFFERS"][0]["price"]["value"]["currencyCode"],
        "USD"
    );
    if let Some(p) = parent {
        let children = p["productVariations"]["variations"].as_array().unwrap();
        assert_eq!(children.len(), 3);
        let c = t
            .get(
                &format!("{P}/products/{}", children[0]["asin"].as_str().unwrap()),
                &base,
            )
            .await;
        assert_eq!(c.body["asinType"], "VARIATION_CHILD");
    }
    let o = t.get(&format!("{P}/products/{asin}/offers"), &base).await;
    assert_eq!(o.status, 200);
    let n = o.body["offerCount"].as_u64().unwrap();
    assert!(n >= 1 && o.body["numberOfPages"] == 1);
    let offer_id = o.body["offers"][0]["offerId"].as_str().unwrap().to_string();
    let b = t
        .send(
            Method::POST,
            &format!("{P}/products/getProductsByAsins"),
            &[],
            &json!({"productIds": [asin, "B0NOTEXIST"], "productRegion": "US", "locale": "en-US"}),
        )
        .await;
    assert_eq!(b.status, 200, "{}", b.text);
    assert_eq!(b.body["products"].as_array().unwrap().len(), 1);
    let b = t
        .send(
            Method::POST,
            &format!("{P}/offers/getOffersByOfferIds"),
            &[("inclusionsForOffers", "price")],
            &json!({"offersByOfferIdsRequest": [{"offerId": offer_id}], "productRegion": "US", "locale": "en-US"}),
        )
        .await;
    assert_eq!(b.status, 200, "{}", b.text);
    assert_eq!(b.body["offers"][0]["offerId"], offer_id.as_str());
    let b = t
        .send(
            Method::POST,
            &format!("{P}/offers/getOffersByOfferIds"),
            &[],
            &json!({"offersByOfferIdsRequest": [{"offerId": offer_id}], "productRegion": "US", "locale": "en-US"}),
        )
        .await;
    assert!(b.status == 400 && b.message().contains("inclusionsForOffers"));
    // The published request model declares offersByOfferIdsRequest, productRegion, locale,
    // shippingRegion and shippingPostalCode, and nothing else: the old body is refused.
    for old in [
        json!({"offerIds": [offer_id], "productRegion": "US", "locale": "en-US"}),
        json!({"offersByOfferIdsRequest": [{"offerId": offer_id}], "productRegion": "US", "locale": "en-US", "quantity": 4}),
        json!({"offersByOfferIdsRequest": [offer_id], "productRegion": "US", "locale": "en-US"}),
        json!({"offersByOfferIdsRequest": [{"offerId": offer_id}], "productRegion": "US"}),
    ] {
        let b = t
            .send(
                Method::POST,
                &format!("{P}/offers/getOffersByOfferIds"),
                &[("inclusionsForOffers", "price")],
                &old,
            )
            .await;
        assert_eq!(b.status, 400, "{old}: {}", b.text);
    }
    assert_eq!(
        t.get(&format!("{P}/products/B0NOTEXIST"), &base)
            .await
            .status,
        404
    );
    let r = t
        .get(
            &format!("{P}/products/{asin}/offers"),
            &[base[0], base[1], ("pageNumber", "1")],
        )
        .await;
    assert!(r.status == 400 && r.message().contains("page count"));
}
