//! The operations of both specification documents, one module per API group: the models
//! of that group and the operations that return them.

/// Writes a group's rows of the operations table as the group's `rows!`, which hands them on
/// to the table's `gather!` (`core/src/operations.rs`): `group_rows! {$ cart Cart { ... } }`,
/// the rows a doc line and `STATIC = SPEC => name(Params) -> Result` (`, pager
/// iter_x.items_field` for a listing) each. The leading `$` writes the `$` of the macro
/// it makes.
macro_rules! group_rows {
    ($d:tt $($group:tt)*) => {
        macro_rules! rows {
            ($d then:ident [$d($d rows:tt)*] $d($d rest:tt)*) => {
                $d then! { [$d($d rows)* $($group)*] $d($d rest)* }
            };
        }
        pub(crate) use rows;
    };
}
pub(crate) use group_rows;

/// The `paging::Page` of a listing's page whose items are its field `$items`
/// (`Vec<Option<$Item>>`, a `null` element not an item): the next page's token is its
/// `next_page_token`, or, after `numbered`, the page number after the current one while
/// `number_of_pages` allows (`next_number` of the calling module).
macro_rules! page {
    ($Page:ty, $items:ident -> $Item:ty $(, $numbered:ident)?) => {
        impl crate::paging::Page for $Page {
            type Item = $Item;
            fn next_page_token(&self) -> Option<&str> {
                crate::api::page!(@token self $($numbered)?)
            }
            fn len(&self) -> usize {
                crate::paging::count_items(&self.$items)
            }
            fn into_items(self) -> Vec<$Item> {
                crate::paging::take_items(self.$items)
            }
            const ITEMS_WIRE: Option<&'static str> = Some(crate::describe::wire_of(
                <$Page as crate::model::Model>::FIELDS,
                stringify!($items),
            ));
            crate::api::page!(@cursor $($numbered)?);
        }
    };
    (@cursor) => {};
    (@cursor numbered) => {
        fn next_cursor(&self, current: Option<&str>) -> Option<String> {
            next_number(current, self.number_of_pages)
        }
        fn head_cursor(head: &crate::paging::PageHead, current: Option<&str>) -> Option<String> {
            next_number(current, head.number_of_pages)
        }
    };
    (@token $self:ident) => {
        $self.next_page_token.as_deref()
    };
    (@token $self:ident numbered) => {
        None
    };
}
pub(crate) use page;

pub mod cart;
pub mod conveniences;
pub(crate) mod document_file;
pub mod documents;
pub mod invoices;
pub mod ordering;
pub mod products;
pub mod reconciliation;
pub mod reporting;
pub mod tracking;

use std::fmt;

use chrono::{DateTime, FixedOffset, TimeZone, Utc};
use serde::{Deserialize, Deserializer};

use crate::config::{Region, Settings};
use crate::error::{Error, Result};

/// A date-time argument: a chrono date-time, or ISO 8601 text checked when the call
/// runs (so the error names the parameter).
#[derive(Clone, PartialEq, Eq)]
pub enum DateTimeArg {
    /// A date-time given as a value.
    Value(DateTime<FixedOffset>),
    /// ISO 8601 text, checked when the call runs.
    Text(String),
}

impl DateTimeArg {
    /// The date-time, or a validation error naming `param`.
    pub fn resolve(&self, param: &str) -> Result<DateTime<FixedOffset>> {
        match self {
            DateTimeArg::Value(v) => Ok(*v),
            DateTimeArg::Text(t) => crate::validate::datetime(param, t),
        }
    }
}

impl crate::describe::Describe for DateTimeArg {
    fn ty() -> crate::describe::Ty {
        crate::describe::Ty::DateTimeArg
    }
}

impl fmt::Debug for DateTimeArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DateTimeArg::Value(v) => write!(f, "{}", v.to_rfc3339()),
            DateTimeArg::Text(t) => write!(f, "{t:?}"),
        }
    }
}

impl<Tz: TimeZone> From<DateTime<Tz>> for DateTimeArg {
    fn from(v: DateTime<Tz>) -> Self {
        DateTimeArg::Value(v.fixed_offset())
    }
}

impl From<&str> for DateTimeArg {
    fn from(v: &str) -> Self {
        DateTimeArg::Text(v.to_string())
    }
}

impl From<String> for DateTimeArg {
    fn from(v: String) -> Self {
        DateTimeArg::Text(v)
    }
}

impl<'de> Deserialize<'de> for DateTimeArg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Ok(DateTimeArg::Text(String::deserialize(d)?))
    }
}

