//! Reporting: one order by id (2021-01-08) and shipment line items by order-date range
//! (2025-06-09).

use std::collections::BTreeMap;

use chrono::Utc;

use super::{optional_region, wire_datetime, DateTimeArg};
use crate::answer::Answer;
use crate::client::{Call, Client};
use crate::error::Result;
use crate::model::RawJson;
use crate::money::Money;
use crate::operation_row::Row;
use crate::paging::{Pager, TokenStyle};
use crate::{model, validate, Timestamp};

super::group_rows! {$
    reporting Reporting {
        /// The orders of an order id, with the parts asked for.
        GET_ORDERS_BY_ORDER_ID = GET_ORDERS_BY_ORDER_ID => get_orders_by_order_id(GetOrdersByOrderIdParams) -> OrdersResponse;
        /// One page of shipment line item reports.
        GET_SHIPMENT_LINE_ITEM_REPORTS = GET_SHIPMENT_LINE_ITEM_REPORTS => get_shipment_line_item_reports(GetShipmentLineItemReportsParams) -> ShipmentLineItemsPage, pager iter_shipment_line_item_reports.shipment_line_items_report;
    }
}

/// Shipment line item reporting: the longest order-date range and the list limits.
pub const MAX_RANGE_DAYS: i64 = 366;
/// At most this many purchase order numbers per getShipmentLineItemReports call.
pub const MAX_PURCHASE_ORDER_NUMBERS: usize = 30;
/// At most this many order ids per getShipmentLineItemReports call.
pub const MAX_ORDER_IDS: usize = 30;

model! {
    /// A customer user.
    pub struct BuyingCustomer {
        "id" id: String,
        "name" name: String,
        "email" email: String,
    }
}

model! {
    /// A seller's address.
    pub struct SellerAddress {
        "addressLine1" address_line1: String,
        "addressLine2" address_line2: String,
        "city" city: String,
        "state" state: String,
        "postalCode" postal_code: String,
        "countryCode" country_code: String,
    }
}

model! {
    /// The seller of a line.
    pub struct Seller {
        "sellerName" seller_name: String,
        "sellerPrimaryAddress" seller_primary_address: SellerAddress,
        "sellerCity" seller_city: String,
        "sellerState" seller_state: String,
        "sellerPostalCode" seller_postal_code: String,
    }
}

model! {
    /// A certifying agency of a seller credential.
    pub struct CertifyingAgency {
        "certifyingAgencyName" certifying_agency_name: String,
        "certificateExpirationDate" certificate_expiration_date: String,
    }
}

model! {
    /// A seller credential.
    pub struct SellerCredentialDetail {
        "certificateType" certificate_type: String,
        "certifyingAgenciesDetails" certifying_agencies_details: Vec<Option<CertifyingAgency>>,
    }
}

model! {
    /// A line of an order report.
    pub struct OrderReportLineItem {
        "orderLineItemId" order_line_item_id: String,
        "productCategory" product_category: String,
        "asin" asin: String,
        "title" title: String,
        "unspsc" unspsc: RawJson,
        "productCondition" product_condition: String,
        "listedPricePerUnit" listed_price_per_unit: Money,
        "purchasedPricePerUnit" purchased_price_per_unit: Money,
        "itemQuantity" item_quantity: i64,
        "itemSubTotal" item_sub_total: Money,
        "itemShippingAndHandling" item_shipping_and_handling: Money,
        "itemPromotion" item_promotion: Money,
        "itemTax" item_tax: Money,
        "itemNetTotal" item_net_total: Money,
        "purchaseOrderLineItem" purchase_order_line_item: String,
        "taxExemptionApplied" tax_exemption_applied: bool,
        "taxExemptionType" tax_exemption_type: String,
        "taxExemptOptOut" tax_exempt_opt_out: bool,
        "discountProgram" discount_program: String,
        "discountType" discount_type: String,
        "discountAmount" discount_amount: Money,
        "discountRatio" discount_ratio: RawJson,
        "seller" seller: Seller,
        "sellerCredentials" seller_credentials: Vec<Option<String>>,
        "sellerCredentialDetails" seller_credential_details: Vec<Option<SellerCredentialDetail>>,
        "brandCode" brand_code: String,
        "brandName" brand_name: String,
        "manufacturerName" manufacturer_name: String,
        "transactionIds" transaction_ids: Vec<Option<String>>,
        "carrierTrackingNumbers" carrier_tracking_numbers: Vec<Option<String>>,
    }
}

