//! The rows: every operation of both specification documents, in their order.
//!
//! The declarations follow the specification and, where it says "not shown" or leaves a
//! field's status open, the service's published request models; where the specification
//! and a model disagree, the specification stands
//! (docs/decisions/004-request-declarations.md, "Request schemas").

use crate::shapes::*;
use crate::{opt, req, Kind, Method, Op, Shape};

/// The roles the specification's authentication sections name: reconciliation and documents need
/// Business Purchase Reconciliation; cart, ordering and tracking Order Placement; product
/// search and cart Business Product Catalog; reporting Analytics. Invoices: none named.
const RECONCILIATION_ROLE: &[&str] = &["Business Purchase Reconciliation"];
const ORDER_PLACEMENT: &[&str] = &["Order Placement"];
const CART_ROLES: &[&str] = &["Order Placement", "Business Product Catalog"];
const PRODUCT_CATALOG: &[&str] = &["Business Product Catalog"];
const ANALYTICS: &[&str] = &["Analytics"];
const NONE_NAMED: &[&str] = &[];

/// A GET with no query, body or header, paced at 0.5 requests per second with a burst of
/// 10 (the specification's plan for invoice and product-search operations; the published
/// plans for most others: docs/decisions/007-rate-limits.md, "Rate limits"). Rows override
/// what differs.
const fn op(id: &'static str, method: Method, path: &'static str, kind: Kind) -> Op {
    Op {
        id,
        method,
        path,
        kind,
        rate: 0.5,
        burst: 10,
        user_email: false,
        date: false,
        roles: NONE_NAMED,
        query: &[],
        alone: None,
        body: None,
        example: "{}",
    }
}

/// The cart operations' plan: 2 requests per second, burst 2.
const fn cart(id: &'static str, method: Method, path: &'static str, kind: Kind) -> Op {
    Op {
        rate: 2.0,
        burst: 2,
        roles: CART_ROLES,
        query: CART_QUERY,
        ..op(id, method, path, kind)
    }
}

/// A product search operation (the user's email, the catalog role).
const fn products(id: &'static str, method: Method, path: &'static str, kind: Kind) -> Op {
    Op {
        user_email: true,
        roles: PRODUCT_CATALOG,
        ..op(id, method, path, kind)
    }
}

use Kind::*;
use Method::*;

/// getInvoices.
pub const GET_INVOICES: Op = Op {
    query: &[
        req("invoiceIssueStartDate", Shape::DateTime),
        req("invoiceIssueEndDate", Shape::DateTime),
        opt("region", REGION),
        opt("paymentMethodTypes", Shape::Str),
        opt("nextPageToken", Shape::Str),
    ],
    example: r#"{"invoice_issue_start_date": "2026-01-01T00:00:00Z",
        "invoice_issue_end_date": "2026-01-31T00:00:00Z", "region": "JP",
        "payment_method_types": ["BCA"]}"#,
    ..op(
        "getInvoices",
        Get,
        "/ab-invoice/2026-02-01/invoices",
        SafeRead,
    )
};

/// getInvoiceDetailByInvoiceNumber.
pub const GET_INVOICE_DETAIL: Op = Op {
    query: &[req("region", REGION)],
    example: r#"{"invoice_number": "INV-1", "region": "JP"}"#,
    ..op(
        "getInvoiceDetailByInvoiceNumber",
        Get,
        "/ab-invoice/2026-02-01/invoices/{invoiceNumber}/detail",
        SafeRead,
    )
};

/// getInvoiceLineItemsByInvoiceNumber.
pub const GET_INVOICE_LINE_ITEMS: Op = Op {
    query: &[req("region", REGION), opt("nextPageToken", Shape::Str)],
    example: r#"{"invoice_number": "INV-1", "region": "JP"}"#,
    ..op(
        "getInvoiceLineItemsByInvoiceNumber",
        Get,
        "/ab-invoice/2026-02-01/invoices/{invoiceNumber}/lineItems",
        SafeRead,
    )
};

