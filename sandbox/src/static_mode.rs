//! Static mode: like the platform's static sandbox, only the documented sample inputs get
//! (fixed) answers; any other input is a 400. The samples are listed in docs/sandbox.md.

use serde_json::{json, Value};

use crate::http::{bad, ApiResult, Req, Resp};
use crate::state::State;

pub const FEED_START: &str = "2020-07-09T00:00:00Z";
pub const FEED_END: &str = "2020-08-01T00:00:00Z";
pub const SAMPLE_LINES: [(&str, &str, &str); 2] = [
    ("111-1111111-1111111", "11111111111111", "SH1111111111"),
    ("222-2222222-2222222", "22222222222222", "SH2222222222"),
];
pub const SAMPLE_INVOICE: &str = "JPSAMPLE0001";
pub const SAMPLE_REPORT: &str = "50000000001";
pub const SAMPLE_DOCUMENT: &str = "amzn1.tortuga.sbx.sample.1";

fn no_sample() -> Resp {
    bad("Static sandbox: no mocked response for this input; use the documented sample inputs.")
}

fn m(a: &str) -> Value {
    json!({"currencyCode": "JPY", "amount": a})
}

fn sample_transaction(n: usize) -> Value {
    let (oid, lid, sid) = SAMPLE_LINES[n];
    json!({
        "marketplaceId": "A1VC38T7YXB528", "transactionDate": "2020-07-10T08:00:00Z",
        "feedDate": "2020-07-11T00:00:00Z", "transactionType": "CHARGE",
        "transactionId": format!("TXSAMPLE{n}"), "chargeIdentifier": format!("CHGSAMPLE{n}"),
        "shipTaxRate": "10%", "giftWrapTaxRate": "10%", "legalEntityName": "Sandbox Trading K.K.",
        "invoiceNumber": SAMPLE_INVOICE, "amount": m("1751.0"), "paymentInstrumentType": "BCA",
        "buyer": {"id": "U-1001", "name": "Hanako Sato", "email": "buyer@sandbox-business.example"},
        "payer": {"id": "U-1004", "name": "Kenji Watanabe", "email": "approver@sandbox-business.example"},
        "associatedTransactionDetails": [],
        "transactionLineItems": [{
            "totalAmount": m("1751.0"), "principalAmount": m("1592.0"), "shippingCharge": m("0.0"),
            "discount": {"currencyCode": "", "amount": "0"}, "tax": m("159.0"), "taxRate": "10%",
            "orderId": oid, "unspsc": "44120000", "orderLineItemId": lid, "purchaseOrderNumber": "",
            "asin": "B0SAMPLE01", "productTitle": "Sample Copy Paper", "itemQuantity": 2,
            "shipmentId": sid, "shipmentDate": "2020-07-10T08:00:00Z", "merchantLegalName": "Sandbox Retail Japan",
            "businessOrderInfo": {"costCenter": "CC-100"}}],
    })
}

fn sample_invoice_detail(n: usize) -> Value {
    json!({
        "invoiceNumber": SAMPLE_INVOICE, "invoiceDate": "2020-07-10T08:00:00Z",
        "consolidatedInvoiceDetails": null, "invoiceType": "STANDARD",
        "associatedInvoiceNumber": null, "associatedInvoiceDate": null,
        "invoiceIssuer": {"name": "Sandbox Commerce Japan G.K.", "registrationNumber": "T1234567890123"},
        "billToAddress": {"fullName": "Accounts Payable", "phoneNumber": "+81-3-0000-0000", "companyName": "Sandbox Trading K.K.",
            "addressLine1": "1-1-1 Marunouchi", "addressLine2": "Chiyoda-ku", "addressLine3": "", "city": "Tokyo",
            "stateOrRegion": "Tokyo", "postalCode": "100-0005", "countryCode": "JP"},
        "sellerInformation": {"name": "Sandbox Retail Japan", "registrationNumber": "T1234567890123"},
        "orderDate": "2020-07-09T10:00:00Z", "currencyCode": "JPY", "invoiceTotal": "1751",
        "tax": [{"rate": "10%", "inclusiveTotal": {"currencyCode": "JPY", "amount": 1751}, "exclusiveTotal": {"currencyCode": "JPY", "amount": 1592}, "amount": {"currencyCode": "JPY", "amount": 159}}],
        "transactionDataItems": [{"taxRate": "10%", "unit": 2, "asin": "B0SAMPLE01", "title": "Sample Copy Paper",
            "unitTaxInclusivePrice": {"currencyCode": "JPY", "amount": 875}, "unitTaxExclusivePrice": {"currencyCode": "JPY", "amount": 796},
            "unitTaxAmount": {"currencyCode": "", "amount": 79}, "totalAmount": {"currencyCode": "JPY", "amount": 1751}, "discount": null,
            "apportionment": [{"orderLineItemId": SAMPLE_LINES[n].1, "lineNumber": 1, "units": 2, "unitPrice": {"currencyCode": "JPY", "amount": 796}, "taxAmount": {"currencyCode": "JPY", "amount": 159}}],
            "fees": []}],
        "fees": [],
    })
}

