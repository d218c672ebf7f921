//! Reconciliation 2021-01-08: getTransactions (50 per page, token-only paging) and
//! getInvoiceDetailsByOrderLineItems (JP tax-compliant invoice data, at most 25 inputs).

use rust_decimal::Decimal;
use serde_json::{json, Value};

use super::{bill_to, iso, listing_group, parse_dt, region_group, user_json, visible_at};
use crate::data::{InvoiceKind, Transaction, World};
use crate::http::{bad, missing, not_found, ApiResult, Req, Resp};
use crate::money::{money, money_str, tax_line, with_scale};
use crate::paging;
use crate::regions::{profile, rate_text};
use crate::state::State;

/// The operations this group answers (operationId, handler).
pub(crate) static ROUTES: &[(&str, super::Handler)] = &[
    ("getTransactions", get_transactions),
    ("getInvoiceDetailsByOrderLineItems", get_invoice_details),
];

pub const TRANSACTION_PAGE: usize = 50;
const CODE: &str = "INVALID_REQUEST_PARAMETER";
/// The names of a tax line's rate and tax in this interface.
const TAX_KEYS: (&str, &str) = ("rate", "amount");

pub fn get_transactions(st: &State, req: &Req) -> ApiResult {
    const OP: &str = "getTransactions";
    let given = paging::binding(&req.query, &["nextPageToken"]);
    let (binding, offset) = match req.q("nextPageToken") {
        Some(t) => {
            // Token-only paging; other parameters, if sent, must be the original ones.
            let check = if given.is_empty() {
                None
            } else {
                Some(given.as_str())
            };
            let (off, b) = paging::resolve(st, OP, t, check, CODE)?;
            (b, off)
        }
        None => (given, 0),
    };
    let q: Vec<(String, String)> = serde_urlencoded::from_str(
        &binding
            .split('&')
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                format!(
                    "{}={}",
                    crate::http::percent_encode(k),
                    crate::http::percent_encode(v)
                )
            })
            .collect::<Vec<_>>()
            .join("&"),
    )
    .unwrap_or_default();
    let get = |k: &str| q.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let dt = |k: &str| -> Result<chrono::DateTime<chrono::Utc>, Resp> {
        match get(k) {
            None => Err(missing(k)),
            Some(t) if t.is_empty() => Err(missing(k)),
            Some(t) => parse_dt(&t)
                .ok_or_else(|| bad(format!("{k} '{t}' is not a valid ISO 8601 date-time."))),
        }
    };
    let start = dt("feedStartDate")?;
    let end = dt("feedEndDate")?;
    if start > end {
        return Err(bad("feedStartDate must not be after feedEndDate."));
    }
    let w = st.world();
    // The address's group only (the root address lists FE, as it always did).
    let group = listing_group(req);
    let all: Vec<&Transaction> = w
        .transactions
        .iter()
        .filter(|t| t.feed_date >= start && t.feed_date < end && t.feed_date <= st.now())
        .filter(|t| region_group(&w.orders[w.invoices[t.invoice].order].region) == Some(group))
        .collect();
    let (page, next) = paging::page(&all, offset, TRANSACTION_PAGE, |t| transaction(&w, t));
    let body = json!({"transactions": page});
    Ok(paging::answer(st, w, (OP, &binding), body, next))
}

