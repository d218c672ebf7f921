//! Product search 2020-08-26: searchProductsRequest, productsRequest, searchOffersRequest,
//! getProductsByAsins, getOffersByOfferIds. Prices are tax-exclusive, converted from yen at
//! fixed sandbox rates into the productRegion's currency.

use rust_decimal::Decimal;
use serde_json::{json, Map, Value};

use super::{csv, in_scope, region_group, valid_locale, REGIONS};
use crate::data::{Product, World, CATEGORIES};
use crate::http::{bad, missing, not_found, ApiResult, Req, Resp};
use crate::money::{convert, currency, money, num};
use crate::state::State;

/// The operations this group answers (operationId, handler).
pub(crate) static ROUTES: &[(&str, super::Handler)] = &[
    ("searchProductsRequest", search_products),
    ("productsRequest", product),
    ("searchOffersRequest", search_offers),
    ("getProductsByAsins", by_asins),
    ("getOffersByOfferIds", by_offer_ids),
];

pub const MAX_PAGE_SIZE: usize = 24;
/// "At most 13 pages (zero-based pageNumber)": page numbers 0 to 12 (docs/decisions/012-paging.md).
pub const MAX_PAGE_NUMBER: usize = 12;

pub struct Ctx {
    pub region: String,
    pub quantity: u32,
    pub offers: bool,
    pub images: bool,
    pub inclusions: Option<Vec<String>>,
    pub default_excluded: &'static [&'static str],
    /// Group of the calling user (guided buying).
    pub group: usize,
}

fn get<'a>(req: &'a Req, body: Option<&'a Value>, k: &str) -> Option<String> {
    if let Some(b) = body {
        if let Some(v) = b.get(k) {
            return match v {
                Value::String(s) => Some(s.clone()),
                Value::Array(a) => Some(
                    a.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(","),
                ),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            };
        }
    }
    req.q(k).map(String::from)
}

/// Validates productRegion, locale, shippingRegion and quantity.
fn context(
    st: &State,
    req: &Req,
    body: Option<&Value>,
    default_facets: &[&str],
    default_excluded: &'static [&'static str],
) -> Result<Ctx, Resp> {
    let region = match get(req, body, "productRegion") {
        None => return Err(missing("productRegion")),
        Some(r) if REGIONS.contains(&r.as_str()) => {
            in_scope(req, &r, "productRegion", "INVALID_REQUEST_PARAMETER")?;
            r
        }
        Some(r) => {
            return Err(bad(format!(
                "productRegion '{r}' is not a valid ProductRegion."
            )))
        }
    };
    match get(req, body, "locale") {
        None => return Err(missing("locale")),
        Some(l) if valid_locale(&l) => {}
        Some(l) => {
            return Err(bad(format!(
                "locale '{l}' is invalid; use language-COUNTRY such as en-US."
            )))
        }
    }
    if let Some(s) = get(req, body, "shippingRegion") {
        let g = region_group(&s)
            .ok_or_else(|| bad(format!("shippingRegion '{s}' is not a valid region.")))?;
        if Some(g) != region_group(&region) {
            return Err(bad(format!("Conflicting region information: shippingRegion {s} does not match productRegion {region}.")));
        }
    }
    let quantity = match get(req, body, "quantity") {
        None => 1,
        Some(q) => match q.parse::<u32>() {
            Ok(n) if n >= 1 => n,
            _ => return Err(bad(format!("quantity '{q}' must be an integer >= 1."))),
        },
    };
    let facets = match get(req, body, "facets") {
        Some(f) => csv(Some(&f)),
        None => default_facets.iter().map(|s| s.to_string()).collect(),
    };
    for f in &facets {
        if f != "OFFERS" && f != "IMAGES" {
            return Err(bad(format!(
                "facets value '{f}' is invalid; use OFFERS or IMAGES."
            )));
        }
    }
    let inclusions = req.q("inclusionsForProducts").map(|s| csv(Some(s)));
    let group = req
        .header("x-svc-user-email")
        .and_then(|e| st.world().user_by_email(e))
        .map(|u| st.world().users[u].group)
        .unwrap_or(0);
    Ok(Ctx {
        region,
        quantity,
        offers: facets.iter().any(|f| f == "OFFERS"),
        images: facets.iter().any(|f| f == "IMAGES"),
        inclusions,
        default_excluded,
        group,
    })
}