pub fn handle(st: &State, op: &str, req: &Req) -> ApiResult {
    match op {
        "getTransactions" => {
            if req.q("nextPageToken").is_some()
                || req.q("feedStartDate") != Some(FEED_START)
                || req.q("feedEndDate") != Some(FEED_END)
            {
                return Err(no_sample());
            }
            Ok(Resp::json(
                200,
                &json!({"transactions": [sample_transaction(0), sample_transaction(1)]}),
            ))
        }
        "getInvoiceDetailsByOrderLineItems" => {
            let body: Value = serde_json::from_slice(&req.body).map_err(|_| no_sample())?;
            let items = body
                .get("orderLineItems")
                .and_then(Value::as_array)
                .ok_or_else(no_sample)?;
            if items.is_empty() {
                return Err(no_sample());
            }
            let mut out = Vec::new();
            for it in items {
                let f = |k: &str| it.get(k).and_then(Value::as_str).unwrap_or("");
                let n = SAMPLE_LINES
                    .iter()
                    .position(|(o, l, s)| {
                        f("orderId") == *o && f("orderLineItemId") == *l && f("shipmentId") == *s
                    })
                    .ok_or_else(no_sample)?;
                let (o, l, s) = SAMPLE_LINES[n];
                out.push(json!({"orderLineItem": {"orderId": o, "orderLineItemId": l, "shipmentId": s}, "invoiceDetails": [sample_invoice_detail(n)]}));
            }
            Ok(Resp::json(
                200,
                &json!({"invoiceDetailsByOrderLineItems": out}),
            ))
        }
        "getInvoices" => {
            if req.q("invoiceIssueStartDate") != Some("2020-07-01T00:00:00Z")
                || req.q("invoiceIssueEndDate") != Some("2020-07-31T23:59:59Z")
                || req.q("nextPageToken").is_some()
            {
                return Err(no_sample());
            }
            Ok(Resp::json(
                200,
                &json!({"invoices": [{"invoiceMetadata": {"invoiceNumber": SAMPLE_INVOICE, "issueDate": "2020-07-10T08:00:00Z", "type": "STANDARD", "region": "JP"}, "status": "Closed"}]}),
            ))
        }
        "getInvoiceDetailByInvoiceNumber"
            if req.param(0) == SAMPLE_INVOICE && req.q("region") == Some("JP") =>
        {
            Ok(Resp::json(
                200,
                &json!({"invoiceDetail": {
                    "invoiceMetadata": {"invoiceNumber": SAMPLE_INVOICE, "issueDate": "2020-07-10T08:00:00Z", "type": "STANDARD", "region": "JP"},
                    "period": {"startDate": "2020-07-10T00:00:00Z", "endDate": "2020-07-10T23:59:59Z"},
                    "issuer": {"name": "Sandbox Commerce Japan G.K.", "registrationNumber": "T1234567890123"},
                    "customer": {"legalEntityId": "LE-0001", "legalEntityName": "Sandbox Trading K.K."},
                    "dueDate": {"date": "2020-08-31T00:00:00Z"}, "paymentMethod": "Business Credit Account (BCA)",
                    "totalAmount": {"currencyCode": "JPY", "amount": 1751},
                    "artifacts": [
                        {"artifactType": "BillingDetails", "amountDetails": [
                            {"type": "itemSubtotal", "amount": {"currencyCode": "JPY", "amount": 1592}},
                            {"type": "salesTax", "amount": {"currencyCode": "JPY", "amount": 159}},
                            {"type": "amountDue", "amount": {"currencyCode": "JPY", "amount": 1751}}]},
                        {"artifactType": "PurchaseFromQualifiedIssuer", "taxBreakdown": [{"taxRate": "10%", "inclusiveTotal": {"currencyCode": "JPY", "amount": 1751}, "exclusiveTotal": {"currencyCode": "JPY", "amount": 1592}, "taxAmount": {"currencyCode": "JPY", "amount": 159}}]}],
                }}),
            ))
        }
        "createReport" => {
            let body: Value = serde_json::from_slice(&req.body).map_err(|_| no_sample())?;
            let ok = body
                .pointer("/reportOptions/orderId")
                .and_then(Value::as_str)
                == Some(SAMPLE_LINES[0].0)
                && body
                    .pointer("/reportOptions/orderLineItemId")
                    .and_then(Value::as_str)
                    == Some(SAMPLE_LINES[0].1)
                && body.get("reportType").and_then(Value::as_str) == Some("GET_AB_INVOICE_PDF");
            if !ok {
                return Err(no_sample());
            }
            Ok(Resp::json(202, &json!({"reportId": SAMPLE_REPORT})))
        }
        "getReport" if req.param(0) == SAMPLE_REPORT => Ok(Resp::json(
            200,
            &json!({
            "reportId": SAMPLE_REPORT, "reportType": "GET_AB_INVOICE_PDF", "createdTime": "2020-07-12T00:00:00Z",
            "processingStartTime": "2020-07-12T00:00:20Z", "processingEndTime": "2020-07-12T00:00:40Z",
            "processingStatus": "DONE", "marketplaceIds": ["A1VC38T7YXB528"],
            "reportOptions": {"orderId": SAMPLE_LINES[0].0, "orderLineItemId": SAMPLE_LINES[0].1},
            "reportDocumentId": SAMPLE_DOCUMENT}),
        )),
        "getReportDocument" if req.param(0) == SAMPLE_DOCUMENT => {
            let present = st.rt().documents.contains_key(SAMPLE_DOCUMENT);
            if !present {
                let pdf = crate::pdf::render(&[
                    format!("Invoice {SAMPLE_INVOICE}"),
                    "Static sandbox sample".into(),
                ]);
                let archive =
                    crate::archive::zip_then_gzip(&[(format!("{SAMPLE_INVOICE}.pdf"), pdf)])
                        .map_err(|_| {
                            crate::http::envelope(500, "InternalFailure", "archive failed")
                        })?;
                st.rt().documents.insert(SAMPLE_DOCUMENT.into(), archive);
            }
            let url = crate::documents::presign(st, SAMPLE_DOCUMENT);
            Ok(Resp::json(
                200,
                &json!({"reportDocumentId": SAMPLE_DOCUMENT, "url": url, "compressionAlgorithm": "GZIP"}),
            ))
        }
        _ => Err(no_sample()),
    }
}
