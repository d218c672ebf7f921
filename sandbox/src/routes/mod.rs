//! API operations, one module per group, plus the validation helpers they share. Which
//! request is which operation, its usage plan and whether it needs the user-email header
//! come from the operations' descriptions (`abws_spec`); each group's module lists its
//! handlers in `ROUTES`.

pub mod cart;
pub mod invoices;
pub mod ordering;
pub mod products;
pub mod reconciliation;
pub mod reporting;
pub mod reports;
pub mod tracking;

use std::sync::OnceLock;

use abws_spec::Op;
use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use serde_json::{json, Value};

use crate::data::World;
use crate::http::{bad, envelope, ApiResult, Req, Resp};
use crate::state::State;

/// A handler: the answer to one operation's request.
pub type Handler = fn(&State, &Req) -> ApiResult;

/// Every group's routes, each an operationId and its handler.
static GROUPS: &[&[(&str, Handler)]] = &[
    invoices::ROUTES,
    reconciliation::ROUTES,
    reports::ROUTES,
    cart::ROUTES,
    products::ROUTES,
    ordering::ROUTES,
    reporting::ROUTES,
    tracking::ROUTES,
];

/// An operation the sandbox answers: its description, its path's segments (`None` for a
/// `{parameter}`, which matches any one segment, also an empty one) and its handler.
pub struct Route {
    pub op: &'static Op,
    pattern: Vec<Option<&'static str>>,
    handler: Option<Handler>,
}

impl Route {
    /// The operationId.
    pub fn id(&self) -> &'static str {
        self.op.id
    }

    /// The handler's answer (404 for a described operation no group answers).
    pub fn answer(&self, st: &State, req: &Req) -> ApiResult {
        match self.handler {
            Some(h) => h(st, req),
            None => Err(envelope(404, "NotFound", "Unknown operation.")),
        }
    }

    fn matches(&self, segments: &[String]) -> bool {
        self.pattern.len() == segments.len()
            && self
                .pattern
                .iter()
                .zip(segments)
                .all(|(p, s)| p.is_none_or(|p| p == s))
    }
}

/// The routes of every described operation, in the descriptions' order.
fn table() -> &'static [Route] {
    static TABLE: OnceLock<Vec<Route>> = OnceLock::new();
    TABLE.get_or_init(|| {
        abws_spec::ALL
            .iter()
            .map(|&op| Route {
                op,
                pattern: op
                    .segments()
                    .map(|s| abws_spec::placeholder(s).is_none().then_some(s))
                    .collect(),
                handler: handler(op.id),
            })
            .collect()
    })
}

fn handler(id: &str) -> Option<Handler> {
    GROUPS
        .iter()
        .flat_map(|g| g.iter())
        .find(|(name, _)| *name == id)
        .map(|(_, h)| *h)
}

/// The operation of a request, with the path parameters in order.
pub fn classify(method: &str, segments: &[String]) -> Option<(&'static Route, Vec<String>)> {
    let route = table()
        .iter()
        .find(|r| r.op.method.as_str() == method && r.matches(segments))?;
    let params = route
        .pattern
        .iter()
        .zip(segments)
        .filter(|(p, _)| p.is_none())
        .map(|(_, s)| s.clone())
        .collect();
    Some((route, params))
}

/// Whether an operation's path matches though its method does not (for 405 answers).
pub fn path_known(segments: &[String]) -> bool {
    table().iter().any(|r| r.matches(segments))
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

/// The required date-time query parameters `sn` and `en` of a range: start not after end, at
/// most 366 days apart, end not in the future.
pub fn date_range(
    st: &State,
    req: &Req,
    (sn, en): (&str, &str),
    code: &str,
) -> Result<(DateTime<Utc>, DateTime<Utc>), Resp> {
    let s = req_dt(req, sn, code)?;
    let e = req_dt(req, en, code)?;
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
    if e > st.now() + chrono::Duration::minutes(2) {
        return Err(envelope(
            400,
            code,
            &format!("{en} must not be in the future."),
        ));
    }
    Ok((s, e))
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

/// The product and offer (indexes) of offer `oid`, which must be one of product `pid`'s; a
/// 400 with `unknown`'s message when the offer is not known, `foreign`'s when it is another
/// product's.
pub fn offer_of(
    w: &World,
    pid: &str,
    oid: &str,
    unknown: impl FnOnce() -> String,
    foreign: impl FnOnce() -> String,
) -> Result<(usize, usize), Resp> {
    let (pi, oi) = w.offer(oid).ok_or_else(|| bad(unknown()))?;
    if w.products[pi].asin != pid {
        return Err(bad(foreign()));
    }
    Ok((pi, oi))
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

    /// Every described operation has exactly one handler, and every handler answers a
    /// described operation.
    #[test]
    fn every_operation_has_one_route() {
        let routes: Vec<&str> = super::GROUPS
            .iter()
            .flat_map(|g| g.iter().map(|(id, _)| *id))
            .collect();
        for op in abws_spec::ALL {
            let n = routes.iter().filter(|id| **id == op.id).count();
            assert_eq!(n, 1, "{}: {n} routes", op.id);
        }
        for id in &routes {
            assert!(abws_spec::by_id(id).is_some(), "{id}: no such operation");
        }
        assert!(super::table().iter().all(|r| r.handler.is_some()));
    }

    #[test]
    fn requests_are_classified_by_method_and_path() {
        let seg = |p: &str| -> Vec<String> { p.split('/').map(String::from).collect() };
        let (r, params) = super::classify(
            "GET",
            &seg("ab-tracking/2025-07-02/orders/O-1/shipments/S-1/packages/P-1"),
        )
        .unwrap();
        assert_eq!(r.id(), "getPackageTrackingDetails");
        assert_eq!(params, ["O-1", "S-1", "P-1"]);
        let (r, _) = super::classify(
            "POST",
            &seg("products/2020-08-26/products/getProductsByAsins"),
        )
        .unwrap();
        assert_eq!(r.id(), "getProductsByAsins");
        let (r, params) = super::classify(
            "GET",
            &seg("products/2020-08-26/products/getProductsByAsins"),
        )
        .unwrap();
        assert_eq!(
            (r.id(), params),
            ("productsRequest", vec!["getProductsByAsins".to_string()])
        );
        assert!(super::classify("PUT", &seg("cart/2025-04-30/carts/C-1/items")).is_none());
        assert!(super::path_known(&seg("cart/2025-04-30/carts/C-1/items")));
        assert!(!super::path_known(&seg(
            "cart/2025-04-30/carts/C-1/nothing"
        )));
    }

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
