//! Reporting: getOrdersByOrderId (2021-01-08, string money) and getShipmentLineItemReports
//! (2025-06-09, numeric money, 100 per page, InvalidInput errors).

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde_json::{json, Value};

use super::{
    csv, date_range, in_scope, iso, listing_group, region_group, user_json, visible_at, REGIONS,
};
use crate::data::{Order, World, CATEGORIES};
use crate::http::{bad, invalid_input, not_found, ApiResult, Req, Resp};
use crate::money::{money, money_str};
use crate::paging;
use crate::state::State;

/// The operations this group answers (operationId, handler).
pub(crate) static ROUTES: &[(&str, super::Handler)] = &[
    ("getOrdersByOrderId", get_order),
    ("getShipmentLineItemReports", shipment_line_items),
];

pub const SLI_PAGE: usize = 100;
const SLI_CODE: &str = "InvalidInput";

fn flag(req: &Req, k: &str) -> Result<bool, Resp> {
    match req.q(k) {
        None => Ok(false),
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(v) => Err(bad(format!("{k} '{v}' must be true or false."))),
    }
}

fn ms(d: Decimal, cur: &str) -> Value {
    money_str(d, cur, 2)
}

pub fn get_order(st: &State, req: &Req) -> ApiResult {
    let (li, sh, ch) = (
        flag(req, "includeLineItems")?,
        flag(req, "includeShipments")?,
        flag(req, "includeCharges")?,
    );
    let id = req.param(0);
    if id.trim().is_empty() {
        return Err(bad("orderId must not be empty."));
    }
    let w = st.world();
    let Some(oi) = w
        .order(id)
        .filter(|&o| visible_at(req, &w.orders[o].region))
    else {
        return Err(not_found(format!("Order {id} was not found.")));
    };
    let o = &w.orders[oi];
    let cur = o.currency.as_str();
    let sum =
        |f: &dyn Fn(&crate::data::OrderLine) -> Decimal| o.lines.iter().map(f).sum::<Decimal>();
    let info: serde_json::Map<String, Value> = o
        .business_info
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    let mut v = json!({
        "orderDate": iso(o.date),
        "orderId": o.id,
        "purchaseOrderNumber": o.po_number,
        "orderQuantity": o.lines.iter().map(|l| l.qty).sum::<u32>(),
        "orderStatus": o.status,
        "lastOrderApproverName": w.users[3].name,
        "buyingCustomer": user_json(&w, o.buyer),
        "buyerGroupName": w.groups[o.group].name,
        "businessOrderInfo": info,
        "orderSubTotal": ms(sum(&|l| l.principal), cur),
        "orderShippingAndHandling": ms(sum(&|l| l.shipping), cur),
        "orderPromotion": ms(sum(&|l| l.discount), cur),
        "orderTax": ms(sum(&|l| l.tax + l.shipping_tax), cur),
        "orderNetTotal": ms(sum(&|l| l.total()), cur),
    });
    if li {
        v["lineItems"] = Value::Array(o.lines.iter().map(|l| {
            let p = &w.products[l.product];
            let ship = &o.shipments[l.shipment];
            let seller = &w.sellers[ship.seller];
            let country = if seller.region == "UK" { "GB" } else { seller.region };
            json!({
                "orderLineItemId": l.id,
                "productCategory": CATEGORIES[p.category].name, "asin": p.asin, "title": p.title,
                "unspsc": CATEGORIES[p.category].unspsc, "productCondition": "New",
                "listedPricePerUnit": ms(l.unit_price, cur), "purchasedPricePerUnit": ms(l.unit_price, cur),
                "itemQuantity": l.qty, "itemSubTotal": ms(l.principal, cur),
                "itemShippingAndHandling": ms(l.shipping, cur), "itemPromotion": ms(l.discount, cur),
                "itemTax": ms(l.tax + l.shipping_tax, cur), "itemNetTotal": ms(l.total(), cur),
                "purchaseOrderLineItem": l.po_line, "taxExemptionApplied": false, "taxExemptionType": null,
                "taxExemptOptOut": false, "discountProgram": null, "discountType": null, "discountAmount": null, "discountRatio": null,
                "seller": {"sellerName": seller.name, "sellerPrimaryAddress": {"addressLine1": seller.address_line1, "addressLine2": "", "city": seller.city, "state": seller.state, "postalCode": seller.postal_code, "countryCode": country},
                           "sellerCity": seller.city, "sellerState": seller.state, "sellerPostalCode": seller.postal_code},
                "sellerCredentials": [], "sellerCredentialDetails": [],
                "brandCode": p.brand.to_uppercase().replace(' ', "_"), "brandName": p.brand, "manufacturerName": p.brand,
                "transactionIds": ship.invoice.and_then(|i| w.transactions.iter().find(|t| t.invoice == i)).map(|t| vec![t.id.clone()]).unwrap_or_default(),
                "carrierTrackingNumbers": ship.packages.iter().map(|p| p.tracking_id.clone()).collect::<Vec<_>>(),
            })
        }).collect());
    }
    if sh {
        v["shipments"] = Value::Array(o.shipments.iter().filter(|s| s.date <= st.now()).map(|s| json!({
            "shipmentId": s.id, "shipmentDate": iso(s.date), "shipmentStatus": "SHIPPED",
            "carrierName": s.packages[0].carrier,
            "packages": s.packages.iter().map(|p| json!({"packageId": p.id, "trackingId": p.tracking_id})).collect::<Vec<_>>(),
        })).collect());
    }
    if ch {
        v["charges"] = Value::Array(o.shipments.iter().filter_map(|s| s.invoice).flat_map(|i| w.transactions.iter().filter(move |t| t.invoice == i)).map(|t| json!({
            "transactionId": t.id, "transactionDate": iso(t.date), "transactionType": "CHARGE",
            "amount": ms(w.invoices[t.invoice].totals().total, cur),
        })).collect());
    }
    Ok(Resp::json(200, &json!({"orders": [v], "size": 1})))
}