fn page_params(req: &Req) -> Result<(usize, usize), Resp> {
    let size = match req.q("pageSize") {
        None => MAX_PAGE_SIZE,
        Some(s) => match s.parse::<usize>() {
            Ok(n) if (1..=MAX_PAGE_SIZE).contains(&n) => n,
            _ => {
                return Err(bad(format!(
                    "pageSize '{s}' is invalid; it must be between 1 and {MAX_PAGE_SIZE}."
                )))
            }
        },
    };
    let number = match req.q("pageNumber") {
        None => 0,
        Some(s) => match s.parse::<usize>() {
            Ok(n) if n <= MAX_PAGE_NUMBER => n,
            _ => {
                return Err(bad(format!(
                    "pageNumber '{s}' is invalid; it must be between 0 and {MAX_PAGE_NUMBER} (at most 13 pages, zero-based)."
                )))
            }
        },
    };
    Ok((size, number))
}

fn check_page(number: usize, pages: usize) -> Result<(), Resp> {
    if number > 0 && number >= pages {
        return Err(bad(format!(
            "pageNumber {number} exceeds the page count {pages}."
        )));
    }
    Ok(())
}

/// Guided buying: the e-invoicing group may not buy books.
fn visible(w: &World, p: &Product, group: usize) -> bool {
    !(w.groups[group].einvoicing && CATEGORIES[p.category].id == "BOOKS")
}

pub fn unit_price(w: &World, pi: usize, oi: usize, qty: u32) -> Decimal {
    let o = &w.products[pi].offers[oi];
    let pct = o
        .tiers
        .iter()
        .filter(|(m, _)| qty >= *m)
        .map(|(_, p)| *p)
        .max()
        .unwrap_or(0);
    (o.price * (Decimal::ONE - Decimal::new(pct, 2))).round_dp(0)
}

fn fmt_price(d: Decimal, cur: &str) -> String {
    match cur {
        "JPY" => format!("¥{d}"),
        "USD" | "CAD" | "AUD" | "MXN" => format!("${d}"),
        "EUR" => format!("{d} €"),
        "GBP" => format!("£{d}"),
        "INR" => format!("₹{d}"),
        _ => format!("{d} {cur}"),
    }
}