model! {
    /// An order as the order report returns it. The fields of `shipments` and `charges`
    /// are not documented; they are kept exactly as sent.
    pub struct Order {
        "orderDate" order_date: Timestamp,
        "orderId" order_id: String,
        "purchaseOrderNumber" purchase_order_number: String,
        "orderQuantity" order_quantity: i64,
        "orderStatus" order_status: String,
        "lastOrderApproverName" last_order_approver_name: String,
        "buyingCustomer" buying_customer: BuyingCustomer,
        "buyerGroupName" buyer_group_name: String,
        "businessOrderInfo" business_order_info: BTreeMap<String, Option<String>>,
        "orderSubTotal" order_sub_total: Money,
        "orderShippingAndHandling" order_shipping_and_handling: Money,
        "orderPromotion" order_promotion: Money,
        "orderTax" order_tax: Money,
        "orderNetTotal" order_net_total: Money,
        "lineItems" line_items: Vec<Option<OrderReportLineItem>>,
        "shipments" shipments: Vec<Option<RawJson>>,
        "charges" charges: Vec<Option<RawJson>>,
    }
}

model! {
    /// The body of getOrdersByOrderId.
    pub struct OrdersResponse {
        "orders" orders: Vec<Option<Order>>,
        "size" size: i64,
    }
}

model! {
    /// Order of a shipment line item.
    pub struct SliOrderMetadata {
        "orderDate" order_date: Timestamp,
        "orderId" order_id: String,
        "region" region: String,
    }
}

model! {
    /// Shipment of a shipment line item.
    pub struct ShipmentMetadata {
        "shipmentId" shipment_id: String,
        "shipmentDate" shipment_date: Timestamp,
    }
}

model! {
    /// A UNSPSC code.
    pub struct Unspsc {
        "code" code: String,
    }
}

model! {
    /// The product of a shipment line item.
    pub struct ProductDetails {
        "productCategory" product_category: String,
        "asin" asin: String,
        "title" title: String,
        "unspsc" unspsc: Unspsc,
        "productCondition" product_condition: String,
        "brandCode" brand_code: String,
        "brandName" brand_name: String,
        "manufacturerName" manufacturer_name: String,
        "serialNumbers" serial_numbers: Vec<Option<String>>,
    }
}

model! {
    /// A charge of a shipment line item (SUBTOTAL, SHIPPING_AND_HANDLING, PROMOTION —
    /// negative —, TAX, NET_TOTAL).
    pub struct SliCharge {
        "type" r#type: String,
        "amount" amount: Money,
    }
}

model! {
    /// A package of a shipment.
    pub struct PackageRef {
        "trackingId" tracking_id: String,
        "packageId" package_id: String,
    }
}

model! {
    /// Who received a shipment line item, and when.
    pub struct ReceivingInfo {
        "customer" customer: BuyingCustomer,
        "date" date: Timestamp,
        "status" status: String,
        "quantity" quantity: i64,
    }
}

model! {
    /// One shipped line of an order.
    pub struct ShipmentLineItemReport {
        "orderMetadata" order_metadata: SliOrderMetadata,
        "shipmentMetadata" shipment_metadata: ShipmentMetadata,
        "purchaseOrderNumber" purchase_order_number: String,
        "orderLineItemId" order_line_item_id: String,
        "purchaseOrderLineItemNumber" purchase_order_line_item_number: String,
        "productDetails" product_details: ProductDetails,
        "charges" charges: Vec<Option<SliCharge>>,
        "quantity" quantity: i64,
        "carrierName" carrier_name: String,
        "packages" packages: Vec<Option<PackageRef>>,
        "receivingInfo" receiving_info: ReceivingInfo,
    }
}

model! {
    /// A page of getShipmentLineItemReports.
    pub struct ShipmentLineItemsPage {
        "shipmentLineItemsReport" shipment_line_items_report: Vec<Option<ShipmentLineItemReport>>,
        "nextPageToken" next_page_token: String,
        "size" size: i64,
    }
}

crate::api::page!(ShipmentLineItemsPage, shipment_line_items_report -> ShipmentLineItemReport);

