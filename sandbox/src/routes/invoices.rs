//! Invoices 2026-02-01: getInvoices (10 per page), getInvoiceDetailByInvoiceNumber,
//! getInvoiceLineItemsByInvoiceNumber (10 per page, line items then reversal units).

use chrono::{Datelike, Duration};
use serde_json::{json, Value};

use super::{bill_to, date_range, in_scope, iso, listing_group, region_group, req_region, REGIONS};
use crate::data::{InvLine, Invoice, InvoiceKind, World};
use crate::http::{bad, not_found, ApiResult, Req, Resp};
use crate::money::{money, tax_line};
use crate::paging;
use crate::regions::profile;
use crate::state::State;

/// The operations this group answers (operationId, handler).
pub(crate) static ROUTES: &[(&str, super::Handler)] = &[
    ("getInvoices", get_invoices),
    ("getInvoiceDetailByInvoiceNumber", get_detail),
    ("getInvoiceLineItemsByInvoiceNumber", get_line_items),
];

pub const INVOICE_PAGE: usize = 10;
pub const LINE_PAGE: usize = 10;
const CODE: &str = "INVALID_REQUEST_PARAMETER";

pub fn get_invoices(st: &State, req: &Req) -> ApiResult {
    let (start, end) = date_range(
        st,
        req,
        ("invoiceIssueStartDate", "invoiceIssueEndDate"),
        CODE,
    )?;
    let region = match req.q("region") {
        None => None,
        Some(r) if REGIONS.contains(&r) => {
            in_scope(req, r, "region", CODE)?;
            Some(r.to_string())
        }
        Some(r) => return Err(bad(format!("region '{r}' is not a valid Region."))),
    };
    let mut bca_only = false;
    if let Some(p) = req.q("paymentMethodTypes") {
        let types = super::csv(Some(p));
        if types.is_empty() {
            return Err(bad("paymentMethodTypes must contain at least one item."));
        }
        if let Some(t) = types.iter().find(|t| t.as_str() != "BCA") {
            return Err(bad(format!(
                "paymentMethodTypes value '{t}' is not supported; supported value: BCA."
            )));
        }
        bca_only = true;
    }
    let binding = paging::binding(&req.query, &["nextPageToken"]);
    let offset = paging::offset(st, "getInvoices", req.q("nextPageToken"), &binding, CODE)?;
    let w = st.world();
    // Omitted region: every marketplace of the address's group.
    let group = listing_group(req);
    let mut matching: Vec<&Invoice> = w
        .invoices
        .iter()
        .filter(|i| i.issue_date >= start && i.issue_date <= end)
        .filter(|i| {
            let o = &w.orders[i.order];
            match &region {
                Some(r) => &o.region == r,
                None => region_group(&o.region) == Some(group),
            }
        })
        .filter(|i| !bca_only || w.orders[i.order].payment.method_type() == "BCA")
        .collect();
    matching.sort_by_key(|i| (i.issue_date, i.number.clone()));
    let (page, next) = paging::page(&matching, offset, INVOICE_PAGE, |i| summary(&w, i));
    let body = obj!({"invoices": page});
    Ok(paging::answer(st, w, ("getInvoices", &binding), body, next))
}

fn metadata(w: &World, i: &Invoice) -> Value {
    json!({"invoiceNumber": i.number, "issueDate": iso(i.issue_date), "type": i.kind.wire(), "region": w.orders[i.order].region})
}

fn summary(w: &World, i: &Invoice) -> Value {
    let mut v = obj!({"invoiceMetadata": metadata(w, i), "status": i.status});
    if i.periodic {
        v["consolidationType"] = json!("PERIODIC");
    }
    v
}

/// Validates the invoice number path parameter and the region; the invoice index.
fn lookup(st: &State, req: &Req) -> Result<usize, Resp> {
    let number = req.param(0);
    if number.trim().is_empty() {
        return Err(bad("invoiceNumber must not be empty."));
    }
    if number.len() > 64
        || !number
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(bad(format!("invoiceNumber '{number}' is invalid.")));
    }
    let region = req_region(req, CODE)?;
    in_scope(req, &region, "region", CODE)?;
    let w = st.world();
    match w.invoice(number) {
        Some(i) if w.orders[w.invoices[i].order].region == region => Ok(i),
        _ => Err(not_found(format!(
            "Invoice {number} was not found in region {region}."
        ))),
    }
}

pub fn get_detail(st: &State, req: &Req) -> ApiResult {
    let idx = lookup(st, req)?;
    let w = st.world();
    Ok(Resp::json(200, &obj!({"invoiceDetail": detail(&w, idx)})))
}

