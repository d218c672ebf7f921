//! The catalogue of every operation of both specification documents: operationId, API
//! group, method, path, retry kind, default usage plan and header needs. Decisions about
//! operations live here and nowhere else (docs/decisions.md explains each number).

use http::Method;

use crate::ratelimit::Plan;
use crate::retry::OperationKind;

/// One operation of the service.
#[derive(Clone, Debug, PartialEq)]
pub struct Operation {
    /// The specification's operationId.
    pub id: &'static str,
    /// The API group (`invoices`, `reconciliation`, ...), as in the public API.
    pub group: &'static str,
    pub method: Method,
    /// Path with `{name}` placeholders, version segment included.
    pub path: &'static str,
    pub kind: OperationKind,
    /// Default usage plan until the server reports its own rate.
    pub plan: Plan,
    /// `x-svc-user-email` must be sent.
    pub needs_user_email: bool,
}

const fn op(
    id: &'static str,
    group: &'static str,
    method: Method,
    path: &'static str,
    kind: OperationKind,
    plan: Plan,
    needs_user_email: bool,
) -> Operation {
    Operation {
        id,
        group,
        method,
        path,
        kind,
        plan,
        needs_user_email,
    }
}

use OperationKind::*;

/// Spec: 0.5 rps, burst 10 for invoice and product-search operations; published plans
/// for the rest (docs/decisions.md, "Rate limits").
const HALF: Plan = Plan::new(0.5, 10);
const CART: Plan = Plan::new(2.0, 2);
const REPORT_READ: Plan = Plan::new(2.0, 10);
const CREATE_REPORT: Plan = Plan::new(0.0167, 15);