/// getTransactions: both dates required; the page token sent alone (the service's model).
pub const GET_TRANSACTIONS: Op = Op {
    roles: RECONCILIATION_ROLE,
    query: &[
        req("feedStartDate", Shape::DateTime),
        req("feedEndDate", Shape::DateTime),
        opt("nextPageToken", Shape::Str),
    ],
    alone: Some("nextPageToken"),
    example: r#"{"feed_start_date": "2026-01-01T00:00:00Z",
        "feed_end_date": "2026-01-31T00:00:00Z"}"#,
    ..op(
        "getTransactions",
        Get,
        "/reconciliation/2021-01-08/transactions",
        SafeRead,
    )
};

/// getInvoiceDetailsByOrderLineItems.
pub const GET_INVOICE_DETAILS_BY_ORDER_LINE_ITEMS: Op = Op {
    roles: RECONCILIATION_ROLE,
    body: Some(&[req(
        "orderLineItems",
        Shape::List {
            item: &Shape::Object(&[
                opt("orderId", Shape::Str),
                opt("orderLineItemId", Shape::Str),
                opt("shipmentId", Shape::Str),
            ]),
            min: 1,
            max: Some(25),
        },
    )]),
    example: r#"{"order_line_items": [{"order_id": "O-1", "order_line_item_id": "L-1",
        "shipment_id": "S-1"}]}"#,
    ..op(
        "getInvoiceDetailsByOrderLineItems",
        Post,
        "/reconciliation/2021-01-08/invoices",
        ReadPost,
    )
};

/// createReport: one report a minute, burst 15.
pub const CREATE_REPORT: Op = Op {
    rate: 0.0167,
    burst: 15,
    roles: RECONCILIATION_ROLE,
    body: Some(&[
        req("reportType", Shape::OneOf(&["GET_AB_INVOICE_PDF"])),
        req(
            "marketplaceIds",
            Shape::List {
                item: &Shape::Str,
                min: 1,
                max: None,
            },
        ),
        req(
            "reportOptions",
            Shape::Object(&[
                opt("invoiceId", Shape::Str),
                opt("orderId", Shape::Str),
                opt("orderLineItemId", Shape::Str),
                opt("shipmentId", Shape::Str),
                opt("documentType", Shape::OneOf(&["Invoice", "Credits"])),
            ]),
        ),
    ]),
    example: r#"{"report_options": {"order_id": "O-1", "order_line_item_id": "L-1",
        "document_type": "Invoice"}}"#,
    ..op(
        "createReport",
        Post,
        "/reports/2021-09-30/reports",
        BenignDuplicate,
    )
};

/// getReport: 2 requests per second, burst 10.
pub const GET_REPORT: Op = Op {
    rate: 2.0,
    roles: RECONCILIATION_ROLE,
    example: r#"{"report_id": "R-1"}"#,
    ..op(
        "getReport",
        Get,
        "/reports/2021-09-30/reports/{reportId}",
        SafeRead,
    )
};

/// getReportDocument: 2 requests per second, burst 10.
pub const GET_REPORT_DOCUMENT: Op = Op {
    rate: 2.0,
    roles: RECONCILIATION_ROLE,
    example: r#"{"report_document_id": "D-1"}"#,
    ..op(
        "getReportDocument",
        Get,
        "/reports/2021-09-30/documents/{reportDocumentId}",
        SafeRead,
    )
};

/// listCarts: the specification stands, pageSize at most 10 (the service's model allows
/// more).
pub const LIST_CARTS: Op = Op {
    user_email: true,
    query: &[
        req("region", REGION),
        opt("pageToken", Shape::Str),
        opt("pageSize", QINT),
    ],
    example: r#"{"region": "JP", "page_size": 5}"#,
    ..cart("listCarts", Get, "/cart/2025-04-30/carts", SafeRead)
};

/// getCart.
pub const GET_CART: Op = Op {
    example: r#"{"cart_id": "cart-0001", "region": "JP"}"#,
    ..cart("getCart", Get, "/cart/2025-04-30/carts/{cartId}", SafeRead)
};