/// The wire form of a date-time parameter: RFC 3339 in UTC with `Z`, which every
/// operation accepts (the platform's static sandbox requires the designator).
pub(crate) fn wire_datetime(v: DateTime<FixedOffset>) -> String {
    v.with_timezone(&Utc)
        .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

impl Default for DateTimeArg {
    /// No date-time: refused when the call runs ("is not an ISO 8601 date-time").
    fn default() -> Self {
        DateTimeArg::Text(String::new())
    }
}

impl serde::Serialize for DateTimeArg {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            DateTimeArg::Value(v) => s.serialize_str(&v.to_rfc3339()),
            DateTimeArg::Text(t) => s.serialize_str(t),
        }
    }
}

/// The region of a call that names one: the argument, else the client's region (the
/// one place this default is applied).
pub(crate) fn client_region(client: &crate::Client, region: &Option<String>) -> Result<Region> {
    match region {
        Some(r) => region_arg("region", r, &client.current_settings()),
        None => Ok(client.region()),
    }
}

/// A region filter: the argument checked against the client's address, or none.
pub(crate) fn optional_region(
    client: &crate::Client,
    region: &Option<String>,
) -> Result<Option<Region>> {
    region
        .as_deref()
        .map(|r| region_arg("region", r, &client.current_settings()))
        .transpose()
}

/// Parses a region argument and checks it is served by the client's regional address.
pub(crate) fn region_arg(param: &str, value: &str, settings: &Settings) -> Result<Region> {
    let region = crate::normalize::region(param, value)?;
    if region.group() != settings.region.group() {
        return Err(Error::validation(
            param,
            format!(
                "{region} is served by the {} address, but this client uses the {} address (region {}); \
                 create a client for {region}",
                region.group().as_str(),
                settings.region.group().as_str(),
                settings.region
            ),
        ));
    }
    Ok(region)
}

crate::model! {
    /// A postal address as the invoice and reconciliation documents return it.
    pub struct Address {
        "fullName" full_name: String,
        "phoneNumber" phone_number: String,
        "companyName" company_name: String,
        "addressLine1" address_line1: String,
        "addressLine2" address_line2: String,
        "addressLine3" address_line3: String,
        "city" city: String,
        "stateOrRegion" state_or_region: String,
        "postalCode" postal_code: String,
        "countryCode" country_code: String,
    }
}

crate::model! {
    /// A named party with an optional tax registration number.
    pub struct RegisteredParty {
        "name" name: String,
        "registrationNumber" registration_number: String,
    }
}

crate::model! {
    /// A wrapped date (`{"date": ...}`).
    pub struct DateValue {
        "date" date: crate::Timestamp,
    }
}

#[cfg(test)]
mod tests {
    use crate::paging::{Page, PageHead};

    /// What a pager reads of a page's head: the same item count and next cursor as the
    /// decoded page, for each of the listings' page types.
    fn head_agrees<P: Page>(items: &str, cursor_fields: &str) {
        let wire = P::ITEMS_WIRE.expect("every listing's page names its items");
        assert_eq!(wire, items);
        let body = format!(
            r#"{{"unknown": {{"a": [1, "}}"]}}, "{items}": [{{}}, null, {{"x": {{}}}}], {cursor_fields}}}"#
        );
        let page: P = serde_json::from_str(&body).unwrap();
        let head = PageHead::read(&body, wire).unwrap();
        assert_eq!(head.items, page.len(), "{body}");
        assert_eq!(head.items, 2, "{body}");
        for current in [None, Some("1"), Some("2"), Some("3"), Some("4")] {
            assert_eq!(
                P::head_cursor(&head, current),
                page.next_cursor(current),
                "{body} at {current:?}"
            );
        }
    }

    #[test]
    fn a_page_head_gives_what_the_decoded_page_gives() {
        use super::*;
        let token = r#""nextPageToken": "t-2""#;
        head_agrees::<cart::CartsPage>("cartDetailsList", token);
        head_agrees::<invoices::InvoicesPage>("invoices", token);
        head_agrees::<invoices::LineItemsPage>("lineItems", token);
        head_agrees::<reconciliation::TransactionsPage>("transactions", token);
        head_agrees::<reporting::ShipmentLineItemsPage>("shipmentLineItemsReport", token);
        head_agrees::<cart::CartsPage>("cartDetailsList", r#""nextPageToken": null"#);
        head_agrees::<products::SearchProductsResult>("products", r#""numberOfPages": 3"#);
        head_agrees::<products::OffersResult>("offers", r#""numberOfPages": 5"#);
    }

    #[test]
    fn a_page_head_refuses_what_is_not_a_page() {
        for body in [
            "[]",
            r#"{"transactions": 3}"#,
            r#"{"transactions": []"#,
            "{} x",
        ] {
            assert!(PageHead::read(body, "transactions").is_err(), "{body}");
        }
    }
}
