//! Invoices 2026-02-01: search invoices by issue date, one invoice's detail, and its line
//! items (followed by reversal units).

use chrono::{Duration as ChronoDuration, Utc};
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

use super::{
    client_region, optional_region, wire_datetime, Address, DateTimeArg, DateValue, RegisteredParty,
};
use crate::answer::Answer;
use crate::client::{Call, Client};
use crate::error::{Error, Result};
use crate::money::Money;
use crate::operation_row::Row;
use crate::paging::{Pager, TokenStyle};
use crate::{model, validate, wire_enum, RawJson, Timestamp};

super::group_rows! {$
    invoices Invoices {
        /// One page of the invoices and credit memos issued in a date range (at most 366 days).
        GET_INVOICES = GET_INVOICES => get_invoices(GetInvoicesParams) -> InvoicesPage, pager iter_invoices.invoices;
        /// One invoice or credit memo in full: parties, billing details, tax breakdown.
        GET_INVOICE_DETAIL = GET_INVOICE_DETAIL => get_invoice_detail_by_invoice_number(GetInvoiceDetailByInvoiceNumberParams) -> InvoiceDetail;
        /// One page of an invoice's line items (then the reversal units of its credit memos).
        GET_INVOICE_LINE_ITEMS = GET_INVOICE_LINE_ITEMS => get_invoice_line_items_by_invoice_number(GetInvoiceLineItemsByInvoiceNumberParams) -> LineItemsPage, pager iter_invoice_line_items.line_items;
    }
}

/// The longest issue-date range one getInvoices call accepts.
pub const MAX_RANGE_DAYS: i64 = 366;

wire_enum! {
    /// STANDARD or CREDIT_MEMO.
    pub enum InvoiceType { Standard = "STANDARD", CreditMemo = "CREDIT_MEMO" }
}

model! {
    /// Number, issue date, type and region of an invoice.
    pub struct InvoiceMetadata {
        "invoiceNumber" invoice_number: String,
        "issueDate" issue_date: Timestamp,
        "type" r#type: InvoiceType,
        "region" region: String,
    }
}

model! {
    /// An element of the invoice list.
    pub struct InvoiceSummary {
        "invoiceMetadata" invoice_metadata: InvoiceMetadata,
        "consolidationType" consolidation_type: String,
        "status" status: String,
    }
}

model! {
    /// A page of getInvoices.
    pub struct InvoicesPage {
        "invoices" invoices: Vec<Option<InvoiceSummary>>,
        "nextPageToken" next_page_token: String,
    }
}

model! {
    /// The billing period of a (consolidated) invoice.
    pub struct Period {
        "startDate" start_date: Timestamp,
        "endDate" end_date: Timestamp,
    }
}

model! {
    /// The legal entity billed.
    pub struct Customer {
        "legalEntityId" legal_entity_id: String,
        "legalEntityName" legal_entity_name: String,
    }
}

model! {
    /// One amount of the BillingDetails artifact (itemSubtotal, salesTax, amountDue, ...).
    pub struct AmountDetail {
        "type" r#type: String,
        "amount" amount: Money,
    }
}

model! {
    /// One tax rate's totals.
    pub struct TaxBreakdown {
        "taxRate" tax_rate: String,
        "inclusiveTotal" inclusive_total: Money,
        "exclusiveTotal" exclusive_total: Money,
        "taxAmount" tax_amount: Money,
    }
}

model! {
    /// The BillingDetails artifact.
    pub struct BillingDetails {
        "artifactType" artifact_type: String,
        "amountDetails" amount_details: Vec<Option<AmountDetail>>,
    }
}

model! {
    /// A PurchaseFromQualifiedIssuer or PurchaseFromOtherIssuer artifact (JP tax breakdown).
    pub struct TaxArtifact {
        "artifactType" artifact_type: String,
        "taxBreakdown" tax_breakdown: Vec<Option<TaxBreakdown>>,
    }
}

/// An artifact of an invoice detail, by `artifactType`.
#[derive(Clone, Debug)]
pub enum Artifact {
    /// The BillingDetails artifact: the invoice's amount details.
    BillingDetails(BillingDetails),
    /// Purchases from an issuer with a tax registration number.
    PurchaseFromQualifiedIssuer(TaxArtifact),
    /// Purchases from an issuer without one.
    PurchaseFromOtherIssuer(TaxArtifact),
    /// A kind this version does not know, kept exactly.
    Other(Box<RawValue>),
}

