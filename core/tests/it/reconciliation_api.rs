//! Reconciliation 2021-01-08 against the sandbox over HTTP.

use crate::common;

use std::collections::HashSet;

use abws::api::reconciliation::{
    GetInvoiceDetailsByOrderLineItemsParams, GetTransactionsParams, InvoiceDetailsForParams,
    OrderLineItemRef,
};
use abws::ErrorKind;

fn month_transactions(
    sb: &abws_sandbox::Sandbox,
    client: &abws::blocking::Client,
) -> Vec<abws::api::reconciliation::Transaction> {
    let p = common::previous_month_transactions_params(sb);
    common::every_item(client.reconciliation().iter_transactions(&p))
}

#[test]
fn transactions_page_with_the_token_alone_and_add_up() {
    let (sb, client) = common::sandbox_and_client();
    let txs = month_transactions(&sb, &client);
    assert!(txs.len() > 50, "{}", txs.len());
    assert!(
        common::requests(&sb, "getTransactions") >= 2,
        "several pages"
    );
    let ids: HashSet<_> = txs
        .iter()
        .map(|t| t.transaction_id.clone().unwrap())
        .collect();
    assert_eq!(ids.len(), txs.len(), "no duplicates across pages");
    for t in &txs {
        let total = t.amount.as_ref().unwrap().value().unwrap();
        let lines: rust_decimal::Decimal = t
            .transaction_line_items
            .iter()
            .flatten()
            .flatten()
            .map(|l| l.total_amount.as_ref().unwrap().value().unwrap())
            .sum();
        assert_eq!(total, lines, "transaction {:?}", t.transaction_id);
        assert_eq!(
            t.amount.as_ref().unwrap().amount.unwrap().form(),
            abws::AmountForm::String
        );
    }
    // Round trip keeps the string amounts and their scale.
    let json = serde_json::to_string(&txs[0]).unwrap();
    let back: abws::api::reconciliation::Transaction = serde_json::from_str(&json).unwrap();
    assert_eq!(back, txs[0]);
}

#[test]
fn invoice_details_for_sends_the_fewest_requests() {
    let (sb, client) = common::sandbox_and_client();
    let txs = month_transactions(&sb, &client);
    let items: Vec<OrderLineItemRef> = txs
        .iter()
        .flat_map(|t| t.transaction_line_items.iter().flatten().flatten())
        .map(OrderLineItemRef::from)
        .collect();
    let pairs: HashSet<_> = items
        .iter()
        .map(|i| (i.order_id.clone(), i.shipment_id.clone()))
        .collect();
    assert!(
        items.len() > pairs.len(),
        "some shipments have several line items"
    );
    let before = common::requests(&sb, "getInvoiceDetailsByOrderLineItems");
    let details = client
        .reconciliation()
        .invoice_details_for(&InvoiceDetailsForParams {
            line_items: items.to_vec(),
        })
        .unwrap();
    let sent = common::requests(&sb, "getInvoiceDetailsByOrderLineItems") - before;
    assert_eq!(
        sent as usize,
        pairs.len().div_ceil(25),
        "one representative per (order, shipment), 25 per request"
    );
    assert_eq!(details.len(), items.len(), "an answer for every input");
    for (d, input) in details.iter().zip(&items) {
        let oli = d.order_line_item.as_ref().unwrap();
        assert_eq!(
            oli.order_line_item_id.as_deref(),
            Some(input.order_line_item_id.as_str())
        );
        let inv = d.invoice_details.as_ref().unwrap();
        assert!(!inv.is_empty(), "{input:?}");
    }
    // JP fields are typed and consistent: the invoice number matches the transaction's.
    let by_line: std::collections::HashMap<_, _> = txs
        .iter()
        .flat_map(|t| {
            t.transaction_line_items
                .iter()
                .flatten()
                .flatten()
                .map(move |l| (l.order_line_item_id.clone(), t.invoice_number.clone()))
        })
        .collect();
    let mut matched = 0;
    for d in &details {
        let id = d
            .order_line_item
            .as_ref()
            .unwrap()
            .order_line_item_id
            .clone();
        let numbers: Vec<_> = d
            .invoice_details
            .iter()
            .flatten()
            .flatten()
            .filter_map(|i| i.invoice_number.clone())
            .collect();
        if let Some(Some(n)) = by_line.get(&id) {
            if numbers.contains(n) {
                matched += 1;
            }
        }
        for inv in d.invoice_details.iter().flatten().flatten() {
            for t in inv.tax.iter().flatten().flatten() {
                let (i, e, a) = (
                    t.inclusive_total.as_ref().unwrap().value().unwrap(),
                    t.exclusive_total.as_ref().unwrap().value().unwrap(),
                    t.amount.as_ref().unwrap().value().unwrap(),
                );
                assert_eq!(i, e + a);
            }
        }
    }
    assert!(
        matched * 10 >= details.len() * 9,
        "{matched} of {}",
        details.len()
    );
}