fn list_param(req: &Req, k: &str) -> Result<Option<Vec<String>>, Resp> {
    match req.q(k) {
        None => Ok(None),
        Some(s) => {
            let v = csv(Some(s));
            if v.is_empty() || v.len() > 30 {
                return Err(invalid_input(format!(
                    "{k} must contain 1 to 30 entries; got {}.",
                    v.len()
                )));
            }
            Ok(Some(v))
        }
    }
}

pub fn shipment_line_items(st: &State, req: &Req) -> ApiResult {
    let (start, end) = date_range(st, req, ("orderStartDate", "orderEndDate"), SLI_CODE)?;
    let pos = list_param(req, "purchaseOrderNumbers")?;
    let ids = list_param(req, "orderIds")?;
    let region = match req.q("region") {
        None => None,
        Some(r) if REGIONS.contains(&r) => {
            in_scope(req, r, "region", SLI_CODE)?;
            Some(r.to_string())
        }
        Some(r) => {
            return Err(invalid_input(format!(
                "region '{r}' is not a valid Region."
            )))
        }
    };
    let group = listing_group(req);
    let binding = paging::binding(&req.query, &["nextPageToken"]);
    const OP: &str = "getShipmentLineItemReports";
    let offset = paging::offset(st, OP, req.q("nextPageToken"), &binding, SLI_CODE)?;
    let now = st.now();
    let w = st.world();
    let mut orders: Vec<&Order> = w
        .orders
        .iter()
        .filter(|o| o.date >= start && o.date <= end)
        .filter(|o| match &region {
            Some(r) => &o.region == r,
            None => region_group(&o.region) == Some(group),
        })
        .filter(|o| pos.as_ref().is_none_or(|p| p.contains(&o.po_number)))
        .filter(|o| ids.as_ref().is_none_or(|i| i.contains(&o.id)))
        .collect();
    orders.sort_by_key(|o| o.date);
    let rows: Vec<(&Order, usize)> = orders
        .iter()
        .flat_map(|o| {
            (0..o.lines.len())
                .filter(|&l| o.shipments[o.lines[l].shipment].date <= now)
                .map(move |l| (*o, l))
        })
        .collect();
    let (page, next) = paging::page(&rows, offset, SLI_PAGE, |(o, l)| sli(&w, o, *l, now));
    let body = json!({"shipmentLineItemsReport": page, "size": page.len()});
    Ok(paging::answer(st, w, (OP, &binding), body, next))
}

fn sli(w: &World, o: &Order, li: usize, now: DateTime<Utc>) -> Value {
    let l = &o.lines[li];
    let p = &w.products[l.product];
    let s = &o.shipments[l.shipment];
    let cur = o.currency.as_str();
    let receiving = match s.delivered {
        Some(d) if d <= now => {
            json!({"customer": user_json(w, o.buyer), "date": iso(d), "status": "ALL_ITEMS_RECEIVED", "quantity": l.qty})
        }
        _ => Value::Null,
    };
    json!({
        "orderMetadata": {"orderDate": iso(o.date), "orderId": o.id, "region": o.region},
        "shipmentMetadata": {"shipmentId": s.id, "shipmentDate": iso(s.date)},
        "purchaseOrderNumber": o.po_number,
        "orderLineItemId": l.id,
        "purchaseOrderLineItemNumber": l.po_line,
        "productDetails": {"productCategory": CATEGORIES[p.category].name, "asin": p.asin, "title": p.title,
            "unspsc": {"code": CATEGORIES[p.category].unspsc}, "productCondition": "New",
            "brandCode": p.brand.to_uppercase().replace(' ', "_"), "brandName": p.brand, "manufacturerName": p.brand, "serialNumbers": null},
        "charges": [
            {"type": "SUBTOTAL", "amount": money(l.principal, cur)},
            {"type": "SHIPPING_AND_HANDLING", "amount": money(l.shipping, cur)},
            {"type": "PROMOTION", "amount": money(l.discount, cur)},
            {"type": "TAX", "amount": money(l.tax + l.shipping_tax, cur)},
            {"type": "NET_TOTAL", "amount": money(l.total(), cur)},
        ],
        "quantity": l.qty,
        "carrierName": s.packages[0].carrier,
        "packages": s.packages.iter().map(|pk| json!({"trackingId": pk.tracking_id, "packageId": pk.id})).collect::<Vec<_>>(),
        "receivingInfo": receiving,
    })
}
