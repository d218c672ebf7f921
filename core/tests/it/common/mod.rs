//! Shared set-up of the tests that run against the sandbox over real loopback HTTP.
#![allow(dead_code)]

pub mod redis;

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
    sb.dataset()["previousMonthInvoices"]
        .as_array()
        .expect("the data set lists them")
        .iter()
        .map(|v| v.as_str().expect("invoice numbers are text").to_string())
        .collect()
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
    blocking::Client::new(settings(sb, region)).expect("client")
}

/// getInvoices of the sandbox's previous month.
pub fn month_invoices(sb: &Sandbox) -> abws::api::invoices::GetInvoicesParams {
    let (start, end) = previous_month(sb);
    abws::api::invoices::GetInvoicesParams {
        invoice_issue_start_date: start.into(),
        invoice_issue_end_date: end.into(),
        ..Default::default()
    }
}

/// Requests the sandbox received for an operation, all statuses.
pub fn requests(sb: &Sandbox, op: &str) -> u64 {
    sb.counters()["requests"][op]
        .as_object()
        .map(|m| m.values().filter_map(Value::as_u64).sum())
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

/// A report for a shipped line of last month (the first CHARGE transaction's first line),
/// waited to DONE: (report id, document id). Needs a sandbox with a fast clock.
pub fn ready_document(sb: &Sandbox, client: &blocking::Client) -> (String, String) {
    use abws::api::documents::{CreateReportParams, ReportOptionsParams};
    use abws::api::reconciliation::GetTransactionsParams;
    use std::time::Duration;

    let (s, e) = previous_month(sb);
    let page = client
        .reconciliation()
        .get_transactions(&GetTransactionsParams {
            feed_start_date: s.into(),
            feed_end_date: e.into(),
            ..Default::default()
        })
        .unwrap();
    let t = page
        .transactions
        .unwrap()
        .into_iter()
        .flatten()
        .find(|t| t.transaction_type.as_deref() == Some("CHARGE"))
        .unwrap();
    let l = t.transaction_line_items.as_ref().unwrap()[0]
        .as_ref()
        .unwrap();
    let p = CreateReportParams {
        report_options: ReportOptionsParams {
            order_id: l.order_id.clone(),
            order_line_item_id: l.order_line_item_id.clone(),
            document_type: Some("Invoice".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let id = client
        .documents()
        .create_report(&p)
        .unwrap()
        .report_id
        .unwrap();
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
