//! API operations, one module per group, plus the validation helpers they share.

pub mod cart;
pub mod invoices;
pub mod ordering;
pub mod products;
pub mod reconciliation;
pub mod reporting;
pub mod reports;
pub mod tracking;

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use serde_json::{json, Value};

use crate::data::World;
use crate::http::{envelope, ApiResult, Req, Resp};
use crate::state::State;

pub fn dispatch(st: &State, op: &str, req: &Req) -> ApiResult {
    match op {
        "getInvoices" => invoices::get_invoices(st, req),
        "getInvoiceDetailByInvoiceNumber" => invoices::get_detail(st, req),
        "getInvoiceLineItemsByInvoiceNumber" => invoices::get_line_items(st, req),
        "getTransactions" => reconciliation::get_transactions(st, req),
        "getInvoiceDetailsByOrderLineItems" => reconciliation::get_invoice_details(st, req),
        "createReport" => reports::create_report(st, req),
        "getReport" => reports::get_report(st, req),
        "getReportDocument" => reports::get_report_document(st, req),
        "listCarts" => cart::list_carts(st, req),
        "getCart" => cart::get_cart(st, req),
        "getItems" => cart::get_items(st, req),
        "addItems" => cart::add_items(st, req),
        "modifyItems" => cart::modify_items(st, req),
        "deleteItems" => cart::delete_items(st, req),
        "getEstimatedTotalPurchaseCost" => cart::estimate(st, req),
        "searchProductsRequest" => products::search_products(st, req),
        "productsRequest" => products::product(st, req),
        "searchOffersRequest" => products::search_offers(st, req),
        "getProductsByAsins" => products::by_asins(st, req),
        "getOffersByOfferIds" => products::by_offer_ids(st, req),
        "placeOrder" => ordering::place_order(st, req),
        "getOrdersByOrderId" => reporting::get_order(st, req),
        "getShipmentLineItemReports" => reporting::shipment_line_items(st, req),
        "getPackageTrackingDetails" => tracking::get_tracking(st, req),
        _ => Err(envelope(404, "NotFound", "Unknown operation.")),
    }
}

/// The Region enum of the invoice, cart, reporting and tracking interfaces.
pub const REGIONS: &[&str] = &[
    "AU", "CA", "DE", "ES", "FR", "IN", "IT", "JP", "MX", "UK", "US",
];

/// Regional group of a region: NA (US CA MX), EU (UK DE FR IT ES IN), FE (JP AU).
pub fn region_group(region: &str) -> Option<&'static str> {
    match region {
        "US" | "CA" | "MX" | "NA" => Some("NA"),
        "UK" | "GB" | "DE" | "FR" | "IT" | "ES" | "IN" | "EU" => Some("EU"),
        "JP" | "AU" | "FE" => Some("FE"),
        _ => None,
    }
}

/// Marketplace ids: country codes or the platform's public marketplace identifiers.
pub fn marketplace_region(id: &str) -> Option<&'static str> {
    Some(match id {
        "US" | "ATVPDKIKX0DER" => "US",
        "CA" | "A2EUQ1WTGCTBG2" => "CA",
        "MX" | "A1AM78C64UM0Y8" => "MX",
        "UK" | "GB" | "A1F83G8C2ARO7P" => "UK",
        "DE" | "A1PA6795UKMFR9" => "DE",
        "FR" | "A13V1IB3VIYZZH" => "FR",
        "IT" | "APJ6JRA9NG5V4" => "IT",
        "ES" | "A1RKKUPIHCS9HS" => "ES",
        "IN" | "A21TJRUUN4KGV" => "IN",
        "JP" | "A1VC38T7YXB528" => "JP",
        "AU" | "A39IBJ37TRP1C6" => "AU",
        _ => return None,
    })
}

/// The regional group whose data a request without a region lists: the group of the
/// address used; FE at the root address (the historical, JP-only listings).
pub fn listing_group(req: &Req) -> &'static str {
    req.scope.unwrap_or("FE")
}

/// At a regional address a region of another group is refused: the region named in a
/// request must match the address used (the specification's conventions). The root serves every region.
pub fn in_scope(req: &Req, region: &str, param: &str, code: &str) -> Result<(), Resp> {
    match (req.scope, region_group(region)) {
        (Some(s), Some(g)) if s != g => Err(envelope(
            400,
            code,
            &format!(
                "{param} {region} is not served by this address (the {s} group's); use the {g} address."
            ),
        )),
        _ => Ok(()),
    }
}

/// Whether a record of `region` exists at this address (the root sees every group).
pub fn visible_at(req: &Req, region: &str) -> bool {
    req.scope.is_none_or(|s| region_group(region) == Some(s))
}

