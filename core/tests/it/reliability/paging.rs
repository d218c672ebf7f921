//! F. Pagination.

use std::time::Duration;

use abws::api::invoices::GetInvoicesParams;
use abws::{ErrorKind, Region};
use abws_sandbox::{FaultAction, FaultRule};
use rand::Rng;

use super::{figure, n, Figure};
use crate::common;
use crate::common::faults;

pub fn run() -> Vec<Figure> {
    let mut out = vec![];
    // F1: random parameter sets; every page request repeats the other parameters exactly.
    let (sb, client) = common::sandbox_and_client();
    let mut rng = rand::rng();
    let trials = n(20, 100);
    let now = chrono::Utc::now();
    let mut drift = 0;
    let mut page_requests = 0;
    for _ in 0..trials {
        let start = now - chrono::Duration::days(rng.random_range(20..120));
        let end = start + chrono::Duration::days(rng.random_range(5..60));
        let end = end.min(now);
        let p = GetInvoicesParams {
            invoice_issue_start_date: start.into(),
            invoice_issue_end_date: end.into(),
            region: rng.random_bool(0.5).then(|| "JP".to_string()),
            payment_method_types: rng.random_bool(0.5).then(|| vec!["BCA".to_string()]),
            ..Default::default()
        };
        let first = sb.counters()["headersSeen"]["api"]
            .as_array()
            .map_or(0, |a| a.len());
        let _ = client.invoices().iter_invoices(&p).unwrap().items().count();
        let seen = sb.counters()["headersSeen"]["api"].as_array().unwrap()[first..].to_vec();
        let queries: Vec<String> = seen
            .iter()
            .filter(|r| {
                r["path"]
                    .as_str()
                    .unwrap()
                    .starts_with("/ab-invoice/2026-02-01/invoices?")
            })
            .map(|r| {
                let q = r["path"]
                    .as_str()
                    .unwrap()
                    .split_once('?')
                    .unwrap()
                    .1
                    .to_string();
                q.split('&')
                    .filter(|kv| !kv.starts_with("nextPageToken="))
                    .collect::<Vec<_>>()
                    .join("&")
            })
            .collect();
        page_requests += queries.len();
        if queries.windows(2).any(|w| w[0] != w[1]) {
            drift += 1;
        }
    }
    let mismatches = sb.counters()["pageTokenMismatches"].as_u64().unwrap_or(0);
    out.push(figure("F1", drift == 0 && mismatches == 0, format!("page requests with drift = {drift} listings of {trials} ({page_requests} page requests)")));

    // F2: the consumer pauses past the page token's lifetime.
    let sb = common::sandbox_with(|c| c.page_token_lifetime = Duration::from_millis(300));
    let client = common::client(&sb, Region::JP);
    let p = common::previous_month_invoices_params(&sb);
    let mut pager = client.invoices().iter_invoices(&p).unwrap();
    let first = pager.next().unwrap().unwrap().invoices.unwrap().len() as u64;
    std::thread::sleep(Duration::from_millis(500));
    let err = pager.next().unwrap().unwrap_err();
    let silent = usize::from(pager.next().is_some());
    out.push(figure(
        "F2",
        err.kind() == ErrorKind::PageTokenExpired && err.items_yielded() == Some(first) && silent == 0,
        format!("PageTokenExpired after {first} items, carrying the count; silent duplicates/gaps = {silent}"),
    ));

    // F3: a retry inside a page resends the same token; nothing skipped or repeated.
    let (sb, client) = common::sandbox_and_client();
    let p = common::previous_month_invoices_params(&sb);
    let baseline = common::calls::listed_invoice_numbers(&client, &p);
    // Faults inside the listing: two 503s before page 2, a mid-body reset before page 4.
    let mut faulty = vec![];
    for (n, page) in client.invoices().iter_invoices(&p).unwrap().enumerate() {
        let page = page.unwrap();
        faulty.extend(
            page.invoices
                .unwrap()
                .into_iter()
                .flatten()
                .map(|i| i.invoice_metadata.unwrap().invoice_number.unwrap()),
        );
        let status = faults::status(503);
        match n {
            0 => sb.inject(FaultRule::new("getInvoices", status).times(2)),
            2 => {
                sb.inject(FaultRule::new("getInvoices", FaultAction::ResetAfterBytes(300)).times(1))
            }
            _ => {}
        }
    }
    let diff = baseline.len().abs_diff(faulty.len())
        + baseline.iter().zip(&faulty).filter(|(a, b)| a != b).count();
    out.push(figure(
        "F3",
        diff == 0,
        format!("pages skipped or repeated = {diff} with two 503s and a mid-body reset inside the listing"),
    ));

    // F4: over the whole run the sandbox never rejected a token for parameter drift.
    out.push(figure(
        "F4",
        mismatches == 0,
        format!("INVALID_REQUEST_PARAMETER for drift = {mismatches}"),
    ));
    out
}
