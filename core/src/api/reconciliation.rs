//! Reconciliation 2021-01-08: business transactions by feed date, and the (JP
//! tax-compliant) invoice data of order line items.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{wire_datetime, Address, DateTimeArg, RegisteredParty};
use crate::answer::Answer;
use crate::client::{Call, Client};
use crate::error::{Error, Result};
use crate::money::{Amount, Money};
use crate::operation_row::Row;
use crate::paging::{Pager, TokenStyle};
use crate::{model, validate, Timestamp};

super::group_rows! {$
    reconciliation Reconciliation {
        /// One page of the transactions of a feed-date range.
        GET_TRANSACTIONS = GET_TRANSACTIONS => get_transactions(GetTransactionsParams) -> TransactionsPage, pager iter_transactions.transactions;
        /// The invoice data of 1 to 25 order line items.
        GET_INVOICE_DETAILS_BY_ORDER_LINE_ITEMS = GET_INVOICE_DETAILS_BY_ORDER_LINE_ITEMS => get_invoice_details_by_order_line_items(GetInvoiceDetailsByOrderLineItemsParams) -> InvoiceDetailsResponse;
    }
}

/// Order line items per getInvoiceDetailsByOrderLineItems call.
pub const MAX_LINE_ITEMS: usize = 25;

model! {
    /// A person on a transaction (buyer, payer).
    pub struct Person {
        "id" id: String,
        "name" name: String,
        "email" email: String,
    }
}

model! {
    /// A transaction this one is associated with (a refund's charge).
    pub struct AssociatedTransaction {
        "associatedTransactionId" associated_transaction_id: String,
    }
}

model! {
    /// A line of a transaction. Amounts are strings on this wire and stay exact.
    pub struct TransactionLineItem {
        "totalAmount" total_amount: Money,
        "principalAmount" principal_amount: Money,
        "shippingCharge" shipping_charge: Money,
        "discount" discount: Money,
        "tax" tax: Money,
        "taxRate" tax_rate: String,
        "orderId" order_id: String,
        "unspsc" unspsc: String,
        "orderLineItemId" order_line_item_id: String,
        "purchaseOrderNumber" purchase_order_number: String,
        "asin" asin: String,
        "productTitle" product_title: String,
        "itemQuantity" item_quantity: i64,
        "shipmentId" shipment_id: String,
        "shipmentDate" shipment_date: Timestamp,
        "merchantLegalName" merchant_legal_name: String,
        "businessOrderInfo" business_order_info: std::collections::BTreeMap<String, Option<String>>,
    }
}

model! {
    /// A business transaction (CHARGE, REFUND, ...).
    pub struct Transaction {
        "marketplaceId" marketplace_id: String,
        "transactionDate" transaction_date: Timestamp,
        "feedDate" feed_date: Timestamp,
        "transactionType" transaction_type: String,
        "transactionId" transaction_id: String,
        "chargeIdentifier" charge_identifier: String,
        "shipTaxRate" ship_tax_rate: String,
        "giftWrapTaxRate" gift_wrap_tax_rate: String,
        "legalEntityName" legal_entity_name: String,
        "invoiceNumber" invoice_number: String,
        "amount" amount: Money,
        "paymentInstrumentType" payment_instrument_type: String,
        "buyer" buyer: Person,
        "payer" payer: Person,
        "associatedTransactionDetails" associated_transaction_details: Vec<Option<AssociatedTransaction>>,
        "transactionLineItems" transaction_line_items: Vec<Option<TransactionLineItem>>,
    }
}

model! {
    /// A page of getTransactions.
    pub struct TransactionsPage {
        "transactions" transactions: Vec<Option<Transaction>>,
        "nextPageToken" next_page_token: String,
    }
}

crate::api::page!(TransactionsPage, transactions -> Transaction);

/// Identifies an order line item of a shipment (the input of the invoice-details call).
/// Read from arguments by its snake_case names (the camelCase of the wire accepted too),
/// so that an error names `order_line_items[1].shipment_id`; sent in camelCase.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct OrderLineItemRef {
    /// The order's id.
    #[serde(rename(serialize = "orderId"), alias = "orderId")]
    pub order_id: String,
    /// The order line item's id.
    #[serde(rename(serialize = "orderLineItemId"), alias = "orderLineItemId")]
    pub order_line_item_id: String,
    /// The shipment's id.
    #[serde(rename(serialize = "shipmentId"), alias = "shipmentId")]
    pub shipment_id: String,
}
crate::objects_only!(OrderLineItemRef);