pub fn offer_json(w: &World, pi: usize, oi: usize, region: &str, qty: u32) -> Value {
    let p = &w.products[pi];
    let o = &p.offers[oi];
    let cur = currency(region);
    let unit = convert(unit_price(w, pi, oi, qty), region);
    let list = convert(o.list_price, region);
    let seller = &w.sellers[w.seller_in(o.seller, region)];
    let ftype = if o.platform_fulfilled {
        "PLATFORM_FULFILLMENT"
    } else {
        "MERCHANT_FULFILLMENT"
    };
    let tiers: Vec<Value> = o.tiers.iter().map(|(m, pct)| {
        let up = convert((o.price * (Decimal::ONE - Decimal::new(*pct, 2))).round_dp(0), region);
        json!({"quantityDisplay": format!("{m}+"), "unitPrice": money(up, cur), "minQuantity": m,
               "price": {"value": money(up, cur), "formattedPrice": fmt_price(up, cur), "priceType": "BUSINESS"},
               "savingMessage": if *pct > 0 { format!("Save {pct}%") } else { String::new() },
               "taxExclusivePrice": {"taxExclusiveAmount": money(up, cur), "displayString": fmt_price(up, cur), "formattedPrice": fmt_price(up, cur), "label": "excl. tax"}})
    }).collect();
    let in_stock = o.stock > 0 && p.available;
    let today = w.today.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc();
    json!({
        "offerId": o.offer_id,
        "availability": if in_stock { "IN_STOCK" } else { "OUT_OF_STOCK" },
        "buyingGuidance": if o.preferred { "PREFERRED" } else { "NONE" },
        "buyingGuidanceV2": {"buyingGuidance": if o.preferred { vec![json!({"title": "Preferred", "message": "Preferred by your organization", "link": {"text": "Policy", "url": "https://policy.example.invalid/preferred"}, "type": "PREFERRED", "fragments": []})] } else { Vec::new() }},
        "buyingRestrictions": [],
        "fulfillmentType": ftype,
        "merchant": {"merchantId": seller.id, "name": seller.name, "meanFeedbackRating": num(Decimal::new(46, 1)), "totalFeedbackCount": 1200, "certificates": []},
        "fulfiller": {"name": if o.platform_fulfilled { "Sandbox Logistics" } else { seller.name.as_str() }, "fulfillmentType": ftype},
        "price": {"value": money(unit, cur), "formattedPrice": fmt_price(unit, cur), "priceType": "BUSINESS"},
        "listPrice": {"value": money(list, cur), "formattedPrice": fmt_price(list, cur), "priceType": "LIST_PRICE"},
        "shippingOptions": [{"shippingCost": {"value": money(if p.free_shipping { Decimal::ZERO } else { convert(Decimal::new(350, 0), region) }, cur)},
            "deliveryRange": {"min": super::iso(today + chrono::Duration::days(1)), "max": super::iso(today + chrono::Duration::days(3))},
            "deliveryInformation": "Delivery in 1-3 days", "thresholdCost": money(convert(Decimal::new(3500, 0), region), cur)}],
        "badges": [],
        "quantityInStock": o.stock,
        "productCondition": "NEW",
        "productConditionNote": "",
        "condition": {"conditionValue": "NEW", "conditionNote": "", "subCondition": "UNKNOWN"},
        "quantityLimits": {"maxQuantity": o.stock.clamp(1, 999), "minQuantity": 1},
        "quantityPrice": {"quantityPriceTiers": tiers},
        "taxExclusivePrice": {"taxExclusiveAmount": money(unit, cur), "displayString": fmt_price(unit, cur), "formattedPrice": fmt_price(unit, cur), "label": "excl. tax"},
        "deliveryInformation": "Delivery in 1-3 days",
    })
}

fn image(asin: &str) -> Value {
    let img = |s: &str, n: u32| json!({"height": n, "width": n, "url": format!("https://images.example.invalid/{asin}/{s}.jpg")});
    json!({"altText": format!("Image of {asin}"), "original": img("original", 1500), "large": img("large", 500),
           "medium": img("medium", 160), "small": img("small", 75), "thumbnail": img("thumbnail", 30)})
}

pub fn product_json(w: &World, pi: usize, ctx: &Ctx) -> Value {
    let p = &w.products[pi];
    let cat = &CATEGORIES[p.category];
    let mut included = Map::new();
    if ctx.offers {
        let featured: Vec<Value> = if p.offers.is_empty() {
            Vec::new()
        } else {
            vec![offer_json(w, pi, 0, &ctx.region, ctx.quantity)]
        };
        included.insert("OFFERS".into(), Value::Array(featured));
    }
    if ctx.images {
        included.insert("IMAGES".into(), json!([image(&p.asin)]));
    }
    let family = p.parent.unwrap_or(pi);
    let variations = if w.products[family].children.is_empty() {
        Value::Null
    } else {
        json!({
            "dimensions": [{"index": 0, "displayString": "Color", "dimensionValues": w.products[family].children.iter().enumerate().map(|(i, c)| json!({"index": i, "displayString": w.products[*c].color})).collect::<Vec<_>>()}],
            "variations": w.products[family].children.iter().enumerate().map(|(i, c)| json!({"asin": w.products[*c].asin, "variationValues": [{"index": 0, "value": i}]})).collect::<Vec<_>>(),
        })
    };
    let book = (cat.id == "BOOKS").then(|| json!({"isbn": {"isbn10": &p.upc[..10], "isbn13": format!("978{}", &p.upc[..10])}, "publicationDate": "2024-04-01", "publishedLanguage": "Japanese"}));
    let mut v = json!({
        "asin": p.asin,
        "asinType": p.asin_type,
        "signedProductId": format!("sig-{}", p.asin),
        "includedDataTypes": included,
        "features": [format!("{} quality", p.brand), format!("Category: {}", cat.name)],
        "editorialReviews": [],
        "taxonomies": [{"taxonomyCode": cat.unspsc, "title": cat.name, "type": "UNSPSC"}],
        "packageTypeNames": ["Box"],
        "title": p.title,
        "url": format!("https://catalog.example.invalid/dp/{}", p.asin),
        "format": if cat.id == "BOOKS" { json!("Paperback") } else { Value::Null },
        "bookInformation": book,
        "byLine": [p.brand],
        "mediaInformation": {"editions": [], "mediaFormats": []},
        "productOverview": {"Brand": p.brand, "Category": cat.name, "Sub category": p.sub},
        "productDetails": {"category": cat.id, "subCategory": p.sub, "available": p.available},
        "productVariations": variations,
        "customerReviewsSummary": {"numberOfRatings": p.rating.0, "starRating": {"value": num(p.rating.1)}},
        "productDescription": format!("{} from {}.", p.title, p.brand),
        "upcValues": [p.upc],
        "eanValues": [p.ean],
        "modelNumber": p.model_number,
        "manufacturerName": p.brand,
        "bundleQuantity": 1,
        "badges": [],
    });
    if let Some(m) = v.as_object_mut() {
        match &ctx.inclusions {
            Some(list) => m.retain(|k, _| {
                ["asin", "asinType", "signedProductId", "includedDataTypes"].contains(&k.as_str())
                    || list.iter().any(|x| x == k)
            }),
            None => m.retain(|k, _| !ctx.default_excluded.contains(&k.as_str())),
        }
    }
    v
}

