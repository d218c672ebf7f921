//! Shared set-up of the tests that run against the sandbox over real loopback HTTP.
#![allow(dead_code)]

pub mod calls;
pub mod consent;
pub mod faults;
pub mod redis;
pub mod rotation;

use abws::{blocking, Credentials, Region, Settings};
use abws_sandbox::{RateLimits, Sandbox, SandboxConfig};
use serde_json::Value;

/// A sandbox with rate limits off (pacing has its own tests), pinned to a date so the
/// data set is the same on every run.
pub fn sandbox() -> Sandbox {
    sandbox_with(|_| {})
}

pub fn sandbox_with(f: impl FnOnce(&mut SandboxConfig)) -> Sandbox {
    let mut cfg = SandboxConfig {
        rate_limits: RateLimits::Off,
        ..Default::default()
    };
    f(&mut cfg);
    Sandbox::spawn(cfg).expect("sandbox starts")
}

/// The invoice numbers of the sandbox's previous month.
pub fn previous_month_invoices(sb: &Sandbox) -> Vec<String> {
    texts(&sb.dataset()["previousMonthInvoices"])
}

pub fn settings(sb: &Sandbox, region: Region) -> Settings {
    settings_from(&sb.describe(), region)
}

/// Settings from a sandbox's `describe()` JSON: all a re-executed child process gets of the
/// sandbox its parent started.
pub fn settings_from(d: &Value, region: Region) -> Settings {
    let get = |v: &Value, k: &str| v[k].as_str().expect("described sandbox").to_string();
    let c = &d["credentials"];
    let mut s = Settings::new(
        region,
        Credentials::RefreshToken {
            client_id: get(c, "client_id"),
            client_secret: get(c, "client_secret").into(),
            refresh_token: get(c, "refresh_token").into(),
        },
    );
    s.endpoint = Some(get(d, "base_url"));
    s.auth_endpoint = Some(get(d, "auth_url"));
    s.consent_endpoint = Some(get(d, "consent_url"));
    s.user_email = Some(get(c, "user_email"));
    s.rate_limiting = false;
    s
}

pub fn client(sb: &Sandbox, region: Region) -> blocking::Client {
    client_with(sb, region, |_| {})
}

/// A sandbox (`sandbox()`) and a JP client of it: the set-up of most tests.
pub fn sandbox_and_client() -> (Sandbox, blocking::Client) {
    let sb = sandbox();
    let client = client(&sb, Region::JP);
    (sb, client)
}

/// A client of the sandbox with settings `f` changed.
pub fn client_with(
    sb: &Sandbox,
    region: Region,
    f: impl FnOnce(&mut Settings),
) -> blocking::Client {
    let mut s = settings(sb, region);
    f(&mut s);
    blocking::Client::new(s).expect("client")
}

/// The requests the sandbox received whose path contains `path_part`, in order: (the path
/// with its query, the headers, the body as JSON or `null`).
pub fn received(sb: &Sandbox, path_part: &str) -> Vec<(String, Value, Value)> {
    sb.counters()["headersSeen"]["api"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["path"].as_str().is_some_and(|p| p.contains(path_part)))
        .map(|h| {
            let body = h["body"]
                .as_str()
                .map(|b| serde_json::from_str(b).expect("a JSON body"))
                .unwrap_or(Value::Null);
            (
                h["path"].as_str().unwrap().to_string(),
                h["headers"].clone(),
                body,
            )
        })
        .collect()
}

/// Every item of a listing (`iter_*`), each page read without error.
pub fn every_item<P: abws::paging::Page>(pager: abws::Result<blocking::Pager<P>>) -> Vec<P::Item> {
    pager
        .expect("the listing starts")
        .items()
        .collect::<abws::Result<_>>()
        .expect("every page is read")
}

/// The strings of a JSON list (of the data set).
pub fn texts(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("a list")
        .iter()
        .map(|v| v.as_str().expect("text").to_string())
        .collect()
}

/// The sum of a counter kept per key (per status, per operation).
fn total(counter: &Value) -> u64 {
    counter
        .as_object()
        .map(|m| m.values().filter_map(Value::as_u64).sum())
        .unwrap_or(0)
}

/// Requests the sandbox received for an operation, all statuses.
pub fn requests(sb: &Sandbox, op: &str) -> u64 {
    total(&sb.counters()["requests"][op])
}

/// The 429s the sandbox answered, all operations.
pub fn throttled(sb: &Sandbox) -> u64 {
    total(&sb.counters()["throttled"])
}

/// Refresh-token grants the sandbox's token endpoint received.
pub fn refreshes(sb: &Sandbox) -> u64 {
    sb.counters()["tokenCalls"]["refresh_token"]
        .as_u64()
        .unwrap_or(0)
}

/// Every request the sandbox received, all operations.
pub fn all_requests(sb: &Sandbox) -> u64 {
    sb.counters()["requests"]
        .as_object()
        .map(|ops| {
            ops.values()
                .filter_map(Value::as_object)
                .flat_map(|m| m.values().filter_map(Value::as_u64))
                .sum()
        })
        .unwrap_or(0)
}

