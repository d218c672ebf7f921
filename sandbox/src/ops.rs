//! The operation table: which (method, path) is which operationId, its rate-limit group,
//! its published usage plan and whether it needs the user-email header.

pub struct OpSpec {
    pub name: &'static str,
    pub method: &'static str,
    /// Path segments; "*" matches any one segment (also an empty one).
    pub pattern: &'static [&'static str],
    pub rate: f64,
    pub burst: u32,
    pub needs_email: bool,
}

macro_rules! op {
    ($name:literal, $m:literal, [$($seg:literal),*], $rate:expr, $burst:expr, $email:expr) => {
        OpSpec { name: $name, method: $m, pattern: &[$($seg),*], rate: $rate, burst: $burst, needs_email: $email }
    };
}

pub static OPS: &[OpSpec] = &[
    op!(
        "getInvoices",
        "GET",
        ["ab-invoice", "2026-02-01", "invoices"],
        0.5,
        10,
        false
    ),
    op!(
        "getInvoiceDetailByInvoiceNumber",
        "GET",
        ["ab-invoice", "2026-02-01", "invoices", "*", "detail"],
        0.5,
        10,
        false
    ),
    op!(
        "getInvoiceLineItemsByInvoiceNumber",
        "GET",
        ["ab-invoice", "2026-02-01", "invoices", "*", "lineItems"],
        0.5,
        10,
        false
    ),
    op!(
        "getTransactions",
        "GET",
        ["reconciliation", "2021-01-08", "transactions"],
        0.5,
        10,
        false
    ),
    op!(
        "getInvoiceDetailsByOrderLineItems",
        "POST",
        ["reconciliation", "2021-01-08", "invoices"],
        0.5,
        10,
        false
    ),
    op!(
        "createReport",
        "POST",
        ["reports", "2021-09-30", "reports"],
        0.0167,
        15,
        false
    ),
    op!(
        "getReport",
        "GET",
        ["reports", "2021-09-30", "reports", "*"],
        2.0,
        10,
        false
    ),
    op!(
        "getReportDocument",
        "GET",
        ["reports", "2021-09-30", "documents", "*"],
        2.0,
        10,
        false
    ),
    op!(
        "listCarts",
        "GET",
        ["cart", "2025-04-30", "carts"],
        2.0,
        2,
        true
    ),
    op!(
        "getCart",
        "GET",
        ["cart", "2025-04-30", "carts", "*"],
        2.0,
        2,
        false
    ),
    op!(
        "getItems",
        "GET",
        ["cart", "2025-04-30", "carts", "*", "items"],
        2.0,
        2,
        false
    ),
    op!(
        "addItems",
        "POST",
        ["cart", "2025-04-30", "carts", "*", "items"],
        2.0,
        2,
        false
    ),
    op!(
        "modifyItems",
        "PATCH",
        ["cart", "2025-04-30", "carts", "*", "items"],
        2.0,
        2,
        false
    ),
    op!(
        "deleteItems",
        "DELETE",
        ["cart", "2025-04-30", "carts", "*", "items"],
        2.0,
        2,
        false
    ),
    op!(
        "getEstimatedTotalPurchaseCost",
        "POST",
        [
            "cart",
            "2025-04-30",
            "carts",
            "*",
            "totalPurchaseCostEstimations"
        ],
        2.0,
        2,
        false
    ),
    op!(
        "searchProductsRequest",
        "GET",
        ["products", "2020-08-26", "products"],
        0.5,
        10,
        true
    ),
    op!(
        "getProductsByAsins",
        "POST",
        ["products", "2020-08-26", "products", "getProductsByAsins"],
        0.5,
        10,
        true
    ),
    op!(
        "productsRequest",
        "GET",
        ["products", "2020-08-26", "products", "*"],
        0.5,
        10,
        true
    ),
    op!(
        "searchOffersRequest",
        "GET",
        ["products", "2020-08-26", "products", "*", "offers"],
        0.5,
        10,
        true
    ),
    op!(
        "getOffersByOfferIds",
        "POST",
        ["products", "2020-08-26", "offers", "getOffersByOfferIds"],
        0.5,
        10,
        true
    ),
    op!(
        "placeOrder",
        "POST",
        ["ordering", "2022-10-30", "orders"],
        0.5,
        10,
        false
    ),
    op!(
        "getOrdersByOrderId",
        "GET",
        ["reports", "2021-01-08", "orders", "*"],
        0.5,
        10,
        false
    ),
    op!(
        "getShipmentLineItemReports",
        "GET",
        ["reports", "2025-06-09", "shipmentLineItemReports"],
        0.5,
        10,
        false
    ),
    op!(
        "getPackageTrackingDetails",
        "GET",
        [
            "ab-tracking",
            "2025-07-02",
            "orders",
            "*",
            "shipments",
            "*",
            "packages",
            "*"
        ],
        0.5,
        10,
        false
    ),
];

/// The operation for a request, with the path parameters ("*" segments) in order.
pub fn classify(method: &str, segments: &[String]) -> Option<(&'static OpSpec, Vec<String>)> {
    for op in OPS {
        if op.method != method || op.pattern.len() != segments.len() {
            continue;
        }
        let mut params = Vec::new();
        let ok = op.pattern.iter().zip(segments).all(|(p, s)| {
            if *p == "*" {
                params.push(s.clone());
                true
            } else {
                p == s
            }
        });
        if ok {
            return Some((op, params));
        }
    }
    None
}

/// The operation whose path matches but whose method does not (for 405 answers).
pub fn path_known(segments: &[String]) -> bool {
    OPS.iter().any(|op| {
        op.pattern.len() == segments.len()
            && op
                .pattern
                .iter()
                .zip(segments)
                .all(|(p, s)| *p == "*" || p == s)
    })
}

pub fn find(name: &str) -> Option<&'static OpSpec> {
    OPS.iter().find(|o| o.name == name)
}