impl PartialEq for Artifact {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Artifact::BillingDetails(a), Artifact::BillingDetails(b)) => a == b,
            (
                Artifact::PurchaseFromQualifiedIssuer(a),
                Artifact::PurchaseFromQualifiedIssuer(b),
            )
            | (Artifact::PurchaseFromOtherIssuer(a), Artifact::PurchaseFromOtherIssuer(b)) => {
                a == b
            }
            (Artifact::Other(a), Artifact::Other(b)) => a.get() == b.get(),
            _ => false,
        }
    }
}

impl Artifact {
    /// The `artifactType` as sent.
    pub fn artifact_type(&self) -> String {
        match self {
            Artifact::BillingDetails(_) => "BillingDetails".into(),
            Artifact::PurchaseFromQualifiedIssuer(_) => "PurchaseFromQualifiedIssuer".into(),
            Artifact::PurchaseFromOtherIssuer(_) => "PurchaseFromOtherIssuer".into(),
            Artifact::Other(raw) => {
                #[derive(Deserialize)]
                struct Kind {
                    #[serde(rename = "artifactType")]
                    artifact_type: Option<String>,
                }
                serde_json::from_str::<Kind>(raw.get())
                    .ok()
                    .and_then(|k| k.artifact_type)
                    .unwrap_or_default()
            }
        }
    }

    /// The tax breakdown, for either issuer kind.
    pub fn tax_breakdown(&self) -> Option<&[Option<TaxBreakdown>]> {
        match self {
            Artifact::PurchaseFromQualifiedIssuer(t) | Artifact::PurchaseFromOtherIssuer(t) => {
                t.tax_breakdown.as_deref()
            }
            _ => None,
        }
    }
}

/// The kinds of artifact, by `artifactType`.
enum ArtifactKind {
    Billing,
    QualifiedIssuer,
    OtherIssuer,
    Unknown,
}

impl ArtifactKind {
    /// The kind of a raw artifact (an object, whose `artifactType` may be absent).
    fn of(raw: &str) -> std::result::Result<ArtifactKind, serde_json::Error> {
        #[derive(Deserialize)]
        struct Kind {
            #[serde(rename = "artifactType")]
            artifact_type: Option<String>,
        }
        // A scan of the top level (the artifact is read in its shape next); serde for
        // whatever the scan leaves open (escapes, other types, errors).
        let decoded;
        let artifact_type = match crate::json_peek::top_level_str(raw, "artifactType") {
            Some(t) => t,
            None => {
                decoded = serde_json::from_str::<Kind>(raw)?.artifact_type;
                decoded.as_deref()
            }
        };
        Ok(ArtifactKind::named(artifact_type))
    }

    /// The kind an `artifactType` names (`None`: absent or `null`).
    fn named(artifact_type: Option<&str>) -> ArtifactKind {
        match artifact_type {
            Some("BillingDetails") => ArtifactKind::Billing,
            Some("PurchaseFromQualifiedIssuer") => ArtifactKind::QualifiedIssuer,
            Some("PurchaseFromOtherIssuer") => ArtifactKind::OtherIssuer,
            _ => ArtifactKind::Unknown,
        }
    }

    /// The kind's shape in `Artifact::ty()`.
    fn index(self) -> usize {
        match self {
            ArtifactKind::Billing => 0,
            ArtifactKind::QualifiedIssuer | ArtifactKind::OtherIssuer => 1,
            ArtifactKind::Unknown => 2,
        }
    }

    /// The shape of a raw artifact (`OneOfInfo::choose`).
    fn shape(raw: &str) -> std::result::Result<usize, String> {
        Ok(ArtifactKind::of(raw).map_err(|e| e.to_string())?.index())
    }

    /// The shape an `artifactType` names (`OneOfInfo::by_tag`).
    fn shape_named(artifact_type: Option<&str>) -> usize {
        ArtifactKind::named(artifact_type).index()
    }
}

impl<'de> Deserialize<'de> for Artifact {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        let kind = ArtifactKind::of(raw.get()).map_err(de::Error::custom)?;
        let tax = || serde_json::from_str(raw.get()).map_err(de::Error::custom);
        Ok(match kind {
            ArtifactKind::Billing => Artifact::BillingDetails(
                serde_json::from_str(raw.get()).map_err(de::Error::custom)?,
            ),
            ArtifactKind::QualifiedIssuer => Artifact::PurchaseFromQualifiedIssuer(tax()?),
            ArtifactKind::OtherIssuer => Artifact::PurchaseFromOtherIssuer(tax()?),
            ArtifactKind::Unknown => Artifact::Other(raw),
        })
    }
}