pub fn search_products(st: &State, req: &Req) -> ApiResult {
    let ctx = context(
        st,
        req,
        None,
        &[],
        &["upcValues", "eanValues", "modelNumber", "manufacturerName"],
    )?;
    let (size, number) = page_params(req)?;
    let int_param = |k: &str| -> Result<Option<Decimal>, Resp> {
        match req.q(k) {
            None => Ok(None),
            Some(s) => match s.parse::<i64>() {
                Ok(n) if n >= 0 => Ok(Some(Decimal::from(n))),
                _ => Err(bad(format!("{k} '{s}' must be an integer >= 0."))),
            },
        }
    };
    let min = int_param("minPrice")?;
    let max = int_param("maxPrice")?;
    if let (Some(a), Some(b)) = (min, max) {
        if a > b {
            return Err(bad("minPrice must not be greater than maxPrice."));
        }
    }
    if let Some(a) = req.q("availability") {
        if a != "InStockOnly" && a != "IncludeOutOfStock" {
            return Err(bad(format!(
                "availability '{a}' is invalid; use InStockOnly or IncludeOutOfStock."
            )));
        }
    }
    let keywords: Vec<String> = csv(req.q("keywords"))
        .iter()
        .map(|k| k.to_lowercase())
        .collect();
    let filters = csv(req.q("productFilters"));
    for f in &filters {
        if !f.starts_with("isCustomQuoteEligible#") {
            return Err(bad(format!("productFilters value '{f}' is not supported; only isCustomQuoteEligible is implemented.")));
        }
    }
    let w = st.world();
    let ids = ["upc", "ean", "isbn", "sku", "partNumber", "oemPartNumber"];
    let matches: Vec<usize> = (0..w.products.len())
        .filter(|&i| {
            let p = &w.products[i];
            let cat = &CATEGORIES[p.category];
            if p.asin_type == "VARIATION_CHILD" || !visible(&w, p, ctx.group) {
                return false;
            }
            if !keywords.is_empty() {
                let hay = format!("{} {} {} {}", p.title, p.brand, cat.name, p.sub).to_lowercase();
                if !keywords.iter().any(|k| hay.contains(k.as_str())) {
                    return false;
                }
            }
            if req.q("category").is_some_and(|c| c != cat.id)
                || req.q("subCategory").is_some_and(|c| c != p.sub)
            {
                return false;
            }
            let in_stock =
                p.available && (p.offers.iter().any(|o| o.stock > 0) || !p.children.is_empty());
            if req.q("availability") == Some("InStockOnly") && !in_stock {
                return false;
            }
            if req.q("eligibleForFreeShipping").is_some() && !p.free_shipping {
                return false;
            }
            if req.q("primeEligible").is_some() && !p.prime {
                return false;
            }
            for f in &filters {
                let want = f.ends_with("#true");
                if p.custom_quote != want {
                    return false;
                }
            }
            for k in ids {
                if let Some(v) = req.q(k) {
                    let ok = match k {
                        "upc" => p.upc == v,
                        "ean" => p.ean == v,
                        "isbn" => {
                            cat.id == "BOOKS"
                                && (p.upc[..10] == *v || format!("978{}", &p.upc[..10]) == v)
                        }
                        "sku" | "partNumber" | "oemPartNumber" => p.part_number == v,
                        _ => true,
                    };
                    if !ok {
                        return false;
                    }
                }
            }
            if min.is_some() || max.is_some() {
                let price = match p.offers.first() {
                    Some(o) => convert(o.price, &ctx.region),
                    None => match p
                        .children
                        .first()
                        .and_then(|c| w.products[*c].offers.first())
                    {
                        Some(o) => convert(o.price, &ctx.region),
                        None => return false,
                    },
                };
                if min.is_some_and(|m| price < m) || max.is_some_and(|m| price > m) {
                    return false;
                }
            }
            true
        })
        .collect();
    let count = matches.len();
    let pages = count.div_ceil(size);
    check_page(number, pages)?;
    let products: Vec<Value> = matches
        .iter()
        .skip(number * size)
        .take(size)
        .map(|&i| product_json(&w, i, &ctx))
        .collect();
    let mut brands: Vec<&str> = matches
        .iter()
        .map(|&i| w.products[i].brand.as_str())
        .collect();
    brands.sort();
    brands.dedup();
    let opt = |n: &str, id: &str| json!({"displayName": n, "id": id});
    let body = json!({
        "matchingProductCount": count,
        "numberOfPages": pages,
        "searchRefinements": [{"selectionType": "MultiSelectOR", "displayValue": "Brand",
            "refinementValues": brands.iter().map(|b| json!({"displayName": b, "searchRefinementValue": format!("brand#{b}")})).collect::<Vec<_>>()}],
        "refinements": {
            "categories": CATEGORIES.iter().map(|c| opt(c.name, c.id)).collect::<Vec<_>>(),
            "subCategories": CATEGORIES.iter().filter(|c| req.q("category").is_none_or(|x| x == c.id)).flat_map(|c| c.subs.iter().map(|s| opt(s, s))).collect::<Vec<_>>(),
            "availabilityOptions": [opt("In stock only", "InStockOnly"), opt("Include out of stock", "IncludeOutOfStock")],
            "deliveryDayOptions": [opt("Get it by today", "GetItByToday"), opt("Get it by tomorrow", "GetItByTomorrow")],
            "eligibleForFreeShippingOptions": [opt("Free shipping only", "FreeShippingOnly")],
            "primeEligible": [opt("Prime eligible only", "PrimeEligibleOnly")],
        },
        "products": products,
    });
    Ok(Resp::json(200, &body))
}