pub fn detail(w: &World, idx: usize) -> Value {
    let inv = &w.invoices[idx];
    let t = inv.totals();
    let order = &w.orders[inv.order];
    let (pstart, pend) = if inv.periodic {
        let d = inv.issue_date.date_naive();
        let first = d.with_day(1).unwrap_or(d);
        let next = if first.month() == 12 {
            first
                .with_year(first.year() + 1)
                .and_then(|x| x.with_month(1))
        } else {
            first.with_month(first.month() + 1)
        }
        .unwrap_or(first);
        (
            first.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc(),
            next.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc() - Duration::seconds(1),
        )
    } else {
        let d = inv.issue_date.date_naive();
        (
            d.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc(),
            d.and_hms_opt(23, 59, 59).unwrap_or_default().and_utc(),
        )
    };
    let rp = profile(&order.region);
    let cur = rp.currency;
    let qualified = inv.qualified(w);
    let issuer = issuer(w, idx);
    let mut amount_details = Vec::new();
    match inv.kind {
        InvoiceKind::Standard => {
            amount_details
                .push(obj!({"type": "itemSubtotal", "amount": money(t.item_subtotal, cur)}));
            amount_details
                .push(obj!({"type": "shippingAndHandling", "amount": money(t.shipping, cur)}));
            amount_details
                .push(obj!({"type": "promosAndDiscounts", "amount": money(t.promos, cur)}));
            amount_details.push(obj!({"type": "giftWrapping", "amount": money(rp.amount(rust_decimal::Decimal::ZERO), cur)}));
        }
        InvoiceKind::CreditMemo => {
            amount_details.push(obj!({"type": "refund", "amount": money(t.item_subtotal + t.shipping + t.promos, cur)}));
        }
    }
    amount_details.push(obj!({"type": "salesTax", "amount": money(t.tax, cur)}));
    amount_details.push(obj!({"type": "amountDue", "amount": money(t.total, cur)}));
    let breakdown: Vec<Value> = t
        .breakdown
        .iter()
        .map(|&(r, e, x)| tax_line(("taxRate", "taxAmount"), r, e, x, cur))
        .collect();
    let due = pend.date_naive() + Duration::days(30);
    let customer = &w.legal_entities[order.legal_entity];
    obj!({
        "invoiceMetadata": metadata(w, inv),
        "period": obj!({"startDate": iso(pstart), "endDate": iso(pend)}),
        "issuer": issuer,
        "billToAddress": bill_to(w, order.legal_entity),
        "customer": obj!({"legalEntityId": customer.id.as_str(), "legalEntityName": customer.name.as_str()}),
        "dueDate": obj!({"date": iso(due.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc())}),
        "paymentMethod": order.payment.label(rp),
        "totalAmount": money(t.total, cur),
        "artifacts": vec![
            obj!({"artifactType": "BillingDetails", "amountDetails": amount_details}),
            obj!({"artifactType": if qualified { "PurchaseFromQualifiedIssuer" } else { "PurchaseFromOtherIssuer" }, "taxBreakdown": breakdown}),
        ],
    })
}

pub fn get_line_items(st: &State, req: &Req) -> ApiResult {
    let idx = lookup(st, req)?;
    let binding = format!("{}|{}", req.param(0), req.q("region").unwrap_or(""));
    const OP: &str = "getInvoiceLineItemsByInvoiceNumber";
    let offset = paging::offset(st, OP, req.q("nextPageToken"), &binding, CODE)?;
    let w = st.world();
    let inv = &w.invoices[idx];
    // The invoice's own lines first, then the reversal units of its credit memos.
    let mut all: Vec<(usize, &InvLine)> = inv.lines.iter().map(|l| (idx, l)).collect();
    for &m in &inv.credit_memos {
        all.extend(w.invoices[m].lines.iter().map(|l| (m, l)));
    }
    let (page, next) = paging::page(&all, offset, LINE_PAGE, |(i, l)| line_item(&w, *i, l));
    let body = obj!({"lineItems": page});
    Ok(paging::answer(st, w, (OP, &binding), body, next))
}

/// A line item as the spec shows one ("fields of a line item beyond those listed: not
/// shown"): nothing the service is not known to send (docs/sandbox.md, "Fields only the
/// sandbox sends").
fn line_item(w: &World, inv_idx: usize, l: &InvLine) -> Value {
    let inv = &w.invoices[inv_idx];
    let order = &w.orders[inv.order];
    let ol = &order.lines[l.order_line];
    obj!({
        "invoiceNumber": inv.number.as_str(),
        "transactionType": if inv.kind == InvoiceKind::Standard { "CHARGE" } else { "REFUND" },
        "orderMetadata": json!({"orderId": order.id, "orderDate": {"date": iso(order.date)}}),
        "lineItemMetadata": json!({"orderLineItemId": ol.id}),
    })
}

/// Who issued an invoice: in JP the platform's local entity for sellers with a registration
/// number (intermediary issuance), else the seller without a number; elsewhere the seller
/// itself, with its VAT/GST/RFC number when it has one.
pub fn issuer(w: &World, idx: usize) -> Value {
    let inv = &w.invoices[idx];
    let seller = &w.sellers[inv.seller];
    if w.orders[inv.order].region == "JP" && seller.registration.is_some() {
        json!({"name": w.platform_entity.0, "registrationNumber": w.platform_entity.1})
    } else {
        json!({"name": seller.name, "registrationNumber": seller.registration})
    }
}
