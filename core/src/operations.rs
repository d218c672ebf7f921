//! The operations table: every operation of both specification documents, written once.
//! A row names the operationId, the API group, the snake_case name, method and path, the
//! retry kind, the default usage plan, the headers it needs, its parameter struct, its
//! result type and, for a listing, its pager and the page field that holds the items.
//! From this table come the async and blocking methods of every group, the dispatch by
//! name the bindings use, and (through `xtask gen`) the C, C++ and Python surfaces.
//! Decisions about operations live here and nowhere else (docs/decisions/ explains
//! each number).

use http::Method;

use crate::ratelimit::Plan;
use crate::retry::OperationKind;

pub use crate::operation_row::{Header, Headers, Operation, PagerInfo};

use OperationKind::*;

/// The roles the specification's authentication sections name: reconciliation and documents need
/// Business Purchase Reconciliation; cart, ordering and tracking Order Placement; product
/// search and cart Business Product Catalog; reporting Analytics. Invoices: none named.
const RECONCILIATION_ROLE: &[&str] = &["Business Purchase Reconciliation"];
const ORDER_PLACEMENT: &[&str] = &["Order Placement"];
const CART_ROLES: &[&str] = &["Order Placement", "Business Product Catalog"];
const PRODUCT_CATALOG: &[&str] = &["Business Product Catalog"];
const ANALYTICS: &[&str] = &["Analytics"];
const NONE_NAMED: &[&str] = &[];

/// Spec: 0.5 rps, burst 10 for invoice and product-search operations; published plans
/// for the rest (docs/decisions/007-rate-limits.md, "Rate limits").
const HALF: Plan = Plan::new(0.5, 10);
const CART: Plan = Plan::new(2.0, 2);
const REPORT_READ: Plan = Plan::new(2.0, 10);
const CREATE_REPORT: Plan = Plan::new(0.0167, 15);

/// Declares the table: one row per operation, grouped by API group. For each row it
/// makes the `Operation` static, the `Operation` trait impl of the parameter struct (the
/// handler is `api::<group>::<name>`, the pager `api::<group>::<pager>`), the methods of
/// the group in the async and the blocking client, and the entry of the dispatch by name.
macro_rules! operations {
    (
        $(
            $group:ident $Group:ident {
                $(
                    $(#[doc = $doc:literal])+
                    $STATIC:ident = $id:literal $name:ident($P:ty) -> $O:ty,
                    $method:ident $path:literal, $kind:ident, $plan:ident, headers [$($h:ident),*],
                    roles $roles:ident
                    $(, pager $pager:ident . $items:ident)? ;
                )*
            }
        )*
    ) => {
        $( $(
            $(#[doc = $doc])+
            pub static $STATIC: Operation = Operation {
                id: $id,
                group: stringify!($group),
                name: stringify!($name),
                method: Method::$method,
                path: $path,
                kind: $kind,
                plan: $plan,
                headers: Headers::of(&[$(Header::$h),*]),
                roles: $roles,
                params: <$P as crate::describe::Describe>::ty,
                output: <$O as crate::describe::Describe>::ty,
                pager: pager_info!($($pager . $items)?),
                resend_safe: resend_safe($id),
                doc: first_line(concat!($($doc, "\n"),+)),
            };

            impl crate::operation_row::Row for $P {
                const ROW: &'static Operation = &$STATIC;
            }

            impl crate::operation::Operation for $P {
                type Output = $O;
                fn row() -> &'static Operation {
                    &$STATIC
                }
                async fn run(&self, client: &crate::Client) -> crate::Result<$O> {
                    crate::operation::Finish::<$O>::finish(crate::api::$group::$name(client, self).await?)
                }
                async fn reply(&self, client: &crate::Client) -> crate::Result<crate::operation::Reply> {
                    Ok(crate::operation::Finish::<$O>::reply(crate::api::$group::$name(client, self).await?))
                }
            }

            paged_impl!($group, $P, $O $(, $pager)?);

            impl crate::api::$group::$Group<'_> {
                $(#[doc = $doc])+
                pub async fn $name(&self, p: &$P) -> crate::Result<$O> {
                    self.client.call(p).await
                }
                $(
                    #[doc = concat!("Every page of `", stringify!($name), "` (an iterator of pages; `items()` for the items).")]
                    pub fn $pager(&self, p: &$P) -> crate::Result<crate::paging::Pager<$O>> {
                        self.client.pager(p)
                    }
                )?
            }

            impl crate::blocking::$Group<'_> {
                $(#[doc = $doc])+
                pub fn $name(&self, p: &$P) -> crate::Result<$O> {
                    self.client.call(p)
                }
                $(
                    #[doc = concat!("Every page of `", stringify!($name), "`, blocking (an iterator of pages; `items()` for the items).")]
                    pub fn $pager(&self, p: &$P) -> crate::Result<crate::blocking::Pager<$O>> {
                        self.client.pager(p)
                    }
                )?
            }
        )* )*

        /// Every operation, in the order of the specification documents.
        pub static ALL: &[&Operation] = &[ $( $( &$STATIC, )* )* ];

        /// The operation of a snake_case name or an operationId, for the bindings.
        pub fn dynamic(name: &str) -> Option<&'static dyn crate::operation::DynOperation> {
            $( $(
                if name == stringify!($name) || name == $id {
                    return Some(&crate::operation::Typed::<$P>::NEW);
                }
            )* )*
            None
        }

        /// The listing of a pager name (`iter_invoices`), for the bindings.
        pub fn dynamic_pager(name: &str) -> Option<&'static dyn crate::operation::DynOperation> {
            $( $( $(
                if name == stringify!($pager) {
                    return Some(&crate::operation::Typed::<$P>::PAGED);
                }
            )? )* )*
            None
        }
    };
}

