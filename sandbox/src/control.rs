//! The control path under /_sandbox/ (no auth): faults, counters, clocks of tokens, rates.

use serde_json::{json, Value};

use crate::faults::FaultRule;
use crate::http::{Req, Resp};
use crate::state::State;

fn err(msg: &str) -> Resp {
    Resp::json(400, &json!({"error": msg}))
}

pub fn handle(st: &State, req: &Req) -> Resp {
    let body: Value = if req.body.is_empty() {
        Value::Null
    } else {
        match serde_json::from_slice(&req.body) {
            Ok(v) => v,
            Err(e) => return err(&format!("invalid JSON: {e}")),
        }
    };
    match (req.method.as_str(), req.path.as_str()) {
        ("POST", "/_sandbox/faults") => {
            let rules: Vec<&Value> = match &body {
                Value::Array(a) => a.iter().collect(),
                v => vec![v],
            };
            let mut parsed = Vec::new();
            for r in rules {
                match FaultRule::from_json(r).and_then(|f| f.check().map(|()| f)) {
                    Ok(f) => parsed.push(f),
                    Err(e) => return err(&e),
                }
            }
            let n = parsed.len();
            for f in parsed {
                st.faults.add(f);
            }
            Resp::json(201, &json!({"installed": n}))
        }
        ("GET", "/_sandbox/faults") => Resp::json(200, &st.faults.list()),
        ("DELETE", "/_sandbox/faults") => {
            st.faults.clear();
            Resp::empty(204)
        }
        ("GET", "/_sandbox/counters") => Resp::json(200, &st.counters.to_json()),
        ("POST", "/_sandbox/reset-counters") => {
            st.counters.reset();
            Resp::empty(204)
        }
        ("POST", "/_sandbox/expire-tokens") => {
            st.auth.expire_all(st.now());
            Resp::empty(204)
        }
        ("POST", "/_sandbox/revoke") => {
            st.auth.revoke();
            Resp::empty(204)
        }
        ("POST", "/_sandbox/rate") => {
            let op = body.get("operation").and_then(Value::as_str);
            let rate = body.get("rate").and_then(Value::as_f64);
            let burst = body.get("burst").and_then(Value::as_u64);
            match (op, rate) {
                (Some(op), Some(rate))
                    if rate.is_finite() && rate > 0.0 && abws_spec::by_id(op).is_some() =>
                {
                    let burst = burst.unwrap_or_else(|| st.limiter.limit(op).1 as u64) as u32;
                    st.limiter.set(op, rate, burst.max(1));
                    Resp::json(
                        200,
                        &json!({"operation": op, "rate": rate, "burst": burst.max(1)}),
                    )
                }
                _ => err("operation (a known operationId) and rate (> 0) are required"),
            }
        }
        ("GET", "/_sandbox/credentials") => Resp::json(200, &credentials_json(st)),
        ("GET", "/_sandbox/dataset") => Resp::json(200, &dataset(st)),
        ("GET", "/_sandbox/clock") => Resp::json(
            200,
            &json!({"now": st.calendar_now().to_rfc3339(), "scaledNow": st.now().to_rfc3339(), "today": st.clock.start().date_naive().to_string(), "timeScale": st.clock.scale()}),
        ),
        _ => Resp::json(404, &json!({"error": "unknown control path"})),
    }
}

pub fn credentials_json(st: &State) -> Value {
    let c = &st.creds;
    json!({
        "client_id": c.client_id, "client_secret": c.client_secret,
        "refresh_token": c.refresh_token, "user_email": c.user_email,
        "application_id": c.application_id, "redirect_uri": c.redirect_uri,
    })
}

