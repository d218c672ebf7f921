//! Malformed input never crashes the server: every route answers a non-5xx status with a body,
//! and the server keeps answering afterwards.

use crate::common::*;
use reqwest::Method;

#[tokio::test]
async fn malformed_inputs_get_4xx_answers() {
    let t = start().await;
    // Every route, as "METHOD path" (some paths malformed on purpose).
    let routes = "
GET /ab-invoice/2026-02-01/invoices
GET /ab-invoice/2026-02-01/invoices/%ZZ%/detail
GET /ab-invoice/2026-02-01/invoices/X/lineItems
GET /reconciliation/2021-01-08/transactions
POST /reconciliation/2021-01-08/invoices
POST /reports/2021-09-30/reports
GET /reports/2021-09-30/reports/%00
GET /reports/2021-09-30/documents/
GET /cart/2025-04-30/carts
GET /cart/2025-04-30/carts/cart-0001
POST /cart/2025-04-30/carts/cart-0001/items
PATCH /cart/2025-04-30/carts/cart-0001/items
DELETE /cart/2025-04-30/carts/zzz/items
POST /cart/2025-04-30/carts/cart-0001/totalPurchaseCostEstimations
GET /products/2020-08-26/products
GET /products/2020-08-26/products/B0
GET /products/2020-08-26/products/B0/offers
POST /products/2020-08-26/products/getProductsByAsins
POST /products/2020-08-26/offers/getOffersByOfferIds
POST /ordering/2022-10-30/orders
GET /reports/2021-01-08/orders/x
GET /reports/2025-06-09/shipmentLineItemReports
GET /ab-tracking/2025-07-02/orders/a/shipments/b/packages/c
PUT /ordering/2022-10-30/orders";
    let paths = routes
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(m, p)| (Method::from_bytes(m.as_bytes()).unwrap(), p));
    let bodies = [
        "",
        "null",
        "[]",
        "{",
        "{\"items\": 5, \"lineItems\": {}, \"orderLineItems\": \"x\", \"externalId\": 7}",
        "{\"items\": [{}], \"lineItems\": [{}], \"orderLineItems\": [{}], \"externalId\": \"\\u0001N:x\", \"attributes\": [{}], \"expectations\": [], \"productIds\": [1], \"offerIds\": [null], \"reportType\": \"GET_AB_INVOICE_PDF\", \"marketplaceIds\": [\"ZZ\"], \"reportOptions\": 3, \"address\": {}}",
    ];
    let queries: [&[(&str, &str)]; 4] = [
        &[],
        &[
            ("region", "JP"),
            ("pageSize", "-1"),
            ("pageNumber", "99999999999999999999"),
            ("productRegion", "JP"),
            ("locale", "en-US"),
        ],
        &[
            ("invoiceIssueStartDate", "2026-13-45"),
            ("invoiceIssueEndDate", ""),
            ("feedStartDate", "x"),
            ("orderStartDate", "\u{0}"),
        ],
        &[
            ("nextPageToken", "../../etc"),
            ("pageToken", "%%%"),
            ("minPrice", "1e9"),
            ("region", "ZZ"),
            ("includeLineItems", "1"),
        ],
    ];
    for (m, p) in paths {
        for b in &bodies {
            for q in &queries {
                let r = into_r(
                    t.req(m.clone(), p)
                        .query(q)
                        .header("content-type", "application/json")
                        .body(b.to_string())
                        .send()
                        .await
                        .unwrap(),
                )
                .await;
                assert!(
                    r.status < 500,
                    "{m} {p} {q:?} {b} -> {} {}",
                    r.status,
                    r.text
                );
                if r.status != 204 && r.status != 200 && r.status != 202 {
                    assert!(
                        r.body["errors"][0]["code"].is_string(),
                        "{m} {p} -> {}",
                        r.text
                    );
                }
            }
        }
    }
    // Raw garbage on the socket.
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = t.sb.base_url().trim_start_matches("http://").to_string();
    for junk in [
        &b"NOT HTTP\r\n\r\n"[..],
        b"GET / HTTP/1.1\r\nContent-Length: zz\r\n\r\n",
        b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ] {
        let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
        s.write_all(junk).await.unwrap();
        let _ = s.shutdown().await;
        let mut out = Vec::new();
        let _ =
            tokio::time::timeout(std::time::Duration::from_secs(2), s.read_to_end(&mut out)).await;
    }
    assert_eq!(t.get(TRANSACTIONS, &FEED_DAY).await.status, 200);
}
