//! The operations table: every operation of both specification documents, written once.
//! A row names the operation's description in `abws_spec` (operationId, method and path,
//! retry kind, usage plan, headers, roles, declared query and body: spec/src/ops.rs), the
//! API group, the snake_case name, its parameter struct, its result type and, for a
//! listing, its pager and the page field that holds the items. From this table come the async and blocking methods of every group, the dispatch by
//! name the bindings use, and (through `xtask gen`) the C, C++ and Python surfaces.
//! Decisions about operations live here and nowhere else (docs/decisions/ explains
//! each number).

use crate::ratelimit::Plan;
use crate::retry::OperationKind;

pub use crate::operation_row::{Header, Headers, Operation, PagerInfo};

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
                    $STATIC:ident = $SPEC:ident => $name:ident($P:ty) -> $O:ty
                    $(, pager $pager:ident . $items:ident)? ;
                )*
            }
        )*
    ) => {
        $( $(
            $(#[doc = $doc])+
            pub static $STATIC: Operation = row(
                &abws_spec::$SPEC,
                (stringify!($group), stringify!($name)),
                (<$P as crate::describe::Describe>::ty, <$O as crate::describe::Describe>::ty),
                pager_info!($($pager . $items)?),
                first_line(concat!($($doc, "\n"),+)),
            );

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
                if name == stringify!($name) || name == abws_spec::$SPEC.id {
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

/// A type's shape (`Describe::ty`).
type Shape = fn() -> crate::describe::Ty;

/// A row: the operation's description (`abws_spec`) and what the `operations!` row adds,
/// its group and method names, its params and output types, its pager and its doc line.
const fn row(
    spec: &'static abws_spec::Op,
    (group, name): (&'static str, &'static str),
    (params, output): (Shape, Shape),
    pager: Option<PagerInfo>,
    doc: &'static str,
) -> Operation {
    Operation {
        id: spec.id,
        group,
        name,
        method: method(spec.method),
        path: spec.path,
        kind: kind(spec.kind),
        plan: Plan::new(spec.rate, spec.burst),
        headers: Headers {
            user_email: spec.user_email,
            date: spec.date,
        },
        roles: spec.roles,
        params,
        output,
        pager,
        resend_safe: resend_safe(spec.id),
        doc,
        spec,
    }
}

const fn method(m: abws_spec::Method) -> http::Method {
    match m {
        abws_spec::Method::Get => http::Method::GET,
        abws_spec::Method::Post => http::Method::POST,
        abws_spec::Method::Patch => http::Method::PATCH,
        abws_spec::Method::Delete => http::Method::DELETE,
    }
}

const fn kind(k: abws_spec::Kind) -> OperationKind {
    match k {
        abws_spec::Kind::SafeRead => OperationKind::SafeRead,
        abws_spec::Kind::ReadPost => OperationKind::ReadPost,
        abws_spec::Kind::IdempotentWrite => OperationKind::IdempotentWrite,
        abws_spec::Kind::BenignDuplicate => OperationKind::BenignDuplicate,
        abws_spec::Kind::UnsafeWrite => OperationKind::UnsafeWrite,
    }
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
        GET_INVOICES = GET_INVOICES => get_invoices(GetInvoicesParams) -> InvoicesPage, pager iter_invoices.invoices;
        /// One invoice or credit memo in full: parties, billing details, tax breakdown.
        GET_INVOICE_DETAIL = GET_INVOICE_DETAIL => get_invoice_detail_by_invoice_number(GetInvoiceDetailByInvoiceNumberParams) -> InvoiceDetail;
        /// One page of an invoice's line items (then the reversal units of its credit memos).
        GET_INVOICE_LINE_ITEMS = GET_INVOICE_LINE_ITEMS => get_invoice_line_items_by_invoice_number(GetInvoiceLineItemsByInvoiceNumberParams) -> LineItemsPage, pager iter_invoice_line_items.line_items;
    }
    reconciliation Reconciliation {
        /// One page of the transactions of a feed-date range.
        GET_TRANSACTIONS = GET_TRANSACTIONS => get_transactions(GetTransactionsParams) -> TransactionsPage, pager iter_transactions.transactions;
        /// The invoice data of 1 to 25 order line items.
        GET_INVOICE_DETAILS_BY_ORDER_LINE_ITEMS = GET_INVOICE_DETAILS_BY_ORDER_LINE_ITEMS => get_invoice_details_by_order_line_items(GetInvoiceDetailsByOrderLineItemsParams) -> InvoiceDetailsResponse;
    }
    documents Documents {
        /// Starts a report that produces an invoice or credit note PDF.
        CREATE_REPORT_OP = CREATE_REPORT => create_report(CreateReportParams) -> CreateReportResponse;
        /// A report's processing status (and its document id once DONE).
        GET_REPORT = GET_REPORT => get_report(GetReportParams) -> Report;
        /// A report document's presigned address (five minutes) and compression.
        GET_REPORT_DOCUMENT = GET_REPORT_DOCUMENT => get_report_document(GetReportDocumentParams) -> ReportDocument;
    }
    cart Cart {
        /// One page of the buying user's carts.
        LIST_CARTS = LIST_CARTS => list_carts(ListCartsParams) -> CartsPage, pager iter_carts.cart_details_list;
        /// One cart.
        GET_CART = GET_CART => get_cart(GetCartParams) -> CartDetails;
        /// The items of a cart.
        GET_ITEMS = GET_ITEMS => get_items(GetItemsParams) -> CartItems;
        /// Adds items to a cart (never resent after an ambiguous failure).
        ADD_ITEMS = ADD_ITEMS => add_items(AddItemsParams) -> AddItemsResult;
        /// Sets the quantities of a cart's items (0 removes one).
        MODIFY_ITEMS = MODIFY_ITEMS => modify_items(ModifyItemsParams) -> ItemsResult;
        /// Empties a cart.
        DELETE_ITEMS = DELETE_ITEMS => delete_items(DeleteItemsParams) -> ();
        /// The estimated total cost of a cart's items shipped to an address.
        GET_ESTIMATED_TOTAL_PURCHASE_COST = GET_ESTIMATED_TOTAL_PURCHASE_COST => get_estimated_total_purchase_cost(GetEstimatedTotalPurchaseCostParams) -> CostEstimation;
    }
    products Products {
        /// One page of a product search (the featured offer of each product).
        SEARCH_PRODUCTS = SEARCH_PRODUCTS => search_products_request(SearchProductsRequestParams) -> SearchProductsResult, pager iter_search_products.products;
        /// One product.
        PRODUCTS_REQUEST = PRODUCTS_REQUEST => products_request(ProductsRequestParams) -> Product;
        /// One page of a product's offers.
        SEARCH_OFFERS = SEARCH_OFFERS => search_offers_request(SearchOffersRequestParams) -> OffersResult, pager iter_search_offers.offers;
        /// Up to 30 products by ASIN.
        GET_PRODUCTS_BY_ASINS = GET_PRODUCTS_BY_ASINS => get_products_by_asins(GetProductsByAsinsParams) -> ProductsByAsinsResponse;
        /// Up to 30 offers by offer id.
        GET_OFFERS_BY_OFFER_IDS = GET_OFFERS_BY_OFFER_IDS => get_offers_by_offer_ids(GetOffersByOfferIdsParams) -> OffersByOfferIdsResponse;
    }
    ordering Ordering {
        /// Places an order (never resent after an ambiguous failure: that is OutcomeUnknown).
        PLACE_ORDER = PLACE_ORDER => place_order(PlaceOrderRequest) -> PlaceOrderResult;
    }
    reporting Reporting {
        /// The orders of an order id, with the parts asked for.
        GET_ORDERS_BY_ORDER_ID = GET_ORDERS_BY_ORDER_ID => get_orders_by_order_id(GetOrdersByOrderIdParams) -> OrdersResponse;
        /// One page of shipment line item reports.
        GET_SHIPMENT_LINE_ITEM_REPORTS = GET_SHIPMENT_LINE_ITEM_REPORTS => get_shipment_line_item_reports(GetShipmentLineItemReportsParams) -> ShipmentLineItemsPage, pager iter_shipment_line_item_reports.shipment_line_items_report;
    }
    tracking Tracking {
        /// A package's carrier, status and tracking events.
        GET_PACKAGE_TRACKING_DETAILS = GET_PACKAGE_TRACKING_DETAILS => get_package_tracking_details(GetPackageTrackingDetailsParams) -> PackageTrackingDetails;
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

    /// Each row carries its description's values in the library's types (the sandbox reads
    /// the same description), and the table lists every description once, in its order.
    #[test]
    fn rows_carry_their_description() {
        let ids: Vec<&str> = ALL.iter().map(|o| o.id).collect();
        let described: Vec<&str> = abws_spec::ALL.iter().map(|o| o.id).collect();
        assert_eq!(ids, described);
        for op in ALL {
            let s = op.spec;
            assert_eq!(op.id, s.id);
            assert_eq!(op.method.as_str(), s.method.as_str(), "{}", op.id);
            assert_eq!(op.path, s.path, "{}", op.id);
            assert_eq!(
                format!("{:?}", op.kind),
                format!("{:?}", s.kind),
                "{}",
                op.id
            );
            assert_eq!(
                (op.plan.rate, op.plan.burst),
                (s.rate, s.burst),
                "{}",
                op.id
            );
            assert_eq!(
                (op.headers.user_email, op.headers.date),
                (s.user_email, s.date),
                "{}",
                op.id
            );
            assert_eq!(op.roles, s.roles, "{}", op.id);
        }
    }

    /// Only placeOrder is resent to resolve an unknown outcome (the service answers a known
    /// externalId with the original order); addItems, the other unsafe write, never is.
    #[test]
    fn only_place_order_is_resend_safe() {
        let resend: Vec<_> = ALL.iter().filter(|o| o.resend_safe).map(|o| o.id).collect();
        assert_eq!(resend, ["placeOrder"]);
    }
}