crate::params! {
    /// The arguments of getOrdersByOrderId.
    pub struct GetOrdersByOrderIdParams {
        /// The order.
        req order_id: String,
        /// Include the line items (default false).
        opt include_line_items: bool,
        /// Include the shipments (default false).
        opt include_shipments: bool,
        /// Include the charges (default false).
        opt include_charges: bool,
    }
}

crate::params! {
    /// The arguments of getShipmentLineItemReports.
    pub struct GetShipmentLineItemReportsParams {
        /// Start of the order-date range.
        req order_start_date: DateTimeArg,
        /// End of the range: not in the future, at most 366 days after the start.
        req order_end_date: DateTimeArg,
        /// 1 to 30 purchase order numbers.
        opt purchase_order_numbers: Vec<String>,
        /// Only lines of this region.
        opt region: String,
        /// 1 to 30 order ids.
        opt order_ids: Vec<String>,
        /// Resume from this page token.
        opt next_page_token: String,
    }
}

/// The reporting operations. Get one with `Client::reporting`.
pub struct Reporting<'a> {
    pub(crate) client: &'a Client,
}

impl Client {
    /// Order (2021-01-08) and shipment line item (2025-06-09) reporting.
    pub fn reporting(&self) -> Reporting<'_> {
        Reporting { client: self }
    }
}

fn list(param: &str, v: &Option<Vec<String>>, max: usize) -> Result<Option<String>> {
    validate::csv(param, v.as_deref(), 1, max)
}

/// getOrdersByOrderId: one order, with the parts asked for.
pub(crate) async fn get_orders_by_order_id(
    c: &Client,
    p: &GetOrdersByOrderIdParams,
) -> Result<Answer<OrdersResponse>> {
    validate::non_empty("order_id", &p.order_id)?;
    let flag = |b: Option<bool>| if b == Some(true) { "true" } else { "false" };
    let call = crate::wire!(GetOrdersByOrderIdParams {
        order_id = &p.order_id,
        include_line_items = flag(p.include_line_items),
        include_shipments = flag(p.include_shipments),
        include_charges = flag(p.include_charges),
    });
    let resp = c.execute(&call).await?;
    Ok(Answer::new(resp, GetOrdersByOrderIdParams::ROW.id))
}

fn sli_call(c: &Client, p: &GetShipmentLineItemReportsParams) -> Result<Call> {
    let start = p.order_start_date.resolve("order_start_date")?;
    let end = p.order_end_date.resolve("order_end_date")?;
    validate::date_range(
        "order_start_date",
        start,
        "order_end_date",
        end,
        MAX_RANGE_DAYS,
        Utc::now(),
    )?;
    let pos = list(
        "purchase_order_numbers",
        &p.purchase_order_numbers,
        MAX_PURCHASE_ORDER_NUMBERS,
    )?;
    let ids = list("order_ids", &p.order_ids, MAX_ORDER_IDS)?;
    let region = optional_region(c, &p.region)?;
    Ok(crate::wire!(GetShipmentLineItemReportsParams {
        order_start_date = wire_datetime(start),
        order_end_date = wire_datetime(end),
        purchase_order_numbers = pos,
        region,
        order_ids = ids,
    }))
}

/// getShipmentLineItemReports: one page of shipped lines.
pub(crate) async fn get_shipment_line_item_reports(
    c: &Client,
    p: &GetShipmentLineItemReportsParams,
) -> Result<Answer<ShipmentLineItemsPage>> {
    let call = crate::wire!(sli_call(c, p)? => GetShipmentLineItemReportsParams {
        next_page_token = &p.next_page_token,
    });
    let resp = c.execute(&call).await?;
    Ok(Answer::new(resp, GetShipmentLineItemReportsParams::ROW.id))
}

/// Every page of getShipmentLineItemReports.
pub(crate) fn iter_shipment_line_item_reports(
    c: &Client,
    p: &GetShipmentLineItemReportsParams,
) -> Result<Pager<ShipmentLineItemsPage>> {
    Ok(Pager::new(
        c.clone(),
        sli_call(c, p)?,
        TokenStyle::WithParams(crate::wire_name!(
            GetShipmentLineItemReportsParams,
            next_page_token
        )),
        p.next_page_token.clone(),
    ))
}
