//! Ordering 2022-10-30: placeOrder. A repeated order externalId answers the original body and
//! creates nothing; counters record requests and created orders per externalId.

use chrono::Duration;
use rust_decimal::Decimal;
use serde_json::{json, Value};

use super::{in_scope, iso, REGIONS};
use crate::data::{Order, OrderLine, Package, Payment, Shipment};
use crate::http::{bad, missing, ApiResult, Req, Resp};
use crate::money::{convert, currency, money, render};
use crate::regions;
use crate::state::State;

/// The operations this group answers (operationId, handler).
pub(crate) static ROUTES: &[(&str, super::Handler)] = &[("placeOrder", place_order)];

struct Line {
    external_id: String,
    qty: u32,
    product: usize,
    offer: usize,
    expected_price: Option<Decimal>,
}

fn array<'a>(v: &'a Value, key: &str, ctx: &str) -> Result<&'a Vec<Value>, crate::http::Resp> {
    match v.get(key) {
        None | Some(Value::Null) => Err(missing(&format!("{ctx}{key}"))),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(bad(format!("{ctx}{key} must be an array."))),
    }
}

fn attr_type(a: &Value) -> &str {
    a.get("attributeType").and_then(Value::as_str).unwrap_or("")
}

/// Every Money object of the request (`{currencyCode, amount}`: a Distribution's charge,
/// an expectation's amount) has a JSON number as its amount, as the published model
/// declares; text is refused with the field's path.
fn money_numbers(v: &Value, path: &str) -> Result<(), Resp> {
    match v {
        Value::Object(m) => {
            if m.contains_key("currencyCode") && m.get("amount").is_some_and(|a| !a.is_number()) {
                return Err(bad(format!("{path}.amount must be a number.")));
            }
            for (k, x) in m {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                money_numbers(x, &p)?;
            }
            Ok(())
        }
        Value::Array(a) => a
            .iter()
            .enumerate()
            .try_for_each(|(n, x)| money_numbers(x, &format!("{path}[{n}]"))),
        _ => Ok(()),
    }
}

