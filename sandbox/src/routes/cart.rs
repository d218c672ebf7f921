//! Cart 2025-04-30: listCarts (5 per page by default, at most 10), getCart, getItems, addItems,
//! modifyItems, deleteItems (204) and getEstimatedTotalPurchaseCost.

use std::sync::MutexGuard;

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde_json::{json, Value};

use super::{in_scope, iso, req_region};
use crate::data::{Cart, World};
use crate::http::{bad, missing, not_found, ApiResult, Req, Resp};
use crate::money::{convert, currency, money};
use crate::paging;
use crate::state::State;

/// The operations this group answers (operationId, handler).
pub(crate) static ROUTES: &[(&str, super::Handler)] = &[
    ("listCarts", list_carts),
    ("getCart", get_cart),
    ("getItems", get_items),
    ("addItems", add_items),
    ("modifyItems", modify_items),
    ("deleteItems", delete_items),
    ("getEstimatedTotalPurchaseCost", estimate),
];

const CODE: &str = "INVALID_REQUEST_PARAMETER";

fn item_json(w: &World, c: &Cart, i: usize) -> Value {
    let it = &c.items[i];
    let p = &w.products[it.product];
    let cur = currency(&c.region);
    let unit = convert(
        super::products::unit_price(w, it.product, it.offer, it.qty),
        &c.region,
    );
    let available = p.available && p.offers.get(it.offer).is_some_and(|o| o.stock >= it.qty);
    json!({
        "itemId": it.item_id,
        "productIdentifier": p.asin,
        "buyingOptionIdentifier": p.offers.get(it.offer).map(|o| o.offer_id.clone()).unwrap_or_default(),
        "quantity": it.qty,
        "isItemAvailable": available,
        "price": money(unit, cur),
        "taxExclusivePrice": money(unit, cur),
        "addedToCartDate": iso(it.added),
        "modifiedDate": iso(it.modified),
    })
}

fn subtotal(w: &World, c: &Cart) -> Decimal {
    c.items
        .iter()
        .map(|it| {
            convert(
                super::products::unit_price(w, it.product, it.offer, it.qty),
                &c.region,
            ) * Decimal::from(it.qty)
        })
        .sum()
}

fn details(w: &World, c: &Cart) -> Value {
    json!({"id": c.id, "cartType": "DEFAULT", "region": c.region,
           "attributes": [{"attributeType": "SubTotal", "amount": money(subtotal(w, c), currency(&c.region))}]})
}

fn items(w: &World, c: &Cart) -> Vec<Value> {
    (0..c.items.len()).map(|i| item_json(w, c, i)).collect()
}

/// The cart of the path, checked against region and (when sent) the user.
fn find(w: &World, req: &Req) -> Result<usize, Resp> {
    let region = req_region(req, CODE)?;
    in_scope(req, &region, "region", CODE)?;
    let id = req.param(0);
    if id.trim().is_empty() {
        return Err(bad("cartId must not be empty."));
    }
    let Some(ci) = w.carts.iter().position(|c| c.id == id) else {
        return Err(not_found(format!("Cart {id} was not found.")));
    };
    if w.carts[ci].region != region {
        return Err(bad(format!(
            "region {region} does not match the region of cart {id}."
        )));
    }
    if let Some(u) = req
        .header("x-svc-user-email")
        .and_then(|e| w.user_by_email(e))
    {
        if w.carts[ci].owner != u {
            return Err(not_found(format!("Cart {id} was not found.")));
        }
    }
    Ok(ci)
}

pub fn list_carts(st: &State, req: &Req) -> ApiResult {
    let region = req_region(req, CODE)?;
    in_scope(req, &region, "region", CODE)?;
    let size = match req.q("pageSize") {
        None => 5,
        Some(s) => match s.parse::<usize>() {
            Ok(n) if (1..=10).contains(&n) => n,
            _ => {
                return Err(bad(format!(
                    "pageSize '{s}' is invalid; it must be between 1 and 10."
                )))
            }
        },
    };
    let email = req
        .header("x-svc-user-email")
        .unwrap_or("")
        .to_ascii_lowercase();
    let binding = format!("{email}|{}", paging::binding(&req.query, &["pageToken"]));
    let offset = paging::offset(st, "listCarts", req.q("pageToken"), &binding, CODE)?;
    let w = st.world();
    let owner = w.user_by_email(&email);
    let mine: Vec<&Cart> = w
        .carts
        .iter()
        .filter(|c| Some(c.owner) == owner && c.region == region)
        .collect();
    let (page, next) = paging::page(&mine, offset, size, |c| details(&w, c));
    let body = json!({"cartDetailsList": page});
    Ok(paging::answer(st, w, ("listCarts", &binding), body, next))
}

pub fn get_cart(st: &State, req: &Req) -> ApiResult {
    let w = st.world();
    let ci = find(&w, req)?;
    Ok(Resp::json(200, &details(&w, &w.carts[ci])))
}