impl Serialize for Artifact {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Artifact::BillingDetails(b) => b.serialize(s),
            Artifact::PurchaseFromQualifiedIssuer(t) | Artifact::PurchaseFromOtherIssuer(t) => {
                t.serialize(s)
            }
            Artifact::Other(raw) => raw.serialize(s),
        }
    }
}

model! {
    /// One invoice or credit memo in full.
    pub struct InvoiceDetail {
        "invoiceMetadata" invoice_metadata: InvoiceMetadata,
        "period" period: Period,
        "issuer" issuer: RegisteredParty,
        "billToAddress" bill_to_address: Address,
        "customer" customer: Customer,
        "dueDate" due_date: DateValue,
        "paymentMethod" payment_method: String,
        "totalAmount" total_amount: Money,
        "artifacts" artifacts: Vec<Option<Artifact>>,
    }
}

impl InvoiceDetail {
    /// The BillingDetails artifact, when present.
    pub fn billing_details(&self) -> Option<&BillingDetails> {
        self.artifacts
            .iter()
            .flatten()
            .flatten()
            .find_map(|a| match a {
                Artifact::BillingDetails(b) => Some(b),
                _ => None,
            })
    }
}

model! {
    /// The body of getInvoiceDetailByInvoiceNumber.
    pub struct InvoiceDetailResponse {
        "invoiceDetail" invoice_detail: InvoiceDetail,
    }
}

impl crate::answer::Wrapper for InvoiceDetailResponse {
    type Part = InvoiceDetail;
    const FIELD: &'static str = "invoiceDetail";
    fn into_part(self) -> Option<InvoiceDetail> {
        self.invoice_detail
    }
}

model! {
    /// The order a line item belongs to.
    pub struct OrderMetadata {
        "orderId" order_id: String,
        "orderDate" order_date: DateValue,
    }
}

model! {
    /// Identifies the order line item (further fields are kept in `extra`).
    pub struct LineItemMetadata {
        "orderLineItemId" order_line_item_id: String,
    }
}

model! {
    /// A line item of an invoice, or a reversal unit of a credit memo.
    pub struct InvoiceLineItem {
        "invoiceNumber" invoice_number: String,
        "transactionType" transaction_type: String,
        "orderMetadata" order_metadata: OrderMetadata,
        "lineItemMetadata" line_item_metadata: LineItemMetadata,
    }
}

model! {
    /// A page of getInvoiceLineItemsByInvoiceNumber.
    pub struct LineItemsPage {
        "lineItems" line_items: Vec<Option<InvoiceLineItem>>,
        "nextPageToken" next_page_token: String,
    }
}

crate::api::page!(InvoicesPage, invoices -> InvoiceSummary);

crate::api::page!(LineItemsPage, line_items -> InvoiceLineItem);

crate::params! {
    /// The arguments of getInvoices.
    pub struct GetInvoicesParams {
        /// Start of the issue-date range.
        req invoice_issue_start_date: DateTimeArg,
        /// End of the range: not in the future, at most 366 days after the start
        /// (`iter_invoices` walks any range in windows).
        req invoice_issue_end_date: DateTimeArg,
        /// Only invoices of this region (omitted: every marketplace of the client's address).
        opt region: String,
        /// Payment methods (supported: BCA); omitted: all.
        opt payment_method_types: Vec<String>,
        /// Resume from this page token (sent with the same other parameters).
        opt next_page_token: String,
    }
}

crate::params! {
    /// The arguments of getInvoiceDetailByInvoiceNumber.
    pub struct GetInvoiceDetailByInvoiceNumberParams {
        /// The invoice or credit memo number.
        req invoice_number: String,
        /// The invoice's region (default: the client's).
        opt region: String,
    }
}

crate::params! {
    /// The arguments of getInvoiceLineItemsByInvoiceNumber.
    pub struct GetInvoiceLineItemsByInvoiceNumberParams {
        /// The invoice or credit memo number.
        req invoice_number: String,
        /// The invoice's region (default: the client's).
        opt region: String,
        /// Resume from this page token.
        opt next_page_token: String,
    }
}