impl OrderLineItemRef {
    /// A reference from its three ids.
    pub fn new(
        order_id: impl Into<String>,
        order_line_item_id: impl Into<String>,
        shipment_id: impl Into<String>,
    ) -> Self {
        OrderLineItemRef {
            order_id: order_id.into(),
            order_line_item_id: order_line_item_id.into(),
            shipment_id: shipment_id.into(),
        }
    }
}

impl From<&TransactionLineItem> for OrderLineItemRef {
    fn from(li: &TransactionLineItem) -> Self {
        OrderLineItemRef {
            order_id: li.order_id.clone().unwrap_or_default(),
            order_line_item_id: li.order_line_item_id.clone().unwrap_or_default(),
            shipment_id: li.shipment_id.clone().unwrap_or_default(),
        }
    }
}

model! {
    /// The order line item a result is for, as the service echoes it.
    pub struct OrderLineItem {
        "orderId" order_id: String,
        "orderLineItemId" order_line_item_id: String,
        "shipmentId" shipment_id: String,
    }
}

model! {
    /// The consolidated invoice an order line item belongs to.
    pub struct ConsolidatedInvoiceDetails {
        /// Reads "Pending" until the consolidated invoice is issued.
        "invoiceNumber" invoice_number: String,
    }
}

model! {
    /// Tax of one rate.
    pub struct TaxLine {
        "rate" rate: String,
        "inclusiveTotal" inclusive_total: Money,
        "exclusiveTotal" exclusive_total: Money,
        "amount" amount: Money,
    }
}

model! {
    /// How a transaction data item is spread over order line items.
    pub struct Apportionment {
        "orderLineItemId" order_line_item_id: String,
        "lineNumber" line_number: i64,
        "units" units: i64,
        "unitPrice" unit_price: Money,
        "taxAmount" tax_amount: Money,
    }
}

model! {
    /// How a fee is spread.
    pub struct FeeApportionment {
        "taxExclusiveFee" tax_exclusive_fee: Money,
        "taxAmount" tax_amount: Money,
    }
}

model! {
    /// A fee (SHIPPING, ...) with its tax.
    pub struct Fee {
        "feeType" fee_type: String,
        "tax" tax: TaxLine,
        "discount" discount: Money,
        "apportionment" apportionment: Vec<Option<FeeApportionment>>,
    }
}

model! {
    /// A product line of a JP invoice.
    pub struct TransactionDataItem {
        "taxRate" tax_rate: String,
        "unit" unit: i64,
        "asin" asin: String,
        "title" title: String,
        "unitTaxInclusivePrice" unit_tax_inclusive_price: Money,
        "unitTaxExclusivePrice" unit_tax_exclusive_price: Money,
        "unitTaxAmount" unit_tax_amount: Money,
        "totalAmount" total_amount: Money,
        "discount" discount: Money,
        "apportionment" apportionment: Vec<Option<Apportionment>>,
        "fees" fees: Vec<Option<Fee>>,
    }
}

model! {
    /// The invoice (or credit memo) data of an order line item.
    pub struct InvoiceDetails {
        "invoiceNumber" invoice_number: String,
        "invoiceDate" invoice_date: Timestamp,
        "consolidatedInvoiceDetails" consolidated_invoice_details: ConsolidatedInvoiceDetails,
        "invoiceType" invoice_type: super::invoices::InvoiceType,
        "associatedInvoiceNumber" associated_invoice_number: String,
        "associatedInvoiceDate" associated_invoice_date: Timestamp,
        "invoiceIssuer" invoice_issuer: RegisteredParty,
        "billToAddress" bill_to_address: Address,
        "sellerInformation" seller_information: RegisteredParty,
        "orderDate" order_date: Timestamp,
        "currencyCode" currency_code: String,
        "invoiceTotal" invoice_total: Amount,
        "tax" tax: Vec<Option<TaxLine>>,
        "transactionDataItems" transaction_data_items: Vec<Option<TransactionDataItem>>,
        "fees" fees: Vec<Option<Fee>>,
    }
}

model! {
    /// The invoice data of one order line item.
    pub struct InvoiceDetailsByOrderLineItem {
        "orderLineItem" order_line_item: OrderLineItem,
        "invoiceDetails" invoice_details: Vec<Option<InvoiceDetails>>,
    }
}