pub fn get_items(st: &State, req: &Req) -> ApiResult {
    let w = st.world();
    let ci = find(&w, req)?;
    Ok(Resp::json(200, &json!({"items": items(&w, &w.carts[ci])})))
}

fn items_array(body: &Value) -> Result<Vec<Value>, Resp> {
    match body.get("items") {
        None | Some(Value::Null) => Err(missing("items")),
        Some(Value::Array(a)) if !a.is_empty() => Ok(a.clone()),
        Some(_) => Err(bad("items must be a non-empty array.")),
    }
}

/// The non-empty text `field` of item `n`.
fn required<'a>(item: &'a Value, n: usize, field: &str) -> Result<&'a str, Resp> {
    item.get(field)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| bad(format!("items[{n}].{field} is required.")))
}

/// What an offer has in stock (nothing while its product is unavailable).
fn stock(w: &World, pi: usize, oi: usize) -> u32 {
    if w.products[pi].available {
        w.products[pi].offers[oi].stock
    } else {
        0
    }
}

fn quantity(v: &Value, n: usize, min: u64) -> Result<u32, Resp> {
    match v.get("quantity").and_then(Value::as_u64) {
        Some(q) if q >= min && q <= 9999 => Ok(q as u32),
        _ => Err(bad(format!(
            "items[{n}].quantity must be an integer between {min} and 9999."
        ))),
    }
}

/// What a change of a cart's items starts from: the request's items, the calendar's now, the
/// world (locked) and the cart's index.
type ItemsChange<'a> = (Vec<Value>, DateTime<Utc>, MutexGuard<'a, World>, usize);

fn items_change<'a>(st: &'a State, req: &Req) -> Result<ItemsChange<'a>, Resp> {
    let body = super::body(req)?;
    let list = items_array(&body)?;
    let now = st.calendar_now();
    let w = st.world();
    let ci = find(&w, req)?;
    Ok((list, now, w, ci))
}

/// The answer to a change `op` of cart `ci`'s items (counted): the items now, and the ones
/// refused.
fn items_changed(st: &State, op: &str, w: &World, ci: usize, rejected: Vec<Value>) -> Resp {
    st.counters.cart_mutation(op);
    let body = json!({"items": items(w, &w.carts[ci]), "rejectedItems": rejected});
    Resp::json(200, &body)
}

pub fn add_items(st: &State, req: &Req) -> ApiResult {
    let (list, now, mut w, ci) = items_change(st, req)?;
    // Validate everything before changing anything.
    let mut wanted = Vec::new();
    for (n, it) in list.iter().enumerate() {
        let pid = required(it, n, "productIdentifier")?;
        let oid = required(it, n, "buyingOptionIdentifier")?;
        let qty = quantity(it, n, 1)?;
        let unknown = || format!("items[{n}].buyingOptionIdentifier '{oid}' is not a known offer.");
        let foreign =
            || format!("items[{n}].buyingOptionIdentifier does not belong to product {pid}.");
        let (pi, oi) = super::offer_of(&w, pid, oid, unknown, foreign)?;
        // Required by the published model.
        let ext = required(it, n, "externalId")?.to_string();
        wanted.push((pi, oi, qty, ext));
    }
    let mut rejected = Vec::new();
    for (pi, oi, qty, ext) in wanted {
        let stock = stock(&w, pi, oi);
        let existing = w.carts[ci]
            .items
            .iter()
            .position(|x| x.product == pi && x.offer == oi);
        let current = existing.map(|e| w.carts[ci].items[e].qty).unwrap_or(0);
        if current + qty > stock {
            rejected.push(json!({"id": ext, "rejectionArtifacts": [{"quantity": stock.saturating_sub(current), "rejectionArtifactType": "UnavailableQuantity"}]}));
            continue;
        }
        match existing {
            Some(e) => {
                let it = &mut w.carts[ci].items[e];
                it.qty += qty;
                it.modified = now;
            }
            None => {
                let id = w.new_item_id();
                w.carts[ci].items.push(crate::data::CartItem {
                    item_id: id,
                    product: pi,
                    offer: oi,
                    qty,
                    added: now,
                    modified: now,
                });
            }
        }
    }
    Ok(items_changed(st, "addItems", &w, ci, rejected))
}

pub fn modify_items(st: &State, req: &Req) -> ApiResult {
    let (list, now, mut w, ci) = items_change(st, req)?;
    let mut changes = Vec::new();
    for (n, it) in list.iter().enumerate() {
        let id = required(it, n, "itemId")?;
        let qty = quantity(it, n, 0)?;
        if !w.carts[ci].items.iter().any(|x| x.item_id == id) {
            return Err(bad(format!(
                "items[{n}].itemId '{id}' is not in cart {}.",
                w.carts[ci].id
            )));
        }
        changes.push((id.to_string(), qty));
    }
    let mut rejected = Vec::new();
    for (id, qty) in changes {
        let Some(pos) = w.carts[ci].items.iter().position(|x| x.item_id == id) else {
            continue;
        };
        if qty == 0 {
            w.carts[ci].items.remove(pos);
            continue;
        }
        let (pi, oi) = (w.carts[ci].items[pos].product, w.carts[ci].items[pos].offer);
        let stock = stock(&w, pi, oi);
        if qty > stock {
            rejected.push(json!({"id": id, "rejectionArtifacts": [{"quantity": stock, "rejectionArtifactType": "UnavailableQuantity"}]}));
            continue;
        }
        let it = &mut w.carts[ci].items[pos];
        it.qty = qty;
        it.modified = now;
    }
    Ok(items_changed(st, "modifyItems", &w, ci, rejected))
}