pub fn transaction(w: &World, t: &Transaction) -> Value {
    let inv = &w.invoices[t.invoice];
    let order = &w.orders[inv.order];
    let rp = profile(&order.region);
    let cur = rp.currency;
    // A string amount; zero discounts come as an empty currency with "0" (as seen on the wire).
    let amt = |d: Decimal, scale: u32| money_str(d, cur, scale);
    let totals = inv.totals();
    let ship = &order.shipments[inv.shipment];
    let seller = &w.sellers[inv.seller];
    let lines: Vec<Value> = inv
        .lines
        .iter()
        .map(|l| {
            let ol = &order.lines[l.order_line];
            let p = &w.products[ol.product];
            let info: serde_json::Map<String, Value> = order
                .business_info
                .iter()
                .map(|(k, v)| (k.clone(), json!(v)))
                .collect();
            json!({
                "totalAmount": amt(l.total(), t.scale),
                "principalAmount": amt(l.principal, t.scale),
                "shippingCharge": if l.shipping.is_zero() { json!({"currencyCode": cur, "amount": "0.0"}) } else { amt(l.shipping, t.scale) },
                "discount": if l.discount.is_zero() { json!({"currencyCode": "", "amount": "0"}) } else { amt(l.discount, t.scale) },
                "tax": amt(l.tax + l.shipping_tax, t.scale),
                "taxRate": rate_text(l.tax_rate),
                "orderId": order.id,
                "unspsc": crate::data::CATEGORIES[p.category].unspsc,
                "orderLineItemId": ol.id,
                "purchaseOrderNumber": order.po_number,
                "asin": p.asin,
                "productTitle": p.title,
                "itemQuantity": l.qty,
                "shipmentId": ship.id,
                "shipmentDate": iso(ship.date),
                "merchantLegalName": seller.name,
                "businessOrderInfo": info,
            })
        })
        .collect();
    let associated: Vec<Value> = match inv.associated {
        Some(a) => w
            .transactions
            .iter()
            .filter(|x| x.invoice == a)
            .map(|x| json!({"associatedTransactionId": x.id}))
            .collect(),
        None => Vec::new(),
    };
    let mut v = json!({
        "marketplaceId": rp.marketplace_id,
        "transactionDate": iso(t.date),
        "feedDate": iso(t.feed_date),
        "transactionType": if inv.kind == InvoiceKind::Standard { "CHARGE" } else { "REFUND" },
        "transactionId": t.id,
        "chargeIdentifier": format!("CHG-{}", &t.id[2..]),
        "shipTaxRate": rate_text(rp.standard_rate()),
        "giftWrapTaxRate": rate_text(rp.standard_rate()),
        "legalEntityName": w.legal_entities[order.legal_entity].name,
        "invoiceNumber": inv.number,
        "amount": json!({"currencyCode": cur, "amount": with_scale(totals.total, t.scale)}),
        "paymentInstrumentType": order.payment.instrument(),
        "buyer": user_json(w, order.buyer),
        "payer": user_json(w, 3),
        "associatedTransactionDetails": associated,
        "transactionLineItems": lines,
    });
    if let crate::data::Payment::Card { last4 } = order.payment {
        v["paymentInstrumentLast4Digits"] = json!(format!("{last4:04}"));
    }
    v
}

pub fn get_invoice_details(st: &State, req: &Req) -> ApiResult {
    let body = super::body(req)?;
    let items = match body.get("orderLineItems") {
        None | Some(Value::Null) => return Err(missing("orderLineItems")),
        Some(Value::Array(a)) => a.clone(),
        Some(_) => return Err(bad("orderLineItems must be an array.")),
    };
    if items.is_empty() {
        return Err(bad("orderLineItems must contain at least 1 item."));
    }
    if items.len() > 25 {
        return Err(bad(format!(
            "orderLineItems has {} items; at most 25 are allowed.",
            items.len()
        )));
    }
    let mut wanted = Vec::new();
    for (n, it) in items.iter().enumerate() {
        let field = |k: &str| -> Result<String, crate::http::Resp> {
            match it.get(k).and_then(Value::as_str) {
                Some(s) if !s.is_empty() => Ok(s.to_string()),
                _ => Err(bad(format!("orderLineItems[{n}].{k} is required."))),
            }
        };
        let oid = field("orderId")?;
        let lid = field("orderLineItemId")?;
        let sid = it
            .get("shipmentId")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        wanted.push((oid, lid, sid));
    }
    let w = st.world();
    let mut resolved = Vec::new();
    for (oid, lid, sid) in &wanted {
        let found = w.order(oid).and_then(|o| {
            w.orders[o]
                .lines
                .iter()
                .position(|l| &l.id == lid)
                .map(|l| (o, l))
        });
        let found = found.filter(|&(o, _)| visible_at(req, &w.orders[o].region));
        let Some((o, l)) = found else {
            return Err(not_found(format!(
                "Order line item not found: orderId={oid}, orderLineItemId={lid}."
            )));
        };
        let ship = &w.orders[o].shipments[w.orders[o].lines[l].shipment];
        if !sid.is_empty() && &ship.id != sid {
            return Err(not_found(format!(
                "Shipment {sid} does not contain orderLineItemId={lid}."
            )));
        }
        resolved.push((o, l));
    }
    let pending_name = w.specials.pending_consolidated.clone();
    drop(w);
    // The pending consolidated number reads "Pending" for the first two calls that ask for it.
    let mut pending_now = false;
    {
        let w = st.world();
        let asks = resolved.iter().any(|&(o, l)| {
            let inv = w.orders[o].shipments[w.orders[o].lines[l].shipment].invoice;
            inv.and_then(|i| w.invoices[i].consolidated.clone()) == pending_name
                && pending_name.is_some()
        });
        drop(w);
        if asks {
            let mut rt = st.rt();
            rt.pending_calls += 1;
            pending_now = rt.pending_calls <= 2;
        }
    }
    let w = st.world();
    let out: Vec<Value> = resolved
        .iter()
        .map(|&(o, l)| {
            let order = &w.orders[o];
            let line = &order.lines[l];
            let ship = &order.shipments[line.shipment];
            let mut details = Vec::new();
            if let Some(i) = ship.invoice {
                details.push(jp_invoice(&w, i, pending_now, &pending_name));
                for &m in &w.invoices[i].credit_memos {
                    if w.invoices[m].lines.iter().any(|x| x.order_line == l) {
                        details.push(jp_invoice(&w, m, pending_now, &pending_name));
                    }
                }
            }
            json!({"orderLineItem": {"orderId": order.id, "orderLineItemId": line.id, "shipmentId": ship.id},
                   "invoiceDetails": details})
        })
        .collect();
    Ok(Resp::json(
        200,
        &json!({"invoiceDetailsByOrderLineItems": out}),
    ))
}