/// getItems.
pub const GET_ITEMS: Op = Op {
    example: r#"{"cart_id": "cart-0001", "region": "JP"}"#,
    ..cart(
        "getItems",
        Get,
        "/cart/2025-04-30/carts/{cartId}/items",
        SafeRead,
    )
};

/// addItems: each item's externalId is required; 1 to 50 items (the service's model).
pub const ADD_ITEMS: Op = Op {
    body: Some(&[req(
        "items",
        Shape::List {
            item: &Shape::Object(&[
                req("productIdentifier", Shape::Str),
                req("buyingOptionIdentifier", Shape::Str),
                req("quantity", Shape::Int { min: 1 }),
                req("externalId", Shape::Text { max: 255 }),
            ]),
            min: 1,
            max: Some(50),
        },
    )]),
    example: r#"{"cart_id": "C-1", "region": "JP", "items": [{"product_identifier": "B01",
        "buying_option_identifier": "OFFER-1", "quantity": 2}]}"#,
    ..cart(
        "addItems",
        Post,
        "/cart/2025-04-30/carts/{cartId}/items",
        UnsafeWrite,
    )
};

/// modifyItems: the specification stands, quantity 0 removes an item.
pub const MODIFY_ITEMS: Op = Op {
    body: Some(&[req(
        "items",
        Shape::List {
            item: &Shape::Object(&[
                req("itemId", Shape::Str),
                req("quantity", Shape::Int { min: 0 }),
            ]),
            min: 1,
            max: None,
        },
    )]),
    example: r#"{"cart_id": "C-1", "region": "JP",
        "items": [{"item_id": "I-1", "quantity": 0}]}"#,
    ..cart(
        "modifyItems",
        Patch,
        "/cart/2025-04-30/carts/{cartId}/items",
        IdempotentWrite,
    )
};

/// deleteItems.
pub const DELETE_ITEMS: Op = Op {
    example: r#"{"cart_id": "C-1", "region": "JP"}"#,
    ..cart(
        "deleteItems",
        Delete,
        "/cart/2025-04-30/carts/{cartId}/items",
        IdempotentWrite,
    )
};

/// getEstimatedTotalPurchaseCost.
pub const GET_ESTIMATED_TOTAL_PURCHASE_COST: Op = Op {
    body: Some(&[req("address", Shape::Object(PHYSICAL_ADDRESS))]),
    example: r#"{"cart_id": "cart-0001", "region": "JP", "address": {"full_name": "Hanako Sato",
        "address_line1": "1-2-3 Meguro", "city": "Meguro-ku", "state_or_region": "Tokyo",
        "postal_code": "153-0064", "country_code": "jp"}}"#,
    ..cart(
        "getEstimatedTotalPurchaseCost",
        Post,
        "/cart/2025-04-30/carts/{cartId}/totalPurchaseCostEstimations",
        ReadPost,
    )
};

/// searchProductsRequest.
pub const SEARCH_PRODUCTS: Op = Op {
    query: product_query![
        opt("keywords", Shape::Str),
        opt("facets", Shape::Str),
        opt("pageNumber", QINT),
        opt("pageSize", QINT),
        opt("category", Shape::Str),
        opt("subCategory", Shape::Str),
        opt("availability", Shape::Str),
        opt("deliveryDay", Shape::Str),
        opt("eligibleForFreeShipping", Shape::Str),
        opt("primeEligible", Shape::Str),
        opt("upc", Shape::Str),
        opt("isbn", Shape::Str),
        opt("sku", Shape::Str),
        opt("ean", Shape::Str),
        opt("partNumber", Shape::Str),
        opt("oemPartNumber", Shape::Str),
        opt("searchRefinements", Shape::Str),
        opt("productFilters", Shape::Str),
        opt("inclusionsForProducts", Shape::Str),
        opt("inclusionsForOffers", Shape::Str),
        opt("sortKey", Shape::Str),
        opt("minPrice", QINT),
        opt("maxPrice", QINT),
    ],
    example: product_example!(
        r#""keywords": ["pens"], "facets": ["OFFERS"], "page_number": 0, "page_size": 24,
        "min_price": 1, "max_price": 100"#
    ),
    ..products(
        "searchProductsRequest",
        Get,
        "/products/2020-08-26/products",
        SafeRead,
    )
};

