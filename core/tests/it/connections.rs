//! Where connections live (`pools.rs`, `local.rs`): clients on one thread share that
//! thread's connections, each thread has its own, and a connection the server closed while
//! the thread was away is not used.

use std::time::Duration;

use abws::{blocking, Region};
use serde_json::Value;

use crate::common;

fn an_invoice(sb: &abws_sandbox::Sandbox) -> String {
    common::previous_month_invoices(sb)[0].clone()
}

fn detail(client: &blocking::Client, number: &str) -> abws::Result<()> {
    let p = abws::api::invoices::GetInvoiceDetailByInvoiceNumberParams {
        invoice_number: number.to_string(),
        region: None,
    };
    client
        .invoices()
        .get_invoice_detail_by_invoice_number(&p)
        .map(drop)
}

/// (connection id, user agent) of every API request the sandbox saw for invoice details.
fn seen(sb: &abws_sandbox::Sandbox) -> Vec<(u64, String)> {
    sb.counters()["headersSeen"]["api"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["path"].as_str().unwrap().starts_with("/ab-invoice/"))
        .map(|r: &Value| {
            (
                r["connection"].as_u64().unwrap(),
                r["headers"]["user-agent"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            )
        })
        .collect()
}

#[test]
fn clients_on_one_thread_share_its_connection() {
    let sb = common::sandbox();
    let n = an_invoice(&sb);
    let clients: Vec<blocking::Client> = (0..30)
        .map(|i| {
            let mut s = common::settings(&sb, Region::JP);
            s.app_name = Some(format!("erp-{}", i % 3));
            blocking::Client::new(s).unwrap()
        })
        .collect();
    std::thread::spawn(move || {
        for c in &clients {
            detail(c, &n).unwrap();
        }
    })
    .join()
    .unwrap();
    let seen = seen(&sb);
    assert_eq!(seen.len(), 30);
    let conns: std::collections::BTreeSet<u64> = seen.iter().map(|(c, _)| *c).collect();
    assert_eq!(conns.len(), 1, "30 clients on one thread: one connection");
    // The pool is shared, the user agent is each client's own.
    for (i, (_, ua)) in seen.iter().enumerate() {
        assert!(ua.contains(&format!("erp-{}", i % 3)), "{ua}");
    }
}

#[test]
fn each_thread_has_its_own_connections_and_may_end() {
    let sb = common::sandbox();
    let n = an_invoice(&sb);
    let client = std::sync::Arc::new(common::client(&sb, Region::JP));
    for _ in 0..2 {
        let threads: Vec<_> = (0..3)
            .map(|_| {
                let (c, n) = (client.clone(), n.clone());
                std::thread::spawn(move || {
                    detail(&c, &n).unwrap();
                    detail(&c, &n).unwrap();
                })
            })
            .collect();
        for t in threads {
            // A thread's runtime and connections end with it, without a panic.
            t.join().unwrap();
        }
    }
    detail(&client, &n).unwrap();
    let seen = seen(&sb);
    assert_eq!(seen.len(), 13);
    let conns: std::collections::BTreeSet<u64> = seen.iter().map(|(c, _)| *c).collect();
    assert_eq!(conns.len(), 7, "one connection per thread: {seen:?}");
}

#[test]
fn a_connection_the_server_closed_while_idle_is_not_used() {
    let sb = common::sandbox_with(|c| c.idle_timeout = Some(Duration::from_millis(150)));
    let n = an_invoice(&sb);
    let mut s = common::settings(&sb, Region::JP);
    // One attempt: a call that picked the closed connection would fail.
    s.max_attempts = 1;
    let client = blocking::Client::new(s).unwrap();
    for _ in 0..3 {
        detail(&client, &n).unwrap();
        std::thread::sleep(Duration::from_millis(400));
    }
    let conns: std::collections::BTreeSet<u64> = seen(&sb).iter().map(|(c, _)| *c).collect();
    assert_eq!(conns.len(), 3, "a new connection after each idle close");
}
