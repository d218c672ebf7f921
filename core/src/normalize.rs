//! Values the spec gives a form for, brought into that form — the one place it is done.
//! Every operation that sends a region, a productRegion, a shippingRegion, a locale or a
//! marketplace id passes it through here first, so what goes on the wire is the spec's
//! form whatever the caller typed; what cannot be brought into that form is refused with a
//! message naming the expected form (docs/decisions/002-exact-money.md, "Values in the spec's form").
//!
//! - Region codes (Region and ProductRegion enums): trimmed and upper-cased; `GB`, the
//!   ISO 3166 code of the United Kingdom, is the spec's `UK`.
//! - Regional groups (shippingRegion also takes one): `NA`, `EU`, `FE`, upper-cased.
//! - Locales: language-COUNTRY with a lower-case language and an upper-case country,
//!   `-` as the separator: `en_us`, `EN-us` and `en_US` are all `en-US`.
//! - Marketplace ids: a region code is replaced by that region's marketplace id; any other
//!   id is only trimmed (ids are opaque and case-sensitive).

use crate::error::{Error, Result};
use crate::region::{Region, RegionGroup};

pub use crate::region::REGION_FORM;

/// A region code in the spec's form (case-insensitive; `GB` is `UK`).
pub fn region(param: &str, text: &str) -> Result<Region> {
    Region::parse_as(param, text)
}

/// A region or a regional group (shippingRegion): the wire text and its group.
pub fn region_or_group(param: &str, text: &str) -> Result<(String, RegionGroup)> {
    let upper = text.trim().to_ascii_uppercase();
    let group = match upper.as_str() {
        "NA" => Some(RegionGroup::NorthAmerica),
        "EU" => Some(RegionGroup::Europe),
        "FE" => Some(RegionGroup::FarEast),
        _ => None,
    };
    if let Some(g) = group {
        return Ok((upper, g));
    }
    let r = region(param, text).map_err(|_| {
        Error::validation(
            param,
            format!(
                "must be a region ({REGION_FORM}) or a regional group (NA, EU, FE) (got {text:?})"
            ),
        )
    })?;
    Ok((r.as_str().to_string(), r.group()))
}

/// A locale in the spec's form, language-COUNTRY such as `en-US`: a 2- or 3-letter
/// language and a 2-letter country, separated by `-` or `_`, in any case.
pub fn locale(param: &str, text: &str) -> Result<String> {
    let t = text.trim();
    let mut parts = t.split(['-', '_']);
    let lang = parts.next().unwrap_or("");
    let country = parts.next().unwrap_or("");
    let ok = parts.next().is_none()
        && (2..=3).contains(&lang.len())
        && lang.chars().all(|c| c.is_ascii_alphabetic())
        && country.len() == 2
        && country.chars().all(|c| c.is_ascii_alphabetic());
    if !ok {
        return Err(Error::validation(
            param,
            format!("must be a locale of the form language-COUNTRY such as en-US (got {text:?})"),
        ));
    }
    Ok(format!(
        "{}-{}",
        lang.to_ascii_lowercase(),
        country.to_ascii_uppercase()
    ))
}

/// The type of a cost-estimation address: `PhysicalAddress` (any case), the default when
/// none is given, because the published cart model requires it (docs/decisions/004-request-declarations.md).
pub fn physical_address_type(param: &str, given: Option<&str>) -> Result<String> {
    match given.map(str::trim) {
        None => Ok(PHYSICAL_ADDRESS.to_string()),
        Some(t) if t.eq_ignore_ascii_case(PHYSICAL_ADDRESS) => Ok(PHYSICAL_ADDRESS.to_string()),
        Some(t) => Err(Error::validation(
            param,
            format!(
                "must be {PHYSICAL_ADDRESS}, the type of a cost-estimation address (got {t:?})"
            ),
        )),
    }
}

/// The addressType of a cost-estimation address.
pub const PHYSICAL_ADDRESS: &str = "PhysicalAddress";

/// An ISO 3166 country code, upper-cased (`gb` is `GB`: a country code, not a region).
pub fn country_code(param: &str, text: &str) -> Result<String> {
    let t = text.trim();
    if t.len() != 2 || !t.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(Error::validation(
            param,
            format!("must be a two-letter ISO 3166 country code such as US or GB (got {text:?})"),
        ));
    }
    Ok(t.to_ascii_uppercase())
}

/// A marketplace id: a region code (any case, `GB` too) becomes that region's marketplace
/// id; another id is kept as given, trimmed.
pub fn marketplace_id(param: &str, text: &str) -> Result<String> {
    let t = text.trim();
    if t.is_empty() {
        return Err(Error::validation(
            param,
            "is required and must not be empty",
        ));
    }
    if t.len() == 2 {
        if let Ok(r) = region(param, t) {
            return Ok(r.marketplace_id().to_string());
        }
    }
    Ok(t.to_string())
}