/// productsRequest.
pub const PRODUCTS_REQUEST: Op = Op {
    query: product_query![
        opt("quantity", QINT),
        opt("facets", Shape::Str),
        opt("inclusionsForProducts", Shape::Str),
        opt("inclusionsForOffers", Shape::Str),
    ],
    example: product_example!(r#""product_id": "B01", "quantity": 2, "facets": ["OFFERS"]"#),
    ..products(
        "productsRequest",
        Get,
        "/products/2020-08-26/products/{productId}",
        SafeRead,
    )
};

/// searchOffersRequest.
pub const SEARCH_OFFERS: Op = Op {
    query: product_query![
        opt("pageNumber", QINT),
        opt("pageSize", QINT),
        opt("filterIds", Shape::Str),
        opt("quantity", QINT),
        opt("inclusionsForOffers", Shape::Str),
    ],
    example: product_example!(
        r#""product_id": "B01", "page_number": 0, "page_size": 10, "quantity": 1"#
    ),
    ..products(
        "searchOffersRequest",
        Get,
        "/products/2020-08-26/products/{productId}/offers",
        SafeRead,
    )
};

/// getProductsByAsins: the body is "not shown" in the specification nor in the service's
/// models: the shape docs/decisions/004-request-declarations.md records
/// ("getProductsByAsins and getOffersByOfferIds bodies").
pub const GET_PRODUCTS_BY_ASINS: Op = Op {
    query: &[
        opt("inclusionsForProducts", Shape::Str),
        opt("inclusionsForOffers", Shape::Str),
        opt("groupTag", Shape::Str),
    ],
    body: lookup_body![
        req(
            "productIds",
            Shape::List {
                item: &Shape::Str,
                min: 1,
                max: Some(30),
            },
        ),
        opt("quantity", Shape::Int { min: 1 }),
        opt("facets", STRINGS),
    ],
    example: product_example!(
        r#""product_ids": ["B01", "B02"], "inclusions_for_products": ["title"]"#
    ),
    ..products(
        "getProductsByAsins",
        Post,
        "/products/2020-08-26/products/getProductsByAsins",
        ReadPost,
    )
};

/// getOffersByOfferIds: the service's own getOffersByOfferIdsRequest.
pub const GET_OFFERS_BY_OFFER_IDS: Op = Op {
    query: &[
        req("inclusionsForOffers", Shape::Str),
        opt("groupTag", Shape::Str),
    ],
    body: lookup_body![req(
        "offersByOfferIdsRequest",
        Shape::List {
            item: &Shape::Object(&[req("offerId", Shape::Str)]),
            min: 1,
            max: Some(30),
        },
    ),],
    example: product_example!(r#""offer_ids": ["OFFER-1"], "inclusions_for_offers": ["price"]"#),
    ..products(
        "getOffersByOfferIds",
        Post,
        "/products/2020-08-26/offers/getOffersByOfferIds",
        ReadPost,
    )
};

/// placeOrder: the specification and the service's model (externalId 1–255, lineItems
/// 1–50, line externalId 1–127, quantity ≥ 1); the order date in x-svc-date.
pub const PLACE_ORDER: Op = Op {
    date: true,
    roles: ORDER_PLACEMENT,
    body: Some(&[
        req("externalId", Shape::Text { max: 255 }),
        req(
            "lineItems",
            Shape::List {
                item: &Shape::Object(&[
                    req("externalId", Shape::Text { max: 127 }),
                    req("quantity", Shape::Int { min: 1 }),
                    opt("attributes", ATTRIBUTES),
                    opt("expectations", EXPECTATIONS),
                ]),
                min: 1,
                max: Some(50),
            },
        ),
        req("attributes", ATTRIBUTES),
        req("expectations", EXPECTATIONS),
    ]),
    example: r#"{"external_id": "PO-38", "line_items": [{"external_id": "10", "quantity": 1,
        "attributes": [
            {"attributeType": "SelectedProductReference",
              "productReference": {"id": "B01", "productReferenceType": "ProductIdentifier"}},
            {"attributeType": "SelectedBuyingOptionReference",
              "buyingOptionReference": {"id": "OFFER-1", "buyingOptionReferenceType": "BuyingOptionIdentifier"}},
            {"attributeType": "Distribution",
              "charge": {"amount": {"amount": "12.30", "currencyCode": "JPY"}},
              "accounting": {"name": "Dept", "segments": [{"id": "100", "type": "CostCenter"}]}}],
        "expectations": [{"expectationType": "ExpectedUnitPrice",
            "amount": {"amount": "12.30", "currencyCode": "JPY"}}]}],
    "attributes": [
        {"attributeType": "Auxiliary", "values": {"legalEntity": {"value": "K.K."}}},
        {"attributeType": "PurchaseOrderNumber", "purchaseOrderNumber": "PO-38"},
        {"attributeType": "ShippingAddress", "address": {"addressType": "PhysicalAddress",
            "fullName": "Hanako Sato", "addressLine1": "1-2-3 Meguro", "city": "Meguro-ku",
            "stateOrRegion": "Tokyo", "postalCode": "153-0064", "countryCode": "JP"}}],
    "expectations": [{"expectationType": "ExpectedCharge",
        "amount": {"amount": 12.3, "currencyCode": "JPY"}, "source": "SUBTOTAL"}]}"#,
    ..op(
        "placeOrder",
        Post,
        "/ordering/2022-10-30/orders",
        UnsafeWrite,
    )
};