/// getInvoices' arguments for the sandbox's previous month (`previous_month`).
pub fn previous_month_invoices_params(sb: &Sandbox) -> abws::api::invoices::GetInvoicesParams {
    let (start, end) = previous_month(sb);
    abws::api::invoices::GetInvoicesParams {
        invoice_issue_start_date: start.into(),
        invoice_issue_end_date: end.into(),
        ..Default::default()
    }
}

/// getTransactions' arguments for the sandbox's previous month (`previous_month`).
pub fn previous_month_transactions_params(
    sb: &Sandbox,
) -> abws::api::reconciliation::GetTransactionsParams {
    let (start, end) = previous_month(sb);
    abws::api::reconciliation::GetTransactionsParams {
        feed_start_date: start.into(),
        feed_end_date: end.into(),
        ..Default::default()
    }
}

/// The first and last instant of the previous calendar month of the sandbox's today.
pub fn previous_month(sb: &Sandbox) -> (String, String) {
    use chrono::{Datelike, NaiveDate};
    let today =
        NaiveDate::parse_from_str(sb.dataset()["today"].as_str().unwrap(), "%Y-%m-%d").unwrap();
    let first_this = today.with_day(1).unwrap();
    let first_prev = (first_this - chrono::Duration::days(1))
        .with_day(1)
        .unwrap();
    (
        format!("{first_prev}T00:00:00Z"),
        format!("{}T23:59:59Z", first_this - chrono::Duration::days(1)),
    )
}

/// Last month's first CHARGE transaction and its first line.
pub fn a_charge(
    sb: &Sandbox,
    client: &blocking::Client,
) -> (
    abws::api::reconciliation::Transaction,
    abws::api::reconciliation::TransactionLineItem,
) {
    let page = client
        .reconciliation()
        .get_transactions(&previous_month_transactions_params(sb))
        .unwrap();
    let t = page
        .transactions
        .unwrap()
        .into_iter()
        .flatten()
        .find(|t| t.transaction_type.as_deref() == Some("CHARGE"))
        .unwrap();
    let l = t.transaction_line_items.as_ref().unwrap()[0]
        .clone()
        .unwrap();
    (t, l)
}

/// createReport's arguments for the invoice document of an order line.
pub fn invoice_report(
    order_id: Option<String>,
    order_line_item_id: Option<String>,
) -> abws::api::documents::CreateReportParams {
    abws::api::documents::CreateReportParams {
        report_options: abws::api::documents::ReportOptionsParams {
            order_id,
            order_line_item_id,
            document_type: Some("Invoice".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// createReport: the new report's id.
pub fn create_report(
    client: &blocking::Client,
    p: &abws::api::documents::CreateReportParams,
) -> String {
    client
        .documents()
        .create_report(p)
        .unwrap()
        .report_id
        .unwrap()
}

/// A report for a shipped line of last month (the first CHARGE transaction's first line),
/// waited to DONE: (report id, document id). Needs a sandbox with a fast clock.
pub fn ready_document(sb: &Sandbox, client: &blocking::Client) -> (String, String) {
    use std::time::Duration;

    let (_, l) = a_charge(sb, client);
    let id = create_report(
        client,
        &invoice_report(l.order_id.clone(), l.order_line_item_id.clone()),
    );
    let r = client
        .documents()
        .wait_for_report(
            &id,
            Duration::from_millis(100),
            Some(Duration::from_secs(30)),
        )
        .unwrap();
    (id, r.report_document_id.unwrap())
}

/// Requests the sandbox has held with a delay rule (counted when the hold starts).
pub fn delays_fired(sb: &Sandbox) -> u64 {
    sb.counters()["faultsFired"]["delay"].as_u64().unwrap_or(0)
}

/// Resolves once the sandbox holds a request with a delay rule beyond the `before` it had
/// held: that request is on the wire and not yet answered. Cancelling then, not after a
/// fixed time, is what a loaded machine cannot make late.
pub async fn held(sb: &Sandbox, before: u64) {
    while delays_fired(sb) <= before {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

/// Runs `f` on `threads` threads at once, each given a clone of `shared`: the results, in
/// the threads' order.
pub fn on_threads<S, T>(threads: usize, shared: S, f: fn(S) -> T) -> Vec<T>
where
    S: Clone + Send + 'static,
    T: Send + 'static,
{
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let s = shared.clone();
            std::thread::spawn(move || f(s))
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

/// Checks `f` every 10 ms until it holds or `within` passes; whether it held.
pub fn eventually(within: std::time::Duration, mut f: impl FnMut() -> bool) -> bool {
    let until = std::time::Instant::now() + within;
    loop {
        if f() {
            return true;
        }
        if std::time::Instant::now() >= until {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// The order line item id of an order's first line (getOrdersByOrderId).
pub fn line_of(client: &blocking::Client, order: &str) -> Option<String> {
    let orders = client
        .reporting()
        .get_orders_by_order_id(&abws::api::reporting::GetOrdersByOrderIdParams {
            order_id: order.into(),
            include_line_items: Some(true),
            ..Default::default()
        })
        .unwrap()
        .orders
        .unwrap();
    let order = orders[0].as_ref().unwrap();
    order.line_items.as_ref().unwrap()[0]
        .as_ref()
        .unwrap()
        .order_line_item_id
        .clone()
}