pub fn place_order(st: &State, req: &Req) -> ApiResult {
    let body = super::body(req)?;
    money_numbers(&body, "")?;
    let ext = match body.get("externalId").and_then(Value::as_str) {
        Some(s) if !s.is_empty() && s.chars().count() <= 255 => s.to_string(),
        Some(_) => return Err(bad("externalId must be 1 to 255 characters.")),
        None => return Err(missing("externalId")),
    };
    st.counters.place_order_request(&ext);
    if let Some(original) = st.rt().placed.get(&ext) {
        return Ok(Resp::json_text(200, original.clone()));
    }
    let lines_in = array(&body, "lineItems", "")?;
    if lines_in.is_empty() || lines_in.len() > 50 {
        return Err(bad(format!(
            "lineItems must contain 1 to 50 items; got {}.",
            lines_in.len()
        )));
    }
    let attributes = array(&body, "attributes", "")?;
    let _expectations = array(&body, "expectations", "")?;

    let w = st.world();
    // Order-level attributes.
    let mut group = None;
    let mut buyer = None;
    // Without a Region attribute: the address's first marketplace (root: JP).
    let mut region = regions::default_region(req.scope).to_string();
    let mut aux: Vec<(String, String)> = Vec::new();
    let mut po = String::new();
    let mut trial = false;
    for (n, a) in attributes.iter().enumerate() {
        match attr_type(a) {
            "BuyingGroupReference" => {
                let id = a
                    .pointer("/groupReference/identifier")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                group = Some(w.groups.iter().position(|g| g.id == id).ok_or_else(|| bad(format!("attributes[{n}]: BuyingGroupReference identifier '{id}' is not a known buying group.")))?);
            }
            "BuyerReference" => {
                let e = a
                    .pointer("/userReference/emailAddress")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                buyer = Some(w.user_by_email(e).ok_or_else(|| {
                    bad(format!(
                        "attributes[{n}]: BuyerReference emailAddress '{e}' is not a known user."
                    ))
                })?);
            }
            "Region" => {
                let r = a.get("region").and_then(Value::as_str).unwrap_or("");
                if !REGIONS.contains(&r) {
                    return Err(bad(format!(
                        "attributes[{n}]: region '{r}' is not a valid Region."
                    )));
                }
                in_scope(
                    req,
                    r,
                    &format!("attributes[{n}].region"),
                    "INVALID_REQUEST_PARAMETER",
                )?;
                region = r.to_string();
            }
            "Auxiliary" => {
                if let Some(m) = a.get("values").and_then(Value::as_object) {
                    for (k, v) in m {
                        let val = v
                            .get("value")
                            .and_then(Value::as_str)
                            .or(v.as_str())
                            .unwrap_or("");
                        aux.push((k.clone(), val.to_string()));
                    }
                } else {
                    return Err(bad(format!(
                        "attributes[{n}]: Auxiliary values must be an object."
                    )));
                }
            }
            "PurchaseOrderNumber" => {
                po = a
                    .get("purchaseOrderNumber")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            }
            "TrialMode" => trial = true,
            "ShippingAddress"
            | "BillingAddress"
            | "SelectedPaymentMethodReference"
            | "Distribution" => {}
            t => {
                return Err(bad(format!(
                    "attributes[{n}].attributeType '{t}' is not supported at order level."
                )))
            }
        }
    }
    let buyer = buyer
        .or_else(|| {
            req.header("x-svc-user-email")
                .and_then(|e| w.user_by_email(e))
        })
        .unwrap_or(0);
    let group = group.unwrap_or(w.users[buyer].group);
    // Lines.
    let mut lines = Vec::new();
    for (n, l) in lines_in.iter().enumerate() {
        let lext = match l.get("externalId").and_then(Value::as_str) {
            Some(s) if !s.is_empty() && s.chars().count() <= 127 => s.to_string(),
            _ => {
                return Err(bad(format!(
                    "lineItems[{n}].externalId is required (1 to 127 characters)."
                )))
            }
        };
        if w.groups[group].einvoicing && !lext.chars().all(|c| c.is_ascii_digit()) {
            return Err(bad(format!("lineItems[{n}].externalId '{lext}' must be numeric only for an e-invoicing buying group.")));
        }
        let qty = match l.get("quantity").and_then(Value::as_u64) {
            Some(q) if (1..=100_000).contains(&q) => q as u32,
            _ => {
                return Err(bad(format!(
                    "lineItems[{n}].quantity must be an integer >= 1."
                )))
            }
        };
        let attrs = array(l, "attributes", &format!("lineItems[{n}]."))?;
        let mut pid = None;
        let mut oid = None;
        for a in attrs {
            match attr_type(a) {
                "SelectedProductReference" => {
                    pid = a.pointer("/productReference/id").and_then(Value::as_str)
                }
                "SelectedBuyingOptionReference" => {
                    oid = a
                        .pointer("/buyingOptionReference/id")
                        .and_then(Value::as_str)
                }
                _ => {}
            }
        }
        let pid = pid.ok_or_else(|| {
            bad(format!(
                "lineItems[{n}] needs a SelectedProductReference attribute."
            ))
        })?;
        let oid = oid.ok_or_else(|| {
            bad(format!(
                "lineItems[{n}] needs a SelectedBuyingOptionReference attribute."
            ))
        })?;
        let unknown = || format!("lineItems[{n}]: buying option '{oid}' is not known.");
        let foreign =
            || format!("lineItems[{n}]: buying option '{oid}' does not belong to product '{pid}'.");
        let (pi, oi) = super::offer_of(&w, pid, oid, unknown, foreign)?;
        let mut expected_price = None;
        if let Some(Value::Array(ex)) = l.get("expectations") {
            for e in ex {
                if e.get("expectationType").and_then(Value::as_str) == Some("ExpectedUnitPrice") {
                    let a = e.pointer("/amount/amount").or(e.get("amount"));
                    expected_price = a
                        .and_then(|v| {
                            v.as_str()
                                .map(String::from)
                                .or_else(|| v.as_f64().map(|f| f.to_string()))
                        })
                        .and_then(|s| s.parse().ok());
                }
            }
        }
        lines.push(Line {
            external_id: lext,
            qty,
            product: pi,
            offer: oi,
            expected_price,
        });
    }
    let cur = currency(&region);
    let rp = regions::profile(&region);
    // Multi-legal-entity groups need a known Auxiliary key/value.
    let legal_entity = w
        .legal_entities
        .iter()
        .position(|le| le.aux.iter().any(|kv| aux.contains(kv)));
    if w.groups[group].mle && legal_entity.is_none() {
        let body = json!({
            "lineItems": lines.iter().map(|l| json!({"externalId": l.external_id, "acceptedItems": [],
                "rejectedItems": [{"quantity": l.qty, "artifacts": [{"rejectionArtifactType": "RejectionMessage", "message": "Order not placed: legal entity not identified."}]}]})).collect::<Vec<_>>(),
            "acceptanceArtifacts": [],
            "rejectionArtifacts": [
                {"rejectionArtifactType": "RejectionCode", "code": "LEGAL_ENTITY_NOT_IDENTIFIED"},
                {"rejectionArtifactType": "RejectionMessage", "message": "This buying group uses multiple legal entities: add an Auxiliary attribute with an agreed legal-entity key/value."},
            ],
        });
        let text = render(&body);
        drop(w);
        st.rt().placed.insert(ext, text.clone());
        return Ok(Resp::json_text(200, text));
    }
    let now = st.calendar_now();
    let mut line_json = Vec::new();
    let mut accepted: Vec<(usize, Decimal)> = Vec::new();
    for (n, l) in lines.iter().enumerate() {
        let p = &w.products[l.product];
        let stock = if p.available {
            p.offers[l.offer].stock
        } else {
            0
        };
        let unit = convert(
            super::products::unit_price(&w, l.product, l.offer, l.qty),
            &region,
        );
        let rejection = if l.qty > stock {
            Some(json!({"rejectionArtifactType": "UnavailableQuantity", "quantity": stock}))
        } else if l.expected_price.is_some_and(|e| e != unit) {
            Some(
                json!({"rejectionArtifactType": "BrokenUnitPriceExpectation", "unitPrice": money(unit, cur)}),
            )
        } else {
            None
        };
        match rejection {
            Some(r) => line_json.push(json!({"externalId": l.external_id, "acceptedItems": [], "rejectedItems": [{"quantity": l.qty, "artifacts": [r]}]})),
            None => {
                accepted.push((n, unit));
                line_json.push(Value::Null);
            }
        }
    }
    drop(w);
    let mut w = st.world();
    let order_id = if accepted.is_empty() || trial {
        None
    } else {
        Some(w.new_order_id_in(&region))
    };
    let mut order_lines = Vec::new();
    for (k, (n, unit)) in accepted.iter().enumerate() {
        let l = &lines[*n];
        let id = format!("{}{}", w.rng.digits(10), k + 1);
        order_lines.push(OrderLine {
            id,
            product: l.product,
            offer: l.offer,
            qty: l.qty,
            unit_price: *unit,
            tax_rate: w.products[l.product].tax_rate(rp),
            shipment: 0,
            principal: *unit * Decimal::from(l.qty),
            discount: rp.amount(Decimal::ZERO),
            tax: rp.amount(Decimal::ZERO),
            shipping: rp.amount(Decimal::ZERO),
            shipping_tax: rp.amount(Decimal::ZERO),
            shipping_tax_rate: rp.standard_rate(),
            po_line: l.external_id.clone(),
        });
    }
    crate::data::price_shipment(&mut order_lines, false, rp);
    for (k, (n, unit)) in accepted.iter().enumerate() {
        let l = &lines[*n];
        let ol = &order_lines[k];
        line_json[*n] = json!({"externalId": l.external_id, "rejectedItems": [], "acceptedItems": [{
        "acceptedItemType": "SingleAcceptedItem", "quantity": l.qty, "artifacts": [
            {"acceptanceArtifactType": "UnitPrice", "amount": money(*unit, cur)},
            {"acceptanceArtifactType": "LineItemIdentifier", "identifier": if order_id.is_some() { json!(ol.id) } else { Value::Null }},
            {"acceptanceArtifactType": "DeliveryTimeRange", "lowerBoundary": iso(now + Duration::days(1)), "upperBoundary": iso(now + Duration::days(3))},
        ]}]});
    }
    let sum = |f: &dyn Fn(&OrderLine) -> Decimal| order_lines.iter().map(f).sum::<Decimal>();
    let mut acceptance = Vec::new();
    if let Some(id) = &order_id {
        acceptance.push(json!({"acceptanceArtifactType": "OrderIdentifier", "identifier": id}));
    }
    if !order_lines.is_empty() {
        acceptance.push(json!({"acceptanceArtifactType": "Charge", "category": "SUBTOTAL", "type": "PRINCIPAL", "amount": money(sum(&|l| l.principal + l.discount), cur)}));
        acceptance.push(json!({"acceptanceArtifactType": "Charge", "category": "SHIPPING", "type": "PRINCIPAL", "amount": money(sum(&|l| l.shipping), cur)}));
        acceptance.push(json!({"acceptanceArtifactType": "Charge", "category": "SUBTOTAL", "type": "TAX", "amount": money(sum(&|l| l.tax + l.shipping_tax), cur)}));
    }
    let body = json!({"lineItems": line_json, "acceptanceArtifacts": acceptance, "rejectionArtifacts": []});
    let text = render(&body);
    if let Some(id) = order_id {
        let offer_seller = w.products[order_lines[0].product].offers[order_lines[0].offer].seller;
        let seller = w.seller_in(offer_seller, &region);
        let entity = legal_entity.unwrap_or(w.entity_of(&region));
        let tracking = format!("SBX{}", w.rng.digits(10));
        let sid = format!("SH{}", w.rng.digits(9));
        w.orders.push(Order {
            id,
            date: now,
            region: region.clone(),
            currency: cur.to_string(),
            payment: if region == "JP" {
                Payment::Bca
            } else {
                Payment::PayByInvoice
            },
            buyer,
            group,
            legal_entity: entity,
            po_number: po,
            digital: false,
            status: "PAYMENT_CONFIRMED",
            lines: order_lines,
            shipments: vec![Shipment {
                id: sid,
                date: now,
                seller,
                packages: vec![Package {
                    id: "100".into(),
                    tracking_id: tracking,
                    carrier: rp.carriers[0],
                }],
                delivered: None,
                invoice: None,
            }],
            business_info: aux.clone(),
        });
        st.counters.order_created(&ext);
    }
    drop(w);
    if !trial {
        st.rt().placed.insert(ext, text.clone());
    }
    Ok(Resp::json_text(200, text))
}
