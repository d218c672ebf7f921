//! I. Concurrency and process model.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use abws::api::reconciliation::GetTransactionsParams;
use abws::ratelimit::{Bucket, Plan};
use abws::retry::RetryBudget;
use abws::Region;
use abws_sandbox::{FaultAction, FaultRule};

use super::{figure, n, Figure};
use crate::common;
use crate::common::calls::{first_invoice, invoice_detail, jp_carts};
use crate::common::faults;

/// No call finished for this long: longer than any call may take (its operation budget).
const STUCK: Duration = Duration::from_secs(130);

pub fn run() -> Vec<Figure> {
    let mut out = vec![];
    // I1: many threads, mixed calls, faults on: no panic, no hang.
    let sb = common::sandbox();
    sb.inject(
        FaultRule::new("getInvoiceDetailByInvoiceNumber", faults::status(503)).probability(0.2),
    );
    sb.inject(
        FaultRule::new("getTransactions", FaultAction::ResetAfterBytes(700)).probability(0.2),
    );
    abws::process::context().retry_budget.reset();
    let client = Arc::new(common::client(&sb, Region::JP));
    let number = first_invoice(&sb);
    let (s, e) = common::previous_month(&sb);
    let threads = 64;
    let per = n(10, 200);
    let done = Arc::new(AtomicUsize::new(0));
    let calls = Arc::new(AtomicUsize::new(0));
    let panicked = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let hs: Vec<_> = (0..threads)
        .map(|i| {
            let (c, nn, s, e, done, calls, panicked) = (
                client.clone(),
                number.clone(),
                s.clone(),
                e.clone(),
                done.clone(),
                calls.clone(),
                panicked.clone(),
            );
            std::thread::spawn(move || {
                for j in 0..per {
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        match (i + j) % 3 {
                            0 => invoice_detail(&c, &nn).map(|_| ()),
                            1 => c
                                .reconciliation()
                                .get_transactions(&GetTransactionsParams {
                                    feed_start_date: s.clone().into(),
                                    feed_end_date: e.clone().into(),
                                    ..Default::default()
                                })
                                .map(|_| ()),
                            _ => jp_carts(&c).map(|_| ()),
                        }
                    }));
                    if r.is_err() {
                        panicked.fetch_add(1, Ordering::SeqCst);
                    }
                    calls.fetch_add(1, Ordering::SeqCst);
                }
                done.fetch_add(1, Ordering::SeqCst);
            })
        })
        .collect();
    // A thread is hung when no call of any thread has finished for longer than a call can
    // take (its 120 s operation budget), not when the whole run is long (the plan's size
    // is 12,800 calls).
    let mut seen = calls.load(Ordering::SeqCst);
    let mut last_progress = Instant::now();
    while done.load(Ordering::SeqCst) < threads && last_progress.elapsed() < STUCK {
        std::thread::sleep(Duration::from_millis(50));
        let now = calls.load(Ordering::SeqCst);
        if now != seen {
            (seen, last_progress) = (now, Instant::now());
        }
    }
    let hung = threads - done.load(Ordering::SeqCst);
    if hung == 0 {
        for h in hs {
            let _ = h.join();
        }
    }
    out.push(figure(
        "I1",
        hung == 0 && panicked.load(Ordering::SeqCst) == 0,
        format!("{threads} threads × {per} mixed calls with 503s and mid-body resets: panics = {}; hung threads = {hung}; {:.1} s", panicked.load(Ordering::SeqCst), started.elapsed().as_secs_f64()),
    ));
    abws::process::context().retry_budget.reset();

    // I2: limiter and quota under stress: 10 takers, 2 rate changers.
    let bucket = Arc::new(Bucket::new(Plan::new(500.0, 20)));
    let budget = Arc::new(RetryBudget::new(100));
    let stop = Arc::new(AtomicBool::new(false));
    let violations = Arc::new(AtomicUsize::new(0));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut tasks = vec![];
    for i in 0..12 {
        let (b, q, stop, v) = (
            bucket.clone(),
            budget.clone(),
            stop.clone(),
            violations.clone(),
        );
        tasks.push(rt.spawn(async move {
            while !stop.load(Ordering::SeqCst) {
                if i < 10 {
                    b.acquire().await;
                    if q.try_spend(5) && i % 2 == 0 {
                        q.refund(5);
                    } else {
                        q.refund(1);
                    }
                } else {
                    b.set_rate(if i == 10 { 200.0 } else { 900.0 });
                    tokio::time::sleep(Duration::from_millis(3)).await;
                }
                let a = b.available();
                let t = q.available();
                if !(0.0..=20.0).contains(&a) || !(0..=100).contains(&t) {
                    v.fetch_add(1, Ordering::SeqCst);
                }
            }
        }));
    }
    std::thread::sleep(Duration::from_secs(2));
    stop.store(true, Ordering::SeqCst);
    rt.block_on(async {
        for t in tasks {
            let _ = t.await;
        }
    });
    let v = violations.load(Ordering::SeqCst);
    out.push(figure("I2", v == 0, format!("capacity outside [0, burst] or quota outside [0, max]: {v} violations in 2 s of 10 takers + 2 rate changers")));

    // I3: the blocking facade inside a tokio runtime.
    let (_sb, client) = common::sandbox_and_client();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async { jp_carts(&client) })
    }));
    // It works: the call is driven by the process runtime (`local::on_process_runtime`).
    let ok = matches!(&r, Ok(Ok(_)));
    out.push(figure(
        "I3",
        ok,
        format!(
            "panics = {}; the call answered from inside the runtime's block_on: {ok}",
            u8::from(r.is_err())
        ),
    ));
    out
}