/// getOrdersByOrderId.
pub const GET_ORDERS_BY_ORDER_ID: Op = Op {
    roles: ANALYTICS,
    query: &[
        opt("includeLineItems", Shape::Bool),
        opt("includeShipments", Shape::Bool),
        opt("includeCharges", Shape::Bool),
    ],
    example: r#"{"order_id": "O-1", "include_line_items": true, "include_shipments": false}"#,
    ..op(
        "getOrdersByOrderId",
        Get,
        "/reports/2021-01-08/orders/{orderId}",
        SafeRead,
    )
};

/// getShipmentLineItemReports.
pub const GET_SHIPMENT_LINE_ITEM_REPORTS: Op = Op {
    roles: ANALYTICS,
    query: &[
        req("orderStartDate", Shape::DateTime),
        req("orderEndDate", Shape::DateTime),
        opt("purchaseOrderNumbers", Shape::Str),
        opt("region", REGION),
        opt("orderIds", Shape::Str),
        opt("nextPageToken", Shape::Str),
    ],
    example: r#"{"order_start_date": "2026-01-01T00:00:00Z",
        "order_end_date": "2026-01-31T00:00:00Z", "purchase_order_numbers": ["PO-1"],
        "region": "JP"}"#,
    ..op(
        "getShipmentLineItemReports",
        Get,
        "/reports/2025-06-09/shipmentLineItemReports",
        SafeRead,
    )
};

/// getPackageTrackingDetails.
pub const GET_PACKAGE_TRACKING_DETAILS: Op = Op {
    roles: ORDER_PLACEMENT,
    query: &[req("region", REGION), opt("locale", Shape::Str)],
    example: r#"{"order_id": "O-1", "shipment_id": "S-1", "package_id": "P-1",
        "region": "JP", "locale": "ja-JP"}"#,
    ..op(
        "getPackageTrackingDetails",
        Get,
        "/ab-tracking/2025-07-02/orders/{orderId}/shipments/{shipmentId}/packages/{packageId}",
        SafeRead,
    )
};

/// Every operation, in the order of the specification documents.
pub static ALL: &[&Op] = &[
    &GET_INVOICES,
    &GET_INVOICE_DETAIL,
    &GET_INVOICE_LINE_ITEMS,
    &GET_TRANSACTIONS,
    &GET_INVOICE_DETAILS_BY_ORDER_LINE_ITEMS,
    &CREATE_REPORT,
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