/// The invoice data of one invoice or credit memo (tax-compliant in JP). The JP-only fields
/// (invoiceType, associatedInvoiceNumber, associatedInvoiceDate) are sent for JP only.
pub fn jp_invoice(
    w: &World,
    idx: usize,
    pending_now: bool,
    pending_name: &Option<String>,
) -> Value {
    let inv = &w.invoices[idx];
    let order = &w.orders[inv.order];
    let rp = profile(&order.region);
    let cur = rp.currency;
    let t = inv.totals();
    let seller = &w.sellers[inv.seller];
    let issuer = super::invoices::issuer(w, idx);
    let consolidated = inv.consolidated.as_ref().map(|c| {
        let shown = if pending_now && Some(c) == pending_name.as_ref() {
            "Pending".to_string()
        } else {
            c.clone()
        };
        json!({"invoiceNumber": shown})
    });
    let items: Vec<Value> = inv
        .lines
        .iter()
        .enumerate()
        .map(|(n, l)| {
            let ol = &order.lines[l.order_line];
            let p = &w.products[ol.product];
            let sign = if inv.kind == InvoiceKind::CreditMemo {
                -Decimal::ONE
            } else {
                Decimal::ONE
            };
            let unit_tax = rp.amount(rp.tax(l.unit_price, l.tax_rate) * sign);
            let unit = rp.amount(l.unit_price * sign);
            json!({
                "taxRate": rate_text(l.tax_rate),
                "unit": l.qty,
                "asin": p.asin,
                "title": p.title,
                "unitTaxExclusivePrice": money(unit, cur),
                "unitTaxAmount": money(unit_tax, cur),
                "unitTaxInclusivePrice": money(unit + unit_tax, cur),
                "totalAmount": money(l.principal + l.discount + l.tax, cur),
                "discount": if l.discount.is_zero() { Value::Null } else { money(l.discount, cur) },
                "apportionment": [{"orderLineItemId": ol.id, "lineNumber": n + 1, "units": l.qty,
                    "unitPrice": money(unit, cur), "taxAmount": money(l.tax, cur)}],
                "fees": [],
            })
        })
        .collect();
    let shipping: Decimal = inv.lines.iter().map(|l| l.shipping).sum();
    let shipping_tax: Decimal = inv.lines.iter().map(|l| l.shipping_tax).sum();
    let shipping_rate = inv
        .lines
        .iter()
        .find(|l| !l.shipping.is_zero())
        .map(|l| l.shipping_tax_rate)
        .unwrap_or(rp.standard_rate());
    let fees: Vec<Value> = if shipping.is_zero() {
        Vec::new()
    } else {
        vec![json!({
            "feeType": "SHIPPING",
            "tax": tax_line(TAX_KEYS, shipping_rate, shipping, shipping_tax, cur),
            "discount": money(rp.amount(Decimal::ZERO), cur),
            "apportionment": [{"taxExclusiveFee": money(shipping, cur), "taxAmount": money(shipping_tax, cur)}],
        })]
    };
    let tax: Vec<Value> = t
        .breakdown
        .iter()
        .map(|&(r, e, x)| tax_line(TAX_KEYS, r, e, x, cur))
        .collect();
    let mut v = json!({
        "invoiceNumber": inv.number,
        "invoiceDate": iso(inv.issue_date),
        "consolidatedInvoiceDetails": consolidated,
        "invoiceIssuer": issuer,
        "billToAddress": bill_to(w, order.legal_entity),
        "sellerInformation": {"name": seller.name, "registrationNumber": seller.registration},
        "orderDate": iso(order.date),
        "currencyCode": cur,
        "invoiceTotal": t.total.to_string(),
        "tax": tax,
        "transactionDataItems": items,
        "fees": fees,
    });
    if order.region == "JP" {
        let (assoc_no, assoc_date) = match inv.associated {
            Some(a) => (
                json!(w.invoices[a].number),
                json!(iso(w.invoices[a].issue_date)),
            ),
            None => (Value::Null, Value::Null),
        };
        v["invoiceType"] = json!(inv.kind.wire());
        v["associatedInvoiceNumber"] = assoc_no;
        v["associatedInvoiceDate"] = assoc_date;
    }
    v
}