fn find_product(w: &World, asin: &str) -> Result<usize, Resp> {
    if asin.trim().is_empty() {
        return Err(bad("productId must not be empty."));
    }
    w.product(asin)
        .ok_or_else(|| not_found(format!("Product {asin} was not found.")))
}

pub fn product(st: &State, req: &Req) -> ApiResult {
    let ctx = context(
        st,
        req,
        None,
        &["OFFERS", "IMAGES"],
        &["upcValues", "eanValues"],
    )?;
    let w = st.world();
    let pi = find_product(&w, req.param(0))?;
    if !visible(&w, &w.products[pi], ctx.group) {
        return Err(not_found(format!(
            "Product {} was not found.",
            req.param(0)
        )));
    }
    Ok(Resp::json(200, &product_json(&w, pi, &ctx)))
}

pub fn search_offers(st: &State, req: &Req) -> ApiResult {
    let ctx = context(st, req, None, &[], &[])?;
    let (size, number) = page_params(req)?;
    let filter_ids = csv(req.q("filterIds"));
    let w = st.world();
    let pi = find_product(&w, req.param(0))?;
    let offers: Vec<usize> = (0..w.products[pi].offers.len())
        .filter(|&oi| {
            filter_ids.is_empty() || filter_ids.contains(&w.products[pi].offers[oi].offer_id)
        })
        .collect();
    let pages = offers.len().div_ceil(size);
    check_page(number, pages)?;
    let page: Vec<Value> = offers
        .iter()
        .skip(number * size)
        .take(size)
        .map(|&oi| offer_json(&w, pi, oi, &ctx.region, ctx.quantity))
        .collect();
    Ok(Resp::json(
        200,
        &json!({"numberOfPages": pages, "offerCount": offers.len(), "offers": page}),
    ))
}