/// Parses ISO 8601 date-time text (offset optional, UTC assumed; a bare date is midnight).
pub fn parse_dt(text: &str) -> Option<DateTime<Utc>> {
    if let Ok(d) = DateTime::parse_from_rfc3339(text) {
        return Some(d.with_timezone(&Utc));
    }
    for f in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(d) = NaiveDateTime::parse_from_str(text, f) {
            return Some(d.and_utc());
        }
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|d| d.and_utc())
}

/// A required, valid date-time query parameter.
pub fn req_dt(req: &Req, name: &str, code: &str) -> Result<DateTime<Utc>, Resp> {
    match req.q(name) {
        None | Some("") => Err(envelope(
            400,
            code,
            &format!("The required request parameter is missing: {name}."),
        )),
        Some(t) => parse_dt(t).ok_or_else(|| {
            envelope(
                400,
                code,
                &format!("{name} '{t}' is not a valid ISO 8601 date-time."),
            )
        }),
    }
}

/// Start not after end, at most 366 days apart, end not in the future.
pub fn check_range(
    st: &State,
    (sn, s): (&str, DateTime<Utc>),
    (en, e): (&str, DateTime<Utc>),
    code: &str,
    future_check: bool,
) -> Result<(), Resp> {
    if s > e {
        return Err(envelope(
            400,
            code,
            &format!("{sn} must not be after {en}."),
        ));
    }
    if e - s > chrono::Duration::days(366) {
        return Err(envelope(
            400,
            code,
            &format!("The range from {sn} to {en} must not exceed 366 days."),
        ));
    }
    if future_check && e > st.now() + chrono::Duration::minutes(2) {
        return Err(envelope(
            400,
            code,
            &format!("{en} must not be in the future."),
        ));
    }
    Ok(())
}

/// A required Region enum query parameter.
pub fn req_region(req: &Req, code: &str) -> Result<String, Resp> {
    match req.q("region") {
        None | Some("") => Err(envelope(
            400,
            code,
            "The required request parameter is missing: region.",
        )),
        Some(r) if REGIONS.contains(&r) => Ok(r.to_string()),
        Some(r) => Err(envelope(
            400,
            code,
            &format!("region '{r}' is not a valid Region."),
        )),
    }
}

/// The JSON body of a request, or a 400.
pub fn body(req: &Req) -> Result<Value, Resp> {
    if req.body.is_empty() {
        return Err(crate::http::bad("The request body is missing."));
    }
    let v: Value = serde_json::from_slice(&req.body)
        .map_err(|e| crate::http::bad(format!("The request body is not valid JSON: {e}.")))?;
    if !v.is_object() {
        return Err(crate::http::bad("The request body must be a JSON object."));
    }
    Ok(v)
}

pub fn iso(d: DateTime<Utc>) -> String {
    // The same text as `format("%Y-%m-%dT%H:%M:%SZ")` (whole seconds, `Z`), without parsing
    // a format string for every date of every answer.
    d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

pub fn csv(v: Option<&str>) -> Vec<String> {
    v.map(|s| {
        s.split(',')
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect()
    })
    .unwrap_or_default()
}

/// The bill-to address of a legal entity.
pub fn bill_to(w: &World, le: usize) -> Value {
    let l = &w.legal_entities[le];
    let a = &l.address;
    json!({
        "fullName": "Accounts Payable", "phoneNumber": a[6],
        "companyName": l.name, "addressLine1": a[0],
        "addressLine2": a[1], "addressLine3": "", "city": a[2],
        "stateOrRegion": a[3], "postalCode": a[4], "countryCode": a[5],
    })
}

pub fn user_json(w: &World, u: usize) -> Value {
    let u = &w.users[u];
    json!({"id": u.id, "name": u.name, "email": u.email})
}

/// Locale text: language-COUNTRY or language_COUNTRY.
pub fn valid_locale(l: &str) -> bool {
    let b = l.as_bytes();
    b.len() == 5
        && b[0].is_ascii_lowercase()
        && b[1].is_ascii_lowercase()
        && (b[2] == b'-' || b[2] == b'_')
        && b[3].is_ascii_uppercase()
        && b[4].is_ascii_uppercase()
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    #[test]
    fn iso_writes_whole_seconds_and_z_as_the_format_string_did() {
        for (y, mo, d, h, mi, s) in [
            (2026, 11, 1, 0, 0, 0),
            (1999, 12, 31, 23, 59, 59),
            (2026, 2, 28, 9, 5, 7),
        ] {
            let t = Utc.with_ymd_and_hms(y, mo, d, h, mi, s).unwrap()
                + chrono::Duration::milliseconds(999);
            assert_eq!(super::iso(t), t.format("%Y-%m-%dT%H:%M:%SZ").to_string());
        }
    }
}
