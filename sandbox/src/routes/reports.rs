//! Reports 2021-09-30: createReport (202), getReport (state machine driven by scaled time and
//! polls), getReportDocument (presigned address on the documents host).

use chrono::Duration;
use serde_json::{json, Value};

use super::{iso, marketplace_region, region_group, visible_at};
use crate::data::{InvoiceKind, World};
use crate::http::{bad, missing, not_found, ApiResult, Req, Resp};
use crate::regions::{profile, rate_text};
use crate::state::{Report, State};

/// The operations this group answers (operationId, handler).
pub(crate) static ROUTES: &[(&str, super::Handler)] = &[
    ("createReport", create_report),
    ("getReport", get_report),
    ("getReportDocument", get_report_document),
];

pub fn create_report(st: &State, req: &Req) -> ApiResult {
    let body = super::body(req)?;
    match body.get("reportType").and_then(Value::as_str) {
        None | Some("") => return Err(missing("reportType")),
        Some("GET_AB_INVOICE_PDF") => {}
        Some(t) => {
            return Err(bad(format!(
                "reportType '{t}' is not supported; supported value: GET_AB_INVOICE_PDF."
            )))
        }
    }
    let mids: Vec<String> = match body.get("marketplaceIds") {
        None | Some(Value::Null) => return Err(missing("marketplaceIds")),
        Some(Value::Array(a)) if !a.is_empty() => {
            let mut out = Vec::new();
            for m in a {
                match m.as_str() {
                    Some(s) => out.push(s.to_string()),
                    None => return Err(bad("marketplaceIds must be strings.")),
                }
            }
            out
        }
        Some(_) => return Err(bad("marketplaceIds must be a non-empty array.")),
    };
    let mut group = None;
    for m in &mids {
        let g = marketplace_region(m)
            .and_then(region_group)
            .ok_or_else(|| {
                bad(format!(
                    "marketplaceIds value '{m}' is not a known marketplace."
                ))
            })?;
        if group.is_some_and(|x| x != g) {
            return Err(bad(
                "marketplaceIds must all belong to one regional group (NA, EU or FE).",
            ));
        }
        if let Some(s) = req.scope.filter(|s| *s != g) {
            return Err(bad(format!(
                "marketplaceIds value '{m}' is not served by this address (the {s} group's); use the {g} address."
            )));
        }
        group = Some(g);
    }
    let group = group.unwrap_or("FE");
    let opts = match body.get("reportOptions") {
        Some(Value::Object(o)) => o.clone(),
        None | Some(Value::Null) => return Err(missing("reportOptions")),
        Some(_) => return Err(bad("reportOptions must be an object.")),
    };
    let opt = |k: &str| {
        opts.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(String::from)
    };
    let doc_type = opt("documentType");
    if let Some(d) = &doc_type {
        if d != "Invoice" && d != "Credits" {
            return Err(bad(format!(
                "reportOptions.documentType '{d}' is invalid; use Invoice or Credits."
            )));
        }
    }
    let w = st.world();
    type Outcome = (&'static str, Option<String>, Vec<(String, Vec<u8>)>);
    let cancelled = |why: String| -> Outcome { ("CANCELLED", Some(why), Vec::new()) };
    let (outcome, message, files): Outcome = if let Some(inv_id) = opt("invoiceId") {
        if doc_type.as_deref() != Some("Invoice") {
            return Err(bad("reportOptions.documentType is required and must be Invoice for a consolidated invoice (invoiceId)."));
        }
        if inv_id == "Pending" {
            return Err(bad("reportOptions.invoiceId 'Pending' is not an invoice number yet; retry once it is available."));
        }
        let members: Vec<usize> = (0..w.invoices.len())
            .filter(|&i| w.invoices[i].consolidated.as_deref() == Some(inv_id.as_str()))
            .collect();
        if members.is_empty() {
            return Err(not_found(format!(
                "Consolidated invoice {inv_id} was not found."
            )));
        }
        if group != "FE" {
            cancelled(format!(
                "Consolidated invoice {inv_id} is a JP invoice; the requested marketplaces are in the {group} group."
            ))
        } else {
            (
                "DONE",
                None,
                vec![(
                    format!("{inv_id}.pdf"),
                    consolidated_pdf(&w, &inv_id, &members),
                )],
            )
        }
    } else {
        let Some(order_id) = opt("orderId") else {
            return Err(bad("reportOptions.orderId is required."));
        };
        let line_id = opt("orderLineItemId");
        if line_id.is_none() && group != "EU" {
            return Err(bad(
                "reportOptions.orderLineItemId is required outside the EU.",
            ));
        }
        let Some(o) = w
            .order(&order_id)
            .filter(|&o| visible_at(req, &w.orders[o].region))
        else {
            return Err(not_found(format!("Order {order_id} was not found.")));
        };
        let order = &w.orders[o];
        let order_group = region_group(&order.region).unwrap_or("FE");
        let line = match &line_id {
            Some(l) => match order.lines.iter().position(|x| &x.id == l) {
                Some(i) => Some(i),
                None => {
                    return Err(not_found(format!(
                        "Order line item {l} was not found in order {order_id}."
                    )))
                }
            },
            None => None,
        };
        if let (Some(sid), Some(l)) = (opt("shipmentId"), line) {
            if order.shipments[order.lines[l].shipment].id != sid {
                return Err(not_found(format!(
                    "Shipment {sid} does not contain order line item {}.",
                    order.lines[l].id
                )));
            }
        }
        if order.id == w.specials.fatal_order {
            (
                "FATAL",
                Some(format!(
                    "The documents of order {order_id} could not be produced."
                )),
                Vec::new(),
            )
        } else if order_group != group {
            cancelled(format!(
                "Order {order_id} was placed in marketplace {} ({order_group}); the requested marketplaces are in the {group} group.",
                order.region
            ))
        } else if order.digital {
            cancelled(format!(
                "Order {order_id} is a digital order: no invoice documents are issued for digital orders."
            ))
        } else if group == "NA" && order.payment.is_card() {
            // NA: invoice PDFs exist only for Pay-by-Invoice orders (docs/decisions/015-documents.md, "Reports that end without a document").
            cancelled(format!(
                "No invoice document: in North America invoice documents exist only for orders paid by Pay by Invoice, and order {order_id} was paid by card ({}).",
                order.payment.label(profile(&order.region))
            ))
        } else if order.id == w.specials.error_document_order {
            let err = json!({"errorMessage": "The invoice document could not be retrieved for the requested order line item.",
                "inputParams": {"requestPreferences": {"orderId": order_id, "orderLineItemId": line_id.clone().unwrap_or_default()}},
                "errorCode": "CLIENT_ERROR"});
            (
                "DONE",
                None,
                vec![("error.json".into(), err.to_string().into_bytes())],
            )
        } else {
            let shipments: Vec<usize> = match line {
                Some(l) => vec![order.lines[l].shipment],
                None => (0..order.shipments.len()).collect(),
            };
            let mut files = Vec::new();
            for &s in &shipments {
                let Some(inv) = order.shipments[s].invoice else {
                    continue;
                };
                if doc_type.as_deref() != Some("Credits") {
                    files.push((
                        format!("{}.pdf", w.invoices[inv].number),
                        invoice_pdf(&w, inv),
                    ));
                }
                if doc_type.as_deref() != Some("Invoice") {
                    for &m in &w.invoices[inv].credit_memos {
                        if line
                            .is_none_or(|l| w.invoices[m].lines.iter().any(|x| x.order_line == l))
                        {
                            files.push((
                                format!("{}.pdf", w.invoices[m].number),
                                invoice_pdf(&w, m),
                            ));
                        }
                    }
                }
            }
            if !files.is_empty() {
                ("DONE", None, files)
            } else if shipments
                .iter()
                .all(|&s| order.shipments[s].invoice.is_none())
            {
                cancelled(format!(
                    "Order {order_id} has not shipped yet: invoice documents become downloadable once the shipment event has happened."
                ))
            } else {
                cancelled(format!(
                    "Order {order_id} has no {} document{}.",
                    if doc_type.as_deref() == Some("Credits") {
                        "credit memo"
                    } else {
                        "invoice"
                    },
                    line.map(|l| format!(" for order line item {}", order.lines[l].id))
                        .unwrap_or_default()
                ))
            }
        }
    };
    drop(w);
    // The invoices this report holds, for the per-invoice count of report jobs.
    let invoices: Vec<String> = files
        .iter()
        .map(|(name, _)| name.trim_end_matches(".pdf").to_string())
        .collect();
    let archive = if files.is_empty() {
        None
    } else {
        Some(crate::archive::zip_then_gzip(&files).map_err(|_| {
            crate::http::envelope(
                500,
                "InternalFailure",
                "We encountered an internal error. Please try again.",
            )
        })?)
    };
    let now = st.now();
    let mut rt = st.rt();
    rt.next_id += 1;
    let id = format!(
        "{}",
        50_000_000_000u64 + rt.next_id * 7 + (now.timestamp_subsec_micros() as u64 % 7)
    );
    rt.reports.insert(
        id.clone(),
        Report {
            id: id.clone(),
            created: now,
            state: "IN_QUEUE",
            polls_in_state: 0,
            state_since: now,
            processing_start: None,
            processing_end: None,
            outcome,
            message,
            archive,
            marketplace_ids: mids,
            options: Value::Object(opts),
            document_id: None,
        },
    );
    drop(rt);
    st.counters.report_created(&invoices);
    Ok(Resp::json(202, &json!({"reportId": id})))
}

pub fn get_report(st: &State, req: &Req) -> ApiResult {
    let id = req.param(0).to_string();
    if id.trim().is_empty() {
        return Err(bad("reportId must not be empty."));
    }
    let now = st.now();
    let mut rt = st.rt();
    let rt = &mut *rt;
    let Some(r) = rt.reports.get_mut(&id) else {
        return Err(not_found(format!("Report {id} was not found.")));
    };
    if now - r.created > Duration::days(30) {
        return Err(not_found(format!(
            "Report {id} was not found (reports are served for 30 days)."
        )));
    }
    let elapsed = now - r.created;
    let done_after = crate::clock::chrono_dur(st.config.report_duration);
    // When the state in force may next change (`None`: it is an end state).
    let step_at = |state: &str| match state {
        "IN_QUEUE" => Some(done_after / 2),
        "IN_PROGRESS" => Some(done_after),
        _ => None,
    };
    let advance = r.polls_in_state >= 1 && step_at(r.state).is_some_and(|at| elapsed >= at);
    if advance {
        if r.state == "IN_QUEUE" {
            r.state = "IN_PROGRESS";
            r.processing_start = Some(now);
        } else {
            r.state = r.outcome;
            r.processing_end = Some(now);
            if r.outcome == "DONE" {
                rt.next_id += 1;
                let doc = format!("amzn1.tortuga.sbx.{}.{}", r.id, rt.next_id);
                if let Some(a) = r.archive.take() {
                    rt.documents.insert(doc.clone(), a);
                }
                r.document_id = Some(doc);
            }
        }
        r.polls_in_state = 0;
        r.state_since = now;
    }
    r.polls_in_state += 1;
    let mut v = json!({
        "reportId": r.id,
        "reportType": "GET_AB_INVOICE_PDF",
        "createdTime": iso(r.created),
        "processingStatus": r.state,
        "marketplaceIds": r.marketplace_ids,
        "reportOptions": r.options,
    });
    if let Some(t) = r.processing_start {
        v["processingStartTime"] = json!(iso(t));
    }
    if let Some(t) = r.processing_end {
        v["processingEndTime"] = json!(iso(t));
    }
    if let Some(d) = &r.document_id {
        v["reportDocumentId"] = json!(d);
    }
    // Not in the spec's Report: why a report ended CANCELLED or FATAL (docs/sandbox.md).
    if let (Some(m), "CANCELLED" | "FATAL") = (&r.message, r.state) {
        v["processingStatusMessage"] = json!(m);
    }
    let mut resp = Resp::json(200, &v);
    // Sandbox-only (docs/sandbox.md): while the report runs, when to poll again, in whole
    // real seconds (the time scale applied), so that a client's wait follows the scale.
    if let Some(at) = step_at(r.state) {
        let left = (at - elapsed).to_std().unwrap_or_default();
        let real = left.as_secs_f64() / st.clock.scale();
        resp.headers
            .push(("Retry-After".into(), format!("{}", real.floor() as u64)));
    }
    Ok(resp)
}

pub fn get_report_document(st: &State, req: &Req) -> ApiResult {
    let id = req.param(0).to_string();
    if id.trim().is_empty() {
        return Err(bad("reportDocumentId must not be empty."));
    }
    if !st.rt().documents.contains_key(&id) {
        return Err(not_found(format!("Report document {id} was not found.")));
    }
    let url = crate::documents::presign(st, &id);
    Ok(Resp::json(
        200,
        &json!({"reportDocumentId": id, "url": url, "compressionAlgorithm": "GZIP"}),
    ))
}

fn invoice_pdf(w: &World, idx: usize) -> Vec<u8> {
    let inv = &w.invoices[idx];
    let order = &w.orders[inv.order];
    let rp = profile(&order.region);
    let cur = rp.currency;
    let t = inv.totals();
    let title = match (inv.kind, rp.group) {
        (InvoiceKind::Standard, "EU") => "VAT Invoice",
        (InvoiceKind::Standard, _) => "Invoice",
        (InvoiceKind::CreditMemo, "EU") => "VAT Credit Note",
        (InvoiceKind::CreditMemo, _) => "Credit Memo",
    };
    let seller = &w.sellers[inv.seller];
    let tax_word = match rp.group {
        "EU" => "VAT",
        "NA" if order.region == "US" => "sales tax",
        "NA" if order.region == "MX" => "IVA",
        "NA" => "HST/GST",
        _ => "tax",
    };
    let mut lines = vec![
        format!("{title} {}", inv.number),
        format!("Issue date: {}", iso(inv.issue_date)),
        format!(
            "Order: {}   Shipment: {}   Marketplace: {}",
            order.id, order.shipments[inv.shipment].id, order.region
        ),
        format!("Bill to: {}", w.legal_entities[order.legal_entity].name),
        match (&seller.registration, order.region.as_str()) {
            (Some(_), "JP") => format!(
                "Issuer: {} ({})  Seller: {}",
                w.platform_entity.0, w.platform_entity.1, seller.name
            ),
            (Some(r), _) => format!("Issuer: {} ({r})", seller.name),
            (None, _) => format!("Issuer: {} (no registration number)", seller.name),
        },
        format!("Payment: {}", order.payment.label(rp)),
        String::new(),
    ];
    for l in &inv.lines {
        let ol = &order.lines[l.order_line];
        let p = &w.products[ol.product];
        lines.push(format!(
            "{} {} x{} @ {} {cur} = {} {cur} ({})",
            p.asin,
            p.title,
            l.qty,
            l.unit_price,
            l.principal,
            rate_text(l.tax_rate)
        ));
    }
    lines.push(String::new());
    for (r, e, x) in &t.breakdown {
        lines.push(format!(
            "{} taxable {e} {cur}, {tax_word} {x} {cur}",
            rate_text(*r)
        ));
    }
    lines.push(format!("Total: {} {cur}", t.total));
    crate::pdf::render(&lines)
}

fn consolidated_pdf(w: &World, number: &str, members: &[usize]) -> Vec<u8> {
    let mut lines = vec![format!("Consolidated Invoice {number}"), String::new()];
    let mut total = rust_decimal::Decimal::ZERO;
    for &m in members {
        let t = w.invoices[m].totals();
        total += t.total;
        lines.push(format!(
            "{} {} {} JPY",
            w.invoices[m].number,
            iso(w.invoices[m].issue_date),
            t.total
        ));
    }
    lines.push(format!("Total: {total} JPY"));
    crate::pdf::render(&lines)
}