/// A summary of the data set: the ids tests and examples need.
pub fn dataset(st: &State) -> Value {
    let w = st.world();
    let s = &w.specials;
    // The previous calendar month of `today`.
    let first_this = w.today.with_day0(0).unwrap_or(w.today);
    let first_prev = (first_this - chrono::Duration::days(1))
        .with_day0(0)
        .unwrap_or(first_this);
    let prev_month = |region: &str| -> Vec<&str> {
        w.invoices
            .iter()
            .filter(|i| w.orders[i.order].region == region)
            .filter(|i| {
                let d = i.issue_date.date_naive();
                d >= first_prev && d < first_this
            })
            .map(|i| i.number.as_str())
            .collect()
    };
    let line = |l: &Option<crate::data::LineRef>| {
        l.as_ref()
            .map(|(o, li, sh)| json!({"orderId": o, "orderLineItemId": li, "shipmentId": sh}))
    };
    // Per marketplace: rules, counts and notable orders (docs/sandbox.md, "Regions").
    let mut regions = serde_json::Map::new();
    for p in crate::regions::PROFILES {
        let orders: Vec<usize> = (0..w.orders.len())
            .filter(|&i| w.orders[i].region == p.code)
            .collect();
        let invoices = w
            .invoices
            .iter()
            .filter(|i| w.orders[i.order].region == p.code)
            .count();
        let transactions = w
            .transactions
            .iter()
            .filter(|t| w.orders[w.invoices[t.invoice].order].region == p.code)
            .count();
        let card = orders
            .iter()
            .filter(|&&i| w.orders[i].payment.is_card())
            .count();
        let mut r = json!({
            "group": p.group,
            "currency": p.currency,
            "marketplaceId": p.marketplace_id,
            "taxRates": {
                "standard": crate::regions::rate_text(p.rate(crate::regions::TaxClass::Standard)),
                "food": crate::regions::rate_text(p.rate(crate::regions::TaxClass::Food)),
                "books": crate::regions::rate_text(p.rate(crate::regions::TaxClass::Books)),
            },
            "orders": orders.len(),
            "cardOrders": card,
            "invoices": invoices,
            "transactions": transactions,
            "carts": w.carts.iter().filter(|c| c.region == p.code).map(|c| c.id.clone()).collect::<Vec<_>>(),
            "previousMonthInvoices": prev_month(p.code),
        });
        if let Some((_, sp)) = s.regional.iter().find(|(c, _)| *c == p.code) {
            r["payByInvoiceLine"] = json!(line(&sp.pay_by_invoice));
            r["cardLine"] = json!(line(&sp.card));
            r["creditMemoLine"] = json!(line(&sp.credit_memo));
            r["digitalOrderIds"] = json!(sp.digital);
        }
        regions.insert(p.code.to_string(), r);
    }
    json!({
        "today": w.today.to_string(),
        "customer": {"id": w.customer_id, "name": w.customer_name},
        "legalEntities": w.legal_entities.iter().map(|l| json!({"id": l.id, "name": l.name,
            "auxiliary": l.aux.iter().map(|(k, v)| json!({"key": k, "value": v})).collect::<Vec<_>>()})).collect::<Vec<_>>(),
        "users": w.users.iter().map(|u| json!({"email": u.email, "name": u.name, "group": w.groups[u.group].id})).collect::<Vec<_>>(),
        "groups": w.groups.iter().map(|g| json!({"id": g.id, "name": g.name, "eInvoicing": g.einvoicing, "multiLegalEntity": g.mle})).collect::<Vec<_>>(),
        "products": w.products.len(),
        "orders": w.orders.len(),
        "invoices": w.invoices.len(),
        "transactions": w.transactions.len(),
        "previousMonthInvoices": prev_month("JP"),
        "carts": w.carts.iter().map(|c| json!({"id": c.id, "region": c.region, "owner": w.users[c.owner].email, "items": c.items.len()})).collect::<Vec<_>>(),
        "specials": {
            "fatalOrderId": s.fatal_order,
            "errorDocumentOrderId": s.error_document_order,
            "digitalOrderIds": s.digital_orders,
            "pendingConsolidatedInvoice": s.pending_consolidated,
            "oldPackage": s.old_package.as_ref().map(|(o, sh, p)| json!({"orderId": o, "shipmentId": sh, "packageId": p})),
            "lowStockAsin": s.low_stock_asin,
            "unavailableAsin": s.unavailable_asin,
        },
        "regions": regions,
    })
}

use chrono::Datelike;