/// The invoice operations. Get one with `Client::invoices`.
pub struct Invoices<'a> {
    pub(crate) client: &'a Client,
}

impl Client {
    /// Invoices 2026-02-01.
    pub fn invoices(&self) -> Invoices<'_> {
        Invoices { client: self }
    }
}

fn list_calls(c: &Client, p: &GetInvoicesParams, windowed: bool) -> Result<Vec<Call>> {
    let start = p
        .invoice_issue_start_date
        .resolve("invoice_issue_start_date")?;
    let end = p.invoice_issue_end_date.resolve("invoice_issue_end_date")?;
    let max = if windowed { 1_000_000 } else { MAX_RANGE_DAYS };
    validate::date_range(
        "invoice_issue_start_date",
        start,
        "invoice_issue_end_date",
        end,
        max,
        Utc::now(),
    )?;
    let region = optional_region(c, &p.region)?;
    let methods = validate::csv(
        "payment_method_types",
        p.payment_method_types.as_deref(),
        1,
        usize::MAX,
    )?;
    // Windows of at most 366 days, consecutive and non-overlapping in what they return:
    // each ends one second before the next starts.
    let mut windows = vec![];
    let mut from = start;
    loop {
        let limit = from + ChronoDuration::days(MAX_RANGE_DAYS);
        let to = if limit >= end {
            end
        } else {
            limit - ChronoDuration::seconds(1)
        };
        windows.push((from, to));
        if to >= end {
            break;
        }
        from = to + ChronoDuration::seconds(1);
    }
    Ok(windows
        .into_iter()
        .map(|(from, to)| {
            crate::wire!(GetInvoicesParams {
                invoice_issue_start_date = wire_datetime(from),
                invoice_issue_end_date = wire_datetime(to),
                region,
                payment_method_types = &methods,
            })
        })
        .collect())
}

/// getInvoices: one page of the invoices issued in a date range (at most 366 days).
pub(crate) async fn get_invoices(
    c: &Client,
    p: &GetInvoicesParams,
) -> Result<Answer<InvoicesPage>> {
    let call = list_calls(c, p, false)?.remove(0);
    let call = match &p.next_page_token {
        Some(t) => {
            validate::non_empty("next_page_token", t)?;
            crate::wire!(call => GetInvoicesParams { next_page_token = t })
        }
        None => call,
    };
    let resp = c.execute(&call).await?;
    Ok(Answer::new(resp, GetInvoicesParams::ROW.id))
}

/// Every page of getInvoices. Any date range is accepted: it is walked in windows of at
/// most 366 days, oldest first.
pub(crate) fn iter_invoices(c: &Client, p: &GetInvoicesParams) -> Result<Pager<InvoicesPage>> {
    let calls = list_calls(c, p, true)?;
    if p.next_page_token.is_some() && calls.len() > 1 {
        return Err(Error::validation(
            "next_page_token",
            "can resume only a range of at most 366 days",
        ));
    }
    let token = TokenStyle::WithParams(crate::wire_name!(GetInvoicesParams, next_page_token));
    let mut pager = Pager::chain(c.clone(), calls, token)
        .ok_or_else(|| Error::internal("empty invoice listing"))?;
    if let Some(t) = &p.next_page_token {
        pager = Pager::new(c.clone(), pager.call().clone(), token, Some(t.clone()));
    }
    Ok(pager)
}

/// getInvoiceDetailByInvoiceNumber: one invoice or credit memo in full.
pub(crate) async fn get_invoice_detail_by_invoice_number(
    c: &Client,
    p: &GetInvoiceDetailByInvoiceNumberParams,
) -> Result<Answer<InvoiceDetail>> {
    validate::non_empty("invoice_number", &p.invoice_number)?;
    let region = client_region(c, &p.region)?;
    let call = crate::wire!(GetInvoiceDetailByInvoiceNumberParams {
        invoice_number = &p.invoice_number,
        region,
    });
    let resp = c.execute(&call).await?;
    Ok(Answer::part::<InvoiceDetailResponse>(
        resp,
        GetInvoiceDetailByInvoiceNumberParams::ROW.id,
    ))
}

fn line_items_call(c: &Client, p: &GetInvoiceLineItemsByInvoiceNumberParams) -> Result<Call> {
    validate::non_empty("invoice_number", &p.invoice_number)?;
    let region = client_region(c, &p.region)?;
    Ok(crate::wire!(GetInvoiceLineItemsByInvoiceNumberParams {
        invoice_number = &p.invoice_number,
        region,
    }))
}