macro_rules! paged_impl {
    ($group:ident, $P:ty, $O:ty) => {
        impl crate::operation::MaybePaged for $P {
            fn dyn_pager(
                &self,
                _: &crate::Client,
            ) -> crate::Result<Box<dyn crate::operation::DynPager>> {
                Err(crate::Error::internal(format!(
                    "{} is not a listing",
                    <$P as crate::operation::Operation>::row().id
                )))
            }
        }
    };
    ($group:ident, $P:ty, $O:ty, $pager:ident) => {
        impl crate::operation::Paged for $P {
            fn pager(&self, client: &crate::Client) -> crate::Result<crate::paging::Pager<$O>> {
                crate::api::$group::$pager(client, self)
            }
        }
        impl crate::operation::MaybePaged for $P {
            fn dyn_pager(
                &self,
                client: &crate::Client,
            ) -> crate::Result<Box<dyn crate::operation::DynPager>> {
                Ok(Box::new(crate::operation::Paged::pager(self, client)?))
            }
        }
    };
}

macro_rules! pager_info {
    () => {
        None
    };
    ($pager:ident . $items:ident) => {
        Some(PagerInfo {
            name: stringify!($pager),
            items: stringify!($items),
        })
    };
}

/// Whether the service answers a resent write with a known externalId by the original
/// result (placeOrder), so that resending it resolves an unknown outcome
/// (`Operation::resend_safe`).
const fn resend_safe(id: &str) -> bool {
    let (a, b) = (id.as_bytes(), "placeOrder".as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn first_line(doc: &'static str) -> &'static str {
    let b = doc.as_bytes();
    let mut start = 0;
    while start < b.len() && b[start] == b' ' {
        start += 1;
    }
    let mut end = start;
    while end < b.len() && b[end] != b'\n' {
        end += 1;
    }
    let (_, tail) = b.split_at(start);
    let (line, _) = tail.split_at(end - start);
    match std::str::from_utf8(line) {
        Ok(s) => s,
        Err(_) => "",
    }
}

use crate::api::cart::*;
use crate::api::documents::*;
use crate::api::invoices::*;
use crate::api::ordering::*;
use crate::api::products::*;
use crate::api::reconciliation::*;
use crate::api::reporting::*;
use crate::api::tracking::*;

operations! {
    invoices Invoices {
        /// One page of the invoices and credit memos issued in a date range (at most 366 days).
        GET_INVOICES = "getInvoices" get_invoices(GetInvoicesParams) -> InvoicesPage,
            GET "/ab-invoice/2026-02-01/invoices", SafeRead, HALF, headers [], roles NONE_NAMED,
            pager iter_invoices.invoices;
        /// One invoice or credit memo in full: parties, billing details, tax breakdown.
        GET_INVOICE_DETAIL = "getInvoiceDetailByInvoiceNumber"
            get_invoice_detail_by_invoice_number(GetInvoiceDetailByInvoiceNumberParams) -> InvoiceDetail,
            GET "/ab-invoice/2026-02-01/invoices/{invoiceNumber}/detail", SafeRead, HALF, headers [], roles NONE_NAMED;
        /// One page of an invoice's line items (then the reversal units of its credit memos).
        GET_INVOICE_LINE_ITEMS = "getInvoiceLineItemsByInvoiceNumber"
            get_invoice_line_items_by_invoice_number(GetInvoiceLineItemsByInvoiceNumberParams) -> LineItemsPage,
            GET "/ab-invoice/2026-02-01/invoices/{invoiceNumber}/lineItems", SafeRead, HALF, headers [], roles NONE_NAMED,
            pager iter_invoice_line_items.line_items;
    }
    reconciliation Reconciliation {
        /// One page of the transactions of a feed-date range.
        GET_TRANSACTIONS = "getTransactions" get_transactions(GetTransactionsParams) -> TransactionsPage,
            GET "/reconciliation/2021-01-08/transactions", SafeRead, HALF, headers [], roles RECONCILIATION_ROLE,
            pager iter_transactions.transactions;
        /// The invoice data of 1 to 25 order line items.
        GET_INVOICE_DETAILS_BY_ORDER_LINE_ITEMS = "getInvoiceDetailsByOrderLineItems"
            get_invoice_details_by_order_line_items(GetInvoiceDetailsByOrderLineItemsParams) -> InvoiceDetailsResponse,
            POST "/reconciliation/2021-01-08/invoices", ReadPost, HALF, headers [], roles RECONCILIATION_ROLE;
    }
    documents Documents {
        /// Starts a report that produces an invoice or credit note PDF.
        CREATE_REPORT_OP = "createReport" create_report(CreateReportParams) -> CreateReportResponse,
            POST "/reports/2021-09-30/reports", BenignDuplicate, CREATE_REPORT, headers [], roles RECONCILIATION_ROLE;
        /// A report's processing status (and its document id once DONE).
        GET_REPORT = "getReport" get_report(GetReportParams) -> Report,
            GET "/reports/2021-09-30/reports/{reportId}", SafeRead, REPORT_READ, headers [], roles RECONCILIATION_ROLE;
        /// A report document's presigned address (five minutes) and compression.
        GET_REPORT_DOCUMENT = "getReportDocument" get_report_document(GetReportDocumentParams) -> ReportDocument,
            GET "/reports/2021-09-30/documents/{reportDocumentId}", SafeRead, REPORT_READ, headers [], roles RECONCILIATION_ROLE;
    }
    cart Cart {
        /// One page of the buying user's carts.
        LIST_CARTS = "listCarts" list_carts(ListCartsParams) -> CartsPage,
            GET "/cart/2025-04-30/carts", SafeRead, CART, headers [UserEmail], roles CART_ROLES,
            pager iter_carts.cart_details_list;
        /// One cart.
        GET_CART = "getCart" get_cart(GetCartParams) -> CartDetails,
            GET "/cart/2025-04-30/carts/{cartId}", SafeRead, CART, headers [], roles CART_ROLES;
        /// The items of a cart.
        GET_ITEMS = "getItems" get_items(GetItemsParams) -> CartItems,
            GET "/cart/2025-04-30/carts/{cartId}/items", SafeRead, CART, headers [], roles CART_ROLES;
        /// Adds items to a cart (never resent after an ambiguous failure).
        ADD_ITEMS = "addItems" add_items(AddItemsParams) -> AddItemsResult,
            POST "/cart/2025-04-30/carts/{cartId}/items", UnsafeWrite, CART, headers [], roles CART_ROLES;
        /// Sets the quantities of a cart's items (0 removes one).
        MODIFY_ITEMS = "modifyItems" modify_items(ModifyItemsParams) -> ItemsResult,
            PATCH "/cart/2025-04-30/carts/{cartId}/items", IdempotentWrite, CART, headers [], roles CART_ROLES;
        /// Empties a cart.
        DELETE_ITEMS = "deleteItems" delete_items(DeleteItemsParams) -> (),
            DELETE "/cart/2025-04-30/carts/{cartId}/items", IdempotentWrite, CART, headers [], roles CART_ROLES;
        /// The estimated total cost of a cart's items shipped to an address.
        GET_ESTIMATED_TOTAL_PURCHASE_COST = "getEstimatedTotalPurchaseCost"
            get_estimated_total_purchase_cost(GetEstimatedTotalPurchaseCostParams) -> CostEstimation,
            POST "/cart/2025-04-30/carts/{cartId}/totalPurchaseCostEstimations", ReadPost, CART, headers [], roles CART_ROLES;
    }
    products Products {
        /// One page of a product search (the featured offer of each product).
        SEARCH_PRODUCTS = "searchProductsRequest" search_products_request(SearchProductsRequestParams) -> SearchProductsResult,
            GET "/products/2020-08-26/products", SafeRead, HALF, headers [UserEmail], roles PRODUCT_CATALOG,
            pager iter_search_products.products;
        /// One product.
        PRODUCTS_REQUEST = "productsRequest" products_request(ProductsRequestParams) -> Product,
            GET "/products/2020-08-26/products/{productId}", SafeRead, HALF, headers [UserEmail], roles PRODUCT_CATALOG;
        /// One page of a product's offers.
        SEARCH_OFFERS = "searchOffersRequest" search_offers_request(SearchOffersRequestParams) -> OffersResult,
            GET "/products/2020-08-26/products/{productId}/offers", SafeRead, HALF, headers [UserEmail], roles PRODUCT_CATALOG,
            pager iter_search_offers.offers;
        /// Up to 30 products by ASIN.
        GET_PRODUCTS_BY_ASINS = "getProductsByAsins" get_products_by_asins(GetProductsByAsinsParams) -> ProductsByAsinsResponse,
            POST "/products/2020-08-26/products/getProductsByAsins", ReadPost, HALF, headers [UserEmail], roles PRODUCT_CATALOG;
        /// Up to 30 offers by offer id.
        GET_OFFERS_BY_OFFER_IDS = "getOffersByOfferIds" get_offers_by_offer_ids(GetOffersByOfferIdsParams) -> OffersByOfferIdsResponse,
            POST "/products/2020-08-26/offers/getOffersByOfferIds", ReadPost, HALF, headers [UserEmail], roles PRODUCT_CATALOG;
    }
    ordering Ordering {
        /// Places an order (never resent after an ambiguous failure: that is OutcomeUnknown).
        PLACE_ORDER = "placeOrder" place_order(PlaceOrderRequest) -> PlaceOrderResult,
            POST "/ordering/2022-10-30/orders", UnsafeWrite, HALF, headers [Date], roles ORDER_PLACEMENT;
    }
    reporting Reporting {
        /// The orders of an order id, with the parts asked for.
        GET_ORDERS_BY_ORDER_ID = "getOrdersByOrderId" get_orders_by_order_id(GetOrdersByOrderIdParams) -> OrdersResponse,
            GET "/reports/2021-01-08/orders/{orderId}", SafeRead, HALF, headers [], roles ANALYTICS;
        /// One page of shipment line item reports.
        GET_SHIPMENT_LINE_ITEM_REPORTS = "getShipmentLineItemReports"
            get_shipment_line_item_reports(GetShipmentLineItemReportsParams) -> ShipmentLineItemsPage,
            GET "/reports/2025-06-09/shipmentLineItemReports", SafeRead, HALF, headers [], roles ANALYTICS,
            pager iter_shipment_line_item_reports.shipment_line_items_report;
    }
    tracking Tracking {
        /// A package's carrier, status and tracking events.
        GET_PACKAGE_TRACKING_DETAILS = "getPackageTrackingDetails"
            get_package_tracking_details(GetPackageTrackingDetailsParams) -> PackageTrackingDetails,
            GET "/ab-tracking/2025-07-02/orders/{orderId}/shipments/{shipmentId}/packages/{packageId}", SafeRead, HALF, headers [], roles ORDER_PLACEMENT;
    }
}

impl crate::blocking::Client {
    /// Runs an operation by its name with JSON arguments (what the bindings call).
    pub fn call_json(
        &self,
        name: &str,
        args: &str,
    ) -> crate::Result<Box<dyn crate::operation::Output>> {
        let op = dynamic(name).ok_or_else(|| {
            crate::Error::validation(
                "name",
                format!("must name an operation, as getInvoices or get_invoices (got {name:?})"),
            )
        })?;
        let fut = op.call(&self.inner()?, args)?;
        crate::blocking::block_on(fut)?.into_output()
    }
}

/// Looks an operation up by its operationId.
pub fn by_id(id: &str) -> Option<&'static Operation> {
    ALL.iter().copied().find(|o| o.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::describe::Ty;

    /// A `user_email` argument exists exactly where the row declares `x-svc-user-email`
    /// (the header is sent nowhere else, so an argument elsewhere would do nothing), and
    /// the rows that declare it are the specification's list: listCarts and the five product
    /// search operations.
    #[test]
    fn user_email_arguments_follow_the_declared_header() {
        let mut declared = vec![];
        for op in ALL {
            let Ty::Params(p) = (op.params)() else {
                continue;
            };
            let has_arg = p.fields.iter().any(|f| f.name == "user_email");
            assert_eq!(has_arg, op.needs_user_email(), "{}", op.id);
            if op.needs_user_email() {
                declared.push(op.id);
            }
        }
        assert_eq!(
            declared,
            [
                "listCarts",
                "searchProductsRequest",
                "productsRequest",
                "searchOffersRequest",
                "getProductsByAsins",
                "getOffersByOfferIds"
            ]
        );
    }

    /// Only placeOrder is resent to resolve an unknown outcome (the service answers a known
    /// externalId with the original order); addItems, the other unsafe write, never is.
    #[test]
    fn only_place_order_is_resend_safe() {
        let resend: Vec<_> = ALL.iter().filter(|o| o.resend_safe).map(|o| o.id).collect();
        assert_eq!(resend, ["placeOrder"]);
    }
}