pub static GET_INVOICES: Operation = op(
    "getInvoices",
    "invoices",
    Method::GET,
    "/ab-invoice/2026-02-01/invoices",
    SafeRead,
    HALF,
    false,
);
pub static GET_INVOICE_DETAIL: Operation = op(
    "getInvoiceDetailByInvoiceNumber",
    "invoices",
    Method::GET,
    "/ab-invoice/2026-02-01/invoices/{invoiceNumber}/detail",
    SafeRead,
    HALF,
    false,
);
pub static GET_INVOICE_LINE_ITEMS: Operation = op(
    "getInvoiceLineItemsByInvoiceNumber",
    "invoices",
    Method::GET,
    "/ab-invoice/2026-02-01/invoices/{invoiceNumber}/lineItems",
    SafeRead,
    HALF,
    false,
);
pub static GET_TRANSACTIONS: Operation = op(
    "getTransactions",
    "reconciliation",
    Method::GET,
    "/reconciliation/2021-01-08/transactions",
    SafeRead,
    HALF,
    false,
);
pub static GET_INVOICE_DETAILS_BY_ORDER_LINE_ITEMS: Operation = op(
    "getInvoiceDetailsByOrderLineItems",
    "reconciliation",
    Method::POST,
    "/reconciliation/2021-01-08/invoices",
    ReadPost,
    HALF,
    false,
);
pub static CREATE_REPORT_OP: Operation = op(
    "createReport",
    "documents",
    Method::POST,
    "/reports/2021-09-30/reports",
    BenignDuplicate,
    CREATE_REPORT,
    false,
);
pub static GET_REPORT: Operation = op(
    "getReport",
    "documents",
    Method::GET,
    "/reports/2021-09-30/reports/{reportId}",
    SafeRead,
    REPORT_READ,
    false,
);
pub static GET_REPORT_DOCUMENT: Operation = op(
    "getReportDocument",
    "documents",
    Method::GET,
    "/reports/2021-09-30/documents/{reportDocumentId}",
    SafeRead,
    REPORT_READ,
    false,
);
pub static LIST_CARTS: Operation = op(
    "listCarts",
    "cart",
    Method::GET,
    "/cart/2025-04-30/carts",
    SafeRead,
    CART,
    true,
);
pub static GET_CART: Operation = op(
    "getCart",
    "cart",
    Method::GET,
    "/cart/2025-04-30/carts/{cartId}",
    SafeRead,
    CART,
    false,
);
pub static GET_ITEMS: Operation = op(
    "getItems",
    "cart",
    Method::GET,
    "/cart/2025-04-30/carts/{cartId}/items",
    SafeRead,
    CART,
    false,
);
pub static ADD_ITEMS: Operation = op(
    "addItems",
    "cart",
    Method::POST,
    "/cart/2025-04-30/carts/{cartId}/items",
    UnsafeWrite,
    CART,
    false,
);
pub static MODIFY_ITEMS: Operation = op(
    "modifyItems",
    "cart",
    Method::PATCH,
    "/cart/2025-04-30/carts/{cartId}/items",
    IdempotentWrite,
    CART,
    false,
);
pub static DELETE_ITEMS: Operation = op(
    "deleteItems",
    "cart",
    Method::DELETE,
    "/cart/2025-04-30/carts/{cartId}/items",
    IdempotentWrite,
    CART,
    false,
);
pub static GET_ESTIMATED_TOTAL_PURCHASE_COST: Operation = op(
    "getEstimatedTotalPurchaseCost",
    "cart",
    Method::POST,
    "/cart/2025-04-30/carts/{cartId}/totalPurchaseCostEstimations",
    ReadPost,
    CART,
    false,
);
pub static SEARCH_PRODUCTS: Operation = op(
    "searchProductsRequest",
    "products",
    Method::GET,
    "/products/2020-08-26/products",
    SafeRead,
    HALF,
    true,
);
pub static PRODUCTS_REQUEST: Operation = op(
    "productsRequest",
    "products",
    Method::GET,
    "/products/2020-08-26/products/{productId}",
    SafeRead,
    HALF,
    true,
);
pub static SEARCH_OFFERS: Operation = op(
    "searchOffersRequest",
    "products",
    Method::GET,
    "/products/2020-08-26/products/{productId}/offers",
    SafeRead,
    HALF,
    true,
);
pub static GET_PRODUCTS_BY_ASINS: Operation = op(
    "getProductsByAsins",
    "products",
    Method::POST,
    "/products/2020-08-26/products/getProductsByAsins",
    ReadPost,
    HALF,
    true,
);
pub static GET_OFFERS_BY_OFFER_IDS: Operation = op(
    "getOffersByOfferIds",
    "products",
    Method::POST,
    "/products/2020-08-26/offers/getOffersByOfferIds",
    ReadPost,
    HALF,
    true,
);
pub static PLACE_ORDER: Operation = op(
    "placeOrder",
    "ordering",
    Method::POST,
    "/ordering/2022-10-30/orders",
    UnsafeWrite,
    HALF,
    false,
);
pub static GET_ORDERS_BY_ORDER_ID: Operation = op(
    "getOrdersByOrderId",
    "reporting",
    Method::GET,
    "/reports/2021-01-08/orders/{orderId}",
    SafeRead,
    HALF,
    true,
);
pub static GET_SHIPMENT_LINE_ITEM_REPORTS: Operation = op(
    "getShipmentLineItemReports",
    "reporting",
    Method::GET,
    "/reports/2025-06-09/shipmentLineItemReports",
    SafeRead,
    HALF,
    false,
);
pub static GET_PACKAGE_TRACKING_DETAILS: Operation = op(
    "getPackageTrackingDetails",
    "tracking",
    Method::GET,
    "/ab-tracking/2025-07-02/orders/{orderId}/shipments/{shipmentId}/packages/{packageId}",
    SafeRead,
    HALF,
    false,
);

/// Every operation, in the order of the specification documents.
pub static ALL: [&Operation; 24] = [
    &GET_INVOICES,
    &GET_INVOICE_DETAIL,
    &GET_INVOICE_LINE_ITEMS,
    &GET_TRANSACTIONS,
    &GET_INVOICE_DETAILS_BY_ORDER_LINE_ITEMS,
    &CREATE_REPORT_OP,
    &GET_REPORT,
    &GET_REPORT_DOCUMENT,
    &LIST_CARTS,
    &GET_CART,
    &GET_ITEMS,
    &ADD_ITEMS,
    &MODIFY_ITEMS,
    &DELETE_ITEMS,
    &GET_ESTIMATED_TOTAL_PURCHASE_COST,
    &SEARCH_PRODUCTS,
    &PRODUCTS_REQUEST,
    &SEARCH_OFFERS,
    &GET_PRODUCTS_BY_ASINS,
    &GET_OFFERS_BY_OFFER_IDS,
    &PLACE_ORDER,
    &GET_ORDERS_BY_ORDER_ID,
    &GET_SHIPMENT_LINE_ITEM_REPORTS,
    &GET_PACKAGE_TRACKING_DETAILS,
];

/// Looks an operation up by its operationId.
pub fn by_id(id: &str) -> Option<&'static Operation> {
    ALL.iter().copied().find(|o| o.id == id)
}