fn id_list(body: &Value, key: &str) -> Result<Vec<String>, Resp> {
    match body.get(key) {
        None | Some(Value::Null) => Err(missing(key)),
        Some(Value::Array(a)) if !a.is_empty() && a.len() <= 30 => a
            .iter()
            .map(|x| {
                x.as_str()
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .ok_or_else(|| bad(format!("{key} must contain non-empty strings.")))
            })
            .collect(),
        Some(_) => Err(bad(format!("{key} must be an array of 1 to 30 ids."))),
    }
}

pub fn by_asins(st: &State, req: &Req) -> ApiResult {
    let body = super::body(req)?;
    let ids = id_list(&body, "productIds")?;
    let ctx = context(
        st,
        req,
        Some(&body),
        &["OFFERS", "IMAGES"],
        &["upcValues", "eanValues"],
    )?;
    let w = st.world();
    let products: Vec<Value> = ids
        .iter()
        .filter_map(|a| w.product(a))
        .filter(|&pi| visible(&w, &w.products[pi], ctx.group))
        .map(|pi| product_json(&w, pi, &ctx))
        .collect();
    if products.is_empty() {
        return Err(not_found("None of the productIds was found."));
    }
    Ok(Resp::json(200, &json!({"products": products})))
}

/// The fields the published model declares for the getOffersByOfferIds body; the service
/// refuses any other.
const OFFERS_BY_IDS_FIELDS: [&str; 5] = [
    "offersByOfferIdsRequest",
    "productRegion",
    "locale",
    "shippingRegion",
    "shippingPostalCode",
];

/// The offer ids of `offersByOfferIdsRequest`: 1 to 30 objects `{"offerId": text}`.
fn offer_refs(body: &Value) -> Result<Vec<String>, Resp> {
    const KEY: &str = "offersByOfferIdsRequest";
    let list = match body.get(KEY) {
        None | Some(Value::Null) => return Err(missing(KEY)),
        Some(Value::Array(a)) if !a.is_empty() && a.len() <= 30 => a,
        Some(_) => return Err(bad(format!("{KEY} must be an array of 1 to 30 objects."))),
    };
    list.iter()
        .enumerate()
        .map(|(n, x)| match x.as_object() {
            Some(o) if o.len() == 1 => o
                .get("offerId")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .ok_or_else(|| bad(format!("{KEY}[{n}].offerId must be a non-empty string."))),
            _ => Err(bad(format!(
                "{KEY}[{n}] must be an object {{\"offerId\": string}}."
            ))),
        })
        .collect()
}

pub fn by_offer_ids(st: &State, req: &Req) -> ApiResult {
    if req.q("inclusionsForOffers").is_none_or(|s| s.is_empty()) {
        return Err(missing("inclusionsForOffers"));
    }
    let body = super::body(req)?;
    if let Some(k) = body.as_object().and_then(|o| {
        o.keys()
            .find(|k| !OFFERS_BY_IDS_FIELDS.contains(&k.as_str()))
    }) {
        return Err(bad(format!(
            "'{k}' is not a field of the request; it takes {}.",
            OFFERS_BY_IDS_FIELDS.join(", ")
        )));
    }
    let ids = offer_refs(&body)?;
    let ctx = context(st, req, Some(&body), &[], &[])?;
    let w = st.world();
    let offers: Vec<Value> = ids
        .iter()
        .filter_map(|o| w.offer(o))
        .map(|(pi, oi)| offer_json(&w, pi, oi, &ctx.region, ctx.quantity))
        .collect();
    if offers.is_empty() {
        return Err(not_found("None of the offers was found."));
    }
    Ok(Resp::json(200, &json!({"offers": offers})))
}