#[test]
fn twenty_six_line_items_are_refused_before_sending() {
    let (sb, client) = common::sandbox_and_client();
    let items: Vec<_> = (0..26)
        .map(|i| OrderLineItemRef::new(format!("O-{i}"), "L", "S"))
        .collect();
    let e = client
        .reconciliation()
        .get_invoice_details_by_order_line_items(&GetInvoiceDetailsByOrderLineItemsParams {
            order_line_items: items.to_vec(),
        })
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Validation);
    assert_eq!(e.parameter(), Some("order_line_items"));
    let e = client
        .reconciliation()
        .get_invoice_details_by_order_line_items(&GetInvoiceDetailsByOrderLineItemsParams {
            order_line_items: vec![OrderLineItemRef::new("O", "", "S")],
        })
        .unwrap_err();
    assert_eq!(
        e.parameter(),
        Some("order_line_items[0].order_line_item_id")
    );
    let e = client
        .reconciliation()
        .get_transactions(&GetTransactionsParams {
            feed_start_date: "2020-13-01".into(),
            feed_end_date: "2020-12-01T00:00:00Z".into(),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(e.parameter(), Some("feed_start_date"));
    assert_eq!(common::all_requests(&sb), 0);
}

#[test]
fn consolidated_invoice_number_reads_pending_then_the_number() {
    let (sb, client) = common::sandbox_and_client();
    // Find a line item of the consolidated invoice: the first request that names it
    // answers Pending.
    let now = chrono::Utc::now();
    let txs: Vec<_> = common::every_item(client.reconciliation().iter_transactions(
        &GetTransactionsParams {
            feed_start_date: (now - chrono::Duration::days(130)).into(),
            feed_end_date: now.into(),
            ..Default::default()
        },
    ));
    let items: Vec<OrderLineItemRef> = txs
        .iter()
        .flat_map(|t| t.transaction_line_items.iter().flatten().flatten())
        .map(OrderLineItemRef::from)
        .collect();
    let all = client
        .reconciliation()
        .invoice_details_for(&InvoiceDetailsForParams {
            line_items: items.to_vec(),
        })
        .unwrap();
    let reads = |d: &abws::api::reconciliation::InvoiceDetailsByOrderLineItem| {
        d.invoice_details.iter().flatten().flatten().find_map(|i| {
            i.consolidated_invoice_details
                .as_ref()?
                .invoice_number
                .clone()
        })
    };
    let idx = all
        .iter()
        .position(|d| reads(d).as_deref() == Some("Pending"))
        .expect("a Pending consolidated number");
    let item = items[idx].clone();
    let number = |c: &abws::blocking::Client| {
        let r = c
            .reconciliation()
            .get_invoice_details_by_order_line_items(&GetInvoiceDetailsByOrderLineItemsParams {
                order_line_items: std::slice::from_ref(&item).to_vec(),
            })
            .unwrap();
        r.invoice_details_by_order_line_items.unwrap()[0]
            .as_ref()
            .unwrap()
            .invoice_details
            .as_ref()
            .unwrap()[0]
            .as_ref()
            .unwrap()
            .consolidated_invoice_details
            .as_ref()
            .unwrap()
            .invoice_number
            .clone()
            .unwrap()
    };
    // Pending for the first two requests that name it, then the real number.
    let mut real = number(&client);
    let mut calls = 1;
    while real == "Pending" && calls < 3 {
        real = number(&client);
        calls += 1;
    }
    assert_eq!(
        real,
        sb.dataset()["specials"]["pendingConsolidatedInvoice"]
            .as_str()
            .unwrap()
    );
    // A report for a Pending number is refused before sending.
    let e = client
        .documents()
        .create_report(&abws::api::documents::CreateReportParams {
            report_options: abws::api::documents::ReportOptionsParams {
                invoice_id: Some("Pending".into()),
                document_type: Some("Invoice".into()),
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(e.parameter(), Some("report_options.invoice_id"));
}