model! {
    /// The body of getInvoiceDetailsByOrderLineItems.
    pub struct InvoiceDetailsResponse {
        "invoiceDetailsByOrderLineItems" invoice_details_by_order_line_items: Vec<Option<InvoiceDetailsByOrderLineItem>>,
    }
}

crate::params! {
    /// The arguments of getTransactions.
    pub struct GetTransactionsParams {
        /// Start of the feed-date range.
        req feed_start_date: DateTimeArg,
        /// End of the feed-date range.
        req feed_end_date: DateTimeArg,
        /// Resume from this page token (sent alone, as the service wants).
        opt next_page_token: String,
    }
}

crate::params! {
    /// The arguments of getInvoiceDetailsByOrderLineItems.
    pub struct GetInvoiceDetailsByOrderLineItemsParams {
        /// 1 to 25 order line items (order_id, order_line_item_id, shipment_id).
        req order_line_items: Vec<OrderLineItemRef>,
    }
}

crate::params! {
    /// The arguments of `invoice_details_for`.
    pub struct InvoiceDetailsForParams {
        /// Any number of order line items (order_id, order_line_item_id, shipment_id).
        req line_items: Vec<OrderLineItemRef>,
    }
}

impl crate::describe::Describe for OrderLineItemRef {
    fn ty() -> crate::describe::Ty {
        use crate::describe::{ParamInfo, ParamsInfo, Ty};
        const fn field(name: &'static str) -> ParamInfo {
            ParamInfo {
                name,
                ty: || Ty::Str,
                required: true,
                doc: "",
            }
        }
        static INFO: ParamsInfo = ParamsInfo {
            name: "OrderLineItemRef",
            doc: "Identifies an order line item of a shipment.",
            fields: &[
                field("order_id"),
                field("order_line_item_id"),
                field("shipment_id"),
            ],
        };
        Ty::Params(&INFO)
    }
}

/// The reconciliation operations. Get one with `Client::reconciliation`.
pub struct Reconciliation<'a> {
    pub(crate) client: &'a Client,
}

impl Client {
    /// Reconciliation 2021-01-08.
    pub fn reconciliation(&self) -> Reconciliation<'_> {
        Reconciliation { client: self }
    }
}

fn transactions_call(p: &GetTransactionsParams) -> Result<Call> {
    let start = p.feed_start_date.resolve("feed_start_date")?;
    let end = p.feed_end_date.resolve("feed_end_date")?;
    if start > end {
        return Err(Error::validation(
            "feed_start_date",
            "must not be after feed_end_date",
        ));
    }
    Ok(crate::wire!(GetTransactionsParams {
        feed_start_date = wire_datetime(start),
        feed_end_date = wire_datetime(end),
    }))
}

/// getTransactions: one page of the transactions of a feed-date range.
pub(crate) async fn get_transactions(
    c: &Client,
    p: &GetTransactionsParams,
) -> Result<Answer<TransactionsPage>> {
    let mut call = transactions_call(p)?;
    if let Some(t) = &p.next_page_token {
        validate::non_empty("next_page_token", t)?;
        // The token is sent alone (the description's `alone`).
        call.query.clear();
        call = crate::wire!(call => GetTransactionsParams { next_page_token = t });
    }
    let resp = c.execute(&call).await?;
    Ok(Answer::new(resp, GetTransactionsParams::ROW.id))
}

/// Every page of getTransactions.
pub(crate) fn iter_transactions(
    c: &Client,
    p: &GetTransactionsParams,
) -> Result<Pager<TransactionsPage>> {
    Ok(Pager::new(
        c.clone(),
        transactions_call(p)?,
        TokenStyle::Alone(crate::wire_name!(GetTransactionsParams, next_page_token)),
        p.next_page_token.clone(),
    ))
}

fn check_refs(param: &str, items: &[OrderLineItemRef]) -> Result<()> {
    for (i, it) in items.iter().enumerate() {
        validate::non_empty(&format!("{param}[{i}].order_id"), &it.order_id)?;
        validate::non_empty(
            &format!("{param}[{i}].order_line_item_id"),
            &it.order_line_item_id,
        )?;
        validate::non_empty(&format!("{param}[{i}].shipment_id"), &it.shipment_id)?;
    }
    Ok(())
}

