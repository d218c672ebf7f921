//! Invoices 2026-02-01 against the sandbox over HTTP.

use crate::common;
use crate::common::calls::invoice_detail;

use abws::api::invoices::{
    Artifact, GetInvoiceDetailByInvoiceNumberParams, GetInvoiceLineItemsByInvoiceNumberParams,
    GetInvoicesParams, InvoiceType,
};
use abws::{ErrorKind, Region};
use rust_decimal::Decimal;

use common::previous_month_invoices_params as month_params;

#[test]
fn lists_every_invoice_of_the_month_across_pages() {
    let (sb, client) = common::sandbox_and_client();
    let expected = common::previous_month_invoices(&sb);
    assert!(expected.len() > 20, "the data set has a month of invoices");
    let first = client.invoices().get_invoices(&month_params(&sb)).unwrap();
    assert!(first.next_page_token.is_some(), "more than one page");
    let mut numbers = common::calls::listed_invoice_numbers(&client, &month_params(&sb));
    let pages = common::requests(&sb, "getInvoices");
    assert!(pages >= 3, "{pages}");
    numbers.sort();
    let mut want = expected.clone();
    want.sort();
    assert_eq!(numbers, want);
    assert_eq!(
        sb.counters()["pageTokenMismatches"],
        0,
        "parameters replayed exactly"
    );
}

#[test]
fn invoice_detail_is_typed_and_adds_up() {
    let (sb, client) = common::sandbox_and_client();
    let numbers = sb.dataset()["previousMonthInvoices"].clone();
    let mut saw_credit_memo = false;
    let mut saw_both_issuers = (false, false);
    for n in numbers.as_array().unwrap().iter().take(25) {
        let n = n.as_str().unwrap();
        let d = invoice_detail(&client, n).unwrap();
        let meta = d.invoice_metadata.as_ref().unwrap();
        assert_eq!(meta.invoice_number.as_deref(), Some(n));
        if meta.r#type == Some(InvoiceType::CreditMemo) {
            saw_credit_memo = true;
        }
        let total = d.total_amount.as_ref().unwrap();
        let billing = d.billing_details().expect("BillingDetails artifact");
        let due = billing
            .amount_details
            .iter()
            .flatten()
            .flatten()
            .find(|a| a.r#type.as_deref() == Some("amountDue"))
            .expect("amountDue");
        assert_eq!(
            due.amount.as_ref().unwrap().value().unwrap(),
            total.value().unwrap(),
            "{n}"
        );
        for a in d.artifacts.iter().flatten().flatten() {
            match a {
                Artifact::PurchaseFromQualifiedIssuer(_) => saw_both_issuers.0 = true,
                Artifact::PurchaseFromOtherIssuer(_) => saw_both_issuers.1 = true,
                _ => {}
            }
            for t in a.tax_breakdown().unwrap_or_default().iter().flatten() {
                let incl = t.inclusive_total.as_ref().unwrap().value().unwrap();
                let excl = t.exclusive_total.as_ref().unwrap().value().unwrap();
                let tax = t.tax_amount.as_ref().unwrap().value().unwrap();
                assert_eq!(incl, excl + tax, "{n} {:?}", t.tax_rate);
            }
        }
        // Round trip: the wire form comes back exactly.
        let json = serde_json::to_string(&d).unwrap();
        let again: abws::api::invoices::InvoiceDetail = serde_json::from_str(&json).unwrap();
        assert_eq!(again, d);
        assert_ne!(total.value().unwrap(), Decimal::ZERO);
    }
    assert!(saw_credit_memo, "credit memos are in the month");
    assert!(
        saw_both_issuers.0 && saw_both_issuers.1,
        "{saw_both_issuers:?}"
    );
}

#[test]
fn line_items_page_through() {
    // A date whose previous month has an invoice of more than one page (10 line items): the
    // data set follows the date.
    let sb = common::sandbox_with(|c| c.today = chrono::NaiveDate::from_ymd_opt(2026, 11, 23));
    let client = common::client(&sb, Region::JP);
    let numbers = sb.dataset()["previousMonthInvoices"].clone();
    let mut most = 0;
    let invoices = numbers.as_array().unwrap();
    for n in invoices {
        let n = n.as_str().unwrap();
        let items: Vec<_> = common::every_item(client.invoices().iter_invoice_line_items(
            &GetInvoiceLineItemsByInvoiceNumberParams {
                invoice_number: n.to_string(),
                region: Some("JP".into()),
                ..Default::default()
            },
        ));
        assert!(!items.is_empty());
        for li in &items {
            assert!(li.order_metadata.as_ref().unwrap().order_id.is_some());
        }
        most = most.max(items.len());
    }
    let calls = common::requests(&sb, "getInvoiceLineItemsByInvoiceNumber");
    assert!(
        calls > invoices.len() as u64,
        "some invoice spans several pages ({most} items max)"
    );
}