/// getInvoiceLineItemsByInvoiceNumber: one page of line items (then reversal units).
pub(crate) async fn get_invoice_line_items_by_invoice_number(
    c: &Client,
    p: &GetInvoiceLineItemsByInvoiceNumberParams,
) -> Result<Answer<LineItemsPage>> {
    let call = crate::wire!(line_items_call(c, p)? => GetInvoiceLineItemsByInvoiceNumberParams {
        next_page_token = &p.next_page_token,
    });
    let resp = c.execute(&call).await?;
    Ok(Answer::new(
        resp,
        GetInvoiceLineItemsByInvoiceNumberParams::ROW.id,
    ))
}

/// Every page of an invoice's line items.
pub(crate) fn iter_invoice_line_items(
    c: &Client,
    p: &GetInvoiceLineItemsByInvoiceNumberParams,
) -> Result<Pager<LineItemsPage>> {
    Ok(Pager::new(
        c.clone(),
        line_items_call(c, p)?,
        TokenStyle::WithParams(crate::wire_name!(
            GetInvoiceLineItemsByInvoiceNumberParams,
            next_page_token
        )),
        p.next_page_token.clone(),
    ))
}

impl crate::describe::Describe for Artifact {
    fn ty() -> crate::describe::Ty {
        static INFO: crate::describe::OneOfInfo = crate::describe::OneOfInfo {
            variants: &[BillingDetails::ty, TaxArtifact::ty, RawJson::ty],
            choose: ArtifactKind::shape,
            tag: "artifactType",
            by_tag: ArtifactKind::shape_named,
        };
        crate::describe::Ty::OneOf(&INFO)
    }
}

impl crate::node::ToNode for Artifact {
    fn to_node(&self) -> crate::node::Node<'_> {
        match self {
            Artifact::BillingDetails(b) => b.to_node(),
            Artifact::PurchaseFromQualifiedIssuer(t) | Artifact::PurchaseFromOtherIssuer(t) => {
                t.to_node()
            }
            Artifact::Other(raw) => crate::node::Node::Raw(raw.get()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::describe::{Describe, Ty};

    /// The one-of's chooser (which the Python binding builds from) names, for each
    /// `artifactType`, the shape the core's own `Deserialize` reads the artifact as.
    #[test]
    fn the_artifact_chooser_agrees_with_the_decoder() {
        let Ty::OneOf(info) = Artifact::ty() else {
            panic!("Artifact is not described as a one-of")
        };
        for (raw, want) in [
            (
                r#"{"artifactType":"BillingDetails","amountDetails":[]}"#,
                "BillingDetails",
            ),
            (
                r#"{"artifactType":"PurchaseFromQualifiedIssuer"}"#,
                "TaxArtifact",
            ),
            (
                r#"{"artifactType":"PurchaseFromOtherIssuer","taxBreakdown":[]}"#,
                "TaxArtifact",
            ),
            (r#"{"artifactType":"SomethingNew","x":1}"#, "raw"),
            (r#"{"x":1}"#, "raw"),
        ] {
            let chosen = match (info.variants[(info.choose)(raw).unwrap()])() {
                Ty::Model(m) => m.name,
                Ty::Raw => "raw",
                other => panic!("unexpected shape {other:?}"),
            };
            let decoded = match serde_json::from_str::<Artifact>(raw).unwrap() {
                Artifact::BillingDetails(_) => "BillingDetails",
                Artifact::PurchaseFromQualifiedIssuer(_) | Artifact::PurchaseFromOtherIssuer(_) => {
                    "TaxArtifact"
                }
                Artifact::Other(_) => "raw",
            };
            assert_eq!((chosen, decoded), (want, want), "{raw}");
            // The same shape from the tag alone, as a reader meets it.
            let tag = serde_json::from_str::<serde_json::Value>(raw).unwrap()[info.tag]
                .as_str()
                .map(str::to_owned);
            assert_eq!(
                (info.by_tag)(tag.as_deref()),
                (info.choose)(raw).unwrap(),
                "{raw}"
            );
        }
        assert!((info.choose)(r#""text""#).is_err());
        assert!(serde_json::from_str::<Artifact>(r#""text""#).is_err());
    }
}
