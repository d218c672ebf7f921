//! A. Throttling and rate.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use abws::{ErrorKind, Region};
use abws_sandbox::{FaultRule, RateLimits, Sandbox};

use super::{figure, n, Figure};
use crate::common;
use crate::common::calls::{first_invoice, invoice_detail};
use crate::common::faults;

fn limited(op: &str, rate: f64, burst: u32) -> Sandbox {
    let mut o = HashMap::new();
    o.insert(op.to_string(), (rate, burst));
    common::sandbox_with(|c| c.rate_limits = RateLimits::Overrides(o))
}

fn paced_client(sb: &Sandbox) -> abws::blocking::Client {
    common::client_with(sb, Region::JP, |s| s.rate_limiting = true)
}

fn detail_calls(
    client: Arc<abws::blocking::Client>,
    number: String,
    threads: usize,
    calls: usize,
) -> (usize, f64) {
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let ok = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let started = Instant::now();
    let hs: Vec<_> = (0..threads)
        .map(|_| {
            let (c, n, next, ok) = (client.clone(), number.clone(), next.clone(), ok.clone());
            std::thread::spawn(move || {
                while next.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < calls {
                    if invoice_detail(&c, &n).is_ok() {
                        ok.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    (
        ok.load(std::sync::atomic::Ordering::SeqCst),
        started.elapsed().as_secs_f64(),
    )
}

pub fn run() -> Vec<Figure> {
    let mut out = vec![];
    // A1: many threads, one party, one operation: the client's bucket reaches the limit
    // without 429s. CI runs the plan's shape at 10 rps (the plan's 0.5 rps takes 380 s).
    let (rate, calls) = if crate::full() {
        (0.5, 200)
    } else {
        (10.0, 100)
    };
    let sb = limited("getInvoiceDetailByInvoiceNumber", rate, 10);
    let client = Arc::new(paced_client(&sb));
    let number = first_invoice(&sb);
    // The first answer tells the client the server's rate.
    invoice_detail(&client, &number).unwrap();
    let (ok, secs) = detail_calls(client.clone(), number.clone(), 16, calls - 1);
    let theory = (calls as f64 - 10.0) / rate;
    let t429 = common::throttled(&sb);
    out.push(figure(
        "A1",
        ok == calls - 1 && t429 <= 2 && secs <= 1.05 * theory.max(1.0) + 0.5,
        format!("{}/{} ok; 429s = {t429}; elapsed = {secs:.1} s vs {theory:.1} s theoretical at {rate} rps burst 10, 16 threads", ok + 1, calls),
    ));

    // A2: the server lowers its rate mid-run; the client follows after the first answer.
    let sb = limited("getInvoiceDetailByInvoiceNumber", 20.0, 10);
    let client = Arc::new(paced_client(&sb));
    let (_, _) = detail_calls(client.clone(), number.clone(), 4, 60);
    sb.set_rate("getInvoiceDetailByInvoiceNumber", 8.0, 10);
    let before = common::throttled(&sb);
    let (ok, secs) = detail_calls(client.clone(), number.clone(), 4, 60);
    let after = common::throttled(&sb) - before;
    out.push(figure(
        "A2",
        after <= 1 && ok == 60,
        format!(
            "rate 20 → 8 rps mid-run: 429s after the change = {after}; 60/60 ok in {secs:.1} s"
        ),
    ));

    // A3: two clients of one party share one bucket.
    let sb = limited("getInvoiceDetailByInvoiceNumber", 10.0, 10);
    let a = Arc::new(paced_client(&sb));
    let b = Arc::new(paced_client(&sb));
    invoice_detail(&a, &number).unwrap();
    let t0 = Instant::now();
    let ha = {
        let (a, n) = (a.clone(), number.clone());
        std::thread::spawn(move || detail_calls(a, n, 2, 40))
    };
    let (okb, _) = detail_calls(b.clone(), number.clone(), 2, 40);
    let (oka, _) = ha.join().unwrap();
    let secs = t0.elapsed().as_secs_f64();
    // The burst is spent at once; the steady rate is what the plan bounds.
    let steady = ((oka + okb) as f64 - 10.0) / secs;
    let t429 = common::throttled(&sb);
    out.push(figure(
        "A3",
        steady <= 10.0 * 1.02 && t429 <= 1,
        format!("two clients, same party: combined steady rate {:.2}× the plan after the burst, 429s = {t429}", steady / 10.0),
    ));

    // A4: 429 without a rate header, again and again: bounded attempts, the error keeps the request id.
    let sb = common::sandbox();
    sb.inject(FaultRule::new("getInvoiceDetailByInvoiceNumber", faults::status(429)).times(5));
    let client = common::client(&sb, Region::JP);
    let e = invoice_detail(&client, &number).unwrap_err();
    let attempts = common::requests(&sb, "getInvoiceDetailByInvoiceNumber");
    out.push(figure(
        "A4",
        attempts <= 3 && e.request_id().is_some() && e.status() == Some(429),
        format!(
            "attempts per call = {attempts}; final error RateLimited carries request id: {}",
            e.request_id().is_some()
        ),
    ));

    // A5: 429 on placeOrder: resent with the same externalId; one order.
    let sb = common::sandbox();
    sb.inject(FaultRule::new("placeOrder", faults::status(429)).times(1));
    let client = common::client(&sb, Region::JP);
    let order = crate::server::valid_order(&client, "A5-ORDER");
    let r = client.ordering().place_order(&order);
    let created = sb.counters()["ordersCreated"]["A5-ORDER"]
        .as_u64()
        .unwrap_or(0);
    out.push(figure(
        "A5",
        r.is_ok() && created == 1,
        format!("orders in the ledger for that externalId = {created} (2 requests, 1 order)"),
    ));
    let _ = (Duration::ZERO, ErrorKind::Api, n(0, 0));
    out
}