#[test]
fn any_range_is_walked_in_windows() {
    let (sb, client) = common::sandbox_and_client();
    let (_, end) = common::previous_month(&sb);
    let p = GetInvoicesParams {
        invoice_issue_start_date: "2024-01-01T00:00:00Z".into(),
        invoice_issue_end_date: end.clone().into(),
        ..Default::default()
    };
    // One call may not span that range; the iterator splits it.
    assert_eq!(
        client.invoices().get_invoices(&p).unwrap_err().kind(),
        ErrorKind::Validation
    );
    let count = common::every_item(client.invoices().iter_invoices(&p)).len();
    // The data set spans 120 days, so the last 366 days hold every invoice of the range.
    let end_dt = chrono::DateTime::parse_from_rfc3339(&end).unwrap();
    let one_year = GetInvoicesParams {
        invoice_issue_start_date: (end_dt - chrono::Duration::days(365)).into(),
        invoice_issue_end_date: end_dt.into(),
        ..Default::default()
    };
    let within = common::every_item(client.invoices().iter_invoices(&one_year)).len();
    assert_eq!(count, within);
    assert!(count > 50);
}

#[test]
fn bad_input_is_refused_before_any_request() {
    let (sb, client) = common::sandbox_and_client();
    let inv = client.invoices();
    let p = |s: &str, e: &str| GetInvoicesParams {
        invoice_issue_start_date: s.into(),
        invoice_issue_end_date: e.into(),
        ..Default::default()
    };
    // (start, end, the parameter the error names)
    let (start, end) = ("invoice_issue_start_date", "invoice_issue_end_date");
    let ranges = [
        ("2025-01-01T00:00:00Z", "2026-06-01T00:00:00Z", end),
        ("2025-03-01T00:00:00Z", "2025-01-01T00:00:00Z", start),
        ("2025-03-01T00:00:00Z", "2999-01-01T00:00:00Z", end),
        ("last tuesday", "2025-01-01T00:00:00Z", start),
    ];
    let mut cases: Vec<_> = ranges
        .into_iter()
        .map(|(s, e, param)| (inv.get_invoices(&p(s, e)).unwrap_err(), param))
        .collect();
    cases.extend([
        (
            inv.get_invoices(&GetInvoicesParams::default()).unwrap_err(),
            "invoice_issue_start_date",
        ),
        (
            inv.get_invoices(&GetInvoicesParams {
                region: Some("US".into()),
                ..p("2025-01-01T00:00:00Z", "2025-02-01T00:00:00Z")
            })
            .unwrap_err(),
            "region",
        ),
        (
            inv.get_invoices(&GetInvoicesParams {
                payment_method_types: Some(vec![]),
                ..p("2025-01-01T00:00:00Z", "2025-02-01T00:00:00Z")
            })
            .unwrap_err(),
            "payment_method_types",
        ),
        (
            inv.get_invoice_detail_by_invoice_number(&GetInvoiceDetailByInvoiceNumberParams {
                invoice_number: " ".into(),
                region: Some("JP".into()),
            })
            .unwrap_err(),
            "invoice_number",
        ),
        (
            inv.get_invoice_detail_by_invoice_number(&GetInvoiceDetailByInvoiceNumberParams {
                invoice_number: "X".into(),
                region: Some("XX".into()),
            })
            .unwrap_err(),
            "region",
        ),
    ]);
    for (e, param) in cases {
        assert_eq!(e.kind(), ErrorKind::Validation, "{e}");
        assert_eq!(e.parameter(), Some(param), "{e}");
    }
    assert_eq!(common::all_requests(&sb), 0, "nothing reached the service");
}

#[test]
fn unknown_invoice_is_not_found_with_request_id() {
    let (_sb, client) = common::sandbox_and_client();
    let e = invoice_detail(&client, "NO-SUCH-INVOICE").unwrap_err();
    assert_eq!(e.status(), Some(404));
    assert!(e.request_id().is_some());
    assert_eq!(e.operation(), Some("getInvoiceDetailByInvoiceNumber"));
}

#[test]
fn an_expired_page_token_ends_the_listing_clearly() {
    let sb =
        common::sandbox_with(|c| c.page_token_lifetime = std::time::Duration::from_millis(300));
    let client = common::client(&sb, Region::JP);
    let mut pager = client.invoices().iter_invoices(&month_params(&sb)).unwrap();
    let first = pager.next().unwrap().unwrap();
    let n = first.invoices.unwrap().len() as u64;
    std::thread::sleep(std::time::Duration::from_millis(600));
    let e = pager.next().unwrap().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::PageTokenExpired, "{e}");
    assert_eq!(e.items_yielded(), Some(n));
    assert!(pager.next().is_none());
}