/// getInvoiceDetailsByOrderLineItems: the invoice data of at most 25 line items.
pub(crate) async fn get_invoice_details_by_order_line_items(
    c: &Client,
    p: &GetInvoiceDetailsByOrderLineItemsParams,
) -> Result<Answer<InvoiceDetailsResponse>> {
    let items = &p.order_line_items;
    validate::count("order_line_items", items.len(), 1, MAX_LINE_ITEMS)?;
    check_refs("order_line_items", items)?;
    #[derive(Serialize)]
    struct Body<'a> {
        #[serde(rename = "orderLineItems")]
        order_line_items: &'a [OrderLineItemRef],
    }
    let call = Call::new(GetInvoiceDetailsByOrderLineItemsParams::ROW).json(&Body {
        order_line_items: items,
    })?;
    let resp = c.execute(&call).await?;
    Ok(Answer::new(
        resp,
        GetInvoiceDetailsByOrderLineItemsParams::ROW.id,
    ))
}

impl Reconciliation<'_> {
    /// The invoice data of any number of line items with the fewest requests: line items
    /// of one (order, shipment) share their invoice, so one representative of each pair is
    /// sent, 25 per request, and its answer is returned for every input of the pair.
    /// The result has one entry per input, in input order.
    pub async fn invoice_details_for(
        &self,
        p: &InvoiceDetailsForParams,
    ) -> Result<Vec<InvoiceDetailsByOrderLineItem>> {
        self.invoice_details_for_reporting(p, |_, _| {}).await
    }

    /// `invoice_details_for`, calling `progress(done, total)` after each request: of the
    /// `total` line items given, `done` have their answer (a progress bar's figures).
    pub async fn invoice_details_for_reporting(
        &self,
        p: &InvoiceDetailsForParams,
        mut progress: impl FnMut(usize, usize) + Send,
    ) -> Result<Vec<InvoiceDetailsByOrderLineItem>> {
        let items = &p.line_items;
        check_refs("line_items", items)?;
        let mut representatives: Vec<OrderLineItemRef> = vec![];
        let mut index: HashMap<(String, String), usize> = HashMap::new();
        for it in items {
            let key = (it.order_id.clone(), it.shipment_id.clone());
            if let std::collections::hash_map::Entry::Vacant(slot) = index.entry(key) {
                slot.insert(representatives.len());
                representatives.push(it.clone());
            }
        }
        // How many of the given line items each representative answers for.
        let mut covers = vec![0usize; representatives.len()];
        for it in items {
            covers[index[&(it.order_id.clone(), it.shipment_id.clone())]] += 1;
        }
        let mut done = 0;
        let mut answers: Vec<Option<Vec<Option<InvoiceDetails>>>> =
            vec![None; representatives.len()];
        for (batch_no, batch) in representatives.chunks(MAX_LINE_ITEMS).enumerate() {
            let resp = self
                .client
                .call(&GetInvoiceDetailsByOrderLineItemsParams {
                    order_line_items: batch.to_vec(),
                })
                .await?;
            for entry in resp
                .invoice_details_by_order_line_items
                .into_iter()
                .flatten()
                .flatten()
            {
                let Some(oli) = &entry.order_line_item else {
                    continue;
                };
                let key = (
                    oli.order_id.clone().unwrap_or_default(),
                    oli.shipment_id.clone().unwrap_or_default(),
                );
                if let Some(&slot) = index.get(&key) {
                    if slot / MAX_LINE_ITEMS == batch_no {
                        answers[slot] = Some(entry.invoice_details.unwrap_or_default());
                    }
                }
            }
            let first = batch_no * MAX_LINE_ITEMS;
            done += covers[first..first + batch.len()].iter().sum::<usize>();
            progress(done, items.len());
        }
        Ok(items
            .iter()
            .map(|it| {
                let slot = index[&(it.order_id.clone(), it.shipment_id.clone())];
                InvoiceDetailsByOrderLineItem {
                    order_line_item: Some(OrderLineItem {
                        order_id: Some(it.order_id.clone()),
                        order_line_item_id: Some(it.order_line_item_id.clone()),
                        shipment_id: Some(it.shipment_id.clone()),
                        ..Default::default()
                    }),
                    invoice_details: answers[slot].clone(),
                    ..Default::default()
                }
            })
            .collect())
    }
}