pub fn delete_items(st: &State, req: &Req) -> ApiResult {
    let mut w = st.world();
    let ci = find(&w, req)?;
    w.carts[ci].items.clear();
    st.counters.cart_mutation("deleteItems");
    Ok(Resp::empty(204))
}

pub fn estimate(st: &State, req: &Req) -> ApiResult {
    let body = super::body(req)?;
    let addr = match body.get("address") {
        Some(Value::Object(a)) => a.clone(),
        None | Some(Value::Null) => return Err(missing("address")),
        Some(_) => return Err(bad("address must be an object.")),
    };
    // The published cart model lists addressType as required; its value is PhysicalAddress.
    match addr.get("addressType").and_then(Value::as_str) {
        None | Some("") => {
            return Err(bad("address.addressType is required; use PhysicalAddress."))
        }
        Some("PhysicalAddress") => {}
        Some(t) => {
            return Err(bad(format!(
                "address.addressType '{t}' is invalid; use PhysicalAddress."
            )))
        }
    }
    for k in [
        "fullName",
        "addressLine1",
        "city",
        "stateOrRegion",
        "postalCode",
        "countryCode",
    ] {
        if addr
            .get(k)
            .and_then(Value::as_str)
            .is_none_or(|s| s.is_empty())
        {
            return Err(bad(format!("address.{k} is required.")));
        }
    }
    let w = st.world();
    let ci = find(&w, req)?;
    let c = &w.carts[ci];
    let country = addr
        .get("countryCode")
        .and_then(Value::as_str)
        .unwrap_or("");
    let cart_country = if c.region == "UK" {
        "GB"
    } else {
        c.region.as_str()
    };
    let all_ids: Vec<String> = c.items.iter().map(|i| i.item_id.clone()).collect();
    let unavailable: Vec<String> = c
        .items
        .iter()
        .filter(|it| {
            !w.products[it.product].available
                || w.products[it.product]
                    .offers
                    .get(it.offer)
                    .is_none_or(|o| o.stock < it.qty)
        })
        .map(|it| it.item_id.clone())
        .collect();
    if !(country.eq_ignore_ascii_case(cart_country) || (country == "UK" && cart_country == "GB")) {
        return Ok(Resp::json(
            200,
            &json!({"charges": [], "rejectionArtifacts": [{"cartItemIdentifiers": all_ids,
            "message": format!("The items cannot be shipped to country {country}."), "rejectionArtifactType": "UnsupportedCartItems"}]}),
        ));
    }
    if !unavailable.is_empty() {
        return Ok(Resp::json(
            200,
            &json!({"charges": [], "rejectionArtifacts": [{"cartItemIdentifiers": unavailable,
            "message": "Some items are no longer available.", "rejectionArtifactType": "UnsupportedCartItems"}]}),
        ));
    }
    // The region's rules, as its orders are priced: tax per rate of the items' classes,
    // shipping (with the standard rate's tax) below the free-shipping subtotal.
    let rp = crate::regions::profile(&c.region);
    let cur = currency(&c.region);
    let sub = rp.amount(subtotal(&w, c));
    let ship = if c.items.is_empty() || sub >= rp.free_shipping_from() {
        rp.amount(Decimal::ZERO)
    } else {
        rp.shipping_fee()
    };
    let mut by_rate: std::collections::BTreeMap<Decimal, Decimal> = Default::default();
    for it in &c.items {
        let line = convert(
            super::products::unit_price(&w, it.product, it.offer, it.qty),
            &c.region,
        ) * Decimal::from(it.qty);
        *by_rate
            .entry(w.products[it.product].tax_rate(rp))
            .or_default() += line;
    }
    let item_tax: Decimal = by_rate
        .iter()
        .map(|(r, base)| rp.tax(*base, *r))
        .fold(rp.amount(Decimal::ZERO), |a, b| a + b);
    let ship_tax = rp.tax(ship, rp.standard_rate());
    let charge = |t: &str, cat: &str, a: Decimal| json!({"type": t, "category": cat, "amount": money(a, cur)});
    Ok(Resp::json(
        200,
        &json!({"charges": [
        charge("PRINCIPAL", "SUBTOTAL", sub),
        charge("PRINCIPAL", "SHIPPING", ship),
        charge("TAX", "SUBTOTAL", item_tax),
        charge("TAX", "SHIPPING", ship_tax),
    ], "rejectionArtifacts": []}),
    ))
}
